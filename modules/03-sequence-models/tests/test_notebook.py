"""The generated student notebook: valid, output-free, complete, in order, up to date; its folded solutions
replace nothing unless asked to; the stubs stop a real run at the first checkpoint with its clear message;
and a run with the student's own code (Challenge skipped) goes to the end with the student's functions."""
import json
import re

import nbformat
import pytest

from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from scripts.measure.lab_source import load_lab, read_source, solution_notebook, student_notebook
from tests.support import this_module

M3 = this_module(__file__)    # the module these tests belong to (their folder's)

EXERCISES = ["1", "2", "3b", "4", "5", "challenge"]
HINTED = ["1", "2", "3b", "4", "5", "challenge"]
TITLES = {"1": "Exercise 1", "2": "Exercise 2", "3b": "Exercise 3B", "4": "Exercise 4", "5": "Exercise 5",
          "challenge": "Challenge"}


@pytest.fixture(scope="module")
def committed():
    return nbformat.read(M3.notebook, as_version=4)


def tags(cell):
    return cell.get("metadata", {}).get("tags", [])


def index_of(nb, tag):
    found = [i for i, c in enumerate(nb.cells) if tag in tags(c)]
    assert len(found) == 1, f"expected one cell tagged {tag}, found {len(found)}"
    return found[0]


# (generated from its source, valid and output-free: tests/test_every_module.py, for every module)
def test_colab_opens_it_on_a_gpu_with_python(committed):
    assert committed.metadata["kernelspec"]["name"] == "python3"
    assert committed.metadata["accelerator"] == "GPU"


def test_colab_needs_nothing_beyond_what_it_ships(committed):
    code = "\n".join(c.source for c in committed.cells if c.cell_type == "code")
    assert not re.search(r"^\s*[!%]\s*pip", code, re.MULTILINE), "the notebook must not pip install anything"
    imported = set(re.findall(r"^\s*(?:import|from) (\w+)", code, re.MULTILINE))
    assert imported <= {"ast", "builtins", "difflib", "functools", "google", "hashlib", "json", "math", "os", "platform", "re", "time", "traceback", "urllib",
                        "contextlib", "pathlib", "types", "matplotlib", "numpy", "torch", *OPTIONAL_IMPORTS}, imported


# Packages Colab ships but a plain CPU install may lack: google.colab (the file download) and safetensors (the
# student's weights for the live demo).  Each is imported only inside a try that catches ImportError, so Run All
# never stops for want of one.
OPTIONAL_IMPORTS = {"google", "safetensors"}


def test_optional_packages_are_imported_only_where_their_absence_is_caught(committed):
    import ast
    found = 0
    for cell in (c for c in committed.cells if c.cell_type == "code"):
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            continue                                      # a stub or a form cell that is not plain Python
        guarded = {id(n) for t in ast.walk(tree) if isinstance(t, ast.Try)
                   and any(h.type is not None and "ImportError" in ast.unparse(h.type) for h in t.handlers)
                   for stmt in t.body for n in ast.walk(stmt)}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                if any(n.split(".")[0] in OPTIONAL_IMPORTS for n in names):
                    found += 1
                    assert id(node) in guarded, f"{ast.unparse(node)} is not inside a try that catches ImportError"
    assert found >= len(OPTIONAL_IMPORTS), "the check sees the lab's optional imports"


