"""What the tests share (not tests themselves): a module's tests find their module by their own folder
(`this_module(__file__)` in modules/<id>/tests/), so the template's tests run unchanged in every module;
its test results (the fixture), its corpus, and the page-parsing helpers."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from scripts import course, paths

from scripts.measure import results

def this_module(test_file: str) -> course.Module:
    """The module whose tests/ folder holds test_file (modules/<id>/tests/test_*.py)."""
    folder = Path(test_file).resolve().parent
    if folder.name != "tests" or folder.parent.parent != paths.ROOT / "modules":
        raise ValueError(f"{test_file} is not in a module's tests folder (modules/<id>/tests/)")
    return course.module(folder.parent.name)


def fixture(module: course.Module) -> dict:
    """A module's test results (tests/fixtures/<id>/results.json: made up, NOT measurements)."""
    return json.loads(module.fixture.read_text(encoding="utf-8"))


def corpus(module: course.Module) -> Path:
    """A module's corpus (module.yml's lab.corpus, or LAB_CORPUS).  A test that needs it fails when it is
    missing, never skips: only the tests that need `quarto` may skip."""
    path = module.corpus()
    if path is None or not path.is_file():
        where = "LAB_CORPUS" if os.environ.get("LAB_CORPUS") else f"lab.corpus in {paths.rel(module.dir / 'module.yml')}"
        pytest.fail(f"the corpus is missing at {path} (from {where}): put it there or set LAB_CORPUS to its path",
                    pytrace=False)
    return path


def fake_lab_results(module: course.Module, settings="full") -> dict:
    """What Module 3's lab's last cell writes, made from the fixture (its LSTM curve made to satisfy the claims)."""
    from scripts.measure import build

    d = fixture(module)
    prov = d.pop("provenance")
    d.pop("claims")
    d.pop("schema_version")
    g = d["gradient_by_distance"]
    old = g["lstm_grad_norm"]
    g["lstm_grad_norm"] = [0.3 * 0.97 ** i for i in range(len(g["distance"]))]
    if "by_chunk" in g:                              # the chunks' values rescaled with the curve they average to
        bc = g["by_chunk"]
        bc["lstm_grad_norm"] = [[v * g["lstm_grad_norm"][k] / old[k] for v in row]
                                for k, row in zip(bc["distance"], bc["lstm_grad_norm"])]
    g["lstm_rnn_ratio_at_50"] = g["lstm_grad_norm"][50] / g["rnn_grad_norm"][50]
    run = {k: prov[k] for k in build.PROVENANCE_FROM_LAB + ("corpus_sha256",)}
    run.update({k: prov[k] for k in build.PROVENANCE_FROM_LAB_IF_RECORDED if k in prov})
    run["settings"] = settings
    run["phase_s"] = {"ngram": 1.5, "train_rnn": 20.0, "train_lstm": 60.0}
    d["lab_run"] = run
    return d


def pandoc_ast(text: str, fmt: str = "markdown") -> dict:
    """A page's pandoc AST, as pandoc parses it once Quarto has taken out its executable cells: a
    ```{ojs} fence (not pandoc syntax, so pandoc would read its lines as text) becomes a code block."""
    import pypandoc

    text = re.sub(r"^([ \t]*```+)\s*\{ojs\b([^}]*)\}", r"\1{.ojs\2}", text, flags=re.M)
    return json.loads(pypandoc.convert_text(text, "json", format=fmt))


def section_text(page_text: str, anchor: str) -> str | None:
    """Source of the section whose heading carries {#anchor}, up to the next heading of its level or above."""
    page_text = re.sub(r"(?m)^(:::+ *\{\.callout[^\n]*\n)#{1,6} ", r"\1", page_text)  # a callout's title
    m = re.search(r"(?m)^(#{1,6}) .*\{#" + re.escape(anchor) + r"[\s}]", page_text)
    if not m:
        return None
    level = len(m.group(1))
    end = re.compile(r"(?m)^#{1,%d} " % level).search(page_text, m.end())
    return page_text[m.start(): end.start() if end else len(page_text)]


def committed_results(module: course.Module) -> dict:
    """A module's committed results, validated against its schema; their absence is a failure (they are committed,
    never optional)."""
    if not module.results.is_file():
        pytest.fail(f"{paths.rel(module.results)} is missing: it is committed with the module; make it with "
                    f"`make data MODULE={module.id}` and commit it", pytrace=False)
    return results.load_results(module, module.results)
