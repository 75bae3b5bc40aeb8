"""Module 3's pages, checked without Quarto (the rules every module's pages obey: tests/test_page_rules.py).

scripts/pages/site_data.py formats the test fixture into a temporary directory (and the committed
data into the committed page files, checked here); the pages are then expanded the way Quarto expands
them ({{< include >}} textually, {{< meta data.KEY >}} from the module's _metadata.yml), by the project's
one include expansion (tests/js/qmd-files.mjs), and parsed with pandoc, the engine Quarto is built on.  The tests
check structure (equations, cross-references, callouts, figures, includes, glossary anchors) and
that every measured number on a page comes from the data, never from the page.
"""
from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from scripts.measure import claims, results

from scripts.paths import ROOT
from tests.support import fixture, pandoc_ast, section_text, this_module

M3 = this_module(__file__)    # the module these tests belong to (their folder's)

MODULE = M3.dir
FIXTURE = M3.fixture
GENERATED_REL = M3.generated
MODULE_PAGE = MODULE / "index.qmd"
PAGES = [ROOT / "index.qmd", MODULE_PAGE, MODULE / "lab.qmd", MODULE / "glossary.qmd", MODULE / "slides.qmd"]  # slides: the deck

EQUATIONS = [  # (label, the spec's equation number) in the order of the spec
    "eq-rnn-step", "eq-output", "eq-loss", "eq-perplexity", "eq-bptt", "eq-jacobian-product",
    "eq-one-step-jacobian", "eq-norm-bound", "eq-clipping", "eq-lstm", "eq-direct-path",
    "eq-temperature",
]
FIGURES = {"fig-rnn-unrolled": f"figures/{M3.id}/rnn-unrolled.svg", "fig-lstm-cell": f"figures/{M3.id}/lstm-cell.svg"}
MEASURED_FIGURES = [f"figures/{M3.id}/{name}" for name in M3.code.plots.FIGURE_NAMES]
AFTER_THE_LAB = [
    "After the Lab: What Lab 3 Measured in Exercise 3A",
    "After the Lab: What Lab 3 Measured in Exercise 3B",
    "After the Lab: What Lab 3 Measured for the LSTM's Gradient",
    "After the Lab: How Far the Trained LSTM's Gates Carry",
    "After the Lab: What Lab 3 Measured",
    "After the Lab: Sampling from the LSTM You Trained",
]
GLOSSARY_REQUIRED = ["rnn", "teacher-forcing", "lstm", "bptt", "perplexity", "bits-per-character",
                     "exposure-bias", "gradient-clipping", "forget-gate", "gru", "top-k-sampling",
                     "nucleus-sampling", "truncated-bptt", "cell-state", "greedy-decoding", "temperature"]
# measured numbers as the spec prints them (from its build run); none may be typed into a page
SPEC_MEASURED = ["4.1744", "2.4922", "2.0859", "1.8326", "1.6959", "1.6114", "12.09", "8.05", "6.25",
                 "5.45", "5.01", "6.02", "3.60", "3.01", "2.64", "2.45", "2.32", "0.22", "0.14", "0.44",
                 "5.2", "9.34", "2.11", "4.17", "0.74", "1,437", "138", "0.808", "0.90", "0.10"]


