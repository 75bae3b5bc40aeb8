// A student's results file, checked before the page shows any of it (your-run.js): one message per kind of
// bad file, in a student's words, saying which it is and what to do.  No DOM: tests/js/run-file.test.mjs
// runs it in node on the real schemas.
//
// Two kinds of file are taken: what a lab's results cell saves (the module's measured keys, lab_run and
// student), checked against the module's own schema (data/<id>/results.schema.json) for the measured keys
// and the shared lab-run schema for lab_run; and a results file the build wrote (data/<id>/results.json),
// checked against the module's schema as it is.
//
// A lab's file is taken whole where it can be (issue 41): every part the module's schema requires may be
// missing (a skipped optional part, a file saved before the end, an earlier version of the lab), and each
// missing part is named, in the schema's own words where it has them (`x-lab-missing` on the part); a number
// may be null (the lab writes a number that was not finite as null and names it under non_finite), and the
// bare NaN and Infinity that Python's json.dump writes are read as such nulls, each named by its field.  A
// file of an earlier version of the lab (its lab source is not the course's) that records a part in another
// form keeps the rest: that part is left out and named.  A file of this version whose part has the wrong
// type was edited by hand: refused, saying where.

export const MAX_BYTES = 5_000_000;   // a results file is about 0.3 MB: anything this large is another file
const BUILD_ONLY = ["schema_version", "provenance", "claims"];   // what the build adds to the lab's file
// what the lab writes for a number that was not finite: null, and under non_finite its place and kind
const NON_FINITE = {type: "object", additionalProperties: {enum: ["nan", "inf", "-inf"]}};

/**
 * A schema with every part optional (`required` gone, `contains` gone: missingParts names what is missing), every
 * number nullable, and, for an earlier lab's file (`loose`), any other key allowed.
 */
function optionalParts(node, loose) {
  if (Array.isArray(node)) return node.map((n) => optionalParts(n, loose));
  if (node === null || typeof node !== "object") return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "required" || (k === "additionalProperties" && v === false && loose)) continue;
    if (k === "allOf" && Array.isArray(v)) {
      const kept = v.filter((part) => !part.contains).map((part) => optionalParts(part, loose));
      if (kept.length) out.allOf = kept;
    } else if (k === "type" && (v === "number" || (Array.isArray(v) && v.includes("number") && !v.includes("null")))) {
      out.type = [...[v].flat(), "null"];
    } else out[k] = optionalParts(v, loose);
  }
  return out;
}

/**
 * The schema of a lab's own file, made from the module's: its measured keys as the module's schema has them, each
 * part optional and each number nullable (optionalParts); lab_run as the shared schema has it.
 */
export function labFileSchema(schema, {loose = false} = {}) {
  const properties = Object.fromEntries(Object.entries(schema.properties).filter(([k]) => !BUILD_ONLY.includes(k)));
  return {
    ...optionalParts({...schema, properties}, loose),
    required: ["lab_run"],
    properties: {...optionalParts(properties, loose), lab_run: {$ref: "urn:course:lab-run"}, student: {type: "object"},
      non_finite: NON_FINITE},
  };
}

// Python's json.dump writes NaN, Infinity and -Infinity, which JSON has not: each is read as a marked string
// (a JSON string is left as it is), then as null with its field named
const BARE = /"(?:[^"\\]|\\.)*"|-?Infinity|NaN/g;
const MARK = "\u0000non-finite:";
const KIND = {NaN: "nan", Infinity: "inf", "-Infinity": "-inf"};

/** {data, bare: {"models.rnn.test_nats": "nan", ...}}: JSON.parse, or JSON with Python's bare NaN and Infinity. */
export function parseResults(text) {
  try {
    return {data: JSON.parse(text), bare: {}};
  } catch (strictError) {
    let marked = false;
    const withMarks = text.replace(BARE, (m) => (m[0] === '"' ? m : (marked = true, JSON.stringify(MARK + m))));
    if (!marked) throw strictError;
    const data = JSON.parse(withMarks), bare = {};
    const walk = (node, where) => {
      if (Array.isArray(node) || (node && typeof node === "object")) {
        for (const [k, v] of Object.entries(node)) {
          if (k.startsWith(MARK)) throw strictError;                      // a bare NaN where a name belongs
          const at = where ? `${where}.${k}` : k;
          if (typeof v === "string" && v.startsWith(MARK)) { node[k] = null; bare[at] = KIND[v.slice(MARK.length)]; }
          else walk(v, at);
        }
      }
    };
    walk(data, "");
    return {data, bare};
  }
}

const WORDS = {nan: "not a number", inf: "infinite", "-inf": "minus infinite"};

/**
 * The file's numbers that were not finite, in a reader's words: one entry per field, a list's many values
 * counted once ("clipping_demo.unclipped.loss: 97 values not a number or infinite").
 */
export function describeNonFinite(places) {
  const groups = new Map();
  for (const [where, kind] of Object.entries(places)) {
    const list = /^(.*)\.(\d+)$/.exec(where);
    const key = list ? list[1] : where;
    const g = groups.get(key) ?? {count: 0, kinds: new Set(), list: Boolean(list)};
    g.count += 1; g.kinds.add(WORDS[kind] ?? kind);
    groups.set(key, g);
  }
  return [...groups].map(([where, g]) => `${where} (${g.list ? `${g.count} value${g.count === 1 ? "" : "s"}: ` : ""}` +
    `${[...g.kinds].join(" or ")})`);
}

/** A local $ref (#/$defs/...) resolved in `root`. */
const resolveRef = (node, root) => (node?.$ref?.startsWith("#/")
  ? node.$ref.slice(2).split("/").reduce((n, k) => n?.[k], root) : node);

