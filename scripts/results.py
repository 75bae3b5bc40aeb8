"""The measured results file, data/baselines.json: load, validate, check staleness, write atomically.

Shared by the build (scripts/build.py), the site's pre-render (scripts/site_data.py) and the tests.

    from results import load_results, staleness, atomic_write
    data = load_results()                  # validated against data/baselines.schema.json
    status = staleness()                   # Status(fresh=..., state=..., message=...)

Run it to print the state of the committed file:  python scripts/results.py
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_PATH = ROOT / "data" / "baselines.schema.json"
DATA_PATH = ROOT / "data" / "baselines.json"
FIGURES_DIR = ROOT / "figures"
LAB_SOURCE = ROOT / "lab" / "lab03_sequence_models.py"
# the measured figures the build draws from the data (the diagrams are drawn by draw_diagrams.py)
FIGURE_NAMES = ("gradient-by-distance.svg", "clipping-demo.svg")


class ResultsError(Exception):
    """A results file that is missing, unreadable or does not match the schema."""


# --------------------------------------------------------------------------------------------
# schema
# --------------------------------------------------------------------------------------------
def load_schema() -> dict:
    with open(SCHEMA_PATH, encoding="utf-8") as f:
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
        raise ResultsError(f"{what} does not match {SCHEMA_PATH.relative_to(ROOT)} "
                           f"({len(errors)} problem{'s' if len(errors) != 1 else ''}):\n  {shown}{more}")


def _reject_constant(name):
    raise ValueError(f"non-finite number {name} in JSON (the lab must write null)")


def read_json(path: Path):
    """Parse JSON strictly: NaN/Infinity are an error, not a number."""
    with open(path, encoding="utf-8") as f:
        return json.load(f, parse_constant=_reject_constant)


def load_results(path: Path | str = DATA_PATH) -> dict:
    """Load and validate a results file; raise ResultsError with a clear message otherwise."""
    path = Path(path)
    if not path.exists():
        raise ResultsError(f"{path} does not exist: run `python scripts/build.py --settings full`")
    try:
        data = read_json(path)
    except ValueError as e:
        raise ResultsError(f"{path} is not valid JSON: {e}") from e
    validate(data, what=str(path))
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
    import lab_source  # scripts/ is on sys.path wherever this module is imported from

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


def staleness(data_path: Path | str = DATA_PATH, settings: str = "full",
              figures_dir: Path | str | None = FIGURES_DIR, current_sha256: str | None = None) -> Status:
    """Is the results file at data_path up to date with the lab source?

    fresh    : schema-valid, lab_source_sha256 equals the current lab source's, settings match,
               and (when figures_dir is given) every measured figure exists;
    missing  : no file;  invalid: unreadable or breaks the schema;
    stale    : the lab source changed since the file was written;
    settings : written with other settings (e.g. quick) than asked for;
    figures  : data is fresh but a measured figure is missing (redraw without re-running the lab).
    """
    data_path = Path(data_path)
    current = current_sha256 or lab_source_sha256()
    if not data_path.exists():
        return Status("missing", f"{_rel(data_path)} does not exist", None, current)
    try:
        data = load_results(data_path)
    except ResultsError as e:
        return Status("invalid", str(e), None, current)
    prov = data["provenance"]
    recorded = prov["lab_source_sha256"]
    if recorded != current:
        return Status("stale",
                      f"{_rel(data_path)} is stale: it was measured from lab source sha256 {recorded}, "
                      f"but {_rel(LAB_SOURCE)} now has sha256 {current}", recorded, current)
    if prov["settings"] != settings:
        return Status("settings", f"{_rel(data_path)} was measured with settings '{prov['settings']}', "
                                  f"not '{settings}'", recorded, current)
    if figures_dir is not None:
        missing = [n for n in FIGURE_NAMES if not (Path(figures_dir) / n).exists()]
        if missing:
            return Status("figures", f"{_rel(data_path)} is up to date but figures are missing: "
                                     f"{', '.join(missing)}", recorded, current)
    return Status("fresh", f"{_rel(data_path)} is up to date (lab source sha256 {current[:12]}..., "
                           f"settings {settings})", recorded, current)


def _rel(p: Path) -> str:
    try:
        return str(Path(p).resolve().relative_to(ROOT))
    except ValueError:
        return str(p)


# --------------------------------------------------------------------------------------------
# atomic write of several files
# --------------------------------------------------------------------------------------------
def atomic_write(files: dict[Path | str, bytes | str]) -> None:
    """Write several files so that either all of them change or none does.

    Phase 1 writes every file to a temp file next to its target (same filesystem) and fsyncs it.
    Any failure there removes the temps and leaves every target untouched.  Phase 2 renames the
    temps over the targets (os.replace is atomic per file); a failure in phase 2 puts back the
    targets already replaced, from hard-link backups taken before the first rename.
    """
    staged: list[tuple[Path, Path]] = []
    try:
        for target, content in files.items():
            target = Path(target)
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, str):
                content = content.encode("utf-8")
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
            staged.append((Path(tmp), target))
            with os.fdopen(fd, "wb") as f:
                f.write(content)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, 0o644)
    except BaseException:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
        raise

    backups: list[tuple[Path, Path | None]] = []     # (target, backup or None if it did not exist)
    done: list[Path] = []
    try:
        for tmp, target in staged:
            backup = None
            if target.exists():
                backup = target.with_name(f".{target.name}.bak")
                backup.unlink(missing_ok=True)
                try:
                    os.link(target, backup)
                except OSError:                       # no hard links here: copy instead
                    shutil.copy2(target, backup)
            backups.append((target, backup))
        for tmp, target in staged:
            _replace(tmp, target)
            done.append(target)
    except BaseException:
        for target, backup in backups:
            if target in done:
                if backup is not None:
                    os.replace(backup, target)
                else:
                    target.unlink(missing_ok=True)
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
        for _, backup in backups:
            if backup is not None:
                backup.unlink(missing_ok=True)
        raise
    for _, backup in backups:
        if backup is not None:
            backup.unlink(missing_ok=True)


def _replace(src: Path, dst: Path) -> None:
    """os.replace, in its own function so that tests can make it fail half-way."""
    os.replace(src, dst)


if __name__ == "__main__":
    s = staleness()
    print(s.message)
    sys.exit(0 if s.fresh else 1)
