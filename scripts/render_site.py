"""Render the site into _site/ (the last step of `make site`).

    python -m scripts.render_site            # re-measure first if data/ is stale, then quarto render
    python -m scripts.render_site --no-run   # refuse to render from stale data instead

1. Staleness: data/baselines.json must be schema-valid, measured at full settings from the current
   lab source (its lab_source_sha256), with its figures present.  If not, this says why and runs
   the build (`python -m scripts.build --settings full`; a missing figure alone is redrawn without running
   the lab), or with --no-run refuses (exit 2), naming the recorded and the current hash.
2. `quarto render` into a scratch output directory (_site.render/, which Quarto does not treat as
   input because its name starts with '_'), then swaps it in for _site/.  A failed render leaves
   the previous _site/ exactly as it was.

Exit status: 0 rendered; 1 build or render failed; 2 refused (stale data with --no-run);
3 Quarto is not installed.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from scripts import paths, results
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
data/ and figures/ are up to date; only the render step needs Quarto."""


def log(msg: str) -> None:
    print(msg, flush=True)


def find_quarto(explicit: str | None) -> str | None:
    for cand in (explicit, os.environ.get("QUARTO")):
        if cand and (shutil.which(cand) or Path(cand).is_file()):
            return shutil.which(cand) or cand
    return shutil.which("quarto")


def ensure_data(no_run: bool) -> int:
    s = results.staleness(paths.DATA_PATH, "full", paths.FIGURES_DIR)
    if s.fresh:
        log(f"data: {s.message}")
        return 0
    if no_run and s.state != "figures":
        log(f"refusing to render (--no-run): {s.message}")
        if s.state == "stale":
            log(f"  recorded lab_source_sha256: {s.recorded_sha256}\n"
                f"  current  lab_source_sha256: {s.current_sha256}")
        log("  run `python -m scripts.build --settings full` (about ten minutes on a CPU) and render again")
        return 2
    log(f"data: {s.message}; running the build")
    from scripts import build   # imported when needed: it brings nbclient, matplotlib

    return build.main(["--settings", "full"] + (["--no-run"] if no_run else []))


def render(quarto: str, extra: list[str]) -> int:
    SITE, SCRATCH, PREVIOUS = PROJECT / "_site", PROJECT / "_site.render", PROJECT / "_site.previous"
    shutil.rmtree(SCRATCH, ignore_errors=True)
    # Format the (possibly just re-measured) data into the committed page files; Quarto's own
    # pre-render step only checks them, so a plain `quarto render` never writes into the project.
    site_data = [sys.executable, "-m", "scripts.site_data", "--out-root", str(PROJECT)]
    if subprocess.run(site_data, cwd=ROOT).returncode != 0:
        log("RENDER FAILED (scripts/site_data.py); the previous _site/ is unchanged")
        return 1
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
    ap.add_argument("--no-run", action="store_true", help="refuse (exit 2) instead of re-running a stale lab")
    ap.add_argument("--quarto", help="the quarto executable (default: $QUARTO, then quarto on PATH)")
    ap.add_argument("quarto_args", nargs="*", help="passed to `quarto render` (after --)")
    a = ap.parse_args(argv)
    rc = ensure_data(a.no_run)
    if rc != 0:
        return rc
    quarto = find_quarto(a.quarto)
    if quarto is None:
        log(INSTALL_QUARTO)
        return 3
    return render(quarto, a.quarto_args)


if __name__ == "__main__":
    sys.exit(main())
