"""Which modules CI must measure again on the GPU: the Site workflow's matrix.

    python3 -m scripts.ci.stale_modules                         # the stale modules' ids, one line each, and why
    python3 -m scripts.ci.stale_modules --json --changed FILE.. # a JSON list for a matrix (GitHub: `fromJSON`)
    python3 -m scripts.ci.stale_modules --all --json            # every module (asked for: workflow_dispatch)

A module is stale when its data/<id>/results.json is not up to date by the build's own test
(scripts/measure/results.py `staleness`: missing, invalid, measured from another lab source or settings, figures
missing), or when a push changed what every measurement depends on (SHARED_INPUTS: the build's code and
the pinned packages), which no results file records.  A module whose data is fresh is not measured again:
the published site renders what the repository holds.
"""
from __future__ import annotations

import argparse
import json
import sys

from scripts import course

# what every module's measurement depends on and its results file does not record: a change re-measures all

from scripts.measure import results
SHARED_INPUTS = ("scripts/measure/build.py", "scripts/measure/lab_source.py", "requirements.txt")


def stale(modules, statuses: dict[str, results.Status], changed: list[str], force: bool = False) -> dict[str, str]:
    """{module id: why it must be measured again}, in the modules' order."""
    shared = sorted(set(changed) & set(SHARED_INPUTS))
    out = {}
    for m in modules:
        if force:
            out[m.id] = "asked for"
        elif not statuses[m.id].fresh:
            out[m.id] = statuses[m.id].message
        elif shared:
            out[m.id] = f"the shared build changed: {', '.join(shared)}"
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--changed", nargs="*", default=[], help="the files the push changed (paths from the project root)")
    ap.add_argument("--all", action="store_true", help="every module, whatever its data")
    ap.add_argument("--json", action="store_true", help="print a JSON list of ids only")
    args = ap.parse_args(argv)
    modules = course.modules()
    statuses = {m.id: results.staleness(m) for m in modules}
    found = stale(modules, statuses, args.changed, force=args.all)
    if args.json:
        print(json.dumps(list(found)))
    else:
        for mid, why in found.items():
            print(f"{mid}: {why}")
        if not found:
            print("every module's data is up to date", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
