"""Module 3's inputs for `make lab-mutants` (scripts/ci/lab_mutants.py): for each exercise function, the calls
on which a mutant's output is compared with the reference solution's, at the lab's own sizes and dtypes.  A
mutant whose outputs (and, where the lab trains through the function, gradients) all equal the reference's on
these calls is equivalent: no checkpoint could or should stop it.

Each entry maps a function name to `calls(ns)`, which returns a list of zero-argument callables; each callable
runs the function (ns[name], the mutant or the reference) once and returns what to compare (tensors, numbers,
or tuples of them).  Everything is seeded: the same mutant always gets the same verdict.
"""
from __future__ import annotations


def _grads(torch, out, leaves):
    """The output, and the gradient of a fixed weighting of it with respect to each leaf (None when unused)."""
    outs = out if isinstance(out, (tuple, list)) else (out,)
    tensors = [t for t in outs if torch.is_tensor(t) and t.requires_grad]
    if not tensors:
        return tuple(outs)
    total = sum((t.double() * torch.linspace(-1, 1, t.numel(), dtype=torch.float64).reshape(t.shape)).sum()
                for t in tensors)
    grads = torch.autograd.grad(total, leaves, allow_unused=True)
    return tuple(outs) + tuple(grads)


def calls(ns):
    torch, nn, SimpleNamespace = ns["torch"], ns["nn"], ns["SimpleNamespace"]
    torch.manual_seed(42)                       # nn.RNNCell and nn.LSTMCell draw their weights from it
    g = torch.Generator().manual_seed(42)
    B, T, d, d_h, V = 64, 128, ns["D_EMBED"], ns["D_HIDDEN"], 65
    rnn = nn.RNNCell(d, d_h)
    lstm = nn.LSTMCell(d, d_h)
    x, h = torch.randn(B, 2, d, generator=g)[:, 0], torch.randn(B, d_h, generator=g)
    c = torch.randn(B, d_h, generator=g)
    logits3 = torch.randn(B, 8, V, generator=g) * 2
    targets3 = torch.randint(0, V, (B, 9), generator=g)[:, 1:]
    peaky = torch.randn(5, V, generator=g) * 3

    def leaf(t):
        return t.detach().clone().requires_grad_(True)

    def rnn_call():
        leaves = [leaf(x), leaf(h), leaf(rnn.weight_hh), leaf(rnn.weight_ih), leaf(rnn.bias_ih + rnn.bias_hh)]
        return _grads(torch, ns["rnn_cell_step"](*leaves), leaves)

    def loss_call(logits, targets):
        def run():
            z = leaf(logits)
            return _grads(torch, ns["lm_loss_and_ppl"](z, targets), [z])
        return run

    def clip_call(kappa, as_generator):
        def run():
            gg = torch.Generator().manual_seed(int(kappa * 100))
            params = [nn.Parameter(torch.randn(s, generator=gg)) for s in ((7, 3), (5,), (2, 2))]
            for p in params:
                p.grad = torch.randn(p.shape, generator=gg) * 3
            total = ns["clip_gradients"]((p for p in params) if as_generator else params, kappa)
            return (total,) + tuple(p.grad for p in params)
        return run

    def lstm_call():
        hh, cc = leaf(h), leaf(c)
        p = ns["lstm_params_from"](lstm.weight_ih, lstm.weight_hh, lstm.bias_ih + lstm.bias_hh)
        return _grads(torch, ns["lstm_cell_step"](x, hh, cc, p), [hh, cc])

    def sample_call(logits, tau, calls=1):
        def run():
            gen = torch.Generator().manual_seed(5)
            return tuple(ns["sample_with_temperature"](logits, tau, gen) for _ in range(calls))
        return run

    def filter_call(name, arg, logits):
        return lambda: ns[name](logits, arg)

    return {
        "rnn_cell_step": [rnn_call],
        "lm_loss_and_ppl": [loss_call(logits3, targets3), loss_call(logits3.reshape(-1, V), targets3.reshape(-1)),
                            loss_call(torch.log_softmax(logits3.double(), -1).reshape(-1, V), targets3.reshape(-1))],
        "clip_gradients": [clip_call(k, gen) for k in (0.3, 1.0, 5.0, 100.0) for gen in (False, True)],
        "lstm_cell_step": [lstm_call],
        "sample_with_temperature": [sample_call(peaky, tau) for tau in (0.5, 1.0, 2.0)]
                                   + [sample_call(peaky[:1], 1.0, calls=50), sample_call(logits3[:2, :3], 1.0)],
        "top_k_filter": [filter_call("top_k_filter", k, z) for k in (1, 5, 10) for z in (peaky, logits3[:2, :3])],
        "nucleus_filter": [filter_call("nucleus_filter", p, z) for p in (0.5, 0.9, 0.99) for z in (peaky, logits3[:2, :3])],
    }
