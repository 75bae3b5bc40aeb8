"""Figures 1 and 2 are drawn by the module's code/diagrams.py (scripts/pages/draw_diagrams.py writes them):
the committed SVGs are its output, byte
for byte, so a change to the drawing code cannot leave a stale figure on the page.  (Label
placement and the screen-reader title are checked in Chromium: tests/js/figure-labels.test.mjs.)"""
import xml.etree.ElementTree as ET

import pytest

from tests.support import this_module

M3 = this_module(__file__)    # the module these tests belong to (their folder's)

DIAGRAMS = M3.code.diagrams.DIAGRAMS


@pytest.mark.parametrize("name, draw", sorted(DIAGRAMS.items()))
def test_committed_diagram_is_the_scripts_output(name, draw):
    svg = draw()
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg" and root.get("role") == "img"
    committed = (M3.figures_dir / name).read_text(encoding="utf-8")
    assert committed == svg, f"figures/{name} is stale: run `python3 -m scripts.pages.draw_diagrams`"
