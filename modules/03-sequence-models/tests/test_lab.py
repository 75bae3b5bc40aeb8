"""The lab's exercises, checkpoints and scaffolding, tested on the very cells the notebook runs.

`load_lab()` executes the lab source's definition cells (solutions in place, or stubs for the
student version), so nothing here is a copy of the lab's code.
"""
import math
import re
from types import SimpleNamespace

import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from scripts.measure.lab_source import load_lab
from tests.support import this_module

M3 = this_module(__file__)    # the module these tests belong to (their folder's)
import copy


@pytest.fixture(scope="module")
def lab():
    return load_lab(M3, "solution")


@pytest.fixture(scope="module")
def student():
    return load_lab(M3, "student")


NAMES = {"checkpoint_1": "Checkpoint 1 (Exercise 1, ", "checkpoint_2": "Checkpoint 2 (Exercise 2, ",
         "checkpoint_3a": "Checkpoint 3A (Exercise 3A, ", "checkpoint_3b": "Checkpoint 3B (Exercise 3B, ",
         "checkpoint_4": "Checkpoint 4 (Exercise 4, ", "checkpoint_4b": "Checkpoint 4B (after Exercise 4",
         "checkpoint_results": "Results checkpoint (", "checkpoint_5": "Checkpoint 5 (Exercise 5, ",
         "checkpoint_challenge": "Challenge checkpoint ("}


def fails(lab, checkpoint, *args, match):
    """The checkpoint fails with its own one-line name first (one naming scheme), and the message matches."""
    with pytest.raises(lab["CheckpointError"], match=match) as err:
        lab[checkpoint](*args)
    assert str(err.value).startswith("❌ " + NAMES[checkpoint]), str(err.value)
    return str(err.value)


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


def test_checkpoint_1_needs_gradients_to_flow_as_rnnlm_and_exercise_3a_use_them(lab):
    @torch.no_grad()
    def under_no_grad(x, h, W, U, b):                       # right values; RNNLM would train only W_o, b_o
        return torch.tanh(h @ W.T + x @ U.T + b)
    fails(lab, "checkpoint_1", under_no_grad, match=r"h_t does not carry gradients.*torch.no_grad\(\)")

    detached_w = lambda x, h, W, U, b: torch.tanh(h @ W.detach().T + x @ U.T + b)  # noqa: E731
    fails(lab, "checkpoint_1", detached_w, match=r"carries no gradient back to W\b")

    def through_numpy(x, h, W, U, b):
        a = h.detach().numpy() @ W.detach().numpy().T + x.detach().numpy() @ U.detach().numpy().T + b.detach().numpy()
        return torch.from_numpy(np.tanh(a))
    fails(lab, "checkpoint_1", through_numpy, match=r"does not carry gradients")

    def in_place(x, h, W, U, b):                            # changes the caller's h_prev
        h.mul_(0).add_(x @ U.T)
        return torch.tanh(h @ W.T + b)
    message = fails(lab, "checkpoint_1", in_place, match=r"`in_place` raised an error, called as RNNLM calls it at every "
                                                          r"step of training:\n    the call: .*\n    RuntimeError: .*in-place")
    assert "compute a new tensor instead, a = a + b" in message and "at line" in message and "h.mul_(0)" in message


def test_checkpoint_errors_from_student_code_are_named_with_the_original_error_beneath(lab):
    def returns_list(logits, targets):                       # float() of a list, inside the checkpoint
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
        return loss, [torch.exp(loss)], loss / math.log(2)
    message = fails(lab, "checkpoint_2", returns_list, match=r"cannot be used the way the lab uses it")
    assert "\n    TypeError: float() argument must be" in message

    def typo(x_t, h_prev, W, U, b):
        return torch.tanh(h_prev @ W.T + x_t @ U + b)        # U not transposed: a shape error
    message = fails(lab, "checkpoint_1", typo, match=r"`typo` raised an error, called as RNNLM calls it")
    assert "\n    RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x5 and 7x5)\n    at line" in message
    assert "x_t @ U + b" in message

    fails(lab, "checkpoint_5", lambda logits, tau, generator=None: None, match=r"returned None: did the function end "
                                                                              r"with `return \.\.\.`\?")
    fails(lab, "checkpoint_4", lambda x, h, c, p: (h,), match=r"should return the pair \(h_t, c_t\): return h, c; got a "
                                                              r"tuple of 1")


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

    def rewrapped(logits, targets):                          # requires_grad, but cut off from the logits
        value = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1)).item()
        loss = torch.tensor(value, requires_grad=True)
        return loss, torch.exp(loss), loss / math.log(2)
    fails(lab, "checkpoint_2", rewrapped, match=r"the loss does not carry gradients: the lab trains both models")

    def float32_only(logits, targets):                       # the n-gram rows pass float64 log-probabilities
        if logits.dtype != torch.float32:
            raise TypeError(f"expected float32 logits, got {logits.dtype}")
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
        return loss, torch.exp(loss), loss / math.log(2)
    message = fails(lab, "checkpoint_2", float32_only,
                    match=r"raised an error, called on float64 log-probabilities, as the n-gram rows pass them")
    assert "the call: float32_only(logits: (33, 65) = (N, |V|) float64, targets: (33,) = (N,) int64), with N = 33, " \
           "|V| = 65\n    TypeError: expected float32 logits" in message

    def wrong_arity(logits, targets):
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
        return loss, torch.exp(loss)
    fails(lab, "checkpoint_2", wrong_arity, match=r"should return three values, the loss, the perplexity and the bits "
                                                  r"per character \(return loss, perplexity, bpc\); got a tuple of 2")


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
    fails(lab, "checkpoint_3b", always_rescale, match=r"kappa = 10: the gradients were scaled up although "
                                                     r"\|\|g\|\| = 5.0000 < kappa = 10")


