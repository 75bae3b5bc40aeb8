"""The module's prose claims about its measured numbers, each a named check over the results.

The briefing page states things about the numbers in data/<id>/results.json ("both neural models
beat the best n-gram", "the RNN's gradient underflows to 0", ...).  Each such statement is a
Claim here.  The build evaluates every claim on each new measurement: at full settings a claim
that no longer holds fails the build, naming it, and nothing is written; at quick settings the
claims are evaluated and reported only (tiny models are not expected to satisfy them).

    python -m scripts.measure.claims --module 03-sequence-models [RESULTS.json]   # evaluate them on a results file
"""
from __future__ import annotations

import math
from difflib import SequenceMatcher

import numpy as np

from scripts.measure import lab_source
from scripts.measure.claims import Claim, data_claims
from scripts.pages.formatting import fmt_fixed

from . import MODULE
from .constants import LN65

# Lab 1's recorded test values (nats per character), which Lab 3 must reproduce to 4 decimals: the
# lab defines them (its checkpoint compares against them too); read here from the lab source
LAB1_TEST_NATS = lab_source.lab_constant("LAB1_TEST_NATS", MODULE)

# thresholds of the qualitative words in the prose, in one place
CONSTANT_RATE_R2_MIN = 0.98         # "by a roughly constant factor per character": nearly a straight line on a log axis
LSTM_RNN_RATIO_MIN = 100.0          # "orders of magnitude above": at least 100 times
MEAN_GATE_MARGIN = 100.0            # "the mean gate cannot explain it": the mean predicts a 100 times larger fall
# Equation 11 measured: the products of each unit's forget gates over the last 50 steps (the direct path)
DIRECT_PATH_DISTANCE = 50           # the distance the LSTM box speaks of
DIRECT_PATH_SHARE_ABOVE_01_MIN = 0.01   # "some units keep more than a tenth": at least 1% of the products above 0.1
DIRECT_PATH_MEAN_GATE_MARGIN = 100.0    # ... where a constant gate at the mean keeps at most a hundredth of 0.1
DIRECT_PATH_SAME_SIZE = 3.0         # "about the same size" as the measured fall: within a factor of 3 either way
# "most of what reaches far does not travel the direct path": at each distance the LSTM box names, the direct
# path alone carries less than half of the measured gradient (so the other paths carry more than half)
DIRECT_PATH_FAR = (25, 50, 100, 150)
DIRECT_PATH_MINORITY = 0.5
# the gradient chunk by chunk (gradient_by_distance.by_chunk): the page quotes ratios of means over the chunks and,
# beside each, the chunks' own values by their median and middle half (the 25th to the 75th percentile)
CHUNK_SPREAD = (0.25, 0.5, 0.75)
# "no single step shrinks every direction": the one-step Jacobian's norm is above 1 at every step measured
STEP_JACOBIAN_FLOOR = 1.0
# float32 rounds a square below half its smallest subnormal (2^-149) to 0: entries below 2^-75 (2.6e-23) square to 0
FLOAT32_SQUARE_UNDERFLOW = 2.0 ** -75
# the sampling demo's settings, for every prompt: (strategy, tau, k, p)
SAMPLING_SETTINGS = {("greedy", None, None, None), ("temperature", 0.5, None, None), ("temperature", 1.0, None, None),
                     ("temperature", 1.5, None, None), ("top_k", 1.0, 5, None), ("top_k", 1.0, 10, None),
                     ("nucleus", 1.0, None, 0.5), ("nucleus", 1.0, None, 0.9)}
# "two prompts never replay the same random draws": no two prompts' samples at one setting share this long a run
SHARED_RUN_MAX = 60


def _f(x, nd=4):
    return "null" if x is None else f"{x:.{nd}g}" if isinstance(x, float) else str(x)


# --------------------------------------------------------------------------------------------



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




