// _extensions/course/run-file.js on the real schemas, in node: a real quick run's file is taken, and each kind of bad
// file gets its own kind and a message that says where the problem is (the browser test drives the page itself).
import {test} from "node:test";
import assert from "node:assert/strict";
import {readFileSync} from "node:fs";
import {module} from "./course.mjs";
import {quickRun, runFileOptions} from "./run-file-options.mjs";
import {checkFile} from "../../_extensions/course/run-file.js";

const M = module("03-sequence-models");
const read = (p) => readFileSync(p, "utf8");
const options = await runFileOptions(M);
const {quickText, quick} = quickRun(M, options);
const check = (data) => checkFile(typeof data === "string" ? data : JSON.stringify(data), options);

test("a real quick run's file and the build's own results file are taken", () => {
  assert.equal(check(quickText).ok, true, check(quickText).message);
  assert.equal(check(read(M.results)).ok, true);
});

test("each kind of bad file is named, with where its problem is", () => {
  const wrongType = quick(); wrongType.gradient_by_distance.forget_gate.mean = "high";
  const extra = quick(); extra.notes = "mine";
  const badRun = quick(); badRun.lab_run.device_type = "tpu";
  const cases = [
    [quickText.slice(0, 5000), "truncated", /ends too early/],
    ["lab notes", "not-json", /not JSON/],
    ["[1, 2]", "not-results", /not a lab's results file/],
    [{...quick(), lab_run: {...quick().lab_run, module: "04-attention"}}, "other-module", /module 04-attention, not of this module/],
    [{...JSON.parse(read(M.results)), schema_version: 0}, "older-lab", /older version of this page/],
    [wrongType, "schema", /at gradient_by_distance\.forget_gate\.mean: .*"number"/],
    [extra, "schema", /at the top level: .*notes/],
    [badRun, "schema", /at lab_run\.device_type/],
    [" ".repeat(5_000_001), "too-large", /far larger than a results file/],
  ];
  for (const [data, kind, message] of cases) {
    const out = check(data);
    assert.equal(out.ok, false, kind);
    assert.equal(out.kind, kind, out.message);
    assert.match(out.message, message);
  }
});

test("a file that lacks a part is taken, the part named (issue 41: no refusal of the whole file)", () => {
  const missing = quick(); delete missing.models.lstm.perplexity;
  const out = check(missing);
  assert.equal(out.ok, true, out.message);
  assert.ok(out.notes.missing.some((m) => m.where === "models.lstm.perplexity"), JSON.stringify(out.notes.missing));
  const old = quick();
  old.lab_run.lab_source_sha256 = "0".repeat(64);
  delete old.sampling;
  const older = check(old);
  assert.equal(older.ok, true, older.message);
  assert.equal(older.notes.older, true);
  assert.ok(older.notes.missing.some((m) => m.where === "sampling"), JSON.stringify(older.notes.missing));
});
