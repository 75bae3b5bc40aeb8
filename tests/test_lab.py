"""The lab's exercises, checkpoints and scaffolding, tested on the very cells the notebook runs.

`load_lab()` executes the lab source's definition cells (solutions in place, or stubs for the
student version), so nothing here is a copy of the lab's code.
"""
import math

import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from scripts.lab_source import load_lab


@pytest.fixture(scope="module")
def lab():
    return load_lab("solution")


@pytest.fixture(scope="module")
def student():
    return load_lab("student")


def fails(lab, checkpoint, *args, match):
    with pytest.raises(lab["CheckpointError"], match=match):
        lab[checkpoint](*args)


# --- Exercise 1 -----------------------------------------------------------------------------------

def test_rnn_cell_step_matches_nn_rnncell(lab):
    torch.manual_seed(0)
    cell = nn.RNNCell(64, 256)
    x, h = torch.randn(8, 64), torch.randn(8, 256)
    got = lab["rnn_cell_step"](x, h, cell.weight_hh, cell.weight_ih, cell.bias_ih + cell.bias_hh)
    assert got.shape == (8, 256) and got.dtype == torch.float32
    torch.testing.assert_close(got, cell(x, h))


def test_checkpoint_1(lab, student):
    lab["checkpoint_1"](lab["rnn_cell_step"])
    fails(lab, "checkpoint_1", student["rnn_cell_step"], match=r"Checkpoint 1 .*not written yet")
    no_bias = lambda x, h, W, U, b: torch.tanh(h @ W.T + x @ U.T)  # noqa: E731
    fails(lab, "checkpoint_1", no_bias, match=r"Exercise 1.*bias b is missing")
    no_tanh = lambda x, h, W, U, b: h @ W.T + x @ U.T + b  # noqa: E731
    fails(lab, "checkpoint_1", no_tanh, match=r"tanh is missing")
    untransposed = lambda x, h, W, U, b: torch.tanh(h @ W + x @ U.T + b)  # noqa: E731
    fails(lab, "checkpoint_1", untransposed, match=r"W is not transposed")
    wrong_shape = lambda x, h, W, U, b: torch.tanh(h @ W.T + x @ U.T + b).T  # noqa: E731
    fails(lab, "checkpoint_1", wrong_shape, match=r"shape \(7, 4\), expected \(4, 7\)")


# --- Exercise 2 -----------------------------------------------------------------------------------

def test_lm_loss_and_ppl_matches_cross_entropy(lab):
    torch.manual_seed(0)
    logits, targets = torch.randn(4, 9, 65, requires_grad=True), torch.randint(0, 65, (4, 9))
    loss, ppl, bpc = lab["lm_loss_and_ppl"](logits, targets)
    ref = F.cross_entropy(logits.reshape(-1, 65), targets.reshape(-1))
    torch.testing.assert_close(loss, ref)
    assert math.isclose(float(ppl.detach()), math.exp(float(ref.detach())), rel_tol=1e-6)
    assert math.isclose(float(bpc.detach()), float(ref.detach()) / math.log(2), rel_tol=1e-6)
    loss.backward()
    assert logits.grad is not None
    uniform = lab["lm_loss_and_ppl"](torch.zeros(100, 65), torch.randint(0, 65, (100,)))
    assert float(uniform[1]) == pytest.approx(65, abs=1e-3)


def test_checkpoint_2(lab, student):
    lab["checkpoint_2"](lab["lm_loss_and_ppl"])
    fails(lab, "checkpoint_2", student["lm_loss_and_ppl"], match=r"Checkpoint 2 .*not written yet")

    def summed(logits, targets):
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), reduction="sum")
        return loss, torch.exp(loss), loss / math.log(2)
    fails(lab, "checkpoint_2", summed, match=r"perplexity exactly \|V\| = 65")

    def in_bits(logits, targets):
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1)) / math.log(2)
        return loss, torch.exp(loss), loss
    fails(lab, "checkpoint_2", in_bits, match=r"perplexity exactly")

    def detached(logits, targets):
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1)).detach()
        return loss, torch.exp(loss), loss / math.log(2)
    fails(lab, "checkpoint_2", detached, match=r"does not carry gradients")


# --- Exercise 3 -----------------------------------------------------------------------------------

