"""What is true of every module of the course, checked on each one found under modules/ (Module 3 and any
module `make module` writes alike; tests/js/new-module.test.mjs runs this file in a copy with a made
module): its committed results validate against its own schema and are fresh, its claims hold and are
recorded as they hold today, its page data is what its data gives, and its student notebook is generated
from its lab source, valid and output-free; the claims its After-the-Lab boxes make (claims.json) are checked by
its build, and each box that after-the-lab.json names is a callout of its page.  What is one module's own stays in that module's tests."""
from __future__ import annotations

import json

import nbformat
import pytest

from scripts.measure import claims, results

from scripts import course, paths

from scripts.pages import site_data
from scripts.measure.lab_source import notebook_text, student_notebook
from tests.support import committed_results

MODULES = course.modules()


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.id)
def test_committed_results_are_valid_and_not_stale(module):
    committed_results(module)
    s = results.staleness(module, module.results, "full", module.figures_dir)
    assert s.fresh, s.message + f" (run `make data MODULE={module.id}` and commit the result)"


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.id)
def test_claims_hold_on_committed_results_as_recorded(module):
    d = committed_results(module)
    evaluated = claims.evaluate(module, d)
    assert evaluated, f"{module.id} checks no claim (modules/{module.id}/code/claims.py: CLAIMS)"
    assert not claims.failed(evaluated), claims.report(evaluated)
    # the file records the verdicts the claims give today
    assert [(c["name"], c["holds"]) for c in d["claims"]] == [(c["name"], c["holds"]) for c in evaluated]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.id)
def test_page_data_is_what_the_data_gives(module):
    # raises SiteDataError naming the stale files and the command when the committed page data differs
    site_data.run(module, paths.ROOT, check=True)


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.id)
def test_student_notebook_is_generated_valid_and_output_free(module):
    assert module.notebook.is_file(), f"{paths.rel(module.notebook)} is missing: run `make notebooks`"
    assert module.notebook.read_text(encoding="utf-8") == notebook_text(student_notebook(module)), \
        f"{paths.rel(module.notebook)} is stale: run `make notebooks MODULE={module.id}`"
    nb = nbformat.read(module.notebook, as_version=4)
    nbformat.validate(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"{paths.rel(module.notebook)} has outputs"


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.id)
def test_the_boxes_claims_are_checked_by_the_build_and_each_box_is_on_the_page(module):
    names = [c.name for c in module.code.claims.CLAIMS]
    doc = claims.read_data_claims(module)
    missing = [c["name"] for c in doc["claims"] if c["name"] not in names]
    assert not missing, f"claims.json states claims the build does not check (add them to CLAIMS): {missing}"
    boxes_file = module.dir / "after-the-lab.json"
    assert boxes_file.is_file(), f"{paths.rel(boxes_file)} is missing: what the page compares of a student's run"
    boxes = json.loads(boxes_file.read_text(encoding="utf-8"))["boxes"]
    page = (module.dir / "index.qmd").read_text(encoding="utf-8")
    assert "{{< your-run >}}" in page, f"{module.id}'s page has no Your run box ({{{{< your-run >}}}})"
    for box in boxes:
        assert f".after-the-lab-{box['id']} " in page, f"after-the-lab.json's box {box['id']} is not a callout of index.qmd"
    assert {c["box"] for c in doc["claims"]} <= {b["id"] for b in boxes}, "a claim names a box after-the-lab.json lacks"


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.id)
def test_the_results_file_the_page_names_is_the_one_the_lab_saves(module):
    """module.yml's lab.results_file (named in the page's Your run box) is the lab's default LAB_RESULTS."""
    name = module.lab.get("results_file")
    assert name, f"modules/{module.id}/module.yml: lab.results_file is missing"
    assert f'os.environ.get("LAB_RESULTS", "{name}")' in module.lab_source.read_text(encoding="utf-8"), \
        f"{paths.rel(module.lab_source)} does not save {name} by default"
