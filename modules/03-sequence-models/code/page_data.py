"""What Module 3's pages show, formatted from its data (scripts/pages/site_data.py calls these).

variables(data, worked)          the values the pages read as {{< meta data.KEY.SUB >}}
partials(data, worked, values)   the include partials of modules/<id>/_generated/ (results table,
                                 section 4's answer, the two worked examples)

Numbers become text in scripts/pages/formatting.py; shown arithmetic is computed from the shown, rounded
numbers, so a reader who redoes it gets the same result.
"""
from __future__ import annotations

import math
from decimal import Decimal

from scripts import paths
from scripts.measure import lab_source
from scripts.pages.formatting import (fmt_fixed, fmt_int, fmt_num, fmt_percent, fmt_ppl, fmt_ratio_times, fmt_sci,
                                fmt_short, sci_value)
from scripts.pages.site_data import provenance_line

from . import MODULE, claims

WORKED_FILE = paths.rel(MODULE.worked_examples)     # named in the worked tables' captions
MODEL_ORDER = ("uniform", "bigram", "trigram", "best_ngram", "rnn", "lstm")
# what site_data checks in data/<id>/worked_examples.json before formatting it
WORKED_PROVENANCE = ("lab_source_sha256", "torch", "seed")
WORKED_SHAPE = {"one_unit_rnn": ("cases", ("w", "h", "distance", "factor")),
                "temperature": ("rows", ("tau", "probs", "frequencies"))}


def model_variables(row: dict) -> dict:
    out = {
        "label": row["label"],
        "nats": fmt_fixed(row["test_nats"], 4),
        "nats_2dp": fmt_fixed(row["test_nats"], 2),
        "ppl": fmt_ppl(row["perplexity"]),
        "bpc": fmt_fixed(row["bpc"], 2),
        "params": fmt_int(row.get("parameters")),
        "steps": fmt_int(row.get("training_steps")),
    }
    if "k" in row:
        out["k"] = fmt_num(row["k"])
    for key in ("n", "d_h"):
        if key in row:
            out[key] = str(row[key])
    return out


def shown(text: str) -> Decimal:
    """The number a value shows ('5.35', '103,041'), exactly, for arithmetic the page does on shown numbers (in
    binary floating point 5.35 - 4.97 would not be 0.38 exactly, and a difference ending in 5 could round down)."""
    return Decimal(text.replace(",", ""))


# the page's arithmetic on numbers it shows: (the derived value, how it is computed from the shown operands, the
# operands).  comparison_variables computes them this way; tests/.../test_shown_arithmetic.py recomputes each from
# the shown text of its operands, on every run it is given
SHOWN_ARITHMETIC = {
    "compare.lstm_lead_nats": ("difference", 2, "models.best_ngram.nats", "models.lstm.nats"),
    "compare.rnn_lead_nats": ("difference", 2, "models.best_ngram.nats", "models.rnn.nats"),
    "compare.lstm_rnn_ppl_gap": ("difference", 2, "models.rnn.ppl", "models.lstm.ppl"),
    "compare.param_ratio": ("ratio", 1, "models.lstm.params", "models.rnn.params"),
    "gradient.forget_mean_pow_50": ("power_sci", 2, "gradient.forget_mean", 50),
    "gradient.direct_of_measured_50": ("ratio_percent", None, "gradient.direct_carried", "gradient.lstm_fall_50"),
    "worked.saturated_h2": ("power_fixed", 2, "worked.saturated_h", 2),
    "worked.saturated_derivative": ("difference", 2, 1, "worked.saturated_h2"),
    "worked.near_product": ("power_sci", 1, "worked.near_factor", "worked.near_distance"),
    "worked.saturated_product": ("power_sci", 1, "worked.saturated_factor", "worked.saturated_distance"),
    "worked.orders_apart": ("orders_apart", None, "worked.near_product", "worked.saturated_product"),
}


