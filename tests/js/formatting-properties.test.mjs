// Every double, both formatters, drawn by fast-check: _extensions/course/formatting.js gives the text that
// scripts/pages/formatting.py gives (asked through tests/formatting_oracle.py, one Python process for the
// file) for zeros of both signs, subnormals, 1e-300, 1e16 and beyond, the largest double, infinities and
// NaNs, and neither raises.  tests/test_formatting_properties.py is the same property drawn by hypothesis.
import {test, after} from "node:test";
import assert from "node:assert/strict";
import {spawn} from "node:child_process";
import {createInterface} from "node:readline";
import fc from "fast-check";
import {ROOT} from "./course.mjs";
import {FORMATTERS, NOT_A_NUMBER} from "../../_extensions/course/formatting.js";
import {bits} from "./formatting-oracle.mjs";

const python = spawn(process.env.PYTHON ?? "python3", ["-m", "tests.formatting_oracle"], {cwd: ROOT, stdio: ["pipe", "pipe", "inherit"]});
const answers = createInterface({input: python.stdout})[Symbol.asyncIterator]();
after(() => python.stdin.end());


// every double (fast-check's double() includes -0, the subnormals, the extremes, infinities and NaN),
// and decimals a reader types that sit on a rounding tie (0.125, 2.675)
const DOUBLE = fc.oneof(
  fc.double(),
  fc.tuple(fc.integer({min: -1e9, max: 1e9}), fc.integer({min: 0, max: 8})).map(([n, k]) => n / 10 ** k),
  fc.integer({min: -323, max: 308}).map((e) => Number(`1e${e}`)),
  fc.constantFrom(1e16, 9999999999999998, 2 ** 53, 2 ** 53 + 2, 1e308, 5e-324, 2.2250738585072014e-308),
);
// the other arguments travel as plain JSON (whole numbers, booleans), the doubles as bits
const PLACES = fc.integer({min: 0, max: 6}).map((n) => ({int: n}));
const DIGITS = fc.integer({min: 1, max: 4}).map((n) => ({int: n}));
const CALLS = {
  fmt_fixed: fc.tuple(DOUBLE, PLACES),
  fmt_ppl: fc.tuple(DOUBLE),
  fmt_int: fc.tuple(DOUBLE),
  fmt_short: fc.tuple(DOUBLE),
  fmt_percent: fc.tuple(DOUBLE),
  fmt_sci: fc.tuple(DOUBLE, DIGITS, fc.boolean().map((b) => ({bool: b}))),
  fmt_factor: fc.tuple(DOUBLE),
  fmt_ratio_times: fc.tuple(DOUBLE),
};
const plainArg = (a) => (a !== null && typeof a === "object" ? (a.int ?? a.bool) : a);
const wireArg = (a) => (a !== null && typeof a === "object" ? (a.int ?? a.bool) : {bits: bits(a)});

test("the property covers every ported formatter", () => {
  assert.deepEqual(Object.keys(CALLS).sort(), Object.keys(FORMATTERS).sort());
});

for (const [name, args] of Object.entries(CALLS)) {
  test(`${name}: the same text as the Python for every double`, async () => {
    await fc.assert(fc.asyncProperty(args, async (drawn) => {
      const js = FORMATTERS[name](...drawn.map(plainArg));             // total: throwing here fails the property
      python.stdin.write(`${JSON.stringify({function: name, args: drawn.map(wireArg)})}\n`);
      const {value, done} = await answers.next();
      assert.ok(!done, "tests/formatting_oracle.py ended");
      assert.deepEqual(JSON.parse(value), {text: js}, `${name}(${drawn.map((a) => (typeof a === "number" ? `${a} [${bits(a)}]` : JSON.stringify(a))).join(", ")})`);
    }), {numRuns: 400});
  });
}

test("no formatter shows JavaScript's NaN, Infinity, undefined or null; a NaN is 'not a number'", () => {
  fc.assert(fc.property(DOUBLE, (x) => {
    for (const [name, fn] of Object.entries(FORMATTERS)) {
      const text = name === "fmt_fixed" || name === "fmt_sci" ? fn(x, 2) : fn(x);
      assert.ok(!/\b(NaN|Infinity|undefined|null|nan|inf)\b/.test(text), `${name}(${x}) = ${text}`);
      if (Number.isNaN(x)) assert.equal(text, NOT_A_NUMBER);
    }
  }), {numRuns: 300});
});
