"""Every double, both formatters: scripts/pages/formatting.py and _extensions/course/formatting.js give the
same text for any float64 hypothesis draws (zeros of both signs, subnormals, 1e-300, 1e16 and beyond,
the largest double, infinities, NaNs), and neither raises.  The JavaScript answers through
tests/js/formatting-oracle.mjs, one node process for the whole module; tests/js/formatting-properties.test.mjs
is the same property drawn by fast-check with the Python as the oracle.
"""
import json
import math
import shutil
import struct
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scripts.pages import formatting
from scripts.paths import ROOT

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not on PATH (the JavaScript side of the property)")

# every double hypothesis knows how to reach (its floats() leans to the edges: 0, -0, the subnormals,
# the largest and smallest, infinities, NaNs), and numbers that sit on a rounding tie as a reader types
# them (0.125, 2.675): there the two languages' rounding would part if either rounded the binary value
DOUBLES = st.one_of(
    st.floats(),
    st.integers(-10**9, 10**9).flatmap(lambda n: st.integers(0, 8).map(lambda k: n / 10**k)),
    st.integers(-323, 308).map(lambda e: float(f"1e{e}")),
    st.sampled_from([1e16, 9999999999999998.0, 2.0**53, 2.0**53 + 2, 1e308, 5e-324, 2.2250738585072014e-308]),
)
PLACES = st.integers(0, 6)
DIGITS = st.integers(1, 4)

# the ported formatters and how to draw their other arguments
CALLS = {
    "fmt_fixed": st.tuples(DOUBLES, PLACES),
    "fmt_ppl": st.tuples(DOUBLES),
    "fmt_int": st.tuples(DOUBLES),
    "fmt_short": st.tuples(DOUBLES),
    "fmt_percent": st.tuples(DOUBLES),
    "fmt_sci": st.tuples(DOUBLES, DIGITS, st.booleans()),
    "fmt_factor": st.tuples(DOUBLES),
    "fmt_ratio_times": st.tuples(DOUBLES),
}


def bits(x: float) -> str:
    return struct.pack(">d", x).hex()


@pytest.fixture(scope="module")
def javascript():
    """formatting.js behind a pipe: ask(function, args) -> {"text": ...} or {"error": ...}."""
    proc = subprocess.Popen([NODE, "tests/js/formatting-oracle.mjs"], cwd=ROOT, text=True, encoding="utf-8",
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def ask(function, args):
        wire = [{"bits": bits(a)} if isinstance(a, float) else a for a in args]
        proc.stdin.write(json.dumps({"function": function, "args": wire}) + "\n")
        proc.stdin.flush()
        line = proc.stdout.readline()
        assert line, f"formatting-oracle.mjs ended (exit {proc.poll()})"
        return json.loads(line)

    yield ask
    proc.stdin.close()
    proc.wait()


def test_the_property_covers_every_ported_formatter():
    """A formatter added to formatting.js's FORMATTERS without a strategy here would go untested."""
    text = (ROOT / "_extensions" / "course" / "formatting.js").read_text(encoding="utf-8")
    ported = text.split("export const FORMATTERS = {", 1)[1].split("}", 1)[0]
    assert {name.strip() for name in ported.split(",")} == set(CALLS)


@pytest.mark.parametrize("function", sorted(CALLS))
def test_python_and_javascript_give_the_same_text_for_every_double(function, javascript):
    @settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(CALLS[function])
    def same_text(args):
        python = getattr(formatting, function)(*args)          # total: raising here fails the test
        assert isinstance(python, str) and python, (function, args)
        js = javascript(function, list(args))
        assert js == {"text": python}, f"{function}{args!r} (bits {[bits(a) for a in args if isinstance(a, float)]})"
    same_text()


@given(DOUBLES)
@settings(max_examples=300, deadline=None)
def test_no_formatter_shows_a_bare_nan_or_inf(x):
    """What a reader sees: never Python's nan/inf or JavaScript's NaN/Infinity; zero is 0, not missing."""
    for function, strategy in CALLS.items():
        extra = {"fmt_fixed": (2,), "fmt_sci": (2,)}.get(function, ())
        text = getattr(formatting, function)(x, *extra)
        assert not any(word in text.split() for word in ("nan", "NaN", "inf", "Infinity", "None", "null")), (function, x, text)
        if x == 0:
            assert text.split()[0].strip("0.%") == "", (function, x, text)
        if math.isnan(x):
            assert text == formatting.NOT_A_NUMBER
