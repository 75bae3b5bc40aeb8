// _extensions/course/formatting.js as a line-by-line oracle for the Python property test
// (tests/test_formatting_properties.py), which asks it what the page shows for each double it draws;
// tests/formatting_oracle.py is its twin the other way round.
//
// One JSON request a line on stdin, {"function": "fmt_fixed", "args": [{"bits": "3ff0000000000000"}, 2]},
// one JSON answer a line on stdout, {"text": "1.00"} or {"error": "TypeError: ..."}.  A double travels as
// its 64 bits in hex (JSON has no NaN, no infinity, and a decimal round trip is the thing being tested).
import {createInterface} from "node:readline";
import {FORMATTERS} from "../../_extensions/course/formatting.js";

export function double(bits) {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${bits}`));
  return view.getFloat64(0);
}

export function bits(x) {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  return view.getBigUint64(0).toString(16).padStart(16, "0");
}

const arg = (a) => (a !== null && typeof a === "object" ? double(a.bits) : a);

export function answer({function: name, args}) {
  const fn = FORMATTERS[name];
  if (!fn) return {error: `no formatter ${name} in formatting.js`};
  try {
    return {text: fn(...args.map(arg))};
  } catch (err) {
    return {error: `${err.name}: ${err.message}`};
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop())) {
  for await (const line of createInterface({input: process.stdin})) process.stdout.write(`${JSON.stringify(answer(JSON.parse(line)))}\n`);
}
