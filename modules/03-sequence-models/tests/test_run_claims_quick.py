"""Module 3's claims on a real quick run of its lab and on files that make them fail: the page and the build
give the same verdicts and sentences (tests/claims_agreement.py; the same on every module's committed results
and quick run: tests/test_run_claims.py)."""
from __future__ import annotations

import copy
import json

from tests.claims_agreement import agree
from tests.support import this_module

M3 = this_module(__file__)    # the module these tests belong to (their folder's)
QUICK_RUN = M3.fixture.parent / "lab-results-quick.json"   # a quick run's own file, as the lab's results cell saves it


def test_build_and_page_agree_on_a_quick_run_and_its_failures(tmp_path):
    quick = json.loads(QUICK_RUN.read_text(encoding="utf-8"))
    out = {c["name"]: c for c in agree(M3, quick, tmp_path)}
    # a quick run (30 training steps) is far from the full one: the claims that need training fail there
    assert not out["lstm_ppl_at_least_1_below_trigram"]["holds"]
    assert out["rnn_spectral_norm_above_1"]["holds"]
    broken = copy.deepcopy(quick)
    del broken["models"]["rnn"]["test_nats"]                       # a file that lacks a number
    broken["clipping_demo"]["unclipped"]["final_loss"] = None      # a diverged run: a null the claim expects
    out = {c["name"]: c for c in agree(M3, broken, tmp_path)}
    assert out["neural_models_beat_best_ngram"]["says"].startswith("could not be evaluated")
    assert "not a number (it diverged)" in out["unclipped_sgd_worse_than_uniform"]["says"]
