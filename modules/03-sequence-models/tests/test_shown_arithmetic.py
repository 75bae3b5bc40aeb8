"""Issue 43, point 5: every number the page data derives from numbers the page shows is computed from them as shown
(the LSTM's lead over the RNN, 5.35 − 4.97, reads 0.38, whatever the unrounded perplexities give), on any run.

page_data.SHOWN_ARITHMETIC names each such number, its operation and its operands; this recomputes each from the
shown text of its operands, exactly, on the committed run, the fixture and generated runs.  And every numeric value
the page data derives (a formatter given anything but a number as the results have it) is accounted for: one of
SHOWN_ARITHMETIC, or one of COMPUTED_FROM_DATA (derived from numbers the page does not show, so there is no shown
arithmetic to redo); a new derived number that is neither fails."""
import copy
import json
import math
import re
from decimal import Decimal, getcontext

import pytest
from hypothesis import Phase, given, settings, strategies as st

from scripts.pages import formatting as F
from tests.support import committed_results, fixture, this_module

M3 = this_module(__file__)
PD = M3.code.page_data
getcontext().prec = 60

SUPERSCRIPT = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")
NUMBER = re.compile(r"^(?:[0-9][0-9,]*(?:\.[0-9]+)?%?|(?:[0-9](?:\.[0-9]+)? × )?10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)$")
# numbers of the page data derived from numbers the page does not show (ratios of means over the chunks, the
# chunks' quantiles, a model's fall over 50 characters): recomputed by claims.py's tests, not by a reader
# (and the sampling box's counts of characters, from the samples' texts; Lab 1's word trigram, a constant of the lab)
COMPUTED_FROM_DATA = re.compile(r"^gradient\.(ratio_at_50_\w+|lstm_fall_50(_\w+)?|direct_of_measured_\d+|"
                                r"direct_chunk_\d+_\w+|ratio_at_50)$|^compare\.(steps_ratio|word_trigram_ppl)$|"
                                r"^sampling\.(greedy_shared_run|sample_length)$|"
                                # the worked example's factors as its table shows them (two decimals at most)
                                r"^worked\.(near|saturated)_factor$")


WORKED = json.loads(M3.worked_examples.read_text(encoding="utf-8"))    # the committed worked examples


def shown_value(text: str) -> Decimal:
    """The number a shown text stands for: '5.35', '103,041', '12%', '9.7 × 10⁻⁸', '10⁶'."""
    m = re.fullmatch(r"(?:([0-9.]+) × )?10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)", text)
    if m:
        return Decimal(m.group(1) or 1) * Decimal(10) ** int(m.group(2).translate(SUPERSCRIPT))
    if text.endswith("%"):
        return Decimal(text[:-1].replace(",", "")) / 100
    return Decimal(text.replace(",", ""))


def leaves(tree: dict, prefix=""):
    for key, value in tree.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            yield from leaves(value, path + ".")
        else:
            yield path, value


def at(values: dict, path: str) -> str:
    for part in path.split("."):
        values = values[part]
    return values


def redo(op: str, places, a: Decimal, b) -> str:
    """The arithmetic as a reader does it on the shown operands, exactly, shown as the page shows the result."""
    if op == "difference":
        return F.fmt_fixed(a - b, places)
    if op == "ratio":
        return F.fmt_fixed(a / b, places)
    if op == "power_sci":
        return F.fmt_sci(float(a ** b), places)
    if op == "power_fixed":
        return F.fmt_fixed(a ** b, places)
    if op == "ratio_percent":
        return F.fmt_percent(float(a / b))
    if op == "orders_apart":
        return str(math.floor(math.log10(a / b)))
    raise ValueError(f"SHOWN_ARITHMETIC names an operation this test does not know: {op}")


def check_shown_arithmetic(data: dict) -> None:
    v = PD.variables(data, WORKED)
    for path, (op, places, first, second) in PD.SHOWN_ARITHMETIC.items():
        a = shown_value(at(v, first)) if isinstance(first, str) else Decimal(first)
        b = shown_value(at(v, second)) if isinstance(second, str) else Decimal(second)
        assert at(v, path) == redo(op, places, a, b), (path, at(v, first), second if not isinstance(second, str) else at(v, second))


class Derived(str):
    """A text a formatter made from a number that is not a measured one as the results have it."""


class Measured(float):
    """A number as the results file has it; arithmetic on it gives a plain float (a derived number)."""


class MeasuredInt(int):
    """A count as the results file has it."""