def test_clip_gradients_matches_clip_grad_norm(lab):
    torch.manual_seed(0)
    grads = [torch.randn(3, 4) * 5, torch.randn(10)]
    mine = [nn.Parameter(torch.zeros_like(g)) for g in grads]
    ref = [nn.Parameter(torch.zeros_like(g)) for g in grads]
    for a, b, g in zip(mine, ref, grads):
        a.grad, b.grad = g.clone(), g.clone()
    extra = nn.Parameter(torch.zeros(2))          # a parameter without a gradient is skipped
    total = lab["clip_gradients"](mine + [extra], 1.0)
    torch.testing.assert_close(total, torch.nn.utils.clip_grad_norm_(ref, 1.0))
    for a, b in zip(mine, ref):
        torch.testing.assert_close(a.grad, b.grad)
    assert float(torch.cat([p.grad.flatten() for p in mine]).norm()) == pytest.approx(1.0, rel=1e-4)


def test_checkpoint_3b(lab, student):
    lab["checkpoint_3b"](lab["clip_gradients"])
    fails(lab, "checkpoint_3b", student["clip_gradients"], match=r"Checkpoint 3B .*not written yet")

    def per_parameter(params, kappa):
        params = [p for p in params if p.grad is not None]
        total = torch.sqrt(sum((p.grad ** 2).sum() for p in params))
        for p in params:
            p.grad.mul_(min(1.0, kappa / float(p.grad.norm())))
        return total
    fails(lab, "checkpoint_3b", per_parameter, match=r"clipped each parameter separately")

    def always_rescale(params, kappa):
        params = [p for p in params if p.grad is not None]
        total = torch.sqrt(sum((p.grad ** 2).sum() for p in params))
        for p in params:
            p.grad.mul_(kappa / total)
        return total
    fails(lab, "checkpoint_3b", always_rescale, match=r"kappa = 10: clipped gradients differ")


def test_checkpoint_3a_accepts_valid_and_rejects_broken_curves(lab):
    curve = 0.5 * 0.8 ** np.arange(200)
    curve[150:] = 0.0
    lab["checkpoint_3a"](curve, 5.2)
    above_bound = curve.copy()
    above_bound[10] = 10.0
    fails(lab, "checkpoint_3a", above_bound, 1.0, match=r"exceeds the bound of Equation 8")
    with_nan = curve.copy()
    with_nan[3] = np.nan
    fails(lab, "checkpoint_3a", with_nan, 5.2, match=r"finite and non-negative")
    fails(lab, "checkpoint_3a", np.zeros(200), 5.2, match=r"distance 0 is zero")
    fails(lab, "checkpoint_3a", curve[:20], 5.2, match=r"at least 51")


def test_grad_norm_by_distance_matches_manual_jacobian_product(lab):
    """On a tiny RNN, the provided measurement equals ||dL/dh_T|| times the product of Equation 7's
    one-step Jacobians, computed by hand."""
    torch.manual_seed(0)
    model = lab["RNNLM"](65, d=3, d_h=4)
    x, y = torch.randint(0, 65, (1, 6)), torch.randint(0, 65, (1,))
    measured = lab["grad_norm_by_distance"](model, x, y)
    _, _, states = model(x, keep_states=True)
    hs = [h.detach()[0] for h in states]
    h_last = states[-1].detach().requires_grad_(True)
    F.cross_entropy(model.out(h_last), y).backward()
    g = h_last.grad[0]
    expected = [float(g.norm())]
    for j in range(len(hs) - 1, 0, -1):            # dL/dh_(j-1) = dL/dh_j diag(1 - h_j^2) W
        g = (g * (1 - hs[j] ** 2)) @ model.W.detach()
        expected.append(float(g.norm()))
    np.testing.assert_allclose(measured, expected, rtol=1e-5)


# --- Exercise 4 -----------------------------------------------------------------------------------

def test_lstm_cell_step_matches_nn_lstmcell(lab):
    torch.manual_seed(0)
    cell = nn.LSTMCell(64, 256)
    x, h, c = torch.randn(5, 64), torch.randn(5, 256), torch.randn(5, 256)
    p = lab["lstm_params_from"](cell.weight_ih, cell.weight_hh, cell.bias_ih + cell.bias_hh)
    h_got, c_got = lab["lstm_cell_step"](x, h, c, p)
    h_want, c_want = cell(x, (h, c))
    torch.testing.assert_close(h_got, h_want.detach())
    torch.testing.assert_close(c_got, c_want.detach())


