"""The build's export of the trained models (scripts/measure/weights.py, build.py): recorded in provenance with their
sha256 and shapes, written with results.json all at once, refused when amiss, and missed when deleted.

The lab's kernel is not run here (tests/test_build.py's quick build end to end does that, and
modules/03-sequence-models/tests/test_live_model.py runs the export cell on the lab's own models): the weights
come with --from-results, from a weights/ folder beside the lab's results, as the export cell writes them.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from safetensors.numpy import save_file

from scripts import course
from scripts.measure import build, results, weights
from tests.support import fake_lab_results

M3 = course.module("03-sequence-models")
SHAPES = {  # the lab's models at |V| = 65, d = 64, d_h = 256 (what the module's schema holds them to)
    "rnn": {"embed.weight": (65, 64), "W": (256, 256), "U": (256, 64), "b": (256,), "out.weight": (65, 256),
            "out.bias": (65,)},
    "lstm": {"embed.weight": (65, 64), "lstm.weight_ih_l0": (1024, 64), "lstm.weight_hh_l0": (1024, 256),
             "lstm.bias_ih_l0": (1024,), "lstm.bias_hh_l0": (1024,), "out.weight": (65, 256), "out.bias": (65,)},
}
VOCAB = [chr(c) for c in range(32, 32 + 65)]


def write_weights(folder, change=None):
    """The export cell's files, random numbers at the lab's shapes; change(name, tensors) may plant a fault."""
    rng = np.random.default_rng(0)
    folder.mkdir(parents=True, exist_ok=True)
    for name, file in weights.declared(M3).items():
        tensors = {f"{name}.{k}": rng.standard_normal(s).astype(np.float32) for k, s in SHAPES[name].items()}
        if change:
            change(name, tensors)
        save_file(tensors, str(folder / file), metadata={"model": name, "class": "X", "vocab": json.dumps(VOCAB)})


@pytest.fixture
def lab_with_weights(tmp_path):
    lab = tmp_path / "lab" / "lab_results.json"
    lab.parent.mkdir()
    lab.write_text(json.dumps(fake_lab_results(M3)))
    write_weights(lab.parent / "weights")
    return lab


def run(lab, out, *more):
    return build.main(["--settings", "full", "--out", str(out), "--from-results", str(lab), *more])


def test_weights_are_written_beside_the_results_with_sha256_and_shapes(lab_with_weights, tmp_path):
    out = tmp_path / "out"
    assert run(lab_with_weights, out) == 0
    data_dir = out / "data" / M3.id
    d = results.load_results(M3, data_dir / "results.json")
    recorded = d["provenance"]["weights"]
    assert set(recorded) == {"rnn", "lstm"}
    for name, entry in recorded.items():
        path = data_dir / entry["file"]
        assert path.read_bytes() == (lab_with_weights.parent / "weights" / entry["file"]).read_bytes()
        assert entry["sha256"] == results.sha256_file(path) and entry["bytes"] == path.stat().st_size
        assert entry["tensors"] == {f"{name}.{k}": list(s) for k, s in SHAPES[name].items()}
        assert entry["vocab"] == VOCAB and entry["dtype"] == "float32"
    assert all(p.exists() for p in build.Destination(M3, "full", str(out)).outputs())


@pytest.mark.parametrize("fault,says", [
    (lambda name, t: t.update({f"{name}.out.bias": t[f"{name}.out.bias"].astype(np.float16)}), "F16, not F32"),
    (lambda name, t: t[f"{name}.out.bias"].__setitem__(3, np.nan), "not finite"),
    (lambda name, t: t.update({f"other.{name}": t.pop(f"{name}.out.bias")}), "not under the model's name"),
])
def test_weights_amiss_fail_the_build_and_write_nothing(tmp_path, fault, says, capsys):
    lab = tmp_path / "lab" / "lab_results.json"
    lab.parent.mkdir()
    lab.write_text(json.dumps(fake_lab_results(M3)))
    write_weights(lab.parent / "weights", fault)
    out = tmp_path / "out"
    assert run(lab, out) == 1
    assert says in capsys.readouterr().out
    assert not (out / "data" / M3.id).exists()


def test_shapes_other_than_the_module_model_are_refused_by_its_schema(tmp_path, capsys):
    lab = tmp_path / "lab" / "lab_results.json"
    lab.parent.mkdir()
    lab.write_text(json.dumps(fake_lab_results(M3)))
    write_weights(lab.parent / "weights",
                  lambda name, t: t.update({f"{name}.out.bias": np.zeros(64, np.float32)}))
    assert run(lab, tmp_path / "out") == 1
    assert "out.bias" in capsys.readouterr().out


def test_a_replaced_weights_file_makes_the_results_not_up_to_date_and_a_missing_one_is_named(lab_with_weights, tmp_path):
    """A weights file that is there and is not the one recorded is stale; one that is not there (a clone: the
    weights are the build's output, never committed) leaves the results up to date and says so."""
    out = tmp_path / "out"
    assert run(lab_with_weights, out) == 0
    data = out / "data" / M3.id / "results.json"
    assert results.staleness(M3, data, "full", out / "figures" / M3.id).fresh
    lstm = out / "data" / M3.id / "lstm.safetensors"
    lstm.write_bytes(lstm.read_bytes()[:-4] + b"\0\0\0\0")
    status = results.staleness(M3, data, "full", out / "figures" / M3.id)
    assert status.state == "weights" and "lstm.safetensors" in status.message and "sha256 differs" in status.message
    lstm.unlink()
    status = results.staleness(M3, data, "full", out / "figures" / M3.id)
    assert status.fresh and "lstm.safetensors" in status.message and "not here" in status.message
    assert "rnn.safetensors" not in status.message


def test_export_cell_writes_what_describe_reads(tmp_path, monkeypatch):
    """The build's own cell, run as the lab's kernel runs it, on stand-ins for the lab's models."""
    import torch

    class Model(torch.nn.Module):
        def __init__(self, shapes):
            super().__init__()
            for k, s in shapes.items():
                self.register_parameter(k.replace(".", "_"), torch.nn.Parameter(torch.randn(s)))

        def state_dict(self, *a, **kw):      # the lab's dotted names, as nn.Module nests them
            return {k: getattr(self, k.replace(".", "_")).detach() for k in SHAPES[self.name]}

    namespace = {"chars": VOCAB}
    for name in ("rnn", "lstm"):
        namespace[name] = Model(SHAPES[name])
        namespace[name].name = name
    monkeypatch.setenv(weights.ENV, str(tmp_path))
    exec(weights.export_cell(weights.declared(M3)), namespace)      # noqa: S102
    desc = weights.describe(weights.declared(M3), tmp_path)
    assert desc["lstm"]["tensors"]["lstm.lstm.weight_hh_l0"] == [1024, 256]
    assert desc["rnn"]["vocab"] == VOCAB


def test_results_without_weights_beside_them_record_none(tmp_path, capsys):
    lab = tmp_path / "lab_results.json"
    lab.write_text(json.dumps(fake_lab_results(M3)))
    out = tmp_path / "out"
    assert run(lab, out) == 0
    assert "weights" not in results.load_results(M3, out / "data" / M3.id / "results.json")["provenance"]
    assert "no weights beside" in capsys.readouterr().out
