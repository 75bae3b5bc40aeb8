// Unit tests of the section-4 demo module against the spec's worked example (one hidden unit).
import {test} from "node:test";
import assert from "node:assert/strict";
import {thisModule} from "../../../tests/js/course.mjs";

const {
  T, Y_MIN, Y_MAX, MEASURED, BOUND, oneStepFactor, runStates, gradientByDistance, clampLog,
  isClamped, finalState, readout, plotRows, Y_TICKS, tickLabel,
} = await import(thisModule(import.meta.url).demoUrl("gradient-demo"));

const close = (a, b, rel = 1e-12) => Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b));

test("w = 2, state saturated at h = 0.9: the one-step factor is (1 - 0.81) * 2 = 0.38", () => {
  assert.equal(oneStepFactor(2, 0.9).toFixed(2), "0.38");
  // over 20 steps: 0.38^20 ≈ 4e-9, while the bound 2^20 ≈ 1e6
  assert.equal((oneStepFactor(2, 0.9) ** 20).toExponential(0), "4e-9");
});

test("w = 2, state near 0: the factor is 2 and over 20 steps the product is 2^20 ≈ 1e6, on the bound", () => {
  assert.equal(oneStepFactor(2, 0), 2);
  const rows = gradientByDistance(2, 0);
  assert.equal(rows[20].measured, 2 ** 20);
  assert.equal(rows[20].measured.toExponential(0), "1e+6");
  assert.equal(rows[20].bound, 2 ** 20);
  // the two w = 2 rows of the table differ by more than fourteen orders of magnitude
  assert.ok(Math.log10(2 ** 20 / oneStepFactor(2, 0.9) ** 20) > 14);
});

test("w = 0.9: over 50 steps the product is at most 0.9^50 = 0.005, for any input", () => {
  assert.equal((0.9 ** 50).toFixed(3), "0.005");
  for (const x of [0, 0.05, 0.3, 0.5, 1, 1.5, 2]) {
    const d50 = gradientByDistance(0.9, x)[50];
    assert.ok(d50.measured <= 0.9 ** 50 * (1 + 1e-12), `x = ${x}: ${d50.measured}`);
    assert.ok(close(d50.bound, 0.9 ** 50));
  }
});

test("x = 0 lies on the bound: the state stays at 0 and the product is exactly |w|^(T-s)", () => {
  for (let w = 0.5; w <= 3.0001; w += 0.05) {
    assert.ok(runStates(w, 0).every((h) => h === 0));
    for (const r of gradientByDistance(w, 0)) assert.ok(close(r.measured, r.bound), `w=${w} d=${r.distance}`);
  }
});

test("the measured curve never exceeds the bound (Equation 8)", () => {
  for (let w = 0.5; w <= 3.0001; w += 0.25)
    for (let x = 0; x <= 2.0001; x += 0.25)
      for (const r of gradientByDistance(w, x)) assert.ok(r.measured <= r.bound * (1 + 1e-9), `w=${w} x=${x} d=${r.distance}`);
});

test("predict first: w = 1.5 climbs along the bound at x = 0 and falls once x = 0.5", () => {
  const flat = gradientByDistance(1.5, 0), pushed = gradientByDistance(1.5, 0.5);
  assert.ok(flat[T].measured > 1e10);
  assert.ok(pushed[T].measured < 1e-12); // vanishes while the bound still grows
  assert.ok(pushed[T].bound > 1e10);
  const {h, factor} = finalState(1.5, 0.5);
  assert.ok(h > 0.9 && factor < 1);
});

test("rows: one per distance 0..T, the empty product 1 at distance 0, h_0 = 0", () => {
  const rows = gradientByDistance(1.2, 0.3);
  assert.equal(rows.length, T + 1);
  assert.deepEqual(rows.map((r) => r.distance), [...Array(T + 1).keys()]);
  assert.equal(rows[0].measured, 1);
  assert.equal(rows[0].bound, 1);
  const h = runStates(1.2, 0.3);
  assert.equal(h.length, T + 1);
  assert.equal(h[0], 0);
  assert.ok(close(h[1], Math.tanh(0.3)));
  assert.ok(close(rows[1].measured, oneStepFactor(1.2, h[T])));
});

test("clamping for the log axis 1e-12..1e12", () => {
  assert.equal(clampLog(0), Y_MIN);
  assert.equal(clampLog(-1), Y_MIN);
  assert.equal(clampLog(NaN), Y_MIN);
  assert.equal(clampLog(1e-300), Y_MIN);
  assert.equal(clampLog(Infinity), Y_MAX);
  assert.equal(clampLog(3 ** 60), Y_MAX);
  assert.equal(clampLog(0.5), 0.5);
  assert.ok(isClamped(3 ** 60) && isClamped(0) && !isClamped(1) && !isClamped(Y_MIN) && !isClamped(Y_MAX));
  // every plotted value is drawable on the log axis, even when the product underflows to 0
  const rows = plotRows(3, 2);
  assert.equal(rows.length, 2 * (T + 1));
  assert.ok(rows.every((r) => r.value >= Y_MIN && r.value <= Y_MAX && Number.isFinite(r.value)));
  assert.ok(rows.some((r) => r.series === MEASURED && r.exact < 1e-100 && r.clamped));
  assert.ok(rows.some((r) => r.series === BOUND && r.clamped && r.value === Y_MAX));
  assert.deepEqual(Y_TICKS.map(tickLabel), ["10⁻¹²", "10⁻⁸", "10⁻⁴", "10⁰", "10⁴", "10⁸", "10¹²"]);
});

test("readout: final state and the one-step factor there", () => {
  assert.equal(readout(0.9, 0), "State after 60 steps: h = 0.000. One-step factor there: (1 − h²) · w = 0.900.");
  const {h, factor} = finalState(2, 1);
  assert.ok(close(factor, (1 - h * h) * 2));
  assert.match(readout(2, 1), /^State after 60 steps: h = 0\.\d{3}\. One-step factor there: \(1 − h²\) · w = 0\.\d{3}\.$/);
});

test("each distance multiplies in the factor of its own step (hand arithmetic, 3 steps, w = 1.5, x = 0.5)", () => {
  // h_1 = tanh(0.5) = 0.462117157260010, h_2 = tanh(1.5 h_1 + 0.5) = 0.831561192897551,
  // h_3 = tanh(1.5 h_2 + 0.5) = 0.941072243729743 (worked to 30 digits by hand, with mpmath)
  // d = 1: (1 - h_3^2) 1.5; d = 2: that times (1 - h_2^2) 1.5; d = 3: times (1 - h_1^2) 1.5.
  // A fixed point is not used: there neighbouring states agree and an index off by one goes unseen.
  const want = [1, 0.171574548122202, 0.0793976618021062, 0.0936631666905927];
  const rows = gradientByDistance(1.5, 0.5, 3);
  assert.equal(rows.length, 4);
  rows.forEach((r, d) => {
    assert.equal(r.distance, d);
    assert.ok(close(r.measured, want[d], 1e-12), `d = ${d}: ${r.measured}, want ${want[d]}`);
    assert.ok(close(r.bound, 1.5 ** d));
  });
});
