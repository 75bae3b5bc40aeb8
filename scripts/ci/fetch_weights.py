"""Brings each module's trained weights beside its results before the Site workflow renders: the weights are the
build's output (data/<id>/*.safetensors), never committed, so a render of what the repository holds has none.

    python -m scripts.ci.fetch_weights [--module ID]        # needs gh (GitHub's CLI) and GH_TOKEN

For each module whose results record weights (provenance.weights) that are not there, it downloads them from the
Site workflow run that measured them (provenance.ci_run: its repository, run id and artifact, written by the
build on a GitHub runner) and keeps them only if each is the file the results record (its sha256).  A module
whose weights cannot be had (measured elsewhere, the artifact expired, a download that failed or brought other
files) is rendered without them, with a warning in the workflow's log: its live demo then says the site was
published without the trained models.  Exit status 0 either way; 2 on a results file it cannot read.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from scripts import course
from scripts.measure import results, weights


def warn(text: str) -> None:
    print(f"::warning::{text}")


def fetch(module: course.Module, gh: str = "gh") -> str:
    """Brings `module`'s recorded weights beside its results if they are missing; says what it did."""
    prov = results.load_results(module)["provenance"]
    recorded = prov.get("weights")
    absent = weights.missing(module.data_dir, recorded)
    if not absent:
        return f"{module.id}: " + ("its weights are here" if recorded else "its results record no weights")
    run = prov.get("ci_run")
    if not run:
        warn(f"{module.id}: its weights ({', '.join(absent)}) were measured outside the Site workflow, so there is no "
             "run to fetch them from; the site is published without them")
        return f"{module.id}: no run to fetch from"
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [gh, "run", "download", str(run["run_id"]), "-R", run["repository"], "-n", run["artifact"], "-D", tmp]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            warn(f"{module.id}: could not fetch its weights from run {run['run_id']} ({run['artifact']}): "
                 f"{(res.stderr or res.stdout).strip()[:300]}; the site is published without them")
            return f"{module.id}: fetch failed"
        brought = []
        for name in absent:
            found = sorted(Path(tmp).rglob(name))
            if found:
                shutil.copyfile(found[0], module.data_dir / name)
                brought.append(module.data_dir / name)
    wrong = weights.problems(module.data_dir, recorded)
    if wrong:
        for path in brought:
            path.unlink(missing_ok=True)
        warn(f"{module.id}: the run's weights are not the ones its results record ({'; '.join(wrong)}); "
             "the site is published without them")
        return f"{module.id}: fetched files did not match"
    return f"{module.id}: fetched {', '.join(p.name for p in brought)} from run {run['run_id']}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    course.add_module_argument(ap)
    args = ap.parse_args(argv)
    try:
        for module in course.selected(args.module):
            print(fetch(module))
    except results.ResultsError as e:
        print(f"fetch_weights: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