def comparison_variables(m: dict, models: dict) -> dict:
    """The comparisons the results box states, from the numbers the table shows (models: model_variables)."""
    def diff(a, b, key):
        return fmt_fixed(shown(models[a][key]) - shown(models[b][key]), 2)
    return {
        "lstm_lead_nats": diff("best_ngram", "lstm", "nats"),
        "rnn_lead_nats": diff("best_ngram", "rnn", "nats"),
        "lstm_rnn_ppl_gap": diff("rnn", "lstm", "ppl"),
        "param_ratio": fmt_fixed(shown(models["lstm"]["params"]) / shown(models["rnn"]["params"]), 1),
        "steps_ratio": fmt_ratio_times(m["lstm"]["training_steps"] / m["rnn"]["training_steps"]),
        # Lab 1's, a constant of the lab source as LAB1_TEST_NATS is: the scale a character perplexity is not compared with
        "word_trigram_ppl": fmt_ppl(lab_source.lab_constant("LAB1_WORD_TRIGRAM_PPL", MODULE)),
    }


# the lab's phases (provenance.duration_s's lab_<phase>, from the lab's PHASE_S), as the page names them, largest first
PHASE_NAMES = {"train_lstm": "training the LSTM", "train_rnn": "training the RNN",
               "clipping_demo": "the clipping demonstration", "ngram": "the n-gram baseline", "evaluate": "evaluation",
               "gradients_rnn": "the RNN's gradients", "gradients_lstm": "the LSTM's gradients",
               "sampling": "sampling", "sampling_demo": "the sampling demo's material"}
PHASES_NAMED = 3           # the largest three by name, the others together


def fmt_duration(seconds: float) -> str:
    """A phase's wall time: whole seconds below two minutes (50 s), minutes to one decimal above (2.7 min)."""
    return f"{fmt_fixed(seconds / 60, 1)} min" if seconds >= 120 else f"{fmt_fixed(seconds, 0)} s"


def compute_variables(p: dict) -> dict:
    """Where the build's run of the lab spent its time: the largest phases by name, the others together. A phase the
    page has no name for is an error (name it in PHASE_NAMES), not left out."""
    phases = {k[len("lab_"):]: v for k, v in p["duration_s"].items() if k.startswith("lab_")}
    if not phases:
        raise KeyError("provenance.duration_s has no lab phases (lab_<phase>, from the lab's PHASE_S), which the page "
                       "quotes beside the run's time")
    unnamed = sorted(set(phases) - set(PHASE_NAMES))
    if unnamed:
        raise KeyError(f"provenance.duration_s has lab phases the page cannot name: {unnamed} (page_data.PHASE_NAMES)")
    ranked = sorted(phases.items(), key=lambda kv: -kv[1])
    parts = [f"{PHASE_NAMES[k]} {fmt_duration(v)}" for k, v in ranked[:PHASES_NAMED]]
    rest = sum(v for _, v in ranked[PHASES_NAMED:])
    if rest:
        parts.append(f"the rest {fmt_duration(rest)}")
    return {"phases": ", ".join(parts), "cpu_count": fmt_int(p["cpu_count"])}


def distance_or_never(d: int | None) -> str:
    return str(d) if d is not None else "never (within the measured distances)"


