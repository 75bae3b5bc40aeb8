"""The one place where a number becomes the text a reader sees: on the pages (through
scripts/pages/site_data.py), in the measured figures (each module's code/plots.py) and in the deck.

Every formatter rounds the same way: half away from zero on the number as Python prints it
(`repr`, the shortest decimal that reads back as the same float), so 0.125 shows as 0.13 and
9.995e4 at three significant figures as 1.00 × 10⁵, as a reader doing it by hand would expect;
a carry moves into the next power of ten (9.96e4 -> 1.0 × 10⁵, never 10 × 10⁴) or the next
percentage format (0.0996 -> 10%, never 10.0%).  A missing or non-finite number (None in the
data) is shown as "nan".
"""
from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
MISSING = "nan"


def _finite(x) -> bool:
    return x is not None and math.isfinite(x)


def _decimal(x: float) -> Decimal:
    """x exactly as Python prints it: the decimal a reader would call x."""
    return Decimal(repr(float(x)))


def _round(x: float | Decimal, places: int) -> Decimal:
    """x rounded half away from zero to `places` decimals."""
    d = x if isinstance(x, Decimal) else _decimal(x)
    return d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def _significant(x: float, digits: int) -> tuple[Decimal, int]:
    """(mantissa, exponent) with x ≈ mantissa × 10^exponent and 1 <= |mantissa| < 10 after rounding
    to `digits` significant figures."""
    d = _decimal(x)
    exp = d.adjusted()
    mant = _round(d.scaleb(-exp), digits - 1)
    if abs(mant) >= 10:                       # the carry: 9.96 -> 10.0 is 1.0 one power up
        exp += 1
        mant = _round(d.scaleb(-exp), digits - 1)
    return mant, exp


def fmt_fixed(x: float | None, places: int) -> str:
    """Fixed decimals, e.g. 4.1744 (nats), 12.09 (perplexity)."""
    if not _finite(x):
        return MISSING
    return f"{_round(x, places):f}"


def fmt_ppl(x: float) -> str:
    """Perplexity with 2 decimals, or a whole number when it is one (uniform: 65); thousands separated."""
    if abs(x - round(x)) < 1e-6:
        return f"{round(x):,}"
    return f"{_round(x, 2):,f}"


def fmt_int(n: int | None) -> str:
    """Thousands separated: 103,041.  None -> en dash."""
    return "–" if n is None else f"{n:,}"


def fmt_num(x: float) -> str:
    """A setting such as a learning rate or k: as short as it is exact; a whole float keeps one
    decimal (2.0) so that it still reads as a real number, an int stays an int (2)."""
    if isinstance(x, int):
        return str(x)
    return f"{x:g}" if x != int(x) else f"{x:.1f}"


def fmt_short(x: float) -> str:
    """As short as it is exact, for settings and inputs (kappa, a learning rate, a temperature):
    1 rather than 1.0, 0.5 as 0.5."""
    return f"{x:g}"


def fmt_percent(share: float) -> str:
    """A share in [0, 1] as a percentage: whole percents from 10% up or when exact, else one decimal.
    0.3 -> 30%, 0.053 -> 5.3%, 0.05 -> 5%, 0.0996 -> 10%, 0.9995 -> 100%."""
    pct = _decimal(share).scaleb(2)
    one_decimal = _round(pct, 1)
    if abs(one_decimal) >= 10 or one_decimal == one_decimal.to_integral_value():
        return f"{_round(pct, 0):f}%"
    return f"{one_decimal:f}%"


def fmt_sci(x: float | None, digits: int = 1, tex: bool = False) -> str:
    """`digits` significant figures times a power of ten: 5 × 10⁴, 1.1 × 10⁵ (digits=2), or TeX
    5 \\times 10^{4}.  A mantissa of exactly 1 is left out at one figure (10⁵, not 1 × 10⁵)."""
    if not _finite(x) or x <= 0:
        return MISSING
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
    beyond that two in scientific notation (1.1 × 10⁵)."""
    if not _finite(x) or x <= 0:
        return MISSING
    if 0.01 <= x and _significant(x, 3)[1] < 3:
        mant, exp = _significant(x, 3)
        return f"{mant.scaleb(exp).normalize():f}"
    return fmt_sci(x, digits=2)


def fmt_ratio_times(x: float) -> str:
    """A ratio of budgets: 2.0 -> 'twice', 3.4 -> '3.4 times'."""
    if abs(x - 2) < 1e-9:
        return "twice"
    return f"{fmt_fixed(x, 1)} times"
