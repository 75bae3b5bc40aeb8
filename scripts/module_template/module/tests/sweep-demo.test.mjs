// The module's own demo module (../sweep-demo.js) against its own data (data/{{ID}}/results.json) and
// bad input.  `make test` finds it by the module's folder (modules/*/tests/).
import {test} from "node:test";
import assert from "node:assert/strict";
import {readFileSync} from "node:fs";
import {sweepRows, sweepSummary} from "../sweep-demo.js";

const results = JSON.parse(readFileSync(new URL("../../../data/{{ID}}/results.json", import.meta.url), "utf8"));

test("the demo's rows are the measured sweep, and its description names the first and last point", () => {
  const s = results.temperature_sweep;
  const rows = sweepRows(s);
  assert.deepEqual(rows.map((r) => [r.tau, r.entropy]), s.tau.map((t, i) => [t, s.entropy[i]]));
  assert.match(sweepSummary(rows), /^The measured entropy goes from \d\.\d{3} nats at τ = \S+ to \d\.\d{3} nats at τ = \S+\.$/);
});

test("a file that is not a sweep gets a clear error", () => {
  assert.throws(() => sweepRows(undefined), /temperature_sweep is missing/);
  assert.throws(() => sweepRows({tau: [1, 2], entropy: [0.1]}), /has 2 temperatures for 1 entropies/);
  assert.throws(() => sweepRows({tau: [1], entropy: [NaN]}), /not a number/);
});
