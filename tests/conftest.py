"""pytest's set-up for the course-wide tests.  (pytest.ini puts the project root on the import path, so the
tests import the project's own package, `from scripts import results`, and the shared helpers,
`from tests.support import ...`; it collects tests/ and every module's own tests, modules/<id>/tests/,
each file imported by its path (--import-mode=importlib: two modules may hold test files of the same
name); and it declares the `slow` marker: `pytest -m "not slow"` skips the lab executions.)"""