def test_checkpoint_4(lab, student):
    lab["checkpoint_4"](lab["lstm_cell_step"])
    fails(lab, "checkpoint_4", student["lstm_cell_step"], match=r"Checkpoint 4 .*not written yet")

    def gates(x, h, p):
        return (torch.sigmoid(h @ p.W_f.T + x @ p.U_f.T + p.b_f), torch.sigmoid(h @ p.W_i.T + x @ p.U_i.T + p.b_i),
                torch.sigmoid(h @ p.W_o.T + x @ p.U_o.T + p.b_o), torch.tanh(h @ p.W_c.T + x @ p.U_c.T + p.b_c))

    def h_for_c(x, h, c, p):
        f, i, o, c_tilde = gates(x, h, p)
        c_new = f * h + i * c_tilde
        return o * torch.tanh(c_new), c_new
    fails(lab, "checkpoint_4", h_for_c, match=r"uses h_prev where Equation 10 has c_prev")

    def old_cell_in_h(x, h, c, p):
        f, i, o, c_tilde = gates(x, h, p)
        return o * torch.tanh(c), f * c + i * c_tilde
    fails(lab, "checkpoint_4", old_cell_in_h, match=r"h_t = o \* tanh\(c_t\)")


def test_checkpoint_4b_and_results_enforced_only_at_full(lab, capsys):
    rnn, lstm = np.full(60, 1e-8), np.full(60, 1e-3)
    lab["checkpoint_4b"](rnn, lstm, "full")
    fails(lab, "checkpoint_4b", lstm, rnn, "full", match=r"not above the RNN's")
    lab["checkpoint_4b"](lstm, rnn, "quick")
    assert "not enforced at the 'quick' setting" in capsys.readouterr().out

    table = {"trigram": {"perplexity": 8.05}, "best_ngram": {"perplexity": 6.25}, "lstm": {"perplexity": 5.0}}
    lab["checkpoint_results"](table, "full")
    close = dict(table, lstm={"perplexity": 7.5})
    fails(lab, "checkpoint_results", close, "full", match=r"not at least 1.0 below the trigram's 8.05")
    lab["checkpoint_results"](close, "quick")
    assert "not enforced" in capsys.readouterr().out


# --- Exercise 5 and the stretch -------------------------------------------------------------------

def test_sample_with_temperature(lab):
    gen = torch.Generator().manual_seed(0)
    z = torch.tensor([2.0, 1.0, 0.0])
    draws = lab["sample_with_temperature"](z.expand(40_000, -1), 0.5, gen)
    assert draws.shape == (40_000,) and draws.dtype == torch.int64
    freq = torch.bincount(draws, minlength=3).double() / 40_000
    # the spec's worked example: softmax((2, 1, 0) / 0.5) = (0.867, 0.117, 0.016)
    np.testing.assert_allclose(freq.numpy(), [0.867, 0.117, 0.016], atol=0.01)
    assert lab["sample_with_temperature"](torch.randn(2, 3, 65), 1.0, gen).shape == (2, 3)


def test_checkpoint_5(lab, student):
    lab["checkpoint_5"](lab["sample_with_temperature"])
    fails(lab, "checkpoint_5", student["sample_with_temperature"], match=r"Checkpoint 5 .*not written yet")

    def times_tau(logits, tau, generator=None):
        probs = torch.softmax(logits * tau, dim=-1)
        return torch.multinomial(probs.reshape(-1, probs.shape[-1]), 1, generator=generator).reshape(probs.shape[:-1])
    fails(lab, "checkpoint_5", times_tau, match=r"at tau = 0.5, 20,000 draws gave frequencies")

    def no_generator(logits, tau, generator=None):
        probs = torch.softmax(logits / tau, dim=-1)
        return torch.multinomial(probs.reshape(-1, probs.shape[-1]), 1).reshape(probs.shape[:-1])
    fails(lab, "checkpoint_5", no_generator, match=r"same generator seed")


def test_stretch_filters(lab, student):
    lab["checkpoint_stretch"](lab["top_k_filter"], lab["nucleus_filter"])
    fails(lab, "checkpoint_stretch", student["top_k_filter"], student["nucleus_filter"], match=r"not written yet")
    probs = torch.tensor([0.50, 0.30, 0.15, 0.05])
    kept = torch.softmax(lab["nucleus_filter"](probs.log(), 0.9), dim=-1)
    np.testing.assert_allclose(kept.numpy(), [0.526, 0.316, 0.158, 0.0], atol=1e-3)   # the spec's answer

    def nucleus_off_by_one(logits, p):   # keeps tokens until the mass *exceeds* p, one too few
        probs, order = torch.softmax(logits, -1).sort(-1, descending=True)
        drop = probs.cumsum(-1) > p
        return logits.masked_fill(drop.scatter(-1, order, drop), float("-inf"))
    fails(lab, "checkpoint_stretch", lab["top_k_filter"], nucleus_off_by_one, match=r"nucleus_filter.*keeps 2 tokens, expected 3")


