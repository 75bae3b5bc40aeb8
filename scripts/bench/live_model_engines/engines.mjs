#!/usr/bin/env node
// The live model's engine, by measurement (issue 44; data/live-model.md): the LSTM step's two products
// (1024 x 64 and 1024 x 256, the lab's model) in JavaScript, the ways live-model.js could write them, and in
// WebAssembly (matvec.wat beside this file, f32x4 SIMD, compiled with wabt's wat2wasm: apt-get install wabt).
// Median of 5 runs of 3,000 steps, each variant in the same process.  A benchmark that prints, not a test.
//
//   node scripts/bench/live_model_engines/engines.mjs
import {execFileSync} from "node:child_process";
import {mkdtempSync, readFileSync} from "node:fs";
import {tmpdir} from "node:os";
import {join} from "node:path";

const rows = 1024, c1 = 64, c2 = 256, N = 3000;
const rnd = (n) => Float32Array.from({length: n}, () => Math.random() - 0.5);
const A = rnd(rows * c1), B = rnd(rows * c2), x1 = rnd(c1), x2 = rnd(c2);
const x1d = Float64Array.from(x1), x2d = Float64Array.from(x2), out = new Float64Array(rows);
function one(o, M, cols, x) { for (let r = 0; r < o.length; r++) { let s = 0; const b = r * cols; for (let j = 0; j < cols; j++) s += M[b + j] * x[j]; o[r] += s; } }
function four(o, M, cols, x) {
  for (let r = 0; r < o.length; r++) {
    let s0 = 0, s1 = 0, s2 = 0, s3 = 0, b = r * cols;
    for (let j = 0; j < cols; j += 4, b += 4) { s0 += M[b] * x[j]; s1 += M[b + 1] * x[j + 1]; s2 += M[b + 2] * x[j + 2]; s3 += M[b + 3] * x[j + 3]; }
    o[r] += (s0 + s1) + (s2 + s3);
  }
}
const wasmFile = join(mkdtempSync(join(tmpdir(), "engines-")), "matvec.wasm");
execFileSync("wat2wasm", [new URL("./matvec.wat", import.meta.url).pathname, "-o", wasmFile]);
const t0 = performance.now();
const {instance} = await WebAssembly.instantiate(readFileSync(wasmFile));
const mem = new Float32Array(instance.exports.memory.buffer);
const oB = A.length, ox1 = oB + B.length, ox2 = ox1 + c1, oOut = ox2 + c2;
mem.set(A, 0); mem.set(B, oB); mem.set(x1, ox1); mem.set(x2, ox2);
const wasmStartMs = performance.now() - t0;
const variants = {
  "js, one sum per row": () => { out.fill(0); one(out, A, c1, x1d); one(out, B, c2, x2d); },
  "js, four sums per row": () => { out.fill(0); four(out, A, c1, x1d); four(out, B, c2, x2d); },
  "js, four sums, input part from a table": () => { out.fill(0); four(out, B, c2, x2d); },
  "wasm simd": () => { mem.fill(0, oOut, oOut + rows); instance.exports.matvec(0, ox1 * 4, oOut * 4, rows, c1); instance.exports.matvec(oB * 4, ox2 * 4, oOut * 4, rows, c2); },
};
const time = (f) => { const t = performance.now(); for (let i = 0; i < N; i++) f(); return (performance.now() - t) / N; };
for (const f of Object.values(variants)) time(f);
const runs = {};
for (let k = 0; k < 5; k++) for (const [n, f] of Object.entries(variants)) (runs[n] ??= []).push(time(f));
const ms = Object.fromEntries(Object.entries(runs).map(([n, a]) => [n, +a.sort((p, q) => p - q)[2].toFixed(4)]));
console.log(JSON.stringify({ms_per_step: ms, wasm_bytes: readFileSync(wasmFile).length, wasm_start_ms: +wasmStartMs.toFixed(1),
  load: readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}, null, 1));