def gradient_variables(g: dict) -> dict:
    fg = g["forget_gate"]
    ratio = g["lstm_rnn_ratio_at_50"]
    out = {
        "chunks": str(g["chunks"]),
        "chunk_length": str(g["chunk_length"]),
        "spectral_W": fmt_fixed(g["rnn_spectral_norm_W"], 1),
        "ratio_at_50": fmt_sci(ratio, 2) if ratio is not None else "not measurable (the RNN's is exactly 0 there)",
        "forget_mean": fmt_fixed(fg["mean"], 3),      # three decimals: its 50th power depends on the third
        "forget_share_09": fmt_percent(fg["share_above_0.9"]),
        "forget_share_099": fmt_percent(fg["share_above_0.99"]),
    }
    # the float32 facts of the Part A box (both required by the schema; "never" when not reached)
    out["first_all_zero"] = distance_or_never(g["rnn_first_all_zero_distance"])
    out["naive_norm_zero"] = distance_or_never(g["rnn_naive_norm_zero_distance"])
    out["factor_per_character"] = fmt_fixed(g["rnn_factor_per_character"], 3)   # as the notebook prints it
    # the LSTM box: what a constant gate at the mean would keep over 50 steps, against the measured fall; the
    # power from the mean as shown (three decimals), so that a reader who raises it to the 50th gets the same
    if not {0, 50} <= set(g["distance"]):
        raise ValueError("gradient_by_distance lacks distance 0 or 50, which the LSTM box compares")
    out["forget_mean_pow_50"] = fmt_sci(float(out["forget_mean"]) ** 50, 2)
    out["lstm_fall_50"] = fmt_sci(claims.lstm_fall(g, 50), 2)
    out.update(direct_path_variables(g))
    out.update(saturation_variables(g))
    out.update(chunk_variables(g))
    return out


def chunk_variables(g: dict) -> dict:
    """Beside each ratio of means over the chunks that the page quotes, the chunks' own values: the median chunk's
    and the middle half of the chunks (claims.spread), each formatted as its ratio of means is."""
    def three(name, values, fmt):
        low, median, high = claims.spread(values)
        return {f"{name}_median": fmt(median), f"{name}_low": fmt(low), f"{name}_high": fmt(high)}
    out = {}
    out.update(three("ratio_at_50", claims.chunk_lstm_rnn_ratios(g, 50), lambda x: fmt_sci(x, 2)))
    out.update(three("lstm_fall_50", claims.chunk_lstm_falls(g, 50), lambda x: fmt_sci(x, 2)))
    for k in claims.DIRECT_PATH_FAR:
        out.update(three(f"direct_chunk_{k}", claims.chunk_direct_path_shares(g, k), fmt_share))
    return out


def fmt_share(x: float) -> str:
    """A chunk's share: as fmt_percent from 0.1% up; below, 'under 0.1%' (fmt_percent would round it to 0%, which it is
    not)."""
    return fmt_percent(x) if x >= 0.0005 else "under 0.1%"


def saturation_variables(g: dict) -> dict:
    s = g["rnn_saturation"]
    return {
        "saturated_share": fmt_percent(s["share_abs_h_above_0.9"]),
        "mean_tanh_derivative": fmt_fixed(s["mean_tanh_derivative"], 3),
        "bound_factor": fmt_fixed(s["bound_factor_per_character"], 2),
        "largest_derivative": fmt_fixed(s["largest_derivative_geometric_mean"], 3),
        "step_count": fmt_int(s["step_jacobian_norm"]["steps"]),
        "step_jacobian_min": fmt_fixed(s["step_jacobian_norm"]["min"], 2),
        "step_jacobian_gmean": fmt_fixed(s["step_jacobian_norm"]["geometric_mean"], 2),
        "step_jacobian_max": fmt_fixed(s["step_jacobian_norm"]["max"], 2),
        "saturation_verdict": SATURATION_BOX[claims.saturation_bound_verdict(g)],
    }


# section 4's box: what Equation 8 with the measured derivatives says (claims.saturation_bound_verdict decides)
SATURATION_BOX = {
    "growth": ("above 1: even with the measured saturation the bound allows growth, so it does not explain the fall. "
               "What makes the gradient fall is how the one-step Jacobians combine from step to step; saturation can "
               "contribute to that, and so can the directions in which the recurrent matrix stretches, and the lab "
               "does not separate the two."),
    "vanishing": "below 1: the measured saturation alone forces the gradient to fall, although the norm of W is above 1.",
}


# the LSTM box's last sentence, by what the direct path alone carries against the measured fall
# (claims.direct_path_comparison decides; the claim direct_path_compared_with_measured_fall states it)
DIRECT_PATH_VERDICT = {
    "same": "about the same size, so the direct path alone can account for what reaches 50 characters back.",
    "less": ("far less, so most of what reaches 50 characters back comes along the cell's other paths, through "
             "the hidden state and the gates, which the direct path leaves out."),
    "more": ("more than was measured, so the cell's other paths, through the hidden state and the gates, "
             "partly cancel what the direct path carries."),
}


