"""The claims as data (modules/<id>/claims.json): the build (scripts/measure/claims.py, jsonata-python) and the page
(_extensions/course/run-claims.js, npm's jsonata, as vendored for the site) give the same verdicts and the same
sentences, on each module's committed results, on a real quick run of its lab and on that run lacking a
measurement (that every claim of claims.json is checked by the build: tests/test_every_module.py; one module's
own failing files: its tests, e.g. modules/03-sequence-models/tests/test_run_claims_quick.py)."""
from __future__ import annotations

import json
import re

import pytest

from scripts.measure import claims

from scripts import course
from tests.claims_agreement import agree

MODULES = [m for m in course.modules() if (m.dir / claims.CLAIMS_FILE).is_file()]


def quick_run(module: course.Module):
    """A quick run's own file, as the lab's results cell saves it (beside the module's test fixture)."""
    return module.fixture.parent / "lab-results-quick.json"


QUICK_RUNS = [m for m in MODULES if quick_run(m).is_file()]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.id)
def test_build_and_page_agree_on_the_committed_results(module, tmp_path):
    out = agree(module, json.loads(module.results.read_text(encoding="utf-8")), tmp_path)
    assert all(c["holds"] for c in out), out


@pytest.mark.parametrize("module", QUICK_RUNS, ids=lambda m: m.id)
def test_build_and_page_agree_on_a_quick_run_and_on_one_that_lacks_a_measurement(module, tmp_path):
    """A real quick run's file (tests/fixtures/<id>/lab-results-quick.json, as the lab's results cell saves it), and
    the same file without each of its measurements in turn (every claim over it cannot be evaluated, on both sides)."""
    quick = json.loads(quick_run(module).read_text(encoding="utf-8"))
    agree(module, quick, tmp_path)
    unevaluated = set()
    for key in module.lab["measured"]:
        lacking = {k: v for k, v in quick.items() if k != key}
        unevaluated |= {c["name"] for c in agree(module, lacking, tmp_path) if c["says"].startswith("could not be evaluated")}
    assert unevaluated == set(claims.data_claims(module)), "each claim reads one of module.yml's lab.measured"


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


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.id)
def test_a_sentence_naming_a_value_the_claim_does_not_compute_is_refused(module, tmp_path, monkeypatch):
    doc = claims.read_data_claims(module)
    doc["claims"][0]["usually"] = "your {nothing}"
    (tmp_path / claims.CLAIMS_FILE).write_text(json.dumps(doc), encoding="utf-8")
    monkeypatch.setattr(type(module), "dir", property(lambda self: tmp_path))
    with pytest.raises(ValueError, match=r"usually names \['nothing'\]"):
        claims.data_claims(module)
