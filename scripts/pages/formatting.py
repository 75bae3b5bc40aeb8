"""The one place where a number becomes the text a reader sees: on the pages (through
scripts/pages/site_data.py), in the measured figures (each module's code/plots.py) and in the deck.

Every formatter rounds the same way: half away from zero on the number as Python prints it
(`repr`, the shortest decimal that reads back as the same float), so 0.125 shows as 0.13 and
9.995e4 at three significant figures as 1.00 × 10⁵, as a reader doing it by hand would expect;
a carry moves into the next power of ten (9.96e4 -> 1.0 × 10⁵, never 10 × 10⁴) or the next
percentage format (0.0996 -> 10%, never 10.0%).

Every formatter is total over the doubles, and _extensions/course/formatting.js gives the same text for
each (tests/test_formatting_properties.py and tests/js/formatting-properties.test.mjs try every kind):
a zero of either sign is 0 in the formatter's style (0, 0.00, 0%), a negative number keeps its sign,
infinities are ∞ and -∞ and a NaN or a missing number (None: the lab writes a non-finite value as
null) is "not a number", in every formatter alone (no unit, no "times").  From 1e16 up, where a
double has no fraction left and its digits past the 17th are the binary's, not the reader's,
fixed, perplexity and count formats switch to three significant figures (1.00 × 10¹⁶).
"""
from __future__ import annotations

import math
from decimal import MAX_EMAX, MIN_EMIN, ROUND_HALF_UP, Context, Decimal

SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
NOT_A_NUMBER = "not a number"
MISSING = NOT_A_NUMBER          # None in the data: what the lab writes for a value that was not finite
INFINITY, MINUS_INFINITY = "∞", "-∞"
# from here up a fixed, perplexity or count format shows three significant figures
SCIENTIFIC_FROM = 1e16
# exact arithmetic on every double's decimal: 1e308 at two decimals is 311 digits (the default is 28)
EXACT = Context(prec=1000, rounding=ROUND_HALF_UP, Emax=MAX_EMAX, Emin=MIN_EMIN)


def _not_finite(x) -> str | None:
    """The text of a missing or non-finite x, or None when x is a finite number."""
    if x is None or math.isnan(x):
        return NOT_A_NUMBER
    if math.isinf(x):
        return INFINITY if x > 0 else MINUS_INFINITY
    return None


def _decimal(x: float) -> Decimal:
    """x exactly as Python prints it: the decimal a reader would call x.  A zero has no sign."""
    return Decimal(0) if x == 0 else Decimal(repr(float(x)))


def _round(x: float | Decimal, places: int) -> Decimal:
    """x rounded half away from zero to `places` decimals."""
    d = x if isinstance(x, Decimal) else _decimal(x)
    return d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP, context=EXACT)


def _significant(x: float, digits: int) -> tuple[Decimal, int]:
    """(mantissa, exponent) with x ≈ mantissa × 10^exponent and 1 <= |mantissa| < 10 after rounding
    to `digits` significant figures."""
    d = _decimal(x)
    exp = d.adjusted()
    mant = _round(d.scaleb(-exp, context=EXACT), digits - 1)
    if abs(mant) >= 10:                       # the carry: 9.96 -> 10.0 is 1.0 one power up
        exp += 1
        mant = _round(d.scaleb(-exp, context=EXACT), digits - 1)
    return mant, exp


def fmt_fixed(x: float | None, places: int) -> str:
    """Fixed decimals, e.g. 4.1744 (nats), 12.09 (perplexity)."""
    if (text := _not_finite(x)) is not None:
        return text
    if abs(x) >= SCIENTIFIC_FROM:
        return fmt_sci(x, 3)
    return f"{_round(x, places):f}"


def fmt_ppl(x: float | None) -> str:
    """Perplexity with 2 decimals, or a whole number when it is one (uniform: 65); thousands separated."""
    if (text := _not_finite(x)) is not None:
        return text
    if abs(x) >= SCIENTIFIC_FROM:
        return fmt_sci(x, 3)
    if abs(x - round(x)) < 1e-6:
        return f"{round(x):,}"
    return f"{_round(x, 2):,f}"


