"""Regressions the rest of the suite once let through (issue 9, item 4): each test below fails when
its deliberate bug is put back, and checks the behaviour against arithmetic done here, by hand,
rather than against the code's own helpers.

    evaluation resetting the state at every chunk        test_evaluate_carries_the_state_across_chunks
    final_loss averaging the first steps                   test_final_loss_is_the_mean_of_the_last_steps
    an unreadable results file reported as up to date      test_unreadable_results_are_never_up_to_date
    staleness comparing only a prefix of the hash          test_staleness_compares_the_whole_hash
    the build accepting results of other settings          test_build_refuses_lab_results_of_other_settings,
                                                           test_results_of_other_settings_are_not_up_to_date
    the LSTM/RNN ratio and clipped-loss thresholds moved   test_claim_thresholds_at_the_boundaries_the_page_states
    backup files left after a successful write             test_successful_overwrite_leaves_no_backup_or_temp_file

The formatters' carry and the percentage cut-off are in tests/test_formatting.py; the demo module's
distance index in tests/js/gradient-demo.test.mjs.
"""
from __future__ import annotations

import copy
import json
import math
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from scripts import build, claims, files, paths, results
from scripts.lab_source import load_lab
from tests.support import M3


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


# --------------------------------------------------------------------------------------------
# results files: staleness
# --------------------------------------------------------------------------------------------
def fixture() -> dict:
    return json.loads(M3.fixture.read_text(encoding="utf-8"))


def results_file(tmp_path, sha: str, settings: str = "full"):
    d = fixture()
    d["provenance"].update(lab_source_sha256=sha, settings=settings)
    path = tmp_path / "baselines.json"
    path.write_text(json.dumps(d), encoding="utf-8")
    return path


SHA = "0123456789abcdef" * 4


@pytest.mark.parametrize("content", [
    b"",                                                  # empty
    b'{"schema_version": 1, "provenance": {',             # cut off half-way through a write
    b"\xff\xfe not text",                                 # not UTF-8
    b"[]",                                                # JSON, but not a results file
])
def test_unreadable_results_are_never_up_to_date(tmp_path, content):
    path = tmp_path / "baselines.json"
    path.write_bytes(content)
    s = results.staleness(M3, path, "full", None, current_sha256=SHA)
    assert (s.state, s.fresh) == ("invalid", False)


def test_staleness_compares_the_whole_hash(tmp_path):
    assert results.staleness(M3, results_file(tmp_path, SHA), "full", None, current_sha256=SHA).fresh
    for changed in (SHA[:-1] + "0",                        # differs in the last hex digit only
                    "f" + SHA[1:]):                        # ... or in the first only
        s = results.staleness(M3, results_file(tmp_path, SHA), "full", None, current_sha256=changed)
        assert (s.state, s.fresh) == ("stale", False), changed


def test_results_of_other_settings_are_not_up_to_date(tmp_path):
    path = results_file(tmp_path, SHA, settings="quick")
    s = results.staleness(M3, path, "full", None, current_sha256=SHA)
    assert (s.state, s.fresh) == ("settings", False)
    assert results.staleness(M3, path, "quick", None, current_sha256=SHA).fresh


# --------------------------------------------------------------------------------------------
# the build: only results of the settings it asked for
# --------------------------------------------------------------------------------------------
def lab_results(settings: str) -> dict:
    """What the lab's last cell writes, from the fixture, with an LSTM curve that satisfies the claims."""
    d = fixture()
    prov = d.pop("provenance")
    for key in ("claims", "schema_version"):
        d.pop(key)
    g = d["gradient_by_distance"]
    g["lstm_grad_norm"] = [0.3 * 0.97 ** i for i in range(len(g["distance"]))]
    g["lstm_rnn_ratio_at_50"] = g["lstm_grad_norm"][50] / g["rnn_grad_norm"][50]
    d["lab_run"] = {**{k: prov[k] for k in build.PROVENANCE_FROM_LAB + ("corpus_sha256",)}, "settings": settings}
    return d


@pytest.mark.parametrize("ran_with", ["full", "quick"])
def test_build_refuses_lab_results_of_other_settings(tmp_path, capsys, ran_with):
    lab_json, out = tmp_path / "lab.json", tmp_path / "out"
    lab_json.write_text(json.dumps(lab_results(ran_with)), encoding="utf-8")
    status = build.main(["--settings", "full", "--out", str(out), "--from-results", str(lab_json)])
    written = out / "data" / M3.id / "results.json"
    if ran_with == "full":                                # the control: the same results are accepted
        assert status == 0 and results.load_results(M3, written)["provenance"]["settings"] == "full"
    else:
        assert status == 1 and not written.exists()
        assert "settings 'quick'" in capsys.readouterr().out


# --------------------------------------------------------------------------------------------
# claims: the thresholds the page states ("at least 100 times", "below 3.0 nats")
# --------------------------------------------------------------------------------------------
def claim(name: str):
    return next(c for c in M3.build.claims.CLAIMS if c.name == name)


def with_ratio_at_50(ratio: float) -> dict:
    d = fixture()
    g = d["gradient_by_distance"]
    i = g["distance"].index(50)
    g["rnn_grad_norm"][i] = 1e-6
    g["lstm_grad_norm"][i] = ratio * 1e-6
    g["lstm_rnn_ratio_at_50"] = ratio
    return d


def with_clipped_final_loss(loss: float) -> dict:
    d = copy.deepcopy(fixture())
    d["clipping_demo"]["clipped"]["final_loss"] = loss
    return d


def test_claim_thresholds_at_the_boundaries_the_page_states():
    ratio = claim("lstm_gradient_orders_above_rnn_at_50")
    assert "at least 100 times" in ratio.statement
    assert ratio.check(with_ratio_at_50(100.0))[0]        # "at least": 100 itself holds
    assert ratio.check(with_ratio_at_50(1e5))[0]
    assert not ratio.check(with_ratio_at_50(99.0))[0]
    assert not ratio.check(with_ratio_at_50(10.0))[0]

    clipped = claim("clipped_sgd_far_better")
    assert "below 3.0 nats" in clipped.statement
    assert clipped.check(with_clipped_final_loss(2.99))[0]
    assert clipped.check(with_clipped_final_loss(1.5))[0]
    assert not clipped.check(with_clipped_final_loss(3.0))[0]   # "below": 3.0 itself does not hold
    assert not clipped.check(with_clipped_final_loss(math.log(65) - 0.1))[0]


# --------------------------------------------------------------------------------------------
# files: a successful write leaves only the targets
# --------------------------------------------------------------------------------------------
def test_successful_overwrite_leaves_no_backup_or_temp_file(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "figs" / "b.svg"
    b.parent.mkdir()
    a.write_text("old a")
    b.write_bytes(b"old b")
    files.atomic_write({a: "new a", b: b"new b"})
    assert a.read_text() == "new a" and b.read_bytes() == b"new b"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a.json", "b.svg", "figs"]
    assert files.write_if_changed(a, "newer a") is True
    assert files.write_if_changed(a, "newer a") is False
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a.json", "b.svg", "figs"]
