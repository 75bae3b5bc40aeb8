"""The prose's claims about a module's measured numbers, checked: the shared part.

Each module lists its claims in modules/<id>/code/claims.py (CLAIMS, a tuple of Claim): a name, the
sentence the page makes, and a check over the results that returns (holds, detail).  The build
evaluates every claim on each new measurement: at full settings one that no longer holds fails the
build, naming it, and nothing is written; at quick settings they are reported only.

    python -m scripts.measure.claims [--module ID] [RESULTS.json]   # evaluate a module's claims on a results file
                                        # exit 0 all hold, 1 one fails, 2 unreadable (said in one line)
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
from typing import Callable

import jsonata

from scripts import course

from scripts.pages import formatting

from scripts.measure import results


@dataclasses.dataclass(frozen=True)
class Claim:
    name: str
    statement: str
    check: Callable[[dict], tuple[bool, str]]


# ------------------------------------------------------------------------------------------------
# Claims as data: modules/<id>/claims.json states the claims an
# After-the-Lab box makes as JSONata expressions over a results file.  The build evaluates them here (with
# jsonata-python) and the module page evaluates the same ones on a student's own run (with jsonata, in
# _extensions/course/run-claims.js), so one definition serves both.  A module's CLAIMS names them with
# data_claims(); the claims that need Python stay Python.
CLAIMS_FILE = "claims.json"


def format_value(value, fmt: list):
    """A value shown by its format ["fmt_fixed", 2]: scripts/pages/formatting.py's function (formatting.js's twin)."""
    name, *args = fmt
    return getattr(formatting, name)(value, *args)


def fill(template: str, values: dict) -> str:
    """The sentence with {name} filled; a name the claim does not compute is an error (as in run-claims.js)."""
    def one(m):
        if m.group(1) not in values:
            raise KeyError(f"the sentence names {{{m.group(1)}}}, which the claim does not compute")
        return values[m.group(1)]
    return re.sub(r"\{(\w+)\}", one, template)


def _data_check(claim: dict, thresholds: dict) -> Callable[[dict], tuple[bool, str]]:
    for key in ("yes", "no", "usually"):    # a sentence naming a value the claim does not compute: wrong at once
        unknown = set(re.findall(r"\{(\w+)\}", claim.get(key, ""))) - set(claim.get("values", {}))
        if unknown:
            raise ValueError(f"claims.json: {claim['name']}'s {key} names {sorted(unknown)}, which it does not compute")
    test = jsonata.Jsonata(claim["holds"])
    values = {name: (jsonata.Jsonata(spec["of"]), spec) for name, spec in claim.get("values", {}).items()}

    def check(data: dict) -> tuple[bool, str]:
        # the values first: a claim over a number the file lacks is not evaluated (JSONata would compare it as false)
        shown = {name: shown_value(expr.evaluate(data, thresholds), spec) for name, (expr, spec) in values.items()}
        holds = test.evaluate(data, thresholds)
        if not isinstance(holds, bool):
            raise TypeError(f"its test gave {holds!r}, not true or false")
        return holds, fill(claim["yes"] if holds else claim["no"], shown)
    return check


def shown_value(value, spec: dict) -> str:
    """A claim's value as its sentence shows it; a missing or null one is the spec's `null` text, or an error."""
    if value is None:
        if "null" in spec:
            return spec["null"]
        raise ValueError(f"your file has no number at {spec['of']}")   # as run-claims.js says it
    return format_value(value, spec["format"])


def read_data_claims(module: course.Module) -> dict:
    path = module.dir / CLAIMS_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {"claims": []}


def data_claims(module: course.Module) -> dict[str, Claim]:
    """The module's claims.json as Claims, by name (a module's CLAIMS places each where its page states it)."""
    doc = read_data_claims(module)
    thresholds = doc.get("thresholds", {})
    return {c["name"]: Claim(c["name"], c["statement"], _data_check(c, thresholds)) for c in doc["claims"]}


def evaluate(module: course.Module, data: dict) -> list[dict]:
    """Every claim of the module on a results dict: [{name, statement, holds, detail}] in CLAIMS order.

    A check that cannot even be computed (missing or null number) counts as not holding.
    """
    out = []
    for c in module.code.claims.CLAIMS:
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
