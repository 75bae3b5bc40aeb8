"""The page's live model against the lab's: the build's export (scripts/measure/weights.py), the browser's forward
pass (live-model.js) and its sampler (live-sampling.js), run in node beside torch on the same weights.

Weights: the lab's own RNNLM and LSTMLM (its definition cells, lab_source.load_lab), seeded at initialisation,
written by the build's own export cell; and the trained ones: the committed files once the committed results
record them (provenance.weights; a missing or changed file then fails), until then a quick build's, made here
(slow: about two minutes).
"""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
import torch

from scripts.bench.live_model_weights import prompts as corpus_prompts
from scripts.measure import build, lab_source, results, weights
from tests.support import this_module

M = this_module(__file__)
RUNNER = Path(__file__).with_name("live-model-run.mjs")
TOLERANCE = 1e-4          # the parity: the page's logits equal torch's within 1e-4 (float32)


@pytest.fixture(scope="session")
def lab():
    return lab_source.load_lab(M)


@pytest.fixture(scope="session")
def corpus_text(corpus_path):
    return corpus_path.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def vocab(corpus_text):
    return sorted(set(corpus_text))        # the lab's `chars`


def export(models: dict, vocab, folder: Path) -> dict:
    """The build's export cell, run on these models as the lab's kernel would; returns provenance.weights."""
    folder.mkdir(parents=True, exist_ok=True)
    namespace = {**models, "chars": vocab}
    old = os.environ.get(weights.ENV)
    os.environ[weights.ENV] = str(folder)
    try:
        exec(weights.export_cell(weights.declared(M)), namespace)     # noqa: S102
    finally:
        os.environ.pop(weights.ENV) if old is None else os.environ.__setitem__(weights.ENV, old)
    return weights.describe(weights.declared(M), folder)


@pytest.fixture(scope="session")
def initialised(lab, vocab, tmp_path_factory):
    """The lab's two models at initialisation (seed 0), exported: (models, provenance.weights, folder)."""
    torch.manual_seed(0)
    models = {"rnn": lab["RNNLM"](len(vocab)), "lstm": lab["LSTMLM"](len(vocab))}
    folder = tmp_path_factory.mktemp("initialised")
    return models, export(models, vocab, folder), folder


@pytest.fixture(scope="session")
def quick_run(corpus_path, tmp_path_factory):
    """A quick build, here (slow): its data folder (results.json and the exported weights) and its work folder
    (where the lab's own save cell wrote the student's files)."""
    out = tmp_path_factory.mktemp("quick")
    assert build.main(["--module", M.id, "--settings", "quick", "--out", str(out), "--device", "cpu",
                       "--corpus", str(corpus_path), "--quiet"]) == 0
    return out / "data" / M.id, out / "build" / M.id


@pytest.fixture(scope="session")
def trained(lab, vocab, request):
    """The trained models: the course's own when they are beside its results (the build's output, never committed:
    a build or the Site workflow brings them; a file there that is not the one recorded fails), else a quick
    build's."""
    recorded = json.loads(M.results.read_text(encoding="utf-8"))["provenance"].get("weights")
    if recorded and not weights.missing(M.data_dir, recorded):
        wrong = weights.problems(M.data_dir, recorded)
        assert not wrong, "the weights beside the course's results are not the ones it records: " + "; ".join(wrong)
        folder, desc = M.data_dir, recorded
    else:
        folder = request.getfixturevalue("quick_run")[0]
        desc = results.load_results(M, folder / "results.json")["provenance"]["weights"]
    models = {"rnn": lab["RNNLM"](len(vocab)), "lstm": lab["LSTMLM"](len(vocab))}
    from safetensors.torch import load_file
    for name, model in models.items():
        state = load_file(str(folder / desc[name]["file"]))
        model.load_state_dict({k.removeprefix(name + "."): v for k, v in state.items()})
    return models, desc, folder


def run_node(request: dict) -> dict:
    r = subprocess.run(["node", str(RUNNER)], input=json.dumps(request), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout)


def prompts(corpus_text: str, vocab, count=20, seed=44) -> list[list[int]]:
    """count prompts the test does not choose: random places in the corpus, random lengths 1..120 (the
    float16 measurement's, scripts/bench/live_model_weights.py)."""
    return corpus_prompts(corpus_text, {c: i for i, c in enumerate(vocab)}, count, seed)


def node_request(desc: dict, folder: Path, vocab, **more) -> dict:
    return {"weights": {n: str(folder / d["file"]) for n, d in desc.items()}, "vocab": vocab,
            "expected": {n: d["tensors"] for n, d in desc.items()}, **more}


def assert_parity(models, desc, folder, vocab, ids):
    got = run_node(node_request(desc, folder, vocab, logits=ids))["logits"]
    worst = {}
    with torch.no_grad():
        for name, model in models.items():
            model.eval()
            for q, page in zip(ids, got[name], strict=True):
                want = model(torch.tensor([q]))[0][0].double()            # (T, |V|): torch's logits, float32
                page = torch.tensor(page, dtype=torch.float64)
                assert page.shape == want.shape
                worst[name] = max(worst.get(name, 0.0), float((page - want).abs().max()))
    assert all(v <= TOLERANCE for v in worst.values()), f"page vs torch, largest |logit difference|: {worst}"
    return worst


def weights_schema_errors(desc: dict) -> list[str]:
    """provenance.weights against the shared provenance schema's and the module's own (which holds the shapes)."""
    import jsonschema

    shared = json.loads(results.PROVENANCE_SCHEMA.read_text(encoding="utf-8"))["properties"]["weights"]
    own = json.loads(M.schema.read_text(encoding="utf-8"))["properties"]["provenance"]["properties"]["weights"]
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for schema in (shared, own)
            for e in jsonschema.Draft202012Validator(schema).iter_errors(desc)]


