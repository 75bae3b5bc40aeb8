"""The module's prose claims about its measured numbers, each a named check over the results.

The briefing page states things about the numbers in data/baselines.json ("both neural models
beat the best n-gram", "the RNN's gradient underflows to 0", ...).  Each such statement is a
Claim here.  The build evaluates every claim on each new measurement: at full settings a claim
that no longer holds fails the build, naming it, and nothing is written; at quick settings the
claims are evaluated and reported only (tiny models are not expected to satisfy them).

    python -m scripts.claims [data/baselines.json]     # evaluate the claims on a results file
"""
from __future__ import annotations

import dataclasses
import math
import sys
from typing import Callable

from scripts import lab_source, results
from scripts.constants import LN65
from scripts.formatting import fmt_fixed, fmt_num

# Lab 1's recorded test values (nats per character), which Lab 3 must reproduce to 4 decimals: the
# lab defines them (its checkpoint compares against them too); read here from the lab source
LAB1_TEST_NATS = lab_source.lab_constant("LAB1_TEST_NATS")

# thresholds of the qualitative words in the prose, in one place
LSTM_TRIGRAM_PPL_MARGIN = 1.0       # "the LSTM's test perplexity is at least 1.0 below the trigram's"
RNN_VANISH_FACTOR = 1e-6            # "vanishes": falls by at least six orders of magnitude, or to 0
LSTM_RNN_RATIO_MIN = 100.0          # "orders of magnitude above": at least 100 times
FORGET_GATE_MEAN_MAX = 0.9          # "well below 1"
CLIPPED_FINAL_LOSS_MAX = 3.0        # "far better" than the uniform guess (ln 65 = 4.17)


@dataclasses.dataclass(frozen=True)
class Claim:
    name: str
    statement: str
    check: Callable[[dict], tuple[bool, str]]


def _f(x, nd=4):
    return "null" if x is None else f"{x:.{nd}g}" if isinstance(x, float) else str(x)


# --------------------------------------------------------------------------------------------
def neural_beat_best_ngram(d):
    m = d["models"]
    best, rnn, lstm = (m[k]["test_nats"] for k in ("best_ngram", "rnn", "lstm"))
    return (rnn < best and lstm < best,
            f"test nats: RNN {rnn:.4f}, LSTM {lstm:.4f}, best n-gram {best:.4f}")


def lstm_ppl_below_trigram(d):
    m = d["models"]
    tri, lstm = m["trigram"]["perplexity"], m["lstm"]["perplexity"]
    return (tri - lstm >= LSTM_TRIGRAM_PPL_MARGIN,
            f"perplexity: trigram {tri:.3f}, LSTM {lstm:.3f}, gap {tri - lstm:.3f} "
            f"(needs >= {LSTM_TRIGRAM_PPL_MARGIN})")


def lstm_beats_rnn(d):
    m = d["models"]
    rnn, lstm = m["rnn"]["perplexity"], m["lstm"]["perplexity"]
    return lstm < rnn, f"perplexity: RNN {rnn:.3f}, LSTM {lstm:.3f}"


def units_consistent(d):
    bad = []
    for k, row in d["models"].items():
        nats = row["test_nats"]
        if not math.isclose(row["perplexity"], math.exp(nats), rel_tol=1e-6):
            bad.append(f"{k}: perplexity {row['perplexity']} != exp({nats})")
        if not math.isclose(row["bpc"], nats / math.log(2), rel_tol=1e-6):
            bad.append(f"{k}: bpc {row['bpc']} != {nats}/ln 2")
    return not bad, "; ".join(bad) or "perplexity = exp(nats) and bpc = nats / ln 2 on every row"


def ngram_rows_match_lab1(d):
    m = d["models"]
    bad = [f"{k} {m[k]['test_nats']:.4f} != {v:.4f}" for k, v in LAB1_TEST_NATS.items()
           if round(m[k]["test_nats"], 4) != v]
    got = ", ".join(f"{k} {m[k]['test_nats']:.4f}" for k in LAB1_TEST_NATS)
    return not bad, ("differs from Lab 1: " + "; ".join(bad)) if bad else f"as Lab 1 recorded: {got}"


def rnn_spectral_norm_above_1(d):
    s = d["gradient_by_distance"]["rnn_spectral_norm_W"]
    return s > 1, f"||W|| = {s:.3f}"


def rnn_gradient_vanishes(d):
    g = d["gradient_by_distance"]
    norms = g["rnn_grad_norm"]
    g0 = norms[0] if norms else 0.0
    tail = min(norms) if norms else 0.0
    ratio = tail / g0 if g0 > 0 else float("nan")
    holds = g0 > 0 and (tail == 0.0 or ratio <= RNN_VANISH_FACTOR)
    return holds, (f"RNN gradient norm: {_f(g0)} at distance 0, smallest {_f(tail)} "
                   f"(ratio {_f(ratio)}; needs <= {RNN_VANISH_FACTOR:g} or exactly 0)")


def rnn_gradient_underflows(d):
    g = d["gradient_by_distance"]
    z = g["rnn_first_zero_distance"]
    norms = g["rnn_grad_norm"]
    consistent = z is None or (z < len(norms) and norms[z] == 0.0 and all(n > 0 for n in norms[:z]))
    return (z is not None and consistent,
            f"first distance with an exactly-zero RNN gradient: {_f(z)} of {len(norms)} measured"
            + ("" if consistent else " (inconsistent with rnn_grad_norm)"))


