"""{{TITLE}}'s claims (claims.json, named by code/claims.py) at their edges, on sweeps hypothesis makes: a claim
holds exactly when its words are true of the numbers, and its sentence names the numbers as the page shows
them.  (That the committed data's claims hold as recorded: tests/test_every_module.py, for every module.)"""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from scripts.measure import claims
from scripts.pages.formatting import fmt_fixed
from tests.support import this_module

MODULE = this_module(__file__)     # the module these tests belong to (their folder's)
ENTROPIES = st.lists(st.floats(min_value=0, max_value=10, allow_nan=False), min_size=2, max_size=12)


def verdict(data: dict, name: str = "entropy_grows_with_temperature") -> dict:
    return next(c for c in claims.evaluate(MODULE, data) if c["name"] == name)


def sweep(entropy: list[float]) -> dict:
    return {"temperature_sweep": {"tau": [0.5 * (i + 1) for i in range(len(entropy))], "entropy": entropy}}


@settings(max_examples=60, deadline=None)
@given(ENTROPIES)
def test_the_entropy_claim_holds_exactly_when_every_step_rises(entropy):
    c = verdict(sweep(entropy))
    assert c["holds"] == all(b > a for a, b in zip(entropy, entropy[1:])), c["detail"]
    assert f"from {fmt_fixed(entropy[0], 3)} to {fmt_fixed(entropy[-1], 3)} nats" in c["detail"]


@settings(max_examples=30, deadline=None)
@given(ENTROPIES, st.data())
def test_one_step_that_does_not_rise_breaks_the_claim(entropy, data):
    rising = sorted(set(entropy))
    if len(rising) < 2:
        rising = [0.0, 1.0]
    assert verdict(sweep(rising))["holds"]
    i = data.draw(st.integers(min_value=1, max_value=len(rising) - 1))
    flat = rising[:i] + [rising[i - 1]] + rising[i + 1:]        # one step that stays level
    assert not verdict(sweep(flat))["holds"]


def test_one_temperature_is_no_sweep_and_a_file_without_one_is_named():
    assert not verdict(sweep([1.0]))["holds"]
    broken = verdict({})
    assert not broken["holds"] and "could not be evaluated" in broken["detail"]
