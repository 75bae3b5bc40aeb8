"""The description of the pull request that brings a GPU run's measurements back (the Site workflow's
propose job, which runs it after committing them): for each module whose data/<id>/results.json differs
from the commit before (git diff HEAD~1), its provenance, the module's own summary lines and every claim
with whether it holds.

    python3 -m scripts.ci.measured_summary [--run-url URL] [--module ID ...]   # Markdown on stdout
"""
from __future__ import annotations

import argparse
import subprocess
import sys

from scripts import course

from scripts.measure import results
from scripts.paths import ROOT, rel
from scripts.pages.site_data import provenance_line


def changed_modules() -> list[course.Module]:
    """The modules whose results file differs from the commit before HEAD's, in the modules' order."""
    out = subprocess.run(["git", "diff", "--name-only", "HEAD~1", "--", "data/"], cwd=ROOT, capture_output=True,
                         text=True, check=False).stdout.split()
    return [m for m in course.modules() if rel(m.results) in out]


def module_section(m: course.Module) -> list[str]:
    data = results.load_results(m)
    lines = [f"## {m.id}", "", provenance_line(data["provenance"], m), ""]
    if m.code.has("summary"):
        lines += ["```", *m.code.summary.summary(data), "```", ""]
    held = sum(c["holds"] for c in data["claims"])
    lines += [f"Claims: {held} of {len(data['claims'])} hold.", "", "| claim | holds | detail |", "|---|---|---|"]
    lines += [f"| `{c['name']}` | {'yes' if c['holds'] else '**no**'} | {c['detail'].replace('|', '/')} |"
              for c in data["claims"]]
    return lines + [""]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run-url", default="", help="the workflow run that measured them")
    ap.add_argument("--module", nargs="*", help="these modules (default: those whose results file changed)")
    args = ap.parse_args(argv)
    modules = [course.module(i) for i in args.module] if args.module else changed_modules()
    print("Measurements from the GPU runner" + (f" ([run]({args.run_url}))" if args.run_url else "") + ". Merge to "
          "publish them: the Site workflow renders what the repository holds.\n")
    for m in modules:
        print("\n".join(module_section(m)))
    if not modules:
        print("No module's results changed.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
