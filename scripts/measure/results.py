"""A module's measured results file, data/<id>/results.json: load, validate, check staleness.

Shared by the build (scripts/measure/build.py), the site's pre-render (scripts/pages/site_data.py) and the tests.

    from scripts import course

    from scripts.measure import results
    m = course.module(ID)
    data = results.load_results(m)         # validated against data/<id>/results.schema.json
    status = results.staleness(m)          # Status(fresh=..., state=..., message=...)

Run it to print the state of every module's committed file:  python -m scripts.measure.results [--module ID]
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import sys
from pathlib import Path

from scripts import course, paths
from scripts.paths import rel


class ResultsError(Exception):
    """A results file that is missing, unreadable or does not match the schema."""


# --------------------------------------------------------------------------------------------
# schema
# --------------------------------------------------------------------------------------------
# the provenance block the build writes, one definition that every module's schema refers to ($ref by its $id)
PROVENANCE_SCHEMA = paths.SCHEMAS / "provenance.schema.json"
# what a lab records of its own run (lab_run): the build checks the lab's file with it, a module page a student's
LAB_RUN_SCHEMA = paths.SCHEMAS / "lab-run.schema.json"


def load_schema(module: course.Module) -> dict:
    with open(module.schema, encoding="utf-8") as f:
        return json.load(f)


def schema_registry():
    """The shared schemas a schema may refer to by $id (urn:course:provenance, urn:course:lab-run)."""
    from referencing import Registry, Resource

    shared = [json.loads(p.read_text(encoding="utf-8")) for p in (PROVENANCE_SCHEMA, LAB_RUN_SCHEMA)]
    return Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in shared)


def lab_run_errors(run) -> list[str]:
    """Every way a lab's `lab_run` breaks schemas/lab-run.schema.json, one readable line each."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(json.loads(LAB_RUN_SCHEMA.read_text(encoding="utf-8")))
    return [f"at {'/'.join(map(str, e.absolute_path)) or '(top level)'}: {e.message[:200]}"
            for e in sorted(validator.iter_errors(run), key=lambda e: list(map(str, e.absolute_path)))]


def schema_errors(module: course.Module, data) -> list[str]:
    """Every way `data` breaks the schema, one readable line each ('' when valid)."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(load_schema(module), registry=schema_registry())
    lines = []
    for err in sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path))):
        where = "/".join(str(p) for p in err.absolute_path) or "(top level)"
        msg = err.message
        if len(msg) > 200:
            msg = msg[:200] + "..."
        lines.append(f"at {where}: {msg}")
    return lines


def validate(module: course.Module, data, what: str = "results") -> None:
    """Raise ResultsError naming each schema violation of `data`."""
    errors = schema_errors(module, data)
    if errors:
        shown = "\n  ".join(errors[:20])
        more = f"\n  ... and {len(errors) - 20} more" if len(errors) > 20 else ""
        raise ResultsError(f"{what} does not match {rel(module.schema)} "
                           f"({len(errors)} problem{'s' if len(errors) != 1 else ''}):\n  {shown}{more}")


def non_finite(x, where: str = "") -> list[str]:
    """The places ('gradient_by_distance/rnn_grad_norm/3') of every NaN or infinity in parsed JSON."""
    if isinstance(x, float) and not math.isfinite(x):
        return [where or "(top level)"]
    if isinstance(x, dict):
        return [p for k, v in x.items() for p in non_finite(v, f"{where}/{k}" if where else str(k))]
    if isinstance(x, list):
        return [p for i, v in enumerate(x) for p in non_finite(v, f"{where}/{i}" if where else str(i))]
    return []


def read_json(path: Path):
    """Parse JSON strictly: NaN/Infinity are an error naming where they are, not a number."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    bad = non_finite(data)
    if bad:
        more = f" and {len(bad) - 1} more" if len(bad) > 1 else ""
        raise ValueError(f"non-finite number at {bad[0]}{more} (the lab must write null)")
    return data


def load_results(module: course.Module, path: Path | str | None = None) -> dict:
    """Load and validate a module's results file (default: data/<id>/results.json); raise ResultsError
    with a clear message otherwise."""
    path = Path(path or module.results)
    if not path.exists():
        raise ResultsError(f"{rel(path)} does not exist: run `python -m scripts.measure.build --module {module.id} "
                           "--settings full`")
    try:
        data = read_json(path)
    except ValueError as e:
        raise ResultsError(f"{rel(path)} is not valid JSON: {e}") from e
    validate(module, data, what=rel(path))
    return data


