// clipping-demo.js: the computation behind section 4's clipping demo (Equation 9) and the plot of
// the lab's measured clipping run beneath it.
//
// Equation 9: g ← g · min(1, κ / ‖g‖).  The demo sets a two-parameter gradient g and κ and draws
// g and its clipped version as arrows; the measured run (data/03-sequence-models/results.json, `clipping_demo`) is
// the loss and the gradient norm (before clipping) per step of two RNNs trained with SGD on the
// same batches, one clipped at κ and one not.  No DOM, no import but the course's number formatter (modules/03-sequence-models/tests/clipping-demo.test.mjs).

// the numbers it shows follow the rules of scripts/pages/formatting.py (the page's and the figures')
import {fmt_factor, fmt_fixed, fmt_short} from "../../_extensions/course/formatting.js";

/** Euclidean norm of a vector. */
export function norm(g) {
  return Math.sqrt(g.reduce((s, x) => s + x * x, 0));
}

/**
 * Equation 9 for one vector: {norm, factor, clipped}.  factor = min(1, κ / ‖g‖); for g = 0 it is 1
 * (nothing to shrink).  κ must be positive.
 */
export function clipByNorm(g, kappa) {
  if (!(kappa > 0)) throw new RangeError(`clipping-demo: κ must be positive, got ${kappa}`);
  const n = norm(g);
  const factor = n > kappa ? kappa / n : 1;
  return {norm: n, factor, clipped: g.map((x) => x * factor)};
}

/** Direction of a 2-D vector in degrees, counter-clockwise from the first axis; null for g = 0. */
export function directionDegrees([x, y]) {
  return x === 0 && y === 0 ? null : (Math.atan2(y, x) * 180) / Math.PI;
}

/** Points of the circle ‖g‖ = κ (the clipping threshold), closed, for a line mark. */
export function circle(kappa, segments = 96) {
  return Array.from({length: segments + 1}, (_, i) => {
    const a = (2 * Math.PI * i) / segments;
    return {x: kappa * Math.cos(a), y: kappa * Math.sin(a)};
  });
}

/** The arrow plot's frame: its size in pixels, its margins, and the extent ±E of both axes. */
export const ARROW_FRAME = {width: 340, height: 340, margin: 36, extent: 5, step: 0.1};

/**
 * The vector under the pointer at (px, py), in pixels from the plot's top-left corner: inverts
 * the plot's linear x and y scales, clamps to ±E and rounds to the sliders' step.
 */
export function pointerToVector(px, py, frame = ARROW_FRAME) {
  const {width, height, margin, extent: e, step} = frame;
  const toData = (pixel, size, flip) => {
    const t = (pixel - margin) / (size - 2 * margin);
    const v = flip ? e - 2 * e * t : -e + 2 * e * t;
    const snapped = Math.round(Math.max(-e, Math.min(e, v)) / step) * step;
    return Number(snapped.toFixed(10)) + 0; // + 0 turns −0 into 0
  };
  return [toData(px, width, false), toData(py, height, true)];
}

/** The readout under the arrows, e.g. "‖g‖ = 5.00 > κ = 1.0: factor min(1, κ/‖g‖) = 0.200; …". */
export function clipReadout(g, kappa) {
  const {norm: n, factor, clipped} = clipByNorm(g, kappa);
  const dir = directionDegrees(g);
  const f2 = (x) => fmt_fixed(x, 2);
  const compare = n > kappa ? ">" : "≤";
  const direction = dir === null ? "g = 0 has no direction" : `direction ${fmt_fixed(dir, 1)}° before and after`;
  return `‖g‖ = ${f2(n)} ${compare} κ = ${f2(kappa)}, so the factor min(1, κ/‖g‖) = ${fmt_fixed(factor, 3)}. ` +
    `Clipped g = (${f2(clipped[0])}, ${f2(clipped[1])}), length ${f2(norm(clipped))}; ${direction}.`;
}

/** The two runs, in drawing order, and their labels. */
export const RUNS = [
  {key: "unclipped", label: "without clipping"},
  {key: "clipped", label: "with clip_gradients"},
];

/**
 * Long-format rows of the measured run for Plot: {step (1-based), run (label), metric, value}
 * for metric "loss" and "grad_norm".  Non-finite values (recorded as null by the build) are left
 * out, and so are non-positive gradient norms (the norm is drawn on a log axis).
 */
export function measuredRows(demo) {
  const rows = [];
  for (const {key, label} of RUNS) {
    for (const metric of ["loss", "grad_norm"]) {
      const values = demo?.[key]?.[metric];
      if (!Array.isArray(values)) throw new Error(`data/03-sequence-models/results.json: clipping_demo.${key}.${metric} is missing`);
      values.forEach((value, i) => {
        if (Number.isFinite(value) && (metric === "loss" || value > 0)) rows.push({step: i + 1, run: label, metric, value});
      });
    }
  }
  return rows;
}

/** The readout for one step (1-based) of the measured run; missing values say so. */
export function stepReadout(demo, step) {
  const fmt = (metric, v) => (!Number.isFinite(v) ? "not finite" : metric === "loss" ? `${fmt_fixed(v, 3)} nats`
    : v > 0 ? fmt_factor(v) : fmt_short(v));
  const parts = RUNS.map(({key, label}) =>
    `${label}: loss ${fmt("loss", demo[key].loss[step - 1])}, gradient norm ${fmt("grad_norm", demo[key].grad_norm[step - 1])}`);
  return `Step ${step}: ${parts.join("; ")}.`;
}
