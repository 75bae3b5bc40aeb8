#!/usr/bin/env python3
"""What the pages show, formatted from the build's data: committed files that Quarto reads.

    python3 -m scripts.site_data            # rewrite them from data/ (make site, after the build)
    python3 -m scripts.site_data --check    # what `quarto render` runs first: no writes, no torch
    M3_BASELINES=tests/fixtures/baselines.json python3 -m scripts.site_data --out-root /tmp/x

Reads data/baselines.json (the lab's measurements, or the file named by $M3_BASELINES),
data/worked_examples.json (the worked examples computed with the lab's code by
scripts/worked_examples.py, or $M3_WORKED_EXAMPLES), the lab source as text (the listings) and
`course:` in _quarto.yml (the Colab link), and writes, under the output root (the project root by
default):

  _variables.yml                               every number the prose shows, as display text, read
                                               by Quarto's {{< var key.sub >}} shortcode
  modules/03-sequence-models/_generated/_*.md  include partials: the results table with its
                                               provenance, the section 4 answer, the two worked
                                               examples, the lab's code listings, the Colab button

These files are committed, so a fresh clone renders with `quarto render` alone (Quarto resolves
includes before any pre-render step).  --check stops the render when a data file is missing or
invalid, naming it and the problem, or when a committed file is not what the data gives (a data
change not yet formatted), naming the files and the command that fixes them.  Nothing falls back
to the test fixture.  Numbers become text in scripts/formatting.py; shown arithmetic is computed
from the shown, rounded numbers, so a reader who redoes it gets the same result.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

import yaml

from scripts import claims, lab_source, paths, results
from scripts.files import write_if_changed
from scripts.formatting import (fmt_fixed, fmt_int, fmt_num, fmt_percent, fmt_ppl, fmt_ratio_times, fmt_sci,
                                fmt_short)

LISTED_FUNCTIONS = ("rnn_cell_step", "lstm_cell_step", "sample_with_temperature")
MODEL_ORDER = ("uniform", "bigram", "trigram", "best_ngram", "rnn", "lstm")
FIX_COMMAND = "python3 -m scripts.site_data"


class SiteDataError(Exception):
    """A data file is missing or invalid, or a committed page file is out of date."""


# --------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------
def input_path(env: str, default: Path) -> Path:
    value = os.environ.get(env)
    return default if not value else (Path(value) if Path(value).is_absolute() else paths.ROOT / value)


def load_baselines() -> tuple[Path, dict]:
    path = input_path("M3_BASELINES", paths.DATA_PATH)
    try:
        return path, results.load_results(path)    # the build's one reader: strict JSON, schema-checked
    except results.ResultsError as err:
        raise SiteDataError(str(err)) from err


WORKED_SHAPE = {"one_unit_rnn": ("cases", ("w", "h", "distance", "factor")),
                "temperature": ("rows", ("tau", "probs", "frequencies"))}


def load_worked_examples() -> dict:
    path = input_path("M3_WORKED_EXAMPLES", paths.WORKED_EXAMPLES)
    if not path.exists():
        raise SiteDataError(f"{paths.rel(path)} does not exist: run `python3 -m scripts.worked_examples`")
    try:
        worked = results.read_json(path)
        missing = [k for k in ("lab_source_sha256", "torch", "seed") if k not in worked["provenance"]]
        if missing:
            raise KeyError(f"provenance lacks {', '.join(missing)}")
        for part, (rows, keys) in WORKED_SHAPE.items():
            for row in worked[part][rows]:
                missing = [k for k in keys if k not in row]
                if missing:
                    raise KeyError(f"{part}.{rows}[] lacks {', '.join(missing)}")
    except (ValueError, KeyError, TypeError) as err:
        raise SiteDataError(f"{paths.rel(path)} is not a worked-examples file ({err}): "
                            "run `python3 -m scripts.worked_examples`") from err
    return worked


def course_settings() -> dict:
    cfg = yaml.safe_load(paths.QUARTO_CONFIG.read_text(encoding="utf-8")) or {}
    course = cfg.get("course") or {}
    missing = [key for key in ("github", "branch", "notebook") if not course.get(key)]
    if missing:
        raise SiteDataError(f"{paths.rel(paths.QUARTO_CONFIG)} has no course.{', course.'.join(missing)}")
    return course


# --------------------------------------------------------------------------------------------
# The variables: one tree of display strings, one function per part of the data
# --------------------------------------------------------------------------------------------
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


def comparison_variables(m: dict) -> dict:
    return {
        "lstm_lead_nats": fmt_fixed(m["best_ngram"]["test_nats"] - m["lstm"]["test_nats"], 2),
        "rnn_lead_nats": fmt_fixed(m["best_ngram"]["test_nats"] - m["rnn"]["test_nats"], 2),
        "lstm_rnn_ppl_gap": fmt_fixed(m["rnn"]["perplexity"] - m["lstm"]["perplexity"], 2),
        "param_ratio": fmt_fixed(m["lstm"]["parameters"] / m["rnn"]["parameters"], 1),
        "steps_ratio": fmt_ratio_times(m["lstm"]["training_steps"] / m["rnn"]["training_steps"]),
    }


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
    # the LSTM box: what a constant gate at the mean would keep over 50 steps, against the measured fall; both
    # from the unrounded data, to two figures, as the notebook prints them (9.3e-08 there, 9.3 × 10⁻⁸ here)
    if not {0, 50} <= set(g["distance"]):
        raise SiteDataError("gradient_by_distance lacks distance 0 or 50, which the LSTM box compares")
    out["forget_mean_pow_50"] = fmt_sci(fg["mean"] ** 50, 2)
    out["lstm_fall_50"] = fmt_sci(claims.lstm_fall(g, 50), 2)
    out.update(direct_path_variables(g))
    return out


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
    }


def clipping_variables(c: dict) -> dict:
    return {
        "steps": str(c["steps"]),
        "lr": fmt_num(c["lr"]),
        "kappa": fmt_short(c["kappa"]),
        "clipped_final": fmt_fixed(c["clipped"]["final_loss"], 2),
        "unclipped_final": fmt_fixed(c["unclipped"]["final_loss"], 2),
    }


def short_commit(commit: str) -> str:
    """'0123456789abcdef...+dirty' -> '0123456789ab+dirty'."""
    base, dirty = (commit[:-6], "+dirty") if commit.endswith("+dirty") else (commit, "")
    return base[:12] + dirty


def run_phrase(p: dict) -> str:
    """'full settings, seed 0, on a CPU, not yet on a Colab T4' and its GPU counterpart."""
    where = "on a CPU, not yet on a Colab T4" if p["device_type"] == "cpu" else f"on a GPU ({p['device']})"
    return f"{p['settings']} settings, seed {p['seed']}, {where}"


def lab_compute(p: dict) -> str:
    """How long the build's run of the lab took, and where: '10 minutes on a CPU (AMD EPYC), ...'.
    A build from existing results (--from-results) times no lab run, and says so."""
    seconds = p.get("duration_s", {}).get("lab")
    if seconds is None:
        return "not timed in this build; not yet timed on a Colab T4"
    minutes = max(1, round(seconds / 60))
    where = (f"on a CPU ({p['device']}), at {p['settings']} settings; not yet timed on a Colab T4"
             if p["device_type"] == "cpu" else f"on a GPU ({p['device']}), at {p['settings']} settings")
    return f"{minutes} minute{'s' if minutes != 1 else ''} {where}"


def provenance_variables(p: dict) -> dict:
    out = {
        "settings": p["settings"],
        "seed": str(p["seed"]),
        "device": p["device"],
        "device_type": p["device_type"],
        "run_phrase": run_phrase(p),
        "torch": p["torch"],
        "date": p["started_at"][:10],
        "git_commit": short_commit(p["git_commit"]),
    }
    out["lab_compute"] = lab_compute(p)
    return out


def course_variables(course: dict) -> dict:
    colab = (f"https://colab.research.google.com/github/{course['github']}/blob/"
             f"{course['branch']}/{course['notebook']}")
    return {"github": course["github"], "branch": course["branch"], "notebook": course["notebook"],
            "colab_url": colab}


def build_variables(data: dict, course: dict) -> dict:
    m = data["models"]
    return {
        "course": course_variables(course),
        "models": {key: model_variables(m[key]) for key in MODEL_ORDER},
        "compare": comparison_variables(m),
        "gradient": gradient_variables(data["gradient_by_distance"]),
        "clipping": clipping_variables(data["clipping_demo"]),
        "provenance": provenance_variables(data["provenance"]),
    }


# --------------------------------------------------------------------------------------------
# Partials
# --------------------------------------------------------------------------------------------
def provenance_line(p: dict) -> str:
    return (f"*Provenance:* `data/baselines.json`, Lab 3 run with {p['settings']} settings, seed {p['seed']}, "
            f"on {p['device']} ({p['device_type']}), torch {p['torch']}, Python {p['python']}, "
            f"started {p['started_at']}, git commit `{short_commit(p['git_commit'])}`, "
            f"lab source `{p['lab_source_sha256'][:12]}`.")


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
        provenance_line(data["provenance"]),
        ":::",
        "",
    ])


def answer_saturation(v: dict) -> str:
    """Section 4's check with the data's spectral norm; each step computed from the number shown
    before it, so the arithmetic on the page is right as printed."""
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


def code_listing(name: str) -> str:
    """A function of the lab, as the solution notebook has it (read as text: nothing is run)."""
    return f"```python\n{lab_source.function_source(name).rstrip()}\n```\n"


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


def worked_provenance(worked: dict) -> list[str]:
    """The worked examples' provenance, in its own div below each of their tables."""
    p = worked["provenance"]
    return ["::: {.provenance}",
            f"*Provenance:* `data/worked_examples.json`, computed by `python3 -m scripts.worked_examples` with the "
            f"lab's own functions (lab source `{p['lab_source_sha256'][:12]}`), torch {p['torch']}, seed {p['seed']}.",
            ":::", ""]


