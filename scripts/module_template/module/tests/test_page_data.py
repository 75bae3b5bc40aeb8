"""{{TITLE}}'s page values (code/page_data.py): what the page shows is the data, to the digits it shows, on
sweeps hypothesis makes; the provenance line names the data file.  (That the committed page files are what the
committed data gives: tests/test_every_module.py, for every module.)"""
from __future__ import annotations

import math

from hypothesis import given, settings, strategies as st

from tests.support import committed_results, this_module

MODULE = this_module(__file__)     # the module these tests belong to (their folder's)


@st.composite
def sweeps(draw) -> dict:
    n = draw(st.integers(min_value=2, max_value=10))
    tau = sorted(draw(st.lists(st.floats(min_value=0.01, max_value=100), min_size=n, max_size=n, unique=True)))
    entropy = draw(st.lists(st.floats(min_value=0, max_value=10), min_size=n, max_size=n))
    return {"tau": tau, "entropy": entropy}


@settings(max_examples=60, deadline=None)
@given(sweeps())
def test_the_page_shows_the_ends_of_the_sweep_to_the_digits_it_shows(sweep):
    shown = MODULE.code.page_data.variables({"temperature_sweep": sweep}, None)["sweep"]
    for end, i in (("first", 0), ("last", -1)):
        assert abs(float(shown[f"entropy_{end}"]) - sweep["entropy"][i]) <= 0.0005 + 1e-12, (end, shown)
        assert math.isclose(float(shown[f"tau_{end}"]), sweep["tau"][i], rel_tol=5e-6), (end, shown)


def test_the_provenance_partial_names_the_data_file():
    data = committed_results(MODULE)
    page_data = MODULE.code.page_data
    partial = page_data.partials(data, None, page_data.variables(data, None))["_provenance.md"]
    assert partial.startswith("::: {.provenance}") and f"data/{MODULE.id}/results.json" in partial, partial