def fmt_product(x: float) -> str:
    """A product of gates: two decimals from 0.01 up (0.21), two figures times a power of ten below (3.1 × 10⁻⁴)."""
    return fmt_fixed(x, 2) if x >= 0.01 else fmt_sci(x, 2)


def direct_path_variables(g: dict) -> dict:
    dp = g["direct_path"]
    return {
        "direct_distance": str(dp["distance"]),
        "direct_median": fmt_product(dp["median"]),
        "direct_share_05": fmt_percent(dp["share_above_0.5"]),
        "direct_share_01": fmt_percent(dp["share_above_0.1"]),
        "direct_share_001": fmt_percent(dp["share_above_0.01"]),
        "direct_kept_share": fmt_product(dp["kept_share_at_0"]),
        "direct_carried": fmt_sci(dp["carried_fall"], 2),
        "direct_verdict": DIRECT_PATH_VERDICT[claims.direct_path_comparison(g)[0]],
        # the share of the measured gradient that the direct path alone carries, at each distance the box names;
        # at 50, where the box shows both numbers, from the two as shown (a reader dividing them gets the same)
        **{f"direct_of_measured_{k}": fmt_percent(claims.direct_path_share_of_measured(g, k))
           for k in claims.DIRECT_PATH_FAR},
        f"direct_of_measured_{dp['distance']}": fmt_percent(sci_value(dp["carried_fall"], 2)
                                                            / sci_value(claims.lstm_fall(g, dp["distance"]), 2)),
        "direct_far_list": ", ".join(str(k) for k in claims.DIRECT_PATH_FAR[:-1]) + f" and {claims.DIRECT_PATH_FAR[-1]}",
    }


def clipping_variables(c: dict) -> dict:
    return {
        "steps": str(c["steps"]),
        "lr": fmt_num(c["lr"]),
        "kappa": fmt_short(c["kappa"]),
        "clipped_final": fmt_fixed(c["clipped"]["final_loss"], 2),
        "unclipped_final": fmt_fixed(c["unclipped"]["final_loss"], 2),
    }


def table_label(row: dict, shown: dict) -> str:
    """The model's label as the lab wrote it (it already names k, n, d_h and steps), in the page's
    notation, with the parameter count of a neural model."""
    label = row["label"].replace("≤", "$\\le$").replace("d_h", "$d_h$")
    if row.get("parameters") is not None and "parameters" not in label:
        label += f" ({shown['params']} parameters)"
    return label


def results_table(data: dict, v: dict) -> str:
    rows = []
    for key in MODEL_ORDER:
        row, shown = data["models"][key], v["models"][key]
        lab = "–" if row["lab"] is None else str(row["lab"])
        rows.append(f"| {table_label(row, shown)} | {lab} | {shown['nats']} | {shown['ppl']} | {shown['bpc']} |")
    return "\n".join([
        "| Model | Lab | Test nats per character | Perplexity | Bits per character |",
        "|:-----------------------------------------|:---:|------:|------:|------:|",
        *rows,
        "",
        ": Test results on the same test characters, in the same units.",
        "",
        "::: {.provenance}",
        provenance_line(data["provenance"], MODULE),
        ":::",
        "",
    ])