def test_export_records_every_tensor_with_the_lab_shapes(initialised):
    models, desc, folder = initialised
    for name, model in models.items():
        assert desc[name]["tensors"] == {f"{name}.{k}": list(v.shape) for k, v in model.state_dict().items()}
        assert desc[name]["sha256"] == results.sha256_file(folder / desc[name]["file"])
    assert weights_schema_errors(desc) == []


def test_schema_refuses_weights_of_another_shape(initialised):
    desc = json.loads(json.dumps(initialised[1]))
    desc["lstm"]["tensors"]["lstm.lstm.weight_hh_l0"] = [1024, 128]
    assert any("weight_hh_l0" in e for e in weights_schema_errors(desc)), weights_schema_errors(desc)


def test_page_logits_equal_torch_on_20_prompts_initialised(initialised, corpus_text, vocab):
    assert_parity(*initialised, vocab, prompts(corpus_text, vocab))


@pytest.mark.slow
def test_page_logits_equal_torch_on_20_prompts_trained(trained, corpus_text, vocab):
    assert_parity(*trained, vocab, prompts(corpus_text, vocab, seed=45))


def lab_draws(model, prompt_ids, length, tau, k, p, seed, lab):
    """The lab's generate() with with_temperature(τ, filter) (or greedy), and the exponential draws torch.multinomial
    made on the way: (tokens, uniforms u = exp(-q) per character).  Each draw is checked to be the lab's own."""
    pick_filter = None
    if k is not None and p is not None:
        pick_filter = lambda z: lab["nucleus_filter"](lab["top_k_filter"](z, k), p)   # noqa: E731
    elif k is not None:
        pick_filter = lambda z: lab["top_k_filter"](z, k)                             # noqa: E731
    elif p is not None:
        pick_filter = lambda z: lab["nucleus_filter"](z, p)                           # noqa: E731
    pick = lab["greedy"] if tau == 0 else lab["with_temperature"](tau, pick_filter)
    vocab = lab["chars"]
    text = lab["generate"](model, "".join(vocab[i] for i in prompt_ids), length, pick, seed)
    # the same draws again: torch.multinomial draws one sample as argmax(probs / q), q ~ Exp(1) per character,
    # from the generator; replaying it here must give the lab's text, character for character
    gen, uniforms, tokens = torch.Generator().manual_seed(seed), [], []
    with torch.no_grad():
        logits, state = model(torch.tensor([prompt_ids]))
        for _ in range(length):
            z = logits[:, -1]
            if tau == 0:
                nxt = z.argmax(-1)
                uniforms.append([1.0] * len(vocab))
            else:
                probs = torch.softmax((z if pick_filter is None else pick_filter(z)) / tau, -1)
                q = torch.empty_like(probs).exponential_(1, generator=gen)
                nxt = (probs / q).argmax(-1)
                uniforms.append(torch.exp(-q.double())[0].tolist())
            tokens.append(int(nxt))
            logits, state = model(nxt.reshape(1, 1), state)
    assert "".join(vocab[t] for t in tokens) == text, "replaying torch.multinomial's draws did not give the lab's text"
    return tokens, uniforms


@pytest.mark.parametrize("tau,k,p", [(1.0, None, None), (0.5, None, None), (1.5, None, None), (0, None, None),
                                     (1.0, 10, None), (1.0, None, 0.9), (0.8, 20, 0.8)])
def test_page_sampler_writes_what_the_lab_sampler_writes(initialised, lab, vocab, corpus_text, tau, k, p):
    models, desc, folder = initialised
    lab["chars"], lab["DEVICE"] = vocab, torch.device("cpu")
    ids = prompts(corpus_text, vocab, count=3, seed=int(tau * 10) + (k or 0))
    requests, wanted = [], []
    for i, prompt_ids in enumerate(ids):
        name = ("lstm", "rnn")[i % 2]
        tokens, u = lab_draws(models[name], prompt_ids, 60, tau, k, p, seed=100 + i, lab=lab)
        wanted.append(tokens)
        requests.append({"model": name, "ids": prompt_ids, "length": 60, "tau": tau,
                         "k": k if k is not None else len(vocab), "p": p if p is not None else 1, "u": u})
    got = run_node(node_request(desc, folder, vocab, samples=requests))["samples"]
    for want, page in zip(wanted, got, strict=True):
        assert "".join(vocab[t] for t in page) == "".join(vocab[t] for t in want)


@pytest.mark.slow
def test_the_students_download_holds_the_models_the_build_exported(quick_run, vocab):
    """The lab's save cell (save_weights) writes lab3_weights.safetensors: both models in one file, tensor for
    tensor the build's export of the same run, and the page's reader takes it for either model."""
    from safetensors.numpy import load_file

    data, work = quick_run
    student = work / "lab3_weights.safetensors"
    assert student.is_file(), f"the lab's save cell wrote no {student.name} in {work}"
    desc = results.load_results(M, data / "results.json")["provenance"]["weights"]
    theirs = load_file(str(student))
    for name, entry in desc.items():
        ours = load_file(str(data / entry["file"]))
        assert {k: v.shape for k, v in ours.items()} == {k: v.shape for k, v in theirs.items() if k.startswith(name + ".")}
        assert all((ours[k] == theirs[k]).all() for k in ours)
    page = run_node({"weights": {n: str(student) for n in desc}, "vocab": vocab,
                     "expected": {n: d["tensors"] for n, d in desc.items()}, "logits": [[0, 1, 2]]})["logits"]
    assert set(page) == {"rnn", "lstm"}
