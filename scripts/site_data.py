#!/usr/bin/env python3
"""The site's pre-render step: turn data/baselines.json into what the pages show.

    python3 -m scripts.site_data                 # what `quarto render` runs first (project: pre-render)
    M3_BASELINES=tests/fixtures/baselines.json python3 -m scripts.site_data --out-root /tmp/x

Reads the measured results (data/baselines.json, or the file named by $M3_BASELINES), validates
them against data/baselines.schema.json and writes, under the output root (the project root by
default):

  _variables.yml                                   every measured number as a display string,
                                                   read by Quarto's {{< var key.sub >}} shortcode
  modules/03-sequence-models/_generated/_*.md      include partials: the results table of
                                                   section 6 with its provenance line, answers
                                                   that compute with measured numbers, the lab's
                                                   code listings and the two worked-example
                                                   tables (computed with the lab's own code), and
                                                   the Colab links (built from `course:` in
                                                   _quarto.yml)

Numbers are formatted by scripts/formatting.py and nowhere else (its `fmt_*` functions, called
here).  Pages never compute results and never contain a typed measured number;
tests/test_site_pages.py checks both.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

import yaml

from scripts import paths, results
from scripts.files import write_if_changed
from scripts.formatting import (fmt_fixed, fmt_int, fmt_num, fmt_percent, fmt_ppl, fmt_short,
                                fmt_ratio_times, fmt_sci)
from scripts.paths import GENERATED, ROOT

LISTED_FUNCTIONS = ("rnn_cell_step", "lstm_cell_step", "sample_with_temperature")
MODEL_ORDER = ("uniform", "bigram", "trigram", "best_ngram", "rnn", "lstm")


def warn(msg: str) -> None:
    bar = "!" * 78
    print(f"{bar}\nsite_data.py WARNING: {msg}\n{bar}", file=sys.stderr)


# --------------------------------------------------------------------------------------------
# Reading and validating the data
# --------------------------------------------------------------------------------------------
def baselines_path() -> Path:
    env = os.environ.get("M3_BASELINES")
    if env:
        p = Path(env)
        return p if p.is_absolute() else (ROOT / p)
    if paths.DATA_PATH.exists():
        return paths.DATA_PATH
    warn(f"{paths.rel(paths.DATA_PATH)} does not exist yet: the site is built from the TEST "
         f"FIXTURE {paths.rel(paths.FIXTURE)}, whose numbers are NOT measurements. Run `make data`.")
    return paths.FIXTURE


def course_settings() -> dict:
    cfg = yaml.safe_load(paths.QUARTO_CONFIG.read_text(encoding="utf-8")) or {}
    course = cfg.get("course") or {}
    for key in ("github", "branch", "notebook"):
        if not course.get(key):
            raise SystemExit(f"site_data.py: _quarto.yml has no course.{key}")
    return course


# --------------------------------------------------------------------------------------------
# The variables (one flat-ish tree of display strings)
# --------------------------------------------------------------------------------------------
def derived(data: dict) -> dict:
    """Numbers the prose computes from measured ones (never typed into a page)."""
    m = data["models"]
    g = data["gradient_by_distance"]
    s = g["rnn_spectral_norm_W"]
    out = {
        "lstm_lead_nats": m["best_ngram"]["test_nats"] - m["lstm"]["test_nats"],
        "rnn_lead_nats": m["best_ngram"]["test_nats"] - m["rnn"]["test_nats"],
        "lstm_rnn_ppl_gap": m["rnn"]["perplexity"] - m["lstm"]["perplexity"],
        "param_ratio": m["lstm"]["parameters"] / m["rnn"]["parameters"],
        "steps_ratio": m["lstm"]["training_steps"] / m["rnn"]["training_steps"],
    }
    # Section 4's check: (1 - h^2) * ||W|| < 1  <=>  h^2 > 1 - 1/||W||
    if s > 1:
        h2 = 1 - 1 / s
        h = math.sqrt(h2)
        out.update(h2_threshold=h2, h_threshold=h, preact_at_threshold=math.atanh(min(h, 0.999999)))
    else:
        out.update(h2_threshold=None, h_threshold=None, preact_at_threshold=None)
    out["factor_at_099"] = (1 - 0.99 ** 2) * s
    return out


def build_variables(data: dict, course: dict) -> dict:
    m, g, c, p = data["models"], data["gradient_by_distance"], data["clipping_demo"], data["provenance"]
    d = derived(data)
    models = {}
    for key in MODEL_ORDER:
        row = m[key]
        models[key] = {
            "label": row["label"],
            "nats": fmt_fixed(row["test_nats"], 4),
            "nats_2dp": fmt_fixed(row["test_nats"], 2),
            "ppl": fmt_ppl(row["perplexity"]),
            "bpc": fmt_fixed(row["bpc"], 2),
            "params": fmt_int(row.get("parameters")),
            "steps": fmt_int(row.get("training_steps")),
        }
        if "k" in row:
            models[key]["k"] = fmt_num(row["k"])
        if "n" in row:
            models[key]["n"] = str(row["n"])
        if "d_h" in row:
            models[key]["d_h"] = str(row["d_h"])
    zero = g["rnn_first_zero_distance"]
    ratio = g["lstm_rnn_ratio_at_50"]
    fg = g["forget_gate"]
    colab = (f"https://colab.research.google.com/github/{course['github']}/blob/"
             f"{course['branch']}/{course['notebook']}")
    return {
        "course": {
            "github": course["github"],
            "branch": course["branch"],
            "notebook": course["notebook"],
            "colab_url": colab,
        },
        "models": models,
        "compare": {
            "lstm_lead_nats": fmt_fixed(d["lstm_lead_nats"], 2),
            "rnn_lead_nats": fmt_fixed(d["rnn_lead_nats"], 2),
            "lstm_rnn_ppl_gap": fmt_fixed(d["lstm_rnn_ppl_gap"], 2),
            "param_ratio": fmt_fixed(d["param_ratio"], 1),
            "steps_ratio": fmt_ratio_times(d["steps_ratio"]),
        },
        "gradient": {
            "chunks": str(g["chunks"]),
            "chunk_length": str(g["chunk_length"]),
            "spectral_W": fmt_fixed(g["rnn_spectral_norm_W"], 1),
            "first_zero": str(zero) if zero is not None else "never (within the measured distances)",
            "ratio_at_50": fmt_sci(ratio) if ratio is not None else "not measurable (the RNN's is exactly 0 there)",
            "forget_mean": fmt_fixed(fg["mean"], 2),
            "forget_share_09": fmt_percent(fg["share_above_0.9"]),
            "forget_share_099": fmt_percent(fg["share_above_0.99"]),
        },
        "clipping": {
            "steps": str(c["steps"]),
            "lr": fmt_num(c["lr"]),
            "kappa": fmt_short(c["kappa"]),
            "clipped_final": fmt_fixed(c["clipped"]["final_loss"], 2),
            "unclipped_final": fmt_fixed(c["unclipped"]["final_loss"], 2),
        },
        "provenance": {
            "settings": p["settings"],
            "seed": str(p["seed"]),
            "device": p["device"],
            "device_type": p["device_type"],
            "run_phrase": run_phrase(p),
            "torch": p["torch"],
            "date": p["started_at"][:10],
            "git_commit": short_commit(p["git_commit"]),
        },
    }


def short_commit(commit: str) -> str:
    """'0123456789abcdef...+dirty' -> '0123456789ab+dirty'."""
    base, dirty = (commit[:-6], "+dirty") if commit.endswith("+dirty") else (commit, "")
    return base[:12] + dirty


def run_phrase(p: dict) -> str:
    """'full settings, seed 0, on a CPU, not yet on a Colab T4' and its GPU counterpart."""
    where = "on a CPU, not yet on a Colab T4" if p["device_type"] == "cpu" else f"on a GPU ({p['device']})"
    return f"{p['settings']} settings, seed {p['seed']}, {where}"


# --------------------------------------------------------------------------------------------
# Partials
# --------------------------------------------------------------------------------------------
def provenance_line(data: dict, v: dict) -> str:
    p = data["provenance"]
    pv = v["provenance"]
    return (f"*Provenance:* `data/baselines.json`, Lab 3 run with {p['settings']} settings, seed {p['seed']}, "
            f"on {p['device']} ({p['device_type']}), torch {p['torch']}, Python {p['python']}, "
            f"started {p['started_at']}, git commit `{pv['git_commit']}`, "
            f"lab source `{p['lab_source_sha256'][:12]}`.")


def results_table(data: dict, v: dict) -> str:
    m = data["models"]
    rows = []
    for key in MODEL_ORDER:
        row, vr = m[key], v["models"][key]
        label = row["label"]
        if key in ("bigram", "trigram"):
            label += f" (k = {vr['k']})"
        elif key == "best_ngram":
            label = label.replace("≤", "$\\le$") + f": n = {vr['n']}, add-k (k = {vr['k']})"
        elif key in ("rnn", "lstm"):
            dh = row.get("d_h")
            label += (f", $d_h$ = {dh}" if dh else "") + \
                f", {vr['steps']} training steps ({vr['params']} parameters)"
        lab = "–" if row["lab"] is None else str(row["lab"])
        rows.append(f"| {label} | {lab} | {vr['nats']} | {vr['ppl']} | {vr['bpc']} |")
    return "\n".join([
        "| Model | Lab | Test nats per character | Perplexity | Bits per character |",
        "|:-----------------------------------------|:---:|------:|------:|------:|",
        *rows,
        "",
        ": Test results on the same test characters, in the same units.",
        "",
        "::: {.provenance}",
        provenance_line(data, v),
        ":::",
        "",
    ])


def answer_saturation(data: dict, v: dict) -> str:
    """Section 4's check, computed with the data's spectral norm."""
    d = derived(data)
    s = v["gradient"]["spectral_W"]
    if d["h_threshold"] is None:
        return (f"With $\\lVert W \\rVert \\approx$ {s} the bound $(1 - h^2)\\,\\lVert W \\rVert$ is below 1 for "
                "every $|h|$: this trained RNN is in the sufficient case for vanishing.\n")
    inv = 1 / d["factor_at_099"] if d["factor_at_099"] > 0 else float("inf")
    return (
        f"We need $(1 - h^2) \\times {s} < 1$, so $h^2 > 1 - 1/{s} = {fmt_fixed(d['h2_threshold'], 3)}$ "
        f"and $|h| > {fmt_fixed(d['h_threshold'], 2)}$. A $\\tanh$ unit reaches {fmt_fixed(d['h_threshold'], 2)} "
        f"at a pre-activation of only about {fmt_fixed(d['preact_at_threshold'], 1)}, so this is ordinary behavior "
        f"for a trained network, not an extreme. At $|h| = 0.99$ the factor is "
        f"$(1 - 0.98) \\times {s} \\approx {fmt_fixed(d['factor_at_099'], 2)}$: the gradient loses a factor of "
        f"about {fmt_fixed(inv, 0)} per character. Real units are not all equally saturated, so this is a caricature, "
        f"but it shows how a spectral norm of {s} and a vanishing gradient can be compatible.\n"
    )


def code_listing(name: str, lab_source) -> str:
    if lab_source is None:
        return (f"::: {{.callout-warning}}\nThe listing of `{name}` is taken from the lab source, which was "
                "not available when the site was built.\n:::\n")
    src = lab_source.function_source(name).rstrip("\n")
    return f"```python\n{src}\n```\n"


def worked_rnn_table(ns: dict | None) -> str:
    """The one-unit RNN's three cases; the one-step factor is dh_t/dh_{t-1} of the lab's rnn_cell_step."""
    import torch

    def factor(w: float, h_target: float) -> float:
        # one step of the lab's cell with d = d_h = 1, arranged so that h_t = h_target
        W = torch.tensor([[w]], dtype=torch.float64)
        U = torch.tensor([[1.0]], dtype=torch.float64)
        h_prev = torch.zeros(1, 1, dtype=torch.float64, requires_grad=True)
        x = torch.tensor([[math.atanh(h_target)]], dtype=torch.float64)
        b = torch.zeros(1, dtype=torch.float64)
        step = ns["rnn_cell_step"] if ns else (lambda x_, h_, W_, U_, b_: torch.tanh(h_ @ W_.T + x_ @ U_.T + b_))
        h = step(x, h_prev, W, U, b)
        (gh,) = torch.autograd.grad(h.sum(), h_prev)
        return float(gh)

    def sci(x: float) -> str:
        return fmt_sci(x, tex=True)

    f1, f2, f3 = factor(0.9, 0.0), factor(2.0, 0.0), factor(2.0, 0.9)
    rows = [
        ("$w = 0.9$, any state", f"at most {fmt_fixed(f1, 1)}",
         f"over 50 steps: at most $0.9^{{50}} = {fmt_fixed(f1 ** 50, 3)}$", f"the same: {fmt_fixed(0.9 ** 50, 3)}"),
        ("$w = 2$, state near 0", f"$(1 - 0) \\times 2 = {fmt_short(f2)}$",
         f"over 20 steps: $2^{{20}} \\approx {sci(f2 ** 20)}$", f"${sci(2.0 ** 20)}$"),
        ("$w = 2$, state saturated at $h_j = 0.9$", f"$(1 - 0.81) \\times 2 = {fmt_fixed(f3, 2)}$",
         f"over 20 steps: ${fmt_fixed(f3, 2)}^{{20}} \\approx {sci(f3 ** 20)}$", f"${sci(2.0 ** 20)}$"),
    ]
    lines = ["| Case | One-step factor $(1 - h_j^2)\\,w$ | Product over a distance $t - s$ | Bound $\\lvert w \\rvert^{t-s}$ |",
             "|:--------------|:--------------|:------------------|:----------|"]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    src = "the lab's `rnn_cell_step`" if ns else "Equation 1 (the lab source was not available)"
    lines += ["", f": One hidden unit, three cases (the one-step factor is computed by autograd through {src}). "
              ""]
    return "\n".join(lines)


def worked_temperature_table(ns: dict | None) -> str:
    """Equation 12 on logits (2, 1, 0) at three temperatures, and a check against the lab's sampler."""
    import torch

    z = torch.tensor([2.0, 1.0, 0.0], dtype=torch.float64)
    lines = ["| Temperature $\\tau$ | $z_t / \\tau$ | $\\hat{y}_t^{(\\tau)}$ |", "|:---:|:---:|:---:|"]
    for tau in (0.5, 1.0, 2.0):
        scaled = z / tau
        probs = torch.softmax(scaled, dim=-1)
        if ns and "sample_with_temperature" in ns:
            gen = torch.Generator().manual_seed(0)
            draws = ns["sample_with_temperature"](z.float().expand(20000, 3), tau, generator=gen)
            freq = torch.bincount(draws.flatten(), minlength=3).double() / 20000
            if (freq - probs).abs().max() > 0.02:
                raise SystemExit(f"site_data.py: the lab's sample_with_temperature disagrees with "
                                 f"softmax(z/tau) at tau={tau}: {freq.tolist()} vs {probs.tolist()}")
        zs = ", ".join(fmt_short(x) for x in scaled.tolist())
        ps = ",\\ ".join(fmt_fixed(x, 3) for x in probs.tolist())
        lines.append(f"| {fmt_short(tau)} | $({zs})$ | $({ps})$ |")
    lines += ["", ": Logits $z_t = (2, 1, 0)$ at three temperatures (Equation 12).", ""]
    return "\n".join(lines)