def fmt_int(n: int | float | None) -> str:
    """Thousands separated: 103,041.  None -> en dash (a count that was not taken).  A float is rounded
    half away from zero to a whole number (a count read from JSON, where 3 and 3.0 are one number)."""
    if n is None:
        return "–"
    if isinstance(n, int):
        return f"{n:,}"
    if (text := _not_finite(n)) is not None:
        return text
    if abs(n) >= SCIENTIFIC_FROM:
        return fmt_sci(n, 3)
    return f"{int(_round(n, 0)):,}"


def fmt_num(x: float) -> str:
    """A setting such as a learning rate or k: as short as it is exact; a whole float keeps one
    decimal (2.0) so that it still reads as a real number, an int stays an int (2)."""
    if isinstance(x, int):
        return str(x)
    if (text := _not_finite(x)) is not None:
        return text
    return f"{x:g}" if x != int(x) else f"{x:.1f}"


def fmt_short(x: float | None) -> str:
    """As short as it is exact, for settings and inputs (kappa, a learning rate, a temperature):
    1 rather than 1.0, 0.5 as 0.5 (Python's format(x, "g"): six significant figures)."""
    if (text := _not_finite(x)) is not None:
        return text
    return "0" if x == 0 else f"{x:g}"


def fmt_percent(share: float) -> str:
    """A share in [0, 1] as a percentage: whole percents from 10% up or when exact, else one decimal.
    0.3 -> 30%, 0.053 -> 5.3%, 0.05 -> 5%, 0.0996 -> 10%, 0.9995 -> 100%."""
    if (text := _not_finite(share)) is not None:
        return text
    pct = _decimal(share).scaleb(2, context=EXACT)
    one_decimal = _round(pct, 1)
    if abs(one_decimal) >= 10 or one_decimal == one_decimal.to_integral_value():
        return f"{_round(pct, 0):f}%"
    return f"{one_decimal:f}%"


def fmt_sci(x: float | None, digits: int = 1, tex: bool = False) -> str:
    """`digits` significant figures times a power of ten: 5 × 10⁴, 1.1 × 10⁵ (digits=2), or TeX
    5 \\times 10^{4}.  A mantissa of exactly 1 is left out at one figure (10⁵, not 1 × 10⁵).  Zero
    has no power of ten: 0; a negative number is its magnitude's text after a minus sign."""
    if (text := _not_finite(x)) is not None:
        return text
    if x == 0:
        return "0"
    if x < 0:
        return "-" + fmt_sci(-x, digits, tex)
    mant, exp = _significant(x, digits)
    m = f"{mant:f}"
    if tex:
        power = f"10^{{{exp}}}"
        return power if m == "1" else f"{m} \\times {power}"
    power = "10" + str(exp).translate(SUPERSCRIPT)
    return power if m == "1" else f"{m} × {power}"


def sci_value(x: float, digits: int) -> float:
    """The number fmt_sci(x, digits) shows (5.389e-05 at two figures: 5.4e-05), for arithmetic a page shows
    on shown numbers."""
    mant, exp = _significant(x, digits)
    return float(mant.scaleb(exp))


def fmt_factor(x: float | None) -> str:
    """A ratio in a figure label: three significant figures in plain digits from 0.01 to 999,
    beyond that two in scientific notation (1.1 × 10⁵).  Zero is 0; a negative number keeps its sign."""
    if (text := _not_finite(x)) is not None:
        return text
    if x == 0:
        return "0"
    if x < 0:
        return "-" + fmt_factor(-x)
    if 0.01 <= x and _significant(x, 3)[1] < 3:
        mant, exp = _significant(x, 3)
        return f"{mant.scaleb(exp).normalize():f}"
    return fmt_sci(x, digits=2)


def fmt_ratio_times(x: float) -> str:
    """A ratio of budgets: 2.0 -> 'twice', 3.4 -> '3.4 times'."""
    if (text := _not_finite(x)) is not None:
        return text
    if abs(x - 2) < 1e-9:
        return "twice"
    return f"{fmt_fixed(x, 1)} times"
