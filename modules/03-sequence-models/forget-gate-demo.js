// forget-gate-demo.js: the computation behind section 5's demo "how far does the direct path carry?"
//
// Along the LSTM's direct path (Equation 11) a unit whose forget gate stays at f passes the
// fraction f^k of its cell state, and of the gradient, across k steps.  The build records the
// distribution of the trained LSTM's forget-gate values on the validation chunks as a histogram
// (data/03-sequence-models/results.json, `gradient_by_distance.forget_gate.histogram`, fine bins near 1).  For a
// distance k and a fraction θ, a value f carries more than θ exactly when f > θ^(1/k); the demo
// shows the share of measured values above that cut, beside two constant gates taken from the
// section's own arithmetic.  No DOM, no import but the course's number formatter (tests/js/forget-gate-demo.test.mjs).

// the numbers it shows follow the rules of scripts/formatting.py (the page's and the figures')
import {fmt_factor, fmt_fixed, fmt_percent, fmt_short} from "../../_extensions/course/formatting.js";

/** σ(1): the lab's forget gate at initialisation, with b_f = 1. */
export const F_INIT = 1 / (1 + Math.exp(-1));
/** 0.5^(1/50): the constant gate that lets half of the gradient survive 50 steps. */
export const F_HALF_AT_50 = 0.5 ** (1 / 50);

/** The gate value above which f^k > θ (θ in (0, 1), k ≥ 1). */
export function gateCut(theta, k) {
  return theta ** (1 / k);
}

/**
 * Does a constant gate f still carry more than θ after k steps (f^k > θ)?  Equal up to rounding
 * counts as not more: 0.5^(1/50) raised to 50 is 0.5 exactly in the section's arithmetic.
 */
export function constantCarries(f, k, theta) {
  return f ** k > theta * (1 + 1e-12);
}

/** Check a histogram {edges, counts}: ascending edges, len(edges) − 1 non-negative counts. */
export function checkHistogram(h) {
  const fail = (why) => { throw new Error(`data/03-sequence-models/results.json: forget_gate.histogram ${why}`); };
  if (!h || !Array.isArray(h.edges) || !Array.isArray(h.counts)) fail("is missing (needs edges and counts)");
  if (h.counts.length !== h.edges.length - 1) fail(`has ${h.counts.length} counts for ${h.edges.length} edges`);
  for (let i = 1; i < h.edges.length; i++) if (!(h.edges[i] > h.edges[i - 1])) fail(`edges are not ascending at ${i}`);
  if (!h.counts.every((c) => Number.isFinite(c) && c >= 0)) fail("has a negative or non-finite count");
  if (!(h.counts.reduce((a, b) => a + b, 0) > 0)) fail("is empty");
  return h;
}

/**
 * Share of the histogram's mass strictly above x.  Bins wholly above x count fully; the bin that
 * contains x counts in proportion to the part of it above x (values spread evenly within a bin).
 */
export function shareAbove(h, x) {
  const total = h.counts.reduce((a, b) => a + b, 0);
  let above = 0;
  for (let i = 0; i < h.counts.length; i++) {
    const lo = h.edges[i], hi = h.edges[i + 1];
    if (lo >= x) above += h.counts[i];
    else if (hi > x) above += (h.counts[i] * (hi - x)) / (hi - lo);
  }
  return above / total;
}

/** Share of measured gate values that carry more than θ over k steps (f^k > θ). */
export function measuredShare(h, k, theta) {
  return shareAbove(h, gateCut(theta, k));
}

/** The three series of the plot, in legend order. */
export const SERIES = {
  measured: "trained LSTM (measured gates)",
  init: `constant f = σ(1) ≈ ${fmt_fixed(F_INIT, 2)}`,
  half50: `constant f = 0.5^(1/50) ≈ ${fmt_fixed(F_HALF_AT_50, 3)}`,
};

/**
 * Rows for Plot, k = 1 .. kMax: {k, series, share}.  For a constant gate the share of units above
 * θ is 1 while f^k > θ and 0 after (every unit has the same gate).
 */
export function shareRows(h, theta, kMax) {
  const rows = [];
  for (let k = 1; k <= kMax; k++) {
    rows.push({k, series: SERIES.measured, share: measuredShare(h, k, theta)});
    rows.push({k, series: SERIES.init, share: constantCarries(F_INIT, k, theta) ? 1 : 0});
    rows.push({k, series: SERIES.half50, share: constantCarries(F_HALF_AT_50, k, theta) ? 1 : 0});
  }
  return rows;
}

/** A share as a percentage, as the page writes the measured shares: "70%", "5.3%", "100%" (fmt_percent). */
export function percent(x) {
  return fmt_percent(x);
}

/** The readout for the chosen k and θ. */
export function forgetReadout(h, k, theta) {
  const cut = gateCut(theta, k);
  const constant = (f) => `f = ${fmt_fixed(f, 3)} carries f^${k} = ${fmt_factor(f ** k)} (${constantCarries(f, k, theta) ? "above" : "not above"} θ)`;
  return `Over ${k} step${k === 1 ? "" : "s"}, a gate carries more than θ = ${fmt_short(theta)} only if f > θ^(1/${k}) = ${fmt_fixed(cut, 4)}. ` +
    `Measured: ${percent(measuredShare(h, k, theta))} of the trained LSTM's gate values. ` +
    `Constant gates: ${constant(F_INIT)}; ${constant(F_HALF_AT_50)}.`;
}

/** The chart's description for screen readers: the measured share at a few distances, for θ. */
export function forgetSummary(h, theta, kMax, at = [1, 10, 50, 100, 200]) {
  const ks = at.filter((k) => k <= kMax);
  return `Share of the measured gate values with f^k > ${fmt_short(theta)}: ` +
    ks.map((k) => `${percent(measuredShare(h, k, theta))} at k = ${k}`).join(", ") + ".";
}
