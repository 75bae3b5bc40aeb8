// Unit tests of section 5's forget-gate demo module: the section's constants (σ(1) and the gate
// that keeps half over 50 steps), the measured curve against the build's data (the shares the page
// states), the "held" contrast from a histogram against counts done by hand, and bad input.
import {test} from "node:test";
import assert from "node:assert/strict";
import {readFileSync} from "node:fs";
import {thisModule} from "../../../tests/js/course.mjs";

const m = thisModule(import.meta.url);
const {
  F_INIT, F_HALF_AT_50, gateCut, constantCarries, checkHistogram, shareAbove, heldShare, checkDirectPath,
  measuredShare, shareRows, SERIES, percent, forgetReadout, forgetSummary,
} = await import(m.demoUrl("forget-gate-demo"));

const near = (a, b, tol = 1e-12) => Math.abs(a - b) <= tol;
const gates = m.fixtureData().gradient_by_distance.forget_gate;
const direct = m.fixtureData().gradient_by_distance.direct_path_by_distance;
// a tiny measurement: 10 products, distances 1..3, θ = 0.1, 0.5, 0.9
const tiny = {distance: [1, 2, 3], theta: [0.1, 0.5, 0.9], products: 10, count_above: [[9, 6, 3], [7, 4, 1], [5, 2, 0]], carried_fall: [0.3, 0.2, 0.1]};

test("the measured curve at k = 50 reads the build's data: the shares the page states (direct_path, Equation 11)", () => {
  const measured = JSON.parse(readFileSync(m.results, "utf8")).gradient_by_distance;
  const d = checkDirectPath(measured.direct_path_by_distance);
  const shown = m.pageData().gradient;
  for (const [theta, key, page] of [[0.5, "share_above_0.5", "direct_share_05"], [0.1, "share_above_0.1", "direct_share_01"],
    [0.01, "share_above_0.01", "direct_share_001"]]) {
    assert.equal(measuredShare(d, 50, theta), measured.direct_path[key], `θ = ${theta}: the demo's share is the lab's`);
    assert.equal(percent(measuredShare(d, 50, theta)), shown[page], `θ = ${theta}: the demo shows what the page states`);
  }
  // a slider's step arithmetic (0.07 as 0.07000000000000001) still finds its θ
  assert.equal(measuredShare(d, 50, 0.01 * 7), measuredShare(d, 50, 0.07));
  assert.match(forgetReadout(d, measured.forget_gate.histogram, 50, 0.5), new RegExp(`^Measured: ${shown.direct_share_05.replace(".", "\\.")} of the trained LSTM's units, counted once in each chunk, keep more than θ = 0\\.5 over the last 50 steps`));
});

test("measured shares: counts over products, by distance and θ; bad measurements give clear errors", () => {
  assert.equal(measuredShare(tiny, 1, 0.1), 0.9);
  assert.equal(measuredShare(tiny, 3, 0.9), 0);
  assert.equal(measuredShare(tiny, 2, 0.5), 0.4);
  assert.throws(() => measuredShare(tiny, 2, 0.3), /θ = 0\.3 was not counted/);
  assert.throws(() => measuredShare(tiny, 4, 0.5), /distance 4 was not measured \(1 to 3\)/);
  assert.throws(() => checkDirectPath(undefined), /direct_path_by_distance is missing/);
  assert.throws(() => checkDirectPath({...tiny, distance: [0, 1, 2]}), /distances must be 1, 2, 3/);
  assert.throws(() => checkDirectPath({...tiny, count_above: [[9, 6, 3]]}), /1 rows of counts for 3 distances/);
  assert.throws(() => checkDirectPath({...tiny, count_above: [[9, 6, 3], [7, 4], [5, 2, 0]]}), /needs 3 counts/);
  assert.throws(() => checkDirectPath({...tiny, count_above: [[11, 6, 3], [7, 4, 1], [5, 2, 0]]}), /between 0 and 10/);
  assert.equal(checkDirectPath(direct), direct);
});

