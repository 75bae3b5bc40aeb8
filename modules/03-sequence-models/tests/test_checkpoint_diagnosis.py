"""The checkpoints diagnose by probes (issue 42), tested with inputs the tests did not choose.

- Mutants of the reference solutions (scripts/ci/lab_mutants.py: each exercise function changed one syntax node
  at a time, with a fixed seed) must stop at their own checkpoint, with the checkpoint's message (no raw
  traceback), and the messages must name the changed part; the floors are below what `make lab-mutants` logs in
  data/03-sequence-models/checkpoint-diagnosis.md.
- A probe's message never quotes the formula of a part the probes found right (the catalogue's `never_says`).
- Every probe is deterministic: the same wrong function gets the same message twice.
- The 3A prediction cell: any cell Python can read passes untouched (cells made by hypothesis), and a cell that
  does not parse keeps the student's words and names the line it rewrote.
"""
from __future__ import annotations

import ast
import builtins
import contextlib
import io

import pytest
import torch
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from scripts.ci import lab_mutants
from scripts.measure.lab_source import load_lab
from tests.support import this_module

M3 = this_module(__file__)
CATALOGUE = yaml.safe_load((M3.lab_dir / "mistakes.yml").read_text(encoding="utf-8"))["mistakes"]
CHECKPOINT_OF = {"1": ("checkpoint_1", ["rnn_cell_step"]), "2": ("checkpoint_2", ["lm_loss_and_ppl"]),
                 "3b": ("checkpoint_3b", ["clip_gradients"]), "4": ("checkpoint_4", ["lstm_cell_step"]),
                 "5": ("checkpoint_5", ["sample_with_temperature"]),
                 "challenge": ("checkpoint_challenge", ["top_k_filter", "nucleus_filter"])}
STOPPED_FLOOR = 0.98          # share of output-changing mutants stopped at their own checkpoint
NAMED_FLOOR = 0.90            # share of stopped mutants whose message names the changed statement


@pytest.fixture(scope="module")
def lab():
    return load_lab(M3, "solution")


def _message(lab, exercise, code):
    """The checkpoint's message for the catalogue's code in place of the exercise (None when it passes)."""
    ns = dict(lab)
    exec(compile(code, "<student cell>", "exec"), ns)  # noqa: S102 - the catalogue's own cells
    checkpoint, functions = CHECKPOINT_OF[exercise]
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            ns[checkpoint](*[ns[f] for f in functions])
    except lab["CheckpointError"] as failure:
        return str(failure)
    return None


@pytest.fixture(scope="module")
def mutant_outcomes():
    return lab_mutants.run(M3, per_function=20)


def test_mutants_of_the_reference_solutions_stop_at_their_own_checkpoint(mutant_outcomes):
    counted = sum(o.counted for o in mutant_outcomes.values())
    stopped = sum(o.stopped for o in mutant_outcomes.values())
    assert set(mutant_outcomes) == set(CHECKPOINT_OF), "every exercise is mutated"
    assert all(o.counted >= 15 for o in mutant_outcomes.values()), \
        {e: o.counted for e, o in mutant_outcomes.items()}
    raw = [(m.function, m.description, err) for o in mutant_outcomes.values() for m, err in o.raw]
    assert not raw, f"raw tracebacks instead of a checkpoint's message: {raw}"
    survivors = [(m.function, m.description) for o in mutant_outcomes.values() for m in o.survivors]
    assert stopped >= STOPPED_FLOOR * counted, f"{stopped} of {counted} stopped; survivors: {survivors}"


def test_the_messages_name_the_part_the_mutant_changed(mutant_outcomes):
    stopped = sum(o.stopped for o in mutant_outcomes.values())
    named = sum(o.named for o in mutant_outcomes.values())
    unnamed = [(m.function, m.description, msg.splitlines()[0][:200])
               for o in mutant_outcomes.values() for m, msg in o.unnamed]
    assert named >= NAMED_FLOOR * stopped, f"{named} of {stopped} name the part; the others: {unnamed}"