def answer_saturation(v: dict) -> str:
    """Section 4's check with the data's spectral norm; each step computed from the number shown
    before it, so the arithmetic on the page is right as printed.  (What the lab measured of the units'
    saturation is the box after the lab's: saturation_variables.)"""
    s = v["gradient"]["spectral_W"]
    if float(s) <= 1:
        return (f"With $\\lVert W \\rVert \\approx$ {s} the bound $(1 - h^2)\\,\\lVert W \\rVert$ is below 1 for "
                "every $|h|$: this trained RNN is in the sufficient case for vanishing.\n")
    h2 = fmt_fixed(1 - 1 / float(s), 3)
    h = fmt_fixed(math.sqrt(float(h2)), 2)
    preact = fmt_fixed(math.atanh(float(h)), 1)
    factor = fmt_fixed((1 - 0.98) * float(s), 2)          # 1 - 0.99^2 = 0.9801, shown as 0.98
    per_char = fmt_fixed(1 / float(factor), 0)
    return (
        f"We need $(1 - h^2) \\times {s} < 1$, so $h^2 > 1 - 1/{s} = {h2}$ and $|h| > {h}$. "
        f"A $\\tanh$ unit reaches {h} at a pre-activation of only about {preact}, so this is ordinary behavior "
        f"for a trained network, not an extreme. At $|h| = 0.99$ the factor is "
        f"$(1 - 0.98) \\times {s} \\approx {factor}$: the gradient loses a factor of about {per_char} per character. "
        f"Real units are not all equally saturated, so this is a caricature, but it shows how a spectral norm "
        f"of {s} and a vanishing gradient can be compatible.\n"
    )


def shown_number(x: float) -> str:
    """A worked example's factor: at most two decimals, no trailing zeros (2, 0.9, 0.38)."""
    return fmt_short(float(fmt_fixed(x, 2)))


def one_unit_row(case: dict) -> str:
    w, d = case["w"], case["distance"]
    f = shown_number(case["factor"])
    if abs(w) < 1:
        return (f"| $w = {fmt_short(w)}$, any state | at most {f} | over {d} steps: at most "
                f"${f}^{{{d}}} = {fmt_fixed(float(f) ** d, 3)}$ | the same: {fmt_fixed(abs(w) ** d, 3)} |")
    state = "state near 0" if case["h"] == 0 else f"state saturated at $h_j = {fmt_short(case['h'])}$"
    h2 = fmt_short(float(fmt_fixed(case["h"] ** 2, 2)))
    return (f"| $w = {fmt_short(w)}$, {state} | $(1 - {h2}) \\times {fmt_short(w)} = {f}$ | over {d} steps: "
            f"${f}^{{{d}}} \\approx {fmt_sci(float(f) ** d, tex=True)}$ | ${fmt_sci(abs(w) ** d, tex=True)}$ |")


def worked_variables(worked: dict) -> dict:
    """The sentences after the one-unit table: the saturated case's 1 - h_j^2 and how many orders of magnitude apart
    the two cases with the same weight end, each from the table's shown numbers."""
    cases = [c for c in worked["one_unit_rnn"]["cases"] if abs(c["w"]) >= 1]
    near = next((c for c in cases if c["h"] == 0), None)
    saturated = next((c for c in cases if c["h"] != 0), None)
    if near is None or saturated is None:
        raise ValueError("the worked examples lack a case with |w| >= 1 at a state near 0 or a saturated one, which "
                         "the sentences after the one-unit table compare")
    out = {"saturated_h": fmt_short(saturated["h"])}
    out["saturated_h2"] = fmt_fixed(shown(out["saturated_h"]) ** 2, 2)
    out["saturated_derivative"] = fmt_fixed(1 - shown(out["saturated_h2"]), 2)
    for name, c in (("near", near), ("saturated", saturated)):
        out[f"{name}_factor"], out[f"{name}_distance"] = shown_number(c["factor"]), str(c["distance"])
        out[f"{name}_product"] = fmt_sci(float(shown(out[f"{name}_factor"]) ** c["distance"]))
    apart = sci_value(float(shown(out["near_factor"]) ** near["distance"]), 1) / \
        sci_value(float(shown(out["saturated_factor"]) ** saturated["distance"]), 1)
    out["orders_apart"] = str(math.floor(math.log10(apart)))
    # the sentence after the temperature table: the top token's share at tau = 1 and at tau = 0.5, as the table shows them
    rows = {row["tau"]: row for row in worked["temperature"]["rows"]}
    if 1.0 not in rows or 0.5 not in rows:
        raise ValueError("the worked temperature examples lack tau = 1 or tau = 0.5, which the sentence after the table compares")
    out["top_share_tau_1"], out["top_share_tau_half"] = (fmt_fixed(rows[tau]["probs"][0], 3) for tau in (1.0, 0.5))
    if not shown(out["top_share_tau_half"]) > shown(out["top_share_tau_1"]):
        raise ValueError("halving the temperature no longer raises the top token's share, as the page says it does")
    return out


