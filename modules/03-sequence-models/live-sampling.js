// live-sampling.js: the lab's sampler, on the live model's own logits (live-model.js), one character at a time.
//
// In the lab's order (lab/03-sequence-models/lab03_sequence_models.py: with_temperature and the Challenge):
// the filters act on the logits, top_k_filter (k) and then nucleus_filter (p, on softmax of what top-k kept),
// and sample_with_temperature then draws from softmax(z' / τ).  τ = 0 is the lab's greedy (the arg max).
// The draw is torch.multinomial's for one sample: with an exponential draw q_j = −ln u_j per character (u_j
// uniform), the character with the largest p_j / q_j (PyTorch draws one sample this way; the test checks
// that it is the lab's draw).  So with the same uniform draws the page writes what the lab's sampler writes
// (modules/03-sequence-models/tests/test_live_model.py); the page's own uniforms come from a seeded
// generator (sfc32), so a seed replays the same text.  No DOM (tests: live-sampling.test.mjs).

/** Below this τ the lab's greedy decoding (the arg max) stands in for τ → 0. */
export const TAU_ZERO = 1e-3;

/** The lab's top_k_filter: every logit below the k-th largest becomes −∞ (ties with it stay); k ≥ |V|: all stay. */
export function topKFilter(z, k) {
  if (!(k < z.length)) return Float64Array.from(z);
  const kth = Float64Array.from(z).sort().reverse()[Math.max(1, Math.floor(k)) - 1];
  return Float64Array.from(z, (v) => (v < kth ? -Infinity : v));
}

/** softmax(z / τ), with −∞ logits at 0. */
export function softmax(z, tau = 1) {
  let max = -Infinity;
  for (const v of z) if (v > max) max = v;
  const w = Float64Array.from(z, (v) => (v === -Infinity ? 0 : Math.exp((v - max) / tau)));
  const total = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / total);
}

/**
 * The lab's nucleus_filter: keeps, most probable first, the characters until the mass before one already
 * reaches p (so the most probable always stays); the others become −∞.  p ≥ 1: all stay.
 */
export function nucleusFilter(z, p) {
  if (!(p < 1)) return Float64Array.from(z);
  const probs = softmax(z);
  const order = Array.from(probs.keys()).sort((a, b) => probs[b] - probs[a] || a - b);
  const out = Float64Array.from(z);
  let before = 0;
  for (const j of order) {
    if (before >= p) out[j] = -Infinity;
    before += probs[j];
  }
  return out;
}

/** The logits the lab's sampler draws from: top-k, then nucleus (each off at k ≥ |V|, p ≥ 1). */
export function filteredLogits(z, {k = z.length, p = 1} = {}) {
  return nucleusFilter(topKFilter(z, k), p);
}

/** The first index of the largest value (torch.argmax's choice on a tie). */
export function argmax(values) {
  let best = 0;
  for (let j = 1; j < values.length; j++) if (values[j] > values[best]) best = j;
  return best;
}

/**
 * One character: the lab's pick at {tau, k, p} from logits z, with |V| uniform draws `u` in (0, 1]
 * (unused by greedy).  Returns the token id.
 */
export function drawToken(z, {tau = 1, k = z.length, p = 1} = {}, u = null) {
  if (!(tau > TAU_ZERO)) return argmax(z);
  const probs = softmax(filteredLogits(z, {k, p}), tau);
  if (!u || u.length !== probs.length) throw new Error(`live-sampling: ${probs.length} uniform draws needed, got ${u?.length ?? 0}`);
  return argmax(Array.from(probs, (q, j) => q / -Math.log(u[j])));
}

/** The page's uniform draws: sfc32 seeded from an integer (a small, fast, well-tested generator). */
export function uniforms(seed) {
  let a = 0x9e3779b9, b = 0x243f6a88, c = 0xb7e15162, d = (seed >>> 0) ^ 0xdeadbeef;
  const next = () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 12; i++) next();                      // mix the seed in
  return (n) => Float64Array.from({length: n}, () => (next() + 1) / 4294967296);   // (0, 1]
}

/**
 * The lab's generate(): the prompt's ids through the model from a fresh state, then `length` characters,
 * each drawn from the last logits and fed back.  `draw(n)` gives n uniforms per character.  Yields, one step
 * at a time (so that runSliced can give the browser a turn within a long prompt too), first each prompt
 * character's state, {prompt: t, h, f} (copies; f, the forget gates, for the LSTM only), then each character
 * written, {token, step}.
 */
export function* generate(model, promptIds, length, settings, draw) {
  model.reset();
  let z;
  for (let t = 0; t < promptIds.length; t++) {
    z = model.step(promptIds[t]);
    yield {prompt: t, h: Float64Array.from(model.h), f: model.f ? Float64Array.from(model.f) : null};
  }
  for (let step = 0; step < length; step++) {
    const token = drawToken(z, settings, settings.tau > TAU_ZERO ? draw(z.length) : null);
    yield {token, step};
    z = model.step(token);
  }
}

/** The characters generate() wrote, as token ids (its prompt steps left out). */
export function writtenTokens(steps) {
  return Array.from(steps).filter((r) => r.token !== undefined).map((r) => r.token);
}

/**
 * Run an iterator in slices of at most `sliceMs` of work each, yielding to the browser between slices
 * (no long task on the main thread); `onSlice(items)` gets each slice's values.  Stops early when
 * `signal` is aborted.  Resolves to the count of values.
 */
export async function runSliced(iterator, onSlice, {sliceMs = 12, signal = null, now = () => performance.now()} = {}) {
  let count = 0;
  for (;;) {
    if (signal?.aborted) return count;
    const start = now(), items = [];
    let done = false;
    while (now() - start < sliceMs) {
      const r = iterator.next();
      if (r.done) { done = true; break; }
      items.push(r.value);
    }
    count += items.length;
    if (items.length) onSlice(items);
    if (done) return count;
    await yieldToBrowser();
  }
}

/** Give the browser a turn (input, drawing), then go on: scheduler.yield where there is one, else a message
 *  to ourselves (setTimeout(0) waits at least 4 ms once nested, a third of a slice). */
function yieldToBrowser() {
  if (globalThis.scheduler?.yield) return globalThis.scheduler.yield();
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => { channel.port1.close(); resolve(); };
    channel.port2.postMessage(null);
  });
}
