"""Why the exported weights are float32 (issue 44): what float16 would cost the logits, and what each file weighs.

    python -m scripts.bench.live_model_weights DIR [--log]    # DIR (data/<id>/) holds rnn.safetensors and lstm.safetensors

For each model, the lab's own class (its definition cells) loaded with the file's weights, then with the same
weights rounded to float16: the largest |logit difference| over 20 prompts from the corpus (random places and
lengths 1..120, the parity test's), against the 1e-4 the page's forward pass is held to; and the file's bytes,
raw and gzipped (a host serves application/octet-stream as it is).  --log appends to data/live-model.md.
A benchmark that prints, not a test.
"""
from __future__ import annotations

import argparse
import datetime as dt
import gzip
import json
from pathlib import Path

import numpy as np
import torch

from scripts import course
from scripts.measure import lab_source
from scripts.paths import ROOT

TOLERANCE = 1e-4


def prompts(text: str, stoi: dict, count=20, seed=44) -> list[list[int]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n = int(rng.integers(1, 121))
        at = int(rng.integers(0, len(text) - n))
        out.append([stoi[c] for c in text[at:at + n]])
    return out


def measure(folder: Path, module: course.Module) -> dict:
    from safetensors.torch import load_file

    lab = lab_source.load_lab(module)
    text = module.corpus().read_text(encoding="utf-8")
    chars = sorted(set(text))
    ids = prompts(text, {c: i for i, c in enumerate(chars)})
    out = {}
    for name, cls in (("rnn", lab["RNNLM"]), ("lstm", lab["LSTMLM"])):
        state = {k.removeprefix(name + "."): v for k, v in load_file(str(folder / f"{name}.safetensors")).items()}
        full, half = cls(len(chars)), cls(len(chars))
        full.load_state_dict(state)
        half.load_state_dict({k: v.half().float() for k, v in state.items()})
        worst = 0.0
        with torch.no_grad():
            for q in ids:
                x = torch.tensor([q])
                worst = max(worst, float((full(x)[0] - half(x)[0]).abs().max()))
        raw = (folder / f"{name}.safetensors").read_bytes()
        out[name] = {"float16_max_abs_logit_diff": worst, "within_tolerance": worst <= TOLERANCE,
                     "bytes": len(raw), "gzip_9_bytes": len(gzip.compress(raw, 9))}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder")
    ap.add_argument("--log", action="store_true")
    ap.add_argument("--module", metavar="ID", help="the module whose lab defines the models (default: DIR's name, data/<id>/)")
    args = ap.parse_args(argv)
    folder = Path(args.folder)
    module = course.module(args.module or folder.resolve().name)
    result = measure(folder, module)
    print(json.dumps(result, indent=1))
    if args.log:
        settings = "?"
        results_file = folder / "results.json"
        if results_file.exists():
            settings = json.loads(results_file.read_text(encoding="utf-8"))["provenance"]["settings"]
        stamp = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
        with open(ROOT / "data" / "live-model.md", "a", encoding="utf-8") as f:
            f.write(f"\n### {stamp} float16 or float32 (python -m scripts.bench.live_model_weights, {settings} weights)\n\n"
                    f"```json\n{json.dumps(result, indent=1)}\n```\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
