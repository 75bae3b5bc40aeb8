"""Measures the lab's cost on this machine: seconds per training step of the RNN and the LSTM at the full
settings (projected to their 1,000 and 2,000 steps), and the whole notebook's wall time at the quick setting.

    python -m scripts.bench.benchmark --module 03-sequence-models [--steps 20] [--skip-quick]

It uses the lab's own definitions (scripts.measure.lab_source.load_lab), so it times the code students run.
"""
import argparse
import json
import os
import time
from pathlib import Path

from scripts.measure.lab_source import load_lab, solution_notebook

from . import MODULE

CORPUS = MODULE.corpus()


def time_training(steps):
    os.environ["LAB_SETTINGS"] = "full"
    lab = load_lab(MODULE, "solution")
    text = lab["load_corpus"](CORPUS)
    lab["chars"], lab["ids"] = lab["split_and_encode"](text)
    lab["split_ids"] = {name: lab["ids"][a:b] for name, (a, b) in lab["SPLIT"].items()}
    S, out = lab["S"], {"device": lab["device_name"](lab["DEVICE"]), "threads": lab["torch"].get_num_threads()}
    for name, cls, total in (("rnn", lab["RNNLM"], S.rnn_steps), ("lstm", lab["LSTMLM"], S.lstm_steps)):
        model = cls(65).to(lab["DEVICE"])
        lab["train_lm"](model, 3, name)                       # warm-up (allocator, kernels)
        t0 = time.perf_counter()
        S.log_every = 10 ** 9
        lab["train_lm"](model, steps, name)
        per_step = (time.perf_counter() - t0) / steps
        out[name] = {"s_per_step": round(per_step, 4), "steps": total, "projected_s": round(per_step * total, 1)}
    return out


def time_quick_notebook():
    import tempfile

    from nbclient import NotebookClient
    os.environ.update(LAB_SETTINGS="quick", LAB_CORPUS=str(CORPUS))
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["LAB_RESULTS"] = str(Path(tmp) / "results.json")
        t0 = time.perf_counter()
        NotebookClient(solution_notebook(MODULE), timeout=900, kernel_name="python3",
                       resources={"metadata": {"path": tmp}}).execute()
        return round(time.perf_counter() - t0, 1)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=20, help="training steps timed per model")
    parser.add_argument("--skip-quick", action="store_true", help="do not execute the quick notebook")
    args = parser.parse_args(argv)
    report = {"training": time_training(args.steps)}
    if not args.skip_quick:
        report["quick_notebook_s"] = time_quick_notebook()
    print(json.dumps(report, indent=1))