def _line_fit(xs, ys):
    """Least-squares slope and R^2 of ys against xs."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    syy = sum((y - my) ** 2 for y in ys)
    slope = sxy / sxx
    return slope, (sxy * sxy / (sxx * syy) if syy > 0 else 1.0)


def rnn_gradient_constant_factor(d):
    g = d["gradient_by_distance"]
    pts = [(x, math.log10(v)) for x, v in zip(g["distance"], g["rnn_grad_norm"]) if v > 0]
    slope, r2 = _line_fit([p[0] for p in pts], [p[1] for p in pts])
    factor = 10 ** slope
    recorded = g.get("rnn_factor_per_character")
    consistent = recorded is None or math.isclose(recorded, factor, rel_tol=1e-6)
    return (r2 >= CONSTANT_RATE_R2_MIN and consistent,
            f"log10 of the RNN's norm against distance: R^2 {r2:.4f} of a straight line (needs >= "
            f"{CONSTANT_RATE_R2_MIN}), a factor of {factor:.3f} per character"
            + ("" if consistent else f"; recorded factor {_f(recorded)} disagrees"))


def rnn_gradient_never_exactly_zero(d):
    g = d["gradient_by_distance"]
    z = g["rnn_first_all_zero_distance"]
    norms = g["rnn_grad_norm"]
    if z is not None:
        return False, f"every entry of the RNN's float32 gradient is exactly 0 from distance {z}"
    return (min(norms) > 0,
            f"at none of the {len(norms)} distances is every entry exactly 0; the smallest float64 norm is "
            f"{_f(min(norms))}")


def naive_float32_norm_reads_zero(d):
    g = d["gradient_by_distance"]
    z, norms = g["rnn_naive_norm_zero_distance"], g["rnn_grad_norm"]
    if z is None:
        return False, "a norm taken in float32 never reads 0 within the chunk"
    limit = math.sqrt(d["models"]["rnn"]["d_h"]) * FLOAT32_SQUARE_UNDERFLOW   # every entry below 2^-75
    all_zero = g["rnn_first_all_zero_distance"]
    consistent = 0 < norms[z] <= limit and (all_zero is None or all_zero >= z)
    return (consistent,
            f"a float32 norm reads 0 from distance {z}, where the float64 norm is {_f(norms[z])} (entries below "
            f"2^-75 = {FLOAT32_SQUARE_UNDERFLOW:.2g} square to 0 in float32: norm <= {limit:.2g})")


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


def mean_gate_cannot_explain_lstm_curve(d):
    g = d["gradient_by_distance"]
    mean, lstm = g["forget_gate"]["mean"], g["lstm_grad_norm"]
    fall, predicted = lstm[50] / lstm[0], mean ** 50
    median = spread(chunk_lstm_falls(g, 50))[1]
    return (min(fall, median) >= MEAN_GATE_MARGIN * predicted,
            f"the LSTM's gradient falls by {fall:.3g} over 50 characters on average ({median:.3g} in the median "
            f"chunk); a constant gate at the mean {mean:.3f} would give {predicted:.3g} (needs both falls at least "
            f"{MEAN_GATE_MARGIN:g} times smaller)")


def lstm_fall(g, distance=DIRECT_PATH_DISTANCE):
    """The LSTM's measured gradient at `distance` over its value at distance 0 (the box's measured fall)."""
    dist, norms = g["distance"], g["lstm_grad_norm"]
    return norms[dist.index(distance)] / norms[dist.index(0)]


def direct_path_comparison(g) -> tuple[str, float]:
    """What the direct path alone carries back against the measured fall: ('same' | 'less' | 'more', their
    ratio). scripts/pages/site_data.py picks the LSTM box's sentence with this, so the page says what the data shows."""
    ratio = g["direct_path"]["carried_fall"] / lstm_fall(g, g["direct_path"]["distance"])
    if ratio < 1 / DIRECT_PATH_SAME_SIZE:
        return "less", ratio
    if ratio > DIRECT_PATH_SAME_SIZE:
        return "more", ratio
    return "same", ratio


def direct_path_recorded_consistently(d):
    g = d["gradient_by_distance"]
    dp = g["direct_path"]
    shares = [dp[f"share_above_{cut}"] for cut in ("0.01", "0.1", "0.5")]
    problems = []
    if dp["distance"] != DIRECT_PATH_DISTANCE:
        problems.append(f"products over {dp['distance']} steps, the box speaks of {DIRECT_PATH_DISTANCE}")
    if not shares[0] >= shares[1] >= shares[2]:
        problems.append(f"shares above 0.01, 0.1, 0.5 ({', '.join(f'{x:.3f}' for x in shares)}) must not rise")
    for cut, share in zip((0.01, 0.1, 0.5), shares):
        if (dp["median"] > cut and share < 0.5) or (dp["median"] <= cut and share > 0.5):
            problems.append(f"median {_f(dp['median'])} disagrees with the share above {cut}, {share:.3f}")
    if not (dp["median"] <= dp["max"] and dp["mean"] <= dp["max"]):
        problems.append(f"median {_f(dp['median'])} or mean {_f(dp['mean'])} above the largest {_f(dp['max'])}")
    if dp["mean"] < 0.5 * shares[2]:
        problems.append(f"mean {_f(dp['mean'])} below half the share above 0.5, {shares[2]:.3f}")
    if dp["carried_fall"] > dp["cell_share_at_0"] * dp["max"] * (1 + 1e-9):
        problems.append(f"the direct path carries {_f(dp['carried_fall'])}, more than the cell state's share at the "
                        f"last position ({_f(dp['cell_share_at_0'])}) times the largest product ({_f(dp['max'])})")
    # products above 0.1 only on the units holding kept_share_at_0 of the cell's gradient, at most 0.1 elsewhere
    elif dp["carried_fall"] > dp["cell_share_at_0"] * (dp["max"] * dp["kept_share_at_0"] + 0.1) * (1 + 1e-9):
        problems.append(f"the direct path carries {_f(dp['carried_fall'])}, more than the units above 0.1 "
                        f"(holding {_f(dp['kept_share_at_0'])} of the cell state's gradient) and the rest (at most 0.1 "
                        "each) can carry")
    return not problems, "; ".join(problems) or (
        f"products over {dp['distance']} steps: median {_f(dp['median'])}, mean {_f(dp['mean'])}, largest "
        f"{_f(dp['max'])}; above 0.01, 0.1, 0.5: {', '.join(f'{x:.3f}' for x in shares)}")


