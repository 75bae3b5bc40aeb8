"""Set-up for the whole test run, every test folder (tests/, modules/<id>/tests/): hypothesis keeps its example
database and failure patches in a temporary folder, not in .hypothesis/ of the work tree, which `make test`
requires to be as it was after the tests (a failure prints its example anyway)."""
import tempfile

from hypothesis.configuration import set_hypothesis_home_dir

set_hypothesis_home_dir(tempfile.mkdtemp(prefix="hypothesis-"))
