// Unit tests of section 5's forget-gate demo module: the section's constants (σ(1) and the gate
// that keeps half over 50 steps), the share above f^k > θ from a histogram against counts done
// by hand, the fixture's recorded shares, and bad input.
import {test} from "node:test";
import assert from "node:assert/strict";
import {module} from "./course.mjs";

const m = module("03-sequence-models");
const {
  F_INIT, F_HALF_AT_50, gateCut, constantCarries, checkHistogram, shareAbove, measuredShare,
  shareRows, SERIES, percent, forgetReadout, forgetSummary,
} = await import(m.demoUrl("forget-gate-demo"));

const near = (a, b, tol = 1e-12) => Math.abs(a - b) <= tol;
const gates = m.fixtureData().gradient_by_distance.forget_gate;

test("the section's constants: σ(1) ≈ 0.73 and 0.5^(1/50) ≈ 0.986; 0.73^50 ≈ 1.5e-7", () => {
  assert.equal(F_INIT.toFixed(2), "0.73");
  assert.ok(near(F_INIT, Math.exp(1) / (1 + Math.exp(1))));
  assert.equal(F_HALF_AT_50.toFixed(3), "0.986");
  assert.ok(near(F_HALF_AT_50 ** 50, 0.5));
  assert.equal((0.73 ** 50).toExponential(1), "1.5e-7");
  // at k = 50 and θ = 0.5 the half-life gate sits exactly on the threshold: f^k > θ is not more than θ
  assert.equal(constantCarries(F_HALF_AT_50, 49, 0.5), true);
  assert.equal(constantCarries(F_HALF_AT_50, 50, 0.5), false);
  assert.equal(constantCarries(F_INIT, 2, 0.5), true);   // 0.73² = 0.53
  assert.equal(constantCarries(F_INIT, 3, 0.5), false);  // 0.73³ = 0.39
});

test("f^k > θ exactly when f > θ^(1/k)", () => {
  for (const theta of [0.01, 0.1, 0.5, 0.9]) {
    for (const k of [1, 2, 10, 50, 200]) {
      const cut = gateCut(theta, k);
      assert.ok(near(cut ** k, theta, 1e-12));
      assert.ok((cut + 1e-9) ** k > theta && !((cut - 1e-9) ** k > theta));
    }
  }
  assert.equal(gateCut(0.5, 1), 0.5);
});

test("share above a value: whole bins, and a split bin in proportion", () => {
  const h = {edges: [0, 0.5, 0.9, 0.99, 1], counts: [10, 20, 30, 40]}; // 100 values
  assert.equal(shareAbove(h, 0), 1);
  assert.equal(shareAbove(h, 1), 0);
  assert.equal(shareAbove(h, 0.9), 0.7);       // an edge: the last two bins
  assert.equal(shareAbove(h, 0.99), 0.4);
  assert.ok(near(shareAbove(h, 0.995), 0.2));  // half of the last bin
  assert.ok(near(shareAbove(h, 0.7), (20 * 0.2 / 0.4 + 70) / 100));
  // k = 1: the share of gates with f > θ; θ^(1/k) rises towards 1 as k grows, so the share falls
  assert.equal(measuredShare(h, 1, 0.9), 0.7);
  const shares = [1, 2, 5, 20, 100, 1000].map((k) => measuredShare(h, k, 0.5));
  shares.slice(1).forEach((s, i) => assert.ok(s <= shares[i]));
});

test("the fixture's histogram reproduces its recorded shares above 0.9 and 0.99", () => {
  const h = checkHistogram(gates.histogram);
  const total = h.counts.reduce((a, b) => a + b, 0);
  // independent count: bins whose lower edge is at least the threshold (both are bin edges)
  const byHand = (x) => h.counts.filter((_, i) => h.edges[i] >= x - 1e-12).reduce((a, b) => a + b, 0) / total;
  assert.ok(near(shareAbove(h, 0.9), byHand(0.9), 1e-9));
  assert.ok(Math.abs(shareAbove(h, 0.9) - gates["share_above_0.9"]) < 1e-3);
  assert.ok(Math.abs(shareAbove(h, 0.99) - gates["share_above_0.99"]) < 1e-3);
  // bins above 0.99 are at most 0.001 wide, so the mass near 1 is resolved
  h.edges.forEach((e, i) => { if (i > 0 && h.edges[i - 1] >= 0.99 - 1e-12) assert.ok(e - h.edges[i - 1] <= 0.001 + 1e-12); });
});