def _total_norm(params):
    return torch.sqrt(sum((p.grad ** 2).sum() for p in params if p.grad is not None))


def test_checkpoint_3b_calls_clip_gradients_as_the_demonstration_does(lab):
    def reads_params_twice(params, kappa):                   # right for a list; clips nothing given model.parameters()
        total = _total_norm(params)
        for p in params:
            if p.grad is not None:
                p.grad.mul_(min(1.0, kappa / float(total)))
        return total
    fails(lab, "checkpoint_3b", reads_params_twice,
          match=r"right when params is a list, wrong when it is a generator .*params = list\(params\)")

    def scales_parameters(params, kappa):
        params = [p for p in params if p.grad is not None]
        total = _total_norm(params)
        with torch.no_grad():
            for p in params:
                p.mul_(min(1.0, kappa / float(total)))
        return total
    fails(lab, "checkpoint_3b", scales_parameters, match=r"the parameters themselves changed")

    def not_in_place(params, kappa):
        params = [p for p in params if p.grad is not None]
        total = _total_norm(params)
        for p in params:
            g = p.grad
            g = g * min(1.0, kappa / float(total))           # rebinds a local name; p.grad is unchanged
        return total
    message = fails(lab, "checkpoint_3b", not_in_place, match=r"kappa = 1: the gradients were not changed \(expected "
                                                                r"\|\|g\|\| = 1.0000 after clipping, \(0.6000, 0.8000\); "
                                                                r"got 5.0000, \(3.0000, 4.0000\)\)")
    assert "Either the scaling never runs" in message and "p.grad.mul_(factor)" in message

    def no_skip(params, kappa):
        params = list(params)
        total = torch.sqrt(sum((p.grad ** 2).sum() for p in params))
        for p in params:
            p.grad.mul_(min(1.0, kappa / float(total)))
        return total
    fails(lab, "checkpoint_3b", no_skip, match=r"raised an error, called with a parameter whose .grad is None")

    def returns_per_parameter_norms(params, kappa):          # float() of a list, inside the checkpoint
        params = [p for p in params if p.grad is not None]
        total = _total_norm(params)
        for p in params:
            p.grad.mul_(min(1.0, kappa / float(total)))
        return [p.grad.norm() for p in params]
    fails(lab, "checkpoint_3b", returns_per_parameter_norms, match=r"should return the total norm before clipping, one "
                                                                    r"number \(5.0000\); got a list of 2")

    def returns_a_float(params, kappa):                      # fine: the demonstration reads float(norm)
        params = [p for p in params if p.grad is not None]
        total = float(_total_norm(params))
        for p in params:
            p.grad.mul_(min(1.0, kappa / total))
        return total
    lab["checkpoint_3b"](returns_a_float)


def test_checkpoint_3a_accepts_valid_and_rejects_broken_curves(lab, capsys):
    curve = 0.5 * 0.8 ** np.arange(200)
    curve[150:] = 0.0
    lab["checkpoint_3a"](curve, 5.2)
    above_bound = curve.copy()
    above_bound[10] = 10.0
    fails(lab, "checkpoint_3a", above_bound, 1.0, match=r"exceeds the bound of Equation 8")
    with_nan = curve.copy()
    with_nan[120:] = np.inf                                 # a diverged model's gradient overflows (issue 41)
    with_nan[121:] = np.nan
    capsys.readouterr()
    lab["checkpoint_3a"](with_nan, 150.0)                  # warns, passes nothing it cannot check, and the lab runs on
    assert re.search(r"not a finite number from distance 120 on: .*diverged in training", capsys.readouterr().out)
    negative = curve.copy()
    negative[3] = -1.0
    fails(lab, "checkpoint_3a", negative, 5.2, match=r"non-negative")
    fails(lab, "checkpoint_3a", np.zeros(200), 5.2, match=r"distance 0 is zero")
    fails(lab, "checkpoint_3a", curve[:20], 5.2, match=r"at least 51")


def test_grad_by_distance_matches_manual_jacobian_product(lab):
    """On a tiny RNN, the provided measurement equals ||dL/dh_T|| times the product of Equation 7's
    one-step Jacobians, computed by hand."""
    torch.manual_seed(0)
    model = lab["RNNLM"](65, d=3, d_h=4)
    x, y = torch.randint(0, 65, (1, 6)), torch.randint(0, 65, (1,))
    grads = lab["grad_by_distance"](model, x, y)
    assert grads.shape == (1, 6, 4) and grads.dtype == torch.float32
    measured = lab["norm_by_distance"](grads)
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