def worked_rnn_table(worked: dict) -> str:
    return "\n".join([
        "| Case | One-step factor $(1 - h_j^2)\\,w$ | Product over a distance $t - s$ | Bound $\\lvert w \\rvert^{t-s}$ |",
        "|:--------------|:--------------|:------------------|:----------|",
        *(one_unit_row(case) for case in worked["one_unit_rnn"]["cases"]),
        "",
        ": One hidden unit, three cases (the one-step factor is computed by autograd through the lab's "
        "`rnn_cell_step`, in `data/worked_examples.json`).",
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
              "draws (`data/worked_examples.json`).", "", *worked_provenance(worked)]
    return "\n".join(lines)


def colab_badge(v: dict) -> str:
    return (f"[Open in Colab]({v['course']['colab_url']})"
            "{.btn .btn-warning .btn-lg .colab-badge role=\"button\"}\n")


# --------------------------------------------------------------------------------------------
# Writing and checking
# --------------------------------------------------------------------------------------------
def site_files(data: dict, worked: dict, course: dict, source_name: str) -> dict[Path, str]:
    """Every file this writes, relative to the output root, with its text."""
    v = build_variables(data, course)
    header = f"# GENERATED by `{FIX_COMMAND}` from data/{source_name}; do not edit.\n"
    partials = {
        "_results-table.md": results_table(data, v),
        "_answer-saturation.md": answer_saturation(v),
        "_worked-one-unit.md": worked_rnn_table(worked),
        "_worked-temperature.md": worked_temperature_table(worked),
        "_colab-badge.md": colab_badge(v),
        **{f"_code-{name.replace('_', '-')}.md": code_listing(name) for name in LISTED_FUNCTIONS},
    }
    files = {Path("_variables.yml"): header + yaml.safe_dump(v, allow_unicode=True, sort_keys=False, width=1000)}
    files.update({paths.GENERATED / name: text for name, text in partials.items()})
    return {path: text.rstrip("\n") + "\n" for path, text in files.items()}


def leftovers(files: dict[Path, str], root: Path) -> list[Path]:
    """Partials under `root` that this no longer writes (a renamed or dropped one)."""
    folder = root / paths.GENERATED
    return sorted(p.relative_to(root) for p in folder.glob("*") if p.relative_to(root) not in files) \
        if folder.is_dir() else []


def out_of_date(files: dict[Path, str], root: Path) -> list[str]:
    """The files under `root` that are missing, differ from `files`, or are left over."""
    stale = []
    for rel, text in files.items():
        target = root / rel
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            stale.append(str(rel))
    return stale + [f"{rel} (no longer written)" for rel in leftovers(files, root)]


def run(out_root: Path, check: bool) -> str:
    path, data = load_baselines()
    files = site_files(data, load_worked_examples(), course_settings(), path.name)
    if check:
        stale = out_of_date(files, out_root)
        if stale:
            raise SiteDataError(f"not what data/ gives (a data change not yet formatted): {', '.join(stale)}; "
                                f"run `{FIX_COMMAND}` and commit the result")
        return f"site_data: the {len(files)} page data files are up to date with {paths.rel(path)}"
    for rel in files:
        (out_root / rel).parent.mkdir(parents=True, exist_ok=True)
    written = [rel for rel, text in files.items() if write_if_changed(out_root / rel, text)]
    for rel in leftovers(files, out_root):
        (out_root / rel).unlink()
    return f"site_data: {paths.rel(path)} -> {len(files)} files under {out_root} ({len(written)} changed)"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out-root", type=Path, default=paths.ROOT,
                    help="where _variables.yml and the _generated partials live (default: project root)")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; fail if the data is missing or invalid or the files are out of date")
    args = ap.parse_args(argv)
    try:
        print(run(args.out_root, args.check))
    except SiteDataError as err:
        print(f"site_data: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
