// Unit tests of the live model's reader and checks (live-model.js) and the lab-order sampler (live-sampling.js),
// on files and logits the tests make (fast-check generates them).  Parity with torch and with the lab's own
// sampler on the lab's models is test_live_model.py's (python and node together).
import {test} from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {thisModule} from "../../../tests/js/course.mjs";
import {safetensors} from "./safetensors-file.mjs";

const m = thisModule(import.meta.url);
const {parseSafetensors, checkModel, makeModel, encodePrompt, logitsOver, WeightsError} = await import(m.demoUrl("live-model"));
const {topKFilter, nucleusFilter, filteredLogits, softmax, drawToken, argmax, uniforms, generate, writtenTokens, runSliced, TAU_ZERO} =
  await import(m.demoUrl("live-sampling"));

const VOCAB = ["\n", " ", "a", "b", "c"];
const V = VOCAB.length, D = 3, DH = 4;
const seq = (n, f = (i) => Math.sin(i * 1.7) * 0.5) => Array.from({length: n}, (_, i) => f(i));
function lstmTensors(change = {}) {
  return {
    "lstm.embed.weight": [[V, D], seq(V * D)], "lstm.lstm.weight_ih_l0": [[4 * DH, D], seq(4 * DH * D, (i) => Math.cos(i) * 0.4)],
    "lstm.lstm.weight_hh_l0": [[4 * DH, DH], seq(4 * DH * DH, (i) => Math.sin(i * 0.3) * 0.6)], "lstm.lstm.bias_ih_l0": [[4 * DH], seq(4 * DH)],
    "lstm.lstm.bias_hh_l0": [[4 * DH], seq(4 * DH, (i) => 0.1 * i)], "lstm.out.weight": [[V, DH], seq(V * DH, (i) => Math.cos(i * 2.1))],
    "lstm.out.bias": [[V], seq(V)], ...change,
  };
}
const shapesOf = (t) => Object.fromEntries(Object.entries(t).map(([k, [s]]) => [k, s]));
const meta = {model: "lstm", vocab: JSON.stringify(VOCAB)};

test("the reader returns every tensor at its shape, the numbers as written (float32)", () => {
  const t = lstmTensors();
  const parsed = parseSafetensors(safetensors(t, meta));
  assert.deepEqual(Object.keys(parsed.tensors).sort(), Object.keys(t).sort());
  for (const [name, [shape, values]] of Object.entries(t)) {
    assert.deepEqual(parsed.tensors[name].shape, shape);
    assert.deepEqual(Array.from(parsed.tensors[name].data), Array.from(Float32Array.from(values)));
  }
  assert.equal(parsed.metadata.model, "lstm");
});

