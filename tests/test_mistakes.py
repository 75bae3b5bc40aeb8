"""Each module's catalogue of students' mistakes (lab/<id>/mistakes.yml), run against its own checkpoints.

Every mistake runs in the lab's own namespace (load_lab: the solution's definition cells), its code in place
of the exercise's, then the exercise's checkpoint cell as the notebook has it.  A harmful mistake must stop at
its own checkpoint, with a message that names the function and says what to change (the entry's `says`); a
harmless variant must pass and also work where the lab's provided cells use it (the catalogue's `uses`).  A
few whole Run Alls in test_notebook.py prove that the notebook stops where this says.
"""
from __future__ import annotations

import contextlib
import io
import re

import pytest
import yaml

from scripts import course
from scripts.measure.lab_source import load_lab, read_source

CATALOGUES = [(m, m.lab_dir / "mistakes.yml") for m in course.modules() if (m.lab_dir / "mistakes.yml").is_file()]


def _catalogue(path):
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _cases():
    for module, path in CATALOGUES:
        for n, entry in enumerate(_catalogue(path)["mistakes"]):
            yield pytest.param(module, path, entry, id=f"{module.id}:{entry['exercise']}:{n}:{entry['mistake'][:50]}")


def _checkpoint_cell(module, exercise):
    cells = [c for c in read_source(module).cells if f"checkpoint-{exercise}" in c.get("metadata", {}).get("tags", [])]
    assert len(cells) == 1, f"{module.id}: expected one cell tagged checkpoint-{exercise}"
    return cells[0].source


def _run(namespace, code):
    exec(compile(code, "<student cell>", "exec"), namespace)  # noqa: S102 - the catalogue's own cells


def _student_cell(namespace, code):
    """The cell as IPython would run it: through the lab's input transformers (what it registers in a notebook)."""
    lines = code.splitlines(keepends=True)
    for transform in namespace.get("INPUT_TRANSFORMERS", ()):
        lines = transform(lines)
    return "".join(lines)


def test_every_catalogue_has_at_least_eight_mistakes_per_exercise_the_prediction_and_the_challenge():
    assert CATALOGUES, "no module has a lab/<id>/mistakes.yml"
    for module, path in CATALOGUES:
        mistakes = _catalogue(path)["mistakes"]
        exercises = {t[len("exercise-"):] for c in read_source(module).cells
                     for t in c.get("metadata", {}).get("tags", []) if t.startswith("exercise-")}
        counted = {e: sum(1 for m in mistakes if m["exercise"] == e and "stops_at" in m) for e in exercises}
        assert all(n >= 8 for n in counted.values()), f"{module.id}: harmful mistakes per exercise {counted}"
        predictions = [m for m in mistakes if m["exercise"].endswith("-prediction")]
        assert len(predictions) >= 8, f"{module.id}: {len(predictions)} prediction mistakes"


@pytest.mark.parametrize("module, path, entry", list(_cases()))
def test_a_mistake_stops_at_its_own_checkpoint_and_says_what_to_change(module, path, entry):
    catalogue = _catalogue(path)
    exercise, check = entry["exercise"], catalogue["checks"].get(entry["exercise"], {})
    ns = load_lab(module, "solution")
    if "prints" in check:                                      # a prediction: what the lab prints and saves
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            _run(ns, _student_cell(ns, entry["code"]))
            _run(ns, check["prints"])
        printed = out.getvalue()
        for pattern in entry["says"]:
            assert re.search(pattern, printed), f"{entry['mistake']}: {pattern!r} not in what the lab printed:\n{printed}"
        assert eval(check["saves"], ns) == entry["saved"], entry["mistake"]  # noqa: S307 - the catalogue's own
        return
    _run(ns, entry["code"])
    cell = _checkpoint_cell(module, exercise)
    if "passes" in entry:
        with contextlib.redirect_stdout(io.StringIO()) as out:
            _run(ns, cell)
        assert "✅" in out.getvalue(), f"{entry['mistake']} should pass ({entry['passes']}):\n{out.getvalue()}"
        _run(ns, check["uses"])                                  # and works where the lab uses it
        return
    error = ns["CheckpointError"]
    with pytest.raises(error) as raised, contextlib.redirect_stdout(io.StringIO()):
        _run(ns, cell)
    message = str(raised.value)
    header = message.splitlines()[0]
    assert header.startswith(f"❌ {ns[entry['stops_at']].which}:"), f"stopped elsewhere than {entry['stops_at']}: {header}"
    functions = re.findall(r"def (\w+)\(", entry["code"])
    assert any(f in header for f in functions), f"the message's first line names no function of {functions}: {header}"
    for pattern in entry["says"]:
        assert re.search(pattern, message), f"{entry['mistake']}: {pattern!r} not in the message:\n{message}"


@pytest.mark.parametrize("module, path", CATALOGUES, ids=[m.id for m, _ in CATALOGUES])
def test_the_solution_works_where_the_lab_uses_it(module, path):
    """The `uses` statements are real: the solution runs through each of them."""
    for exercise, check in _catalogue(path)["checks"].items():
        if "uses" in check:
            _run(load_lab(module, "solution"), check["uses"])
