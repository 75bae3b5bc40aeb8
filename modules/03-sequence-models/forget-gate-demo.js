// forget-gate-demo.js: the computation behind section 5's demo "how far does the direct path carry?"
//
// Along the LSTM's direct path (Equation 11) a unit's cell state, and its gradient, is multiplied
// by that unit's forget gate at every step: across k steps, by the product of its k gates.  The
// build measured that product on the validation chunks, for every unit and every distance k, and
// counted how many exceed each θ of the slider (data/03-sequence-models/results.json,
// `gradient_by_distance.direct_path_by_distance`): the measured curve.  Beside it, as a contrast,
// what the same gates would carry if each unit held one step's gate for all k steps (a value f
// carries more than θ exactly when f > θ^(1/k); from `forget_gate.histogram`), and two constant
// gates taken from the section's own arithmetic.  No DOM, no import but the course's number
// formatter (modules/03-sequence-models/tests/forget-gate-demo.test.mjs).

// the numbers it shows follow the rules of scripts/pages/formatting.py (the page's and the figures')
import {fmt_factor, fmt_fixed, fmt_percent, fmt_short} from "../../_extensions/course/formatting.js";

/** σ(1): the lab's forget gate at initialisation, with b_f = 1. */
export const F_INIT = 1 / (1 + Math.exp(-1));
/** σ(1) as the section writes it, 0.73: the constant the plot and the readout use, so that 0.73^50 reads
 * 1.5 × 10⁻⁷ here as in the section's question (σ(1)^50 itself is 1.6 × 10⁻⁷). */
export const F_INIT_SHOWN = Number(fmt_fixed(F_INIT, 2));
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

/** Share of one-step gate values that would carry more than θ over k steps if each were held (f^k > θ). */
export function heldShare(h, k, theta) {
  return shareAbove(h, gateCut(theta, k));
}

/**
 * Check the measured direct-path counts {distance: [1..], theta, products, count_above, carried_fall}:
 * one row of counts per distance, one count per θ, none above the number of products.
 */
export function checkDirectPath(d) {
  const fail = (why) => { throw new Error(`data/03-sequence-models/results.json: direct_path_by_distance ${why}`); };
  if (!d || !Array.isArray(d.distance) || !Array.isArray(d.theta) || !Array.isArray(d.count_above)) fail("is missing (needs distance, theta and count_above)");
  if (!d.distance.every((k, i) => k === i + 1)) fail("distances must be 1, 2, 3, ...");
  if (d.count_above.length !== d.distance.length) fail(`has ${d.count_above.length} rows of counts for ${d.distance.length} distances`);
  if (!(Number.isInteger(d.products) && d.products > 0)) fail("lacks the number of products");
  if (!d.count_above.every((row) => row.length === d.theta.length && row.every((c) => Number.isInteger(c) && c >= 0 && c <= d.products)))
    fail(`needs ${d.theta.length} counts (one per θ) between 0 and ${d.products} in every row`);
  return d;
}

/** Share of the measured direct-path products over the last k steps that exceed θ (θ one of the recorded). */
export function measuredShare(d, k, theta) {
  const j = d.theta.findIndex((t) => Math.abs(t - theta) < 1e-9);
  if (j < 0) throw new Error(`θ = ${theta} was not counted (the data has ${d.theta[0]} to ${d.theta.at(-1)})`);
  if (!(k >= 1 && k <= d.distance.length)) throw new Error(`distance ${k} was not measured (1 to ${d.distance.length})`);
  return d.count_above[k - 1][j] / d.products;
}

/** The four series of the plot, in legend order. */
export const SERIES = {
  measured: "measured: each unit's gates multiplied over k steps",
  held: "if each unit held one step's gate",
  init: `constant f = ${F_INIT_SHOWN} (σ(1))`,
  half50: `constant f = 0.5^(1/50) ≈ ${fmt_fixed(F_HALF_AT_50, 3)}`,
};

/**
 * Rows for Plot, k = 1 .. kMax: {k, series, share}.  For a constant gate the share of units above
 * θ is 1 while f^k > θ and 0 after (every unit has the same gate).
 */
export function shareRows(d, h, theta, kMax) {
  const rows = [];
  for (let k = 1; k <= kMax; k++) {
    rows.push({k, series: SERIES.measured, share: measuredShare(d, k, theta)});
    rows.push({k, series: SERIES.held, share: heldShare(h, k, theta)});
    rows.push({k, series: SERIES.init, share: constantCarries(F_INIT_SHOWN, k, theta) ? 1 : 0});
    rows.push({k, series: SERIES.half50, share: constantCarries(F_HALF_AT_50, k, theta) ? 1 : 0});
  }
  return rows;
}

/** A share as a percentage, as the page writes the measured shares: "70%", "5.3%", "100%" (fmt_percent). */
export function percent(x) {
  return fmt_percent(x);
}

/** The readout for the chosen k and θ. */
export function forgetReadout(d, h, k, theta) {
  const steps = `${k} step${k === 1 ? "" : "s"}`;
  const constant = (shown, f) => `f = ${shown} carries ${fmt_factor(f ** k)}${constantCarries(f, k, theta) ? "" : " (not above θ)"}`;
  return `Measured: ${percent(measuredShare(d, k, theta))} of the trained LSTM's units, counted once in each chunk, keep more ` +
    `than θ = ${fmt_short(theta)} over the last ${steps}. If each held one step's gate: ${percent(heldShare(h, k, theta))} ` +
    `(f > θ^(1/${k}) = ${fmt_fixed(gateCut(theta, k), 4)}). Constant gates: ${constant(F_INIT_SHOWN, F_INIT_SHOWN)}; ${constant(`0.5^(1/50) ≈ ${fmt_fixed(F_HALF_AT_50, 3)}`, F_HALF_AT_50)}.`;
}

/** The chart's description for screen readers: the measured and the held share at a few distances, for θ. */
export function forgetSummary(d, h, theta, kMax, at = [1, 10, 50, 100, 199]) {
  const ks = at.filter((k) => k <= kMax);
  return `Measured share of the units, counted once in each chunk, whose product of forget gates over the last k steps is above ${fmt_short(theta)}: ` +
    ks.map((k) => `${percent(measuredShare(d, k, theta))} at k = ${k}`).join(", ") +
    `. If each unit held one step's gate: ` + ks.map((k) => `${percent(heldShare(h, k, theta))} at k = ${k}`).join(", ") + ".";
}