def some_direct_paths_keep_a_tenth(d):
    g = d["gradient_by_distance"]
    dp, mean = g["direct_path"], g["forget_gate"]["mean"]
    share, kept = dp["share_above_0.1"], mean ** dp["distance"]
    return (share >= DIRECT_PATH_SHARE_ABOVE_01_MIN and 0.1 >= DIRECT_PATH_MEAN_GATE_MARGIN * kept,
            f"{share:.3f} of the products over {dp['distance']} steps are above 0.1 (needs >= "
            f"{DIRECT_PATH_SHARE_ABOVE_01_MIN}); a constant gate at the mean {mean:.3f} keeps {kept:.3g} (needs "
            f"<= 0.1 / {DIRECT_PATH_MEAN_GATE_MARGIN:g})")


def direct_path_compared_with_measured_fall(d):
    g = d["gradient_by_distance"]
    carried, fall = g["direct_path"]["carried_fall"], lstm_fall(g, g["direct_path"]["distance"])
    if not (carried > 0 and fall > 0):
        return False, f"nothing to compare: the direct path carries {_f(carried)}, the measured fall is {_f(fall)}"
    verdict, ratio = direct_path_comparison(g)
    return True, (f"the direct path alone carries {carried:.3g} of the gradient {g['direct_path']['distance']} "
                  f"characters back, the measured fall is {fall:.3g} (ratio {ratio:.3g}): the box says '{verdict}'")


def direct_path_share_of_measured(g, k):
    """What the direct path alone carries k characters back, as a share of the LSTM's measured gradient there."""
    return g["direct_path_by_distance"]["carried_fall"][k - 1] / lstm_fall(g, k)


def direct_path_by_distance_consistent(d):
    g = d["gradient_by_distance"]
    dp, by = g["direct_path"], g["direct_path_by_distance"]
    counts, theta, n = by["count_above"], by["theta"], by["products"]
    problems = []
    if by["distance"] != list(range(1, len(g["distance"]))) or len(counts) != len(by["distance"]) \
            or len(by["carried_fall"]) != len(by["distance"]) or any(len(row) != len(theta) for row in counts):
        problems.append(f"distances 1 .. {len(g['distance']) - 1} with one count per θ and one carried share each")
    elif any(a < b for row in counts for a, b in zip(row, row[1:])):
        problems.append("a count above a larger θ exceeds the count above a smaller one")
    elif any(b > a for r, s in zip(counts, counts[1:]) for a, b in zip(r, s)):
        problems.append("a count rises with the distance, although a product of gates below 1 can only fall")
    else:
        k = dp["distance"]
        for cut in ("0.01", "0.1", "0.5"):
            share = counts[k - 1][theta.index(float(cut))] / n
            if share != dp[f"share_above_{cut}"]:
                problems.append(f"at distance {k} the share above {cut} is {share:.4f} here, "
                                f"{dp[f'share_above_{cut}']:.4f} in direct_path")
        if not math.isclose(by["carried_fall"][k - 1], dp["carried_fall"], rel_tol=1e-9):
            problems.append(f"at distance {k} the direct path carries {_f(by['carried_fall'][k - 1])} here, "
                            f"{_f(dp['carried_fall'])} in direct_path")
    return not problems, "; ".join(problems) or (
        f"{len(counts)} distances x {len(theta)} values of θ over {n:,} products; at distance {dp['distance']} the "
        "shares and the carried gradient equal direct_path's")


def most_far_gradient_off_the_direct_path(d):
    g = d["gradient_by_distance"]
    shares = {k: direct_path_share_of_measured(g, k) for k in DIRECT_PATH_FAR}
    return (all(x < DIRECT_PATH_MINORITY for x in shares.values()),
            "the direct path alone carries " + ", ".join(f"{x:.3g} at {k}" for k, x in shares.items())
            + f" of the measured gradient (needs < {DIRECT_PATH_MINORITY:g} at each)")


