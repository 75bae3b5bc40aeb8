"""scripts/claims.py: each claim at the edges of the words the page uses ("below", "at least",
"above 1"), on data made by hand; mutation testing (make mutation) found these edges unchecked."""
from __future__ import annotations

import copy
import json
import math

import pytest

from scripts import claims, paths
from tests.support import M3

FIXTURE = json.loads(M3.fixture.read_text(encoding="utf-8"))


def holds(name: str, data: dict) -> bool:
    return next(c for c in M3.build.claims.CLAIMS if c.name == name).check(data)[0]


def detail(name: str, data: dict) -> str:
    return next(c for c in M3.build.claims.CLAIMS if c.name == name).check(data)[1]


def with_models(**nats) -> dict:
    """The fixture with the given test nats, perplexity and bpc made consistent with them."""
    d = copy.deepcopy(FIXTURE)
    for key, value in nats.items():
        d["models"][key].update(test_nats=value, perplexity=math.exp(value), bpc=value / math.log(2))
    return d


@pytest.mark.parametrize("rnn, lstm, expected", [
    (1.70, 1.61, True), (1.83, 1.61, False), (1.70, 1.83, False), (1.90, 1.61, False), (1.70, 1.90, False),
])
def test_both_neural_models_beat_the_best_ngram_strictly(rnn, lstm, expected):
    assert holds("neural_models_beat_best_ngram", with_models(best_ngram=1.83, rnn=rnn, lstm=lstm)) is expected


def test_lstm_perplexity_gap_to_the_trigram_is_at_least_1():
    d = copy.deepcopy(FIXTURE)
    d["models"]["trigram"]["perplexity"] = 8.0
    for lstm, expected in ((7.0, True), (7.5, False), (5.0, True)):      # gap 1.0 is "at least 1.0"
        d["models"]["lstm"]["perplexity"] = lstm
        assert holds("lstm_ppl_at_least_1_below_trigram", d) is expected, lstm
    assert "gap 3.000" in detail("lstm_ppl_at_least_1_below_trigram", d)


def test_lstm_beats_rnn_strictly():
    d = copy.deepcopy(FIXTURE)
    d["models"]["rnn"]["perplexity"] = d["models"]["lstm"]["perplexity"] = 5.0
    assert not holds("lstm_beats_rnn", d)


def test_units_must_agree_to_a_millionth():
    d = with_models(rnn=1.7)
    assert holds("units_consistent", d)
    assert detail("units_consistent", d) == "perplexity = exp(nats) and bpc = nats / ln 2 on every row"
    d["models"]["rnn"]["perplexity"] *= 1 + 1e-7                # within a millionth: still the same number
    assert holds("units_consistent", d)
    d["models"]["rnn"]["perplexity"] *= 1 + 3e-6
    d["models"]["lstm"]["bpc"] *= 1 - 3e-6
    assert not holds("units_consistent", d)
    assert detail("units_consistent", d).startswith(f"rnn: perplexity {d['models']['rnn']['perplexity']} != exp(1.7); "
                                                    f"lstm: bpc {d['models']['lstm']['bpc']} != ")


def test_lab1_rows_named_when_they_hold():
    assert detail("ngram_rows_match_lab1", FIXTURE) == \
        "as Lab 1 recorded: uniform 4.1744, bigram 2.4922, trigram 2.0859, best_ngram 1.8326"
    d = with_models(bigram=2.4925, trigram=2.0861)
    assert detail("ngram_rows_match_lab1", d) == "differs from Lab 1: bigram 2.4925 != 2.4922; trigram 2.0861 != 2.0859"


def test_spectral_norm_must_be_above_1():
    d = copy.deepcopy(FIXTURE)
    for norm, expected in ((1.0, False), (1.5, True)):
        d["gradient_by_distance"]["rnn_spectral_norm_W"] = norm
        assert holds("rnn_spectral_norm_above_1", d) is expected, norm


