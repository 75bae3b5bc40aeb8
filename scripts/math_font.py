"""The font the pages' formulas are drawn in: STIX Two Math, cut to the characters they use.

    python3 -m scripts.math_font            # what `quarto render` runs after scripts/typeset.mjs
    python3 -m scripts.math_font DIR        # the pages of another rendered site

scripts/typeset.mjs writes each formula as MathML that the browser draws itself; a browser draws
MathML well only in a font with an OpenType MATH table (the sizes of fractions and scripts, the
larger parentheses and the parts of stretched ones), which phones do not have.  STIX Two Math (SIL
Open Font License, npm @fontsource/stix-two-math) has one; whole, it is 370 KB.  This step keeps the
characters the site's formulas use, with the MATH table's variants of them (fonttools), and the
italic letters a browser draws a one-letter <mi> in, into site_libs/course-math/course-math.woff
with the licence beside it.  site.css names the font; typeset.mjs asks for it in the head of a page
with formulas.  Every page of the output folder is read (a render of one page keeps the others'
characters); the cut font is kept in Quarto's scratch folder, so a render whose formulas use no new
character does not cut it again.
"""
from __future__ import annotations

import argparse
import html
import json
import os
import re
import sys
from pathlib import Path

from scripts.files import atomic_write, write_if_changed
from scripts.vendor_js import cut_font_cached, read_state

ROOT = Path(__file__).resolve().parent.parent
ORIGINAL = ROOT / "node_modules" / "@fontsource" / "stix-two-math" / "files" / "stix-two-math-latin-400-normal.woff"
LICENCE = ORIGINAL.parent.parent / "LICENSE"
FONT = Path("site_libs") / "course-math" / "course-math.woff"   # scripts/typeset.mjs MATH_FONT, site.css

MATH = re.compile(r"<math\b[^>]*>(.*?)</math>", re.S)
TAG = re.compile(r"<[^>]+>")
# a one-letter <mi> without mathvariant="normal": the browser draws its italic form (MathML Core's
# text-transform: math-auto), another character of the font
ONE_LETTER_MI = re.compile(r"<mi>([^<&]|&[a-z]+;|&#\w+;)</mi>")
ITALIC_SPECIAL = {"h": 0x210E, "ı": 0x1D6A4, "ȷ": 0x1D6A5, "∇": 0x1D6FB, "∂": 0x1D715, "ϵ": 0x1D716,
                  "ϑ": 0x1D717, "ϰ": 0x1D718, "ϕ": 0x1D719, "ϱ": 0x1D71A, "ϖ": 0x1D71B}


def italic(char: str) -> str:
    """MathML Core's italic mapping of one character (itself where it has none)."""
    code = ord(char)
    if char in ITALIC_SPECIAL:
        return chr(ITALIC_SPECIAL[char])
    if "A" <= char <= "Z":
        return chr(0x1D434 + code - 0x41)
    if "a" <= char <= "z":
        return chr(0x1D44E + code - 0x61)
    if 0x391 <= code <= 0x3A9:
        return chr(0x1D6E2 + code - 0x391)
    if 0x3B1 <= code <= 0x3C9:
        return chr(0x1D6FC + code - 0x3B1)
    return char


def formula_characters(page_html: str) -> set[str]:
    """The characters the formulas of one page draw."""
    chars: set[str] = set()
    for formula in MATH.findall(page_html):
        chars.update(html.unescape(TAG.sub("", formula)))
        chars.update(italic(html.unescape(m)) for m in ONE_LETTER_MI.findall(formula))
    if re.search(r"<(msqrt|mroot)\b", page_html):
        chars.add("\u221a")   # the radical sign, which the browser draws from the font
    return chars - {"\n", "\t", "\r"}


def site_characters(site: Path) -> set[str]:
    chars: set[str] = set()
    for page in site.rglob("*.html"):
        if "site_libs" not in page.parts:
            chars |= formula_characters(page.read_text(encoding="utf-8"))
    return chars


def write_math_font(site: Path, state: Path | None = None) -> int:
    """Cut the math font for the site's formulas into site/FONT; the number of characters kept
    (0: no page has a formula, and no font is written)."""
    chars = site_characters(site)
    if not chars:
        return 0
    if not ORIGINAL.exists():
        raise SystemExit(f"math_font: {ORIGINAL.relative_to(ROOT)} is missing: run `npm ci` (scripts/setup.sh does)")
    keep = sorted(ord(c) for c in chars)
    cut, entries = cut_font_cached(ORIGINAL, keep, read_state(state))
    font = site / FONT
    licence = font.parent / "LICENSE"
    writes = {}
    if not font.exists() or font.read_bytes() != cut:
        writes[font] = cut
    if not licence.exists() or licence.read_bytes() != LICENCE.read_bytes():
        writes[licence] = LICENCE.read_bytes()
    if writes:
        font.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(writes)
    if state:
        write_if_changed(state, json.dumps(entries) + "\n")
    return len(keep)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("site", nargs="?", help="the rendered site (default: Quarto's output folder, or _site)")
    args = ap.parse_args(argv)
    site = Path(args.site or os.environ.get("QUARTO_PROJECT_OUTPUT_DIR") or ROOT / "_site").resolve()
    scratch = Path(os.environ.get("QUARTO_PROJECT_DIR") or ROOT) / ".quarto"
    kept = write_math_font(site, scratch / "math-font.json" if scratch.is_dir() else None)
    print(f"math_font: {kept} characters" if kept else "math_font: no formulas")
    return 0


if __name__ == "__main__":
    sys.exit(main())