def chunk_index(g, k) -> int:
    """Where distance k is in by_chunk's lists (a KeyError naming k when it was not recorded)."""
    try:
        return g["by_chunk"]["distance"].index(k)
    except ValueError:
        raise KeyError(f"by_chunk has no distance {k} (it has {g['by_chunk']['distance']})") from None


def chunk_values(g, key, k) -> list[float]:
    """One value per chunk at distance k: by_chunk's rnn_grad_norm, lstm_grad_norm or direct_path_norm."""
    return g["by_chunk"][key][chunk_index(g, k)]


def chunk_direct_path_shares(g, k) -> list[float]:
    """Chunk by chunk, what the direct path alone carries k characters back as a share of that chunk's measured
    gradient there (direct_path_share_of_measured is the same share from the means over the chunks)."""
    return [d / m for d, m in zip(chunk_values(g, "direct_path_norm", k), chunk_values(g, "lstm_grad_norm", k))]


def chunk_lstm_falls(g, k) -> list[float]:
    """Chunk by chunk, the LSTM's gradient k characters back over its value at the last position (lstm_fall is
    the same from the means)."""
    return [a / b for a, b in zip(chunk_values(g, "lstm_grad_norm", k), chunk_values(g, "lstm_grad_norm", 0))]


def chunk_lstm_rnn_ratios(g, k) -> list[float]:
    """Chunk by chunk, the LSTM's gradient k characters back over the RNN's (infinite where the RNN's is exactly 0;
    lstm_rnn_ratio_at_50 is the same from the means)."""
    return [a / b if b > 0 else math.inf
            for a, b in zip(chunk_values(g, "lstm_grad_norm", k), chunk_values(g, "rnn_grad_norm", k))]


def spread(values) -> tuple[float, float, float]:
    """The 25th percentile, the median and the 75th percentile (numpy's linear interpolation, as the lab prints)."""
    q = np.quantile(np.asarray(values, dtype=np.float64), CHUNK_SPREAD)
    return float(q[0]), float(q[1]), float(q[2])


def by_chunk_consistent(d):
    g = d["gradient_by_distance"]
    bc, problems = g["by_chunk"], []
    wanted = {0, DIRECT_PATH_DISTANCE, *DIRECT_PATH_FAR}
    if not wanted <= set(bc["distance"]) or not set(bc["distance"]) <= set(g["distance"]):
        problems.append(f"distances {bc['distance']} must include {sorted(wanted)} and lie within the chunk")
    for key in ("rnn_grad_norm", "lstm_grad_norm", "direct_path_norm"):
        if len(bc[key]) != len(bc["distance"]) or any(len(row) != g["chunks"] for row in bc[key]):
            problems.append(f"{key}: one list of {g['chunks']} chunks per distance")
    if problems:
        return False, "; ".join(problems)
    at_0 = sum(bc["lstm_grad_norm"][chunk_index(g, 0)]) / g["chunks"]
    for i, k in enumerate(bc["distance"]):
        for key in ("rnn_grad_norm", "lstm_grad_norm"):
            mean = sum(bc[key][i]) / g["chunks"]
            if not math.isclose(mean, g[key][k], rel_tol=1e-9):
                problems.append(f"{key} at {k}: the chunks' mean {_f(mean)} is not the curve's {_f(g[key][k])}")
        carried = sum(bc["direct_path_norm"][i]) / g["chunks"] / at_0
        recorded = 1.0 if k == 0 else g["direct_path_by_distance"]["carried_fall"][k - 1]
        if k and not math.isclose(carried, recorded, rel_tol=1e-9):
            problems.append(f"the direct path at {k}: the chunks give {_f(carried)}, direct_path_by_distance {_f(recorded)}")
    if any(c > a * (1 + 1e-9) for c, a in zip(bc["direct_path_norm"][chunk_index(g, 0)],
                                              bc["lstm_grad_norm"][chunk_index(g, 0)])):
        problems.append("at distance 0 a chunk's cell-state gradient exceeds its whole gradient")
    return not problems, "; ".join(problems) or (
        f"{g['chunks']} chunks at distances {bc['distance']}: their means are the curves', and the direct path's "
        "mean is direct_path_by_distance's")


def direct_path_chunk_median_below_half(d):
    g = d["gradient_by_distance"]
    medians = {k: spread(chunk_direct_path_shares(g, k))[1] for k in DIRECT_PATH_FAR}
    return (all(x < DIRECT_PATH_MINORITY for x in medians.values()),
            "chunk by chunk, the median share the direct path alone carries: "
            + ", ".join(f"{x:.3g} at {k}" for k, x in medians.items()) + f" (needs < {DIRECT_PATH_MINORITY:g} at each)")


