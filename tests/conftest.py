"""Shared pytest settings: scripts/ on the import path, the corpus, markers."""
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))      # the tests import the project's own modules, not copies

CORPUS = Path(os.environ.get("LAB3_CORPUS", ROOT.parent / "shared" / "data" / "tinyshakespeare.txt"))


def pytest_configure(config):
    # the end-to-end build executes the lab at quick settings (about a minute): `pytest -m "not slow"` skips it
    config.addinivalue_line("markers", "slow: runs the lab (about a minute on 2 CPU cores)")


@pytest.fixture(scope="session")
def corpus_path():
    """Tiny Shakespeare, from ../shared/data (CI and this project's machines) or LAB3_CORPUS."""
    if not CORPUS.is_file():
        if os.environ.get("CI"):
            pytest.fail(f"the corpus is missing at {CORPUS}: CI must have ../shared/data/tinyshakespeare.txt")
        pytest.skip(f"the corpus is not at {CORPUS}; set LAB3_CORPUS to run the tests that need it")
    return CORPUS
