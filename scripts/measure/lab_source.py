"""The lab's one source, and everything derived from it.

A module's lab source (`lab/<id>/<name>.py`, named in its module.yml) is a jupytext percent-format
notebook. Solutions are marked like
nbgrader's, inside exercise cells:

    ### BEGIN SOLUTION (TODO: what the student must write)
    ...reference code...
    ### END SOLUTION

Cell tags say what each cell is: `def` (only defines things: safe to execute in tests),
`exercise-N`, `hint-N`, `checkpoint-N`, `listed` (its functions are shown on the module's page). From this one file come:

- the student notebook: each solution region becomes `# TODO` + `raise NotImplementedError`, and a
  folded (Colab form) solution cell follows the exercise (above its checkpoint),
  which replaces the student's code only when the student ticks its `use_solution` box;
- the solution notebook the build executes: the same cells, with the solutions in place;
- `load_lab()`: the lab's definition cells executed into a namespace, which the tests and the site
  use, so they exercise the very code the notebook runs;
- `function_source()`: the source of one function, for the site's code listings (`listed_functions()`);
- `lab_constant()`: a constant the lab defines (e.g. Lab 1's test values), for the build's checks.

Every function takes the lab: a module (`course.module(id)`) or the path of a lab source.

    python -m scripts.measure.make_notebooks     # writes the student notebooks
"""
from __future__ import annotations

import ast
import hashlib
import re
from pathlib import Path

import jupytext
import nbformat


BEGIN = re.compile(r"^(?P<indent>[ \t]*)### BEGIN SOLUTION(?: \(TODO: (?P<todo>.*)\))?\s*$")
END = re.compile(r"^[ \t]*### END SOLUTION\s*$")
DEF = re.compile(r"^def (?P<name>\w+)\(")
# a lab's line that the notebook's generator fills with the lab source's sha256 (the .py keeps None)
SOURCE_HASH_PLACEHOLDER = "LAB_SOURCE_SHA256 = None"


def lab_path(lab) -> Path:
    """The lab source of a module (anything with .lab_source) or a path given as it is."""
    return Path(getattr(lab, "lab_source", lab))


def source_sha256(lab) -> str:
    return hashlib.sha256(lab_path(lab).read_bytes()).hexdigest()


def _tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def _tag_suffix(cell, prefix: str) -> str | None:
    for tag in _tags(cell):
        if tag.startswith(prefix + "-"):
            return tag[len(prefix) + 1:]
    return None


def solution_code(code: str) -> str:
    """The cell with its solution regions in place and the markers removed."""
    return "\n".join(line for line in code.splitlines() if not (BEGIN.match(line) or END.match(line)))


def exercise_title(exercise: str) -> str:
    """The one name of an exercise, from its tag: '3b' -> 'Exercise 3B', 'challenge' -> 'Challenge'."""
    return "Challenge" if exercise == "challenge" else f"Exercise {exercise.upper()}"


def stub_code(code: str, exercise: str) -> str:
    """The cell with every solution region replaced by a TODO comment and NotImplementedError."""
    out, inside, current_def = [], False, None
    for line in code.splitlines():
        found = DEF.match(line)
        if found:
            current_def = found.group("name")
        begin = BEGIN.match(line)
        if begin:
            if inside:
                raise ValueError(f"exercise {exercise}: nested BEGIN SOLUTION")
            inside = True
            indent, todo = begin.group("indent"), begin.group("todo") or "write this part"
            out.append(f"{indent}# TODO ({exercise_title(exercise)}): {todo}")
            out.append(f'{indent}raise NotImplementedError("{exercise_title(exercise)}: write {current_def}")')
        elif END.match(line):
            if not inside:
                raise ValueError(f"exercise {exercise}: END SOLUTION without BEGIN")
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise ValueError(f"exercise {exercise}: BEGIN SOLUTION without END")
    return "\n".join(out)


def read_source(lab):
    return jupytext.read(lab_path(lab))


def _folded_solution_cell(exercise: str, code: str):
    """The reference code under reference_<name>. It replaces the student's functions only when the student
    ticks use_solution (a Colab form checkbox): Run All keeps the student's own code."""
    title = exercise_title(exercise)
    solution = solution_code(code)
    names = [m.group("name") for m in map(DEF.match, solution.splitlines()) if m]
    for name in names:
        solution = re.sub(rf"^def {name}\(", f"def reference_{name}(", solution, flags=re.MULTILINE)
    listed = " and ".join(names)
    source = "\n".join([
        f'#@title Solution · {title} (stuck? tick use_solution, then run this cell) {{ display-mode: "form" }}',
        'use_solution = False  #@param {type:"boolean"}',
        f"# Unticked, this cell only defines {' and '.join('reference_' + n for n in names)}; the lab uses yours.",
        "", "", solution.strip("\n"), "", "",
        "if use_solution:",
        *[f"    {name} = reference_{name}" for name in names],
        f'    print("{title}: the rest of the lab uses the reference {listed}. To go back to yours, untick "',
        '          "use_solution and run your exercise cell again.")',
    ])
    return nbformat.v4.new_code_cell(source, metadata={"tags": [f"solution-{exercise}"], "cellView": "form",
                                                       "jupyter": {"source_hidden": True}})


