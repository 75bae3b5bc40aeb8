"""scripts/measure/claims.py: each claim at the edges of the words the page uses ("below", "at least",
"above 1"), on data made by hand; mutation testing (make mutation) found these edges unchecked."""
from __future__ import annotations

import copy
import json
import math

import pytest

from scripts.measure import claims, lab_source

from scripts import paths
from tests.support import fake_lab_results, fixture, this_module

M3 = this_module(__file__)    # the module these tests belong to (their folder's)

FIXTURE = fixture(M3)


def holds(name: str, data: dict) -> bool:
    return next(c for c in M3.code.claims.CLAIMS if c.name == name).check(data)[0]


def detail(name: str, data: dict) -> str:
    return next(c for c in M3.code.claims.CLAIMS if c.name == name).check(data)[1]


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
    assert "is 3.00 below the trigram" in detail("lstm_ppl_at_least_1_below_trigram", d)


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


def chunks_as_the_curve(g):
    """Every chunk's LSTM gradient set to the curve's value at its distance (the median chunk is the mean)."""
    bc = g["by_chunk"]
    bc["lstm_grad_norm"] = [[g["lstm_grad_norm"][k]] * g["chunks"] if k < len(g["lstm_grad_norm"]) else row
                            for k, row in zip(bc["distance"], bc["lstm_grad_norm"])]


def test_forget_gate_claims_at_their_edges():
    d = copy.deepcopy(FIXTURE)
    g = d["gradient_by_distance"]
    g["lstm_grad_norm"] = [1.0] * 51
    g["forget_gate"]["mean"] = 0.9
    g["lstm_grad_norm"][50] = 100 * 0.9 ** 50               # a fall exactly 100 times smaller than 0.9^50 predicts
    chunks_as_the_curve(g)
    assert holds("mean_forget_gate_cannot_explain_lstm_curve", d)
    g["lstm_grad_norm"][50] = 99 * 0.9 ** 50
    chunks_as_the_curve(g)
    assert not holds("mean_forget_gate_cannot_explain_lstm_curve", d)
    g["lstm_grad_norm"][0] = 2.0                              # the fall is measured from distance 0
    g["lstm_grad_norm"][1] = 1e-9
    g["lstm_grad_norm"][50] = 2 * 100 * 0.9 ** 50
    chunks_as_the_curve(g)
    assert holds("mean_forget_gate_cannot_explain_lstm_curve", d)
    g["by_chunk"]["lstm_grad_norm"][g["by_chunk"]["distance"].index(50)] = [99 * 0.9 ** 50 * 2] * g["chunks"]
    assert not holds("mean_forget_gate_cannot_explain_lstm_curve", d)   # the median chunk too: 99 times
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


# --- Equation 11 measured: the direct-path products over 50 steps (issue 17) ----------------------------

DIRECT_PATH = {"distance": 50, "median": 0.00031, "mean": 0.214, "max": 0.982, "share_above_0.01": 0.362,
               "share_above_0.1": 0.309, "share_above_0.5": 0.241, "cell_share_at_0": 0.352, "kept_share_at_0": 1.0,
               "carried_fall": 0.0041}


def direct_path(**changes) -> dict:
    """The fixture with the LSTM's fall over 50 characters set to 0.01 and this direct-path record, changed."""
    d = copy.deepcopy(FIXTURE)
    g = d["gradient_by_distance"]
    g["lstm_grad_norm"][0], g["lstm_grad_norm"][50] = 0.5, 0.005
    g["direct_path"] = {**DIRECT_PATH, **changes}
    return d


def test_direct_path_comparison_bands_at_a_factor_of_3():
    g = direct_path()["gradient_by_distance"]
    assert M3.code.claims.lstm_fall(g) == pytest.approx(0.01)
    for carried, verdict in ((0.03, "same"), (0.0301, "more"), (0.01 / 3, "same"), (0.0033, "less"),
                             (0.01, "same"), (1e-6, "less")):
        g["direct_path"]["carried_fall"] = carried
        assert M3.code.claims.direct_path_comparison(g)[0] == verdict, carried
    g["direct_path"]["carried_fall"] = 0.002
    assert M3.code.claims.direct_path_comparison(g) == ("less", pytest.approx(0.2))
    g["lstm_grad_norm"][0] = 0.1                              # the fall is measured from distance 0: 0.05
    assert M3.code.claims.direct_path_comparison(g) == ("less", pytest.approx(0.04))


