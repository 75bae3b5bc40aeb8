// live-model.js: the course's trained RNN and LSTM, run in the reader's browser, one character at a time.
//
// The build exports both models after the lab (scripts/measure/weights.py): one safetensors file per model,
// float32, each tensor under the model's name ("lstm.out.weight"), the vocabulary in the file's metadata.
// This module reads such a file, checks it against the tensors the course's model has (their shapes as
// results.json's provenance.weights records them), and runs a batch of one through the lab's own equations:
//
//   RNN  (Equation 1, the lab's rnn_cell_step):  h_t = tanh(W h_{t-1} + U x_t + b)
//   LSTM (Equation 10, PyTorch's nn.LSTM, gates stacked i, f, g, o in weight_ih / weight_hh / both biases):
//        i = σ(·), f = σ(·), c̃ = tanh(·), o = σ(·);  c_t = f ⊙ c_{t-1} + i ⊙ c̃;  h_t = o ⊙ tanh(c_t)
//   both (Equation 2): z_t = W_o h_t + b_o, x_t = the embedding row of the character
//
// Hand-written JavaScript, not WebAssembly or onnxruntime-web: chosen by measurement (data/live-model.md).
// Sums run in float64 over the float32 weights; the parity test holds the logits to torch's within 1e-4
// (modules/03-sequence-models/tests/test_live_model.py).  No DOM: it runs in the browser and in node.

/** safetensors dtypes this reader takes: the build writes float32 only. */
const DTYPES = {F32: Float32Array};

/** A file the page cannot use; `message` names what is wrong (the tensor and the shapes). */
export class WeightsError extends Error {
  constructor(message) {
    super(message);
    this.name = "WeightsError";
  }
}

const shapeText = (shape) => `[${shape.join(", ")}]`;

/**
 * Parse a safetensors file: an 8-byte little-endian header length, a JSON header {name: {dtype, shape,
 * data_offsets}, __metadata__}, then the tensors' bytes.  Returns {tensors: {name: {shape, data}}, metadata};
 * `data` is a Float32Array over the file's own bytes (no copy) when the offsets are aligned.
 */
