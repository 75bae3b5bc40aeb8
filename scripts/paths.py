"""The course-wide paths, defined once.  A module's own paths (its lab, data, figures, pages) come
from its id: scripts/course.py (`course.module(id).results`, ...).

Modules read these as attributes (`paths.ROOT`), not copies (`from scripts.paths import ...`),
so that a test can point one of them elsewhere with a single monkeypatch.
"""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

MODULES = ROOT / "modules"          # one folder per module, each with its module.yml
BUILD_DIR = ROOT / "build"          # the build's scratch space (gitignored)
# the schemas shared by every module, read by the build and, published with the site, by the browser
SCHEMAS = ROOT / "schemas"

# the site
QUARTO_CONFIG = ROOT / "_quarto.yml"
NODE_MODULES = ROOT / "node_modules"
VENDOR = ROOT / "vendor"


def rel(p: Path | str) -> str:
    """A path as the reader wants it in a message: relative to the project root when inside it."""
    try:
        return str(Path(p).resolve().relative_to(ROOT))
    except ValueError:
        return str(p)
