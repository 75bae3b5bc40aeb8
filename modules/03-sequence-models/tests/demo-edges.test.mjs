// Edge cases of the demo modules that their own tests left open: each test here kills mutants that
// Stryker (make mutation) found surviving, at a boundary a reader of the demo would notice.
// Expected values are worked out by hand in the comments.
import {test} from "node:test";
import assert from "node:assert/strict";
import {thisModule} from "../../../tests/js/course.mjs";

const m = thisModule(import.meta.url);
const demo = (name) => import(m.demoUrl(name));
const {circle, clipReadout, directionDegrees, stepReadout} = await demo("clipping-demo");
const {
  TAU_ZERO, chartRows, checkSamplingData, describeSample, nearestSample, nucleusMask, promptLabel, rankOrder,
  temperatureProbs,
} = await demo("sampling-demo");
const {
  BOUND, LSTM, RNN, checkGradientData, firstUndrawable, gradientReadout, gradientRows, gradientSummary, logDomain, ratioText,
} = await demo("measured-gradient");
const {SERIES, checkHistogram, percent} = await demo("forget-gate-demo");
const {BOUND: BOUND_1, MEASURED} = await demo("gradient-demo");

const near = (a, b, tol = 1e-12) => Math.abs(a - b) <= tol;

test("clipping: the circle's points are evenly spaced; a norm equal to κ is not clipped", () => {
  const pts = circle(2, 4);                       // angles 0°, 90°, 180°, 270°, 360°
  assert.ok(near(pts[1].x, 0) && near(pts[1].y, 2) && near(pts[2].x, -2) && near(pts[3].y, -2));
  assert.equal(directionDegrees([0, 3]), 90);
  assert.match(clipReadout([1, 0], 1), /^‖g‖ = 1\.00 ≤ κ = 1\.00, so the factor min\(1, κ\/‖g‖\) = 1\.000\./);
  const demo = {unclipped: {loss: [4.5, 9], grad_norm: [12.5, 3000]}, clipped: {loss: [4.5, 3], grad_norm: [12.5, 2]}};
  assert.equal(stepReadout(demo, 1), "Step 1: without clipping: loss 4.500 nats, gradient norm 12.5; " +
    "with clip_gradients: loss 4.500 nats, gradient norm 12.5.");
});

test("sampling: ties rank by id, the τ and k limits pick greedy, nucleus stops where the mass reaches p", () => {
  assert.deepEqual(rankOrder([0.25, 0.25, 0.5]), [2, 0, 1]);
  assert.deepEqual(rankOrder([0.1, 0.1, 0.1, 0.1, 0.1, 0.5]), [5, 0, 1, 2, 3, 4]);
  assert.deepEqual(temperatureProbs([1, 3, 2], TAU_ZERO), [0, 1, 0]);          // τ = TAU_ZERO is the limit
  // 0.5 alone reaches p = 0.5: the next token is dropped (its predecessors already reach p)
  assert.deepEqual(nucleusMask([0.5, 0.25, 0.25], 0.5), [true, false, false]);
  // within the mask {1, 2} (total 0.5), token 1 alone is 0.3 / 0.5 = 0.6 >= 0.5
  assert.deepEqual(nucleusMask([0.5, 0.3, 0.2], 0.5, [false, true, true]), [false, true, false]);
  const samples = [                                          // greedy last: found by its strategy
    {prompt_index: 0, strategy: "temperature", tau: 1},
    {prompt_index: 0, strategy: "top_k", k: 5, tau: 1},
    {prompt_index: 0, strategy: "nucleus", p: 0.9, tau: 1},
    {prompt_index: 0, strategy: "greedy"},
  ];
  assert.equal(nearestSample(samples, 0, {tau: 1, k: 1, p: 1}, 65).strategy, "greedy");        // k = 1
  assert.equal(nearestSample(samples, 0, {tau: TAU_ZERO, k: 65, p: 1}, 65).strategy, "greedy");
  // both filters on and keeping as many characters: top-k decides
  assert.equal(nearestSample(samples, 0, {tau: 1, k: 5, p: 0.9}, 65, {topK: 5, nucleus: 5}).strategy, "top_k");
  // k = 3 is as near to 1 (greedy counts as k = 1) as to the recorded 5: the first, greedy, wins
  assert.equal(nearestSample(samples, 0, {tau: 1, k: 3, p: 1}, 65).strategy, "greedy");
  // recorded τ 0.5 and 1.5 are equally near τ = 1: the first recorded wins, as documented
  const temps = [{prompt_index: 0, strategy: "greedy"}, {prompt_index: 0, strategy: "temperature", tau: 0.5},
    {prompt_index: 0, strategy: "temperature", tau: 1.5}, {prompt_index: 0, strategy: "top_k", k: 5, tau: 1}];
  const picked = nearestSample(temps, 0, {tau: 1, k: 65, p: 1}, 65);          // no filter: temperatures only
  assert.deepEqual([picked.strategy, picked.tau], ["temperature", 0.5]);
  assert.equal(describeSample({strategy: "top_k", k: 5}), "top-k, k = 5, τ = 1");
  assert.equal(describeSample({strategy: "nucleus", p: 0.9}), "nucleus, p = 0.9, τ = 1");
  assert.equal(promptLabel("x".repeat(40)), "x".repeat(40));                    // exactly 40: no ellipsis
  assert.throws(() => checkSamplingData({vocab: ["a", "b"], prompts: [{logits: [1, NaN]}]}), /prompt 0: logits/);
  assert.throws(() => checkSamplingData({vocab: ["a"], prompts: []}), /has no prompts/);
});