test("the section's constants: σ(1) ≈ 0.73 and 0.5^(1/50) ≈ 0.986; 0.73^50 ≈ 1.5e-7", () => {
  assert.equal(F_INIT.toFixed(2), "0.73");
  assert.ok(near(F_INIT, Math.exp(1) / (1 + Math.exp(1))));
  assert.equal(F_HALF_AT_50.toFixed(3), "0.986");
  assert.ok(near(F_HALF_AT_50 ** 50, 0.5));
  assert.equal((0.73 ** 50).toExponential(1), "1.5e-7");
  // at k = 50 and θ = 0.5 the half-life gate sits exactly on the threshold: f^k > θ is not more than θ
  assert.equal(constantCarries(F_HALF_AT_50, 49, 0.5), true);
  assert.equal(constantCarries(F_HALF_AT_50, 50, 0.5), false);
  assert.equal(constantCarries(F_INIT, 2, 0.5), true);   // 0.73² = 0.53
  assert.equal(constantCarries(F_INIT, 3, 0.5), false);  // 0.73³ = 0.39
});

test("f^k > θ exactly when f > θ^(1/k)", () => {
  for (const theta of [0.01, 0.1, 0.5, 0.9]) {
    for (const k of [1, 2, 10, 50, 200]) {
      const cut = gateCut(theta, k);
      assert.ok(near(cut ** k, theta, 1e-12));
      assert.ok((cut + 1e-9) ** k > theta && !((cut - 1e-9) ** k > theta));
    }
  }
  assert.equal(gateCut(0.5, 1), 0.5);
});

test("share above a value: whole bins, and a split bin in proportion", () => {
  const h = {edges: [0, 0.5, 0.9, 0.99, 1], counts: [10, 20, 30, 40]}; // 100 values
  assert.equal(shareAbove(h, 0), 1);
  assert.equal(shareAbove(h, 1), 0);
  assert.equal(shareAbove(h, 0.9), 0.7);       // an edge: the last two bins
  assert.equal(shareAbove(h, 0.99), 0.4);
  assert.ok(near(shareAbove(h, 0.995), 0.2));  // half of the last bin
  assert.ok(near(shareAbove(h, 0.7), (20 * 0.2 / 0.4 + 70) / 100));
  // k = 1: the share of gates with f > θ; θ^(1/k) rises towards 1 as k grows, so the share falls
  assert.equal(heldShare(h, 1, 0.9), 0.7);
  const shares = [1, 2, 5, 20, 100, 1000].map((k) => heldShare(h, k, 0.5));
  shares.slice(1).forEach((s, i) => assert.ok(s <= shares[i]));
});

test("the fixture's histogram reproduces its recorded shares above 0.9 and 0.99", () => {
  const h = checkHistogram(gates.histogram);
  const total = h.counts.reduce((a, b) => a + b, 0);
  // independent count: bins whose lower edge is at least the threshold (both are bin edges)
  const byHand = (x) => h.counts.filter((_, i) => h.edges[i] >= x - 1e-12).reduce((a, b) => a + b, 0) / total;
  assert.ok(near(shareAbove(h, 0.9), byHand(0.9), 1e-9));
  assert.ok(Math.abs(shareAbove(h, 0.9) - gates["share_above_0.9"]) < 1e-3);
  assert.ok(Math.abs(shareAbove(h, 0.99) - gates["share_above_0.99"]) < 1e-3);
  // bins above 0.99 are at most 0.001 wide, so the mass near 1 is resolved
  h.edges.forEach((e, i) => { if (i > 0 && h.edges[i - 1] >= 0.99 - 1e-12) assert.ok(e - h.edges[i - 1] <= 0.001 + 1e-12); });
});