@pytest.mark.parametrize("norms, expected", [
    ([2.0, 1.0, 2e-6], True),          # falls to a millionth of its value at distance 0
    ([2.0, 1.0, 3e-6], False),         # 1.5e-6 of it: not six orders of magnitude
    ([2.0, 3e-6, 1e-6], True),         # the smallest anywhere in the chunk counts
    ([0.5, 1e-7, 0.4], True),          # g0 below 1 is still a gradient
    ([0.0, 0.0, 0.0], False),          # no gradient at all is not a vanishing one
    ([2.0, 1.5, 1.0], False),          # halved is not vanished
])
def test_rnn_gradient_vanishes_by_six_orders_of_magnitude(norms, expected):
    d = copy.deepcopy(FIXTURE)
    g = d["gradient_by_distance"]
    g["distance"], g["rnn_grad_norm"] = [0, 1, 2], norms
    assert holds("rnn_gradient_vanishes", d) is expected


def test_report_marks_each_claim():
    text = claims.report([{"name": "a", "holds": True, "detail": "x"}, {"name": "b", "holds": False, "detail": "y"}])
    assert text == "  [ok] a: x\n  [FAIL] b: y"


def gradient(norms, **extra) -> dict:
    d = copy.deepcopy(FIXTURE)
    g = d["gradient_by_distance"]
    g.update(distance=list(range(len(norms))), rnn_grad_norm=norms, **extra)
    return d


def test_constant_factor_per_character_is_a_straight_line_on_a_log_axis():
    exact = [0.5 ** i for i in range(10)]                    # factor 0.5 exactly: R^2 = 1

    def line(norms, **extra):                                # no recorded factor unless given
        return gradient(norms, **{"rnn_factor_per_character": None, **extra})

    assert holds("rnn_gradient_falls_by_a_constant_factor_per_character", line(exact))
    assert "R^2 1.0000" in detail("rnn_gradient_falls_by_a_constant_factor_per_character", line(exact))
    assert "a factor of 0.500 per character" in detail("rnn_gradient_falls_by_a_constant_factor_per_character",
                                                       line(exact))
    assert holds("rnn_gradient_falls_by_a_constant_factor_per_character",
                 line(exact, rnn_factor_per_character=0.5))
    recorded_wrong = line(exact, rnn_factor_per_character=0.6)
    assert not holds("rnn_gradient_falls_by_a_constant_factor_per_character", recorded_wrong)
    assert "recorded factor 0.6 disagrees" in detail("rnn_gradient_falls_by_a_constant_factor_per_character",
                                                     recorded_wrong)
    # falls 1e-8 at once, then flat: log10 is 0, -8, -8, ..., far from a line (R^2 = 36^2 / (82.5 * 57.6) = 0.27)
    step = [1.0] + [1e-8] * 9
    assert not holds("rnn_gradient_falls_by_a_constant_factor_per_character", line(step))
    assert holds("rnn_gradient_falls_by_a_constant_factor_per_character", line([0.0] + exact[1:]))  # 0 skipped
    assert "R^2 0.2727" in detail("rnn_gradient_falls_by_a_constant_factor_per_character", line(step))
    flat = [0.3] * 5                                           # no spread at all: a line, R^2 taken as 1
    assert holds("rnn_gradient_falls_by_a_constant_factor_per_character", line(flat))
    assert "R^2 1.0000" in detail("rnn_gradient_falls_by_a_constant_factor_per_character", line(flat))
    zigzag = [1.0, 0.9, 1.0, 0.9, 1.0]                         # a small spread (syy < 1) and no line at all
    assert not holds("rnn_gradient_falls_by_a_constant_factor_per_character", line(zigzag))


def test_float32_facts_each_at_their_edge():
    ok = dict(rnn_first_all_zero_distance=None, rnn_naive_norm_zero_distance=2)
    assert holds("rnn_gradient_never_exactly_zero_within_the_chunk", gradient([1.0, 1e-30, 1e-40], **ok))
    assert not holds("rnn_gradient_never_exactly_zero_within_the_chunk", gradient([1.0, 1e-30, 0.0], **ok))
    # d_h = 256: a float32 norm reads 0 when every entry is below 2^-75, so the norm is at most 16 * 2^-75
    limit = 16 * 2.0 ** -75
    assert holds("naive_float32_norm_reads_zero", gradient([1.0, 1e-10, limit], **ok))
    assert not holds("naive_float32_norm_reads_zero", gradient([1.0, 1e-10, limit * 1.01], **ok))
    assert not holds("naive_float32_norm_reads_zero", gradient([1.0, 1e-10, 0.0], **ok))
    assert not holds("naive_float32_norm_reads_zero",
                     gradient([1.0, 1e-10, 1e-40], rnn_first_all_zero_distance=None, rnn_naive_norm_zero_distance=None))
    assert holds("naive_float32_norm_reads_zero",
                 gradient([1.0, 1e-10, 1e-40], rnn_first_all_zero_distance=2, rnn_naive_norm_zero_distance=2))
    assert not holds("naive_float32_norm_reads_zero",
                     gradient([1.0, 1e-40, 1e-40], rnn_first_all_zero_distance=1, rnn_naive_norm_zero_distance=2))


