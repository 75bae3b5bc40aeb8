"""The prose's claims about a module's measured numbers, checked: the shared part.

Each module lists its claims in modules/<id>/build/claims.py (CLAIMS, a tuple of Claim): a name, the
sentence the page makes, and a check over the results that returns (holds, detail).  The build
evaluates every claim on each new measurement: at full settings one that no longer holds fails the
build, naming it, and nothing is written; at quick settings they are reported only.

    python -m scripts.claims [--module ID] [RESULTS.json]   # evaluate a module's claims on a results file
                                        # exit 0 all hold, 1 one fails, 2 unreadable (said in one line)
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import Callable

from scripts import course, results


@dataclasses.dataclass(frozen=True)
class Claim:
    name: str
    statement: str
    check: Callable[[dict], tuple[bool, str]]


def evaluate(module: course.Module, data: dict) -> list[dict]:
    """Every claim of the module on a results dict: [{name, statement, holds, detail}] in CLAIMS order.

    A check that cannot even be computed (missing or null number) counts as not holding.
    """
    out = []
    for c in module.build.claims.CLAIMS:
        try:
            holds, detail = c.check(data)
        except Exception as e:  # noqa: BLE001 - a broken measurement is a failed claim, named
            holds, detail = False, f"could not be evaluated: {type(e).__name__}: {e}"
        out.append({"name": c.name, "statement": c.statement, "holds": bool(holds), "detail": detail})
    return out


def failed(evaluated: list[dict]) -> list[dict]:
    return [r for r in evaluated if not r["holds"]]


def report(evaluated: list[dict]) -> str:
    lines = []
    for r in evaluated:
        lines.append(f"  [{'ok' if r['holds'] else 'FAIL'}] {r['name']}: {r['detail']}")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    course.add_module_argument(ap)
    ap.add_argument("results", nargs="?", help="a results file (default: the module's data/<id>/results.json)")
    args = ap.parse_args(argv)
    status = 0
    for module in course.selected(args.module):
        try:
            evaluated = evaluate(module, results.load_results(module, args.results))
        except results.ResultsError as err:      # one line, naming the file and the problem, no traceback
            print(f"claims: {module.id}: " + " ".join(line.strip() for line in str(err).splitlines()), file=sys.stderr)
            return 2
        print(f"{module.id}:\n{report(evaluated)}")
        status |= 1 if failed(evaluated) else 0
    return status


if __name__ == "__main__":
    sys.exit(main())
