"""Shared pytest fixtures: the corpus.  (pytest.ini puts the project root on the import path, so the
tests import the project's own package, `from scripts import results`; it also declares the `slow`
marker: `pytest -m "not slow"` skips the lab executions.)"""
import os

import pytest

from scripts import paths
from tests.support import M3

CORPUS = M3.corpus()


@pytest.fixture(scope="session")
def corpus_path():
    """Tiny Shakespeare, from ../shared/data (CI and this project's machines) or LAB_CORPUS.  A test that
    needs it fails when it is missing, never skips: only the tests that need `quarto` may skip."""
    if CORPUS is None or not CORPUS.is_file():
        where = "LAB_CORPUS" if os.environ.get("LAB_CORPUS") else f"lab.corpus in {paths.rel(M3.dir / 'module.yml')}"
        pytest.fail(f"the corpus is missing at {CORPUS} (from {where}): put Tiny Shakespeare at "
                    "../shared/data/tinyshakespeare.txt or set LAB_CORPUS to its path", pytrace=False)
    return CORPUS