def test_every_stub_hint_checkpoint_and_folded_solution_in_order(committed):
    for ex in EXERCISES:
        stub = committed.cells[index_of(committed, f"exercise-{ex}")]
        assert f"# TODO ({TITLES[ex]}): " in stub.source
        assert f'raise NotImplementedError("{TITLES[ex]}: write ' in stub.source
        assert "### BEGIN SOLUTION" not in stub.source
        checkpoint = index_of(committed, f"checkpoint-{ex}")
        solution = index_of(committed, f"solution-{ex}")
        # the folded solution sits right under the stub, so that ticking it and running all passes the checkpoint
        assert solution == index_of(committed, f"exercise-{ex}") + 1 < checkpoint
        folded = committed.cells[solution]
        first, second = folded.source.splitlines()[:2]
        assert first.startswith(f"#@title Solution · {TITLES[ex]} ") and first.endswith('{ display-mode: "form" }')
        assert second == 'use_solution = False  #@param {type:"boolean"}'
        assert folded.metadata["cellView"] == "form" and folded.metadata["jupyter"]["source_hidden"] is True
        assert "NotImplementedError" not in folded.source and "### " not in folded.source
    for ex in HINTED:
        hint = committed.cells[index_of(committed, f"hint-{ex}")]
        assert hint.cell_type == "markdown" and hint.source.startswith("<details>")
        assert index_of(committed, f"hint-{ex}") < index_of(committed, f"exercise-{ex}")
    for other in ("checkpoint-3a", "checkpoint-4b", "checkpoint-results"):
        index_of(committed, other)
    order = [index_of(committed, f"checkpoint-{c}") for c in ["1", "2", "3a", "3b", "4", "4b", "results", "5", "challenge"]]
    assert order == sorted(order), "the checkpoints follow the spec's order"


# what each folded solution provides, and the checkpoint call that checks it
CHECKED = {"1": ("checkpoint_1", ["rnn_cell_step"]), "2": ("checkpoint_2", ["lm_loss_and_ppl"]),
           "3b": ("checkpoint_3b", ["clip_gradients"]), "4": ("checkpoint_4", ["lstm_cell_step"]),
           "5": ("checkpoint_5", ["sample_with_temperature"]),
           "challenge": ("checkpoint_challenge", ["top_k_filter", "nucleus_filter"])}


@pytest.mark.parametrize("ex", EXERCISES)
def test_folded_solution_replaces_nothing_unless_use_solution_is_ticked(committed, ex, capsys):
    folded = committed.cells[index_of(committed, f"solution-{ex}")].source
    checkpoint, names = CHECKED[ex]
    lab = load_lab(M3, "student")                      # the student's functions (stubs here) are in the namespace
    mine = {name: lab[name] for name in names}
    exec(compile(folded, f"<solution-{ex}>", "exec"), lab)       # noqa: S102 - as Run All runs it
    assert {name: lab[name] for name in names} == mine, "an unticked solution cell replaced the student's code"
    assert capsys.readouterr().out == ""
    ticked = folded.replace("use_solution = False", "use_solution = True", 1)
    exec(compile(ticked, f"<solution-{ex}>", "exec"), lab)       # noqa: S102
    assert all(lab[name] is lab[f"reference_{name}"] for name in names)
    assert f"{TITLES[ex]}: the rest of the lab uses the reference" in capsys.readouterr().out
    lab[checkpoint](*(lab[name] for name in names))
    assert "passed (checked the reference " in capsys.readouterr().out


def test_exercise_4_gives_the_four_gate_lines(committed):
    stub = committed.cells[index_of(committed, "exercise-4")].source
    for gate in ("f = torch.sigmoid", "i = torch.sigmoid", "o = torch.sigmoid", "c_tilde = torch.tanh"):
        assert gate in stub
    assert "c = f * c_prev" not in stub and "torch.tanh(c)" not in stub


def test_source_is_jupytext_percent_with_tagged_cells():
    source = read_source(M3)
    assert any("def" in tags(c) for c in source.cells)