# --------------------------------------------------------------------------------------------
# Helpers: run the pre-render, expand a page like Quarto, parse it with pandoc
# --------------------------------------------------------------------------------------------
def run_site_data(out_root: Path, results_file: Path = FIXTURE) -> dict:
    """The module's page data from `results_file`, written under out_root; returns its values (`data:`)."""
    res = subprocess.run([sys.executable, "-m", "scripts.pages.site_data", "--module", M3.id, "--results", str(results_file),
                          "--out-root", str(out_root)], capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    return yaml.safe_load((out_root / M3.metadata_file).read_text(encoding="utf-8"))["data"]


# Quarto expands an include only where it starts a line (leading spaces allowed; quarto-cli #1767),
# and it does so before parsing, so also inside an HTML comment.
INCLUDE = re.compile(r"^[ \t]*\{\{<\s*include\s+(\S+?)\s*>\}\}", flags=re.M)
QMD_FILES = ROOT / "tests" / "js" / "qmd-files.mjs"     # the project's one include expansion


def include_target(name: str, page: Path, gen_root: Path) -> Path:
    """Where Quarto finds an include: relative to the including file, or the project if it starts with /.
    Generated partials are looked up in gen_root (the pre-render's output) first."""
    base = ROOT if name.startswith("/") else page.parent
    target = (base / name.lstrip("/")).resolve()
    rel = target.relative_to(ROOT)
    if rel.parts[:3] == GENERATED_REL.parts:
        return gen_root / rel
    return target


def expand(page: Path, gen_root: Path, variables: dict | None) -> str:
    """The page as Quarto reads it: includes expanded (generated files from gen_root) and, unless
    `variables` is None, its {{< meta >}} values; strict (a missing include, a loop or an unknown key fails)."""
    cmd = ["node", str(QMD_FILES), "expand", str(page), "--generated-root", str(gen_root), "--strict"]
    res = subprocess.run(cmd + (["--no-meta"] if variables is None else []), capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    return res.stdout


def walk(node, fn):
    """Call fn on every dict node (pandoc element) in the AST."""
    if isinstance(node, dict):
        fn(node)
        for v in node.values():
            walk(v, fn)
    elif isinstance(node, list):
        for v in node:
            walk(v, fn)


def stringify(node) -> str:
    out = []

    def f(n):
        t = n.get("t")
        if t == "Str":
            out.append(n["c"])
        elif t in ("Space", "SoftBreak", "LineBreak"):
            out.append(" ")
        elif t == "Math":
            out.append(n["c"][1])
        elif t == "Code":
            out.append(n["c"][1])
    walk(node, f)
    return "".join(out)


def plain_text(text: str) -> str:
    import pypandoc

    return pypandoc.convert_text(text, "plain", format="markdown", extra_args=["--wrap=none"])


META_DATA = re.compile(r"\{\{<\s*meta\s+data\.([\w.\-]+)\s*>\}\}")


def shown_values(page: Path, gen_root: Path, variables: dict) -> dict[str, list[str]]:
    """What the expanded page shows at each of its {{< meta data.KEY >}}: KEY -> the text at each place, read
    off the page with its values filled in against the same page with the shortcodes left in, so that a check
    of a value names the data key it comes from and assumes none of the page's words."""
    template, text = expand(page, gen_root, None), expand(page, gen_root, variables)
    parts = META_DATA.split(template)                 # text, key, text, key, ..., text
    literals, keys = parts[0::2], parts[1::2]
    assert all(literals[1:-1]), f"{page.name}: two meta shortcodes side by side cannot be told apart"
    pattern = "([^\n]*?)".join(re.escape(lit) for lit in literals)
    m = re.fullmatch(pattern, text, flags=re.S)
    assert m, f"{page.name}: the expanded page is not the page with its meta values filled in"
    shown: dict[str, list[str]] = {}
    for key, value in zip(keys, m.groups()):
        shown.setdefault(key, []).append(value)
    return shown


def assert_shown(shown: dict[str, list[str]], expected: dict[str, str]) -> None:
    """Each data key is on the page, and every place it is shows exactly the expected text."""
    for key, value in expected.items():
        assert key in shown, f"the page no longer shows data.{key}"
        assert set(shown[key]) == {value}, f"data.{key}: the page shows {shown[key]}, not {value!r}"


def math_of(text: str) -> list[str]:
    """The TeX of every math span in a Markdown text, as pandoc parses it (the prose around them left out)."""
    found = []
    walk(pandoc_ast(text)["blocks"], lambda n: found.append(n["c"][1]) if n.get("t") == "Math" else None)
    return found


def prose_numbers(text: str) -> list[str]:
    """The numbers of a Markdown text outside its math and code, in order (their words left out)."""
    words = []
    walk(pandoc_ast(text)["blocks"], lambda n: words.append(n["c"]) if n.get("t") == "Str" else None)
    return re.findall(r"(?<![\d.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?!\d)", " ".join(words))


def results_row(table: str, key: str, data: dict) -> list[str]:
    """The cells of model `key`'s row of the generated results table (found by the label the data gives it)."""
    start = "| " + data["models"][key]["label"].split(",")[0].replace("≤", "$\\le$")
    line = next(line for line in table.splitlines() if line.startswith(start))
    return [c.strip() for c in line.strip("|").split("|")]


@pytest.fixture(scope="module")
def gen(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    variables = run_site_data(out)
    return out, variables


@pytest.fixture(scope="module")
def module_text(gen):
    out, variables = gen
    return expand(MODULE_PAGE, out, variables)


@pytest.fixture(scope="module")
def module_ast(module_text):
    return pandoc_ast(module_text)


# --------------------------------------------------------------------------------------------
# The pre-render step
# --------------------------------------------------------------------------------------------
GENERATED_NAMES = ["_results-table.md", "_answer-saturation.md", "_worked-one-unit.md", "_worked-temperature.md",
                   "_code-rnn-cell-step.md", "_code-lstm-cell-step.md", "_code-sample-with-temperature.md"]


def site_data(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scripts.pages.site_data", *args], env=dict(os.environ, **(env or {})),
                          capture_output=True, text=True, cwd=ROOT)


def test_site_data_validates_and_writes_everything(gen):
    out, variables = gen
    assert sorted(p.name for p in (out / GENERATED_REL).iterdir()) == sorted(GENERATED_NAMES)
    assert variables["models"]["lstm"]["ppl"] == "5.01"


def test_site_data_rejects_invalid_data(tmp_path):
    bad = fixture(M3)
    del bad["models"]["lstm"]["perplexity"]
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(bad))
    res = site_data("--module", M3.id, "--out-root", str(tmp_path), "--results", str(p))
    assert res.returncode == 1 and "perplexity" in res.stderr and "bad.json" in res.stderr
    assert not (tmp_path / M3.metadata_file).exists(), "nothing is written from invalid data"


@pytest.mark.parametrize("option", ["--results", "--worked-examples"])
def test_a_missing_data_file_stops_with_its_name_and_no_fixture_fallback(tmp_path, option):
    missing = tmp_path / "data" / "nothing-here.json"
    for args in (["--check"], ["--out-root", str(tmp_path)]):
        res = site_data("--module", M3.id, *args, option, str(missing))
        assert res.returncode == 1, res.stdout
        assert "nothing-here.json" in res.stderr and "does not exist" in res.stderr
        assert "fixture" not in (res.stdout + res.stderr).lower()
    assert not (tmp_path / M3.metadata_file).exists()


def test_the_committed_page_files_are_what_the_committed_data_gives():
    """A fresh clone renders with `quarto render` alone: the module's _metadata.yml and partials are
    committed, and the render's pre-render step (site_data --check) passes on them."""
    tracked = subprocess.run(["git", "ls-files", str(M3.metadata_file), str(GENERATED_REL)], cwd=ROOT,
                             capture_output=True, text=True).stdout.split()
    assert sorted(tracked) == sorted([str(M3.metadata_file)] + [f"{GENERATED_REL}/{n}" for n in GENERATED_NAMES]), \
        "the page files are committed (git add them after `python3 -m scripts.pages.site_data`)"
    res = site_data("--check")
    assert res.returncode == 0, res.stderr


def test_check_names_a_stale_or_left_over_page_file(tmp_path):
    run_site_data(tmp_path, M3.results)
    assert site_data("--check", "--out-root", str(tmp_path)).returncode == 0
    table = tmp_path / GENERATED_REL / "_results-table.md"
    table.write_text(table.read_text(encoding="utf-8").replace("|", "¦", 1), encoding="utf-8")
    (tmp_path / GENERATED_REL / "_colab-link.md").write_text("old\n", encoding="utf-8")
    res = site_data("--check", "--out-root", str(tmp_path))
    assert res.returncode == 1
    assert "_results-table.md" in res.stderr and "_colab-link.md (no longer written)" in res.stderr
    assert f"python3 -m scripts.pages.site_data --module {M3.id}" in res.stderr
    assert table.read_text(encoding="utf-8").startswith("¦"), "--check writes nothing"


@pytest.mark.slow
def test_the_committed_worked_examples_are_what_the_lab_computes():
    res = subprocess.run([sys.executable, "-m", "scripts.measure.worked_examples", "--check"], cwd=ROOT,
                         capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
    assert res.returncode == 0, res.stdout + res.stderr


# --------------------------------------------------------------------------------------------
# Structure of the briefing
# --------------------------------------------------------------------------------------------
def display_math_labels(text: str) -> list[tuple[str, str | None]]:
    """(tex, label or None) for every display equation, in order."""
    return [(m.group(1), m.group(2)) for m in
            re.finditer(r"\$\$(.+?)\$\$[ \t]*(?:\{#(eq-[\w-]+)\})?", text, flags=re.S)]


def test_twelve_equations_labelled_in_order(module_text):
    eqs = display_math_labels(module_text)
    labels = [label for _, label in eqs if label]
    assert labels == EQUATIONS, "the 12 labelled equations, in the spec's order 1..12"
    unlabelled = [tex for tex, label in eqs if not label]
    assert len(unlabelled) == 2, "the GRU equations and the conversion formula are not numbered"
    assert any("u_t &=" in t for t in unlabelled) and any("N_c / N_w" in t for t in unlabelled)
    assert "\\tag" not in module_text


def test_equations_parse_as_display_math(module_ast):
    found = []

    def f(n):
        if n.get("t") == "Para":
            c = n["c"]
            for i, el in enumerate(c):
                if el.get("t") == "Math" and el["c"][0]["t"] == "DisplayMath":
                    rest = stringify({"c": c[i + 1:i + 3]}).strip()
                    m = re.match(r"\{#(eq-[\w-]+)\}", rest)
                    if m:
                        found.append(m.group(1))
    walk(module_ast["blocks"], f)
    assert found == EQUATIONS


def test_cross_references_resolve(gen):
    out, variables = gen
    for page in PAGES:
        text = expand(page, out, variables)
        labels = {l for _, l in display_math_labels(text) if l} | set(re.findall(r"\{#(fig-[\w-]+)", text))
        refs = set(re.findall(r"(?<![\w/])@((?:eq|fig|tbl|sec)-[\w-]*\w)", text))
        missing = refs - labels
        assert not missing, f"{page.name}: unresolved cross-references {missing}"


def test_equation_n_in_prose_is_a_cross_reference():
    text = MODULE_PAGE.read_text(encoding="utf-8")
    typed = re.findall(r"Equation[s]?\s+\d+", text)
    assert not typed, f"typed equation numbers (use @eq-...): {typed}"
    refs = re.findall(r"@(eq-[\w-]*\w)", text)
    assert set(refs) == set(EQUATIONS), "every equation is referenced from the prose"


def test_figures_are_cross_referenced_and_exist(module_text):
    for fid, path in FIGURES.items():
        m = re.search(r"!\[(.+?)\]\(([^)]+)\)\{#" + fid + r"([ }][^}]*)", module_text, flags=re.S)
        assert m, f"figure {fid}"
        # a drawn diagram is marked .diagram: site.css keeps it readable on a phone by that class
        assert ".diagram" in m.group(3).split(), f"figure {fid} is a diagram: {{#{fid} .diagram ...}}"
        assert (MODULE / m.group(2)).resolve() == (ROOT / path).resolve()
        assert f"@{fid}" in module_text
    assert module_text.index("{#fig-rnn-unrolled") < module_text.index("{#fig-lstm-cell")
    for path in list(FIGURES.values()) + MEASURED_FIGURES:
        assert (ROOT / path).exists(), f"{path} (drawn by scripts/) is missing"


def test_every_image_target_exists(gen):
    out, variables = gen
    for page in PAGES:
        ast = pandoc_ast(expand(page, out, variables))
        targets = []
        walk(ast["blocks"], lambda n: targets.append(n["c"][2][0]) if n.get("t") == "Image" else None)
        for t in targets:
            if not re.match(r"https?:", t):
                assert (page.parent / t).resolve().exists(), f"{page.name}: image {t} is missing"


def test_measured_figures_only_inside_after_the_lab_boxes(module_ast):
    seen = []

    def f(n):
        if n.get("t") == "Div" and "callout-note" in n["c"][0][1]:
            imgs = []
            walk(n["c"][1], lambda m: imgs.append(m["c"][2][0]) if m.get("t") == "Image" else None)
            seen.extend(Path(i).name for i in imgs)
    walk(module_ast["blocks"], f)
    assert sorted(seen) == sorted(Path(p).name for p in MEASURED_FIGURES)


def test_each_after_the_lab_box_shows_only_its_own_measurement(module_ast):
    """Part A's box comes before the LSTM's prediction: it shows the RNN alone, never the LSTM curve."""
    images = {}
    for _, _, title, blocks in callouts(module_ast):
        found = []
        walk(blocks, lambda m: found.append(Path(m["c"][2][0]).name) if m.get("t") == "Image" else None)
        images[title.replace("\u2019", "'")] = found
    assert images[AFTER_THE_LAB[0]] == ["gradient-rnn.svg"], images[AFTER_THE_LAB[0]]
    assert images[AFTER_THE_LAB[2]] == ["gradient-by-distance.svg"], images[AFTER_THE_LAB[2]]


def callouts(ast) -> list[tuple[list[str], dict, str, list]]:
    """(classes, attributes, title, body blocks) of each callout Div."""
    out = []

    def f(n):
        if n.get("t") == "Div":
            (_id, classes, kvs), blocks = n["c"]
            if any(c.startswith("callout-") for c in classes):
                title = stringify(blocks[0]) if blocks and blocks[0]["t"] == "Header" else ""
                out.append((classes, dict(kvs), title, blocks))
    walk(ast["blocks"], f)
    return out


def test_every_check_yourself_has_a_collapsed_answer(module_ast):
    blocks = module_ast["blocks"]
    checks = 0
    for i, b in enumerate(blocks):
        if b["t"] == "Para" and stringify(b).startswith("Check yourself."):
            checks += 1
            nxt = blocks[i + 1]
            assert nxt["t"] == "Div", f"no answer callout after: {stringify(b)[:60]}"
            (_id, classes, kvs), inner = nxt["c"]
            assert "callout-tip" in classes and dict(kvs).get("collapse") == "true"
            assert inner[0]["t"] == "Header" and stringify(inner[0]) == "Answer"
            assert len(inner) > 1 and stringify(inner[1:]).strip(), "the answer is not empty"
    assert checks == 7, "the spec has seven Check yourself questions (sections 2, 3, 4 (two), 5, 6, 7)"


def test_every_after_the_lab_box_is_collapsed(module_ast, module_text):
    boxes = [(c, a, t) for c, a, t, _ in callouts(module_ast) if t.startswith("After the Lab")]
    assert [t.replace("\u2019", "'") for _, _, t in boxes] == AFTER_THE_LAB
    for classes, attrs, title in boxes:
        assert "callout-note" in classes and attrs.get("collapse") == "true", title
    # and no After-the-Lab text outside a callout
    assert module_text.count("## After the Lab") == len(AFTER_THE_LAB)


def test_sections_in_the_spec_order(module_ast):
    heads = []
    walk(module_ast["blocks"], lambda n: heads.append((n["c"][0], stringify(n))) if n.get("t") == "Header" else None)
    top = [t for level, t in heads if level == 2]
    expected = ["What You Will Build", "Before You Start", "In the Lab", "Agenda",
                "1. Where Module 2 Left Us", "2. The Recurrent Neural Network", "3. The RNN Language Model",
                "4. Backpropagation Through Time", "5. The LSTM", "6. Measuring the Improvement Fairly",
                "7. Generating Text: Sampling Strategies", "Summary", "Equations and Where You Implement Them",
                "Gotchas and Troubleshooting", "Next Steps"]
    assert [t for t in top if t in expected] == expected
    subs = [t for level, t in heads if level == 3]
    for s in ["Notation for This Module", "Notation Clashes, Resolved", "Teacher Forcing",
              "Training on a Long Text: Truncated Backpropagation", "The Product of Jacobians",
              "Why the Product Vanishes or Explodes", "Gradient Clipping Fixes Explosion, Not Vanishing",
              "Why This Helps the Gradient", "Optional: A Historical Note on the Forget Gate", "The GRU in Brief",
              "Optional: The GRU Equations", "Optional: Converting Between Character and Word Perplexity"]:
        assert s in subs, s


def test_tables_of_the_briefing(module_ast):
    tables = []
    walk(module_ast["blocks"], lambda n: tables.append(n) if n.get("t") == "Table" else None)
    headers = [stringify(t["c"][3]) for t in tables]  # the table head
    for h in ["Task", "Minutes", "Symbol", "Case", "Temperature", "Model", "Equation"]:
        assert any(x.startswith(h) for x in headers), f"table headed {h}"


def test_no_include_loops(gen):
    """An include shortcode at the start of a line is expanded even inside an HTML comment, so a partial
    that mentions its own include (e.g. in a comment) includes itself.  Escape it as {{{< include ... >}}}."""
    out, variables = gen
    for page in PAGES:
        expand(page, out, variables)        # strict: an include loop fails the expansion, naming it


def test_includes_and_listings(gen):
    out, _ = gen
    text = MODULE_PAGE.read_text(encoding="utf-8")
    assert "```{ojs}\n{{< include _gradient-demo.ojs >}}\n```" in text
    assert text.index("{{< include _predict-gradient.qmd >}}") < text.index("_gradient-demo.ojs") < text.index("With $x = 0$")
    for page in PAGES:
        for name in INCLUDE.findall(page.read_text(encoding="utf-8")):
            assert include_target(name, page, out).exists(), f"{page.name}: include {name}"
    from scripts.measure import lab_source

    for name in ["rnn_cell_step", "lstm_cell_step", "sample_with_temperature"]:
        listing = (out / GENERATED_REL / f"_code-{name.replace('_', '-')}.md").read_text(encoding="utf-8")
        assert listing == f"```python\n{lab_source.function_source(name, M3).rstrip()}\n```\n", name
        assert f"def {name}(" not in text, f"{name} is retyped in the page"


def test_worked_examples_match_the_spec(gen):
    out, _ = gen
    one = (out / GENERATED_REL / "_worked-one-unit.md").read_text(encoding="utf-8")
    for s in ["at most 0.9", "0.9^{50} = 0.005", "2^{20} \\approx 10^{6}", "(1 - 0.81) \\times 2 = 0.38",
              "0.38^{20} \\approx 4 \\times 10^{-9}", "`rnn_cell_step`"]:
        assert s in one, s
    temp = (out / GENERATED_REL / "_worked-temperature.md").read_text(encoding="utf-8")
    for s in ["(0.867,\\ 0.117,\\ 0.016)", "(0.665,\\ 0.245,\\ 0.090)", "(0.506,\\ 0.307,\\ 0.186)",
              "$(4, 2, 0)$", "$(1, 0.5, 0)$", "(@eq-temperature)", "20,000", "`sample_with_temperature`"]:
        assert s in temp, s
    assert not re.search(r"Equation\s+\d", temp), "the caption cross-references the equation, not a typed number"


def test_the_results_table_shows_each_label_once(gen):
    """The lab's labels already name k, n, d_h and the steps: the table must not append them again."""
    out, _ = gen
    data = fixture(M3)
    table = (out / GENERATED_REL / "_results-table.md").read_text(encoding="utf-8")
    labels = [line.split("|")[1].strip() for line in table.splitlines()[2:8]]
    assert len(labels) == 6
    for key, cell in zip(["uniform", "bigram", "trigram", "best_ngram", "rnn", "lstm"], labels):
        row = data["models"][key]
        shown = row["label"].replace("≤", "$\\le$").replace("d_h", "$d_h$")
        assert cell.startswith(shown), (cell, shown)
        rest = cell[len(shown):]
        assert rest == ("" if row.get("parameters") is None else f" ({row['parameters']:,} parameters)"), cell
        parts = re.split(r",\s*|\s+\(|\)", cell)
        assert len([p for p in parts if p]) == len({p for p in parts if p}), f"a repeated part: {cell}"


def test_the_fixture_labels_are_as_long_as_the_real_ones():
    """Short fixture labels hid a suffix appended twice; the fixture mirrors the lab's label format."""
    real = json.loads(M3.results.read_text(encoding="utf-8"))["models"]
    made_up = fixture(M3)["models"]
    for key in ["bigram", "trigram", "best_ngram", "rnn", "lstm"]:
        strip = lambda s: re.sub(r"\d[\d,.]*", "#", s)  # noqa: E731  (the numbers may differ, not the words)
        assert strip(made_up[key]["label"]) == strip(real[key]["label"]), key


def test_section_4_answer_computes_from_the_numbers_it_shows(tmp_path):
    """'1 - 1/6.0 = 0.833', not 0.832 from the unrounded 5.97: every step uses the previous shown value."""
    data = fixture(M3)
    data["gradient_by_distance"]["rnn_spectral_norm_W"] = 5.97
    p = tmp_path / "d.json"
    p.write_text(json.dumps(data))
    run_site_data(tmp_path / "site", p)
    answer = (tmp_path / "site" / GENERATED_REL / "_answer-saturation.md").read_text(encoding="utf-8")
    math = math_of(answer)
    assert "h^2 > 1 - 1/6.0 = 0.833" in math and "|h| > 0.91" in math
    assert "(1 - 0.98) \\times 6.0 \\approx 0.12" in math
    numbers = prose_numbers(answer)
    assert "1.5" in numbers                                # the pre-activation: atanh(0.91) = 1.53
    assert "8" in numbers                                  # the factor lost per character: 1/0.12 = 8.3


def test_glossary_anchors_exist_for_every_link(gen):
    out, variables = gen
    gast = pandoc_ast((MODULE / "glossary.qmd").read_text(encoding="utf-8"))
    anchors = []
    walk(gast["blocks"], lambda n: anchors.append(n["c"][1][0]) if n.get("t") == "Header" else None)
    for a in GLOSSARY_REQUIRED:
        assert a in anchors, f"glossary entry #{a}"
    for page in PAGES:
        for target in re.findall(r"\]\((?:\.\./\.\./)?glossary\.qmd#([\w-]+)\)", expand(page, out, variables)):
            assert target in anchors, f"{page.name} links to glossary #{target}, which does not exist"
    module = MODULE_PAGE.read_text(encoding="utf-8")
    for a in GLOSSARY_REQUIRED:
        assert f"glossary.qmd#{a})" in module, f"the briefing links {a} to its glossary entry"


def test_internal_section_links_resolve(gen, module_ast):
    out, variables = gen
    ids = set()
    walk(module_ast["blocks"], lambda n: ids.add(n["c"][1][0]) if n.get("t") == "Header" else None)
    for page in PAGES:
        text = expand(page, out, variables)       # links from any page into the briefing's sections
        for target in re.findall(r"\]\((?:modules/[\w-]+/)?index\.qmd#([\w-]+)\)", text):
            assert target in ids, f"{page.name}: link to #{target} of the briefing"
    for target in re.findall(r"\]\(#([\w-]+)\)", MODULE_PAGE.read_text(encoding="utf-8")):
        assert target in ids, f"#{target}"


# --------------------------------------------------------------------------------------------
# Numbers: measured ones come from the data, never from a page
# --------------------------------------------------------------------------------------------
def measured_strings(variables: dict) -> set[str]:
    out = set()
    for key, row in variables["models"].items():
        out |= {row["nats"], row["bpc"]}
        if key != "uniform":
            out.add(row["ppl"])
    out |= set(variables["compare"].values()) - {"twice"}
    g = variables["gradient"]
    out |= {g["spectral_W"], g["ratio_at_50"], g["forget_mean"], g["forget_mean_pow_50"], g["lstm_fall_50"]}
    out |= {g[k] for k in ("direct_median", "direct_share_05", "direct_share_01", "direct_share_001", "direct_carried",
                           "direct_kept_share")}
    out |= {g["first_all_zero"], g["naive_norm_zero"]}
    out |= {g[k] for k in ("saturated_share", "mean_tanh_derivative", "bound_factor")}
    out |= {v for k, v in g.items() if k.startswith("direct_of_measured_")}
    out |= {v for k, v in g.items() if k.startswith(("direct_chunk_", "ratio_at_50_", "lstm_fall_50_", "step_jacobian_"))}
    out.add(g["largest_derivative"])
    out |= {variables["clipping"]["clipped_final"], variables["clipping"]["unclipped_final"]}
    return {s for s in out if re.search(r"\d", s)}


MEASURED_CONTEXT = [
    r"perplexity (?:of )?\d+\.\d", r"\d+\.\d+ nats", r"loss of \d", r"ended at \d", r"average \d",
    r"\\approx\s*\d+\.\d+\s*\$?,? so", r"\\lVert W \\rVert \\approx \d", r"about \d+ characters back",
    r"\d(?:\.\d+)? times the RNN", r"\d+\.\d+ (?:lead|against)", r"(?:by|to) \d+\.\d\d\b",
    r"\(\d\.\d\d against", r"spectral norm of \d",
]


# pure arithmetic of the spec's worked examples, not measurements
NOT_MEASURED = ["a character perplexity of 4.5 corresponds"]


def test_no_measured_number_is_typed_into_a_page(gen, tmp_path):
    _, variables = gen
    values = measured_strings(variables) | set(SPEC_MEASURED)
    real = M3.results
    if real.exists():
        with_real = run_site_data(tmp_path / "site-real", real)
        values |= measured_strings(with_real)
    # the demos' own cells too (modules/<id>/_*.ojs), but for the one-unit demo's own parameters
    pages = PAGES + list(MODULE.glob("_*.qmd")) + [p for p in MODULE.glob("_*.ojs") if p.name != "_gradient-demo.ojs"]
    for page in pages:
        raw = page.read_text(encoding="utf-8")
        for phrase in NOT_MEASURED:
            raw = raw.replace(phrase, "")
        for v in values:
            hits = [m.start() for m in re.finditer(r"(?<![\w.,])" + re.escape(v) + r"(?![\w]|[.,]\d)", raw)]
            assert not hits, f"{page.relative_to(ROOT)} types the measured number {v!r}: " + \
                raw[max(0, hits[0] - 60):hits[0] + 40].replace("\n", " ")
        for pat in MEASURED_CONTEXT:
            m = re.search(pat, raw)
            assert not m, f"{page.relative_to(ROOT)}: a typed number in a measured context: " + \
                raw[max(0, m.start() - 60):m.end() + 30].replace("\n", " ")


def test_pages_show_the_datas_values(gen, module_text):
    """Each measured value the briefing shows is the fixture's, formatted, at the data key it comes from."""
    out, v = gen
    data = fixture(M3)
    text = plain_text(module_text)
    table = (out / GENERATED_REL / "_results-table.md").read_text(encoding="utf-8")
    for key in ["uniform", "bigram", "trigram", "best_ngram", "rnn", "lstm"]:
        row = data["models"][key]
        cells = results_row(table, key, data)
        nats, ppl, bpc = float(cells[2]), float(cells[3].replace(",", "")), float(cells[4])
        assert abs(nats - row["test_nats"]) <= 0.5e-4
        assert abs(ppl - row["perplexity"]) <= 0.5e-2
        assert abs(bpc - row["bpc"]) <= 0.5e-2
        assert cells[2] in text and cells[4] in text
    g, c, m = data["gradient_by_distance"], data["clipping_demo"], data["models"]
    assert_shown(shown_values(MODULE_PAGE, out, v), {
        "gradient.spectral_W": f"{g['rnn_spectral_norm_W']:.1f}",
        "gradient.naive_norm_zero": str(g["rnn_naive_norm_zero_distance"]),
        "gradient.forget_mean": f"{g['forget_gate']['mean']:.3f}",
        "clipping.unclipped_final": f"{c['unclipped']['final_loss']:.2f}",
        "clipping.clipped_final": f"{c['clipped']['final_loss']:.2f}",
        "compare.lstm_lead_nats": f"{m['best_ngram']['test_nats'] - m['lstm']['test_nats']:.2f}",
        "models.lstm.params": f"{m['lstm']['parameters']:,}",
    })
    s = f"{g['rnn_spectral_norm_W']:.1f}"
    assert f"h^2 > 1 - 1/{s} = {1 - 1 / float(s):.3f}" in math_of(module_text), \
        "section 4's answer computes with the data's norm"
    provenance = re.findall(r"^::: \{\.provenance\}\n(.*?)\n:::$", module_text, flags=re.M | re.S)
    assert provenance, "the results table has its provenance"
    for key in ("device", "torch", "started_at"):
        assert any(data["provenance"][key] in p for p in provenance), key


def test_changing_the_data_changes_the_page(tmp_path):
    """Changed data, rebuilt page data: the page shows the new values where it shows each key, and the
    fixture's are gone (the expected texts are computed here by hand, not by scripts/pages/formatting.py)."""
    data = fixture(M3)
    changed = copy.deepcopy(data)
    changed["models"]["lstm"]["test_nats"] = 1.4321
    changed["models"]["lstm"]["perplexity"] = 4.1876
    changed["gradient_by_distance"]["rnn_spectral_norm_W"] = 3.7
    changed["gradient_by_distance"]["forget_gate"]["mean"] = 0.81
    changed["clipping_demo"]["unclipped"]["final_loss"] = None
    p = tmp_path / "changed.json"
    p.write_text(json.dumps(changed))
    out = tmp_path / "site"
    variables = run_site_data(out, p)
    text = expand(MODULE_PAGE, out, variables)
    lstm = results_row((out / GENERATED_REL / "_results-table.md").read_text(encoding="utf-8"), "lstm", changed)
    assert lstm[2:4] == ["1.4321", "4.19"]
    assert "1.6114" not in text and "5.01" not in text        # the fixture's LSTM nats and perplexity
    assert_shown(shown_values(MODULE_PAGE, out, variables), {
        "models.lstm.ppl": "4.19",
        "gradient.spectral_W": "3.7",
        "gradient.forget_mean": "0.810",
        "gradient.forget_mean_pow_50": "2.7 × 10⁻⁵",                 # 0.81^50 = 2.7e-05
        "clipping.unclipped_final": "not a number",                 # a diverged run: no finite loss (never "nan")
        "compare.lstm_lead_nats": f"{1.8326 - 1.4321:.2f}",
    })
    math = math_of(text)                                            # section 4's answer, with the new norm
    assert "h^2 > 1 - 1/3.7 = 0.730" in math and "|h| > 0.85" in math


# --------------------------------------------------------------------------------------------
# The rendered site (Quarto, Chromium, axe-core): tests/js/site-*.test.mjs (site-browser-checks.mjs)
# --------------------------------------------------------------------------------------------
def test_the_lstm_box_explains_the_fall_with_the_measured_direct_path(module_ast, gen):
    """Issue 17: the box shows the mean with the digits its 50th power needs, that power and the measured fall as
    the notebook prints them (two figures; the power from the shown mean), the measured direct-path products, and the
    sentence the data picks; it no longer names a cause the lab never measured."""
    _, v = gen
    data = fixture(M3)
    g = data["gradient_by_distance"]
    box = next(" ".join(stringify(b) for b in blocks) for _, _, title, blocks in callouts(module_ast)
               if "What Lab 3 Measured for the LSTM" in title)
    mean, fall = g["forget_gate"]["mean"], g["lstm_grad_norm"][50] / g["lstm_grad_norm"][0]
    printed = {"pow": f"{round(mean, 3) ** 50:.1e}", "fall": f"{fall:.1e}"}   # as the notebook's cell prints them
    def sci(shown: str) -> str:                                            # '9.3 × 10⁻⁸' -> '9.3e-08'
        mant, power = shown.split(" × 10")
        exp = int(power.translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")))
        return f"{mant}e{exp:+03d}"
    assert sci(v["gradient"]["forget_mean_pow_50"]) == printed["pow"]
    assert sci(v["gradient"]["lstm_fall_50"]) == printed["fall"]
    assert_shown(shown_values(MODULE_PAGE, *gen), {"gradient.forget_mean": f"{mean:.3f}",
                                                   "gradient.forget_mean_pow_50": v["gradient"]["forget_mean_pow_50"],
                                                   "gradient.lstm_fall_50": v["gradient"]["lstm_fall_50"]})
    assert f"{mean:.3f}⁵⁰ ≈ {v['gradient']['forget_mean_pow_50']}" in box     # the gate's power, as computed
    assert v["gradient"]["lstm_fall_50"] in box
    for key in ("direct_median", "direct_share_05", "direct_share_01", "direct_carried", "direct_kept_share"):
        assert v["gradient"][key] in box, key
    assert v["gradient"]["direct_verdict"] in box.replace("’", "'")
    assert "rides on the gates" not in box


def outside_after_the_lab(text: str) -> str:
    """A page's text without its After-the-Lab boxes (a fenced div whose classes include .after-the-lab), the divs
    nested in them (a table's provenance) included: pandoc's fences, each closing the innermost open div."""
    out, inside = [], []                    # for each open div: whether it is, or is in, an After-the-Lab box
    for line in text.splitlines(keepends=True):
        if re.match(r"^:{3,}\s*$", line) and inside:
            hidden = inside.pop()
        elif re.match(r"^:{3,}\s*\S", line):
            inside.append(bool(inside and inside[-1]) or bool(re.search(r"\.after-the-lab\b", line)))
            hidden = inside[-1]
        else:
            hidden = bool(inside and inside[-1])
        if not hidden:
            out.append(line)
    return "".join(out)


def test_the_lstms_measured_finding_is_in_the_boxes_after_the_lab_only(module_ast, gen):
    """Issue 43, point 3: what the lab's LSTM measured (how much of its gradient the direct path carries) is the
    answer to the lab's prediction, so it stands in the After-the-Lab boxes, each share with which mean it is and
    the chunks' median and middle half beside it, and nowhere in section 5's or section 6's main text, the
    Summary or the deck, which say what the lab measures."""
    out, v = gen
    g = v["gradient"]
    page_text = expand(MODULE_PAGE, out, v)
    box = next(" ".join(stringify(b) for b in blocks) for _, _, title, blocks in callouts(module_ast)
               if "What Lab 3 Measured for the LSTM" in title)
    assert "most of what reaches far does not travel" in box
    page = shown_values(MODULE_PAGE, out, v)
    assert_shown(page, {f"gradient.direct_of_measured_{k}": g[f"direct_of_measured_{k}"] for k in (25, 100, 150)})
    assert_shown(page, {f"gradient.direct_chunk_{k}_{q}": g[f"direct_chunk_{k}_{q}"]
                        for k in (25, 50, 100, 150) for q in ("median", "low", "high")})
    for part in ("ratio_at_50", "lstm_fall_50"):
        assert_shown(page, {f"gradient.{part}_{q}": g[f"{part}_{q}"] for q in ("median", "low", "high")})
    for anchor in ("why-gating-helps", "s6-measuring", "summary"):
        main = outside_after_the_lab(section_text(page_text, anchor))
        assert "does not travel" not in main and "{{< meta data.gradient.direct" not in main, anchor
    template = outside_after_the_lab(expand(MODULE_PAGE, out, None))
    assert not re.search(r"data\.gradient\.(direct_of_measured|direct_chunk|ratio_at_50|lstm_fall)", template)
    deck = expand(MODULE / "slides.qmd", out, None)
    assert "data.gradient." not in deck and "does not travel" not in deck
    # the section 4 box says what Equation 8 gives with the measured saturation, as the data has it
    assert_shown(page, {"gradient.saturated_share": g["saturated_share"], "gradient.bound_factor": g["bound_factor"],
                        "gradient.saturation_verdict": g["saturation_verdict"],
                        "gradient.step_jacobian_min": g["step_jacobian_min"],
                        "gradient.step_jacobian_gmean": g["step_jacobian_gmean"]})
    assert g["saturation_verdict"] == M3.code.page_data.SATURATION_BOX[
        M3.code.claims.saturation_bound_verdict(fixture(M3)["gradient_by_distance"])]
    assert "in miniature" not in page_text


def committed_claims() -> dict[str, bool]:
    """Each claim of the module's build, and whether it holds on the committed data (whose absence fails)."""
    return {c["name"]: c["holds"] for c in claims.evaluate(M3, results.load_results(M3))}


def test_the_part_a_box_says_what_the_bound_cannot_explain_before_the_float32_facts(module_ast, gen):
    """Issue 17: the sentence on the bound (it names ||W||) follows the constant-factor fall it is about (the
    sentence with the measured factor), not the float32 facts (the sentence with the distance from which a
    float32 norm reads 0); and what the box states is what the build's claims check, which hold on the data."""
    _, v = gen
    box = next(" ".join(stringify(b) for b in blocks) for _, _, title, blocks in callouts(module_ast)
               if "What Lab 3 Measured in Exercise 3A" in title)
    sentences = re.split(r"(?<=[.;])\s+", box)
    at = lambda s: [i for i, sentence in enumerate(sentences) if s in sentence]  # noqa: E731
    fall, float32 = at(v["gradient"]["factor_per_character"]), at(f"{v['gradient']['naive_norm_zero']} characters")
    assert fall and float32, "the box shows the measured factor per character and where a float32 norm reads 0"
    assert any(fall[0] < i < float32[0] for i in at("\\lVert W \\rVert")), \
        "the bound's sentence comes between the constant-factor fall and the float32 facts"
    assert "never becomes exactly 0" not in box
    held = committed_claims()
    for name in ("rnn_gradient_falls_by_a_constant_factor_per_character",
                 "rnn_gradient_never_exactly_zero_within_the_chunk", "naive_float32_norm_reads_zero"):
        assert held.get(name), f"the box states {name}, which does not hold on the committed data"


def test_the_clipping_figures_alt_text_says_what_the_claims_check():
    """Issue 17: the unclipped loss spikes, then falls back, ending above the uniform guess (it does not simply
    'rise'); each part is a claim the build checks, and holds on the committed data the figure is drawn from."""
    page = MODULE_PAGE.read_text(encoding="utf-8")
    alt = re.search(r"figures/[\w-]+/clipping-demo\.svg\)\{fig-alt=\"([^\"]*)\"", page).group(1)
    assert alt.strip() and "rises" not in alt
    held = committed_claims()
    for name in ("unclipped_sgd_loss_spikes_then_falls_back", "unclipped_sgd_worse_than_uniform",
                 "clipped_sgd_far_better"):
        assert held.get(name), f"the alt text states {name}, which does not hold on the committed data"


def test_every_table_of_numbers_says_where_they_come_from(gen):
    out, _ = gen
    for name in ("_results-table.md", "_worked-one-unit.md", "_worked-temperature.md"):
        text = (out / GENERATED_REL / name).read_text(encoding="utf-8")
        assert "::: {.provenance}\n*Provenance:* `data/" in text, name
