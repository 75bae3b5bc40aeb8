"""The generated student notebook: valid, output-free, complete, in order, up to date; and the stubs
stop a real run at the first checkpoint with its clear message."""
import re

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from scripts.lab_source import notebook_text, read_source, student_notebook
from scripts.paths import LAB_SOURCE, STUDENT_NOTEBOOK

EXERCISES = ["1", "2", "3b", "4", "5", "stretch"]
HINTED = ["1", "2", "3b", "4", "5", "stretch"]


@pytest.fixture(scope="module")
def committed():
    return nbformat.read(STUDENT_NOTEBOOK, as_version=4)


def tags(cell):
    return cell.get("metadata", {}).get("tags", [])


def index_of(nb, tag):
    found = [i for i, c in enumerate(nb.cells) if tag in tags(c)]
    assert len(found) == 1, f"expected one cell tagged {tag}, found {len(found)}"
    return found[0]


def test_student_notebook_is_up_to_date_with_its_source(committed):
    assert STUDENT_NOTEBOOK.read_text() == notebook_text(student_notebook()), \
        "lab/lab03_sequence_models.ipynb is stale: run python -m scripts.make_notebooks"


def test_valid_nbformat4_and_output_free(committed):
    nbformat.validate(committed)
    assert committed.nbformat == 4
    for cell in committed.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None
    assert committed.metadata["kernelspec"]["name"] == "python3"
    assert committed.metadata["accelerator"] == "GPU"


def test_colab_needs_nothing_beyond_what_it_ships(committed):
    code = "\n".join(c.source for c in committed.cells if c.cell_type == "code")
    assert not re.search(r"^\s*[!%]\s*pip", code, re.MULTILINE), "the notebook must not pip install anything"
    imported = set(re.findall(r"^\s*(?:import|from) (\w+)", code, re.MULTILINE))
    assert imported <= {"hashlib", "json", "math", "os", "platform", "time", "urllib", "contextlib", "pathlib",
                        "types", "matplotlib", "numpy", "torch"}, imported


def test_every_stub_hint_checkpoint_and_folded_solution_in_order(committed):
    for ex in EXERCISES:
        stub = committed.cells[index_of(committed, f"exercise-{ex}")]
        assert "# TODO (Exercise" in stub.source and "raise NotImplementedError" in stub.source
        assert "### BEGIN SOLUTION" not in stub.source
        checkpoint = index_of(committed, f"checkpoint-{ex}")
        solution = index_of(committed, f"solution-{ex}")
        assert index_of(committed, f"exercise-{ex}") < checkpoint < solution == checkpoint + 1
        folded = committed.cells[solution]
        assert folded.source.startswith("#@title Solution") and '{ display-mode: "form" }' in folded.source.splitlines()[0]
        assert "NotImplementedError" not in folded.source and "### " not in folded.source
    for ex in HINTED:
        hint = committed.cells[index_of(committed, f"hint-{ex}")]
        assert hint.cell_type == "markdown" and hint.source.startswith("<details>")
        assert index_of(committed, f"hint-{ex}") < index_of(committed, f"exercise-{ex}")
    for other in ("checkpoint-3a", "checkpoint-4b", "checkpoint-results"):
        index_of(committed, other)
    order = [index_of(committed, f"checkpoint-{c}") for c in ["1", "2", "3a", "3b", "4", "4b", "results", "5", "stretch"]]
    assert order == sorted(order), "the checkpoints follow the spec's order"


def test_exercise_4_gives_the_four_gate_lines(committed):
    stub = committed.cells[index_of(committed, "exercise-4")].source
    for gate in ("f = torch.sigmoid", "i = torch.sigmoid", "o = torch.sigmoid", "c_tilde = torch.tanh"):
        assert gate in stub
    assert "c = f * c_prev" not in stub and "torch.tanh(c)" not in stub


def test_source_is_jupytext_percent_with_tagged_cells():
    source = read_source(LAB_SOURCE)
    assert any("def" in tags(c) for c in source.cells)


@pytest.mark.slow
def test_stub_notebook_stops_at_checkpoint_1_with_a_clear_message(corpus_path, tmp_path, monkeypatch):
    monkeypatch.setenv("LAB3_SETTINGS", "quick")
    monkeypatch.setenv("LAB3_CORPUS", str(corpus_path))
    monkeypatch.setenv("LAB3_DEVICE", "cpu")
    nb = student_notebook()
    with pytest.raises(CellExecutionError) as err:
        NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    message = str(err.value)
    assert "CheckpointError" in message and "Checkpoint 1 (Exercise 1, rnn_cell_step)" in message
    assert "not written yet" in message
