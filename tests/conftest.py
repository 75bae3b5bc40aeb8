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
    """Tiny Shakespeare, from ../shared/data (CI and this project's machines) or LAB_CORPUS."""
    if not CORPUS.is_file():
        if os.environ.get("CI"):
            pytest.fail(f"the corpus is missing at {CORPUS}: CI must have ../shared/data/tinyshakespeare.txt")
        pytest.skip(f"the corpus is not at {CORPUS}; set LAB_CORPUS to run the tests that need it")
    return CORPUS