def direct_path_chunk_median_falls_with_distance(d):
    g = d["gradient_by_distance"]
    medians = [spread(chunk_direct_path_shares(g, k))[1] for k in DIRECT_PATH_FAR]
    means = [direct_path_share_of_measured(g, k) for k in DIRECT_PATH_FAR]
    return (all(a > b for a, b in zip(medians, medians[1:])),
            f"median chunk's share at {', '.join(map(str, DIRECT_PATH_FAR))}: {', '.join(f'{x:.3g}' for x in medians)} "
            f"(needs to fall at each step); the ratio of means: {', '.join(f'{x:.3g}' for x in means)}")


def lstm_far_above_rnn_chunk_by_chunk(d):
    g = d["gradient_by_distance"]
    low, median, high = spread(chunk_lstm_rnn_ratios(g, 50))
    return (median >= LSTM_RNN_RATIO_MIN,
            f"chunk by chunk at distance 50, LSTM / RNN: median {median:.3g}, middle half {low:.3g} to {high:.3g} "
            f"(needs a median >= {LSTM_RNN_RATIO_MIN:g})")


def rnn_step_jacobian_consistent(d):
    g = d["gradient_by_distance"]
    s = g["rnn_saturation"]
    j, problems = s["step_jacobian_norm"], []
    if j["steps"] != g["chunks"] * g["chunk_length"]:
        problems.append(f"{j['steps']} steps, not chunks x chunk length = {g['chunks'] * g['chunk_length']}")
    if not j["min"] <= j["geometric_mean"] <= j["max"]:
        problems.append(f"smallest {_f(j['min'])}, geometric mean {_f(j['geometric_mean'])}, largest {_f(j['max'])} "
                        "out of order")
    # ||diag(1 - h_j^2) W|| <= ||diag(1 - h_j^2)|| ||W|| at every step, so also in the geometric mean (to float32's
    # precision: the lab takes ||W|| of the float32 matrix, the steps' norms in float64)
    if j["geometric_mean"] > s["bound_factor_per_character"] * (1 + 1e-6) or j["max"] > g["rnn_spectral_norm_W"] * (1 + 1e-6):
        problems.append(f"the one-step Jacobian's norm (geometric mean {_f(j['geometric_mean'])}, largest "
                        f"{_f(j['max'])}) exceeds Equation 8's bound ({_f(s['bound_factor_per_character'])}, ||W|| "
                        f"{_f(g['rnn_spectral_norm_W'])})")
    if not math.isclose(s["largest_derivative_geometric_mean"] * g["rnn_spectral_norm_W"],
                        s["bound_factor_per_character"], rel_tol=1e-9):
        problems.append("the bound's factor is not the largest derivative's geometric mean times ||W||")
    if (j["share_below_1"] > 0) != (j["min"] < 1):
        problems.append(f"share below 1 {_f(j['share_below_1'])} disagrees with the smallest {_f(j['min'])}")
    return not problems, "; ".join(problems) or (
        f"||diag(1 - h_j^2) W|| over {j['steps']:,} steps: smallest {j['min']:.3g}, geometric mean "
        f"{j['geometric_mean']:.3g}, largest {j['max']:.3g}; Equation 8's factor {s['bound_factor_per_character']:.3g} "
        f"= ||W|| x {s['largest_derivative_geometric_mean']:.3g}")


def no_rnn_step_shrinks_every_direction(d):
    j = d["gradient_by_distance"]["rnn_saturation"]["step_jacobian_norm"]
    return (j["min"] > STEP_JACOBIAN_FLOOR,
            f"the one-step Jacobian's norm is at least {j['min']:.3g} over {j['steps']:,} steps, below 1 at "
            f"{j['share_below_1']:.3g} of them (needs its smallest > {STEP_JACOBIAN_FLOOR:g})")


def saturation_bound_verdict(g) -> str:
    """'growth' when Equation 8's per-character factor with the measured derivatives is above 1 (the bound allows
    growth even with the measured saturation), else 'vanishing' (the measured derivatives alone force the fall).
    scripts/pages/site_data.py picks section 4's answer with this."""
    return "growth" if g["rnn_saturation"]["bound_factor_per_character"] > 1 else "vanishing"


