// A student's results file, checked before the page shows any of it (your-run.js): one message per kind of
// bad file, in a student's words, saying which it is and what to do.  No DOM: tests/js/run-file.test.mjs
// runs it in node on the real schemas.
//
// Two kinds of file are taken: what a lab's results cell saves (the module's measured keys, lab_run and
// student), checked against the module's own schema (data/<id>/results.schema.json) for the measured keys
// and the shared lab-run schema for lab_run; and a results file the build wrote (data/<id>/results.json),
// checked against the module's schema as it is.

export const MAX_BYTES = 5_000_000;   // a results file is about 0.3 MB: anything this large is another file
const BUILD_ONLY = ["schema_version", "provenance", "claims"];   // what the build adds to the lab's file

/** The schema of a lab's own file, made from the module's: its measured keys as the module's schema has them. */
export function labFileSchema(schema) {
  const properties = Object.fromEntries(Object.entries(schema.properties).filter(([k]) => !BUILD_ONLY.includes(k)));
  return {
    ...schema,
    required: [...schema.required.filter((k) => !BUILD_ONLY.includes(k)), "lab_run"],
    properties: {...properties, lab_run: {$ref: "urn:course:lab-run"}, student: {type: "object"}},
  };
}

function validator(Validator, schema, {provenance, labRun}) {
  const v = new Validator(schema, "2020-12", false);
  v.addSchema(provenance, "urn:course:provenance");
  v.addSchema(labRun, "urn:course:lab-run");
  return v;
}

// the validator reports each failure from the outside in: a keyword that only passes its parts' errors up
const WRAPPERS = new Set(["properties", "items", "prefixItems", "$ref", "allOf", "anyOf", "oneOf", "$defs"]);

/** The first schema error in a reader's words: where in the file, and what is wrong there. */
function firstProblem(errors) {
  const e = errors.find((error) => !WRAPPERS.has(error.keyword)) ?? errors[0];
  const where = e.instanceLocation.replace(/^#\/?/, "").replaceAll("/", ".") || "the top level";
  return `at ${where}: ${e.error.replace(/\.$/, "")}`;
}

/**
 * Check the text of a file for module `id`: {ok: true, data, text} or {ok: false, kind, message}.  `kind` names
 * the problem: too-large, not-json, truncated, not-results, other-module, older-lab, schema.
 */
export function checkFile(text, {id, file = "This file", schema, provenance, labRun, course, Validator}) {
  const fail = (kind, message) => ({ok: false, kind, message});
  if (text.length > MAX_BYTES)
    return fail("too-large", `${file} is far larger than a results file (about 0.3 MB). Choose the results file your lab saved.`);
  let data;
  try {
    data = JSON.parse(text);
  } catch {
    const trimmed = text.trim();
    if (trimmed.startsWith("{") && !trimmed.endsWith("}"))
      return fail("truncated", `${file} ends too early: it was cut off while it was saved or downloaded. ` +
        "Download it again from your lab (run its results cell again if needed).");
    return fail("not-json", `${file} is not a results file: it is not JSON. Choose the .json file your lab's results cell saved.`);
  }
  if (data === null || typeof data !== "object" || Array.isArray(data) || !(data.lab_run || data.provenance))
    return fail("not-results", `${file} is JSON, but not a lab's results file (it has no lab_run or provenance). ` +
      "Choose the .json file your lab's results cell saved.");
  const module = data.lab_run?.module;
  if (module && module !== id)
    return fail("other-module", `${file} is the results file of the lab of module ${module}, not of this module (${id}). ` +
      `Open it on module ${module}'s page, or choose this module's file.`);
  if (data.provenance && data.schema_version !== undefined && data.schema_version !== schema.properties.schema_version?.const)
    return fail("older-lab", `${file} was written for an older version of this page (schema ${data.schema_version}). ` +
      "Run the current lab and choose the file it saves.");
  const shape = data.lab_run ? labFileSchema(schema) : schema;
  const result = validator(Validator, shape, {provenance, labRun}).validate(data);
  if (!result.valid) {
    const ours = course?.provenance?.lab_source_sha256, theirs = data.lab_run?.lab_source_sha256;
    if (data.lab_run && (!module || (theirs && ours && theirs !== ours)))
      return fail("older-lab", `${file} was saved by an older version of this lab, which records other values ` +
        `(${firstProblem(result.errors)}). Open the lab from this page, run it again and choose the file it saves.`);
    return fail("schema", `${file} does not have what this page needs, ${firstProblem(result.errors)}. ` +
      "Was it edited by hand or cut short? Download it again from your lab.");
  }
  return {ok: true, data, text};
}
