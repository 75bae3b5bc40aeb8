// What the run-file suites share: the options checkFile (_extensions/course/run-file.js) takes for a module
// (its schema, the shared schemas, the course's results), and the module's real quick run as a file of the
// course's own lab version (a file of another version is read more loosely: issue 41).
import {readFileSync} from "node:fs";
import {dirname, join} from "node:path";
import {ROOT} from "./course.mjs";

const read = (p) => readFileSync(p, "utf8");

export async function runFileOptions(M) {
  const {Validator} = await import("../../vendor/run-libs.js");
  return {id: M.id, file: "lab3_results.json", schema: JSON.parse(read(M.schema)), Validator,
    provenance: JSON.parse(read(join(ROOT, "schemas", "provenance.schema.json"))),
    labRun: JSON.parse(read(join(ROOT, "schemas", "lab-run.schema.json"))), course: JSON.parse(read(M.results))};
}

/** The quick run's text, and a function that gives it parsed, stamped with the course's lab source. */
export function quickRun(M, options) {
  const quickText = read(join(dirname(M.fixture), "lab-results-quick.json"));
  const quick = () => {
    const run = JSON.parse(quickText);
    run.lab_run.lab_source_sha256 = options.course.provenance.lab_source_sha256;
    return run;
  };
  return {quickText, quick};
}
