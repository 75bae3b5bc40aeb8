// sweep-demo.js: the computation behind the after-the-lab demo, the measured entropy against the
// temperature (data/{{ID}}/results.json, `temperature_sweep`).  No DOM, no import but the course's
// number formatter (modules/{{ID}}/tests/sweep-demo.test.mjs).
import {fmt_fixed, fmt_short} from "../../_extensions/course/formatting.js";

/** The sweep as rows for Plot, {tau, entropy}; a clear error when the data is not a sweep. */
export function sweepRows(sweep) {
  const fail = (why) => { throw new Error(`data/{{ID}}/results.json: temperature_sweep ${why}`); };
  if (!sweep || !Array.isArray(sweep.tau) || !Array.isArray(sweep.entropy)) fail("is missing (needs tau and entropy)");
  if (sweep.tau.length !== sweep.entropy.length || sweep.tau.length === 0) fail(`has ${sweep.tau.length} temperatures for ${sweep.entropy.length} entropies`);
  if (!sweep.entropy.every(Number.isFinite)) fail("has an entropy that is not a number");
  return sweep.tau.map((tau, i) => ({tau, entropy: sweep.entropy[i]}));
}

/** The chart's description for screen readers: the first and the last measured point. */
export function sweepSummary(rows) {
  const [a, b] = [rows[0], rows.at(-1)];
  return `The measured entropy goes from ${fmt_fixed(a.entropy, 3)} nats at τ = ${fmt_short(a.tau)} to ` +
    `${fmt_fixed(b.entropy, 3)} nats at τ = ${fmt_short(b.tau)}.`;
}
