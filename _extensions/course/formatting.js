// formatting.js: scripts/pages/formatting.py for the browser, so that a number a demo shows reads as the
// same number on the page, in the figures and in the deck.  The same rules, the same names:
//
//   rounding half away from zero on the number as it prints (String(x) in JavaScript, repr(x) in
//   Python: the shortest decimal that reads back as the same float), so 0.125 shows as 0.13 and
//   2.675 as 2.68; a carry moves into the next power of ten (9.96e4 at two figures is
//   "1.0 × 10⁵", never "10 × 10⁴") or the next percentage format (0.0996 is "10%", never "10.0%");
//   every formatter is total over the doubles and gives the Python's text for each (property tests on
//   both sides: tests/test_formatting_properties.py, tests/js/formatting-properties.test.mjs): a zero
//   of either sign is 0 in the formatter's style, infinities are ∞ and -∞, a NaN or a missing number
//   (null or undefined) is "not a number", alone; from 1e16 up fixed, perplexity and count formats
//   show three significant figures.
//
// One table of cases, tests/fixtures/formatting-cases.json, is checked against both
// (tests/test_formatting.py and tests/js/formatting.test.mjs).  fmt_num is not ported: JavaScript
// has no int and float to tell apart (2 against 2.0).  No DOM, no dependencies; the demo modules
// import it as ../../_extensions/course/formatting.js (the site copies it: _quarto.yml resources).

const SUPERSCRIPT = {"-": "⁻", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸", 9: "⁹"};
export const NOT_A_NUMBER = "not a number";
export const MISSING = NOT_A_NUMBER;     // null in the data: what the lab writes for a value that was not finite
const SCIENTIFIC_FROM = 1e16;           // from here up a fixed, perplexity or count format shows three figures

/** The text of a missing or non-finite x, or null when x is a finite number; a non-number is an error. */
function notFinite(x, name) {
  if (x === null || x === undefined) return MISSING;
  if (typeof x !== "number") throw new TypeError(`${name}: not a number: ${x}`);
  if (Number.isNaN(x)) return NOT_A_NUMBER;
  if (!Number.isFinite(x)) return x > 0 ? "∞" : "-∞";
  return null;
}
const TEN = 10n;
const pow10 = (n) => TEN ** BigInt(n);
const digitCount = (n) => (n === 0n ? 1 : n.toString().length);

// A decimal: (-1)^neg × coef × 10^exp, coef a BigInt >= 0 (Python's Decimal, as far as needed here).

/** x exactly as it prints: the decimal a reader would call x (Python's Decimal(repr(x))); a zero has no sign. */
function decimal(x) {
  if (typeof x !== "number") throw new TypeError(`not a number: ${x}`);
  if (!Number.isFinite(x)) throw new RangeError(`not a finite number: ${x}`);
  if (x === 0) return {neg: false, coef: 0n, exp: 0};
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(Math.abs(x)));
  const frac = m[2] ?? "";
  return {neg: x < 0 || Object.is(x, -0), coef: BigInt(m[1] + frac), exp: Number(m[3] ?? 0) - frac.length};
}

/** The exponent of d's leading digit (Decimal.adjusted()). */
const adjusted = (d) => digitCount(d.coef) - 1 + d.exp;
const scaleb = (d, n) => ({...d, exp: d.exp + n});

/** d rounded half away from zero to `places` decimals (quantize with ROUND_HALF_UP). */
function round(d, places) {
  const shift = -places - d.exp;
  if (shift <= 0) return {neg: d.neg, coef: d.coef * pow10(-shift), exp: -places};
  const unit = pow10(shift);
  let q = d.coef / unit;
  if (2n * (d.coef % unit) >= unit) q += 1n;
  return {neg: d.neg, coef: q, exp: -places};
}

/** d in plain digits, as Python's format(d, "f") (or ",f" with `group`): a negative zero keeps its sign. */
function plain(d, group = false) {
  let s = d.coef.toString();
  let int, frac = "";
  if (d.exp >= 0) int = d.coef === 0n ? "0" : s + "0".repeat(d.exp);
  else {
    s = s.padStart(-d.exp + 1, "0");
    int = s.slice(0, d.exp);
    frac = s.slice(d.exp);
  }
  if (group) int = int.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return (d.neg ? "-" : "") + int + (frac ? `.${frac}` : "");
}

/** d without trailing zeros (Decimal.normalize()). */
function normalize(d) {
  let {coef, exp} = d;
  if (coef === 0n) return {...d, exp: 0};
  while (coef % TEN === 0n) { coef /= TEN; exp += 1; }
  return {...d, coef, exp};
}

/** [mantissa, exponent], x ≈ mantissa × 10^exponent, 1 <= |mantissa| < 10 after rounding to `digits` figures. */
function significant(x, digits) {
  const d = decimal(x);
  let exp = adjusted(d);
  let mant = round(scaleb(d, -exp), digits - 1);
  if (mant.coef >= pow10(digits)) {           // the carry: 9.96 -> 10.0 is 1.0 one power up
    exp += 1;
    mant = round(scaleb(d, -exp), digits - 1);
  }
  return [mant, exp];
}

const superscript = (n) => String(n).replace(/./g, (c) => SUPERSCRIPT[c]);

/** Fixed decimals, e.g. 4.1744 (nats), 12.09 (perplexity). */
export function fmt_fixed(x, places) {
  const text = notFinite(x, "fmt_fixed");
  if (text !== null) return text;
  if (Math.abs(x) >= SCIENTIFIC_FROM) return fmt_sci(x, 3);
  return plain(round(decimal(x), places));
}

