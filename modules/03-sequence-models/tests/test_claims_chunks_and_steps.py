"""Issue 43's claims at their edges: the gradient chunk by chunk (beside the ratios of means the page quotes) and the
RNN's one-step Jacobian at every step."""
import copy

import pytest

from scripts.measure import claims
from tests.support import fixture, this_module

M3 = this_module(__file__)
C = M3.code.claims
FIXTURE = fixture(M3)


def holds(name, d):
    return next(r for r in claims.evaluate(M3, d) if r["name"] == name)["holds"]


def with_shares(shares_by_distance):
    """The fixture with every chunk's direct-path share at each far distance set (the means kept consistent: the
    curve and direct_path_by_distance recomputed from the chunks)."""
    d = copy.deepcopy(FIXTURE)
    g = d["gradient_by_distance"]
    bc = g["by_chunk"]
    at_0 = sum(bc["lstm_grad_norm"][bc["distance"].index(0)]) / g["chunks"]
    for k, shares in shares_by_distance.items():
        i = bc["distance"].index(k)
        bc["direct_path_norm"][i] = [s * m for s, m in zip(shares, bc["lstm_grad_norm"][i])]
        g["direct_path_by_distance"]["carried_fall"][k - 1] = sum(bc["direct_path_norm"][i]) / g["chunks"] / at_0
    return d


def test_the_fixture_holds_every_new_claim():
    for name in ("by_chunk_consistent", "direct_path_chunk_median_below_half",
                 "direct_path_chunk_median_falls_with_distance", "lstm_above_rnn_at_50_chunk_by_chunk",
                 "rnn_step_jacobian_consistent", "no_rnn_step_shrinks_every_direction"):
        assert holds(name, FIXTURE), name


def test_by_chunk_must_average_to_the_curves():
    d = copy.deepcopy(FIXTURE)
    d["gradient_by_distance"]["by_chunk"]["rnn_grad_norm"][3][0] *= 1.001      # one chunk at 50 off
    assert not holds("by_chunk_consistent", d)
    d = copy.deepcopy(FIXTURE)
    bc = d["gradient_by_distance"]["by_chunk"]
    i = bc["distance"].index(100)
    bc["direct_path_norm"][i] = [v * 1.01 for v in bc["direct_path_norm"][i]]   # no longer direct_path_by_distance's
    assert not holds("by_chunk_consistent", d)
    d = copy.deepcopy(FIXTURE)
    bc = d["gradient_by_distance"]["by_chunk"]
    i = bc["distance"].index(150)
    for key in ("distance", "rnn_grad_norm", "lstm_grad_norm", "direct_path_norm"):
        del bc[key][i]
    assert not holds("by_chunk_consistent", d)                                    # a distance the box names missing
    d = copy.deepcopy(FIXTURE)
    d["gradient_by_distance"]["by_chunk"]["lstm_grad_norm"][2].pop()              # a chunk missing
    assert not holds("by_chunk_consistent", d)


def test_the_median_chunks_share_below_half_at_its_edge():
    chunks = FIXTURE["gradient_by_distance"]["chunks"]
    low = {25: [0.4] * chunks, 50: [0.3] * chunks, 100: [0.2] * chunks, 150: [0.1] * chunks}
    assert holds("direct_path_chunk_median_below_half", with_shares(low))
    assert not holds("direct_path_chunk_median_below_half", with_shares({**low, 25: [0.5] * chunks}))
    # most chunks low and a few high: the ratio of means above half, the median below, the median is what counts
    skewed = [0.01] * (chunks - 8) + [10.0] * 8
    assert holds("direct_path_chunk_median_below_half", with_shares({**low, 100: skewed}))


def test_the_median_chunks_share_must_fall_at_each_distance():
    chunks = FIXTURE["gradient_by_distance"]["chunks"]
    falling = {25: [0.4] * chunks, 50: [0.3] * chunks, 100: [0.2] * chunks, 150: [0.1] * chunks}
    assert holds("direct_path_chunk_median_falls_with_distance", with_shares(falling))
    assert not holds("direct_path_chunk_median_falls_with_distance", with_shares({**falling, 100: [0.3] * chunks}))


@pytest.mark.parametrize("ratio, expected", [(100.0, True), (99.0, False)])
def test_the_median_chunks_lstm_over_rnn_at_50_at_its_edge(ratio, expected):
    d = copy.deepcopy(FIXTURE)
    g = d["gradient_by_distance"]
    bc = g["by_chunk"]
    i = bc["distance"].index(50)
    bc["rnn_grad_norm"][i] = [v / ratio for v in bc["lstm_grad_norm"][i]]
    assert holds("lstm_above_rnn_at_50_chunk_by_chunk", d) is expected


def test_the_one_step_jacobian_record_must_respect_equation_8():
    def jac(**changes):
        d = copy.deepcopy(FIXTURE)
        d["gradient_by_distance"]["rnn_saturation"]["step_jacobian_norm"].update(changes)
        return d
    assert holds("rnn_step_jacobian_consistent", jac())
    assert not holds("rnn_step_jacobian_consistent", jac(geometric_mean=2.7, max=4.1))   # above the bound's 2.6
    assert not holds("rnn_step_jacobian_consistent", jac(max=5.3))                       # above ||W|| = 5.2
    assert not holds("rnn_step_jacobian_consistent", jac(min=2.0))                       # min above the mean
    assert not holds("rnn_step_jacobian_consistent", jac(share_below_1=0.1))             # none is below 1
    assert not holds("rnn_step_jacobian_consistent", jac(steps=100))
    d = jac()
    d["gradient_by_distance"]["rnn_saturation"]["largest_derivative_geometric_mean"] = 0.6
    assert not holds("rnn_step_jacobian_consistent", d)


@pytest.mark.parametrize("smallest, expected", [(1.0001, True), (1.0, False), (0.9, False)])
def test_no_step_shrinks_every_direction_at_its_edge(smallest, expected):
    d = copy.deepcopy(FIXTURE)
    d["gradient_by_distance"]["rnn_saturation"]["step_jacobian_norm"].update(
        min=smallest, share_below_1=0.0 if smallest >= 1 else 0.01)
    assert holds("no_rnn_step_shrinks_every_direction", d) is expected


def test_the_page_shows_each_chunk_share_as_the_data_has_it():
    """page_data's chunk values are claims.spread of claims' per-chunk shares: the median and the quartiles."""
    g = FIXTURE["gradient_by_distance"]
    v = M3.code.page_data.chunk_variables(g)
    low, median, high = C.spread(C.chunk_direct_path_shares(g, 50))
    fmt = M3.code.page_data.fmt_share
    assert (v["direct_chunk_50_low"], v["direct_chunk_50_median"], v["direct_chunk_50_high"]) == \
        (fmt(low), fmt(median), fmt(high))
    assert low <= median <= high
    assert fmt(0.0004) == "under 0.1%" and fmt(0.0005) == "0.1%" and fmt(0.056) == "5.6%"
