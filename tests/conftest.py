"""Shared pytest settings."""


def pytest_configure(config):
    # the end-to-end build executes the lab at quick settings (about a minute): `pytest -m "not slow"` skips it
    config.addinivalue_line("markers", "slow: runs the lab (about a minute on 2 CPU cores)")
