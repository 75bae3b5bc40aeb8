"""The claims as data (modules/<id>/claims.json): the build (scripts/measure/claims.py, jsonata-python) and the page
(_extensions/course/run-claims.js, npm's jsonata, as vendored for the site) give the same verdicts and the same
sentences, on each module's committed results, on a real quick run of Module 3's lab, and on files that make
them fail (that every claim of claims.json is checked by the build: tests/test_every_module.py)."""
from __future__ import annotations

import copy
import json
import re
import subprocess

import pytest

from scripts.measure import claims

from scripts import course, paths
M3 = course.module("03-sequence-models")

QUICK_RUN = M3.fixture.parent / "lab-results-quick.json"   # a quick run's own file, as the lab's results cell saves it
MODULES = [m for m in course.modules() if (m.dir / claims.CLAIMS_FILE).is_file()]


def page_evaluation(module: course.Module, data: dict, tmp_path) -> list[dict]:
    results = tmp_path / "results.json"
    results.write_text(json.dumps(data), encoding="utf-8")
    out = subprocess.run(["node", "tests/js/run-claims-cli.mjs", str(module.dir / claims.CLAIMS_FILE), str(results)],
                         cwd=paths.ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def build_evaluation(module: course.Module, data: dict) -> list[dict]:
    """What the build says of claims.json's claims (scripts.measure.claims.evaluate, which counts one that cannot be
    computed as not holding)."""
    names = set(claims.data_claims(module))
    return [{"name": c["name"], "holds": c["holds"], "says": c["detail"]} for c in claims.evaluate(module, data)
            if c["name"] in names]


def agree(module, data, tmp_path):
    page, build = page_evaluation(module, data, tmp_path), build_evaluation(module, data)
    assert [c["name"] for c in page] == list(claims.data_claims(module)), "the page evaluates claims.json, in its order"
    page.sort(key=lambda c: c["name"])
    build.sort(key=lambda c: c["name"])
    assert [c["name"] for c in page] == [c["name"] for c in build]
    for p, b in zip(page, build):
        assert p["holds"] == b["holds"], (p, b)
        if not b["says"].startswith("could not be evaluated"):
            assert p["says"] == b["says"], (p, b)
        else:
            assert p["says"].startswith("could not be evaluated"), (p, b)
    return build


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.id)
def test_build_and_page_agree_on_the_committed_results(module, tmp_path):
    out = agree(module, json.loads(module.results.read_text(encoding="utf-8")), tmp_path)
    assert all(c["holds"] for c in out), out


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


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.id)
def test_each_claims_statement_names_the_thresholds_its_test_uses(module):
    """A threshold is typed twice, in `thresholds` and in the sentence the build reports; they must not drift."""
    doc = claims.read_data_claims(module)
    for c in doc["claims"]:
        for name in re.findall(r"\$(\w+)", c["holds"]):
            if name not in doc["thresholds"]:
                continue                                     # a JSONata variable of the expression itself
            v = doc["thresholds"][name]
            written = {f"{v:g}", f"{v:.1f}", f"{v:.0%}"}
            assert any(w in c["statement"] for w in written), f"{c['name']}: its statement names none of {written}"


def test_a_sentence_naming_a_value_the_claim_does_not_compute_is_refused(tmp_path, monkeypatch):
    doc = claims.read_data_claims(M3)
    doc["claims"][0]["usually"] = "your {nothing}"
    (tmp_path / claims.CLAIMS_FILE).write_text(json.dumps(doc), encoding="utf-8")
    monkeypatch.setattr(type(M3), "dir", property(lambda self: tmp_path))
    with pytest.raises(ValueError, match=r"usually names \['nothing'\]"):
        claims.data_claims(M3)