def rnn_saturation_bound_consistent(d):
    g = d["gradient_by_distance"]
    s = g["rnn_saturation"]
    bound, measured, derivative = s["bound_factor_per_character"], g["rnn_factor_per_character"], s["mean_tanh_derivative"]
    problems = []
    if bound < measured:
        problems.append(f"the bound's factor per character {bound:.3g} is below the measured {measured:.3g}: "
                        "Equation 8 would not hold")
    if bound > g["rnn_spectral_norm_W"] * (1 + 1e-9) or derivative * g["rnn_spectral_norm_W"] > bound * (1 + 1e-9):
        problems.append(f"the bound's factor {bound:.3g} must lie between the mean derivative times ||W|| "
                        f"({derivative * g['rnn_spectral_norm_W']:.3g}) and ||W|| ({g['rnn_spectral_norm_W']:.3g})")
    return not problems, "; ".join(problems) or (
        f"{s['share_abs_h_above_0.9']:.3f} of the entries have |h| > 0.9, mean 1 - h^2 {derivative:.3f}; Equation 8 "
        f"with the measured derivatives gives {bound:.3g} per character against the measured {measured:.3g}: "
        f"section 4's answer says '{saturation_bound_verdict(g)}'")



def forget_gate_histogram_consistent(d):
    fg = d["gradient_by_distance"]["forget_gate"]
    edges, counts = fg["histogram"]["edges"], fg["histogram"]["counts"]
    widths = [b - a for a, b in zip(edges, edges[1:])]
    problems = []
    if len(counts) != len(edges) - 1 or edges[0] != 0 or edges[-1] != 1 or min(widths) <= 0:
        problems.append("edges must rise from 0 to 1 with one count per bin")
    elif not all(any(abs(e - cut) < 1e-9 for e in edges) for cut in (0.9, 0.99)):
        problems.append("0.9 and 0.99 must be edges, so that the shares above them can be read off")
    else:
        total = sum(counts)
        for cut in (0.9, 0.99):
            above = sum(n for a, n in zip(edges, counts) if a >= cut - 1e-9) / total
            if abs(above - fg[f"share_above_{cut}"]) > 1e-3:
                problems.append(f"share above {cut}: {above:.4f} from the histogram, "
                                f"{fg[f'share_above_{cut}']:.4f} recorded")
        mean = sum((a + b) / 2 * n for a, b, n in zip(edges, edges[1:], counts)) / total
        if abs(mean - fg["mean"]) > max(widths) / 2:          # bin midpoints are off by at most half a bin
            problems.append(f"mean {mean:.4f} from the histogram, {fg['mean']:.4f} recorded")
    return not problems, "; ".join(problems) or f"{len(counts)} bins, {sum(counts):,} gate values; shares and mean agree"


def sampling_material_complete(d):
    s = d["sampling"]
    have = {}
    for x in s["samples"]:
        have.setdefault(x["prompt_index"], set()).add((x["strategy"], x["tau"], x["k"], x["p"]))
    problems = [f"prompt {i} lacks {sorted(SAMPLING_SETTINGS - have.get(i, set()), key=str)}"
                for i in range(len(s["prompts"])) if not SAMPLING_SETTINGS <= have.get(i, set())]
    problems += [f"sample for prompt {i}, which does not exist" for i in have if not 0 <= i < len(s["prompts"])]
    return not problems, "; ".join(problems) or (f"{len(s['prompts'])} prompts, each with greedy, tau = 0.5, 1, 1.5, "
                                                  "top-k k = 5, 10 and nucleus p = 0.5, 0.9")


def longest_shared_run(a: str, b: str) -> int:
    """The length of the longest run of characters that two texts share."""
    return SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b)).size


GREEDY = ("greedy", None, None, None)


def shared_runs(s: dict) -> dict[tuple, tuple[int, int, int]]:
    """For each setting (strategy, tau, k, p) of the sampling material: the longest run of characters two prompts'
    samples share, and which two prompts."""
    by_setting = {}
    for x in s["samples"]:
        by_setting.setdefault((x["strategy"], x["tau"], x["k"], x["p"]), []).append(x)
    out = {}
    for setting, runs in by_setting.items():
        pairs = [(longest_shared_run(a["text"], b["text"]), a["prompt_index"], b["prompt_index"])
                 for i, a in enumerate(runs) for b in runs[i + 1:]]
        if pairs:
            out[setting] = max(pairs)
    return out


def prompts_samples_differ(d):
    s = d["sampling"]
    runs = shared_runs(s)
    # greedy decoding draws nothing at random: from two prompts it may fall into the same loop, whatever the seeds
    greedy = runs.pop(GREEDY, (0, None, None))[0]
    setting, (worst, a, b) = max(runs.items(), key=lambda kv: kv[1], default=(None, (0, None, None)))
    seeds = {(x["prompt_index"], x["seed"]) for x in s["samples"]}
    one_seed_each = len({i for i, _ in seeds}) == len(seeds) and len({sd for _, sd in seeds}) == len(seeds)
    detail = (f"the longest run two prompts' samples share at one setting: {worst} characters"
              + (f" ({setting[0]}, tau {setting[1]}, k {setting[2]}, p {setting[3]}: prompts {a} and {b})" if setting else "")
              + f" (needs < {SHARED_RUN_MAX}); " + ("one seed per prompt" if one_seed_each else "prompts share a seed")
              + f"; greedy samples (no random draws, not checked) share up to {greedy}")
    return worst < SHARED_RUN_MAX and one_seed_each, detail