def test_a_mutant_that_changes_nothing_is_not_counted(lab):
    """The equivalence check is real: the reference itself, written another way, is equivalent; a changed
    constant is not."""
    inputs = lab_mutants._load_inputs(M3)
    torch.manual_seed(lab_mutants.SEED)
    reference = lab_mutants._outputs(lab, inputs.calls(lab)["lstm_cell_step"])
    for code, same in (("def lstm_cell_step(x_t, h_prev, c_prev, p):\n    h, c = solution(x_t, h_prev, c_prev, p)"
                        "\n    return h + 0.0, c * 1.0\n", True),
                       ("def lstm_cell_step(x_t, h_prev, c_prev, p):\n    h, c = solution(x_t, h_prev, c_prev, p)"
                        "\n    return h, c * 1.001\n", False)):
        ns = dict(lab, solution=lab["lstm_cell_step"])
        exec(code, ns)  # noqa: S102 - our own variants
        torch.manual_seed(lab_mutants.SEED)
        assert lab_mutants._same(torch, lab_mutants._outputs(ns, inputs.calls(ns)["lstm_cell_step"]), reference) is same


def test_the_mutator_draws_the_same_mutants_from_the_same_seed():
    source = "def f(x, y):\n    a = torch.tanh(x @ y.T + 1.0)\n    return a * x\n"
    draw = lambda: [m.source for m in lab_mutants.mutants(source, "f", 30, lab_mutants.random.Random(3))]  # noqa: E731
    first = draw()
    assert first == draw() and len(first) >= 10
    assert all(ast.parse(m) for m in first) and source.strip() not in first


@pytest.mark.parametrize("entry", [e for e in CATALOGUE if "never_says" in e], ids=lambda e: e["mistake"][:50])
def test_a_probe_never_quotes_the_formula_of_a_part_it_found_right(lab, entry):
    message = _message(lab, entry["exercise"], entry["code"])
    assert message is not None, entry["mistake"]
    for words in entry["never_says"]:
        assert words not in message, f"{entry['mistake']}: the message quotes {words!r}, a part the probes found right:\n{message}"


@pytest.mark.parametrize("entry", [e for e in CATALOGUE if "stops_at" in e and e["exercise"] in CHECKPOINT_OF],
                         ids=lambda e: f"{e['exercise']}:{e['mistake'][:50]}")
def test_every_probe_is_deterministic(lab, entry):
    assert _message(lab, entry["exercise"], entry["code"]) == _message(lab, entry["exercise"], entry["code"])


def test_the_top_k_probe_gives_torch_topk_back_even_when_the_filter_raises(lab):
    before = (torch.topk, torch.Tensor.topk)
    with pytest.raises(ZeroDivisionError), lab["_topk_smallest_first"]():
        assert torch.topk(torch.tensor([3.0, 1.0, 2.0]), 2, sorted=False).values.tolist() == [2.0, 3.0]
        1 / 0
    assert (torch.topk, torch.Tensor.topk) == before
    assert torch.tensor([3.0, 1.0, 2.0]).topk(2).values.tolist() == [3.0, 2.0]


TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=60)


def _cells(text):
    """Valid ways of writing the prediction `text`: one line, parentheses over two lines, comments around it."""
    half = len(text) // 2
    yield f"my_prediction_3a = {text!r}\n"
    yield f"my_prediction_3a = ({text[:half]!r}\n                    {text[half:]!r})\n"
    yield f"# my guess, before the numbers\nmy_prediction_3a = {text!r}  # a comment\n"
    if "{" not in text and "}" not in text:
        yield f"my_prediction_3a = f{text!r}\n"


@settings(max_examples=60, deadline=None)
@given(text=TEXT)
def test_a_prediction_cell_python_can_read_runs_untouched(lab, text):
    for cell in _cells(text):
        lines = cell.splitlines(keepends=True)
        assert lab["quote_prediction"](lines) == lines, cell
        ns = {}
        exec(cell, ns)  # noqa: S102 - a cell made from the text
        assert ns["my_prediction_3a"] == text


def _words(lab):
    """A student's words: lowercase, Python's keywords among them (`is`, `not`, `in`, `and`), but not the names
    of variables the notebook defines or of built-ins, which would make the words a valid expression."""
    known = set(lab) | set(dir(builtins))
    return st.lists(st.from_regex(r"[a-z]{2,9}", fullmatch=True).filter(lambda w: w not in known), min_size=2,
                    max_size=6)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), comments=st.integers(0, 3))
def test_a_cell_that_does_not_parse_keeps_the_words_and_names_the_line_it_rewrote(lab, data, comments):
    words = data.draw(_words(lab))
    sentence = " ".join(words)
    cell = "# a comment\n" * comments + f"my_prediction_3a = {sentence}\n"
    rewritten = "".join(lab["quote_prediction"](cell.splitlines(keepends=True)))
    ns, out = {}, io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(rewritten, ns)  # noqa: S102 - the transformer's output
    assert ns["my_prediction_3a"] == sentence
    assert f"line {comments + 1}" in out.getvalue() and f'my_prediction_3a = "{sentence}"' in out.getvalue()
