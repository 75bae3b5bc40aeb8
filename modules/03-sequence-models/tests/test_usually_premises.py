"""Each claim's `usually` in claims.json (what the module page tells a student whose run breaks the claim) states only
what the project's own runs show: its premise is checked here on the quick run (the lab's own results file, as a
student's quick run saves it) and on the full run (the committed results).  A claim without a premise here fails."""
import json
import math

import pytest
import torch

from scripts.measure.claims import read_data_claims
from scripts.measure.lab_source import load_lab
from tests.support import committed_results, this_module

M3 = this_module(__file__)
QUICK_RUN = M3.fixture.parent / "lab-results-quick.json"
FEW_DOZEN = range(20, 100)          # "a few dozen steps"
SIGMA_1 = 1 / (1 + math.exp(-1))


@pytest.fixture(scope="module")
def runs():
    quick = json.loads(QUICK_RUN.read_text(encoding="utf-8"))
    full = committed_results(M3)
    assert quick["lab_run"]["settings"] == "quick" and full["provenance"]["settings"] == "full"
    return quick, full


@pytest.fixture(scope="module")
def lab():
    return load_lab(M3, "solution")


def nats(run, model):
    return run["models"][model]["test_nats"]


def steps(run, model):
    return run["models"][model]["training_steps"]


def both_few_dozen(quick):
    assert steps(quick, "rnn") in FEW_DOZEN and steps(quick, "lstm") in FEW_DOZEN


def neural_models_beat_best_ngram(quick, full, lab):
    both_few_dozen(quick)
    assert nats(quick, "rnn") > nats(quick, "best_ngram") and nats(quick, "lstm") > nats(quick, "best_ngram")
    assert nats(quick, "lstm") > nats(quick, "bigram")                       # "behind even the bigram"
    assert nats(full, "rnn") < nats(full, "best_ngram") and nats(full, "lstm") < nats(full, "best_ngram")


def lstm_ppl_at_least_1_below_trigram(quick, full, lab):
    assert steps(quick, "lstm") in FEW_DOZEN
    assert quick["models"]["lstm"]["perplexity"] > quick["models"]["trigram"]["perplexity"]   # "not yet below at all"
    margin = read_data_claims(M3)["thresholds"]["lstm_trigram_ppl_margin"]
    assert full["models"]["trigram"]["perplexity"] - full["models"]["lstm"]["perplexity"] >= margin


def lstm_beats_rnn(quick, full, lab):
    both_few_dozen(quick)
    assert quick["models"]["lstm"]["perplexity"] > quick["models"]["rnn"]["perplexity"]
    assert nats(quick, "lstm") > nats(quick, "bigram")
    assert full["models"]["lstm"]["perplexity"] < full["models"]["rnn"]["perplexity"]
    assert steps(full, "lstm") == 2 * steps(full, "rnn")                    # "twice the RNN's steps"


def rnn_spectral_norm_above_1(quick, full, lab):
    torch.manual_seed(full["provenance"]["seed"])                          # as the lab builds its RNN
    initial = float(torch.linalg.matrix_norm(lab["RNNLM"](65).W.detach(), ord=2))
    quick_norm = quick["gradient_by_distance"]["rnn_spectral_norm_W"]
    full_norm = full["gradient_by_distance"]["rnn_spectral_norm_W"]
    assert 1 < initial < quick_norm < full_norm, (initial, quick_norm, full_norm)


def rnn_gradient_vanishes(quick, full, lab):
    assert steps(quick, "rnn") in FEW_DOZEN
    for run in (quick, full):
        g = run["gradient_by_distance"]["rnn_grad_norm"]
        assert min(g) <= 1e-12 * g[0]                                      # "far more than six orders of magnitude"
    assert quick["gradient_by_distance"]["rnn_factor_per_character"] < full["gradient_by_distance"]["rnn_factor_per_character"]


def many_forget_gates_near_1(quick, full, lab):
    torch.manual_seed(0)
    lstm = lab["LSTMLM"](65).lstm
    d_h = lstm.hidden_size
    bias = (lstm.bias_ih_l0 + lstm.bias_hh_l0).detach()[d_h:2 * d_h]       # nn.LSTM stacks i, f, g, o
    assert torch.allclose(bias, torch.ones(d_h))                           # "the lab sets their bias to 1"
    assert steps(quick, "lstm") in FEW_DOZEN
    fq, ff = quick["gradient_by_distance"]["forget_gate"], full["gradient_by_distance"]["forget_gate"]
    assert abs(fq["mean"] - SIGMA_1) < 0.02                                # still near where they start
    minimum = read_data_claims(M3)["thresholds"]["forget_share_099_min"]
    assert fq["share_above_0.99"] < minimum <= ff["share_above_0.99"]


def unclipped_sgd_worse_than_uniform(quick, full, lab):
    assert quick["clipping_demo"]["steps"] < full["clipping_demo"]["steps"]
    for run in (quick, full):
        final = run["clipping_demo"]["unclipped"]["final_loss"]
        assert final is None or final > nats(run, "uniform")


def clipped_sgd_far_better(quick, full, lab):
    most = read_data_claims(M3)["thresholds"]["clipped_final_loss_max"]
    assert quick["clipping_demo"]["steps"] < full["clipping_demo"]["steps"]
    for run in (quick, full):
        assert run["clipping_demo"]["clipped"]["final_loss"] < most


PREMISES = {f.__name__: f for f in (neural_models_beat_best_ngram, lstm_ppl_at_least_1_below_trigram, lstm_beats_rnn,
                                    rnn_spectral_norm_above_1, rnn_gradient_vanishes, many_forget_gates_near_1,
                                    unclipped_sgd_worse_than_uniform, clipped_sgd_far_better)}


def test_every_claim_with_a_usually_has_its_premise_checked_here():
    names = {c["name"] for c in read_data_claims(M3)["claims"] if c.get("usually")}
    assert names == set(PREMISES), f"claims.json and this file disagree: {sorted(names ^ set(PREMISES))}"


@pytest.mark.parametrize("name", sorted(PREMISES))
def test_usually_states_what_the_projects_runs_show(name, runs, lab):
    PREMISES[name](*runs, lab)
