"""scripts/ci/stale_modules.py: which modules the Site workflow measures again on the GPU (its matrix)."""
from __future__ import annotations

import json
from types import SimpleNamespace

from scripts.measure import results

from scripts import course
from scripts.ci import stale_modules

# made-up modules for stale(): it reads only their ids
MODULES = [SimpleNamespace(id="01-first"), SimpleNamespace(id="04-attention"), SimpleNamespace(id="05-x")]
FRESH = results.Status("fresh", "up to date")


def statuses(**not_fresh):
    return {m.id: not_fresh.get(m.id.replace("-", "_"), FRESH) for m in MODULES}


def test_only_the_modules_whose_data_is_not_up_to_date():
    lab_changed = results.Status("stale", "data/04-attention/results.json is stale: ...")
    got = stale_modules.stale(MODULES, {**statuses(), "04-attention": lab_changed}, ["modules/04-attention/index.qmd"])
    assert got == {"04-attention": lab_changed.message}
    assert stale_modules.stale(MODULES, statuses(), ["README.md", "modules/01-first/index.qmd"]) == {}


def test_every_state_but_fresh_is_stale():
    for state in ("missing", "invalid", "stale", "settings", "figures"):
        s = results.Status(state, f"because {state}")
        assert stale_modules.stale(MODULES, {**statuses(), "05-x": s}, []) == {"05-x": f"because {state}"}


def test_a_change_of_the_shared_build_measures_every_module_again():
    for path in stale_modules.SHARED_INPUTS:
        got = stale_modules.stale(MODULES, statuses(), ["README.md", path])
        assert list(got) == [m.id for m in MODULES] and all(path in why for why in got.values())
    assert stale_modules.stale(MODULES, statuses(), ["scripts/pages/site_data.py", "_extensions/course/post-render/run.mjs"]) == {}


def test_asked_for_measures_every_module_in_order():
    assert list(stale_modules.stale(MODULES, statuses(), [], force=True)) == [m.id for m in MODULES]


def test_the_command_prints_a_json_list_for_the_matrix(capsys):
    """On the course's own modules: the stale ones; all of them when asked or when a shared input changed."""
    every = [m.id for m in course.modules()]
    stale = [m.id for m in course.modules() if not results.staleness(m).fresh]
    assert stale_modules.main(["--json"]) == 0
    assert json.loads(capsys.readouterr().out) == stale
    assert stale_modules.main(["--json", "--all"]) == 0
    assert json.loads(capsys.readouterr().out) == every
    assert stale_modules.main(["--json", "--changed", "requirements.txt"]) == 0
    assert json.loads(capsys.readouterr().out) == every