UNCLIPPED_SPIKE_MIN = 2.0            # "spikes": the unclipped loss reaches at least twice ln 65 ...
UNCLIPPED_FALLS_BACK_MAX = 0.5       # "then falls back": ... and ends below half its peak


def unclipped_loss_spikes_then_falls(d):
    losses = [v for v in d["clipping_demo"]["unclipped"]["loss"] if v is not None]
    final = d["clipping_demo"]["unclipped"]["final_loss"]
    if not losses or final is None:
        return False, "the unclipped run has no finite loss to end on"
    peak = max(losses)
    return (peak >= UNCLIPPED_SPIKE_MIN * LN65 and final <= UNCLIPPED_FALLS_BACK_MAX * peak,
            f"unclipped loss peaks at {peak:.3g} at step {losses.index(peak) + 1} (needs >= {UNCLIPPED_SPIKE_MIN:g} x "
            f"ln 65 = {UNCLIPPED_SPIKE_MIN * LN65:.3g}) and ends at {final:.3g} (needs <= "
            f"{UNCLIPPED_FALLS_BACK_MAX:g} x the peak)")



# the claims of claims.json (the ones an After-the-Lab box makes, which the page also checks on a student's run),
# each where the page states it among the ones that need Python
DATA = data_claims(MODULE)