/**
 * Every part the module's schema requires that `data` lacks: [{where, says}], `says` the schema's x-lab-missing
 * words where the part has them (a list's items are checked, each missing field named once, as "samples[]").
 */
export function missingParts(schema, data, Validator, {root = schema, where = ""} = {}) {
  const node = resolveRef(schema, root);
  if (!node || typeof node !== "object" || data === null || data === undefined) return [];
  const out = [];
  const at = (k) => (where ? `${where}.${k}` : k);
  if (Array.isArray(data)) {
    for (const part of node.allOf ?? []) {
      if (!part.contains) continue;
      const one = new Validator(part.contains, "2020-12", false);
      if (!data.some((item) => one.validate(item).valid)) {
        const wanted = Object.entries(part.contains.properties ?? {}).map(([k, v]) => `${k} ${JSON.stringify(v.const ?? v)}`);
        out.push({where, says: part["x-lab-missing"] ?? `your file's ${where} has no item with ${wanted.join(", ")}`});
      }
    }
    if (node.items) {
      const seen = new Set();
      for (const item of data) {
        for (const m of missingParts(node.items, item, Validator, {root, where: `${where}[]`})) {
          if (!seen.has(m.where)) { seen.add(m.where); out.push(m); }
        }
      }
    }
    return out;
  }
  if (typeof data !== "object") return out;
  for (const key of node.required ?? []) {
    if (!(key in data)) out.push({where: at(key), says: resolveRef(node.properties?.[key], root)?.["x-lab-missing"] ?? null});
  }
  for (const [key, sub] of Object.entries(node.properties ?? {})) {
    if (key in data) out.push(...missingParts(sub, data[key], Validator, {root, where: at(key)}));
  }
  return out;
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

/** Remove the part of `data` at a validator's instanceLocation ("#/a/b/3/c"): the nearest named property. */
function dropPart(data, location) {
  const keys = location.replace(/^#\/?/, "").split("/").filter(Boolean).map((k) => k.replaceAll("~1", "/").replaceAll("~0", "~"));
  while (keys.length && /^\d+$/.test(keys.at(-1))) keys.pop();           // a list's item: the list goes
  if (!keys.length) return null;
  const last = keys.pop();
  const parent = keys.reduce((n, k) => n?.[k], data);
  if (parent && typeof parent === "object" && last in parent) { delete parent[last]; return [...keys, last].join("."); }
  return null;
}

/**
 * Check the text of a file for module `id`: {ok: true, data, text, notes} or {ok: false, kind, message}.  `kind`
 * names the problem: too-large, not-json, truncated, not-results, other-module, older-lab, schema.  `notes` says
 * what of a taken file is not as the module's schema has it: {nonFinite: {where: kind}, missing: [{where, says}],
 * dropped: [where], older: whether the file comes from an earlier version of the lab}.
 */
export function checkFile(text, {id, file = "This file", schema, provenance, labRun, course, Validator}) {
  const fail = (kind, message) => ({ok: false, kind, message});
  if (text.length > MAX_BYTES)
    return fail("too-large", `${file} is far larger than a results file (about 0.3 MB). Choose the results file your lab saved.`);
  let data, bare;
  try {
    ({data, bare} = parseResults(text));
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
  if (!data.lab_run) {   // a file the build wrote: as the module's schema has it
    const result = validator(Validator, schema, {provenance, labRun}).validate(data);
    if (!result.valid)
      return fail("schema", `${file} does not have what this page needs, ${firstProblem(result.errors)}. ` +
        "Was it edited by hand or cut short? Download it again from your lab.");
    return {ok: true, data, text, notes: {nonFinite: {}, missing: [], dropped: [], older: false}};
  }
  const ours = course?.provenance?.lab_source_sha256, theirs = data.lab_run?.lab_source_sha256;
  const older = !module || Boolean(theirs && ours && theirs !== ours);
  const check = validator(Validator, labFileSchema(schema, {loose: older}), {provenance, labRun});
  let result = check.validate(data);
  const dropped = [];
  // an earlier lab's part in another form: left out and named, the rest kept (each round drops one part)
  for (let round = 0; older && !result.valid && round < 50; round++) {
    const e = result.errors.find((error) => !WRAPPERS.has(error.keyword)) ?? result.errors[0];
    const gone = dropPart(data, e.instanceLocation);
    if (!gone || gone === "lab_run") break;
    dropped.push(gone);
    result = check.validate(data);
  }
  if (!result.valid) {
    if (older)
      return fail("older-lab", `${file} was saved by an older version of this lab, which records other values ` +
        `(${firstProblem(result.errors)}). Open the lab from this page, run it again and choose the file it saves.`);
    return fail("schema", `${file} does not have what this page needs, ${firstProblem(result.errors)}. ` +
      "Was it edited by hand or cut short? Download it again from your lab.");
  }
  const nonFinite = {...(data.non_finite ?? {}), ...bare};
  const missing = missingParts(labFileSchema.measured(schema), data, Validator)
    .filter((m) => !dropped.some((d) => m.where === d || m.where.startsWith(`${d}.`)));
  return {ok: true, data, text, notes: {nonFinite, missing, dropped, older}};
}

/** The module's schema of the measured keys alone (what missingParts walks: the build's own parts left out). */
labFileSchema.measured = (schema) => ({
  ...schema,
  required: schema.required.filter((k) => !BUILD_ONLY.includes(k)),
  properties: Object.fromEntries(Object.entries(schema.properties).filter(([k]) => !BUILD_ONLY.includes(k))),
});
