// A module's claims as data (modules/<id>/claims.json), evaluated on a results file: the page's twin of
// scripts/measure/claims.py's data_claims, which the build runs with jsonata-python on the same expressions.
// Each claim: `holds` (a JSONata expression, true or false), `values` (named JSONata expressions, each shown
// by a formatter of formatting.js) and the sentence `yes` or `no` with those values in {name}.  The
// thresholds are bound as $name.  The result is plain text (a page shows it with textContent, never as HTML).
import {FORMATTERS} from "./formatting.js";

/** A value shown by its format ["fmt_fixed", 2]: the formatter of formatting.js with the value and the rest. */
export function formatValue(value, format) {
  const [name, ...args] = format;
  const formatter = FORMATTERS[name];
  if (!formatter) throw new Error(`no formatter ${name} in formatting.js`);
  return formatter(value, ...args);
}

/** A claim's value as its sentence shows it; a missing or null one is the spec's `null` text, or an error. */
export function shownValue(value, spec) {
  if (value === undefined || value === null) {
    if ("null" in spec) return spec.null;
    throw new Error(`your file has no number at ${spec.of}`);   // never "null": a reader's words (issue 41)
  }
  return formatValue(value, spec.format);
}

/** A sentence with {name} filled from `values` (a name the sentence uses but `values` lacks is an error). */
export function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, (_, name) => {
    if (!(name in values)) throw new Error(`the sentence names {${name}}, which the claim does not compute`);
    return values[name];
  });
}

/**
 * Every claim of `doc` (claims.json) on `data`: [{name, statement, box, holds, says, usually}], in order (`usually`,
 * what usually explains a failure, filled from the same values as `says`).  A
 * claim that cannot be computed on the data (a missing value, a null where a number is needed) does not hold,
 * and says so.  `jsonata` is the jsonata library's function.
 */
export async function evaluateClaims(jsonata, doc, data) {
  const bindings = doc.thresholds ?? {};
  const out = [];
  for (const claim of doc.claims) {
    const base = {name: claim.name, statement: claim.statement, box: claim.box};
    try {
      // the values first: a claim over a number the file lacks is not evaluated (JSONata would compare it as false)
      const values = {};
      for (const [name, spec] of Object.entries(claim.values ?? {})) {
        values[name] = shownValue(await jsonata(spec.of).evaluate(data, bindings), spec);
      }
      const holds = await jsonata(claim.holds).evaluate(data, bindings);
      if (typeof holds !== "boolean") throw new Error(`its test gave ${JSON.stringify(holds)}, not true or false`);
      out.push({...base, holds, says: fill(holds ? claim.yes : claim.no, values),
        usually: claim.usually && fill(claim.usually, values)});
    } catch (err) {
      // a JSONata error (it has a code, T0412 and the like) speaks of its functions' arguments: a reader's words instead
      const why = err?.code ? "a value it needs is missing from your file or is not a finite number" : (err.message ?? err);
      out.push({...base, holds: false, says: `could not be evaluated on this file: ${why}`});
    }
  }
  return out;
}

/**
 * One value of a box (after-the-lab.json: {label, of, format}) on `data`, formatted; null when the file lacks it.  A
 * null in the file is a number that was not finite (the lab writes it so): the formatter's "not a number".
 */
export async function boxValue(jsonata, spec, data) {
  try {
    const value = await jsonata(spec.of).evaluate(data);
    return value === undefined ? null : formatValue(value, spec.format);
  } catch {
    return null;
  }
}