def lstm_gradient_far_above_rnn_at_50(d):
    g = d["gradient_by_distance"]
    dist = g["distance"]
    if 50 not in dist:
        return False, "distance 50 was not measured"
    i = dist.index(50)
    rnn, lstm = g["rnn_grad_norm"][i], g["lstm_grad_norm"][i]
    if rnn == 0:
        return lstm > 0, f"at distance 50: LSTM {_f(lstm)}, RNN exactly 0 (ratio unbounded)"
    ratio = lstm / rnn
    recorded = g["lstm_rnn_ratio_at_50"]
    consistent = recorded is not None and math.isclose(recorded, ratio, rel_tol=1e-3)
    return (ratio >= LSTM_RNN_RATIO_MIN and consistent,
            f"at distance 50: LSTM {_f(lstm)}, RNN {_f(rnn)}, ratio {ratio:.3g} (needs >= "
            f"{LSTM_RNN_RATIO_MIN:g})" + ("" if consistent else f"; recorded ratio {_f(recorded)} disagrees"))


def forget_gates_well_below_1(d):
    fg = d["gradient_by_distance"]["forget_gate"]
    return (fg["mean"] < FORGET_GATE_MEAN_MAX,
            f"forget gate mean {fg['mean']:.3f} (needs < {FORGET_GATE_MEAN_MAX}); share > 0.9: "
            f"{fg['share_above_0.9']:.3f}, > 0.99: {fg['share_above_0.99']:.3f}")


def unclipped_worse_than_uniform(d):
    final = d["clipping_demo"]["unclipped"]["final_loss"]
    if final is None:
        return True, "unclipped SGD run ended with a non-finite loss (diverged)"
    return final > LN65, f"unclipped final training loss {final:.3f} nats, uniform guess ln 65 = {LN65:.3f}"


def clipped_far_better(d):
    final = d["clipping_demo"]["clipped"]["final_loss"]
    if final is None:
        return False, "clipped SGD run ended with a non-finite loss"
    return (final < CLIPPED_FINAL_LOSS_MAX,
            f"clipped final training loss {final:.3f} nats (needs < {CLIPPED_FINAL_LOSS_MAX}; "
            f"ln 65 = {LN65:.3f})")


CLAIMS: tuple[Claim, ...] = (
    Claim("ngram_rows_match_lab1",
          "The uniform, bigram, trigram and best n-gram rows reproduce Lab 1's recorded test values "
          f"to four decimals ({', '.join(fmt_fixed(v, 4) for v in LAB1_TEST_NATS.values())}).",
          ngram_rows_match_lab1),
    Claim("units_consistent",
          "Perplexity and bits per character are the same measurement as test nats: "
          "PPL = exp(L), BPC = L / ln 2.", units_consistent),
    Claim("neural_models_beat_best_ngram",
          "Both neural models beat Lab 1's best character n-gram on test nats per character.",
          neural_beat_best_ngram),
    Claim("lstm_ppl_at_least_1_below_trigram",
          f"The LSTM's test perplexity is at least {fmt_num(LSTM_TRIGRAM_PPL_MARGIN)} below the character trigram's.",
          lstm_ppl_below_trigram),
    Claim("lstm_beats_rnn",
          "The LSTM's test perplexity is below the RNN's (at unequal compute).", lstm_beats_rnn),
    Claim("rnn_spectral_norm_above_1",
          "The trained RNN's recurrent matrix has spectral norm above 1, so Equation 8 allows growth.",
          rnn_spectral_norm_above_1),
    Claim("rnn_gradient_vanishes",
          "Yet the RNN's gradient vanishes with distance: it falls by at least six orders of magnitude "
          "within the 200-character chunk, or to exactly 0.", rnn_gradient_vanishes),
    Claim("rnn_gradient_underflows_to_zero",
          "The RNN's gradient underflows to exactly 0 in float32 within the chunk.",
          rnn_gradient_underflows),
    Claim("lstm_gradient_orders_above_rnn_at_50",
          f"50 characters back, the LSTM's gradient is orders of magnitude (at least {LSTM_RNN_RATIO_MIN:.0f} times) "
          "above the RNN's.", lstm_gradient_far_above_rnn_at_50),
    Claim("forget_gates_well_below_1",
          f"The trained LSTM's forget gates average well below 1 (below {fmt_num(FORGET_GATE_MEAN_MAX)}).",
          forget_gates_well_below_1),
    Claim("unclipped_sgd_worse_than_uniform",
          "Without clipping, the SGD run ends at a training loss worse than the uniform guess, ln 65.",
          unclipped_worse_than_uniform),
    Claim("clipped_sgd_far_better",
          f"With clipping, the same SGD run ends far better than the uniform guess "
          f"(below {fmt_num(CLIPPED_FINAL_LOSS_MAX)} nats).",
          clipped_far_better),
)


def evaluate(data: dict) -> list[dict]:
    """Evaluate every claim on a results dict: [{name, statement, holds, detail}] in CLAIMS order.

    A check that cannot even be computed (missing or null number) counts as not holding.
    """
    out = []
    for c in CLAIMS:
        try:
            holds, detail = c.check(data)
        except Exception as e:  # noqa: BLE001 - a broken measurement is a failed claim, named
            holds, detail = False, f"could not be evaluated: {type(e).__name__}: {e}"
        out.append({"name": c.name, "statement": c.statement, "holds": bool(holds), "detail": detail})
    return out


def failed(evaluated: list[dict]) -> list[dict]:
    return [r for r in evaluated if not r["holds"]]


def report(evaluated: list[dict]) -> str:
    lines = []
    for r in evaluated:
        lines.append(f"  [{'ok' if r['holds'] else 'FAIL'}] {r['name']}: {r['detail']}")
    return "\n".join(lines)


if __name__ == "__main__":
    res = evaluate(results.load_results(sys.argv[1] if len(sys.argv) > 1 else None))
    print(report(res))
    sys.exit(1 if failed(res) else 0)
