// gradient-demo.js: the computation behind section 4's demo "the gradient across 60 time steps".
//
// A one-unit RNN, h_t = tanh(w h_{t-1} + x) with h_0 = 0, runs for T steps on a constant input x.
// Equations 6 and 7 with d_h = 1: dh_T/dh_s is the product of the one-step factors (1 - h_j^2) w
// for j = s+1 .. T; Equation 8 bounds its size by |w|^(T-s).  The page's OJS cells only wire the
// sliders to these functions and draw the rows with Plot; `node --test tests/js/` checks them
// against the spec's worked example.  No DOM, no import but the course's number formatter: it runs in the browser and in node.

// the numbers it shows follow the rules of scripts/pages/formatting.py (the page's and the figures')
import {fmt_fixed, fmt_sci} from "../../_extensions/course/formatting.js";

/** Number of time steps the demo runs. */
export const T = 60;

/** The plot's log axis: values outside [Y_MIN, Y_MAX] are drawn at its edge. */
export const Y_MIN = 1e-12;
export const Y_MAX = 1e12;

/** Series labels (the legend and the rows use the same strings). */
export const MEASURED = "measured |∂h_T / ∂h_s|";
export const BOUND = "bound |w|^(T − s)";

/** One-step Jacobian of the one-unit RNN at state h (Equation 7 with d_h = 1): (1 - h^2) w. */
export function oneStepFactor(w, h) {
  return (1 - h * h) * w;
}

/** States h_0 .. h_T of h_t = tanh(w h_{t-1} + x), h_0 = 0 (an array of length steps + 1). */
export function runStates(w, x, steps = T) {
  const h = [0];
  for (let t = 1; t <= steps; t++) h.push(Math.tanh(w * h[t - 1] + x));
  return h;
}

/**
 * Gradient size against distance: one row per distance d = T - s, for d = 0 .. T, with
 * measured = |dh_T/dh_s| = |prod_{j=s+1}^{T} (1 - h_j^2) w| (the empty product at d = 0 is 1)
 * and bound = |w|^d (Equation 8).  Values are exact (not clamped); see clampLog for plotting.
 */
export function gradientByDistance(w, x, steps = T) {
  const h = runStates(w, x, steps);
  const rows = [];
  let g = 1;
  for (let d = 0; d <= steps; d++) {
    rows.push({distance: d, measured: Math.abs(g), bound: Math.abs(w) ** d});
    g *= oneStepFactor(w, h[steps - d]); // the factor at step j = T - d joins the product for d + 1
  }
  return rows;
}

/**
 * Clamp a positive quantity into the log axis [lo, hi].  Zero (a product that underflowed),
 * negative, NaN and -Infinity go to lo; +Infinity goes to hi.  A log scale cannot draw 0, so
 * without this a curve that underflows would just stop.
 */
export function clampLog(v, lo = Y_MIN, hi = Y_MAX) {
  if (v === Infinity) return hi;
  if (!(v > 0)) return lo;
  return Math.min(hi, Math.max(lo, v));
}

/** True when v lies outside the plotted range (it is then drawn at the edge). */
export function isClamped(v, lo = Y_MIN, hi = Y_MAX) {
  return !(v >= lo && v <= hi);
}

/** Final state h_T and the one-step factor there, (1 - h_T^2) w: the demo's readout. */
export function finalState(w, x, steps = T) {
  const h = runStates(w, x, steps);
  const hT = h[steps];
  return {h: hT, factor: oneStepFactor(w, hT)};
}

/** The readout line under the plot. */
export function readout(w, x, steps = T) {
  const {h, factor} = finalState(w, x, steps);
  return `State after ${steps} steps: h = ${fmt_fixed(h, 3)}. One-step factor there: (1 − h²) · w = ${fmt_fixed(factor, 3)}.`;
}

/**
 * Long-format rows for Plot: {distance, value, series, clamped}, values clamped into the axis,
 * measured rows first.  `value` is what is drawn; `exact` keeps the unclamped number (for tips).
 */
export function plotRows(w, x, steps = T) {
  const rows = gradientByDistance(w, x, steps);
  const out = [];
  for (const r of rows) out.push({distance: r.distance, value: clampLog(r.measured), exact: r.measured, series: MEASURED, clamped: isClamped(r.measured)});
  for (const r of rows) out.push({distance: r.distance, value: clampLog(r.bound), exact: r.bound, series: BOUND, clamped: isClamped(r.bound)});
  return out;
}

/** Tick values of the log axis (every four decades) and their labels ("10⁻¹²" .. "10¹²", as fmt_sci writes them). */
export const Y_TICKS = [1e-12, 1e-8, 1e-4, 1, 1e4, 1e8, 1e12];
export function tickLabel(v) {
  return fmt_sci(v, 1);
}