test("rows: one per k and series; constant gates are all-or-nothing", () => {
  const h = gates.histogram;
  const rows = shareRows(h, 0.5, 100);
  assert.equal(rows.length, 300);
  const series = (name) => rows.filter((r) => r.series === name);
  // 0.73^k > 0.5 for k ≤ 2 only; 0.986^k > 0.5 for k < 50
  assert.deepEqual(series(SERIES.init).filter((r) => r.share === 1).map((r) => r.k), [1, 2]);
  assert.deepEqual(series(SERIES.half50).filter((r) => r.share === 1).map((r) => r.k), [...Array(49)].map((_, i) => i + 1));
  const measured = series(SERIES.measured);
  assert.ok(measured.every((r) => r.share >= 0 && r.share <= 1));
  assert.ok(near(measured[0].share, shareAbove(h, 0.5)));
  assert.match(SERIES.init, /0\.73/);
  assert.match(SERIES.half50, /0\.986/);
});

test("bad histograms give clear errors", () => {
  assert.throws(() => checkHistogram(undefined), /forget_gate\.histogram is missing/);
  assert.throws(() => checkHistogram({edges: [0, 0.5, 1], counts: [1]}), /has 1 counts for 3 edges/);
  assert.throws(() => checkHistogram({edges: [0, 0.5, 0.5], counts: [1, 1]}), /not ascending at 2/);
  assert.throws(() => checkHistogram({edges: [0, 1], counts: [-1]}), /negative or non-finite/);
  assert.throws(() => checkHistogram({edges: [0, 1], counts: [0]}), /is empty/);
});

test("percent (as the page writes the measured shares) and the readout", () => {
  assert.deepEqual([0, 1, 0.123456, 0.053, 0.0004].map(percent), ["0%", "100%", "12%", "5.3%", "0%"]);
  const h = {edges: [0, 0.5, 0.9, 0.99, 1], counts: [10, 20, 30, 40]};
  assert.equal(forgetReadout(h, 1, 0.9),
    "Over 1 step, a gate carries more than θ = 0.9 only if f > θ^(1/1) = 0.9000. Measured: 70% of the trained LSTM's gate values. " +
    "Constant gates: f = 0.731 carries f^1 = 0.731 (not above θ); f = 0.986 carries f^1 = 0.986 (above θ).");
  // 0.731^50 = e^(50 ln 0.731) ≈ 1.58e-7: two figures times a power of ten
  assert.match(forgetReadout(h, 50, 0.5), /^Over 50 steps, .* f > θ\^\(1\/50\) = 0\.9862\. .*f = 0\.731 carries f\^50 = 1\.6 × 10⁻⁷ \(not above θ\)/);
  assert.match(forgetReadout(h, 1, 0.30000000000000004), /more than θ = 0\.3 only/, "a slider's step arithmetic does not show");
});

test("the chart's description: the measured share at a few distances up to kMax", () => {
  const h = {edges: [0, 0.5, 0.9, 0.99, 1], counts: [10, 20, 30, 40]};
  assert.equal(forgetSummary(h, 0.9, 10), "Share of the measured gate values with f^k > 0.9: 70% at k = 1, " +
    `${percent(shareAbove(h, 0.9 ** 0.1))} at k = 10.`);
  assert.match(forgetSummary(h, 0.5, 200), /at k = 1, .* at k = 10, .* at k = 50, .* at k = 100, .* at k = 200\.$/);
});
