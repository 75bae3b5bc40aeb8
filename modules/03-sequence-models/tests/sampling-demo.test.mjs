// Unit tests of section 7's sampling demo module, against hand arithmetic (the page's worked
// example and its Check yourself), the edge cases of Equation 12, and the fixture's recorded data.
import {test} from "node:test";
import assert from "node:assert/strict";
import {thisModule} from "../../../tests/js/course.mjs";

const m = thisModule(import.meta.url);
const {
  temperatureProbs, topKMask, nucleusMask, samplingDistribution, entropy, keptByFilter, chartRows, barsThatFit,
  nearestSample, describeSample, promptLabel, showChar, speakChar, checkSamplingData, TAU_ZERO,
} = await import(m.demoUrl("sampling-demo"));

const near = (a, b, tol = 1e-9) => Math.abs(a - b) <= tol;
const fixture = m.fixtureData().sampling;
const logitsOf = (probs) => probs.map(Math.log); // softmax(ln q) = q when Σq = 1

test("worked example: logits (2, 1, 0) at τ = 1, 0.5 and 2 (Equation 12)", () => {
  const e = Math.exp;
  const at = (tau) => temperatureProbs([2, 1, 0], tau);
  const z1 = e(2) + e(1) + 1;
  assert.deepEqual(at(1).map((q) => q.toFixed(3)), [e(2) / z1, e(1) / z1, 1 / z1].map((q) => q.toFixed(3)));
  assert.equal(at(1)[0].toFixed(3), "0.665");
  assert.equal(at(0.5)[0].toFixed(3), "0.867"); // halving τ doubles the gaps: e^4 / (e^4 + e^2 + 1)
  assert.ok(near(at(0.5)[0], e(4) / (e(4) + e(2) + 1)));
  assert.ok(near(at(2)[0], e(1) / (e(1) + e(0.5) + 1)));
  // the ranking never changes
  for (const tau of [0.05, 0.5, 1, 2, 50]) {
    const q = at(tau);
    assert.ok(q[0] > q[1] && q[1] > q[2], `τ = ${tau}`);
    assert.ok(near(q.reduce((a, b) => a + b), 1, 1e-12));
  }
});

test("τ → 0 is the arg max; huge τ approaches uniform; no overflow at extreme logits", () => {
  assert.deepEqual(temperatureProbs([0.3, 2.5, -1], 0), [0, 1, 0]);
  assert.deepEqual(temperatureProbs([0.3, 2.5, -1], TAU_ZERO / 2), [0, 1, 0]);
  assert.deepEqual(temperatureProbs([1, 3, 3], 0), [0, 0.5, 0.5]); // tied maxima share the mass
  // just above the cut-off the softmax is already one-hot to double precision
  assert.equal(temperatureProbs([0.3, 2.5, -1], 0.01)[1], 1);
  const flat = temperatureProbs([2, 1, 0], 1e6);
  assert.ok(flat.every((q) => near(q, 1 / 3, 1e-6)));
  const big = temperatureProbs([1000, 999, -1000], 1);
  assert.ok(near(big[0], 1 / (1 + Math.exp(-1))) && big.every(Number.isFinite));
});

test("Check yourself: top-2 and nucleus p = 0.9 on (0.50, 0.30, 0.15, 0.05), then on a confident step", () => {
  const z = logitsOf([0.5, 0.3, 0.15, 0.05]);
  const top2 = samplingDistribution(z, {k: 2});
  assert.deepEqual(top2.final.map((q) => q.toFixed(3)), ["0.625", "0.375", "0.000", "0.000"]);
  assert.ok(near(top2.removedMass, 0.2));
  const nuc = samplingDistribution(z, {p: 0.9});
  assert.deepEqual(nuc.kept, [true, true, true, false]); // two reach only 0.80, three reach 0.95
  assert.deepEqual(nuc.final.slice(0, 3).map((q) => q.toFixed(3)), ["0.526", "0.316", "0.158"]);
  const confident = logitsOf([0.95, 0.03, 0.01, 0.01]);
  assert.deepEqual(samplingDistribution(confident, {p: 0.9}).kept, [true, false, false, false]);
  assert.equal(samplingDistribution(confident, {k: 2}).kept.filter(Boolean).length, 2);
});

