"""scripts/math_font.py: STIX Two Math cut to the characters the site's formulas draw (the italic
letters a browser draws a one-letter <mi> in, and the radical sign of a square root, included),
with its MATH table and licence; a render with no new character does not cut it again.  (The
rendered-site suite checks that the pages draw their formulas in it.)"""
from __future__ import annotations

import pytest

from scripts import math_font, vendor_js

fontTools = pytest.importorskip("fontTools.ttLib")

PAGE = """<html><body><p><math><msub><mi>h</mi><mi>t</mi></msub><mo>=</mo><mi>tanh</mi>
<msqrt><mi>&#x3B1;</mi></msqrt><mi mathvariant="normal">g</mi><mi>ℝ</mi></math></p></body></html>"""


def test_the_characters_a_page_draws():
    chars = math_font.formula_characters(PAGE)
    assert {"h", "t", "=", "a", "n", "g", "ℝ", "α"} <= chars
    assert {"ℎ", "\U0001D461", "\U0001D6FC"} <= chars, "the italic h, t and alpha a browser draws"
    assert "√" in chars, "a square root's sign, which is in no text"
    assert "\U0001D454" not in chars, "an upright g is not drawn italic"
    assert math_font.formula_characters("<p>no formula</p>") == set()


def test_italic_mapping_follows_mathml_core():
    assert [math_font.italic(c) for c in "Aazh∂Ωω1"] == ["\U0001D434", "\U0001D44E", "\U0001D467", "ℎ", "\U0001D715",
                                                         "\U0001D6FA", "\U0001D714", "1"]


@pytest.mark.skipif(not math_font.ORIGINAL.exists(), reason="npm's @fontsource/stix-two-math is not installed (npm ci)")
def test_the_cut_font_draws_every_character_with_its_math_table(tmp_path, monkeypatch):
    site = tmp_path / "site"
    (site / "modules").mkdir(parents=True)
    (site / "modules" / "index.html").write_text(PAGE, encoding="utf-8")
    state = tmp_path / "state.json"
    kept = math_font.write_math_font(site, state)
    font_file = site / math_font.FONT
    font = fontTools.TTFont(str(font_file))
    cmap = font.getBestCmap()
    chars = math_font.formula_characters(PAGE)
    assert kept == len(chars)
    assert {ord(c) for c in chars} <= set(cmap), "every character the formulas draw is in the font"
    assert "MATH" in font, "the MATH table: script sizes, fraction rules, stretched delimiters"
    assert font_file.stat().st_size < 60_000
    assert (font_file.parent / "LICENSE").read_text(encoding="utf-8").find("SIL Open Font License") >= 0
    # a second render with the same characters takes the cut font from the state, and writes nothing
    monkeypatch.setattr(vendor_js, "cut_font", lambda *a: pytest.fail("the font was cut again"))
    before = font_file.stat().st_mtime_ns
    assert math_font.write_math_font(site, state) == kept
    assert font_file.stat().st_mtime_ns == before


def test_a_site_without_formulas_gets_no_font(tmp_path):
    (tmp_path / "index.html").write_text("<p>text</p>", encoding="utf-8")
    assert math_font.write_math_font(tmp_path) == 0
    assert not (tmp_path / math_font.FONT).exists()
