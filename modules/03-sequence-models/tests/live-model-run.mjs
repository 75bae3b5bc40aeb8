// Not a test: the node half of test_live_model.py.  Reads a JSON request on stdin and writes what the page's
// live model (live-model.js, live-sampling.js) computes, as JSON on stdout:
//   {"weights": {"rnn": path, "lstm": path}, "vocab": [...], "expected": {"rnn": {tensor: shape}, ...},
//    "logits": [[ids], ...]}                        -> {"logits": {"rnn": [[[|V| numbers] per position] per prompt], "lstm": ...}}
//    "samples": [{model, ids, length, tau, k, p, u: [[|V| uniforms] per character]}]   -> {"samples": [[token ids]]}
import {readFileSync} from "node:fs";
import {checkModel, makeModel, parseSafetensors, logitsOver} from "../live-model.js";
import {generate, writtenTokens} from "../live-sampling.js";

const request = JSON.parse(readFileSync(0, "utf8"));
const models = {};
for (const [name, path] of Object.entries(request.weights)) {
  const bytes = readFileSync(path);
  const parsed = checkModel(parseSafetensors(bytes, path), name, request.expected[name], request.vocab, path);
  models[name] = makeModel(name, parsed, request.vocab);
}
const out = {logits: {}, samples: []};
for (const [name, model] of Object.entries(models)) {
  out.logits[name] = (request.logits ?? []).map((ids) => logitsOver(model, ids).map((z) => Array.from(z)));
}
for (const s of request.samples ?? []) {
  let i = 0;
  const draw = (n) => { const u = s.u[i++]; if (u.length !== n) throw new Error("wrong draw size"); return u; };
  out.samples.push(writtenTokens(generate(models[s.model], s.ids, s.length, {tau: s.tau, k: s.k, p: s.p}, draw)));
}
process.stdout.write(JSON.stringify(out));