test("k = 1 is greedy, a tiny p keeps one, k ≥ |V| and p = 1 keep everything", () => {
  const z = fixture.prompts[1].logits;
  const argmax = z.indexOf(Math.max(...z));
  const oneHot = z.map((_, i) => (i === argmax ? 1 : 0));
  assert.deepEqual(samplingDistribution(z, {k: 1}).final, oneHot);
  assert.deepEqual(samplingDistribution(z, {p: 1e-6}).final, oneHot);
  assert.deepEqual(samplingDistribution(z, {tau: 0}).final, oneHot);
  for (const tau of [0.5, 1, 1.5]) {
    const all = samplingDistribution(z, {tau, k: 65, p: 1});
    assert.equal(all.kept.filter(Boolean).length, 65);
    assert.equal(all.removedMass, 0);
    assert.deepEqual(all.final, all.tempered);
  }
  assert.deepEqual(topKMask([0.2, 0.5, 0.3], 99), [true, true, true]);
  assert.deepEqual(nucleusMask([0.2, 0.5, 0.3], 1), [true, true, true]);
});

test("top-k keeps ties with the k-th, as the lab's filter does (logits < k-th are dropped)", () => {
  assert.deepEqual(topKMask([0.1, 0.3, 0.3, 0.3], 2), [false, true, true, true]);
  assert.deepEqual(topKMask([0.4, 0.3, 0.2, 0.1], 3), [true, true, true, false]);
});

test("filters compose: temperature, then top-k, then nucleus on the renormalised top-k", () => {
  const z = logitsOf([0.4, 0.3, 0.2, 0.1]);
  // top-3 renormalises to (4/9, 3/9, 2/9); nucleus p = 0.7: 4/9 < 0.7, 7/9 ≥ 0.7, so two are kept
  const both = samplingDistribution(z, {k: 3, p: 0.7});
  assert.deepEqual(both.kept, [true, true, false, false]);
  assert.ok(near(both.final[0], 4 / 7) && near(both.final[1], 3 / 7));
  assert.ok(near(both.removedMass, 0.3));
  // without top-k, p = 0.7 also keeps two (0.4, then 0.7 ≥ 0.7 stops before the third)
  assert.deepEqual(samplingDistribution(z, {p: 0.7}).kept, [true, true, false, false]);
  assert.deepEqual(keptByFilter(temperatureProbs(z, 1), {k: 3, p: 0.5}), {topK: 3, nucleus: 2});
});

test("entropy in nats and perplexity: uniform over 65 is ln 65 and 65; one-hot is 0 and 1", () => {
  const uniform = Array(65).fill(1 / 65);
  assert.ok(near(entropy(uniform).nats, Math.log(65), 1e-12));
  assert.ok(near(entropy(uniform).perplexity, 65, 1e-9));
  assert.deepEqual(entropy([0, 1, 0]), {nats: 0, perplexity: 1});
  // (0.5, 0.25, 0.25): 0.5 ln 2 + 2 · 0.25 ln 4 = 1.5 ln 2
  assert.ok(near(entropy([0.5, 0.25, 0.25]).nats, 1.5 * Math.LN2, 1e-12));
  // lowering τ never raises the entropy of a fixed set of logits
  const z = fixture.prompts[0].logits;
  const hs = [2, 1.5, 1, 0.5, 0.1].map((tau) => entropy(temperatureProbs(z, tau)).nats);
  hs.slice(1).forEach((h, i) => assert.ok(h <= hs[i] + 1e-12));
});

test("chart rows: the top characters in rank order plus one row for the rest; masses add up", () => {
  const {vocab, prompts} = fixture;
  const dist = samplingDistribution(prompts[2].logits, {tau: 1, k: 5});
  const rows = chartRows(vocab, dist, 12);
  assert.equal(rows.length, 13);
  assert.equal(rows.at(-1).label, "other 53");
  assert.equal(rows.at(-1).kept, false);
  assert.ok(near(rows.reduce((s, r) => s + r.tempered, 0), 1, 1e-12));
  assert.ok(near(rows.reduce((s, r) => s + r.final, 0), 1, 1e-12));
  assert.equal(rows.filter((r) => r.kept === true).length, 5);
  rows.slice(1, 12).forEach((r, i) => assert.ok(r.tempered <= rows[i].tempered));
  assert.ok(near(dist.removedMass, rows.filter((r) => r.kept !== true).reduce((s, r) => s + r.tempered, 0), 1e-12));
  const mixed = chartRows(vocab, samplingDistribution(prompts[3].logits, {k: 20}), 12);
  assert.equal(mixed.at(-1).kept, "some");
});