def test_norms_do_not_underflow_and_zero_distances_are_told_apart(lab):
    """Entries of 1e-23 have float32 squares of 0: a float32 norm reads 0, the float64 norm is 16 x 1e-23."""
    grads = torch.zeros(2, 5, 256)
    grads[:, 0] = 1.0
    grads[:, 1] = 1e-23
    grads[0, 2, 0] = 1e-44                                   # one subnormal entry left in one chunk
    norms = lab["norm_by_distance"](grads)
    assert norms.dtype == np.float64
    assert norms[1] == pytest.approx(16e-23, rel=1e-6) and norms[0] == pytest.approx(16.0)
    assert float(grads[0, 1].norm()) == 0.0                  # the artifact the lab no longer records as the gradient
    first = lab["first_distance"]
    assert first((grads.norm(dim=2) == 0).all(dim=0)) == 1
    assert first((grads == 0).all(dim=2).all(dim=0)) == 3
    assert first(np.zeros(4, dtype=bool)) is None


def test_forget_gate_histogram_bins(lab):
    edges = np.asarray(lab["FORGET_EDGES"])
    widths = np.diff(edges)
    assert edges[0] == 0.0 and edges[-1] == 1.0 and np.all(widths > 0)
    assert np.all(widths[edges[:-1] >= 0.99 - 1e-12] <= 0.001 + 1e-12) and np.all(widths <= 0.01 + 1e-12)
    values = torch.tensor([0.0, 0.005, 0.5, 0.9905, 0.99995, 1.0])
    h = lab["histogram"](values, edges)
    assert len(h["counts"]) == len(h["edges"]) - 1 and sum(h["counts"]) == 6
    counts = dict(zip(h["edges"][:-1], h["counts"]))
    assert counts[0.0] == 2 and counts[0.5] == 1 and counts[0.99] == 1 and counts[0.9999] == 2


def test_direct_path_products_multiply_the_last_gates_of_each_unit(lab):
    """Equation 11: d c_T / d c_(T-k) along the direct path is the product of the last k gates, per chunk and unit."""
    T, chunks, d_h = 6, 2, 3
    gates = torch.full((T, chunks, d_h), 0.5)
    gates[0] = 0.0                                            # the first step is outside the last 5: no effect
    gates[:, 1, 2] = 1.0                                      # a unit that keeps everything
    gates[-1, 0, 1] = 0.1                                     # the last step counts
    every_k = lab["direct_path_products"](gates)                # index k - 1
    assert every_k.shape == (T, chunks, d_h) and every_k.dtype == torch.float64
    products = every_k[5 - 1]
    expected = torch.full((chunks, d_h), 0.5 ** 5, dtype=torch.float64)
    expected[1, 2], expected[0, 1] = 1.0, 0.5 ** 4 * 0.1
    torch.testing.assert_close(products, expected)
    # the same as autograd through the cell update with the gates held fixed (the direct path), at every k
    for k in range(1, T + 1):
        c0 = torch.ones(chunks, d_h, dtype=torch.float64, requires_grad=True)
        c = c0
        for f in gates[-k:].double():
            c = f * c + 0.3                                    # i * c_tilde: held fixed, no path back to c0
        c.sum().backward()
        torch.testing.assert_close(c0.grad, every_k[k - 1])


def test_direct_path_by_distance_counts_and_carries_at_every_distance(lab):
    """Counts above each θ, by hand, and what the direct path alone carries, as direct_path_stats computes it."""
    d_h = 2
    gates = torch.tensor([[[0.9, 0.5]], [[0.8, 0.5]], [[1.0, 0.25]]])             # (T = 3, chunks = 1, d_h)
    grads = torch.zeros(1, 3, 2 * d_h)
    grads[0, 0] = torch.tensor([0.0, 0.0, 3.0, 4.0])                                # dL/dc_T = (3, 4), |g_0| = 5
    products = lab["direct_path_products"](gates)              # k = 1: (1, 0.25); k = 2: (0.8, 0.125); k = 3: (0.72, 0.0625)
    r = lab["direct_path_by_distance"](products, grads, [0.1, 0.5, 0.9])
    assert r["distance"] == [1, 2] and r["products"] == 2 and r["theta"] == [0.1, 0.5, 0.9]
    assert r["count_above"] == [[2, 1, 1], [2, 1, 0]]
    for k in (1, 2):
        stats = lab["direct_path_stats"](products[k - 1], grads, k)
        assert math.isclose(r["carried_fall"][k - 1], stats["carried_fall"], rel_tol=1e-12)
    assert math.isclose(r["carried_fall"][0], math.hypot(3 * 1.0, 4 * 0.25) / 5, rel_tol=1e-6)


