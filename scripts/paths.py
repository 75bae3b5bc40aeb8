"""Every path the project reads or writes, defined once.

Modules read these as attributes (`paths.LAB_SOURCE`), not copies (`from scripts.paths import ...`),
so that a test can point one of them elsewhere with a single monkeypatch.
"""
from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# the lab: one source, one generated student notebook
LAB_SOURCE = ROOT / "lab" / "lab03_sequence_models.py"
STUDENT_NOTEBOOK = ROOT / "lab" / "lab03_sequence_models.ipynb"

# what the build measures and draws (committed), and its scratch space (gitignored)
DATA_PATH = ROOT / "data" / "baselines.json"
SCHEMA_PATH = ROOT / "data" / "baselines.schema.json"
WORKED_EXAMPLES = ROOT / "data" / "worked_examples.json"   # scripts/worked_examples.py: the briefing's worked examples
FIGURES_DIR = ROOT / "figures"
BUILD_DIR = ROOT / "build"
FIXTURE = ROOT / "tests" / "fixtures" / "baselines.json"   # NOT measurements: for tests only

# the site
QUARTO_CONFIG = ROOT / "_quarto.yml"
MODULE_DIR = Path("modules/03-sequence-models")        # relative: site_data writes below any --out-root
GENERATED = MODULE_DIR / "_generated"
NODE_MODULES = ROOT / "node_modules"
VENDOR = ROOT / "vendor"

# Tiny Shakespeare: $LAB3_CORPUS, else beside the project in ../shared/data
DEFAULT_CORPUS = ROOT.parent / "shared" / "data" / "tinyshakespeare.txt"


def corpus() -> Path:
    """The corpus the lab reads: $LAB3_CORPUS when set, else ../shared/data/tinyshakespeare.txt."""
    return Path(os.environ.get("LAB3_CORPUS") or DEFAULT_CORPUS)


def rel(p: Path | str) -> str:
    """A path as the reader wants it in a message: relative to the project root when inside it."""
    try:
        return str(Path(p).resolve().relative_to(ROOT))
    except ValueError:
        return str(p)
