"""Issue 43's measurements in the lab: the one-step Jacobian's norm at every step (Exercise 3A), the gradient chunk
by chunk (beside the means the page quotes), and the CPUs a run had (its provenance)."""
import math
import os

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

from scripts.measure.lab_source import load_lab
from tests.support import this_module

M3 = this_module(__file__)


@pytest.fixture(scope="module")
def lab():
    return load_lab(M3, "solution")


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2 ** 31 - 1), d_h=st.sampled_from([3, 8, 24, 40]), scale=st.floats(0.1, 8.0),
       saturation=st.floats(0.0, 4.0))
def test_step_jacobian_norms_are_the_spectral_norms_and_never_above_them(lab, seed, d_h, scale, saturation):
    """Lanczos against torch.linalg.matrix_norm(diag(1 - h^2) W, 2) on generated weights and states (fewer units
    than Lanczos steps included, where the Krylov space runs out): equal to 1e-6, never above."""
    g = torch.Generator().manual_seed(seed)
    W = torch.randn(d_h, d_h, generator=g) * scale / math.sqrt(d_h)
    h = torch.tanh(torch.randn(3, 5, d_h, generator=g, dtype=torch.float64) * saturation)
    derivative = 1 - h ** 2
    got = lab["step_jacobian_norms"](derivative, W, block=4)            # blocks that do not divide the steps
    want = torch.linalg.matrix_norm(derivative[..., :, None] * W.double(), ord=2)
    assert got.shape == want.shape == (3, 5)
    assert torch.allclose(got, want, rtol=1e-6, atol=1e-12)
    assert bool((got <= want * (1 + 1e-9) + 1e-12).all())


def test_step_jacobian_norms_on_the_lab_size_with_saturated_steps(lab):
    """d_h = 256 as in the lab, with a W of spectral norm about 6 and mostly saturated units, one step exactly 0."""
    g = torch.Generator().manual_seed(3)
    W = torch.randn(256, 256, generator=g) * 6 / (2 * math.sqrt(256))
    h = torch.tanh(torch.randn(2, 4, 256, generator=g, dtype=torch.float64) * 3)
    h[0, 0] = 1.0                                                        # every unit saturated: the Jacobian is 0
    derivative = 1 - h ** 2
    got = lab["step_jacobian_norms"](derivative, W)
    want = torch.linalg.matrix_norm(derivative[..., :, None] * W.double(), ord=2)
    assert float(got[0, 0]) == 0.0
    assert torch.allclose(got, want, rtol=1e-6, atol=1e-12)


def test_tanh_saturation_records_the_one_step_jacobian_and_why_the_bound_is_loose(lab):
    """On a model whose states are known (W = 2 I, U = 0, b: half the units at tanh(3), half at 0): the one-step
    Jacobian is diag(1 - h^2) 2 I, whose norm is 2 (the unsaturated units); the largest 1 - h^2 of each step is 1."""
    model = lab["RNNLM"](65)
    with torch.no_grad():
        model.W.copy_(2 * torch.eye(model.d_h)), model.U.zero_()
        model.b.copy_(torch.tensor([3.0] * (model.d_h // 2) + [0.0] * (model.d_h - model.d_h // 2)))
    # with W = 2 I the state feeds itself: h_t = tanh(2 h_(t-1) + b); units with b = 0 stay at 0
    x = torch.zeros(2, 4, dtype=torch.long)
    s = lab["tanh_saturation"](model, x, 2.0)
    j = s["step_jacobian_norm"]
    assert j["steps"] == 8
    assert math.isclose(j["min"], 2.0, rel_tol=1e-6) and math.isclose(j["max"], 2.0, rel_tol=1e-6)
    assert math.isclose(j["geometric_mean"], 2.0, rel_tol=1e-6) and j["share_below_1"] == 0.0
    assert s["largest_derivative_geometric_mean"] == 1.0
    assert math.isclose(s["bound_factor_per_character"], 2.0 * s["largest_derivative_geometric_mean"], rel_tol=1e-12)
    with torch.no_grad():
        model.W.copy_(0.5 * torch.eye(model.d_h))                       # every step shrinks: norm 0.5
    j = lab["tanh_saturation"](model, x, 0.5)["step_jacobian_norm"]
    assert j["share_below_1"] == 1.0 and math.isclose(j["max"], 0.5, rel_tol=1e-6)


def test_gradient_by_chunk_is_what_the_means_are_made_of(lab):
    """Chunk by chunk on generated gradients and gates: the means over the chunks are norm_by_distance's curves, and
    the direct path's mean over the mean gradient at 0 is direct_path_by_distance's carried share; distance 0 carries
    the cell state's gradient whole; distances beyond the chunk are left out."""
    g = torch.Generator().manual_seed(7)
    chunks, T, d_h = 5, 30, 6
    rnn_grads = torch.randn(chunks, T, d_h, generator=g) * torch.logspace(0, -20, T)[None, :, None]
    lstm_grads = torch.randn(chunks, T, 2 * d_h, generator=g)
    gates = torch.rand(T, chunks, d_h, generator=g)
    products = lab["direct_path_products"](gates)
    bc = lab["gradient_by_chunk"](rnn_grads, lstm_grads, products, (0, 1, 10, 29, 30, 150))
    assert bc["distance"] == [0, 1, 10, 29]
    rnn_mean, lstm_mean = lab["norm_by_distance"](rnn_grads), lab["norm_by_distance"](lstm_grads)
    carried = lab["direct_path_by_distance"](products, lstm_grads, [0.5])["carried_fall"]
    for i, k in enumerate(bc["distance"]):
        assert len(bc["rnn_grad_norm"][i]) == len(bc["lstm_grad_norm"][i]) == len(bc["direct_path_norm"][i]) == chunks
        assert np.mean(bc["rnn_grad_norm"][i]) == pytest.approx(rnn_mean[k], rel=1e-12)
        assert np.mean(bc["lstm_grad_norm"][i]) == pytest.approx(lstm_mean[k], rel=1e-12)
        if k:
            assert np.mean(bc["direct_path_norm"][i]) / lstm_mean[0] == pytest.approx(carried[k - 1], rel=1e-12)
    cell = lstm_grads[:, 0, d_h:].double().norm(dim=1)
    assert bc["direct_path_norm"][0] == pytest.approx(cell.tolist(), rel=1e-12)


def test_the_lab_records_the_cpus_its_run_had(lab):
    """What the provenance says the time depends on: the CPUs this process may use (a container's limit)."""
    got = lab["cpu_count"]()
    assert isinstance(got, int) and got >= 1
    if hasattr(os, "sched_getaffinity"):
        assert got == len(os.sched_getaffinity(0))
    source = M3.lab_source.read_text(encoding="utf-8")
    assert '"cpu_count": cpu_count(), "torch_threads": torch.get_num_threads()' in source