test("sampling chart: ranks from 1, then one row for the others with their summed probability", () => {
  const dist = {tempered: [0.1, 0.4, 0.2, 0.3], final: [0, 0.5, 0.5, 0], kept: [false, true, true, false]};
  const rows = chartRows(["a", "b", "c", "d"], dist, 2);                          // order b, d, c, a
  assert.deepEqual(rows.map((r) => [r.label, r.rank]), [["b", 1], ["d", 2], ["other 2", 3]]);
  const other = rows[2];
  assert.ok(near(other.tempered, 0.3) && near(other.final, 0.5));              // c + a
  assert.equal(other.kept, "some");
  assert.equal(other.spoken, "the other 2 characters");
  const allKept = {...dist, kept: [true, true, true, true]}, noneKept = {...dist, kept: [false, true, false, true]};
  assert.equal(chartRows(["a", "b", "c", "d"], allKept, 2)[2].kept, true);
  assert.equal(chartRows(["a", "b", "c", "d"], noneKept, 2)[2].kept, false);
  const two = {tempered: [0.6, 0.4], final: [0.6, 0.4], kept: [true, true]};
  assert.equal(chartRows(["a", "b"], two, 2).length, 2);                        // no others: no row
});

test("measured gradient: distances checked, the bound only on the RNN plot, the domain from the measured curves", () => {
  const g = {distance: [0, 1, 2], rnn_grad_norm: [1, 0.1, 0], lstm_grad_norm: [1, 0.5, 0.25], rnn_spectral_norm_W: 10};
  assert.throws(() => checkGradientData({...g, distance: [0, 1, 3]}), /distance must be 0, 1, 2/);
  assert.ok(!gradientRows(g, {lstm: true}).some((r) => r.series === BOUND));
  const rows = gradientRows(g);                                                 // bound 1, 10, 100
  assert.deepEqual(logDomain(rows), [0.1, 1]);
  assert.equal(firstUndrawable([0, 1]), 0);
  assert.equal(firstUndrawable([1, 2]), null);
  assert.equal(ratioText(999.5), "1.0 × 10³");                                 // rounds to 1000: scientific, as the figure
  assert.equal(ratioText(999.4), "999");
  assert.equal(gradientSummary(g, {}, [0, 2, 3]), "RNN: 1.00 × 10⁰ at distance 0, 0 (underflow) at distance 2.");
  assert.equal(gradientReadout(g, 2, {lstm: true}), "Distance 2: RNN 0 (underflow), LSTM 2.50 × 10⁻¹.");
  assert.equal(gradientReadout({...g, lstm_grad_norm: [1, 0, null]}, 1, {lstm: true}),
    "Distance 1: RNN 1.00 × 10⁻¹, LSTM 0 (underflow).");
  assert.equal(gradientReadout({...g, lstm_grad_norm: [1, 0.5, null]}, 2, {lstm: true}),
    "Distance 2: RNN 0 (underflow), LSTM not recorded.");
});

test("forget gates: a count below 0 is refused anywhere; whole percents from 10% up", () => {
  assert.throws(() => checkHistogram({edges: [0, 0.5, 1], counts: [2, -1]}), /negative or non-finite/);
  assert.equal(percent(1), "100%");
  assert.equal(percent(0.123), "12%");
  assert.equal(percent(0.0996), "10%");                                          // 9.96 rounds to 10: not "10.0%"
});

test("every plot's series labels are distinct and non-empty (they are the legend)", () => {
  for (const labels of [[MEASURED, BOUND_1], [RNN, LSTM, BOUND], Object.values(SERIES)]) {
    assert.ok(labels.every((s) => typeof s === "string" && s.trim().length > 0), labels.join(" | "));
    assert.equal(new Set(labels).size, labels.length);
  }
});
