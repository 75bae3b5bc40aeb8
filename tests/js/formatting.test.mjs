// _extensions/course/formatting.js, the demos' port of scripts/pages/formatting.py, against the one table of
// cases that tests/test_formatting.py checks the Python with (tests/fixtures/formatting-cases.json):
// the same text for every case, or an error where the Python raises one.
import {test} from "node:test";
import assert from "node:assert/strict";
import {readFileSync} from "node:fs";
import {join} from "node:path";
import {ROOT} from "./course.mjs";
import {FORMATTERS, fmt_fixed, fmt_sci} from "../../_extensions/course/formatting.js";

export const CASES_FILE = join(ROOT, "tests", "fixtures", "formatting-cases.json");
const {cases} = JSON.parse(readFileSync(CASES_FILE, "utf8"));
// in the table, not in the port (say why)
const NOT_PORTED = {fmt_num: "JavaScript has no int and float to tell apart (2 against 2.0)"};
const FLOATS = {nan: NaN, inf: Infinity, "-inf": -Infinity, "-0.0": -0};
const arg = (a) => (a !== null && typeof a === "object" ? FLOATS[a.float] : a);
const call = (c) => `${c.function}(${c.args.map((a) => JSON.stringify(a)).join(", ")})`;

test("the table names only formatters there are, and covers every ported one", () => {
  const named = new Set(cases.map((c) => c.function));
  for (const name of named) assert.ok(name in FORMATTERS || name in NOT_PORTED, `${name}: neither ported nor listed in NOT_PORTED`);
  for (const name of Object.keys(FORMATTERS)) assert.ok(named.has(name), `${name} has no case in the table`);
  for (const c of cases) {
    assert.ok(Array.isArray(c.args) && (c.raises === true) !== (typeof c.expected === "string"), `malformed case ${JSON.stringify(c)}`);
    for (const a of c.args) if (a !== null && typeof a === "object") assert.ok(a.float in FLOATS, JSON.stringify(a));
  }
});

test("every case of the table: the same text as scripts/pages/formatting.py", () => {
  const wrong = [];
  let checked = 0;
  for (const c of cases.filter((c) => c.function in FORMATTERS)) {
    checked++;
    let got;
    try {
      got = FORMATTERS[c.function](...c.args.map(arg));
    } catch (err) {
      if (!c.raises) wrong.push(`${call(c)} threw ${err.message}, want ${JSON.stringify(c.expected)}`);
      continue;
    }
    if (c.raises) wrong.push(`${call(c)} gave ${JSON.stringify(got)}, want an error (as the Python)`);
    else if (got !== c.expected) wrong.push(`${call(c)} gave ${JSON.stringify(got)}, want ${JSON.stringify(c.expected)}${c.why ? ` (${c.why})` : ""}`);
  }
  assert.deepEqual(wrong, [], `${wrong.length} of ${checked} cases differ:\n${wrong.join("\n")}`);
  assert.ok(checked >= 100, `${checked} cases checked`);
});

test("JavaScript's own rounding is what the port replaces (the cases can tell the difference)", () => {
  assert.equal((1.005).toFixed(2), "1.00");
  assert.equal(fmt_fixed(1.005, 2), "1.01");
  assert.equal((99600).toPrecision(1), "1e+5");
  assert.equal(fmt_sci(99600, 2), "1.0 × 10⁵");
});

test("the port agrees with itself where the rules meet: fixed and scientific at many magnitudes", () => {
  // a number shown with fmt_sci(x, 3) reads back, to three figures, as the number fmt_fixed rounds
  for (const x of [1.2345e-5, 0.0098765, 0.5, 1, 9.995, 12.5, 999.95, 123456.5, 6.02e23]) {
    const sci = fmt_sci(x, 3);
    const m = /^(\d\.\d\d) × 10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)$/.exec(sci);
    assert.ok(m, `${x}: ${sci}`);
    const exp = Number([...m[2]].map((c) => "⁻⁰¹²³⁴⁵⁶⁷⁸⁹".indexOf(c)).map((i) => (i === 0 ? "-" : String(i - 1))).join(""));
    assert.ok(Math.abs(Number(m[1]) * 10 ** exp - x) <= 0.005 * 10 ** exp * (1 + 1e-9), `${x}: ${sci}`);
  }
});