# --- scaffolding ----------------------------------------------------------------------------------

def test_parameter_counts(lab):
    assert lab["count_parameters"](lab["RNNLM"](65)) == 103_041
    lstm = lab["LSTMLM"](65)
    assert lab["count_parameters"](lstm) == 350_593
    d_h = 256
    b_f = lstm.lstm.bias_ih_l0[d_h:2 * d_h] + lstm.lstm.bias_hh_l0[d_h:2 * d_h]
    assert torch.all(b_f == 1.0), "the forget-gate bias starts at 1"


def test_settings_are_overridable_from_outside(monkeypatch):
    monkeypatch.setenv("LAB3_SETTINGS", "quick")
    monkeypatch.setenv("LAB3_DEVICE", "cpu")
    quick = load_lab("solution")
    assert quick["SETTINGS_NAME"] == "quick" and quick["S"].rnn_steps < 100 and str(quick["DEVICE"]) == "cpu"
    full = quick["SETTINGS_PRESETS"]["full"]
    assert (full["rnn_steps"], full["lstm_steps"], full["batch_size"], full["chunk_len"]) == (1000, 2000, 64, 128)
    assert (full["grad_chunks"], full["grad_chunk_len"], full["sgd_steps"], full["sgd_lr"]) == (64, 200, 150, 2.0)
    monkeypatch.setenv("LAB3_SETTINGS", "huge")
    with pytest.raises(ValueError, match="LAB3_SETTINGS='huge'"):
        load_lab("solution")


def test_corpus_errors_are_clear(lab, tmp_path, monkeypatch):
    monkeypatch.delenv("LAB3_CORPUS", raising=False)
    with pytest.raises(FileNotFoundError, match=r"corpus not found at .*sha256 86c4e6aa"):
        lab["load_corpus"](tmp_path / "missing.txt")
    wrong = tmp_path / "tinyshakespeare.txt"
    wrong.write_text("To be, or not to be\n")
    with pytest.raises(ValueError, match=r"has sha256 [0-9a-f]{64}, expected 86c4e6aa"):
        lab["load_corpus"](wrong)


def test_ngram_baseline_reproduces_lab1(lab, corpus_path):
    text = lab["load_corpus"](corpus_path)
    chars, ids = lab["split_and_encode"](text)
    assert len(chars) == 65
    split = lab["SPLIT"]
    expected = {(2, 0.1): 2.4922, (3, 0.1): 2.0859, (5, 0.01): 1.8326}
    for (n, k), lab1 in expected.items():
        model = lab["CharNGram"](n, 65).fit(ids, *split["train"])
        log_probs = model.log_probs(ids, *split["test"], k=k)
        assert log_probs.shape == (60_394, 65)
        np.testing.assert_allclose(np.exp(log_probs).sum(axis=1), 1.0, rtol=1e-9)   # a distribution per position
        loss = lab["lm_loss_and_ppl"](torch.from_numpy(log_probs), torch.from_numpy(ids[slice(*split["test"])]))[0]
        assert round(float(loss), 4) == lab1, f"n = {n}, k = {k}"
    assert round(math.log(65), 4) == 4.1744


def test_training_stops_on_a_non_finite_loss_and_names_the_step(monkeypatch):
    monkeypatch.setenv("LAB3_SETTINGS", "quick")
    monkeypatch.setenv("LAB3_DEVICE", "cpu")
    lab = load_lab("solution")
    lab["split_ids"] = {"train": np.random.default_rng(0).integers(0, 65, 5000)}
    calls = {"n": 0}
    real_loss = lab["lm_loss_and_ppl"]

    def loss_turning_nan(logits, targets):         # a student's loss that breaks on the third step
        calls["n"] += 1
        loss, ppl, bpc = real_loss(logits, targets)
        return (loss * float("nan") if calls["n"] == 3 else loss), ppl, bpc
    lab["lm_loss_and_ppl"] = loss_turning_nan
    with pytest.raises(FloatingPointError, match=r"training RNN: the loss became nan at step 3 of 5"):
        lab["train_lm"](lab["RNNLM"](65, d=4, d_h=8), 5, "RNN")
