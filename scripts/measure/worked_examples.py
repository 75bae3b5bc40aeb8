"""A module's worked examples, computed with its lab's own code: a step of `make data`.

    python3 -m scripts.measure.worked_examples [--module ID]           # write data/<id>/worked_examples.json
    python3 -m scripts.measure.worked_examples [--module ID] --check   # exit 1 if a committed file differs from a fresh run

A module has worked examples when it has modules/<id>/code/worked_examples.py (compute(lab) -> dict,
PROVENANCE); the lab's definition cells are loaded (scripts/lab_source.load_lab) and passed to it.
The file's provenance names the lab source and torch that computed the numbers; the file is rewritten
only when the numbers change.  The pages never run this: scripts/pages/site_data.py formats the committed file.
"""
from __future__ import annotations

import argparse
import sys

from scripts import course

from scripts.measure import lab_source, results
from scripts.files import write_if_changed
from scripts.paths import rel


def compute(module: course.Module) -> dict:
    import torch

    examples = module.code.worked_examples
    provenance = {"lab_source_sha256": results.lab_source_sha256(module), "torch": torch.__version__.split("+")[0],
                  **getattr(examples, "PROVENANCE", {})}
    return {"provenance": provenance, **examples.compute(lab_source.load_lab(module))}


def numbers(examples: dict) -> dict:
    """The worked examples without their provenance: what a lab edit may or may not change."""
    return {k: v for k, v in examples.items() if k != "provenance"}


def committed(module: course.Module) -> dict | None:
    return results.read_json(module.worked_examples) if module.worked_examples.exists() else None


def update(module: course.Module, check: bool) -> int:
    fresh, old = compute(module), committed(module)
    target = rel(module.worked_examples)
    # an edit of the lab that leaves these numbers alone leaves the file alone (and its provenance)
    if old is not None and numbers(old) == numbers(fresh):
        print(f"worked_examples: {target} is up to date")
        return 0
    if check:
        print(f"worked_examples: {target} is not what the current lab computes: run "
              f"`python3 -m scripts.measure.worked_examples --module {module.id}`", file=sys.stderr)
        return 1
    module.worked_examples.parent.mkdir(parents=True, exist_ok=True)
    write_if_changed(module.worked_examples, results.dumps(fresh))
    print(f"worked_examples: wrote {target}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    course.add_module_argument(ap)
    ap.add_argument("--check", action="store_true", help="compare with the committed file instead of writing it")
    args = ap.parse_args(argv)
    status = 0
    for module in course.selected(args.module):
        if module.code.has("worked_examples"):
            status |= update(module, args.check)
    return status


if __name__ == "__main__":
    sys.exit(main())
