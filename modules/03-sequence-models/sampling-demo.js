// sampling-demo.js: the computation behind section 7's demo "sampling from the trained LSTM".
//
// The build records the LSTM's next-character logits z after a few prompts from the test split
// (data/03-sequence-models/results.json, key `sampling`).  This module turns one row of logits and the demo's
// controls into the distribution the sampler draws from: temperature first (Equation 12,
// softmax(z / τ)), then top-k, then nucleus (top-p), in the order Hugging Face's generate()
// applies them.  At τ = 1 the filters are exactly the lab's top_k_filter and nucleus_filter.
// No DOM, no import but the course's number formatter: it runs in the browser and in node (modules/03-sequence-models/tests/sampling-demo.test.mjs).

// the numbers it shows follow the rules of scripts/pages/formatting.py (the page's and the figures')
import {fmt_short} from "../../_extensions/course/formatting.js";

/** k at or above the vocabulary size, and p at or above 1, switch a filter off. */
export const P_OFF = 1;

/** Below this τ the demo uses the limit τ → 0: all mass on the arg max (split evenly among ties). */
export const TAU_ZERO = 1e-3;

/** Tempered distribution softmax(z / τ), computed stably; τ ≤ TAU_ZERO gives the τ → 0 limit. */
export function temperatureProbs(logits, tau) {
  const max = Math.max(...logits);
  if (!(tau > TAU_ZERO)) {
    const ties = logits.filter((z) => z === max).length;
    return logits.map((z) => (z === max ? 1 / ties : 0));
  }
  const weights = logits.map((z) => Math.exp((z - max) / tau));
  const total = weights.reduce((a, b) => a + b, 0);
  return weights.map((w) => w / total);
}

/** Token ids sorted by probability, most likely first (ties keep the lower id first). */
export function rankOrder(probs) {
  return probs.map((_, i) => i).sort((a, b) => probs[b] - probs[a] || a - b);
}

/**
 * Keep-mask of top-k: the k most probable tokens, plus any tied with the k-th (as the lab's
 * top_k_filter, which masks only logits strictly below the k-th largest).  k ≥ |V| keeps all.
 */
export function topKMask(probs, k) {
  if (k >= probs.length) return probs.map(() => true);
  const kth = rankOrder(probs)[Math.max(1, Math.floor(k)) - 1];
  return probs.map((q) => q >= probs[kth]);
}

/**
 * Keep-mask of nucleus (top-p) sampling on `probs` restricted to `mask`: the smallest set of most
 * probable tokens whose total (renormalised within the mask) reaches p.  A token is dropped when
 * the tokens ranked above it already reach p, as in the lab's nucleus_filter; so the most likely
 * token is always kept and a tiny p keeps exactly one.  p ≥ 1 keeps the whole mask.
 */
export function nucleusMask(probs, p, mask = probs.map(() => true)) {
  if (p >= P_OFF) return mask.slice();
  const total = probs.reduce((s, q, i) => s + (mask[i] ? q : 0), 0);
  const keep = probs.map(() => false);
  let before = 0;
  for (const i of rankOrder(probs)) {
    if (!mask[i]) continue;
    if (before >= p) break;
    keep[i] = true;
    before += probs[i] / total;
  }
  return keep;
}

/**
 * The distribution the demo samples from.  Returns {tempered, final, kept, removedMass}:
 * tempered = softmax(z / τ); kept = the tokens both filters keep; final = tempered restricted to
 * kept and renormalised; removedMass = the tempered probability of the dropped tokens.
 */
export function samplingDistribution(logits, {tau = 1, k = logits.length, p = P_OFF} = {}) {
  const tempered = temperatureProbs(logits, tau);
  const kept = nucleusMask(tempered, p, topKMask(tempered, k));
  if (kept.every(Boolean)) return {tempered, final: tempered, kept, removedMass: 0};
  const keptMass = tempered.reduce((s, q, i) => s + (kept[i] ? q : 0), 0);
  const final = tempered.map((q, i) => (kept[i] ? q / keptMass : 0));
  return {tempered, final, kept, removedMass: tempered.reduce((s, q, i) => s + (kept[i] ? 0 : q), 0)};
}

/** How many characters each filter alone keeps of `tempered` (for nearestSample's tie-break). */
export function keptByFilter(tempered, {k = tempered.length, p = P_OFF} = {}) {
  const count = (mask) => mask.filter(Boolean).length;
  return {topK: count(topKMask(tempered, k)), nucleus: count(nucleusMask(tempered, p))};
}

/** Entropy in nats, H = −Σ q ln q (0 ln 0 = 0), and its perplexity e^H. */
export function entropy(probs) {
  const nats = -probs.reduce((s, q) => (q > 0 ? s + q * Math.log(q) : s), 0);
  return {nats: Math.max(0, nats), perplexity: Math.exp(Math.max(0, nats))};
}

/** A character as the chart shows it: newline and space made visible. */
export function showChar(c) {
  return c === "\n" ? "↵" : c === " " ? "␣" : c;
}

/** A character as a screen reader should hear it. */
export function speakChar(c) {
  return c === "\n" ? "newline" : c === " " ? "space" : c;
}