test("a file that is not one is refused with what is wrong, never half-read", () => {
  const good = new Uint8Array(safetensors(lstmTensors(), meta));
  const cases = [
    [new ArrayBuffer(5), /has 5 bytes/],
    [(() => { const b = good.slice(); new DataView(b.buffer).setBigUint64(0, 10n ** 9n, true); return b.buffer; })(), /header length .* does not fit/],
    [(() => { const b = good.slice(); b[8] = 0x7b + 1; return b.buffer; })(), /header is not JSON/],
    [safetensors(lstmTensors(), meta, {dtype: "F16"}), /"lstm\.embed\.weight" is F16; this page reads float32/],
    [safetensors(lstmTensors(), meta, {headerPatch: (h) => ({...h, "lstm.out.bias": {...h["lstm.out.bias"], data_offsets: [0, 99999]}})}), /"lstm\.out\.bias"'s bytes/],
    [good.slice(0, good.length - 4).buffer, /bytes .* within the file/],
  ];
  for (const [buffer, message] of cases) {
    assert.throws(() => parseSafetensors(buffer, "mine.safetensors"), (e) => e instanceof WeightsError && message.test(e.message), String(message));
  }
});

test("a file that does not match the module's model is refused, naming the tensor and both shapes", () => {
  const expected = shapesOf(lstmTensors());
  const check = (t, m2 = meta) => () => checkModel(parseSafetensors(safetensors(t, m2)), "lstm", expected, VOCAB, "mine.safetensors");
  assert.throws(check(lstmTensors({"lstm.lstm.weight_hh_l0": [[4 * DH, 2], seq(4 * DH * 2)]})),
    {message: `mine.safetensors: tensor "lstm.lstm.weight_hh_l0" is [16, 2], but the module's LSTM has [16, 4]`});
  const missing = lstmTensors();
  delete missing["lstm.out.bias"];
  assert.throws(check(missing), {message: `mine.safetensors lacks the tensor "lstm.out.bias" (the course's LSTM has it, [5])`});
  assert.throws(check(lstmTensors({"lstm.extra": [[1], [0]]})), /tensor "lstm\.extra" is not part of the module's LSTM/);
  assert.throws(check(lstmTensors({"lstm.out.bias": [[V], [0, 0, NaN, 0, 0]]})), /"lstm\.out\.bias" holds a number that is not finite \(at 2\)/);
  assert.throws(check(lstmTensors(), {model: "lstm", vocab: JSON.stringify(["x", ...VOCAB.slice(1)])}), /vocabulary is not the module's 5 characters/);
  const rnnOnly = {"rnn.W": [[DH, DH], seq(DH * DH)]};
  assert.throws(check(rnnOnly), /holds no LSTM: none of its 1 tensors is named lstm\.\* \(it has "rnn\.W"\)/);
  assert.doesNotThrow(check(lstmTensors()));
});

test("the LSTM step is Equation 10 with PyTorch's gate order i, f, g, o (hand arithmetic on one unit)", () => {
  const t = {
    "lstm.embed.weight": [[2, 1], [0.5, -1]], "lstm.lstm.weight_ih_l0": [[4, 1], [1, 2, 3, 4]],
    "lstm.lstm.weight_hh_l0": [[4, 1], [0.5, 0.25, -0.5, 1]], "lstm.lstm.bias_ih_l0": [[4], [0.1, 0.2, 0.3, 0.4]],
    "lstm.lstm.bias_hh_l0": [[4], [0, 1, 0, 0]], "lstm.out.weight": [[2, 1], [2, -1]], "lstm.out.bias": [[2], [0, 0.5]],
  };
  const net = makeModel("lstm", parseSafetensors(safetensors(t)), ["a", "b"]);
  const s = (a) => 1 / (1 + Math.exp(-a));
  let h = 0, c = 0;
  for (const tok of [0, 1, 1]) {
    const x = tok === 0 ? 0.5 : -1;
    const i = s(1 * x + 0.5 * h + 0.1), f = s(2 * x + 0.25 * h + 0.2 + 1), g = Math.tanh(3 * x - 0.5 * h + 0.3), o = s(4 * x + h + 0.4);
    c = f * c + i * g;
    h = o * Math.tanh(c);
    const z = net.step(tok);
    assert.ok(Math.abs(net.f[0] - f) < 1e-6 && Math.abs(z[0] - 2 * h) < 1e-6 && Math.abs(z[1] - (-h + 0.5)) < 1e-6);
  }
});

test("the RNN step is Equation 1, h = tanh(W h + U x + b), from h_0 = 0 after reset", () => {
  const t = {"rnn.embed.weight": [[2, 1], [1, -2]], "rnn.W": [[1, 1], [0.5]], "rnn.U": [[1, 1], [0.75]], "rnn.b": [[1], [0.1]],
             "rnn.out.weight": [[2, 1], [1, 3]], "rnn.out.bias": [[2], [0, -1]]};
  const net = makeModel("rnn", parseSafetensors(safetensors(t)), ["a", "b"]);
  const run = () => logitsOver(net, [0, 1, 0]).map((z) => Array.from(z));
  let h = 0;
  const want = [1, -2, 1].map((x) => { h = Math.tanh(0.5 * h + 0.75 * x + 0.1); return [h, 3 * h - 1]; });
  const got = run();
  got.forEach((z, i) => z.forEach((v, j) => assert.ok(Math.abs(v - want[i][j]) < 1e-6)));
  assert.deepEqual(run(), got, "reset starts again from h_0 = 0");
});

test("a prompt: characters outside the vocabulary are named once and skipped; empty starts from a newline", () => {
  assert.deepEqual(encodePrompt("ab€c€é", VOCAB), {ids: [2, 3, 4], skipped: ["€", "é"], fromNewline: false});
  assert.deepEqual(encodePrompt("", VOCAB), {ids: [0], skipped: [], fromNewline: true});
  assert.deepEqual(encodePrompt("€€", VOCAB), {ids: [0], skipped: ["€"], fromNewline: true});
  assert.deepEqual(encodePrompt("a\u{1F600}b", VOCAB), {ids: [2, 3], skipped: ["\u{1F600}"], fromNewline: false}, "one emoji is one character");
});

const logitsArb = fc.array(fc.double({min: -20, max: 20, noNaN: true}), {minLength: 2, maxLength: 70});

test("top-k keeps the k largest (and ties with the k-th) and nothing else; k ≥ |V| keeps all", () => {
  fc.assert(fc.property(logitsArb, fc.integer({min: 1, max: 80}), (z, k) => {
    const out = topKFilter(z, k);
    const kth = [...z].sort((a, b) => b - a)[Math.min(k, z.length) - 1];
    z.forEach((v, j) => assert.equal(out[j], k >= z.length || v >= kth ? v : -Infinity));
  }));
});

test("nucleus keeps the most probable, stops once the mass before a character reaches p; p ≥ 1 keeps all", () => {
  fc.assert(fc.property(logitsArb, fc.double({min: 0.001, max: 1.2, noNaN: true}), (z, p) => {
    const out = nucleusFilter(z, p), probs = softmax(z);
    const top = Math.max(...probs);
    assert.ok(probs.some((q, j) => q === top && Number.isFinite(out[j])), "a most probable character always stays");
    const kept = probs.filter((_, j) => Number.isFinite(out[j]));
    const keptMass = kept.reduce((a, b) => a + b, 0);
    if (p >= 1) assert.equal(kept.length, z.length);
    else {
      const smallest = Math.min(...kept);
      assert.ok(keptMass - smallest < p + 1e-12, "without its least probable character the set would not reach p");
      assert.ok(kept.length === z.length || keptMass >= p - 1e-12);
    }
  }));
});

test("a draw is the arg max of p_j / (−ln u_j): from the kept characters only; greedy at τ = 0 needs no draws", () => {
  fc.assert(fc.property(logitsArb, fc.integer({min: 1, max: 70}), fc.double({min: 0.05, max: 1, noNaN: true}), fc.double({min: 0.1, max: 3, noNaN: true}),
    fc.integer(), (z, k, p, tau, seed) => {
      const u = uniforms(seed)(z.length);
      const tok = drawToken(z, {tau, k, p}, u);
      assert.ok(Number.isFinite(filteredLogits(z, {k, p})[tok]), "a filtered-out character is never drawn");
      const probs = softmax(filteredLogits(z, {k, p}), tau);
      assert.equal(tok, argmax(Array.from(probs, (q, j) => q / -Math.log(u[j]))));
      assert.equal(drawToken(z, {tau: 0, k, p}), argmax(z));
    }));
  assert.throws(() => drawToken([1, 2, 3], {tau: 1}, [0.5]), /3 uniform draws needed, got 1/);
  assert.equal(drawToken([1, 5, 5], {tau: TAU_ZERO / 2}), 1, "greedy takes the first of tied maxima, as torch.argmax");
});

test("the draws follow softmax(z / τ): frequencies over 20,000 draws", () => {
  const z = [2, 1, 0, -1], tau = 0.7, draw = uniforms(7), counts = [0, 0, 0, 0], n = 20000;
  for (let i = 0; i < n; i++) counts[drawToken(z, {tau}, draw(4))]++;
  softmax(z, tau).forEach((q, j) => assert.ok(Math.abs(counts[j] / n - q) < 0.015, `${j}: ${counts[j] / n} vs ${q}`));
});

test("the seeded uniforms: in (0, 1], the same seed the same draws, another seed others", () => {
  const a = uniforms(3)(1000), b = uniforms(3)(1000), c = uniforms(4)(1000);
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, c);
  assert.ok(a.every((u) => u > 0 && u <= 1));
  const mean = a.reduce((s, u) => s + u, 0) / a.length;
  assert.ok(Math.abs(mean - 0.5) < 0.05);
});

test("generate feeds its own choices back, as the lab's generate(): the same seed writes the same text", () => {
  const parsed = parseSafetensors(safetensors(lstmTensors(), meta));
  const write = (seed) => writtenTokens(generate(makeModel("lstm", parsed, VOCAB), [2, 3], 40, {tau: 1, k: V, p: 1}, uniforms(seed)));
  assert.deepEqual(write(1), write(1));
  assert.notDeepEqual(write(1), write(2));
  // step by step: each token is the draw from the logits after the previous one
  const net = makeModel("lstm", parsed, VOCAB), draw = uniforms(5), copy = makeModel("lstm", parsed, VOCAB), again = uniforms(5);
  const tokens = writtenTokens(generate(net, [4], 10, {tau: 0.9, k: 3, p: 0.8}, draw));
  copy.reset();
  let z = copy.step(4);
  for (const tok of tokens) {
    assert.equal(tok, drawToken(z, {tau: 0.9, k: 3, p: 0.8}, again(V)));
    z = copy.step(tok);
  }
  // the prompt's steps come first, one at a time, each with the state after its character
  const steps = Array.from(generate(makeModel("lstm", parsed, VOCAB), [2, 3, 4], 2, {tau: 0}, null));
  assert.deepEqual(steps.map((r) => r.prompt ?? `w${r.step}`), [0, 1, 2, "w0", "w1"]);
  const again2 = makeModel("lstm", parsed, VOCAB);
  again2.step(2); again2.step(3);
  assert.deepEqual(Array.from(steps[1].h), Array.from(again2.h));
  assert.deepEqual(Array.from(steps[1].f), Array.from(again2.f));
});

test("runSliced gives the browser a turn between slices of bounded work, and stops when aborted", async () => {
  let clock = 0;
  const now = () => clock;
  const items = (function* () { for (let i = 0; i < 50; i++) { clock += 1; yield i; } })();
  const slices = [];
  assert.equal(await runSliced(items, (s) => slices.push(s), {sliceMs: 8, now}), 50);
  assert.ok(slices.length >= 6 && slices.every((s) => s.length <= 8), slices.map((s) => s.length).join(","));
  assert.deepEqual(slices.flat(), Array.from({length: 50}, (_, i) => i));
  const abort = new AbortController();
  const endless = (function* () { for (let i = 0; ; i++) { clock += 1; yield i; } })();
  let seen = 0;
  const done = runSliced(endless, (s) => { seen += s.length; if (seen > 20) abort.abort(); }, {sliceMs: 8, now, signal: abort.signal});
  assert.ok((await done) < 40);
});