def test_tanh_saturation_measures_the_states_and_equation_8s_factor(lab):
    """The share of |h| > 0.9, the mean of 1 - h^2 and the geometric mean of max(1 - h^2) ||W||, on a model whose
    states are known: W = 0, U = 0, b gives h = tanh(b) at every step."""
    model = lab["RNNLM"](65)
    with torch.no_grad():
        model.W.zero_(), model.U.zero_()
        model.b.copy_(torch.tensor([3.0] * (model.d_h // 2) + [0.0] * (model.d_h - model.d_h // 2)))
    x = torch.zeros(2, 4, dtype=torch.long)
    s = lab["tanh_saturation"](model, x, 2.0)
    h = math.tanh(3.0)                                          # 0.995: saturated; the other half at 0
    assert math.isclose(s["share_abs_h_above_0.9"], 0.5)
    assert math.isclose(s["mean_tanh_derivative"], ((1 - h * h) + 1.0) / 2, rel_tol=1e-6)
    assert math.isclose(s["bound_factor_per_character"], 2.0, rel_tol=1e-9)   # some unit at 0 each step: max = 1


def test_direct_path_stats_summarize_the_products_and_what_the_direct_path_carries(lab):
    d_h = 2
    products = torch.tensor([[1.0, 0.001], [0.2, 0.6]], dtype=torch.float64)       # (chunks, d_h)
    grads = torch.zeros(2, 3, 2 * d_h)                                              # (chunks, distance, 2 d_h)
    grads[0, 0] = torch.tensor([3.0, 0.0, 4.0, 0.0])          # |g_0| = 5, dL/dc_T = (4, 0): carries 4 * 1.0
    grads[1, 0] = torch.tensor([0.0, 0.0, 0.0, 5.0])          # |g_0| = 5, dL/dc_T = (0, 5): carries 5 * 0.6
    grads[:, 1:] = 7.0                                        # other distances play no part
    st = lab["direct_path_stats"](products, grads, 50)
    assert st["distance"] == 50
    assert st["median"] == pytest.approx(0.4) and st["mean"] == pytest.approx(1.801 / 4) and st["max"] == 1.0
    assert (st["share_above_0.01"], st["share_above_0.1"], st["share_above_0.5"]) == (0.75, 0.75, 0.5)
    assert st["cell_share_at_0"] == pytest.approx((4 + 5) / 2 / 5)
    assert st["carried_fall"] == pytest.approx((4.0 + 3.0) / 2 / 5)
    assert st["kept_share_at_0"] == pytest.approx((4 + 5) / 2 / ((4 + 5) / 2))   # both units carrying dL/dc_T keep > 0.1
    grads[1, 0] = torch.tensor([0.0, 0.0, 2.0, 0.0])         # now on the unit at 0.2, and a unit at 0.001 ...
    products[0, 1], grads[0, 0] = 0.001, torch.tensor([3.0, 0.0, 0.0, 4.0])   # ... takes chunk 0's
    st = lab["direct_path_stats"](products, grads, 50)
    assert st["kept_share_at_0"] == pytest.approx((0 + 2) / 2 / ((4 + 2) / 2))
    assert set(st) == set(lab_schema_direct_path())


def lab_schema_direct_path():
    import json
    from scripts import paths
    schema = json.loads(M3.schema.read_text(encoding="utf-8"))
    return schema["properties"]["gradient_by_distance"]["properties"]["direct_path"]["required"]


def test_final_loss_is_the_mean_of_the_last_ten_steps(lab):
    losses = [float(v) for v in range(1, 31)]                 # 1, ..., 30: the last ten are 21, ..., 30
    assert lab["final_loss"](losses) == pytest.approx(25.5)
    assert lab["final_loss"](losses[:5]) == pytest.approx(3.0)   # fewer than ten steps: all of them
    assert lab["final_loss"](losses[:-1] + [float("nan")]) is None
    assert lab["final_loss"]([float("inf")] + losses) == pytest.approx(25.5)   # an early blow-up is not the end


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

    def swapped(x, h, c, p):
        return lab["lstm_cell_step"](x, h, c, p)[::-1]
    fails(lab, "checkpoint_4", swapped, match=r"you return \(c_t, h_t\).*return h, c")

    @torch.no_grad()
    def under_no_grad(x, h, c, p):                           # the LSTM's gradient measurement needs the graph
        return lab["lstm_cell_step"](x, h, c, p)
    fails(lab, "checkpoint_4", under_no_grad, match=r"\(h_t, c_t\) does not carry gradients")

    def detached_c(x, h, c, p):
        return lab["lstm_cell_step"](x, h, c.detach(), p)
    fails(lab, "checkpoint_4", detached_c, match=r"carries no gradient back to c_prev")

    def in_place(x, h, c, p):
        f, i, o, c_tilde = gates(x, h, p)
        c.mul_(f).add_(i * c_tilde)
        return o * torch.tanh(c), c
    fails(lab, "checkpoint_4", in_place, match=r"raised an error, called as the LSTM's gradient measurement calls it "
                                               r"at every step:\n    the call: .*\n    RuntimeError: .*in-place")

    as_list = lambda x, h, c, p: list(lab["lstm_cell_step"](x, h, c, p))  # noqa: E731 - h, c = [...] works
    lab["checkpoint_4"](as_list)


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


# --- Exercise 5 and the Challenge ----------------------------------------------------------------

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
    fails(lab, "checkpoint_5", times_tau, match=r"at tau = 0.5, 20,000 draws on z = \(0, 2, -1, 1\) gave the "
                                                r"frequencies .*The logits were multiplied by tau")

    def no_generator(logits, tau, generator=None):
        probs = torch.softmax(logits / tau, dim=-1)
        return torch.multinomial(probs.reshape(-1, probs.shape[-1]), 1).reshape(probs.shape[:-1])
    fails(lab, "checkpoint_5", no_generator, match=r"two generators of the same seed gave different draws.*generator=generator")

    def squeezed(logits, tau, generator=None):                # (1, |V|) -> shape (), not (1,)
        probs = torch.softmax(logits / tau, dim=-1)
        return torch.multinomial(probs.reshape(-1, probs.shape[-1]), 1, generator=generator).squeeze()
    def divides_in_place(logits, tau, generator=None):        # changes the caller's logits
        probs = torch.softmax(logits.div_(tau), dim=-1)
        return torch.multinomial(probs.reshape(-1, probs.shape[-1]), 1, generator=generator).reshape(probs.shape[:-1])
    message = fails(lab, "checkpoint_5", divides_in_place, match=r"`divides_in_place` raised an error")
    assert "compute a new tensor instead, a = a + b" in message

    fails(lab, "checkpoint_5", squeezed, match=r"logits of shape \(1, \|V\|\) \(what generate\(\) passes\) has shape \(\)")


def test_challenge_filters(lab, student, capsys):
    assert lab["checkpoint_challenge"](lab["top_k_filter"], lab["nucleus_filter"]) is True
    # skipping the optional challenge is not an error: Run All goes on
    assert lab["checkpoint_challenge"](student["top_k_filter"], student["nucleus_filter"]) is False
    assert "skipped (`top_k_filter` and `nucleus_filter` not written yet)" in capsys.readouterr().out
    assert lab["checkpoint_challenge"](lab["top_k_filter"], student["nucleus_filter"]) is False
    assert "skipped (`nucleus_filter` not written yet)" in capsys.readouterr().out
    probs = torch.tensor([0.50, 0.30, 0.15, 0.05])
    kept = torch.softmax(lab["nucleus_filter"](probs.log(), 0.9), dim=-1)
    np.testing.assert_allclose(kept.numpy(), [0.526, 0.316, 0.158, 0.0], atol=1e-3)   # the spec's answer

    def nucleus_off_by_one(logits, p):   # keeps tokens until the mass *exceeds* p, one too few
        probs, order = torch.softmax(logits, -1).sort(-1, descending=True)
        drop = probs.cumsum(-1) > p
        return logits.masked_fill(drop.scatter(-1, order, drop), float("-inf"))
    fails(lab, "checkpoint_challenge", lab["top_k_filter"], nucleus_off_by_one,
          match=r"nucleus_filter.*keeps 2 of the 4 tokens, \[1, 3\]; expected 3, \[0, 1, 3\]")

    def top_k_keeping_ties(logits, k):                       # keeps everything >= the k-th largest: fine unless tied
        return logits.masked_fill(logits < torch.topk(logits, k, dim=-1).values[..., -1:], float("-inf"))
    lab["checkpoint_challenge"](top_k_keeping_ties, lab["nucleus_filter"])

    def top_k_plus_one(logits, k):
        return lab["top_k_filter"](logits, k + 1)
    fails(lab, "checkpoint_challenge", top_k_plus_one, lab["nucleus_filter"], match=r"top_k_plus_one.*keeps 3 of the 4 tokens, \[0, 1, 3\]; expected 2, \[1, 3\]")


# --- scaffolding ----------------------------------------------------------------------------------

def test_parameter_counts(lab):
    assert lab["count_parameters"](lab["RNNLM"](65)) == 103_041
    lstm = lab["LSTMLM"](65)
    assert lab["count_parameters"](lstm) == 350_593
    d_h = 256
    b_f = lstm.lstm.bias_ih_l0[d_h:2 * d_h] + lstm.lstm.bias_hh_l0[d_h:2 * d_h]
    assert torch.all(b_f == 1.0), "the forget-gate bias starts at 1"


def test_settings_are_overridable_from_outside(monkeypatch):
    monkeypatch.setenv("LAB_SETTINGS", "quick")
    monkeypatch.setenv("LAB_DEVICE", "cpu")
    quick = load_lab(M3, "solution")
    assert quick["SETTINGS_NAME"] == "quick" and quick["S"].rnn_steps < 100 and str(quick["DEVICE"]) == "cpu"
    full = quick["SETTINGS_PRESETS"]["full"]
    assert (full["rnn_steps"], full["lstm_steps"], full["batch_size"], full["chunk_len"]) == (1000, 2000, 64, 128)
    assert (full["grad_chunks"], full["grad_chunk_len"], full["sgd_steps"], full["sgd_lr"]) == (64, 200, 150, 2.0)
    monkeypatch.setenv("LAB_SETTINGS", "huge")
    with pytest.raises(ValueError, match="LAB_SETTINGS='huge'"):
        load_lab(M3, "solution")


def test_corpus_errors_are_clear(lab, tmp_path, monkeypatch):
    monkeypatch.delenv("LAB_CORPUS", raising=False)
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


def test_training_stops_on_a_non_finite_loss_and_names_the_step(monkeypatch, capsys):
    """A diverged run (issue 41): training stops at the step whose loss is not finite, the model keeps the weights
    of the step before (finite), and the lab runs on, so the results file is still written."""
    monkeypatch.setenv("LAB_SETTINGS", "quick")
    monkeypatch.setenv("LAB_DEVICE", "cpu")
    lab = load_lab(M3, "solution")
    lab["split_ids"] = {"train": np.random.default_rng(0).integers(0, 65, 5000)}
    calls = {"n": 0}
    real_loss = lab["lm_loss_and_ppl"]

    def loss_turning_nan(logits, targets):         # a student's loss that breaks on the third step
        calls["n"] += 1
        loss, ppl, bpc = real_loss(logits, targets)
        return (loss * float("nan") if calls["n"] == 3 else loss), ppl, bpc
    lab["lm_loss_and_ppl"] = loss_turning_nan
    model = lab["RNNLM"](65, d=4, d_h=8)
    losses = lab["train_lm"](model, 5, "RNN")
    assert len(losses) == 2 and all(math.isfinite(v) for v in losses), losses
    assert all(torch.isfinite(p).all() for p in model.parameters())
    assert calls["n"] == 3, "no step after the non-finite loss"
    assert re.search(r"training RNN: the loss became nan at step 3 of 5: the run diverged\. Training stops here, "
                     r"the model keeps its weights of step 2", capsys.readouterr().out)


# --- checkpoint messages a student can act on (issue 17) -------------------------------------------------

def test_a_shape_error_names_the_call_the_dimensions_and_which_matrix_met_which(lab):
    def u_on_h(x_t, h_prev, W, U, b):                        # U applied to the hidden state instead of x_t
        return torch.tanh(h_prev @ W.T + h_prev @ U.T + b)
    message = fails(lab, "checkpoint_1", u_on_h, match=r"`u_on_h` raised an error, called as RNNLM calls it")
    assert "the call: u_on_h(x_t: (4, 5) = (B, d), h_prev: (4, 7) = (B, d_h), W: (7, 7) = (d_h, d_h), " \
           "U: (7, 5) = (d_h, d), b: (7,) = (d_h,)), with B = 4, d = 5, d_h = 7" in message
    assert "mat1 and mat2 shapes cannot be multiplied (4x7 and 5x7)" in message
    assert "In A @ M, A is (4, 7) = (B, d_h) (h_prev, or a result of that shape) and M is (5, 7) = (d, d_h) (U.T, " \
           "or a result of that shape): A's last dimension (d_h = 7) must equal M's first (d = 5)." in message
    assert "h_prev @ W.T is (B, d_h) @ (d_h, d_h); x_t @ U.T is (B, d) @ (d, d_h)" in message

    def gate_on_x(x_t, h_prev, c_prev, p):                   # an elementwise product of the wrong pair
        f = torch.sigmoid(h_prev @ p.W_f.T + x_t @ p.U_f.T + p.b_f)
        i = torch.sigmoid(h_prev @ p.W_i.T + x_t @ p.U_i.T + p.b_i)
        o = torch.sigmoid(h_prev @ p.W_o.T + x_t @ p.U_o.T + p.b_o)
        c_tilde = torch.tanh(h_prev @ p.W_c.T + x_t @ p.U_c.T + p.b_c)
        c = f * x_t + i * c_tilde
        return o * torch.tanh(c), c
    message = fails(lab, "checkpoint_4", gate_on_x, match=r"`gate_on_x` raised an error, called as the LSTM's")
    assert "p: (W_* (d_h, d_h), U_* (d_h, d), b_* (d_h,))), with B = 4, d = 5, d_h = 6; h_prev, c_prev carry " \
           "gradients" in message
    assert "An elementwise operation (+, -, *) met a tensor whose dimension 1 is d_h = 6 and one whose dimension 1 " \
           "is d = 5" in message
    assert "f * c_prev is elementwise, (B, d_h) * (B, d_h)" in message


def test_numpy_on_a_tensor_that_carries_gradients_says_stay_in_torch(lab):
    def numpy_tanh(x_t, h_prev, W, U, b):                    # np.tanh on a tensor that requires grad
        return torch.as_tensor(np.tanh(h_prev @ W.T + x_t @ U.T + b))
    message = fails(lab, "checkpoint_1", numpy_tanh, match=r"NumPy was called on a tensor that carries gradients")
    assert "Stay in torch: torch.tanh" in message and "would cut them" in message
    assert "Use tensor.detach().numpy() instead" not in message
    assert "at line" in message and "np.tanh(h_prev @ W.T" in message

    def numpy_loss(logits, targets):                          # .numpy() on the logits, which carry gradients
        logp = np.log(np.exp(logits.numpy()) / np.exp(logits.numpy()).sum(-1, keepdims=True))
        loss = torch.tensor(-np.take_along_axis(logp, targets.numpy()[..., None], -1).mean())
        return loss, torch.exp(loss), loss / math.log(2)
    message = fails(lab, "checkpoint_2", numpy_loss, match=r"called on random logits that carry gradients, shaped as "
                                                           r"training passes them:\n    the call: numpy_loss\(logits: "
                                                           r"\(3, 11, 65\) = \(B, T, \|V\|\), targets")
    assert "Stay in torch" in message and ".detach().numpy() instead" not in message


def test_a_cause_is_named_only_when_the_output_shows_it(lab):
    def no_log_softmax(logits, targets):                      # -z[target]: 0 on equal logits, so perplexity 1
        loss = -logits.gather(-1, targets[..., None]).mean()
        return loss, torch.exp(loss), loss / math.log(2)
    message = fails(lab, "checkpoint_2", no_log_softmax, match=r"perplexity exactly \|V\| = 65, got 1.0000; the loss "
                                                               r"should be ln 65 = 4.1744, got -?0.0000")
    assert "the log-softmax looks missing" in message and "the perplexity is exp(loss)" not in message

    def ppl_of_sum(logits, targets):                          # right loss, perplexity from the summed loss
        nll = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), reduction="none")
        return nll.mean(), torch.exp(nll.sum()), nll.mean() / math.log(2)
    message = fails(lab, "checkpoint_2", ppl_of_sum, match=r"perplexity exactly")
    assert "Your loss is right (ln 65); the perplexity is exp(loss)" in message

    def squares_instead_of_softmax(logits, targets):          # a loss that is none of the known mistakes
        loss = (logits.reshape(-1, logits.shape[-1]) ** 2).mean() + math.log(logits.shape[-1])
        return loss, torch.exp(loss), loss / math.log(2)
    message = fails(lab, "checkpoint_2", squares_instead_of_softmax, match=r"loss \d\.\d{6} differs from "
                                                                           r"F.cross_entropy \d\.\d{6}\. To find where")
    assert "On one position" in message                     # what the probe measured, and no cause it did not see
    assert not any(cause in message for cause in ("label smoothing", "log-softmax is missing", "bits", "moved by one"))

    def condition_reversed(params, kappa):                    # in place, but clips when ||g|| < kappa
        params = [p for p in params if p.grad is not None]
        total = _total_norm(params)
        if total < kappa:
            for p in params:
                p.grad.mul_(kappa / total)
        return total
    message = fails(lab, "checkpoint_3b", condition_reversed, match=r"kappa = 1: the gradients were left unchanged "
                                                                     r"although \|\|g\|\| = 5.0000 > kappa = 1")
    assert "your function changed them at kappa = 10, 100. Clip exactly when ||g|| > kappa" in message
    assert "in place" not in message

    def wrong_values(x_t, h_prev, W, U, b):                   # no known mistake: expected against got
        return torch.tanh(h_prev @ W.T + x_t @ U.T + 2 * b)
    message = fails(lab, "checkpoint_1", wrong_values, match=r"differs from nn.RNNCell by up to .*: on the first row, "
                                                             r"expected \(-?\d\.\d{4}, .*\), got \(")
    assert "common mistake" not in message


def test_every_call_in_a_checkpoint_is_framed_as_the_lab_makes_it(lab):
    def exp_without_softmax(logits, tau, generator=None):     # fine at tau = 0.5..2; exp(2 / 0.01) is inf
        weights = torch.exp(logits / tau)
        return torch.multinomial(weights.reshape(-1, weights.shape[-1]), 1, generator=generator).reshape(weights.shape[:-1])
    message = fails(lab, "checkpoint_5", exp_without_softmax, match=r"raised an error, called at a very small tau = "
                                                                    r"0.01 \(each draw must be the row's arg max\):")
    assert "the call: exp_without_softmax(logits: (1000, 4) = (N, |V|), tau: 0.01, generator: a torch.Generator), " \
           "with N = 1,000, |V| = 4" in message

    def only_2d(logits, tau, generator=None):                 # torch.multinomial takes 1-D or 2-D only
        return torch.multinomial(torch.softmax(logits / tau, -1), 1, generator=generator).squeeze(-1)
    message = fails(lab, "checkpoint_5", only_2d, match=r"called on logits of shape \(2, 3, \|V\|\): one draw per row")
    assert "only_2d(logits: (2, 3, 7) = (2, 3, |V|), tau: 1.0" in message

    def crashes_on_generators(params, kappa):                 # len() of model.parameters()
        total = torch.sqrt(sum((params[i].grad ** 2).sum() for i in range(len(params))))
        for p in params:
            p.grad.mul_(min(1.0, kappa / float(total)))
        return total
    message = fails(lab, "checkpoint_3b", crashes_on_generators,
                    match=r"called as the clipping demonstration does, with model.parameters\(\):\n    the call: "
                          r"crashes_on_generators\(params: a generator of parameters \(readable once, like "
                          r"model.parameters\(\)\), kappa: 1.0\)")
    assert "TypeError: object of type 'generator' has no len()" in message


@pytest.mark.parametrize("prediction, warned", [
    ("", True), ("   ", True), ("TODO", True), ("todo: ...", True), ("?", True), ("My prediction", True),
    ("it shrinks, by a constant factor per character", False), ("grows", False),
])
def test_a_blank_or_placeholder_prediction_is_asked_for(lab, prediction, warned):
    note = lab["prediction_note"]({"my_prediction_3a": prediction})
    assert note.startswith("⚠️ Exercise 3A: no prediction in `my_prediction_3a` yet") is warned
    if warned:
        assert "Before you read the numbers below or the plot" in note
    else:
        assert note == f"your prediction (saved with your results): {prediction}"


def test_the_first_cell_stops_on_a_torch_older_than_the_lab_needs(lab):
    assert lab["version_tuple"]("2.13.0+cpu") == (2, 13) and lab["version_tuple"]("1.13.1") == (1, 13)
    assert lab["version_tuple"]("2.1.0a0+git123") == (2, 1) and lab["version_tuple"]("3") == (3, 0)
    lab["check_torch"]("2.0.0", (2, 0))
    with pytest.raises(RuntimeError, match=r"this lab needs torch 2.0 or newer; this runtime has torch 1.13.1\. In "
                                           r"Colab: Runtime → Disconnect and delete runtime"):
        lab["check_torch"]("1.13.1", (2, 0))


# --- the n-gram baseline's grid and the evaluation's state, tested with their own subject (issue 17) -------

def test_ngram_k_is_chosen_from_lab_1s_grid_on_validation(lab):
    assert lab["K_GRID"] == (1, 0.1, 0.01, 0.001)           # Lab 1's grid, as the spec gives it
    best = {1: 1, 2: 0.1, 3: 0.1, 4: 0.01, 5: 0.001}
    val = {(n, k): 3.0 - 0.1 * n + (0.0 if k == best[n] else 0.5) for n in range(1, 6) for k in lab["K_GRID"]}
    val[4, 0.01] = 1.0                                       # n = 4 wins, at its best k
    best_k, best_n = lab["choose_on_validation"](val)
    assert best_k == best and best_n == 4
    assert lab["choose_on_validation"]({(2, 1): 2.0, (2, 0.1): 2.0}, k_grid=(1, 0.1)) == ({2: 1}, 2)   # a tie: first
    assert lab["choose_on_validation"]({(2, k): 2.5 - k for k in lab["K_GRID"]}) == ({2: 1}, 2)       # k = 1 can win


def test_evaluate_carries_the_state_across_chunks(lab, monkeypatch):
    """One stream in chunks, the state carried from chunk to chunk: the same loss as one pass over the whole
    stream (after the same warm-up of one chunk before the split). Resetting the state at each chunk differs."""
    torch.manual_seed(0)
    model = lab["RNNLM"](5, d=3, d_h=4)
    with torch.no_grad():
        model.W.mul_(6)                                      # a state that matters from chunk to chunk
    ids = np.random.default_rng(1).integers(0, 5, size=80)
    a, b = 20, 57
    monkeypatch.setitem(lab, "ids", ids)
    monkeypatch.setitem(lab, "SPLIT", {"train": (0, a), "val": (a, b), "test": (b, 80)})
    monkeypatch.setitem(lab, "DEVICE", torch.device("cpu"))
    for chunk in (7, 4, 3):                                 # the last, 3, for the reset below
        monkeypatch.setitem(lab, "S", SimpleNamespace(**{**vars(lab["S"]), "eval_chunk": chunk}))
        stream = torch.from_numpy(ids[a - chunk - 1:b])      # the warm-up: one chunk before the split
        with torch.no_grad():
            logits = model(stream[:-1][None])[0][0, chunk:]
        one_pass = float(F.cross_entropy(logits, stream[chunk + 1:]))
        assert lab["evaluate"](model, "val")["test_nats"] == pytest.approx(one_pass, rel=1e-5), chunk

    real_forward = model.forward
    monkeypatch.setattr(model, "forward", lambda x, h=None, **kw: real_forward(x, None, **kw))   # state reset
    assert lab["evaluate"](model, "val")["test_nats"] != pytest.approx(one_pass, rel=1e-2)   # the test can tell


# --------------------------------------------------------------------------------------------
# the lab: evaluation carries the state; final_loss is the end of the run
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def lab():
    return load_lab(M3, "solution")


def hand_rolled_nats(model, ids, first, last, warm, reset_every=None):
    """Mean -log p(ids[j + 1] | ids[..j]) over j in [first, last), running the RNN one character at a
    time (in float64) from h = 0 at index first - warm; reset_every=n starts each n-character chunk
    from h = 0 again (the bug)."""
    W, U, b = (p.detach().double() for p in (model.W, model.U, model.b))
    E, Wo, bo = (p.detach().double() for p in (model.embed.weight, model.out.weight, model.out.bias))
    h, total = torch.zeros(W.shape[0], dtype=torch.float64), 0.0
    for k, j in enumerate(range(first - warm, last)):
        if reset_every and k % reset_every == 0:
            h = torch.zeros_like(h)
        h = torch.tanh(W @ h + U @ E[ids[j]] + b)
        if j >= first:
            logits = Wo @ h + bo
            total += float(torch.logsumexp(logits, 0) - logits[ids[j + 1]])
    return total / (last - first)


def test_evaluate_carries_the_state_across_chunks(lab, monkeypatch):
    torch.manual_seed(0)
    model = lab["RNNLM"](5, d=3, d_h=4)
    with torch.no_grad():
        model.W.mul_(6)                                   # a state that matters from chunk to chunk
    ids = np.random.default_rng(0).integers(0, 5, size=60)
    chunk = 4
    monkeypatch.setitem(lab, "ids", ids)
    monkeypatch.setitem(lab, "SPLIT", {"train": (0, 30), "val": (30, 45), "test": (45, 60)})
    monkeypatch.setitem(lab, "S", SimpleNamespace(**{**vars(lab["S"]), "eval_chunk": chunk}))
    monkeypatch.setitem(lab, "DEVICE", torch.device("cpu"))

    got = lab["evaluate"](model, "val")["test_nats"]
    # val is ids[30:45]: character j predicts j + 1, so inputs 29..43, after a warm-up of one chunk
    carried = hand_rolled_nats(model, ids, first=29, last=44, warm=chunk)
    reset = hand_rolled_nats(model, ids, first=29, last=44, warm=chunk, reset_every=chunk)
    assert abs(carried - reset) > 1e-2                    # the test can tell the two apart
    assert got == pytest.approx(carried, rel=1e-5)


def test_final_loss_is_the_mean_of_the_last_steps(lab):
    losses = [float(step) for step in range(1, 31)]       # 1, 2, ..., 30
    assert lab["final_loss"](losses) == pytest.approx((21 + 30) / 2)   # mean of 21..30, not of 1..10
    assert lab["final_loss"](losses, last=3) == pytest.approx(29.0)
    assert lab["final_loss"]([float("nan")] + losses) == pytest.approx(25.5)   # only the tail counts
    assert lab["final_loss"](losses + [float("inf")]) is None
