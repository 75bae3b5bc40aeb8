"""The module's own tests' fixtures: its corpus (tests/support.py finds the module by this folder)."""
import pytest

from tests.support import corpus, this_module


@pytest.fixture(scope="session")
def corpus_path():
    """The module's corpus (module.yml's lab.corpus or LAB_CORPUS); missing, the test fails, never skips."""
    return corpus(this_module(__file__))
