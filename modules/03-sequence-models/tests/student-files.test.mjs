// Every results file Lab 3 really writes along the paths students take (student-files.mjs: the solution at another
// seed, the Challenge skipped, stopped after the save cell, a diverged run, every earlier version of the lab) is
// taken by the page's reader (_extensions/course/run-file.js), each part it lacks and each number that was not
// finite named, and the module's claims and every box's values come out in words on it: never "nan", "NaN",
// "undefined", "Infinity" or "null".  The browser's side: site-student-files.test.mjs.
import {test} from "node:test";
import assert from "node:assert/strict";
import {readFileSync} from "node:fs";
import {join} from "node:path";
import {thisModule, ROOT} from "../../../tests/js/course.mjs";
import {checkFile} from "../../../_extensions/course/run-file.js";
import {evaluateClaims, boxValue} from "../../../_extensions/course/run-claims.js";
import {notesText} from "../../../_extensions/course/your-run.js";
import {studentFiles} from "./student-files.mjs";

const M = thisModule(import.meta.url);
const read = (p) => JSON.parse(readFileSync(p, "utf8"));
const {Validator, jsonata} = await import("../../../vendor/run-libs.js");
const options = {id: M.id, file: "lab3_results.json", schema: read(M.schema), Validator, course: read(M.results),
  provenance: read(join(ROOT, "schemas", "provenance.schema.json")), labRun: read(join(ROOT, "schemas", "lab-run.schema.json"))};
const FILES = studentFiles(M.id);
const CLAIMS = read(join(M.dir, "claims.json"));
const BOXES = read(join(M.dir, "after-the-lab.json")).boxes;
const RAW = /\b(nan|NaN|undefined|Infinity|null)\b/;

test("the matrix holds every path students take", () => {
  const names = FILES.map((f) => f.name);
  for (const n of ["solution-seed-1", "student-challenge-skipped", "stopped-after-save", "diverged"]) assert.ok(names.includes(n), n);
  assert.ok(names.filter((n) => n.startsWith("lab-")).length >= 7, names.join(", "));
});

for (const f of FILES) {
  test(`${f.name} (${f.what}): taken, what it lacks named, every value and claim in words`, async () => {
    const out = checkFile(f.text, options);
    assert.equal(out.ok, true, out.message);
    const said = notesText(out.notes);
    assert.doesNotMatch(said, RAW, said);
    if (f.name === "student-challenge-skipped" || f.name === "stopped-after-save")
      assert.match(said, /no Challenge samples, so the top-k and nucleus rows show the course's run only/);
    if (f.name === "diverged") assert.match(said, /not finite numbers \(your run diverged\).*clipping_demo\.clipped\.loss \(\d+ values: /);
    assert.equal(out.notes.older, JSON.parse(f.text).lab_run?.lab_source_sha256 !== options.course.provenance.lab_source_sha256
      || !JSON.parse(f.text).lab_run?.module, "an earlier version is the one whose lab source is not the course's");
    for (const box of BOXES) {
      for (const spec of [...box.values, ...(box.table?.rows ?? []).map((of) => ({of, format: box.table.format}))]) {
        const shown = await boxValue(jsonata, spec, out.data);
        assert.ok(shown === null || !RAW.test(shown), `box ${box.id}, ${spec.of}: ${shown}`);
      }
    }
    for (const claim of await evaluateClaims(jsonata, CLAIMS, out.data))
      assert.doesNotMatch(`${claim.says} ${claim.usually ?? ""}`, RAW, `${claim.name}: ${claim.says}`);
  });
}
