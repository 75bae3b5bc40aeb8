#!/usr/bin/env python3
"""Self-host the site's JavaScript, so the math and the OJS demo work with no network.

    python3 -m scripts.vendor_js                # copy into vendor/ (what `quarto render` runs first)
    python3 -m scripts.vendor_js --post-render  # fix up _site/ (what `quarto render` runs last)
    python3 -m scripts.vendor_js --check [DIR]  # list references to CDNs left in DIR/**/*.html

Without this, Quarto's pages load MathJax from jsdelivr (plus an IE11 polyfill from cdnjs), and
its OJS runtime loads Plot, Inputs and d3 (and htl) from jsdelivr; offline, no equation is typeset
and every OJS cell fails with "RuntimeError: unable to load module".

Pre-render (default): copies, from the npm packages pinned in package-lock.json (installed by
`npm ci` in scripts/setup.sh), into vendor/ (gitignored; `project: resources` copies it to _site/):

  vendor/mathjax/              MathJax 3's browser components (the `mathjax` package's es5/):
                               tex-chtml-full.js plus the fonts and components it loads on demand
  vendor/observable-libs.js    one ES module exporting d3, Plot, Inputs and htl, built by wrapping
                               the packages' own UMD files (the very files Quarto fetches from the
                               CDN), wired to each other instead of to jsdelivr, setting no globals
  vendor/VERSIONS.json         the versions copied

The OJS partial imports vendor/observable-libs.js with an OJS `import`; that defines Plot, Inputs
and d3 in the page's module, which shadows the runtime's built-ins of the same names, so the
runtime never asks the CDN for them.  _quarto.yml points MathJax at /vendor/mathjax/.

Post-render (--post-render): in every HTML file of the output directory, rewrites the MathJax
script's root-relative src (/vendor/...) to a path relative to the page (so the site also works
below a sub-path, e.g. GitHub Pages' /REPO/), and removes the polyfill.min.js script that pandoc's
template adds for MathJax (only needed by Internet Explorer 11; offline it is a failed request).
Then it reports any remaining CDN reference.  Standard library only.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
from pathlib import Path

from scripts import paths
from scripts.files import write_if_changed
from scripts.paths import ROOT, rel

# npm package -> the version Quarto's OJS runtime would fetch (and package.json pins)
PINNED = {
    "mathjax": "3.2.2",
    "d3": "7.8.5",
    "@observablehq/plot": "0.6.11",
    "@observablehq/inputs": "0.10.6",
    "htl": "0.3.1",
}

# MathJax's es5/ parts the site serves: the combined component, the CHTML fonts, and what the
# MathJax menu can load on demand (accessibility, speech rule engine, extra TeX packages)
MATHJAX_PARTS = ["tex-chtml-full.js", "output", "input", "a11y", "ui", "sre", "adaptors"]

CDN_PATTERN = re.compile(r"https?://(?:cdn\.jsdelivr\.net|cdnjs\.cloudflare\.com|unpkg\.com|polyfill\.io)[^\"'\s)]*")
POLYFILL_TAG = re.compile(r"[ \t]*<script\b[^>]*\bsrc=\"https?://[^\"]*polyfill[^\"]*\"[^>]*>\s*</script>[ \t]*\n?")
ROOT_VENDOR_SRC = re.compile(r"(\bsrc=)([\"'])/vendor/")


def package_dir(name: str) -> Path:
    return paths.NODE_MODULES / name


def installed_version(name: str) -> str:
    pkg = package_dir(name) / "package.json"
    if not pkg.exists():
        raise SystemExit(f"vendor_js: {rel(pkg)} is missing; run `npm ci` (make setup) first")
    return json.loads(pkg.read_text())["version"]


def wrap_umd(text: str, deps: dict[str, str]) -> str:
    """A UMD bundle as a function body that returns its exports, CommonJS-style.

    The UMD header tests `typeof exports == "object" && typeof module != "undefined"` first, so
    with `exports`, `module` and `require` in scope it takes the CommonJS branch: it never looks
    for an AMD `define` and never writes a global.  `require` maps the names the bundle asks
    for (e.g. "d3@7.8.5/dist/d3.min.js") to the modules already built in this file.
    """
    table = ", ".join(f"{json.dumps(k)}: {v}" for k, v in deps.items())
    return (
        "(() => {\n"
        "  const module = {exports: {}}, exports = module.exports;\n"
        f"  const deps = {{{table}}};\n"
        "  const require = (name) => {\n"
        "    for (const [prefix, value] of Object.entries(deps)) if (name === prefix || name.startsWith(prefix + \"@\")) return value;\n"
        "    throw new Error(`observable-libs.js: no local copy of ${name}`);\n"
        "  };\n"
        "  (function (module, exports, require) {\n"
        f"{text}\n"
        "  }).call(globalThis, module, exports, require);\n"
        "  return module.exports;\n"
        "})()"
    )


def build_observable_libs() -> str:
    read = lambda name, rel: (package_dir(name) / rel).read_text(encoding="utf-8")
    d3 = read("d3", "dist/d3.min.js")
    htl = read("htl", "dist/htl.min.js")
    plot = read("@observablehq/plot", "dist/plot.umd.min.js")
    inputs = read("@observablehq/inputs", "dist/inputs.min.js")
    # the UMD headers name their dependencies; fail loudly if a new version changes them
    for label, text, needed in [("plot", plot, "d3@"), ("inputs", inputs, "htl@")]:
        if f'require("{needed}' not in text[:600]:
            raise SystemExit(f"vendor_js: unexpected UMD header in {label}; check wrap_umd()")
    versions = ", ".join(f"{k} {installed_version(k)}" for k in PINNED if k != "mathjax")
    return (
        f"// Generated by scripts/vendor_js.py from npm packages ({versions}); do not edit.\n"
        "// d3, Plot, Inputs and htl for the site's OJS cells, served by the site instead of a CDN.\n"
        "// Licenses: d3 ISC, @observablehq/plot ISC, @observablehq/inputs ISC, htl ISC.\n"
        f"const d3 = {wrap_umd(d3, {})};\n"
        f"const htl = {wrap_umd(htl, {})};\n"
        f"const Plot = {wrap_umd(plot, {'d3': 'd3'})};\n"
        f"const Inputs = {wrap_umd(inputs, {'htl': 'htl'})};\n"
        "export {d3, htl, Plot, Inputs};\n"
    )


def vendor(dest: Path = paths.VENDOR) -> None:
    versions = {name: installed_version(name) for name in PINNED}
    wrong = {k: v for k, v in versions.items() if v != PINNED[k]}
    if wrong:
        raise SystemExit(f"vendor_js: installed versions {wrong} differ from the pins {PINNED}; run `npm ci`")
    dest.mkdir(exist_ok=True)
    stamp = dest / "VERSIONS.json"
    mj_src, mj_dest = package_dir("mathjax") / "es5", dest / "mathjax"
    current = stamp.exists() and json.loads(stamp.read_text()) == versions
    if not (current and (mj_dest / "tex-chtml-full.js").exists()):
        if mj_dest.exists():
            shutil.rmtree(mj_dest)
        mj_dest.mkdir()
        for part in MATHJAX_PARTS:
            src = mj_src / part
            (shutil.copytree if src.is_dir() else shutil.copy2)(src, mj_dest / part)
        shutil.copy2(package_dir("mathjax") / "LICENSE", mj_dest / "LICENSE")
    write_if_changed(dest / "observable-libs.js", build_observable_libs())
    write_if_changed(stamp, json.dumps(versions, indent=2) + "\n")
    print(f"vendor_js: {rel(dest)}/ ready "
          f"({', '.join(f'{k} {v}' for k, v in versions.items())})")


def post_render(site: Path) -> list[str]:
    """Make the rendered pages load MathJax from the site; return the CDN references left."""
    left = []
    for page in sorted(site.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        depth = len(page.relative_to(site).parts) - 1
        prefix = "../" * depth or "./"
        new = ROOT_VENDOR_SRC.sub(lambda m: f"{m.group(1)}{m.group(2)}{prefix}vendor/", text)
        new = POLYFILL_TAG.sub("", new)
        if new != text:
            page.write_text(new, encoding="utf-8")
        left += [f"{page.relative_to(site)}: {url}" for url in CDN_PATTERN.findall(new)]
    return left


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--post-render", action="store_true", help="fix up the rendered site")
    ap.add_argument("--check", action="store_true", help="only list CDN references in the site")
    ap.add_argument("site", nargs="?", help="the output directory (default: $QUARTO_PROJECT_OUTPUT_DIR or _site)")
    args = ap.parse_args(argv)
    if not (args.post_render or args.check):
        vendor()
        return 0
    site = Path(args.site or os.environ.get("QUARTO_PROJECT_OUTPUT_DIR") or ROOT / "_site")
    if not site.is_absolute():
        site = ROOT / site
    if args.check:
        left = [f"{p.relative_to(site)}: {u}" for p in sorted(site.rglob("*.html"))
                for u in CDN_PATTERN.findall(p.read_text(encoding="utf-8"))]
    else:
        left = post_render(site)
    for line in left:
        print(f"vendor_js: CDN reference left in {line}", file=sys.stderr)
    return 1 if (left and args.check) else 0


if __name__ == "__main__":
    sys.exit(main())