def test_forget_gate_claims_at_their_edges():
    d = copy.deepcopy(FIXTURE)
    g = d["gradient_by_distance"]
    g["lstm_grad_norm"] = [1.0] * 51
    g["forget_gate"]["mean"] = 0.9
    g["lstm_grad_norm"][50] = 100 * 0.9 ** 50               # a fall exactly 100 times smaller than 0.9^50 predicts
    assert holds("mean_forget_gate_cannot_explain_lstm_curve", d)
    g["lstm_grad_norm"][50] = 99 * 0.9 ** 50
    assert not holds("mean_forget_gate_cannot_explain_lstm_curve", d)
    g["lstm_grad_norm"][0] = 2.0                              # the fall is measured from distance 0
    g["lstm_grad_norm"][1] = 1e-9
    g["lstm_grad_norm"][50] = 2 * 100 * 0.9 ** 50
    assert holds("mean_forget_gate_cannot_explain_lstm_curve", d)
    g["forget_gate"]["share_above_0.99"] = 0.10              # "at least 10%"
    assert holds("many_forget_gates_near_1", d)


@pytest.mark.parametrize("edges, counts", [
    ([0.1, 0.9, 0.99, 1.0], [1, 1, 1]),                      # does not start at 0
    ([0.0, 0.9, 0.99, 0.999], [1, 1, 1]),                    # does not end at 1
    ([0.0, 0.9, 0.9, 0.99, 1.0], [1, 0, 1, 1]),              # an empty-width bin
    ([0.0, 0.9, 0.99, 1.0], [1, 1]),                         # a count missing
])
def test_histogram_must_span_0_to_1_with_one_count_per_bin(edges, counts):
    d = copy.deepcopy(FIXTURE)
    d["gradient_by_distance"]["forget_gate"]["histogram"] = {"edges": edges, "counts": counts}
    assert not holds("forget_gate_histogram_consistent", d)
    assert detail("forget_gate_histogram_consistent", d) == "edges must rise from 0 to 1 with one count per bin"


def test_lstm_ratio_at_50_needs_the_distance_a_gradient_and_the_recorded_ratio():
    d = copy.deepcopy(FIXTURE)
    g = d["gradient_by_distance"]
    g["distance"] = list(range(60))
    g["rnn_grad_norm"], g["lstm_grad_norm"] = [1e-6] * 60, [1e-3] * 60          # 1000 times at 50
    g["lstm_rnn_ratio_at_50"] = 1000.0
    name = "lstm_gradient_orders_above_rnn_at_50"
    assert holds(name, d)
    for recorded in (1010.0, None):                                              # 1% off, or missing
        assert not holds(name, {**d, "gradient_by_distance": {**g, "lstm_rnn_ratio_at_50": recorded}})
    assert holds(name, {**d, "gradient_by_distance": {**g, "lstm_rnn_ratio_at_50": 1000.5}})   # within 0.1%
    short = {**g, "distance": list(range(50)), "rnn_grad_norm": g["rnn_grad_norm"][:50],
             "lstm_grad_norm": g["lstm_grad_norm"][:50]}
    assert not holds(name, {**d, "gradient_by_distance": short})
    assert detail(name, {**d, "gradient_by_distance": short}) == "distance 50 was not measured"
    rnn_zero = {**g, "rnn_grad_norm": [0.0] * 60}                                # the ratio is unbounded
    assert holds(name, {**d, "gradient_by_distance": rnn_zero})
    half = {**rnn_zero, "lstm_grad_norm": [0.5] * 60}                            # any LSTM gradient above 0
    assert holds(name, {**d, "gradient_by_distance": half})
    assert not holds(name, {**d, "gradient_by_distance": {**rnn_zero, "lstm_grad_norm": [0.0] * 60}})