def test_direct_path_comparison_needs_two_positive_numbers():
    name = "direct_path_compared_with_measured_fall"
    assert holds(name, direct_path(carried_fall=0.004))
    assert detail(name, direct_path(carried_fall=0.004)).endswith("(ratio 0.4): the box says 'same'")
    assert not holds(name, direct_path(carried_fall=0.0))
    d = direct_path()
    d["gradient_by_distance"]["lstm_grad_norm"][50] = 0.0
    assert not holds(name, d)
    d["gradient_by_distance"]["distance"] = list(range(50)) + [99] * (len(d["gradient_by_distance"]["distance"]) - 50)
    # distance 50 not measured: the claim cannot be evaluated, and fails naming why
    assert claims.evaluate(M3, d)[[c.name for c in M3.code.claims.CLAIMS].index(name)]["detail"].startswith("could not be evaluated")


def test_some_direct_paths_keep_a_tenth_at_its_edges():
    name = "some_direct_paths_keep_a_tenth"
    assert holds(name, direct_path(**{"share_above_0.1": 0.01}))          # "at least 1%"
    assert not holds(name, direct_path(**{"share_above_0.1": 0.0099}))
    d = direct_path(**{"share_above_0.1": 0.3})
    d["gradient_by_distance"]["forget_gate"]["mean"] = 1e-3 ** (1 / 50)    # mean^50 = 0.001: 0.1 is 100 times that
    assert holds(name, d)
    d["gradient_by_distance"]["forget_gate"]["mean"] = 1.01e-3 ** (1 / 50)
    assert not holds(name, d)
    d = direct_path(**{"share_above_0.1": 0.3}, distance=10)                # the power is the products' distance
    d["gradient_by_distance"]["forget_gate"]["mean"] = 0.5                  # 0.5^10 = 0.00098; 0.5^50 would pass anyway
    assert holds(name, d)
    d["gradient_by_distance"]["forget_gate"]["mean"] = 0.51                 # 0.51^10 = 0.0012
    assert not holds(name, d)


@pytest.mark.parametrize("changes, problem", [
    ({"distance": 49}, "products over 49 steps, the box speaks of 50"),
    ({"share_above_0.5": 0.4}, "must not rise"),
    ({"share_above_0.01": 0.3}, "must not rise"),
    ({"median": 0.2}, "disagrees with the share above 0.1"),                 # median above 0.1, only 31% are
    ({"median": 0.6, "share_above_0.01": 0.7}, "disagrees with the share above 0.5"),
    ({"median": 0.001, "share_above_0.01": 0.6, "share_above_0.1": 0.31}, "disagrees with the share above 0.01"),
    ({"mean": 0.99}, "above the largest"),
    ({"median": 0.0001, "max": 0.00005}, "above the largest"),
    ({"mean": 0.12}, "below half the share above 0.5"),
    ({"carried_fall": 0.352 * 0.982 * 1.001}, "more than the cell state's share"),
    ({"kept_share_at_0": 0.01, "carried_fall": 0.352 * (0.982 * 0.01 + 0.1) * 1.001}, "more than the units above 0.1"),
])
def test_direct_path_record_must_be_consistent(changes, problem):
    name = "direct_path_products_recorded_consistently"
    d = direct_path(**changes)
    assert not holds(name, d)
    assert problem in detail(name, d)


