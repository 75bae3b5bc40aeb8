// Unit tests of the measured gradient-by-distance module: rows from the fixture, the Equation 8
// bound anchored at distance 0 against hand arithmetic, values a log axis cannot draw, readouts.
import {test} from "node:test";
import assert from "node:assert/strict";
import {thisModule} from "../../../tests/js/course.mjs";
import {fmt_sci} from "../../../_extensions/course/formatting.js";

const m = thisModule(import.meta.url);
const {
  RNN, LSTM, BOUND, ratioText, gradientSummary, checkGradientData, boundAt, gradientRows, logDomain, firstUndrawable, gradientReadout,
} = await import(m.demoUrl("measured-gradient"));

const rel = (a, b, tol = 1e-12) => Math.abs(a - b) <= tol * Math.max(Math.abs(a), Math.abs(b));
const g = m.fixtureData().gradient_by_distance;
// a curve that falls by 0.8 per step and reads exactly 0 from distance 150 (as a float32 norm that
// underflowed did in older builds)
const withZeros = {...g, rnn_grad_norm: g.distance.map((d) => (d < 150 ? 0.5 * 0.8 ** d : 0))};

test("the bound is ‖∂L/∂h_T‖ · ‖W‖^d: 0.5 · 5.2^3 at d = 3, and it does not overflow early", () => {
  assert.ok(rel(boundAt(0.5, 5.2, 3), 0.5 * 5.2 * 5.2 * 5.2));
  assert.ok(rel(boundAt(2, 0.9, 100), 2 * 0.9 ** 100));
  assert.equal(boundAt(1.5, 7, 0), 1.5);
  assert.ok(Number.isFinite(boundAt(1e-3, 5.96, 199)));
});

test("RNN rows: the measured curve without the zeros, and the bound from the first measured value", () => {
  checkGradientData(g);
  const rows = gradientRows(withZeros);
  const rnn = rows.filter((r) => r.series === RNN);
  assert.equal(rnn.length, 150);
  assert.equal(firstUndrawable(withZeros.rnn_grad_norm), 150);
  assert.equal(gradientRows(g).filter((r) => r.series === RNN).length,
    g.rnn_grad_norm.filter((v) => Number.isFinite(v) && v > 0).length);
  assert.equal(firstUndrawable([3, 2, null, 1]), 2);
  assert.equal(firstUndrawable([3, 2, 1]), null);
  assert.ok(rnn.every((r) => r.value > 0));
  const bound = rows.filter((r) => r.series === BOUND);
  assert.equal(bound.length, g.distance.length);
  assert.ok(rel(bound[10].value, g.rnn_grad_norm[0] * g.rnn_spectral_norm_W ** 10, 1e-12));
  // Equation 8: the measured curve never exceeds the bound
  for (const r of rnn) assert.ok(r.value <= bound[r.distance].value * (1 + 1e-12), `d = ${r.distance}`);
  assert.equal(rows.filter((r) => r.series === LSTM).length, 0);
});

test("RNN against LSTM rows: both measured curves, no bound; the domain covers them in whole decades", () => {
  const rows = gradientRows(g, {lstm: true});
  assert.equal(rows.filter((r) => r.series === LSTM).length, g.distance.length);
  assert.equal(rows.filter((r) => r.series === BOUND).length, 0);
  const [lo, hi] = logDomain(rows);
  const vals = rows.map((r) => r.value);
  assert.ok(lo <= Math.min(...vals) && hi >= Math.max(...vals));
  assert.ok(Number.isInteger(Math.log10(lo)) && Number.isInteger(Math.log10(hi)));
  assert.deepEqual(logDomain([{series: RNN, value: 0.03}, {series: LSTM, value: 2}]), [0.01, 10]);
});

test("readouts at a distance, with underflow said in words", () => {
  const e = (v) => fmt_sci(v, 3);                                  // three figures: 5.00 × 10⁻¹
  assert.equal(gradientReadout(g, 0), `Distance 0: measured ${e(g.rnn_grad_norm[0])}; the bound with ‖W‖ = 5.20 allows ${e(g.rnn_grad_norm[0])}.`);
  assert.match(gradientReadout({...g, rnn_grad_norm: [0.000123456, ...g.rnn_grad_norm.slice(1)]}, 0), /^Distance 0: measured 1\.23 × 10⁻⁴;/);
  const d = 150;
  assert.match(gradientReadout(withZeros, d), /measured 0 \(underflow\)/);
  const ratio = g.lstm_grad_norm[50] / g.rnn_grad_norm[50];
  assert.equal(gradientReadout(g, 50, {lstm: true}),
    `Distance 50: RNN ${e(g.rnn_grad_norm[50])}, LSTM ${e(g.lstm_grad_norm[50])}. The LSTM's is ${ratioText(ratio)} times the RNN's.`);
  assert.ok(rel(ratio, g.lstm_rnn_ratio_at_50, 1e-9), "the fixture's recorded ratio at 50");
  assert.doesNotMatch(gradientReadout(withZeros, d, {lstm: true}), /times/);
});

test("ratios as the figure labels them: three figures up to 999, beyond that two times a power of ten", () => {
  assert.deepEqual([53.87067, 2823.4, 108215.49, 1.5, 999.94, 0.004].map(ratioText),
    ["53.9", "2.8 × 10³", "1.1 × 10⁵", "1.5", "1.0 × 10³", "4.0 × 10⁻³"]);
});

test("malformed data gives a clear error", () => {
  assert.throws(() => checkGradientData(undefined), /gradient_by_distance is missing/);
  assert.throws(() => checkGradientData({...g, lstm_grad_norm: [1]}), /lstm_grad_norm must have one value per distance/);
  assert.throws(() => checkGradientData({...g, distance: g.distance.map((d) => d + 1)}), /0, 1, 2/);
  assert.throws(() => checkGradientData({...g, rnn_spectral_norm_W: 0}), /must be positive/);
});

test("the chart's description: measured values at a few distances, LSTM too when shown", () => {
  const e = (v) => fmt_sci(v, 3);
  assert.equal(gradientSummary(g, {}, [0, 50]), `RNN: ${e(g.rnn_grad_norm[0])} at distance 0, ${e(g.rnn_grad_norm[50])} at distance 50.`);
  assert.equal(gradientSummary(g, {lstm: true}, [10, 500]),
    `RNN: ${e(g.rnn_grad_norm[10])} at distance 10. LSTM: ${e(g.lstm_grad_norm[10])} at distance 10.`);
  assert.match(gradientSummary(withZeros), /0 \(underflow\) at distance 150/);
});
