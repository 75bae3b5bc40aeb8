// _extensions/course/run-file.js on files a lab really writes that are not whole (issue 41): Python's bare NaN and
// Infinity read and each field named, the lab's strict file with its non_finite list, a part missing (the optional
// Challenge skipped: the schema's own words), an earlier lab's part in another form left out and named, and a
// part of this lab's version with a wrong type still refused.  The files are the real quick run's
// (tests/fixtures/<id>/lab-results-quick.json), changed the way the lab or a student changes them.
import {test} from "node:test";
import assert from "node:assert/strict";
import {module} from "./course.mjs";
import {quickRun, runFileOptions} from "./run-file-options.mjs";
import {checkFile, describeNonFinite, parseResults} from "../../_extensions/course/run-file.js";
import {notesText} from "../../_extensions/course/your-run.js";

const M = module("03-sequence-models");
const options = await runFileOptions(M);
const {quickText, quick} = quickRun(M, options);
const check = (text) => checkFile(text, options);
// what Python's json.dumps(allow_nan=True), the default, writes for these floats
const PYTHON = {nan: "NaN", inf: "Infinity", "-inf": "-Infinity"};

test("Python's bare NaN and Infinity are read as null, each field named; a string that says NaN stays a string", () => {
  const run = quick();
  run.models.rnn.test_nats = "@nan";
  run.clipping_demo.unclipped.loss = run.clipping_demo.unclipped.loss.map((v, i) => (i >= 5 ? (i % 2 ? "@inf" : "@nan") : v));
  run.gradient_by_distance.rnn_spectral_norm_W = "@-inf";
  run.student = {prediction_3a: "it goes to NaN and Infinity"};
  const text = JSON.stringify(run, null, 1).replace(/"@(nan|inf|-inf)"/g, (_, k) => PYTHON[k]);
  assert.throws(() => JSON.parse(text), "the file is not JSON as a browser reads it");
  const out = check(text);
  assert.equal(out.ok, true, out.message);
  assert.equal(out.data.models.rnn.test_nats, null);
  assert.equal(out.data.student.prediction_3a, "it goes to NaN and Infinity");
  assert.equal(out.notes.nonFinite["models.rnn.test_nats"], "nan");
  assert.equal(out.notes.nonFinite["gradient_by_distance.rnn_spectral_norm_W"], "-inf");
  const said = notesText(out.notes);
  const losses = run.clipping_demo.unclipped.loss.length - 5;
  assert.match(said, new RegExp(`clipping_demo\\.unclipped\\.loss \\(${losses} values: (not a number or infinite|infinite or not a number)\\)`));
  assert.match(said, /models\.rnn\.test_nats \(not a number\)/);
  assert.doesNotMatch(said, /\b(NaN|Infinity|nan|null|undefined)\b/);
});

test("the lab's strict file: its nulls and the non_finite list beside them", () => {
  const run = quick();
  run.models.lstm.perplexity = null;
  run.non_finite = {"models.lstm.perplexity": "inf"};
  const out = check(JSON.stringify(run));
  assert.equal(out.ok, true, out.message);
  assert.deepEqual(describeNonFinite(out.notes.nonFinite), ["models.lstm.perplexity (infinite)"]);
  const bad = quick();
  bad.non_finite = {"models.lstm.perplexity": "huge"};
  assert.equal(check(JSON.stringify(bad)).kind, "schema", "non_finite names a kind the lab writes");
});

test("a skipped Challenge is named in the schema's words, and the file is taken", () => {
  const run = quick();
  run.sampling.samples = run.sampling.samples.filter((s) => s.strategy !== "top_k" && s.strategy !== "nucleus");
  const out = check(JSON.stringify(run));
  assert.equal(out.ok, true, out.message);
  const said = notesText(out.notes);
  assert.match(said, /Your file has no Challenge samples, so the top-k and nucleus rows show the course's run only/);
  assert.equal(said.match(/Challenge samples/g).length, 1, "said once for top-k and nucleus together");
});

test("an earlier lab's part in another form is left out and named; the same in this lab's version is refused", () => {
  const run = quick();
  run.lab_run.lab_source_sha256 = "0".repeat(64);
  run.gradient_by_distance.forget_gate.histogram = [[0, 0.5, 1], [3, 4]];     // an older shape
  run.notes_of_an_older_lab = 1;
  const out = check(JSON.stringify(run));
  assert.equal(out.ok, true, out.message);
  assert.deepEqual(out.notes.dropped, ["gradient_by_distance.forget_gate.histogram"]);
  assert.equal(out.data.gradient_by_distance.forget_gate.mean, quick().gradient_by_distance.forget_gate.mean, "the rest kept");
  assert.match(notesText(out.notes), /Your file has no .*gradient_by_distance\.forget_gate\.histogram.*the version of the lab you ran/);
  const same = quick();
  same.gradient_by_distance.forget_gate.histogram = [[0, 0.5, 1], [3, 4]];
  assert.equal(check(JSON.stringify(same)).kind, "schema");
});

test("parseResults leaves strict JSON alone and refuses what is not JSON even with NaN in it", () => {
  assert.deepEqual(parseResults('{"a": 1}'), {data: {a: 1}, bare: {}});
  assert.throws(() => parseResults("{NaN: 1}"));
  assert.throws(() => parseResults("NaN NaN"));
});
