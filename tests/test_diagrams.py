"""Figures 1 and 2 are drawn by scripts/draw_diagrams.py: the committed SVGs are its output, byte
for byte, so a change to the drawing code cannot leave a stale figure on the page.  (Label
placement and the screen-reader title are checked in Chromium: tests/js/figure-labels.test.mjs.)"""
import xml.etree.ElementTree as ET

import pytest

from scripts import draw_diagrams, paths


@pytest.mark.parametrize("name, draw", [("rnn-unrolled.svg", draw_diagrams.rnn_unrolled),
                                        ("lstm-cell.svg", draw_diagrams.lstm_cell)])
def test_committed_diagram_is_the_scripts_output(name, draw):
    svg = draw()
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg" and root.get("role") == "img"
    committed = (paths.FIGURES_DIR / name).read_text(encoding="utf-8")
    assert committed == svg, f"figures/{name} is stale: run `python3 -m scripts.draw_diagrams`"
