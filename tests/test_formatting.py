"""scripts/pages/formatting.py, the one formatter of every number a reader sees: carries and rounding.

The cases are the one table that the demos' port (_extensions/course/formatting.js, checked by
tests/js/formatting.test.mjs) must pass too: tests/fixtures/formatting-cases.json.  Its expected
strings are written out by hand (what a reader rounding on paper gets), not computed with Python's
format specifiers, whose round-half-even on binary floats is what is being replaced.
"""
import json
import math
from pathlib import Path

import pytest

from scripts.pages import formatting

CASES_FILE = Path(__file__).resolve().parent / "fixtures" / "formatting-cases.json"
CASES = json.loads(CASES_FILE.read_text(encoding="utf-8"))["cases"]
FLOATS = {"nan", "inf", "-inf", "-0.0"}


def arg(a):
    """A case's argument: {"float": "nan"} and the like are the floats JSON cannot write."""
    if isinstance(a, dict):
        assert set(a) == {"float"} and a["float"] in FLOATS, a
        return float(a["float"])
    return a


def name(case) -> str:
    return f"{case['function']}({', '.join(json.dumps(a, ensure_ascii=False) for a in case['args'])})"


@pytest.mark.parametrize("case", CASES, ids=[name(c) for c in CASES])
def test_case(case):
    fn = getattr(formatting, case["function"])
    args = [arg(a) for a in case["args"]]
    if case.get("raises"):
        with pytest.raises(Exception):
            fn(*args)
    else:
        assert fn(*args) == case["expected"], case.get("why", "")


def test_the_table_covers_every_formatter():
    public = {n for n in dir(formatting) if n.startswith("fmt_") and callable(getattr(formatting, n))}
    assert public == {c["function"] for c in CASES}, "every fmt_* has cases, and every case names one"
    assert len(CASES) >= 100


def test_sci_value_is_the_number_fmt_sci_shows():
    """Arithmetic on a shown number uses what fmt_sci shows: its rounding, its carry."""
    for x, digits, shown in ((5.389778489263984e-05, 2, 5.4e-05), (1.4226589076862008e-3, 2, 1.4e-3),
                             (9.96e4, 2, 1.0e5), (0.000125, 1, 1e-4)):
        assert math.isclose(formatting.sci_value(x, digits), shown, rel_tol=1e-12), x