def dumps(data) -> str:
    """The one serialization of results files (stable, diff-friendly, no NaN)."""
    return json.dumps(data, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def finite_or_none(x):
    """Recursively replace non-finite floats by None (JSON null)."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: finite_or_none(v) for k, v in x.items()}
    if isinstance(x, list):
        return [finite_or_none(v) for v in x]
    return x


# --------------------------------------------------------------------------------------------
# staleness
# --------------------------------------------------------------------------------------------
def lab_source_sha256(module: course.Module) -> str:
    """sha256 of the module's lab source; scripts/measure/lab_source.py holds its one definition."""
    from scripts.measure import lab_source   # imported when needed: it brings jupytext and nbformat

    return lab_source.source_sha256(module.lab_source)


def sha256_file(path: Path | str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@dataclasses.dataclass
class Status:
    state: str            # fresh | missing | invalid | stale | settings | weights | figures
    message: str
    recorded_sha256: str | None = None
    current_sha256: str | None = None

    @property
    def fresh(self) -> bool:
        return self.state == "fresh"


def staleness(module: course.Module, data_path: Path | str | None = None, settings: str = "full",
              figures_dir: Path | str | None = "", current_sha256: str | None = None) -> Status:
    """Is the results file at data_path up to date with the lab source?

    fresh    : schema-valid, lab_source_sha256 equals the current lab source's, settings match,
               and (when figures_dir is given) every measured figure exists;
    missing  : no file;  invalid: unreadable or breaks the schema;
    stale    : the lab source changed since the file was written;
    settings : written with other settings (e.g. quick) than asked for;
    figures  : data is fresh but a measured figure is missing (redraw without re-running the lab);
    weights  : data is fresh but a weights file it records (provenance.weights) is another file than the
               one recorded (only a lab run makes them again).  A missing one is no staleness: the weights are
               the build's output, not kept in the repository; the message says they are not here.
    """
    data_path = Path(data_path or module.results)
    figures_dir = module.figures_dir if figures_dir == "" else figures_dir
    current = current_sha256 or lab_source_sha256(module)
    if not data_path.exists():
        return Status("missing", f"{rel(data_path)} does not exist", None, current)
    try:
        data = load_results(module, data_path)
    except ResultsError as e:
        return Status("invalid", str(e), None, current)
    prov = data["provenance"]
    recorded = prov["lab_source_sha256"]
    if recorded != current:
        return Status("stale",
                      f"{rel(data_path)} is stale: it was measured from lab source sha256 {recorded}, "
                      f"but {rel(module.lab_source)} now has sha256 {current}", recorded, current)
    if prov["settings"] != settings:
        return Status("settings", f"{rel(data_path)} was measured with settings '{prov['settings']}', "
                                  f"not '{settings}'", recorded, current)
    from scripts.measure import weights

    wrong = weights.problems(data_path.parent, prov.get("weights"), missing_ok=True)
    absent = weights.missing(data_path.parent, prov.get("weights"))
    if wrong:
        return Status("weights", f"{rel(data_path)} is up to date but its weights are not: {'; '.join(wrong)}",
                      recorded, current)
    if figures_dir is not None:
        missing = [n for n in module.code.plots.FIGURE_NAMES if not (Path(figures_dir) / n).exists()]
        if missing:
            return Status("figures", f"{rel(data_path)} is up to date but figures are missing: "
                                     f"{', '.join(missing)}", recorded, current)
    note = (f"; its trained weights ({', '.join(absent)}) are not here: the build's output, not kept in the "
            "repository (a build with --force exports them; the Site workflow fetches the measured ones)") if absent else ""
    return Status("fresh", f"{rel(data_path)} is up to date (lab source sha256 {current[:12]}..., "
                           f"settings {settings}){note}", recorded, current)


def main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description="Is each module's committed results file up to date?")
    course.add_module_argument(ap)
    args = ap.parse_args(argv)
    fresh = True
    for m in course.selected(args.module):
        s = staleness(m)
        print(f"{m.id}: {s.message}")
        fresh &= s.fresh
    return 0 if fresh else 1


if __name__ == "__main__":
    sys.exit(main())