def colab_partials(v: dict) -> dict[str, str]:
    url = v["course"]["colab_url"]
    return {
        "_colab-link.md": f"[Open the lab in Colab]({url}){{.colab-link}}\n",
        "_colab-badge.md": (f"[Open in Colab]({url}){{.btn .btn-warning .btn-lg .colab-badge role=\"button\"}}\n"),
    }


def load_lab_source():
    try:
        from scripts import lab_source  # load_lab(), function_source()
    except ImportError as exc:
        warn(f"scripts/lab_source.py is not importable ({exc}): code listings are placeholders and the "
             "worked examples use a stand-in for the lab's code.")
        return None, None
    try:
        ns = lab_source.load_lab(mode="solution")
    except Exception as exc:  # noqa: BLE001 - report and fall back
        warn(f"load_lab(mode='solution') failed ({exc!r}); worked examples use a stand-in.")
        ns = None
    return lab_source, ns


def write_text(path: Path, text: str) -> None:
    """Write a generated file ending in exactly one newline, only when its content changed."""
    write_if_changed(path, text.rstrip("\n") + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out-root", type=Path, default=ROOT,
                    help="where to write _variables.yml and the _generated partials (default: project root)")
    ap.add_argument("--no-lab", action="store_true", help="do not import the lab (listings become placeholders)")
    args = ap.parse_args(argv)

    path = baselines_path()
    try:
        data = results.load_results(path)       # the build's one reader: strict JSON, schema-checked
    except results.ResultsError as err:
        print(f"site_data: {err}", file=sys.stderr)
        return 1
    course = course_settings()
    v = build_variables(data, course)
    lab_source, ns = (None, None) if args.no_lab else load_lab_source()

    header = f"# GENERATED by scripts/site_data.py from {path.name}; do not edit.\n"
    write_text(args.out_root / "_variables.yml",
               header + yaml.safe_dump(v, allow_unicode=True, sort_keys=False, width=1000))
    gen = args.out_root / GENERATED
    partials = {
        "_results-table.md": results_table(data, v),
        "_answer-saturation.md": answer_saturation(data, v),
        "_worked-one-unit.md": worked_rnn_table(ns),
        "_worked-temperature.md": worked_temperature_table(ns),
        **{f"_code-{name.replace('_', '-')}.md": code_listing(name, lab_source) for name in LISTED_FUNCTIONS},
        **colab_partials(v),
    }
    for name, text in partials.items():
        write_text(gen / name, text)
    print(f"site_data.py: {path} -> {args.out_root / '_variables.yml'} and {len(partials)} partials in {gen}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