/**
 * Rows for the bar chart: the `top` most likely characters (the ranking does not depend on τ),
 * then one row for all the others.  Each row: {label, spoken, rank, tempered, final, kept}
 * (kept is true, false, or "some" for the others row).
 */
export function chartRows(vocab, dist, top = 12) {
  const order = rankOrder(dist.tempered);
  const rows = order.slice(0, top).map((i, rank) => ({
    label: showChar(vocab[i]), spoken: speakChar(vocab[i]), rank: rank + 1,
    tempered: dist.tempered[i], final: dist.final[i], kept: dist.kept[i],
  }));
  const rest = order.slice(top);
  if (rest.length) {
    const keptRest = rest.filter((i) => dist.kept[i]).length;
    rows.push({
      label: `other ${rest.length}`, spoken: `the other ${rest.length} characters`, rank: top + 1,
      tempered: rest.reduce((s, i) => s + dist.tempered[i], 0), final: rest.reduce((s, i) => s + dist.final[i], 0),
      kept: keptRest === rest.length ? true : keptRest === 0 ? false : "some",
    });
  }
  return rows;
}

/** How many of the most likely characters the chart shows at `width` px (with a `marginLeft` px axis),
 *  so that each bar, its "12.3%" label and the "other N" row's label have at least `band` px:
 *  12 on a projector, fewer on a phone, never under 4. */
export function barsThatFit(width, {marginLeft = 48, band = 44, most = 12, fewest = 4} = {}) {
  const bands = Math.floor((width - marginLeft) / band);   // the bars plus the "other N" row
  return Math.max(fewest, Math.min(most, bands - 1));
}

/** The recorded value nearest to x among `values` (the first on a tie). */
function nearest(values, x) {
  return values.reduce((best, v) => (Math.abs(v - x) < Math.abs(best - x) ? v : best));
}

/**
 * The recorded sample of prompt `promptIndex` nearest to the controls.  Rules, in order:
 * a control that forces greedy decoding (k = 1, or τ below TAU_ZERO) picks greedy; with no
 * filter on, the nearest recorded τ (greedy counts as τ = 0); with one filter on, that filter's
 * nearest recorded k or p (greedy counts as k = 1 and as p = 0); with both on, the filter that
 * keeps fewer characters (`keptCount` of each, from the demo) decides.
 */
export function nearestSample(samples, promptIndex, {tau, k, p}, vocabSize, keptBy = {}) {
  const mine = samples.filter((s) => s.prompt_index === promptIndex);
  const greedy = mine.find((s) => s.strategy === "greedy");
  const topK = k < vocabSize, nucleus = p < P_OFF;
  if (k <= 1 || !(tau > TAU_ZERO)) return greedy;
  let family = null;
  if (topK && nucleus) family = (keptBy.topK ?? 0) <= (keptBy.nucleus ?? 0) ? "top_k" : "nucleus";
  else if (topK) family = "top_k";
  else if (nucleus) family = "nucleus";
  if (family === null) {
    const temps = mine.filter((s) => s.strategy === "temperature");
    const t = nearest([0, ...temps.map((s) => s.tau)], tau);
    return t === 0 ? greedy : temps.find((s) => s.tau === t);
  }
  const key = family === "top_k" ? "k" : "p", x = family === "top_k" ? k : p;
  const runs = mine.filter((s) => s.strategy === family);
  const v = nearest([family === "top_k" ? 1 : 0, ...runs.map((s) => s[key])], x);
  return runs.find((s) => s[key] === v) ?? greedy;
}

/** How a recorded sample's setting reads in the caption. */
export function describeSample(sample) {
  switch (sample.strategy) {
    case "greedy": return "greedy (arg max at every step)";
    case "temperature": return `temperature τ = ${fmt_short(sample.tau)}`;
    case "top_k": return `top-k, k = ${fmt_short(sample.k)}, τ = ${fmt_short(sample.tau ?? 1)}`;
    case "nucleus": return `nucleus, p = ${fmt_short(sample.p)}, τ = ${fmt_short(sample.tau ?? 1)}`;
    default: throw new Error(`sampling-demo: unknown strategy ${JSON.stringify(sample.strategy)}`);
  }
}

/** A prompt as one line for the chooser: its last `chars` characters, newlines shown as ↵. */
export function promptLabel(text, chars = 40) {
  const shown = text.replace(/\n/g, "↵");
  return shown.length > chars ? "…" + shown.slice(-chars) : shown;
}

/** Check the recorded data's shape; a clear error instead of a blank chart. */
export function checkSamplingData(sampling) {
  const fail = (why) => { throw new Error(`data/03-sequence-models/results.json: sampling ${why}`); };
  if (!sampling || !Array.isArray(sampling.vocab) || !Array.isArray(sampling.prompts)) fail("is missing or has no vocab/prompts");
  const n = sampling.vocab.length;
  sampling.prompts.forEach((pr, i) => {
    if (!Array.isArray(pr.logits) || pr.logits.length !== n || !pr.logits.every(Number.isFinite))
      fail(`prompt ${i}: logits must be ${n} finite numbers`);
  });
  if (!sampling.prompts.length) fail("has no prompts");
  return sampling;
}
