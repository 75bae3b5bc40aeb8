"""{{TITLE}}'s pages, read as Quarto reads them: every value a page shows through {{< meta data.KEY >}} is one
its page data gives, every numbered equation is cited in the prose, each After-the-Lab box is collapsed and
its deck has speaker notes on every slide.  (The rules every module's pages obey: tests/test_page_rules.py.)"""
from __future__ import annotations

import re

import yaml

from tests.support import this_module

MODULE = this_module(__file__)     # the module these tests belong to (their folder's)
PAGES = sorted(p for p in MODULE.dir.glob("*.qmd") if not p.name.startswith("_"))
META_DATA = re.compile(r"\{\{<\s*meta\s+data\.([\w.\-]+)\s*>\}\}")


def lookup(values: dict, key: str):
    for part in key.split("."):
        if not isinstance(values, dict) or part not in values:
            return None
        values = values[part]
    return values


def test_every_value_a_page_shows_is_one_the_page_data_gives():
    values = yaml.safe_load(MODULE.metadata_file.read_text(encoding="utf-8"))["data"]
    keys = [(page.name, key) for page in PAGES for key in META_DATA.findall(page.read_text(encoding="utf-8"))]
    assert keys, f"{MODULE.id}'s pages show no measured value"
    missing = [(name, key) for name, key in keys if not isinstance(lookup(values, key), str)]
    assert not missing, f"pages show data keys the page data does not give: {missing}"


def test_every_numbered_equation_is_cited_in_the_prose():
    text = (MODULE.dir / "index.qmd").read_text(encoding="utf-8")
    labels = re.findall(r"\$\$\s*\{#(eq-[\w-]+)\}", text)
    assert labels, "the briefing numbers no equation"
    for label in labels:
        assert re.search(r"@" + re.escape(label) + r"\b", text), f"{label} is never cited"


def test_each_after_the_lab_box_is_collapsed():
    text = (MODULE.dir / "index.qmd").read_text(encoding="utf-8")
    boxes = re.findall(r"^:::+ *\{([^}\n]*\.after-the-lab\b[^}\n]*)\}", text, flags=re.M)
    assert boxes, "the briefing has no After-the-Lab box"
    for attrs in boxes:
        assert 'collapse="true"' in attrs, attrs


def test_every_slide_has_speaker_notes():
    deck = (MODULE.dir / "slides.qmd").read_text(encoding="utf-8")
    body = deck.split("\n---\n", 1)[1] if deck.startswith("---") else deck
    slides = re.split(r"(?m)^## ", body)[1:]
    assert slides, "the deck has no slide"
    for slide in slides:
        assert "::: {.notes}" in slide, f"slide {slide.splitlines()[0]!r} has no speaker notes"