def worked_provenance(worked: dict) -> list[str]:
    """The worked examples' provenance, in its own div below each of their tables."""
    p = worked["provenance"]
    return ["::: {.provenance}",
            f"*Provenance:* `{WORKED_FILE}`, computed by `python3 -m scripts.measure.worked_examples` with the "
            f"lab's own functions (lab source `{p['lab_source_sha256'][:12]}`), torch {p['torch']}, seed {p['seed']}.",
            ":::", ""]


def worked_rnn_table(worked: dict) -> str:
    return "\n".join([
        "| Case | One-step factor $(1 - h_j^2)\\,w$ | Product over a distance $t - s$ | Bound $\\lvert w \\rvert^{t-s}$ |",
        "|:--------------|:--------------|:------------------|:----------|",
        *(one_unit_row(case) for case in worked["one_unit_rnn"]["cases"]),
        "",
        ": One hidden unit, three cases (the one-step factor is computed by autograd through the lab's "
        f"`rnn_cell_step`, in `{WORKED_FILE}`).",
        "",
        *worked_provenance(worked),
    ])


def worked_temperature_table(worked: dict) -> str:
    t = worked["temperature"]
    z = t["logits"]
    lines = [f"| Temperature $\\tau$ | $z_t / \\tau$ | $\\hat{{y}}_t^{{(\\tau)}}$ | Share of {fmt_int(t['draws'])} draws "
             "by `sample_with_temperature` |",
             "|:---:|:---:|:---:|:---:|"]
    for row in t["rows"]:
        tau = row["tau"]
        scaled = ", ".join(fmt_short(x / tau) for x in z)
        probs = ",\\ ".join(fmt_fixed(x, 3) for x in row["probs"])
        drawn = ",\\ ".join(fmt_fixed(x, 3) for x in row["frequencies"])
        lines.append(f"| {fmt_short(tau)} | $({scaled})$ | $({probs})$ | $({drawn})$ |")
    logits = ", ".join(fmt_short(x) for x in z)
    lines += ["", f": Logits $z_t = ({logits})$ at three temperatures (@eq-temperature), and what the lab's sampler "
              f"draws (`{WORKED_FILE}`).", "", *worked_provenance(worked)]
    return "\n".join(lines)


def sampling_variables(s: dict) -> dict:
    """The sampling box: how long a run the greedy samples of two prompts share (greedy draws nothing at random)."""
    greedy = [x["text"] for x in s["samples"] if x["strategy"] == "greedy"]
    shared = claims.shared_runs(s).get(claims.GREEDY, (0, None, None))[0]
    return {"greedy_shared_run": fmt_int(shared), "sample_length": fmt_int(max(map(len, greedy), default=0))}


def variables(data: dict, worked: dict) -> dict:
    m = data["models"]
    models = {key: model_variables(m[key]) for key in MODEL_ORDER}
    return {
        "models": models,
        "compare": comparison_variables(m, models),
        "gradient": gradient_variables(data["gradient_by_distance"]),
        "clipping": clipping_variables(data["clipping_demo"]),
        "sampling": sampling_variables(data["sampling"]),
        "compute": compute_variables(data["provenance"]),
        **({"worked": worked_variables(worked)} if worked else {}),
    }


def partials(data: dict, worked: dict, values: dict) -> dict[str, str]:
    return {
        "_results-table.md": results_table(data, values),
        "_answer-saturation.md": answer_saturation(values),
        "_worked-one-unit.md": worked_rnn_table(worked),
        "_worked-temperature.md": worked_temperature_table(worked),
    }