def build_notebook(mode: str, lab):
    """mode 'student': stubs, each followed by its folded solution cell (above the checkpoint). mode 'solution':
    solutions in place (the folded solution cells stay, unticked, so the build also executes them)."""
    if mode not in ("student", "solution"):
        raise ValueError(f"mode must be 'student' or 'solution', not {mode!r}")
    source = read_source(lab)
    cells = []
    for cell in source.cells:
        exercise = _tag_suffix(cell, "exercise")
        if cell.cell_type == "code":
            code = cell.source
            if exercise:
                code = stub_code(code, exercise) if mode == "student" else solution_code(code)
            # the lab records which source its notebook was made from, as the build does (provenance)
            code = code.replace(SOURCE_HASH_PLACEHOLDER, f'LAB_SOURCE_SHA256 = "{source_sha256(lab)}"')
            new = nbformat.v4.new_code_cell(code, metadata={"tags": _tags(cell)} if _tags(cell) else {})
            if code.startswith("#@title"):
                new.metadata["cellView"] = "form"
        else:
            new = nbformat.v4.new_markdown_cell(cell.source, metadata={"tags": _tags(cell)} if _tags(cell) else {})
        cells.append(new)
        if exercise and cell.cell_type == "code":
            cells.append(_folded_solution_cell(exercise, cell.source))
    for index, cell in enumerate(cells):   # stable ids, so a regenerated notebook is byte-identical
        cell.id = f"cell-{index:03d}"
    nb = nbformat.v4.new_notebook(cells=cells, metadata={
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
        "accelerator": "GPU",
        "colab": {"provenance": [], "gpuType": "T4", "toc_visible": True},
    })
    nbformat.validate(nb)
    return nb


def student_notebook(lab):
    return build_notebook("student", lab)


def solution_notebook(lab):
    return build_notebook("solution", lab)


def notebook_text(nb) -> str:
    return nbformat.writes(nb) + "\n"


# the definition cells of each lab source, compiled, by (path, its content's sha256, mode): parsing the source
# (jupytext) is most of what load_lab costs, and the tests load a lab once per catalogued mistake
_DEFINITIONS: dict[tuple[str, str, str], list] = {}


def _definition_code(lab, mode: str) -> list:
    key = (str(lab_path(lab).resolve()), source_sha256(lab), mode)
    if key not in _DEFINITIONS:
        _DEFINITIONS[key] = [compile(cell.source, f"<lab cell {cell.id}>", "exec") for cell in build_notebook(mode, lab).cells
                             if cell.cell_type == "code" and "def" in _tags(cell)]
    return _DEFINITIONS[key]


def load_lab(lab, mode: str = "solution") -> dict:
    """Executes the lab's definition cells (tag `def`) into a new namespace and returns it. Nothing is trained or
    read from disk: those cells only import, configure and define.  The source is read each time (an edited lab
    is loaded as edited); its parse is made once per content."""
    namespace = {"__name__": "lab"}
    for code in _definition_code(lab, mode):
        exec(code, namespace)  # noqa: S102
    return namespace


def listed_functions(lab) -> list[str]:
    """The functions the module's page lists: those defined in the lab's cells tagged `listed`."""
    names = []
    for cell in read_source(lab).cells:
        if cell.cell_type == "code" and "listed" in _tags(cell):
            names += [m.group("name") for m in map(DEF.match, cell.source.splitlines()) if m]
    return names


def function_source(name: str, lab) -> str:
    """The solution source of a top-level function defined in the lab (for the site's listings)."""
    for cell in build_notebook("solution", lab).cells:
        if cell.cell_type != "code" or "def" not in _tags(cell):
            continue
        lines = cell.source.splitlines()
        for start, line in enumerate(lines):
            if line.startswith(f"def {name}("):
                end = start + 1
                while end < len(lines) and (not lines[end].strip() or lines[end][:1] in " \t#"):
                    end += 1
                return "\n".join(lines[start:end]).rstrip() + "\n"
    raise KeyError(f"no function {name!r} in {lab_path(lab)}")


def lab_constant(name: str, lab):
    """The literal value the lab source assigns to the top-level name `name` (e.g. LAB1_TEST_NATS),
    read without running the lab, so that the build checks against the lab's own value, not a copy."""
    path = lab_path(lab)
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [name]:
            return ast.literal_eval(node.value)
    raise KeyError(f"{path} assigns no literal to a top-level {name}")