def test_direct_path_record_consistent_at_its_edges():
    name = "direct_path_products_recorded_consistently"
    assert holds(name, direct_path())
    assert holds(name, direct_path(carried_fall=0.352 * 0.982))             # exactly the bound
    assert holds(name, direct_path(kept_share_at_0=0.01, carried_fall=0.352 * (0.982 * 0.01 + 0.1)))   # and this one
    assert holds(name, direct_path(mean=0.1205))                             # exactly half the share above 0.5
    assert holds(name, direct_path(**{"median": 0.5, "share_above_0.5": 0.5, "share_above_0.1": 0.5,
                                      "share_above_0.01": 0.5, "mean": 0.5}))   # the median on a cut, shares 0.5
    assert holds(name, direct_path(**{"median": 0.51, "share_above_0.5": 0.5, "share_above_0.1": 0.9,
                                      "share_above_0.01": 0.95, "mean": 0.5}))


def test_unclipped_loss_spikes_then_falls_back_at_its_edges():
    """The clipping figure's alt text: a spike to at least 2 ln 65, an end at most half the peak."""
    name = "unclipped_sgd_loss_spikes_then_falls_back"
    d = copy.deepcopy(FIXTURE)
    u = d["clipping_demo"]["unclipped"]
    u["loss"] = [4.2, 2 * math.log(65), 6.0, None, 4.5]
    u["final_loss"] = math.log(65)                            # exactly half the peak
    assert holds(name, d)
    u["final_loss"] = math.log(65) * 1.001
    assert not holds(name, d)
    u["final_loss"], u["loss"][1] = 4.0, 2 * math.log(65) * 0.999      # a peak just short of twice ln 65
    assert not holds(name, d)
    u["loss"] = [4.2 + i / 10 for i in range(50)]                       # a steady rise is no spike
    u["final_loss"] = 9.1
    assert not holds(name, d)
    u["loss"], u["final_loss"] = [None] * 5, None
    assert not holds(name, d) and detail(name, d) == "the unclipped run has no finite loss to end on"


