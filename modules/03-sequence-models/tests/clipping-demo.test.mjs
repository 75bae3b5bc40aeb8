// Unit tests of section 4's clipping demo module: Equation 9 against hand arithmetic (the page's
// Check yourself, g = (3, 4)), its edge cases, and the rows drawn from the measured run.
import {test} from "node:test";
import assert from "node:assert/strict";
import {thisModule} from "../../../tests/js/course.mjs";
import {fmt_factor, fmt_fixed} from "../../../_extensions/course/formatting.js";

const m = thisModule(import.meta.url);
const {
  norm, clipByNorm, directionDegrees, circle, clipReadout, measuredRows, stepReadout, RUNS, ARROW_FRAME, pointerToVector,
} = await import(m.demoUrl("clipping-demo"));

const near = (a, b, tol = 1e-12) => Math.abs(a - b) <= tol;
const fixture = m.fixtureData().clipping_demo;

test("Check yourself: g = (3, 4) has norm 5; κ = 1 scales it by 0.2 to (0.6, 0.8); κ = 10 leaves it", () => {
  const one = clipByNorm([3, 4], 1);
  assert.equal(one.norm, 5);
  assert.equal(one.factor, 0.2);
  assert.ok(near(one.clipped[0], 0.6) && near(one.clipped[1], 0.8));
  const ten = clipByNorm([3, 4], 10);
  assert.equal(ten.factor, 1);
  assert.deepEqual(ten.clipped, [3, 4]);
  // the ratio of the two coordinates is 3 to 4 in both cases
  assert.ok(near(one.clipped[0] / one.clipped[1], 0.75));
});

test("clipped length is min(‖g‖, κ) and the direction never changes", () => {
  for (const g of [[3, 4], [-2.5, 0.1], [0, -7], [1e-3, 1e-3], [400, -300]]) {
    for (const kappa of [0.1, 1, 2.5, 5, 1000]) {
      const {clipped, factor, norm: n} = clipByNorm(g, kappa);
      const length = Math.hypot(...clipped);
      assert.ok(near(length, Math.min(Math.hypot(...g), kappa), 1e-9), `g=${g} κ=${kappa}`);
      assert.ok(near(factor, Math.min(1, kappa / Math.hypot(...g))));
      assert.ok(near(n, Math.hypot(...g), 1e-9));
      assert.ok(near(directionDegrees(clipped), directionDegrees(g), 1e-9));
    }
  }
  assert.ok(near(directionDegrees([3, 4]), (Math.atan(4 / 3) * 180) / Math.PI));
  assert.equal(directionDegrees([-1, 0]), 180);
});

test("edge cases: ‖g‖ exactly κ is not shrunk; g = 0 stays 0 with factor 1; κ ≤ 0 is refused", () => {
  assert.equal(clipByNorm([3, 4], 5).factor, 1);
  assert.deepEqual(clipByNorm([0, 0], 1), {norm: 0, factor: 1, clipped: [0, 0]});
  assert.equal(directionDegrees([0, 0]), null);
  assert.throws(() => clipByNorm([1, 1], 0), /κ must be positive, got 0/);
  assert.throws(() => clipByNorm([1, 1], NaN), RangeError);
  assert.equal(norm([1, 2, 2]), 3); // any dimension
});

test("readout: the factor, the clipped vector and the unchanged direction", () => {
  assert.equal(clipReadout([3, 4], 1),
    "‖g‖ = 5.00 > κ = 1.00, so the factor min(1, κ/‖g‖) = 0.200. Clipped g = (0.60, 0.80), length 1.00; direction 53.1° before and after.");
  assert.match(clipReadout([0.3, 0.4], 1), /‖g‖ = 0\.50 ≤ κ = 1\.00, so the factor min\(1, κ\/‖g‖\) = 1\.000\./);
  assert.match(clipReadout([0, 0], 1), /g = 0 has no direction/);
});

test("the κ circle has radius κ and is closed", () => {
  const pts = circle(2.5, 12);
  assert.equal(pts.length, 13);
  assert.ok(pts.every((p) => near(Math.hypot(p.x, p.y), 2.5)));
  assert.ok(near(pts[0].x, pts[12].x) && near(pts[0].y, pts[12].y));
});

test("measured rows: both runs, loss and gradient norm per step, non-finite values left out", () => {
  const rows = measuredRows(fixture);
  assert.equal(rows.length, 2 * 2 * fixture.steps);
  const pick = (run, metric) => rows.filter((r) => r.run === run && r.metric === metric);
  for (const {key, label} of RUNS) {
    assert.deepEqual(pick(label, "loss").map((r) => r.value), fixture[key].loss);
    assert.deepEqual(pick(label, "grad_norm").map((r) => r.step), [...Array(fixture.steps)].map((_, i) => i + 1));
  }
  const broken = structuredClone(fixture);
  broken.unclipped.loss[10] = null;      // the build writes NaN/Infinity as null
  broken.unclipped.grad_norm[11] = 0;    // not drawable on a log axis
  const some = measuredRows(broken);
  assert.equal(some.length, rows.length - 2);
  assert.ok(!some.some((r) => r.run === "without clipping" && ((r.metric === "loss" && r.step === 11) || (r.metric === "grad_norm" && r.step === 12))));
  assert.throws(() => measuredRows({clipped: fixture.clipped}), /clipping_demo\.unclipped\.loss is missing/);
});

test("step readout: values of both runs at one step, 1-based; missing values say so", () => {
  const first = stepReadout(fixture, 1);
  // loss to three decimals, the norm to three figures as the figures label sizes (fmt_factor)
  assert.equal(first, `Step 1: without clipping: loss ${fmt_fixed(fixture.unclipped.loss[0], 3)} nats, gradient norm ${fmt_factor(fixture.unclipped.grad_norm[0])}; ` +
    `with clip_gradients: loss ${fmt_fixed(fixture.clipped.loss[0], 3)} nats, gradient norm ${fmt_factor(fixture.clipped.grad_norm[0])}.`);
  const made = {unclipped: {loss: [4.2005], grad_norm: [1234.5]}, clipped: {loss: [4.2], grad_norm: [0]}};
  assert.equal(stepReadout(made, 1), "Step 1: without clipping: loss 4.201 nats, gradient norm 1.2 × 10³; " +
    "with clip_gradients: loss 4.200 nats, gradient norm 0.");
  const broken = structuredClone(fixture);
  broken.unclipped.loss[149] = null;
  assert.match(stepReadout(broken, 150), /without clipping: loss not finite, gradient norm /);
});

test("the pointer sets g: the plot's centre is 0, its corners are ±E, values snap to the slider step", () => {
  const {width: w, height: h, margin: m, extent: e} = ARROW_FRAME;
  assert.deepEqual(pointerToVector(w / 2, h / 2), [0, 0]);
  assert.deepEqual(pointerToVector(m, m), [-e, e]);                 // top left
  assert.deepEqual(pointerToVector(w - m, h - m), [e, -e]);         // bottom right
  assert.deepEqual(pointerToVector(-50, h + 50), [-e, -e]);         // outside: clamped
  // a quarter of the way across is −E/2; 3/4 of the way up is +E/2
  const inner = w - 2 * m;
  assert.deepEqual(pointerToVector(m + inner / 4, m + (h - 2 * m) / 4), [-e / 2, e / 2]);
  const [x] = pointerToVector(m + inner * 0.5371, h / 2);
  assert.equal(x, Number((Math.round((-e + 2 * e * 0.5371) * 10) / 10).toFixed(1)));
  assert.ok(Object.is(pointerToVector(w / 2, h / 2)[0], 0), "no −0 in the slider");
});
