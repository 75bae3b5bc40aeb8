// measured-gradient.js: the interactive versions of the measured gradient-by-distance plots in
// the after-the-lab boxes of sections 4 (RNN) and 5 (RNN against LSTM).
//
// data/03-sequence-models/results.json, `gradient_by_distance`: for each distance T − s, the norm of ∂L_T/∂h_s
// (RNN) and of ∂L_T/∂(h_s, c_s) (LSTM), averaged over the validation chunks, and the spectral
// norm ‖W‖ of the trained RNN's recurrent matrix.  Equation 8 bounds ‖∂h_T/∂h_s‖ by ‖W‖^(T−s),
// so ‖∂L_T/∂h_s‖ ≤ ‖∂L_T/∂h_T‖ · ‖W‖^(T−s): the bound is drawn from the measured value at
// distance 0.  No DOM, no import but the course's number formatter (modules/03-sequence-models/tests/measured-gradient.test.mjs).

// the numbers it shows follow the rules of scripts/pages/formatting.py (the page's and the figures')
import {fmt_factor, fmt_fixed, fmt_sci} from "../../_extensions/course/formatting.js";

export const RNN = "RNN, measured";
export const LSTM = "LSTM, measured";
export const BOUND = "Equation 8 bound, ‖∂L/∂h_T‖ · ‖W‖^(T−s)";

/** Check the recorded arrays: equal lengths, distances 0, 1, 2, …, and ‖W‖ > 0. */
export function checkGradientData(g) {
  const fail = (why) => { throw new Error(`data/03-sequence-models/results.json: gradient_by_distance ${why}`); };
  if (!g || !Array.isArray(g.distance)) fail("is missing");
  for (const key of ["rnn_grad_norm", "lstm_grad_norm"])
    if (!Array.isArray(g[key]) || g[key].length !== g.distance.length) fail(`.${key} must have one value per distance`);
  if (!g.distance.every((d, i) => d === i)) fail(".distance must be 0, 1, 2, …");
  if (!(g.rnn_spectral_norm_W > 0)) fail(".rnn_spectral_norm_W must be positive");
  return g;
}

/** ‖∂L/∂h_T‖ · ‖W‖^d, computed in logs so that it never overflows to Infinity needlessly. */
export function boundAt(g0, normW, d) {
  return Math.exp(Math.log(g0) + d * Math.log(normW));
}

/**
 * Rows for Plot: {distance, series, value}.  Measured values that are not positive and finite
 * (zero from float32 underflow, or null) are left out: a log axis cannot draw them.  The bound
 * is included where it is finite.  `series` picks which measured curves to include.
 */
export function gradientRows(g, {lstm = false} = {}) {
  const rows = [];
  const add = (series, values) => values.forEach((value, d) => {
    if (Number.isFinite(value) && value > 0) rows.push({distance: g.distance[d], series, value});
  });
  add(RNN, g.rnn_grad_norm);
  if (lstm) add(LSTM, g.lstm_grad_norm);
  const g0 = g.rnn_grad_norm[0];
  if (!lstm && g0 > 0) add(BOUND, g.distance.map((d) => boundAt(g0, g.rnn_spectral_norm_W, d)));
  return rows;
}

/** A log-axis domain that covers the measured values with a little room (whole decades). */
export function logDomain(rows, series = [RNN, LSTM]) {
  const vals = rows.filter((r) => series.includes(r.series)).map((r) => r.value);
  return [10 ** Math.floor(Math.log10(Math.min(...vals))), 10 ** Math.ceil(Math.log10(Math.max(...vals)))];
}

/** First distance whose measured value is not drawable (0 or missing), or null. */
export function firstUndrawable(values) {
  const i = values.findIndex((v) => !(Number.isFinite(v) && v > 0));
  return i < 0 ? null : i;
}

/** A ratio as the figure labels it (fmt_factor): three figures from 0.01 to 999 ("53.9"), else "1.1 × 10⁵". */
export function ratioText(r) {
  return fmt_factor(r);
}

/** A measured norm to three figures, "1.23 × 10⁻⁵" (fmt_sci); zero and missing values in words. */
const sci = (v) => (Number.isFinite(v) && v > 0 ? fmt_sci(v, 3) : v === 0 ? "0 (underflow)" : "not recorded");

/** The readout at one distance d. */
export function gradientReadout(g, d, {lstm = false} = {}) {
  const rnn = g.rnn_grad_norm[d];
  if (lstm) {
    const l = g.lstm_grad_norm[d];
    const ratio = rnn > 0 && l > 0 ? ` The LSTM's is ${ratioText(l / rnn)} times the RNN's.` : "";
    return `Distance ${d}: RNN ${sci(rnn)}, LSTM ${sci(l)}.${ratio}`;
  }
  const bound = boundAt(g.rnn_grad_norm[0], g.rnn_spectral_norm_W, d);
  return `Distance ${d}: measured ${sci(rnn)}; the bound with ‖W‖ = ${fmt_fixed(g.rnn_spectral_norm_W, 2)} allows ${sci(bound)}.`;
}

/** The chart's description for screen readers: the measured values at a few distances. */
export function gradientSummary(g, {lstm = false} = {}, at = [0, 10, 50, 100, 150]) {
  const ds = at.filter((d) => d < g.distance.length);
  const series = (name, values) => `${name}: ${ds.map((d) => `${sci(values[d])} at distance ${d}`).join(", ")}`;
  return [series("RNN", g.rnn_grad_norm), ...(lstm ? [series("LSTM", g.lstm_grad_norm)] : [])].join(". ") + ".";
}