def test_claims_on_a_bad_file_print_one_line_and_no_traceback(tmp_path, capsys):
    """python -m scripts.measure.claims: exit 2 and one line on stderr for a file it cannot read (issue 17)."""
    d = fixture(M3)
    d["models"]["lstm"]["test_nats"] = float("nan")
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(d), encoding="utf-8")
    assert claims.main([str(p)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert err == f"claims: {M3.id}: {p} is not valid JSON: non-finite number at models/lstm/test_nats (the lab must write null)\n"
    del d["gradient_by_distance"]
    p.write_text(json.dumps({**d, "models": fixture(M3)["models"]}), encoding="utf-8")
    assert claims.main([str(p)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "(1 problem): at (top level): 'gradient_by_distance' is a required property" in err
    assert claims.main([str(M3.fixture)]) == 0 and "[ok] units_consistent" in capsys.readouterr().out


# --------------------------------------------------------------------------------------------
# claims: the thresholds the page states ("at least 100 times", "below 3.0 nats")
# --------------------------------------------------------------------------------------------
def claim(name: str):
    return next(c for c in M3.code.claims.CLAIMS if c.name == name)


def with_ratio_at_50(ratio: float) -> dict:
    d = fixture(M3)
    g = d["gradient_by_distance"]
    i = g["distance"].index(50)
    g["rnn_grad_norm"][i] = 1e-6
    g["lstm_grad_norm"][i] = ratio * 1e-6
    g["lstm_rnn_ratio_at_50"] = ratio
    return d


def with_clipped_final_loss(loss: float) -> dict:
    d = fixture(M3)
    d["clipping_demo"]["clipped"]["final_loss"] = loss
    return d


def test_claim_thresholds_at_the_boundaries_the_page_states():
    ratio = claim("lstm_gradient_orders_above_rnn_at_50")
    assert "at least 100 times" in ratio.statement
    assert ratio.check(with_ratio_at_50(100.0))[0]        # "at least": 100 itself holds
    assert ratio.check(with_ratio_at_50(1e5))[0]
    assert not ratio.check(with_ratio_at_50(99.0))[0]
    assert not ratio.check(with_ratio_at_50(10.0))[0]

    clipped = claim("clipped_sgd_far_better")
    assert "below 3.0 nats" in clipped.statement
    assert clipped.check(with_clipped_final_loss(2.99))[0]
    assert clipped.check(with_clipped_final_loss(1.5))[0]
    assert not clipped.check(with_clipped_final_loss(3.0))[0]   # "below": 3.0 itself does not hold
    assert not clipped.check(with_clipped_final_loss(math.log(65) - 0.1))[0]


# --------------------------------------------------------------------------------------------
# claims
# --------------------------------------------------------------------------------------------
def test_claims_hold_on_fake_measurement_and_name_the_broken_one():
    d = fixture(M3)
    d.update(fake_lab_results(M3))
    assert not claims.failed(claims.evaluate(M3, d))
    broken = copy.deepcopy(d)
    broken["gradient_by_distance"]["rnn_first_all_zero_distance"] = 150
    broken["clipping_demo"]["clipped"]["final_loss"] = None
    names = [c["name"] for c in claims.failed(claims.evaluate(M3, broken))]
    assert names == ["rnn_gradient_never_exactly_zero_within_the_chunk", "clipped_sgd_far_better"]


def test_claim_that_cannot_be_computed_fails_instead_of_crashing():
    d = fixture(M3)
    d["models"]["rnn"] = {}
    out = {c["name"]: c for c in claims.evaluate(M3, d)}
    assert not out["neural_models_beat_best_ngram"]["holds"]
    assert "could not be evaluated" in out["neural_models_beat_best_ngram"]["detail"]


def test_ngram_rows_must_match_lab1():
    d = fixture(M3)
    d["models"]["trigram"]["test_nats"] = 2.0861
    out = {c["name"]: c for c in claims.evaluate(M3, d)}
    assert not out["ngram_rows_match_lab1"]["holds"]
    assert "trigram 2.0861 != 2.0859" in out["ngram_rows_match_lab1"]["detail"]


def test_lab1_values_are_read_from_the_lab_source(tmp_path):
    """The lab holds Lab 1's test values once; the claim reads them from the lab source, not a copy."""
    lab = tmp_path / "lab.py"
    lab.write_text('# %% tags=["def"]\nx = 1\nLAB1_TEST_NATS = {"uniform": 4.0, "bigram": 2.5}\n'
                   'def f():\n    LAB1_TEST_NATS = None\n', encoding="utf-8")
    assert lab_source.lab_constant("LAB1_TEST_NATS", lab) == {"uniform": 4.0, "bigram": 2.5}
    empty = tmp_path / "empty.py"
    empty.write_text("LAB1_TEST_NATS_OLD = {}\n", encoding="utf-8")
    with pytest.raises(KeyError, match="LAB1_TEST_NATS"):
        lab_source.lab_constant("LAB1_TEST_NATS", empty)
    in_lab = lab_source.lab_constant("LAB1_TEST_NATS", M3)
    assert M3.code.claims.LAB1_TEST_NATS == in_lab and set(in_lab) == {"uniform", "bigram", "trigram", "best_ngram"}
    assert ", ".join(f"{v:.4f}" for v in in_lab.values()) in M3.code.claims.CLAIMS[0].statement


def by_distance(mutate) -> dict:
    """The fixture with its direct_path_by_distance record changed by mutate(record)."""
    d = copy.deepcopy(FIXTURE)
    mutate(d["gradient_by_distance"]["direct_path_by_distance"])
    return d


@pytest.mark.parametrize("mutate, problem", [
    (lambda r: r["count_above"][9].__setitem__(5, r["count_above"][9][4] + 1), "a count above a larger θ exceeds"),
    (lambda r: r["count_above"][10].__setitem__(98, r["count_above"][9][98] + 1), "a count rises with the distance"),
    (lambda r: r["count_above"].pop(), "one count per θ"),
    (lambda r: r["distance"].__setitem__(0, 0), "distances 1 .. 199"),
    (lambda r: r.__setitem__("products", r["products"] + 1), "share above 0.01 is"),
    (lambda r: r["carried_fall"].__setitem__(49, r["carried_fall"][49] * 1.01), "the direct path carries"),
])
def test_direct_path_by_distance_must_be_consistent(mutate, problem):
    name = "direct_path_by_distance_consistent"
    assert holds(name, FIXTURE)
    d = by_distance(mutate)
    assert not holds(name, d)
    assert problem in detail(name, d)


def test_most_far_gradient_off_the_direct_path_at_its_edge():
    """'Most of what reaches far does not travel the direct path': under half at each named distance, on the data."""
    name = "most_far_gradient_off_the_direct_path"
    assert holds(name, FIXTURE)
    g = FIXTURE["gradient_by_distance"]
    for k in M3.code.claims.DIRECT_PATH_FAR:
        fall = g["lstm_grad_norm"][k] / g["lstm_grad_norm"][0]
        at_half = by_distance(lambda r: r["carried_fall"].__setitem__(k - 1, 0.5 * fall))
        assert not holds(name, at_half), k
        assert f"at {k}" in detail(name, at_half)
        assert holds(name, by_distance(lambda r: r["carried_fall"].__setitem__(k - 1, 0.499 * fall))), k


def saturation(**changes) -> dict:
    d = copy.deepcopy(FIXTURE)
    d["gradient_by_distance"]["rnn_saturation"].update(changes)
    return d


def test_saturation_bound_and_the_answer_it_picks():
    """Equation 8 with the measured derivatives: never below the measured factor (0.7 in the fixture), between the
    mean derivative times ||W|| (5.2) and ||W||; above 1 the answer says the bound allows growth."""
    name, verdict = "rnn_saturation_bound_consistent", M3.code.claims.saturation_bound_verdict
    assert holds(name, FIXTURE) and verdict(FIXTURE["gradient_by_distance"]) == "growth"
    assert holds(name, saturation(bound_factor_per_character=0.7, mean_tanh_derivative=0.1))
    assert verdict(saturation(bound_factor_per_character=0.7, mean_tanh_derivative=0.1)["gradient_by_distance"]) == "vanishing"
    assert verdict(saturation(bound_factor_per_character=1.0, mean_tanh_derivative=0.1)["gradient_by_distance"]) == "vanishing"
    for changes, problem in (({"bound_factor_per_character": 0.69}, "below the measured"),
                             ({"bound_factor_per_character": 5.21}, "must lie between"),
                             ({"bound_factor_per_character": 1.5}, "must lie between")):   # 0.3 x 5.2 = 1.56
        assert not holds(name, saturation(**changes)), changes
        assert problem in detail(name, saturation(**changes))


def test_prompts_samples_differ_needs_one_seed_each_and_no_long_shared_run():
    name = "prompts_samples_differ"
    assert holds(name, FIXTURE)
    d = copy.deepcopy(FIXTURE)
    a, b = (x for x in d["sampling"]["samples"] if x["strategy"] == "temperature" and x["tau"] == 1.0
            and x["prompt_index"] in (0, 1))
    text_b = b["text"]
    a["text"] = "".join(chr(ord("A") + i % 26) for i in range(100))     # no run of its own repeated
    b["text"] = text_b[:10] + a["text"][20:79] + text_b[10:]            # a 59-character run in common
    assert holds(name, d), detail(name, d)
    b["text"] = text_b[:10] + a["text"][20:80] + text_b[10:]            # 60
    assert not holds(name, d) and "60 characters" in detail(name, d)
    greedy = copy.deepcopy(FIXTURE)
    g0, g1 = (x for x in greedy["sampling"]["samples"] if x["strategy"] == "greedy" and x["prompt_index"] in (0, 1))
    g1["text"] = g0["text"]                                                   # greedy draws nothing at random
    assert holds(name, greedy) and f"share up to {len(g0['text'])}" in detail(name, greedy)
    seeds = copy.deepcopy(FIXTURE)
    for x in seeds["sampling"]["samples"]:
        x["seed"] = 0
    assert not holds(name, seeds) and "prompts share a seed" in detail(name, seeds)