def measured(x):
    """The results with every number marked as measured."""
    if isinstance(x, dict):
        return {k: measured(v) for k, v in x.items()}
    if isinstance(x, list):
        return [measured(v) for v in x]
    if isinstance(x, bool) or x is None or isinstance(x, str):
        return x
    return MeasuredInt(x) if isinstance(x, int) else Measured(x)


def derived_texts(data: dict, monkeypatch) -> dict:
    """The page data, whose texts a formatter made from a number that is not a measured one as the results have it
    (a difference, a ratio, a power, a quantile) are Derived."""
    for name in dir(PD):
        original = getattr(PD, name)
        if name.startswith("fmt_") and getattr(original, "__module__", "") == F.__name__:
            def wrapper(x, *args, _f=original, **kwargs):
                text = _f(x, *args, **kwargs)
                return text if isinstance(x, (Measured, MeasuredInt)) else Derived(text)
            monkeypatch.setattr(PD, name, wrapper)
    return PD.variables(measured(data), measured(WORKED))


def run(name: str) -> dict:
    """The made-up fixture, or the committed (measured) results."""
    return fixture(M3) if name == "fixture" else committed_results(M3)


@pytest.mark.parametrize("name", ["fixture", "committed"])
def test_the_page_datas_arithmetic_redone_from_the_shown_numbers(name):
    check_shown_arithmetic(run(name))


@settings(max_examples=40, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(lstm=st.floats(1.0, 3.0), rnn=st.floats(1.0, 3.0), best=st.floats(1.0, 3.0),
       rnn_params=st.integers(50_000, 200_000), lstm_params=st.integers(200_000, 800_000), gate=st.floats(0.5, 0.999))
def test_shown_arithmetic_on_generated_runs(lstm, rnn, best, rnn_params, lstm_params, gate):
    """Runs whose rounding falls anywhere, generated: the shown differences, ratios and powers still redo exactly."""
    d = copy.deepcopy(fixture(M3))
    for key, nats in (("lstm", lstm), ("rnn", rnn), ("best_ngram", best)):
        d["models"][key].update(test_nats=nats, perplexity=math.exp(nats), bpc=nats / math.log(2))
    d["models"]["rnn"]["parameters"], d["models"]["lstm"]["parameters"] = rnn_params, lstm_params
    d["gradient_by_distance"]["forget_gate"]["mean"] = gate
    check_shown_arithmetic(d)


def test_the_lstms_lead_over_the_rnn_is_the_difference_of_the_shown_perplexities():
    """The reading's case: perplexities 5.3468 and 4.9737 show as 5.35 and 4.97, whose difference is 0.38 (the
    unrounded difference, 0.3731, would show 0.37)."""
    d = copy.deepcopy(fixture(M3))
    for key, ppl in (("rnn", 5.3468), ("lstm", 4.9737)):
        d["models"][key].update(test_nats=math.log(ppl), perplexity=ppl, bpc=math.log(ppl) / math.log(2))
    v = PD.variables(d, None)
    assert (v["models"]["rnn"]["ppl"], v["models"]["lstm"]["ppl"], v["compare"]["lstm_rnn_ppl_gap"]) == ("5.35", "4.97", "0.38")


@pytest.mark.parametrize("name", ["fixture", "committed"])
def test_every_number_the_page_data_derives_is_shown_arithmetic_or_declared(name, monkeypatch):
    v = derived_texts(run(name), monkeypatch)
    unaccounted = [(path, value) for path, value in leaves(v) if isinstance(value, Derived) and NUMBER.match(value)
                   and path not in PD.SHOWN_ARITHMETIC and not COMPUTED_FROM_DATA.match(path)]
    assert not unaccounted, ("numbers the page data derives that are neither in page_data.SHOWN_ARITHMETIC nor "
                             f"declared computed from data the page does not show: {unaccounted}")


def test_a_derived_number_nobody_declared_is_found(monkeypatch):
    """A planted derived number (a raw difference of two perplexities) is named."""
    original = PD.comparison_variables
    monkeypatch.setattr(PD, "comparison_variables", lambda m, models: {
        **original(m, models), "raw_gap": PD.fmt_fixed(m["rnn"]["perplexity"] - m["lstm"]["perplexity"], 2)})
    with pytest.raises(AssertionError, match=r"compare\.raw_gap"):
        test_every_number_the_page_data_derives_is_shown_arithmetic_or_declared("fixture", monkeypatch)
