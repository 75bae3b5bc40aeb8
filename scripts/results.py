"""The measured results file, data/baselines.json: load, validate, check staleness.

Shared by the build (scripts/build.py), the site's pre-render (scripts/site_data.py) and the tests.

    from scripts import results
    data = results.load_results()          # validated against data/baselines.schema.json
    status = results.staleness()           # Status(fresh=..., state=..., message=...)

Run it to print the state of the committed file:  python -m scripts.results
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import sys
from pathlib import Path

from scripts import paths
from scripts.paths import rel

# the measured figures the build draws from the data (the diagrams are drawn by draw_diagrams.py)
FIGURE_NAMES = ("gradient-rnn.svg", "gradient-by-distance.svg", "clipping-demo.svg")


class ResultsError(Exception):
    """A results file that is missing, unreadable or does not match the schema."""


# --------------------------------------------------------------------------------------------
# schema
# --------------------------------------------------------------------------------------------
def load_schema() -> dict:
    with open(paths.SCHEMA_PATH, encoding="utf-8") as f:
        return json.load(f)


def schema_errors(data) -> list[str]:
    """Every way `data` breaks the schema, one readable line each ('' when valid)."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(load_schema())
    lines = []
    for err in sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path))):
        where = "/".join(str(p) for p in err.absolute_path) or "(top level)"
        msg = err.message
        if len(msg) > 200:
            msg = msg[:200] + "..."
        lines.append(f"at {where}: {msg}")
    return lines


def validate(data, what: str = "results") -> None:
    """Raise ResultsError naming each schema violation of `data`."""
    errors = schema_errors(data)
    if errors:
        shown = "\n  ".join(errors[:20])
        more = f"\n  ... and {len(errors) - 20} more" if len(errors) > 20 else ""
        raise ResultsError(f"{what} does not match {rel(paths.SCHEMA_PATH)} "
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


def load_results(path: Path | str | None = None) -> dict:
    """Load and validate a results file (default: data/baselines.json); raise ResultsError with a
    clear message otherwise."""
    path = Path(path or paths.DATA_PATH)
    if not path.exists():
        raise ResultsError(f"{rel(path)} does not exist: run `python -m scripts.build --settings full`")
    try:
        data = read_json(path)
    except ValueError as e:
        raise ResultsError(f"{rel(path)} is not valid JSON: {e}") from e
    validate(data, what=rel(path))
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
def lab_source_sha256() -> str:
    """sha256 of the lab source; scripts/lab_source.py holds its one definition."""
    from scripts import lab_source   # imported when needed: it brings jupytext and nbformat

    return lab_source.source_sha256()


def sha256_file(path: Path | str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@dataclasses.dataclass
class Status:
    state: str            # fresh | missing | invalid | stale | settings | figures
    message: str
    recorded_sha256: str | None = None
    current_sha256: str | None = None

    @property
    def fresh(self) -> bool:
        return self.state == "fresh"


def staleness(data_path: Path | str | None = None, settings: str = "full",
              figures_dir: Path | str | None = paths.FIGURES_DIR, current_sha256: str | None = None) -> Status:
    """Is the results file at data_path up to date with the lab source?

    fresh    : schema-valid, lab_source_sha256 equals the current lab source's, settings match,
               and (when figures_dir is given) every measured figure exists;
    missing  : no file;  invalid: unreadable or breaks the schema;
    stale    : the lab source changed since the file was written;
    settings : written with other settings (e.g. quick) than asked for;
    figures  : data is fresh but a measured figure is missing (redraw without re-running the lab).
    """
    data_path = Path(data_path or paths.DATA_PATH)
    current = current_sha256 or lab_source_sha256()
    if not data_path.exists():
        return Status("missing", f"{rel(data_path)} does not exist", None, current)
    try:
        data = load_results(data_path)
    except ResultsError as e:
        return Status("invalid", str(e), None, current)
    prov = data["provenance"]
    recorded = prov["lab_source_sha256"]
    if recorded != current:
        return Status("stale",
                      f"{rel(data_path)} is stale: it was measured from lab source sha256 {recorded}, "
                      f"but {rel(paths.LAB_SOURCE)} now has sha256 {current}", recorded, current)
    if prov["settings"] != settings:
        return Status("settings", f"{rel(data_path)} was measured with settings '{prov['settings']}', "
                                  f"not '{settings}'", recorded, current)
    if figures_dir is not None:
        missing = [n for n in FIGURE_NAMES if not (Path(figures_dir) / n).exists()]
        if missing:
            return Status("figures", f"{rel(data_path)} is up to date but figures are missing: "
                                     f"{', '.join(missing)}", recorded, current)
    return Status("fresh", f"{rel(data_path)} is up to date (lab source sha256 {current[:12]}..., "
                           f"settings {settings})", recorded, current)


if __name__ == "__main__":
    s = staleness()
    print(s.message)
    sys.exit(0 if s.fresh else 1)