test("rows: one per k and series; constant gates are all-or-nothing; the held gates carry more than measured", () => {
  const h = gates.histogram;
  const rows = shareRows(direct, h, 0.5, 100);
  assert.equal(rows.length, 400);
  const series = (name) => rows.filter((r) => r.series === name);
  // 0.73^k > 0.5 for k ≤ 2 only; 0.986^k > 0.5 for k < 50
  assert.deepEqual(series(SERIES.init).filter((r) => r.share === 1).map((r) => r.k), [1, 2]);
  assert.deepEqual(series(SERIES.half50).filter((r) => r.share === 1).map((r) => r.k), [...Array(49)].map((_, i) => i + 1));
  const measured = series(SERIES.measured), held = series(SERIES.held);
  assert.ok(measured.every((r) => r.share >= 0 && r.share <= 1));
  assert.deepEqual(measured.map((r) => r.share), measured.map((r) => measuredShare(direct, r.k, 0.5)));
  assert.ok(near(held[0].share, shareAbove(h, 0.5)));
  assert.equal(new Set(Object.values(SERIES)).size, 4, "four series, each named apart");
  assert.match(SERIES.measured, /measured/);
  assert.doesNotMatch(SERIES.held, /measured/);
  assert.match(SERIES.init, /0\.73/);
  assert.match(SERIES.half50, /0\.986/);
});

test("bad histograms give clear errors", () => {
  assert.throws(() => checkHistogram(undefined), /forget_gate\.histogram is missing/);
  assert.throws(() => checkHistogram({edges: [0, 0.5, 1], counts: [1]}), /has 1 counts for 3 edges/);
  assert.throws(() => checkHistogram({edges: [0, 0.5, 0.5], counts: [1, 1]}), /not ascending at 2/);
  assert.throws(() => checkHistogram({edges: [0, 1], counts: [-1]}), /negative or non-finite/);
  assert.throws(() => checkHistogram({edges: [0, 1], counts: [0]}), /is empty/);
});

test("percent (as the page writes the measured shares) and the readout, which says which share is measured", () => {
  assert.deepEqual([0, 1, 0.123456, 0.053, 0.0004].map(percent), ["0%", "100%", "12%", "5.3%", "0%"]);
  const h = {edges: [0, 0.5, 0.9, 0.99, 1], counts: [10, 20, 30, 40]};
  assert.equal(forgetReadout(tiny, h, 1, 0.9),
    "Measured: 30% of the trained LSTM's units, counted once in each chunk, keep more than θ = 0.9 over the last 1 step. " +
    "If each held one step's gate: 70% (f > θ^(1/1) = 0.9000). " +
    "Constant gates: f = 0.73 carries 0.73 (not above θ); f = 0.5^(1/50) ≈ 0.986 carries 0.986.");
  // 0.73^3 ≈ 0.389: below θ = 0.5
  assert.match(forgetReadout(tiny, h, 3, 0.5), /^Measured: 20% .* over the last 3 steps\. .*\(f > θ\^\(1\/3\) = 0\.7937\)\. .*f = 0\.73 carries 0\.389 \(not above θ\)/);
  assert.match(forgetReadout(tiny, h, 1, 0.5000000000000001), /more than θ = 0\.5 over/, "a slider's step arithmetic does not show");
});

test("the chart's description: the measured and the held share at a few distances up to kMax", () => {
  const h = {edges: [0, 0.5, 0.9, 0.99, 1], counts: [10, 20, 30, 40]};
  assert.equal(forgetSummary(tiny, h, 0.9, 3, [1, 3, 10]),
    "Measured share of the units, counted once in each chunk, whose product of forget gates over the last k steps is above 0.9: 30% at k = 1, 0% at k = 3. " +
    `If each unit held one step's gate: 70% at k = 1, ${percent(shareAbove(h, 0.9 ** (1 / 3)))} at k = 3.`);
  assert.match(forgetSummary(direct, gates.histogram, 0.5, 199), /at k = 1, .* at k = 10, .* at k = 50, .* at k = 100, .* at k = 199\. If/);
});
