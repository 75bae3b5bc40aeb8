"""The trained models' weights: exported by the build after the lab, checked, and recorded in provenance.

A module that declares `lab.weights` in its module.yml (a model's name in the lab -> its file) gets its
trained models written beside its results.json, one safetensors file per model, for the page's live demos:

    lab:
      weights: {rnn: rnn.safetensors, lstm: lstm.safetensors}

Why the build exports them, not the lab: the lab's notebook is what students run, and the site needs
the very models whose numbers it publishes.  The build runs one cell of its own after the lab's last,
in the same kernel (`export_cell`), so the models are the ones the results were measured on, and the
lab source stays the student's.  The cell writes each model's `state_dict()` in float32 under the
model's name as a prefix (`lstm.lstm.weight_ih_l0`), with the vocabulary in the file's metadata.
float32, not float16: rounding the weights to float16 moves the logits by far more than the 1e-4
the page's forward pass is held to (measured in data/live-model.md).

`describe` reads the files back (with the safetensors library), refuses one that lacks a model, holds
another dtype or a non-finite number, and returns provenance.weights: per model its file, sha256,
bytes and every tensor's shape.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from scripts.measure.results import sha256_file

# the environment variable the export cell reads: the folder to write the files into
ENV = "LAB_WEIGHTS"
DTYPE = "F32"          # safetensors' name of float32


class WeightsError(Exception):
    """A weights file the build cannot publish (message for the reader)."""


def declared(module) -> dict[str, str]:
    """The module's models to export, {name in the lab: file name}; {} when it declares none."""
    return dict(module.lab.get("weights") or {})


def check_library() -> None:
    """The export needs the safetensors package in the lab's kernel (requirements.txt): say so before a
    kernel starts, not after the lab has trained for an hour."""
    import importlib.util

    if importlib.util.find_spec("safetensors") is None:
        raise WeightsError("the build exports the trained weights with the safetensors package, which is not "
                           "installed: pip install -r requirements.txt")


def export_cell(models: dict[str, str]) -> str:
    """The source of the build's own cell, run after the lab's last cell in the same kernel."""
    return f'''\
# The course build's own cell (scripts/measure/weights.py), not the lab's: the trained models' weights,
# float32, one safetensors file per model, each tensor under the model's name ("lstm.out.weight").
import json as _json, os as _os, torch as _torch
from safetensors.torch import save_file as _save_file
for _name, _file in {models!r}.items():
    _model = globals()[_name]
    _tensors = {{f"{{_name}}.{{k}}": v.detach().to("cpu", _torch.float32).contiguous()
                for k, v in _model.state_dict().items()}}
    _save_file(_tensors, _os.path.join(_os.environ["{ENV}"], _file),
               metadata={{"model": _name, "class": type(_model).__name__,
                          "vocab": _json.dumps(list(chars), ensure_ascii=False)}})
    print(f"weights: {{_name}} -> {{_file}} ({{sum(t.numel() for t in _tensors.values()):,}} numbers)")
'''


def read_header(path: Path) -> tuple[dict, dict]:
    """(tensors {name: {dtype, shape, data_offsets}}, metadata) of a safetensors file."""
    from safetensors import safe_open

    try:
        with safe_open(str(path), framework="numpy") as f:
            metadata = f.metadata() or {}
    except Exception as e:   # the library's own error names what is wrong with the file
        raise WeightsError(f"{path}: not a readable safetensors file ({e})") from None
    raw = path.read_bytes()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    header.pop("__metadata__", None)
    return header, metadata


def describe(models: dict[str, str], folder: Path) -> dict:
    """provenance.weights for the files the export cell wrote in `folder`; WeightsError on anything amiss."""
    from safetensors.numpy import load_file

    out = {}
    for name, file in models.items():
        path = folder / file
        if not path.is_file():
            raise WeightsError(f"the lab run wrote no weights for '{name}' ({path})")
        header, metadata = read_header(path)
        if metadata.get("model") != name:
            raise WeightsError(f"{path}: its metadata names the model {metadata.get('model')!r}, not {name!r}")
        tensors = {}
        for tensor, arr in sorted(load_file(str(path)).items()):
            if not tensor.startswith(name + "."):
                raise WeightsError(f"{path}: tensor {tensor!r} is not under the model's name '{name}.'")
            if header[tensor]["dtype"] != DTYPE:
                raise WeightsError(f"{path}: tensor {tensor!r} is {header[tensor]['dtype']}, not {DTYPE}")
            if not np.isfinite(arr).all():
                raise WeightsError(f"{path}: tensor {tensor!r} holds a number that is not finite")
            tensors[tensor] = list(arr.shape)
        out[name] = {"file": file, "sha256": sha256_file(path), "bytes": path.stat().st_size, "dtype": "float32",
                     "vocab": json.loads(metadata["vocab"]), "tensors": tensors}
    return out


def files(models: dict[str, str], folder: Path) -> dict[str, bytes]:
    """{file name: its bytes}, to be written beside results.json with it, all at once."""
    return {file: (folder / file).read_bytes() for file in models.values()}


def problems(data_dir: Path, recorded: dict | None, missing_ok: bool = False) -> list[str]:
    """What is wrong with the weights files beside a results file that records them (missing, or not the
    file whose sha256 it recorded); [] when all is well or it records none.  The files are the build's output,
    never kept in the repository (.gitignore): a clone has none until a build or the Site workflow brings them,
    so `missing_ok` counts only a file that is there and is not the one recorded."""
    out = []
    for name, entry in (recorded or {}).items():
        path = data_dir / entry["file"]
        if not path.is_file():
            if not missing_ok:
                out.append(f"{path} is missing (recorded for '{name}')")
        elif sha256_file(path) != entry["sha256"]:
            out.append(f"{path} is not the file recorded for '{name}' (sha256 differs)")
    return out


def missing(data_dir: Path, recorded: dict | None) -> list[str]:
    """The recorded weights files that are not beside the results file (their names)."""
    return [entry["file"] for entry in (recorded or {}).values() if not (data_dir / entry["file"]).is_file()]