export function parseSafetensors(buffer, fileName = "the weights file") {
  const bytes = buffer instanceof ArrayBuffer ? new Uint8Array(buffer) : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  const fail = (why) => { throw new WeightsError(`${fileName} is not a safetensors file of this course: ${why}`); };
  if (bytes.byteLength < 8) fail(`it has ${bytes.byteLength} bytes`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = Number(view.getBigUint64(0, true));
  if (!(headerLength > 1) || 8 + headerLength > bytes.byteLength) fail(`its header length (${headerLength}) does not fit its ${bytes.byteLength} bytes`);
  let header;
  try {
    header = JSON.parse(new TextDecoder("utf-8", {fatal: true}).decode(bytes.subarray(8, 8 + headerLength)));
  } catch (e) {
    fail(`its header is not JSON (${e.message})`);
  }
  if (header === null || typeof header !== "object" || Array.isArray(header)) fail("its header is not a JSON object");
  const {__metadata__: metadata = {}, ...entries} = header;
  const start = 8 + headerLength, tensors = {};
  for (const [name, entry] of Object.entries(entries)) {
    const {dtype, shape, data_offsets: offsets} = entry ?? {};
    const Type = DTYPES[dtype];
    if (!Type) fail(`tensor "${name}" is ${dtype}; this page reads float32 (F32) only`);
    if (!Array.isArray(shape) || !shape.every((n) => Number.isInteger(n) && n >= 0)) fail(`tensor "${name}" has no valid shape`);
    const count = shape.reduce((a, b) => a * b, 1);
    if (!Array.isArray(offsets) || offsets[1] - offsets[0] !== count * Type.BYTES_PER_ELEMENT || offsets[0] < 0 || start + offsets[1] > bytes.byteLength)
      fail(`tensor "${name}"'s bytes (${offsets}) do not hold ${shapeText(shape)} ${dtype} numbers within the file`);
    const at = bytes.byteOffset + start + offsets[0];
    const data = at % Type.BYTES_PER_ELEMENT === 0 ? new Type(bytes.buffer, at, count)
      : new Type(bytes.slice(start + offsets[0], start + offsets[1]).buffer);   // unaligned: copy
    tensors[name] = {shape, data};
  }
  return {tensors, metadata};
}

/**
 * Check a parsed file against the course's model `name` ("rnn" or "lstm"): every tensor the course's
 * recorded (`expected`, {tensor name: shape}, from results.json's provenance.weights[name].tensors) present
 * at its shape, finite, and the vocabulary the same.  Throws a WeightsError naming the tensor and the shapes.
 */
export function checkModel(parsed, name, expected, vocab, fileName = "the weights file") {
  const {tensors, metadata} = parsed;
  const names = Object.keys(expected);
  if (!names.length) throw new WeightsError(`the course records no tensors for the ${name.toUpperCase()}`);
  const mine = names.filter((t) => t in tensors);
  if (!mine.length) {
    throw new WeightsError(`${fileName} holds no ${name.toUpperCase()}: none of its ${Object.keys(tensors).length} tensors is named ${name}.* ` +
      `(it has ${Object.keys(tensors).slice(0, 3).map((t) => `"${t}"`).join(", ") || "none"})`);
  }
  for (const t of names) {
    if (!(t in tensors)) throw new WeightsError(`${fileName} lacks the tensor "${t}" (the course's ${name.toUpperCase()} has it, ${shapeText(expected[t])})`);
    const got = tensors[t].shape;
    if (got.length !== expected[t].length || got.some((n, i) => n !== expected[t][i]))
      throw new WeightsError(`${fileName}: tensor "${t}" is ${shapeText(got)}, but the module's ${name.toUpperCase()} has ${shapeText(expected[t])}`);
    const data = tensors[t].data;
    for (let i = 0; i < data.length; i++) {
      if (!Number.isFinite(data[i])) throw new WeightsError(`${fileName}: tensor "${t}" holds a number that is not finite (at ${i})`);
    }
  }
  const extra = Object.keys(tensors).filter((t) => t.startsWith(`${name}.`) && !(t in expected));
  if (extra.length) throw new WeightsError(`${fileName}: tensor "${extra[0]}" is not part of the module's ${name.toUpperCase()}`);
  if (vocab && metadata.vocab !== undefined) {
    let theirs;
    try { theirs = JSON.parse(metadata.vocab); } catch { theirs = null; }
    if (!Array.isArray(theirs) || theirs.length !== vocab.length || theirs.some((c, i) => c !== vocab[i]))
      throw new WeightsError(`${fileName}: its vocabulary is not the module's ${vocab.length} characters`);
  }
  return parsed;
}

const sigmoid = (a) => 1 / (1 + Math.exp(-a));

/** out += M x for an (out.length × cols) row-major M (sums in float64, four at a time: about 1.4x faster
 *  than one running sum in V8, data/live-model.md). */
function addMatVec(out, M, cols, x) {
  const n = out.length, whole = cols - (cols % 4);
  for (let r = 0; r < n; r++) {
    let s0 = 0, s1 = 0, s2 = 0, s3 = 0, b = r * cols, j = 0;
    for (; j < whole; j += 4, b += 4) {
      s0 += M[b] * x[j]; s1 += M[b + 1] * x[j + 1]; s2 += M[b + 2] * x[j + 2]; s3 += M[b + 3] * x[j + 3];
    }
    for (; j < cols; j++, b++) s0 += M[b] * x[j];
    out[r] += (s0 + s1) + (s2 + s3);
  }
}

/** A trained model, a batch of one: reset(), then step(token) for each character; logits after each. */
class LiveModel {
  constructor(name, tensors, vocab) {
    this.name = name;
    this.vocab = vocab;
    this.index = new Map(vocab.map((c, i) => [c, i]));
    const t = (key) => tensors[`${name}.${key}`].data;
    this.embed = t("embed.weight");
    this.outW = t("out.weight");
    this.outB = t("out.bias");
    this.V = vocab.length;
    this.d = tensors[`${name}.embed.weight`].shape[1];
    this.logits = new Float64Array(this.V);
  }

  /** The embedding row x_t of token id `token` (a view, no copy). */
  embedding(token) {
    if (!(token >= 0 && token < this.V)) throw new RangeError(`token ${token} is outside the vocabulary (0..${this.V - 1})`);
    return this.embed.subarray(token * this.d, (token + 1) * this.d);
  }

  /** The input's part of a step, U x_t + b (every gate's, for the LSTM), for token `token`: the same for
   *  every occurrence of a character, so computed on its first use and kept (a step is then one product). */
  inputPart(token, U, bias) {
    this.inputs ??= new Map();
    let part = this.inputs.get(token);
    if (!part) {
      part = Float64Array.from(bias);
      addMatVec(part, U, this.d, this.embedding(token));
      this.inputs.set(token, part);
    }
    return part;
  }

  /** z_t = W_o h_t + b_o (Equation 2), into this.logits. */
  output() {
    for (let v = 0; v < this.V; v++) this.logits[v] = this.outB[v];
    addMatVec(this.logits, this.outW, this.dh, this.h);
    return this.logits;
  }
}

/** The lab's RNNLM: rnn_cell_step over time, h_0 = 0. */
export class LiveRNN extends LiveModel {
  constructor(tensors, vocab) {
    super("rnn", tensors, vocab);
    this.W = tensors["rnn.W"].data;
    this.U = tensors["rnn.U"].data;
    this.b = tensors["rnn.b"].data;
    this.dh = tensors["rnn.b"].shape[0];
    this.reset();
  }

  reset() {
    this.h = new Float64Array(this.dh);
    this.a = new Float64Array(this.dh);
  }

  /** One character: h_t = tanh(W h_{t-1} + U x_t + b); returns the logits z_t (Float64Array, reused). */
  step(token) {
    const a = this.a;
    a.set(this.inputPart(token, this.U, this.b));
    addMatVec(a, this.W, this.dh, this.h);
    for (let r = 0; r < this.dh; r++) this.h[r] = Math.tanh(a[r]);
    return this.output();
  }
}

/** The lab's LSTMLM: nn.LSTM's one layer, gates i, f, g (= c̃), o; h_0 = c_0 = 0. */
export class LiveLSTM extends LiveModel {
  constructor(tensors, vocab) {
    super("lstm", tensors, vocab);
    this.Wih = tensors["lstm.lstm.weight_ih_l0"].data;    // (4 d_h, d): U_i, U_f, U_c, U_o stacked
    this.Whh = tensors["lstm.lstm.weight_hh_l0"].data;    // (4 d_h, d_h): W_i, W_f, W_c, W_o
    const bih = tensors["lstm.lstm.bias_ih_l0"].data, bhh = tensors["lstm.lstm.bias_hh_l0"].data;
    this.dh = bih.length / 4;
    this.bias = new Float64Array(bih.length).map((_, r) => bih[r] + bhh[r]);
    this.reset();
  }

  reset() {
    this.h = new Float64Array(this.dh);
    this.c = new Float64Array(this.dh);
    this.pre = new Float64Array(4 * this.dh);
    this.f = new Float64Array(this.dh);   // the last step's forget gates, for the page to show
  }

  /** One character (Equation 10); returns the logits z_t (Float64Array, reused). this.f holds f_t. */
  step(token) {
    const pre = this.pre, dh = this.dh;
    pre.set(this.inputPart(token, this.Wih, this.bias));
    addMatVec(pre, this.Whh, dh, this.h);
    for (let u = 0; u < dh; u++) {
      const i = sigmoid(pre[u]), f = sigmoid(pre[dh + u]), g = Math.tanh(pre[2 * dh + u]), o = sigmoid(pre[3 * dh + u]);
      this.c[u] = f * this.c[u] + i * g;
      this.h[u] = o * Math.tanh(this.c[u]);
      this.f[u] = f;
    }
    return this.output();
  }
}

/** The model `name` of a checked file: new LiveRNN or LiveLSTM. */
export function makeModel(name, parsed, vocab) {
  if (name === "rnn") return new LiveRNN(parsed.tensors, vocab);
  if (name === "lstm") return new LiveLSTM(parsed.tensors, vocab);
  throw new Error(`live-model: no model "${name}" (rnn or lstm)`);
}

/**
 * A prompt as token ids: characters outside the vocabulary are skipped and named ({ids, skipped: [chars]});
 * an empty prompt (or one with none of the vocabulary's characters) starts from a newline.
 */
export function encodePrompt(text, vocab) {
  const index = new Map(vocab.map((c, i) => [c, i]));
  const ids = [], skipped = [];
  for (const ch of text) {
    if (index.has(ch)) ids.push(index.get(ch));
    else if (!skipped.includes(ch)) skipped.push(ch);
  }
  const empty = ids.length === 0;
  if (empty) {
    if (!index.has("\n")) throw new Error("live-model: the vocabulary has no newline to start an empty prompt from");
    ids.push(index.get("\n"));
  }
  return {ids, skipped, fromNewline: empty};
}

/** The logits after each token of `ids`, from a fresh state: [Float64Array(|V|)] (for the parity test). */
export function logitsOver(model, ids) {
  model.reset();
  return ids.map((id) => Float64Array.from(model.step(id)));
}