CLAIMS: tuple[Claim, ...] = (
    Claim("ngram_rows_match_lab1",
          "The uniform, bigram, trigram and best n-gram rows reproduce Lab 1's recorded test values "
          f"to four decimals ({', '.join(fmt_fixed(v, 4) for v in LAB1_TEST_NATS.values())}).",
          ngram_rows_match_lab1),
    Claim("units_consistent",
          "Perplexity and bits per character are the same measurement as test nats: "
          "PPL = exp(L), BPC = L / ln 2.", units_consistent),
    DATA["neural_models_beat_best_ngram"],
    DATA["lstm_ppl_at_least_1_below_trigram"],
    DATA["lstm_beats_rnn"],
    DATA["rnn_spectral_norm_above_1"],
    DATA["rnn_gradient_vanishes"],
    Claim("rnn_gradient_falls_by_a_constant_factor_per_character",
          "It falls by a roughly constant factor per character: log10 of the norm against distance is close "
          f"to a straight line (R^2 at least {CONSTANT_RATE_R2_MIN}).", rnn_gradient_constant_factor),
    Claim("rnn_gradient_never_exactly_zero_within_the_chunk",
          "At no distance within the chunk is every entry of the RNN's float32 gradient exactly 0 in every "
          "chunk.", rnn_gradient_never_exactly_zero),
    Claim("naive_float32_norm_reads_zero",
          "A norm taken in float32 reads 0 from some distance within the chunk although the gradient is not 0 "
          "there: its entries are below 2^-75 (about 2.6e-23), whose squares are 0 in float32.",
          naive_float32_norm_reads_zero),
    Claim("lstm_gradient_orders_above_rnn_at_50",
          f"50 characters back, the LSTM's gradient is orders of magnitude (at least {LSTM_RNN_RATIO_MIN:.0f} times) "
          "above the RNN's.", lstm_gradient_far_above_rnn_at_50),
    Claim("mean_forget_gate_cannot_explain_lstm_curve",
          "The LSTM's gradient falls over 50 characters far less (at least 100 times less), on average over the "
          "chunks and in the median chunk, than a constant forget gate at the measured mean would make it fall "
          "(mean^50).", mean_gate_cannot_explain_lstm_curve),
    DATA["many_forget_gates_near_1"],
    Claim("direct_path_products_recorded_consistently",
          "The direct-path products (each unit's forget gates multiplied over the last 50 steps of a chunk, "
          "Equation 11) are recorded over 50 steps, with a median, shares above 0.01, 0.1 and 0.5 and a mean that "
          "agree, and the direct path carries no more of the gradient than the cell state holds at the last "
          "position allows, given the largest product and the share on the units whose product is above 0.1.",
          direct_path_recorded_consistently),
    Claim("some_direct_paths_keep_a_tenth",
          f"On some units (at least {DIRECT_PATH_SHARE_ABOVE_01_MIN:.0%} of the unit-chunk products) the direct path "
          "keeps more than a tenth of the gradient over 50 steps, at least 100 times what a constant gate at the "
          "mean would keep (mean^50).", some_direct_paths_keep_a_tenth),
    Claim("direct_path_compared_with_measured_fall",
          "The LSTM box compares what the direct path alone carries 50 characters back with the measured fall, "
          f"and says 'about the same size' (within a factor of {DIRECT_PATH_SAME_SIZE:g}), 'far less' or 'more' as "
          "the data has it (scripts/pages/site_data.py picks the sentence with direct_path_comparison).",
          direct_path_compared_with_measured_fall),
    Claim("direct_path_by_distance_consistent",
          "The direct-path products at every distance (the forget-gate demo's measured curve) are counted above every "
          "θ of the demo's slider, never rise with the distance or with θ, and at 50 steps equal the direct_path "
          "record.", direct_path_by_distance_consistent),
    Claim("by_chunk_consistent",
          "The gradients chunk by chunk are recorded at 0, 50 and the distances the LSTM box names, and their means "
          "over the chunks are the curves and the direct path's share that the page quotes as ratios of means.",
          by_chunk_consistent),
    Claim("direct_path_chunk_median_below_half",
          f"Chunk by chunk too, at {', '.join(map(str, DIRECT_PATH_FAR[:-1]))} and {DIRECT_PATH_FAR[-1]} characters "
          f"back the median chunk's direct path carries less than {DIRECT_PATH_MINORITY:.0%} of its measured gradient.",
          direct_path_chunk_median_below_half),
    Claim("direct_path_chunk_median_falls_with_distance",
          f"The median chunk's direct-path share falls from each of {', '.join(map(str, DIRECT_PATH_FAR))} characters "
          "back to the next, whatever the ratio of the means does.", direct_path_chunk_median_falls_with_distance),
    Claim("lstm_above_rnn_at_50_chunk_by_chunk",
          f"Chunk by chunk too, 50 characters back the median chunk's LSTM gradient is at least "
          f"{LSTM_RNN_RATIO_MIN:.0f} times its RNN gradient.", lstm_far_above_rnn_chunk_by_chunk),
    Claim("most_far_gradient_off_the_direct_path",
          f"At {', '.join(map(str, DIRECT_PATH_FAR[:-1]))} and {DIRECT_PATH_FAR[-1]} characters back, the direct path "
          f"alone carries less than {DIRECT_PATH_MINORITY:.0%} of the LSTM's measured gradient: most of what reaches "
          "that far travels the cell's other paths.", most_far_gradient_off_the_direct_path),
    Claim("rnn_step_jacobian_consistent",
          "The norm of the RNN's one-step Jacobian, ||diag(1 - h_j^2) W||, is recorded at every step of every chunk, "
          "at most Equation 8's per-step bound, which is ||W|| times the step's largest 1 - h_j^2.",
          rnn_step_jacobian_consistent),
    Claim("no_rnn_step_shrinks_every_direction",
          f"At every step of every chunk the trained RNN's one-step Jacobian has norm above {STEP_JACOBIAN_FLOOR:g}: "
          "no single step shrinks every direction of the gradient, unlike the one-unit demo's saturated case.",
          no_rnn_step_shrinks_every_direction),
    Claim("rnn_saturation_bound_consistent",
          "Equation 8 with the RNN's measured tanh derivatives (||diag(1 - h_j^2)|| ||W|| per step) gives a factor per "
          "character no smaller than the measured one, between the mean derivative times ||W|| and ||W||; section 4's "
          "answer says whether it is above 1 as the data has it (site_data picks it with saturation_bound_verdict).",
          rnn_saturation_bound_consistent),
    Claim("forget_gate_histogram_consistent",
          "The forget-gate histogram (the forget-gate demo's material) agrees with the recorded mean and "
          "shares above 0.9 and 0.99.", forget_gate_histogram_consistent),
    DATA["unclipped_sgd_worse_than_uniform"],
    Claim("unclipped_sgd_loss_spikes_then_falls_back",
          "Without clipping, the SGD run's loss spikes (to at least twice ln 65) and then falls back (ending below "
          "half its peak): the clipping figure's alt text.", unclipped_loss_spikes_then_falls),
    DATA["clipped_sgd_far_better"],
    Claim("prompts_samples_differ",
          f"Each prompt of the sampling demo draws with its own seed, and no two prompts' sampled texts at one setting "
          f"(every setting but greedy, which draws nothing at random) share a run of {SHARED_RUN_MAX} or more "
          "characters.", prompts_samples_differ),
    Claim("sampling_material_complete",
          "The sampling demo has, for every prompt, a sample greedily, at tau = 0.5, 1 and 1.5, with top-k "
          "(k = 5, 10) and with nucleus filtering (p = 0.5, 0.9).", sampling_material_complete),
)
