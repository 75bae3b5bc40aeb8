"""The results files Lab 3 really writes along the paths students take (issue 41), made by running the lab
(scripts/measure/student_files.py, the paths in modules/<id>/code/student_files.py): the solution at another
seed, the student notebook with the Challenge skipped, stopped right after the save cell, a run that diverges,
and the solution notebook of every earlier version of the lab.  Cached by the lab source's hash under
build/student-files/ (an earlier version's file may be committed in this folder's student-files/): a cold cache
runs the lab, about 80 s of one core a path at the small settings; a warm one reads files.  The page's side of the
same files: tests/js/student-files.test.mjs (run-file.js, the claims) and site-student-files.test.mjs (the
browser, on the module page and the lab page).
"""
import json
import math

import pytest

from scripts.measure import student_files
from tests.support import this_module

M = this_module(__file__)
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def files():
    return student_files.ensure(M, echo=lambda message: print(message, flush=True))


def strict(path):
    """The file as a strict JSON reader takes it: NaN and Infinity are an error."""
    def refuse(name):
        raise ValueError(f"{path.name} holds a bare {name}")
    return json.loads(path.read_text(encoding="utf-8"), parse_constant=refuse)


def at(data, where: str):
    for part in where.split("."):
        data = data[int(part)] if isinstance(data, list) else data[part]
    return data


CURRENT = [p.name for p in student_files.module_paths(M)[0] if p.commit is None]


def test_the_paths_are_the_ones_students_take():
    paths, small = student_files.module_paths(M)
    names = {p.name for p in paths}
    assert {"solution-seed-1", "student-challenge-skipped", "stopped-after-save", "diverged"} <= names
    earlier = [p for p in paths if p.commit]
    assert len(earlier) >= 7, "every earlier version of the lab that saved a results file"
    assert all(small.get(k) for k in ("rnn_steps", "lstm_steps", "sgd_steps"))


@pytest.mark.parametrize("name", CURRENT)
def test_the_current_lab_writes_strict_json_and_names_each_null_it_wrote_for_a_number(files, name):
    data = strict(files[name])
    for where, kind in data.get("non_finite", {}).items():
        assert kind in ("nan", "inf", "-inf"), where
        assert at(data, where) is None, f"{name}: {where} is listed as {kind} but holds {at(data, where)!r}"
    assert data["lab_run"]["module"] == M.id


def test_a_diverged_run_writes_its_file_with_its_losses_as_null_and_why(files):
    data = strict(files["diverged"])
    odd = data["non_finite"]
    lost = [w for w in odd if w.startswith("clipping_demo.unclipped.loss.")]
    assert lost, f"the unclipped run diverged: {sorted(odd)[:5]}"
    assert {odd[w] for w in lost} <= {"nan", "inf", "-inf"}
    assert odd["lab_run.settings_values.clip_kappa"] == "inf", "no clipping: kappa = inf, written as null"
    assert data["clipping_demo"]["unclipped"]["final_loss"] is None
    assert all(v is None or math.isfinite(v) for v in data["clipping_demo"]["unclipped"]["loss"])
    assert "Traceback" not in files["diverged"].with_suffix(".log").read_text(encoding="utf-8")


def test_the_challenge_skipped_file_was_saved_before_the_challenge(files):
    data = strict(files["student-challenge-skipped"])
    strategies = {s["strategy"] for s in data["sampling"]["samples"]}
    assert strategies == {"greedy", "temperature"}, strategies
    log = files["student-challenge-skipped"].with_suffix(".log").read_text(encoding="utf-8")
    assert "Challenge skipped" in log or "failure: " in log, "the Challenge was skipped (or Run All stopped there), after the save"


def test_stopped_after_the_save_cell_and_another_seed(files):
    stopped = strict(files["stopped-after-save"])
    assert {s["strategy"] for s in stopped["sampling"]["samples"]} == {"greedy", "temperature"}
    seeded = strict(files["solution-seed-1"])
    assert seeded["lab_run"]["seed"] == 1
    assert {s["strategy"] for s in seeded["sampling"]["samples"]} == {"greedy", "temperature", "top_k", "nucleus"}


def test_every_earlier_version_wrote_a_file_of_its_own(files):
    for p in student_files.module_paths(M)[0]:
        if p.commit:
            data = json.loads(files[p.name].read_text(encoding="utf-8"))   # an earlier lab may write NaN
            assert "lab_run" in data and "models" in data, p.name