/** Perplexity with 2 decimals, or a whole number when it is one (uniform: 65); thousands separated. */
export function fmt_ppl(x) {
  const text = notFinite(x, "fmt_ppl");
  if (text !== null) return text;
  if (Math.abs(x) >= SCIENTIFIC_FROM) return fmt_sci(x, 3);
  const whole = Math.round(x);
  if (Math.abs(x - whole) < 1e-6) return group(BigInt(whole));
  return plain(round(decimal(x), 2), true);
}

/** A whole number's digits, thousands separated, its sign before them ("-0" has none: BigInt has no -0). */
const group = (n) => n.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");

/**
 * Thousands separated: 103,041; null (missing) is an en dash, a count that was not taken.  A number
 * that is not whole is rounded half away from zero (Python's int and float are one number in JSON).
 */
export function fmt_int(n) {
  if (n === null || n === undefined) return "–";
  const text = notFinite(n, "fmt_int");
  if (text !== null) return text;
  if (Math.abs(n) >= SCIENTIFIC_FROM) return fmt_sci(n, 3);
  return group(round(decimal(n), 0).coef * (n < 0 ? -1n : 1n));
}

/**
 * As short as it is exact, for settings and inputs (κ, a learning rate, a temperature): 1 rather than
 * 1.0, 0.5 as 0.5.  Python's format(x, "g"): six significant figures of the float's exact value,
 * half to even, trailing zeros dropped, scientific below 1e-4 and from 1e6 (1e-05, 1.5e+07).
 */
export function fmt_short(x) {
  const text = notFinite(x, "fmt_short");
  if (text !== null) return text;
  if (x === 0) return "0";
  const sign = x < 0 ? "-" : "";
  let {coef, exp} = exactBinary(Math.abs(x));
  const p = 6;
  const extra = digitCount(coef) - p;
  if (extra > 0) {                              // round half to even at six figures
    const unit = pow10(extra);
    const r = coef % unit;
    coef /= unit;
    exp += extra;
    if (2n * r > unit || (2n * r === unit && coef % 2n === 1n)) coef += 1n;
  }
  const X = digitCount(coef) - 1 + exp;          // the exponent after rounding
  const digits = coef.toString().replace(/0+$/, "") || "0";
  if (X >= -4 && X < p) {
    const d = normalize({neg: false, coef, exp});
    return sign + plain(d);
  }
  const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${mant}e${X < 0 ? "-" : "+"}${String(Math.abs(X)).padStart(2, "0")}`;
}

/** The exact value of a positive finite double as coef × 10^exp (every binary fraction is a finite decimal). */
function exactBinary(x) {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  let e2;
  if (biased === 0) e2 = -1074;                    // subnormal
  else { mant |= 1n << 52n; e2 = biased - 1075; }
  if (e2 >= 0) return {coef: mant << BigInt(e2), exp: 0};
  return {coef: mant * 5n ** BigInt(-e2), exp: e2};   // m / 2^k = m · 5^k / 10^k
}

/**
 * A share in [0, 1] as a percentage: whole percents from 10% up or when exact, else one decimal.
 * 0.3 -> 30%, 0.053 -> 5.3%, 0.05 -> 5%, 0.0996 -> 10%, 0.9995 -> 100%.
 */
export function fmt_percent(share) {
  const text = notFinite(share, "fmt_percent");
  if (text !== null) return text;
  const pct = scaleb(decimal(share), 2);
  const oneDecimal = round(pct, 1);
  if (oneDecimal.coef >= 100n || oneDecimal.coef % TEN === 0n) return `${plain(round(pct, 0))}%`;
  return `${plain(oneDecimal)}%`;
}

/**
 * `digits` significant figures times a power of ten: 5 × 10⁴, 1.1 × 10⁵ (digits = 2), or TeX
 * 5 \times 10^{4} (tex = true).  A mantissa of exactly 1 is left out at one figure (10⁵, not 1 × 10⁵).
 * Zero has no power of ten: 0; a negative number is its magnitude's text after a minus sign.
 */
export function fmt_sci(x, digits = 1, tex = false) {
  const text = notFinite(x, "fmt_sci");
  if (text !== null) return text;
  if (x === 0) return "0";
  if (x < 0) return `-${fmt_sci(-x, digits, tex)}`;
  const [mant, exp] = significant(x, digits);
  const m = plain(mant);
  if (tex) {
    const power = `10^{${exp}}`;
    return m === "1" ? power : `${m} \\times ${power}`;
  }
  const power = `10${superscript(exp)}`;
  return m === "1" ? power : `${m} × ${power}`;
}

/**
 * A ratio or a positive size in a label: three significant figures in plain digits from 0.01 to 999,
 * beyond that two in scientific notation (1.1 × 10⁵).  Zero is 0; a negative number keeps its sign.
 */
export function fmt_factor(x) {
  const text = notFinite(x, "fmt_factor");
  if (text !== null) return text;
  if (x === 0) return "0";
  if (x < 0) return `-${fmt_factor(-x)}`;
  if (0.01 <= x) {
    const [mant, exp] = significant(x, 3);
    if (exp < 3) return plain(normalize(scaleb(mant, exp)));
  }
  return fmt_sci(x, 2);
}

/** A ratio of budgets: 2.0 -> "twice", 3.4 -> "3.4 times". */
export function fmt_ratio_times(x) {
  const text = notFinite(x, "fmt_ratio_times");
  if (text !== null) return text;
  if (Math.abs(x - 2) < 1e-9) return "twice";
  return `${fmt_fixed(x, 1)} times`;
}

/** The ported formatters by their Python names (what the shared table of cases names). */
export const FORMATTERS = {fmt_fixed, fmt_ppl, fmt_int, fmt_short, fmt_percent, fmt_sci, fmt_factor, fmt_ratio_times};
