"""The guard against Colab drift (scripts/ci/colab_drift.py, .github/workflows/colab-drift.yml): what it
runs is the student notebook with every solution ticked, against unpinned packages.  The run itself
takes about a minute and is the workflow's job (it passed here once; see the commit that added it)."""
import re
from pathlib import Path

import nbformat

from scripts.ci import colab_drift

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / ".github" / "workflows" / "colab-drift.yml"


def test_every_module_with_a_lab_has_its_student_notebook():
    mods = colab_drift.modules()
    assert "03-sequence-models" in mods
    for m in mods.values():
        assert m["notebook"].exists(), m


def test_every_folded_solution_of_the_student_notebook_is_ticked():
    nb = nbformat.read(colab_drift.modules()["03-sequence-models"]["notebook"], as_version=4)
    solutions = [c for c in nb.cells if any(t.startswith("solution-") for t in c.metadata.get("tags", []))]
    assert colab_drift.tick_every_solution(nb) == len(solutions) >= 6
    for cell in solutions:
        assert "use_solution = False" not in cell.source
        assert re.search(r'^use_solution = True\s*#@param \{type:"boolean"\}$', cell.source, re.M)
    # nothing else changed: the student's stubs stay as they are
    stubs = [c.source for c in nb.cells if any(t.startswith("exercise-") for t in c.metadata.get("tags", []))]
    assert stubs and all("NotImplementedError" in s for s in stubs)


def test_a_notebook_without_solutions_is_refused(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1)")])
    path = tmp_path / "x.ipynb"
    nbformat.write(nb, path)
    assert colab_drift.main(["--notebook", str(path), "--out", str(tmp_path / "out")]) == 2


def test_versions_name_what_colab_moves():
    line = colab_drift.versions_line(colab_drift.versions())
    for name in ("python", "torch", "numpy", "matplotlib"):
        assert f"{name} " in line


def test_the_workflow_runs_weekly_and_by_hand_with_unpinned_packages():
    text = WORKFLOW.read_text()
    assert re.search(r"schedule:\s*\n\s*- cron:", text) and "workflow_dispatch:" in text
    assert "pip install --upgrade torch --index-url https://download.pytorch.org/whl/cpu" in text
    assert "pip install --upgrade numpy matplotlib" in text and "pyyaml" in text
    assert "requirements.txt" not in text and "==" not in text     # nothing pinned
    assert "python -m scripts.ci.colab_drift" in text
