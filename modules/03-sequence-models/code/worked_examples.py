"""The briefing's two worked examples, computed with the lab's own code (scripts/measure/worked_examples.py
writes them to data/<id>/worked_examples.json with their provenance).

one_unit_rnn  the one-step factor dh_t/dh_{t-1} of the lab's `rnn_cell_step` with d = d_h = 1, by
              autograd, in the three cases of section 4 (weight w, state h_t arranged by the input)
temperature   softmax(z / tau) for the logits z = (2, 1, 0) at three temperatures, and the frequencies
              of 20,000 draws (seed 0) from the lab's `sample_with_temperature`, which must agree

The pages never run this: page_data.py formats the committed file.
"""
from __future__ import annotations

import math

ONE_UNIT_CASES = ({"w": 0.9, "h": 0.0, "distance": 50},
                  {"w": 2.0, "h": 0.0, "distance": 20},
                  {"w": 2.0, "h": 0.9, "distance": 20})
LOGITS = (2.0, 1.0, 0.0)
TEMPERATURES = (0.5, 1.0, 2.0)
DRAWS, SEED = 20_000, 0
PROVENANCE = {"seed": SEED}     # added to the file's provenance
AGREEMENT = 0.02     # largest allowed gap between a sampled frequency and its probability


def one_step_factor(rnn_cell_step, w: float, h: float) -> float:
    """dh_t/dh_{t-1} of one step of the lab's cell (d = d_h = 1, W = w, U = 1, b = 0, h_{t-1} = 0),
    with the input x_t = atanh(h) chosen so that the new state is h_t = h."""
    import torch

    as_matrix = lambda v: torch.tensor([[v]], dtype=torch.float64)  # noqa: E731
    h_prev = torch.zeros(1, 1, dtype=torch.float64, requires_grad=True)
    h_t = rnn_cell_step(as_matrix(math.atanh(h)), h_prev, as_matrix(w), as_matrix(1.0),
                        torch.zeros(1, dtype=torch.float64))
    (grad,) = torch.autograd.grad(h_t.sum(), h_prev)
    return float(grad)


def temperature_rows(sample_with_temperature) -> list[dict]:
    import torch

    z = torch.tensor(LOGITS, dtype=torch.float64)
    rows = []
    for tau in TEMPERATURES:
        probs = torch.softmax(z / tau, dim=-1)
        draws = sample_with_temperature(z.float().expand(DRAWS, len(LOGITS)), tau,
                                        generator=torch.Generator().manual_seed(SEED))
        freq = torch.bincount(draws.flatten(), minlength=len(LOGITS)).double() / DRAWS
        if (freq - probs).abs().max() > AGREEMENT:
            raise SystemExit(f"worked_examples: the lab's sample_with_temperature disagrees with softmax(z/tau) "
                             f"at tau={tau}: frequencies {freq.tolist()} against {probs.tolist()}")
        rows.append({"tau": tau, "probs": probs.tolist(), "frequencies": freq.tolist()})
    return rows


def compute(lab: dict) -> dict:
    """The worked examples, from the lab's definitions (scripts/measure/worked_examples.py adds the provenance)."""
    return {
        "one_unit_rnn": {"cases": [{**case, "factor": one_step_factor(lab["rnn_cell_step"], case["w"], case["h"])}
                                   for case in ONE_UNIT_CASES]},
        "temperature": {"logits": list(LOGITS), "draws": DRAWS, "rows": temperature_rows(lab["sample_with_temperature"])},
    }
