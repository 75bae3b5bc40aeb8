"""Render the site into _site/ (the last step of `make site`, after the build and the page data).

    python -m scripts.pages.render_site [-- QUARTO RENDER ARGS]

Only the Makefile puts the steps in order (build, page data, render); this one only renders.
`quarto render` runs into a scratch output directory (_site.render/, which Quarto does not treat as
input because its name starts with '_'), then that is swapped in for _site/: a failed render leaves
the previous _site/ exactly as it was.  Quarto's pre-render (`site_data --check`) is the one guard
against stale or invalid page data.

Exit status: 0 rendered; 1 render failed; 3 Quarto is not installed.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from scripts.paths import ROOT

PROJECT = ROOT          # the Quarto project (tests point it elsewhere)

INSTALL_QUARTO = """\
Quarto is not installed (no `quarto` on PATH, and $QUARTO is not set).
Install it, then run `make site` again:
  - any system: https://quarto.org/docs/get-started/
  - Debian/Ubuntu: download quarto-<version>-linux-amd64.deb from
    https://github.com/quarto-dev/quarto-cli/releases/latest and `sudo dpkg -i quarto-*-linux-amd64.deb`
  - without root: the linux-amd64.tar.gz from the same page, unpacked; put its bin/ on PATH
    or set QUARTO=/path/to/quarto-<version>/bin/quarto
  - GitHub Actions: the quarto-dev/quarto-actions/setup@v2 step
The build and the page data do not need Quarto; only the render does."""


def log(msg: str) -> None:
    print(msg, flush=True)


def find_quarto(explicit: str | None) -> str | None:
    for cand in (explicit, os.environ.get("QUARTO")):
        if cand and (shutil.which(cand) or Path(cand).is_file()):
            return shutil.which(cand) or cand
    return shutil.which("quarto")


def render(quarto: str, extra: list[str]) -> int:
    SITE, SCRATCH, PREVIOUS = PROJECT / "_site", PROJECT / "_site.render", PROJECT / "_site.previous"
    shutil.rmtree(SCRATCH, ignore_errors=True)
    cmd = [quarto, "render", "--output-dir", SCRATCH.name, *extra]
    log("$ " + " ".join(cmd))
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=PROJECT)
    if r.returncode != 0 or not (SCRATCH / "index.html").exists():
        shutil.rmtree(SCRATCH, ignore_errors=True)
        why = f"exit status {r.returncode}" if r.returncode else "no index.html was produced"
        log(f"RENDER FAILED ({why}); the previous _site/ is unchanged")
        return 1
    # swap: two renames, the old site removed only once the new one is in place
    shutil.rmtree(PREVIOUS, ignore_errors=True)
    if SITE.exists():
        os.replace(SITE, PREVIOUS)
    os.replace(SCRATCH, SITE)
    shutil.rmtree(PREVIOUS, ignore_errors=True)
    log(f"rendered _site/ in {time.perf_counter() - t0:.1f} s")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--quarto", help="the quarto executable (default: $QUARTO, then quarto on PATH)")
    ap.add_argument("quarto_args", nargs="*", help="passed to `quarto render` (after --)")
    a = ap.parse_args(argv)
    quarto = find_quarto(a.quarto)
    if quarto is None:
        log(INSTALL_QUARTO)
        return 3
    return render(quarto, a.quarto_args)


if __name__ == "__main__":
    sys.exit(main())