test("the chart shows as many characters as its labels have room for: 12 on a projector, fewer on a phone", () => {
  // demoWidth runs from 320 (a phone) to 720 (_extensions/course/demo-setup.ojs); the plot's left margin is 48 px
  assert.equal(barsThatFit(720), 12);
  assert.equal(barsThatFit(640), 12);
  assert.equal(barsThatFit(320), 5);
  for (let width = 320; width <= 720; width += 10) {
    const bars = barsThatFit(width);
    const band = (width - 48) / (bars + 1);   // each bar and the "other N" row
    assert.ok(band >= 44, `${width} px: ${bars} bars leave ${band.toFixed(1)} px for a bar and its "12.3%" label`);
    assert.ok(bars >= 4 && bars <= 12);
  }
  assert.equal(barsThatFit(100), 4, "never fewer than 4");
});

test("the recorded sample nearest to the controls", () => {
  const s = fixture.samples, V = 65;
  const pick = (c, keptBy) => describeSample(nearestSample(s, 1, {k: V, p: 1, ...c}, V, keptBy));
  assert.equal(pick({tau: 1}), "temperature τ = 1");
  assert.equal(pick({tau: 0.8}), "temperature τ = 1");
  assert.equal(pick({tau: 0.7}), "temperature τ = 0.5");
  assert.equal(pick({tau: 0.2}), "greedy (arg max at every step)"); // nearer τ = 0 than 0.5
  assert.equal(pick({tau: 3}), "temperature τ = 1.5");
  assert.equal(pick({tau: 1, k: 1}), "greedy (arg max at every step)");
  assert.equal(pick({tau: 0, k: 10}), "greedy (arg max at every step)");
  assert.equal(pick({tau: 1, k: 7}), "top-k, k = 5, τ = 1");
  assert.equal(pick({tau: 1, k: 40}), "top-k, k = 10, τ = 1");
  assert.equal(pick({tau: 1, k: 2}), "greedy (arg max at every step)"); // k = 2 is nearer k = 1
  assert.equal(pick({tau: 1, p: 0.8}), "nucleus, p = 0.9, τ = 1");
  assert.equal(pick({tau: 1, p: 0.4}), "nucleus, p = 0.5, τ = 1");
  assert.equal(pick({tau: 1, p: 0.1}), "greedy (arg max at every step)");
  assert.equal(pick({tau: 1, k: 10, p: 0.9}, {topK: 10, nucleus: 3}), "nucleus, p = 0.9, τ = 1");
  assert.equal(pick({tau: 1, k: 5, p: 0.9}, {topK: 5, nucleus: 30}), "top-k, k = 5, τ = 1");
  assert.equal(nearestSample(s, 3, {tau: 1.5, k: V, p: 1}, V).prompt_index, 3);
});

test("the fixture's recorded data passes the check; malformed data gives a clear error", () => {
  assert.equal(checkSamplingData(fixture), fixture);
  for (let i = 0; i < fixture.prompts.length; i++)
    assert.equal(fixture.samples.filter((x) => x.prompt_index === i).length, 8);
  assert.throws(() => checkSamplingData(undefined), new RegExp(`data/${m.id}/results\\.json: sampling is missing`));
  const short = {...fixture, prompts: [{text: "x", logits: [1, 2]}]};
  assert.throws(() => checkSamplingData(short), /prompt 0: logits must be 65 finite numbers/);
  const nan = {...fixture, prompts: [{text: "x", logits: Array(65).fill(null)}]};
  assert.throws(() => checkSamplingData(nan), /finite/);
  assert.throws(() => describeSample({strategy: "beam"}), /unknown strategy "beam"/);
});

test("labels: prompts end-aligned with newlines shown, characters shown and spoken", () => {
  assert.equal(promptLabel("ROMEO:\nWhat"), "ROMEO:↵What");
  assert.equal(promptLabel("a".repeat(50) + "\nxyz", 10), "…aaaaaa↵xyz");
  assert.deepEqual(["\n", " ", "e"].map(showChar), ["↵", "␣", "e"]);
  assert.deepEqual(["\n", " ", "e"].map(speakChar), ["newline", "space", "e"]);
});
