"""scripts/formatting.py, the one formatter of every number a reader sees: carries and rounding.

The expected strings are written out by hand (what a reader rounding on paper gets), not computed
with Python's format specifiers, whose round-half-even on binary floats is what is being replaced.
"""
import pytest

from scripts.formatting import (fmt_factor, fmt_fixed, fmt_int, fmt_num, fmt_percent, fmt_ppl,
                                fmt_ratio_times, fmt_sci, fmt_short)


@pytest.mark.parametrize("x, digits, expected", [
    (9.96e4, 2, "1.0 × 10⁵"),          # carry into the next power, not "10 × 10⁴"
    (9.96e4, 1, "10⁵"),
    (9.995e4, 3, "1.00 × 10⁵"),        # a tie rounds up, and carries
    (9.995e4, 2, "1.0 × 10⁵"),
    (9.94e4, 2, "9.9 × 10⁴"),
    (1.05e5, 2, "1.1 × 10⁵"),          # a tie rounds up (half-even would give 1.0)
    (1.05e5, 1, "10⁵"),
    (108215.49, 1, "10⁵"),             # the committed LSTM/RNN ratio, as the page shows it
    (108215.49, 2, "1.1 × 10⁵"),       # ... and as the figure shows it
    (2.5e4, 1, "3 × 10⁴"),
    (5e4, 1, "5 × 10⁴"),
    (3.94e-9, 1, "4 × 10⁻⁹"),          # negative exponents
    (9.96e-5, 2, "1.0 × 10⁻⁴"),        # carry with a negative exponent
    (1.0e-3, 1, "10⁻³"),
    (7.0, 1, "7 × 10⁰"),
])
def test_sci_carry_and_rounding(x, digits, expected):
    assert fmt_sci(x, digits) == expected


def test_sci_tex_and_missing():
    assert fmt_sci(1048576.0, tex=True) == "10^{6}"
    assert fmt_sci(3.94e-9, tex=True) == "4 \\times 10^{-9}"
    assert fmt_sci(9.96e4, 2, tex=True) == "1.0 \\times 10^{5}"
    assert fmt_sci(None) == fmt_sci(float("nan")) == fmt_sci(float("inf")) == "nan"
    assert fmt_sci(0.0) == fmt_sci(-2.0) == "nan"          # no power of ten to show


@pytest.mark.parametrize("share, expected", [
    (0.9995, "100%"),      # 99.95 rounds up to 100, in whole percents
    (0.99949, "100%"),
    (0.3, "30%"),
    (0.053, "5.3%"),
    (0.05, "5%"),          # exact: no ".0"
    (0.0996, "10%"),       # 9.96 rounds to 10.0: whole percents from 10 up, not "10.0%"
    (0.0995, "10%"),
    (0.0994, "9.9%"),
    (0.1049, "10%"),       # 10.49 is 10.5 at one decimal, but from 10% up it is whole percents
    (0.123, "12%"),        # between 10% and 100%: whole percents (a cut-off moved up shows 12.3%)
    (0.456, "46%"),
    (0.00049, "0%"),
])
def test_percent(share, expected):
    assert fmt_percent(share) == expected


@pytest.mark.parametrize("x, places, expected", [
    (4.17438, 4, "4.1744"),
    (0.125, 2, "0.13"),        # half up, as on paper (Python's f"{0.125:.2f}" gives 0.12)
    (2.675, 2, "2.68"),        # the float is 2.67499999..., but the reader sees 2.675
    (-1.005, 2, "-1.01"),      # half away from zero
    (1.4999, 0, "1"),
    (9.996, 2, "10.00"),
    (None, 2, "nan"),
    (float("nan"), 2, "nan"),
])
def test_fixed(x, places, expected):
    assert fmt_fixed(x, places) == expected


def test_other_formats():
    assert fmt_ppl(65.0) == "65" and fmt_ppl(12.0951) == "12.10" and fmt_ppl(1234.567) == "1,234.57"
    assert fmt_int(103041) == "103,041" and fmt_int(None) == "–"
    assert fmt_num(2) == "2" and fmt_num(2.0) == "2.0" and fmt_num(0.05) == "0.05"
    assert fmt_short(1.0) == "1" and fmt_short(0.5) == "0.5"
    assert fmt_ratio_times(2.0) == "twice" and fmt_ratio_times(3.45) == "3.5 times"
    assert fmt_ratio_times(2.5) == "2.5 times"


@pytest.mark.parametrize("x, expected", [
    (12.0, "12"), (0.5, "0.5"), (123.456, "123"), (999.4, "999"),
    (999.6, "1.0 × 10³"),      # rounds to 1000: past the plain range, into scientific
    (108215.49, "1.1 × 10⁵"),
    (0.005, "5.0 × 10⁻³"),
    (0.01, "0.01"),            # the plain range starts at 0.01 itself
    (0.0, "nan"), (-3.0, "nan"), (None, "nan"),
])
def test_factor_in_figures(x, expected):
    assert fmt_factor(x) == expected