@pytest.mark.slow
def test_stub_notebook_stops_at_checkpoint_1_with_a_clear_message(corpus_path, tmp_path, monkeypatch):
    monkeypatch.setenv("LAB_SETTINGS", "quick")
    monkeypatch.setenv("LAB_CORPUS", str(corpus_path))
    monkeypatch.setenv("LAB_DEVICE", "cpu")
    nb = student_notebook(M3)
    with pytest.raises(CellExecutionError) as err:
        NotebookClient(nb, timeout=None, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    message = str(err.value)
    assert "CheckpointError" in message and "Checkpoint 1 (Exercise 1, rnn_cell_step)" in message
    assert "not written yet" in message


@pytest.mark.slow
def test_run_all_with_the_students_own_code_keeps_it_and_survives_a_skipped_challenge(corpus_path, tmp_path,
                                                                                       monkeypatch):
    """Every exercise written by hand (the solution code typed into the stubs), the Challenge skipped: the
    notebook runs to the end, every checkpoint checks the student's own function, and the results are saved."""
    results = tmp_path / "results.json"
    monkeypatch.setenv("LAB_SETTINGS", "quick")
    monkeypatch.setenv("LAB_CORPUS", str(corpus_path))
    monkeypatch.setenv("LAB_DEVICE", "cpu")
    monkeypatch.setenv("LAB_RESULTS", str(results))
    nb, written = student_notebook(M3), solution_notebook(M3)
    for ex in EXERCISES[:-1]:
        nb.cells[index_of(nb, f"exercise-{ex}")].source = written.cells[index_of(written, f"exercise-{ex}")].source
    prediction = next(c for c in nb.cells if c.source.startswith('my_prediction_3a = ""'))
    prediction.source = 'my_prediction_3a = "it shrinks, fast"'
    NotebookClient(nb, timeout=None, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    printed = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    for name in ("Checkpoint 1 (Exercise 1", "Checkpoint 2 (Exercise 2", "Checkpoint 3B (Exercise 3B",
                 "Checkpoint 4 (Exercise 4", "Checkpoint 5 (Exercise 5"):
        assert f"✅ {name}" in printed
    assert "reference" not in printed and "❌" not in printed
    assert "⏭️ Challenge checkpoint (top_k_filter, nucleus_filter): skipped" in printed
    assert "Challenge skipped: nothing more to generate or save." in printed
    saved = json.loads(results.read_text())
    assert saved["lab_run"]["settings"] == "quick" and len(saved["sampling"]["prompts"]) == 5
    assert saved["student"] == {"prediction_3a": "it shrinks, fast"}
    assert "your prediction (saved with your results): it shrinks, fast" in printed and "⚠️ Exercise 3A" not in printed
    first = next(c for c in nb.cells if c.cell_type == "code")
    assert re.match(r"Python 3\.\d+\.\d+ · torch \d\S* · numpy \S+ · matplotlib \S+ · device: cpu \(no GPU",
                    first.outputs[0]["text"]), "the first cell prints the versions it runs on"
    assert {s["strategy"] for s in saved["sampling"]["samples"]} == {"greedy", "temperature"}


@pytest.mark.slow
def test_run_all_stops_where_the_mistakes_catalogue_says_and_saves_nothing_broken(corpus_path, tmp_path, monkeypatch):
    """Two mistakes of lab/<id>/mistakes.yml in one whole Run All of the student notebook: the prediction without
    quotes is read as text and said so, and Exercise 5's re-seeded generator (every character drawn with the same
    random number, which a shape-and-seed check let through) stops at Checkpoint 5 with the message the in-process
    catalogue test asserts, before any results file is written."""
    import yaml

    results = tmp_path / "results.json"
    for name, value in (("LAB_SETTINGS", "quick"), ("LAB_CORPUS", str(corpus_path)), ("LAB_DEVICE", "cpu"),
                        ("LAB_RESULTS", str(results))):
        monkeypatch.setenv(name, value)
    catalogue = yaml.safe_load((M3.lab_dir / "mistakes.yml").read_text(encoding="utf-8"))["mistakes"]
    unquoted = next(m for m in catalogue if m["mistake"] == "the prediction without quotes")
    reseeded = next(m for m in catalogue if m["exercise"] == "5" and "fixed seed" in m["mistake"])
    nb, written = student_notebook(M3), solution_notebook(M3)
    for ex in EXERCISES[:-1]:
        nb.cells[index_of(nb, f"exercise-{ex}")].source = written.cells[index_of(written, f"exercise-{ex}")].source
    nb.cells[index_of(nb, "exercise-5")].source = reseeded["code"]
    next(c for c in nb.cells if c.source.startswith('my_prediction_3a = ""')).source = unquoted["code"]
    with pytest.raises(CellExecutionError) as err:
        NotebookClient(nb, timeout=None, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    assert "Checkpoint 5 (Exercise 5, sample_with_temperature)" in str(err.value)
    for pattern in reseeded["says"]:
        assert re.search(pattern, str(err.value)), pattern
    printed = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    for pattern in unquoted["says"]:
        assert re.search(pattern, printed), pattern
    assert "your prediction (saved with your results): it shrinks fast" in printed
    assert not results.exists(), "a run that stopped at a checkpoint must not save results"


@pytest.mark.slow
def test_a_provided_cell_that_fails_inside_the_students_function_says_which_exercise_to_revisit(tmp_path, monkeypatch):
    """IPython's handler (registered by the checkpoint code cell) frames an error raised inside an exercise's
    function while a provided cell runs it; an error elsewhere keeps its own traceback, unframed."""
    nb = student_notebook(M3)
    nb.cells = [c for c in nb.cells if c.cell_type == "code" and "def" in tags(c)] + [   # definitions only
        nbformat.v4.new_code_cell("def rnn_cell_step(x_t, h_prev, W, U, b):\n"
                                  "    return torch.tanh(h_prev @ W.T + x_t @ U.T + b[:3])"),
        nbformat.v4.new_code_cell("RNNLM(65, d=4, d_h=8)(torch.zeros(1, 3, dtype=torch.long))"),
        nbformat.v4.new_code_cell("torch.zeros(2) @ torch.zeros(3)")]
    monkeypatch.setenv("LAB_DEVICE", "cpu")
    client = NotebookClient(nb, timeout=None, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    def shown(cell):
        return "\n".join("\n".join(o.get("traceback", [])) + o.get("text", "") for o in cell.outputs)
    framed, other = shown(nb.cells[-2]), shown(nb.cells[-1])
    assert "This cell stopped inside your `rnn_cell_step` (Exercise 1), at line 2" in framed, framed
    assert "revisit Exercise 1" in framed and "RuntimeError" in framed
    assert "stopped inside your" not in other and "RuntimeError" in other, other


def test_the_3a_prediction_is_asked_for_before_any_number_and_saved_with_the_results():
    """The measurement cell prints the ⚠️ (or the prediction) first, before the numbers that answer it; the
    results file keeps the prediction; the placeholder line's comment does not give the answer away."""
    source = read_source(M3)
    cell = next(c for c in source.cells if c.cell_type == "code" and "grad_by_distance(rnn," in c.source)
    assert cell.source.startswith("print(prediction_note(globals()))")
    stub = next(c for c in source.cells if c.source.startswith("my_prediction_3a = "))
    assert "constant factor" not in stub.source and "shrinks by" not in stub.source
    saving = next(c for c in source.cells if "lab_results = {" in c.source)
    assert '"student": {"prediction_3a": saved_prediction(globals())}' in saving.source


def test_no_runtime_is_typed_into_the_notebook():
    """Issue 17: no unmeasured runtime ('about 10 minutes of compute', 'about a minute on a T4'); the training
    cells print the time they took instead."""
    source = read_source(M3)
    for cell in source.cells:
        for part in re.split(r"[.·;()]", cell.source):
            if re.search(r"\b(?:minutes?|min|seconds?|hours?)\b", part) and re.search(r"\b(?:T4|GPU|CPU|compute|"
                                                                                      r"notebook)\b", part):
                raise AssertionError(f"a typed runtime: {part.strip()!r}")
    code = "\n".join(c.source for c in source.cells if c.cell_type == "code")
    assert "trained in {PHASE_S['train_rnn']:.0f} s on {device_name(DEVICE)}" in code
    assert "trained in {PHASE_S['train_lstm']:.0f} s on {device_name(DEVICE)}" in code
