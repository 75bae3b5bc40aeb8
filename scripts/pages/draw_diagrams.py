"""Draws each module's diagrams from code (`make figures`): modules/<id>/code/diagrams.py's DIAGRAMS,
{file name: function -> SVG text}, written to figures/<id>/ (only when they change).

    python3 -m scripts.pages.draw_diagrams [--module ID]
"""
from __future__ import annotations

import argparse
import sys

from scripts import course
from scripts.files import write_if_changed
from scripts.paths import rel


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    course.add_module_argument(ap)
    args = ap.parse_args(argv)
    for module in course.selected(args.module):
        if not module.code.has("diagrams"):
            continue
        for name, draw in module.code.diagrams.DIAGRAMS.items():
            path = module.figures_dir / name
            path.parent.mkdir(parents=True, exist_ok=True)
            write_if_changed(path, draw())
            print(f"draw_diagrams: {rel(path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
