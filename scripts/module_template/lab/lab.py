# %% [markdown]
# # Lab {{NUMBER}} · {{TITLE}}
#
# One exercise: a `# TODO` stub with a folded hint above it, a folded solution beneath it (tick its
# `use_solution` box if you are stuck) and a checkpoint that passes or fails.

# %% tags=["def"]
import json
import os
import platform
import time
from pathlib import Path

import numpy as np
import torch

SETTINGS_NAME = os.environ.get("LAB_SETTINGS", "full")
TEMPERATURES = {"quick": [0.5, 1.0, 2.0], "full": [0.25, 0.5, 1.0, 2.0, 4.0]}[SETTINGS_NAME]
SEED = 0
DEVICE = torch.device(os.environ.get("LAB_DEVICE") or ("cuda" if torch.cuda.is_available() else "cpu"))
LAB_MODULE = "{{ID}}"              # the course module this lab belongs to, saved with your results
LAB_SOURCE_SHA256 = None            # the notebook's generator writes the lab source's sha256 here
print(f"python {platform.python_version()}, torch {torch.__version__}, numpy {np.__version__}, device {DEVICE}")

# %% [markdown] tags=["hint-1"]
# <details><summary>Hint</summary>
#
# Divide the logits by `tau`, then `torch.softmax(..., dim=-1)`.
# </details>

# %% tags=["def", "exercise-1", "listed"]
def softmax_with_temperature(logits, tau):
    # logits: (..., |V|) scores; returns probabilities of the same shape, each row summing to 1
    ### BEGIN SOLUTION (TODO: divide the logits by tau and take the softmax over the last dimension)
    return torch.softmax(logits / tau, dim=-1)
    ### END SOLUTION


# %% tags=["def", "checkpoint-1"]
def checkpoint_1(fn):
    logits = torch.tensor([[2.0, 1.0, 0.0]])
    try:
        got = fn(logits, 2.0)
    except NotImplementedError:
        print("⬜ Exercise 1: not written yet (write softmax_with_temperature above, then run this cell).")
        return False
    except Exception as err:  # noqa: BLE001 - the student's error, named with the call
        print(f"❌ Exercise 1: softmax_with_temperature(logits of shape (1, 3), tau=2.0) raised "
              f"{type(err).__name__}: {err}")
        return False
    want = torch.softmax(logits / 2.0, dim=-1)
    if not isinstance(got, torch.Tensor) or got.shape != want.shape or not torch.allclose(got, want, atol=1e-6):
        print(f"❌ Exercise 1: at tau = 2 the logits (2, 1, 0) should give {want.tolist()}, got "
              f"{got.tolist() if isinstance(got, torch.Tensor) else got!r}")
        return False
    print("✅ Exercise 1: softmax_with_temperature matches torch.softmax(logits / tau).")
    return True


# %%
checkpoint_1(softmax_with_temperature)

# %% [markdown]
# ## Results
#
# The entropy of the softmax of the same scores at each temperature, saved for the briefing.

# %%
started = time.perf_counter()
logits = torch.tensor([2.0, 1.0, 0.0, -1.0], device=DEVICE)
entropy = []
for tau in TEMPERATURES:
    p = softmax_with_temperature(logits, tau)
    entropy.append(float(-(p * p.log()).sum()))
lab_results = {
    "temperature_sweep": {"tau": TEMPERATURES, "entropy": entropy},
    "lab_run": {"settings": SETTINGS_NAME, "settings_values": {"temperatures": TEMPERATURES}, "seed": SEED,
                "device": torch.cuda.get_device_name(DEVICE) if DEVICE.type == "cuda" else (platform.processor() or "CPU"),
                "device_type": DEVICE.type, "torch": torch.__version__, "python": platform.python_version(),
                "numpy": np.__version__, "corpus_sha256": None,
                "phase_s": {"sweep": time.perf_counter() - started},
                "module": LAB_MODULE, "lab_source_sha256": LAB_SOURCE_SHA256,
                "saved_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())},
}
# your results file: drop it on the module page's Your run box to see your run beside the course's
results_path = Path(os.environ.get("LAB_RESULTS", "{{LAB_NAME}}_results.json"))
results_path.write_text(json.dumps(lab_results, indent=1))
print(f"wrote {results_path.resolve()}: drop it on the module page's 'Your run' box")
print("entropy by temperature:", ", ".join(f"{t}: {h:.3f}" for t, h in zip(TEMPERATURES, entropy)))
