# ---
# jupyter:
#   accelerator: GPU
#   colab:
#     gpuType: T4
#     provenance: []
#   jupytext:
#     cell_metadata_filter: tags,-all
#     formats: py:percent
#     notebook_metadata_filter: accelerator,colab,kernelspec
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lab 3 · Sequence Models
#
# **Module 3, Day 1 · about 37 minutes of exercises in a 50-minute slot · Colab T4 GPU or any CPU
# (the training cells print how long they took on yours).**
#
# You will write the RNN cell, the language-model loss, gradient clipping, the LSTM cell update and
# temperature sampling; train a character RNN and an LSTM on Tiny Shakespeare; watch the RNN's
# gradient vanish; and compare both models with Lab 1's character n-grams on exactly the same test
# characters.
#
# | Part | Exercise | Briefing section | Time |
# |---|---|---|---|
# | A · Recurrent Networks | 1 · An RNN Cell by Hand | 2 | 8 min |
# | | 2 · Loss, Perplexity and Bits per Character | 3, 6 | 6 min |
# | | 3A, 3B · Vanishing and Exploding Gradients | 4 | 9 min |
# | B · The LSTM | 4 · The LSTM Cell | 5 | 6 min |
# | C · Generating Text | 5 · Sampling With Temperature | 7 | 8 min |
# | Challenge | Top-k and Nucleus Sampling | 7 | optional |
#
# **How the exercises work.** Each exercise is a `# TODO` stub that raises `NotImplementedError`
# until you write it. Where people tend to stall, a folded **hint** sits above the stub. Right
# below the stub is a folded **solution** cell, and below that a **checkpoint** cell that tells you
# whether your code is right, and names what differs if it is not. The solution cell changes nothing
# unless you ask it to: run as it is (Run All does), it only defines the reference code under another
# name (`reference_rnn_cell_step`, ...), and the rest of the lab uses **your** function. If you are
# stuck, tick its `use_solution` box (outside Colab: set `use_solution = True`) and run it, or Run All
# again: from then on the lab uses the reference code, and the checkpoint says so. To go back to your
# own code, untick the box and run your exercise cell again. The exercises are Exercise 1, 2, 3A, 3B,
# 4 and 5, and an optional Challenge at the end; skipping the Challenge never stops the notebook, and
# the results are saved before it.
#
# **Before you start:** Runtime → Change runtime type → T4 GPU. Then run the cells from the top.
# Without a GPU everything still runs on the CPU, more slowly.

# %% [markdown]
# ## Setup (provided)
#
# Settings live in one place. `full` is the published run; `quick` trains for a few steps only (it
# checks that everything runs). The build selects them from outside with
# the environment variables `LAB_SETTINGS`, `LAB_DEVICE`, `LAB_CORPUS` and `LAB_RESULTS`.

# %% tags=["def"]
#@title Settings and imports (provided) { display-mode: "form" }
import ast
import builtins
import difflib
import functools
import hashlib
import json
import math
import os
import platform
import re
import time
import traceback
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

MIN_TORCH = (2, 0)   # the oldest torch the lab is written for (the build runs a current 2.x)


def version_tuple(version):
    """'2.13.0+cpu' -> (2, 13); '1.13.1' -> (1, 13)."""
    parts = [int("".join(ch for ch in part if ch.isdigit()) or 0) for part in version.split("+")[0].split(".")[:2]]
    return tuple(parts + [0] * (2 - len(parts)))


def check_torch(version=torch.__version__, minimum=MIN_TORCH):
    """Stops the notebook here, with what to do, when torch is older than the lab needs."""
    if version_tuple(version) < tuple(minimum):
        raise RuntimeError(f"this lab needs torch {'.'.join(map(str, minimum))} or newer; this runtime has torch "
                           f"{version}. In Colab: Runtime → Disconnect and delete runtime, then run again (Colab "
                           "ships a current torch); elsewhere: pip install --upgrade torch") from None


check_torch()

SETTINGS_PRESETS = {
    "full": dict(
        seed=0,
        batch_size=64,         # chunks per training step
        chunk_len=128,         # T: characters per training chunk (truncated BPTT)
        rnn_steps=1000,
        lstm_steps=2000,
        lr=3e-3,               # Adam, both models
        clip_kappa=1.0,        # both models train with clipping at kappa = 1
        eval_chunk=1000,       # evaluation reads a split as one stream in chunks of 1,000
        grad_chunks=64,        # Exercise 3A: 64 validation chunks ...
        grad_chunk_len=200,    # ... of 200 characters, loss at the last position only
        sgd_steps=150,         # Exercise 3B demonstration: plain SGD ...
        sgd_lr=2.0,            # ... at a deliberately high learning rate
        sample_len=300,        # Exercise 5: characters generated per strategy
        demo_prompts=5,        # the briefing page's sampling demo: prompts from the test split ...
        demo_sample_len=150,   # ... and characters generated per prompt and strategy
        log_every=100,
    ),
}
# quick: the same code path with tiny step counts (the build and CI run the whole notebook with it)
SETTINGS_PRESETS["quick"] = dict(SETTINGS_PRESETS["full"], rnn_steps=30, lstm_steps=30, grad_chunks=8,
                                 sgd_steps=20, sample_len=80, log_every=10)

SETTINGS_NAME = os.environ.get("LAB_SETTINGS", "full")
if SETTINGS_NAME not in SETTINGS_PRESETS:
    raise ValueError(f"LAB_SETTINGS={SETTINGS_NAME!r}: expected one of {sorted(SETTINGS_PRESETS)}")
S = SimpleNamespace(**SETTINGS_PRESETS[SETTINGS_NAME])
DEVICE = torch.device(os.environ.get("LAB_DEVICE") or ("cuda" if torch.cuda.is_available() else "cpu"))

CORPUS_SHA256 = "86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed"
LAB_MODULE = "03-sequence-models"   # the course module this lab belongs to, saved with your results
LAB_SOURCE_SHA256 = None            # the notebook's generator writes the lab source's sha256 here
CORPUS_URL = "https://raw.githubusercontent.com/karpathy/char-rnn/master/data/tinyshakespeare/input.txt"
SPLIT = dict(train=(0, 1_000_000), val=(1_000_000, 1_055_000), test=(1_055_000, 1_115_394))
D_EMBED, D_HIDDEN = 64, 256   # d and d_h for both models

PHASE_S = {}                  # seconds per phase of this run, saved with the results
VERSIONS = (f"Python {platform.python_version()} · torch {torch.__version__} · numpy {np.__version__} · matplotlib "
            f"{matplotlib.__version__} · device: {DEVICE}"
            + (f" ({torch.cuda.get_device_name(DEVICE)})" if DEVICE.type == "cuda" else " (no GPU: slower, still fine)"))
if __name__ == "__main__":    # in the notebook (the tests load these cells quietly)
    print(VERSIONS)


def device_name(device):
    """The GPU's model, or the CPU's model name (for the results' provenance)."""
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cpu_count():
    """How many CPUs this process may run on (a container's limit, not the host's count), for the provenance: the
    lab's time on a CPU depends on it."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:                                          # macOS and Windows have no affinity call
        return os.cpu_count()


@contextmanager
def timed(phase):
    """Adds the wall-clock seconds of a block to PHASE_S[phase]."""
    t0 = time.perf_counter()
    try:
        yield
    finally:
        if DEVICE.type == "cuda":
            torch.cuda.synchronize()
        PHASE_S[phase] = PHASE_S.get(phase, 0.0) + time.perf_counter() - t0


# %% tags=["def"]
#@title Checkpoint code (provided; you do not need to read it) { display-mode: "form" }
class CheckpointError(AssertionError):
    """A checkpoint failed: the message names the exercise and what differed."""


def _fail(which, message):
    raise CheckpointError(f"❌ {which}: {message}") from None


def _passed(which, message, *functions):
    """Prints the pass line; says so when a checked function is a folded solution's reference code."""
    used = [f.__name__[len("reference_"):] for f in functions if getattr(f, "__name__", "").startswith("reference_")]
    note = f" (checked the reference {', '.join(used)} from the folded solution)" if used else ""
    print(f"✅ {which} passed{note}: {message}")


NUMPY_ON_GRAD = ("Can't call numpy() on Tensor that requires grad",)
ERROR_HINTS = (   # PyTorch's words -> what to change, in a beginner's words
    ("view size is not compatible", ".view needs a tensor laid out in one block of memory, and the lab passes slices "
                                    "(like emb[:, t] or chunk[:, 1:]) that are not: use .reshape, which works on both."),
    ("prob_dist must be 1 or 2 dim", "torch.multinomial takes only 1-D or 2-D probabilities: reshape the probabilities "
                                     "to (N, |V|) first, then the (N, 1) draws back to the rows' shape."),
    ("selected index k out of range", "torch.topk found fewer than k entries along the dimension it was given: take "
                                      "it along the vocabulary, the last dimension (dim=-1)."),
    ("probability tensor contains either", "torch.multinomial needs probabilities (none negative): take "
                                           "torch.softmax(logits / tau, dim=-1) first and draw from that."),
)
MATMUL = re.compile(r"mat1 and mat2 shapes cannot be multiplied \((\d+)x(\d+) and (\d+)x(\d+)\)")
ELEMENTWISE = re.compile(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at non-singleton "
                         r"dimension (\d+)")


def _dim_names(shape, dims):
    """(4, 7) -> '(B, d_h)' when dims = {'B': 4, 'd_h': 7, ...}; a size no dimension has, or two have, stays a number."""
    names = []
    for n in shape:
        hits = [name for name, size in (dims or {}).items() if size == n]
        names.append(hits[0] if len(hits) == 1 else str(n))
    return "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"


def _named_tensors(named):
    """{name: tensor} of a call's arguments, with the fields of a parameter namespace as p.W_f, ..."""
    out = {}
    for name, value in named:
        if torch.is_tensor(value):
            out[name] = value
        elif isinstance(value, SimpleNamespace):
            out.update({f"{name}.{k}": v for k, v in vars(value).items() if torch.is_tensor(v)})
    return out


def _describe(value, dims):
    if torch.is_tensor(value):
        shape = tuple(value.shape)
        text = f"{shape}" if not dims or _dim_names(shape, dims) == str(shape).replace(" ", "") else \
            f"{shape} = {_dim_names(shape, dims)}"
        return text + (f" {str(value.dtype).replace('torch.', '')}" if value.dtype != torch.float32 else "")
    if isinstance(value, SimpleNamespace):
        shapes = {}
        for k, v in vars(value).items():
            shapes.setdefault(_dim_names(tuple(v.shape), dims), []).append(k[:2] + "*")
        return "(" + ", ".join(f"{'/'.join(dict.fromkeys(ks))} {s}" for s, ks in shapes.items()) + ")"
    if isinstance(value, list):
        return f"a list of {len(value)} parameters"
    if isinstance(value, torch.Generator):
        return "a torch.Generator"
    if hasattr(value, "__next__"):
        return "a generator of parameters (readable once, like model.parameters())"
    return repr(value)


def _call_line(fn_name, named, dims):
    """rnn_cell_step(x_t: (4, 5) = (B, d), ...), with B = 4, d = 5, d_h = 7"""
    args = ", ".join(f"{name}: {_describe(value, dims)}" for name, value in named)
    sizes = ", ".join(f"{name} = {size:,}" for name, size in (dims or {}).items())
    grads = [name for name, value in named if torch.is_tensor(value) and value.requires_grad]
    return f"{fn_name}({args})" + (f", with {sizes}" if sizes else "") + \
        (f"; {', '.join(grads)} carr{'y' if len(grads) > 1 else 'ies'} gradients" if grads else "")


def _shape_lines(err, named, dims, products):
    """For a shape error: which dimension each size is, which matrix met which, and the products the exercise
    needs (`products`, e.g. 'h_prev @ W.T: (B, d_h) @ (d_h, d_h)')."""
    text, lines = str(err), []
    tensors = _named_tensors(named)

    def which(shape):
        found = [n for n, t in tensors.items() if tuple(t.shape) == shape] + \
                [n + ".T" for n, t in tensors.items() if t.dim() == 2 and tuple(t.shape)[::-1] == shape]
        if not found:
            return ""
        return " (" + (" or ".join(found[:3]) + (", ..." if len(found) > 3 else "")) + \
               (", or a result of that shape" if shape[0] != shape[-1] else "") + ")"
    m = MATMUL.search(text)
    if m:
        a, b = (int(m.group(1)), int(m.group(2))), (int(m.group(3)), int(m.group(4)))
        lines.append(f"    In A @ M, A is {a} = {_dim_names(a, dims)}{which(a)} and M is {b} = {_dim_names(b, dims)}"
                     f"{which(b)}: A's last dimension ({_dim_names(a[1:], dims)[1:-2]} = {a[1]}) must equal M's "
                     f"first ({_dim_names(b[:1], dims)[1:-2]} = {b[0]}).")
    m = ELEMENTWISE.search(text)
    if m:
        a, b = int(m.group(1)), int(m.group(2))
        lines.append(f"    An elementwise operation (+, -, *) met a tensor whose dimension {m.group(3)} is "
                     f"{_dim_names((a,), dims)[1:-2]} = {a} and one whose dimension {m.group(3)} is "
                     f"{_dim_names((b,), dims)[1:-2]} = {b}; they must be equal (or 1).")
    if lines and products:
        lines.append("    The products this exercise needs, with one row per sequence: " + "; ".join(products) + ".")
    return lines


def _error_lines(err, fn=None, named=(), dims=None, products=()):
    """The original error, and the line of the student's function it came from, indented beneath; for a shape
    error, what each size is; for NumPy on a tensor that carries gradients, that (and not PyTorch's advice)."""
    if any(words in str(err) for words in NUMPY_ON_GRAD):
        lines = [f"    {type(err).__name__}: NumPy was called on a tensor that carries gradients (an np. function, or .numpy()).",
                 "    Stay in torch: torch.tanh, torch.exp, torch.log_softmax, @ and * work on these tensors and keep "
                 "the gradients the lab trains with. (PyTorch's own advice, .detach().numpy(), would cut them.)"]
    else:
        lines = [f"    {type(err).__name__}: {err}"]
    code = getattr(fn, "__code__", None)
    frames = [f for f in traceback.extract_tb(err.__traceback__) if code and f.filename == code.co_filename]
    if frames:
        where = frames[-1]
        lines.insert(1, f"    at line {where.lineno} of `{fn.__name__}`" + (f": {where.line}" if where.line else ""))
    if any(words in str(err) for words in ("in-place", "inplace", "written-to tensor")):
        lines.append("    An operation changed a tensor in place (+=, *=, x[...] = ..., or a method ending in _ such as "
                     "add_) that the gradient still needs: compute a new tensor instead, a = a + b.")
    for words, hint in ERROR_HINTS:
        if words in str(err):
            lines.append("    " + hint)
    lines += _shape_lines(err, named, dims, products)
    return "\n".join(lines)


PREDICTION_NAME = "my_prediction_3a"
PREDICTION_LINE = re.compile(r"^(\s*" + PREDICTION_NAME + r"\s*=\s*)(.*?)\s*$")


def _unknown_name(value, known):
    """True when the prediction's value is words without quotes: no text or number in it, and a name that Python
    knows neither in `known` (the namespace and the cell's own assignments) nor as a built-in, so that running the
    cell could only stop with a NameError (`my_prediction_3a = shrinks`, `= not sure`, `= shrinks and fast`)."""
    nodes = list(ast.walk(value))
    return not any(isinstance(n, (ast.Constant, ast.JoinedStr, ast.Call)) for n in nodes) and any(
        isinstance(n, ast.Name) and n.id not in known and not hasattr(builtins, n.id) for n in nodes)


def quote_prediction(lines):
    """An IPython input transformer (registered below). A cell that Python can read runs exactly as written, on
    any number of lines (parenthesized or triple-quoted strings, comments, f-strings). Only when the whole cell
    does not parse, or its prediction is a bare word Python does not know (a NameError), is the prediction line
    read as the words after `my_prediction_3a =`; the cell then says which line it rewrote, and how to write it,
    so the student's words are kept."""
    source = "".join(lines)
    try:
        tree = ast.parse(source)
    except SyntaxError:
        tree = None
    if tree is not None:
        known = set(quote_prediction.__globals__) | {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)
                                                      and isinstance(node.ctx, ast.Store)}
        unknown = [node.lineno - 1 for node in ast.walk(tree) if isinstance(node, ast.Assign)
                   and [getattr(t, "id", None) for t in node.targets] == [PREDICTION_NAME]
                   and _unknown_name(node.value, known)]
        if not unknown:
            return lines                                        # valid Python: untouched
    for n, line in enumerate(lines):
        m = PREDICTION_LINE.match(line)
        if not m or (tree is not None and n not in unknown):
            continue
        text = re.sub(r"\s+#.*$", "", m.group(2)).strip().strip("\"'").strip()
        note = (f"⚠️ Exercise 3A: your prediction was not in quotes, so Python could not read it as text. This cell's "
                f"line {n + 1}, {line.strip()!r}, ran as {PREDICTION_NAME} = {text!r}: it is saved as the sentence "
                f"{text!r}. Next time write it as a sentence in double quotes: {PREDICTION_NAME} = \"{text}\"")
        rewritten = list(lines)
        rewritten[n] = f"{m.group(1)}{text!r}; print({note!r})\n"
        try:
            ast.parse("".join(rewritten))
        except SyntaxError:
            return lines                                        # the rewrite would not help: Python says why
        return rewritten
    return lines


INPUT_TRANSFORMERS = [quote_prediction]
EXERCISE_OF = {"rnn_cell_step": "Exercise 1", "lm_loss_and_ppl": "Exercise 2", "clip_gradients": "Exercise 3B",
               "lstm_cell_step": "Exercise 4", "sample_with_temperature": "Exercise 5",
               "top_k_filter": "the Challenge", "nucleus_filter": "the Challenge"}


def inside_your_code(err, namespace):
    """When `err` was raised inside one of the student's exercise functions (the one of that name now defined),
    the lines that say so and which exercise to revisit; else None."""
    if isinstance(err, CheckpointError):
        return None
    for frame in reversed(traceback.extract_tb(err.__traceback__)):
        fn = namespace.get(frame.name)
        if frame.name in EXERCISE_OF and frame.filename == getattr(getattr(fn, "__code__", None), "co_filename", None):
            return (f"❌ This cell stopped inside your `{frame.name}` ({EXERCISE_OF[frame.name]}), at line "
                    f"{frame.lineno}: {frame.line}\n    {type(err).__name__}: {err}\n    Its checkpoint cannot try "
                    f"everything this cell does: revisit {EXERCISE_OF[frame.name]} with "
                    "the error above (the full traceback follows), run its checkpoint again, then this cell.")
    return None


def _framed_traceback(shell, etype, value, tb, tb_offset=None):
    """IPython's handler for errors in any cell: the framing of inside_your_code first, then the usual traceback."""
    value.__traceback__ = tb
    lines = shell.InteractiveTB.structured_traceback(etype, value, tb, tb_offset=tb_offset)
    framed = inside_your_code(value, shell.user_ns)
    stb = ([framed, ""] if framed else []) + lines
    shell._showtraceback(etype, value, stb)                    # how IPython shows any traceback (and sends it)
    return stb


try:                                                           # in a notebook: Colab, Jupyter, the course's build
    _shell = get_ipython()  # noqa: F821 - IPython defines it
    _shell.input_transformers_cleanup[:] = [t for t in _shell.input_transformers_cleanup
                                            if getattr(t, "__name__", "") != quote_prediction.__name__]
    _shell.input_transformers_cleanup.append(quote_prediction)
    _shell.set_custom_exc((RuntimeError, TypeError, ValueError, IndexError, AttributeError, KeyError),
                          _framed_traceback)
except NameError:                                              # plain Python (the course's tests load these cells)
    pass


def checkpoint(which):
    """Wraps a check: any error raised while it checks the student's code (calling it, or using what it
    returned the way the lab later does) becomes this checkpoint's failure, with the original error beneath."""
    def wrap(check):
        @functools.wraps(check)
        def run(*args, **kwargs):
            try:
                return check(which, *args, **kwargs)
            except CheckpointError as failure:
                message = str(failure)
            except Exception as err:  # noqa: BLE001 - reported as the checkpoint's failure, not raw
                message = (f"❌ {which}: what your function returned cannot be used the way the lab uses it:\n"
                           + _error_lines(err))
            raise CheckpointError(message) from None   # a short traceback: the checkpoint cell, then this line
        run.which = which
        return run
    return wrap


def _call(which, fn, *args, how="as the lab calls it", names=None, dims=None, products=()):
    """Calls a student's function; turns its exceptions into this checkpoint's failure, with the call that raised
    it: the inputs' shapes (named by dimension: B, T, d, d_h, |V|), the setting (`how`) and the original error."""
    names = names or [f"argument {i + 1}" for i in range(len(args))]
    before = {name: arg.detach().clone() for name, arg in zip(names, args) if torch.is_tensor(arg)}
    try:
        got = fn(*args)
    except NotImplementedError:
        _fail(which, f"`{fn.__name__}` is not written yet (it still raises NotImplementedError). Replace the "
                     "`# TODO` lines, or tick `use_solution` in the folded solution cell right under your "
                     "exercise cell and run it.")
    except Exception as err:  # noqa: BLE001 - any error in student code is reported, not re-raised raw
        named = list(zip(names, args))
        _fail(which, f"`{fn.__name__}` raised an error, called {how}:\n"
                     f"    the call: {_call_line(fn.__name__, named, dims)}\n"
                     + _error_lines(err, fn, named, dims, products))
    for name, arg in zip(names, args):
        if name in before and not torch.equal(arg.detach(), before[name]):
            _fail(which, f"`{fn.__name__}` changed its argument `{name}` in place (called {how}); the lab reads it "
                         "again afterwards. Compute a new tensor instead: a = a + b rather than a += b, masked_fill "
                         "rather than masked_fill_ or x[mask] = ...")
    return got


NAMES_5 = ("logits", "tau", "generator")


def _row(t, n=4):
    """The first entries of a tensor's first row, for 'expected ..., got ...'."""
    values = t.detach().reshape(-1, t.shape[-1])[0, :n].tolist() if torch.is_tensor(t) and t.dim() else []
    return "(" + ", ".join(f"{v:.4f}" for v in values) + (", ..." if torch.is_tensor(t) and t.shape[-1] > n else "") + ")"


def _num(value):
    """A number from what a student's function returned (a tensor that may carry gradients, or a number)."""
    return float(value.detach()) if torch.is_tensor(value) else float(value)


def _what(value):
    """What a returned value is, in a beginner's words."""
    if value is None:
        return "None"
    if torch.is_tensor(value):
        return "a tensor" + (f" of shape {tuple(value.shape)}" if value.dim() else " (a single number)")
    if isinstance(value, (tuple, list)):
        return f"a {type(value).__name__} of {len(value)}"
    if isinstance(value, (int, float)):
        return f"a Python number ({value!r})"
    return f"a {type(value).__name__}"


def _returned_none(which, fn, what):
    if fn is not None:
        _fail(which, f"`{fn.__name__}` returned None: did the function end with `return ...`? It should return "
                     f"{what}; without a return line, a Python function gives back None.")


def _check_tensor(which, name, got, shape, dtype=None, fn=None):
    if got is None:
        _returned_none(which, fn, name)
    if isinstance(got, (tuple, list)) and fn is not None:
        _fail(which, f"`{fn.__name__}` returned {_what(got)}; it should return one tensor: return only {name}")
    if not torch.is_tensor(got):
        _fail(which, f"{name} should be a tensor, got {_what(got)}")
    if tuple(got.shape) != tuple(shape):
        same = got.numel() == math.prod(shape)
        _fail(which, f"{name} has shape {tuple(got.shape)}, expected {tuple(shape)}"
                     + (f": the same {got.numel()} entries in another shape; reshape it to {tuple(shape)}" if same else ""))
    if dtype is not None and got.dtype != dtype:
        _fail(which, f"{name} has dtype {got.dtype}, expected {dtype}")


def _first_difference(got, want, atol=1e-5):
    """'first differs at row 0, column 3: expected 0.1234, got 0.5678' (2-D and 1-D tensors)."""
    bad = ((got - want).abs() > atol).nonzero()
    if not len(bad):
        return ""
    at = tuple(int(i) for i in bad[0])
    where = f"row {at[0]}, column {at[1]}" if len(at) == 2 else f"entry {at}"
    return f"first differs at {where}: expected {float(want[at]):.4f}, got {float(got[at]):.4f}"


def _check_gradients(which, output_name, got, want, inputs, used_for):
    """got and want: outputs computed from the same leaf tensors (inputs: {name: (student's leaf, reference leaf)}).
    The student's output must carry gradients, and the same ones as the reference, to every input."""
    if not got.requires_grad or got.grad_fn is None:
        _fail(which, f"{output_name} does not carry gradients: the lab {used_for}. Do not compute it under "
                     "torch.no_grad(), and do not use .detach(), .data, .item(), .numpy() or torch.tensor(...) "
                     "inside: each gives a copy without the gradient.")
    weights = torch.randn(got.shape, generator=torch.Generator().manual_seed(0))
    names = list(inputs)
    mine = torch.autograd.grad((got * weights).sum(), [inputs[n][0] for n in names], allow_unused=True,
                               retain_graph=True)
    ref = torch.autograd.grad((want * weights).sum(), [inputs[n][1] for n in names], allow_unused=True,
                              retain_graph=True)
    for name, a, b in zip(names, mine, ref):
        if a is None and b is not None:
            _fail(which, f"{output_name} carries no gradient back to {name}: the lab {used_for}. "
                         f"Use {name} itself (not {name}.detach() or {name}.data).")
        if b is not None and not torch.allclose(a, b, atol=1e-5):
            _fail(which, f"the gradient of {output_name} with respect to {name} differs from the reference by "
                         f"up to {float((a - b).abs().max()):.3g}: the lab {used_for}.")


RNN_TERMS = {"b": "the bias b", "W": "the recurrent term h_prev @ W.T", "U": "the input term x_t @ U.T"}


def _diagnose_rnn(which, fn):
    """Isolates the part of an RNN step that differs, with crafted probes: W, U and b all 0 (so a_t = 0 and
    h_t = tanh(0) = 0), then one of them at a time. Returns the message: what is wrong, how the probe shows it,
    what to change; or that the probes could not tell."""
    g = torch.Generator().manual_seed(11)
    x, h = torch.randn(2, 3, generator=g), torch.randn(2, 4, generator=g)
    values = {"W": torch.randn(4, 4, generator=g), "U": torch.randn(4, 3, generator=g), "b": torch.randn(4, generator=g)}

    def probe(on=None):
        W, U, b = (values[k] if k == on else torch.zeros_like(values[k]) for k in ("W", "U", "b"))
        got = _call(which, fn, x, h, W, U, b, names=("x_t", "h_prev", "W", "U", "b"),
                    how="on a probe the checkpoint crafted (some weights set to 0)")
        return (got.detach().double() if torch.is_tensor(got) else None), W, U, b
    got, *_ = probe()
    if got is None or got.shape != (2, 4):
        return None
    if not _near(got, torch.zeros(2, 4, dtype=torch.float64)):
        shown = f"With W, U and b all 0, a_t = 0 and h_t should be tanh(0) = 0 everywhere; yours is {_vec(got)}"
        if _near(got, torch.full_like(got, 0.5)):
            return f"the squashing function differs. {shown}, sigmoid(0). Equation 1 squashes with torch.tanh."
        if float(got.max() - got.min()) < 1e-4 and abs(float(got.mean())) < 1:
            return (f"something is added inside the tanh. {shown}, tanh({float(torch.atanh(got.mean())):.2g}) "
                    "everywhere: a_t has only three terms, and with their weights 0 it is 0.")
        return (f"x_t or h_prev reach h_t without their weights. {shown}. Each enters a_t only through its weight "
                "matrix: h_prev @ W.T and x_t @ U.T.")
    for term in ("b", "W", "U"):
        got, W, U, b = probe(term)
        want = torch.tanh(h @ W.T + x @ U.T + b).double()
        if got is None or _near(got, want):
            continue
        shown = (f"With W, U and b all 0 your h_t is right (0). With only {term} set, h_t should be {_vec(want)} and "
                 f"yours is {_vec(got)}")
        if term == "W" and _near(got, torch.tanh(h @ W).double()):
            return (f"{RNN_TERMS[term]} differs. {shown}, which is tanh(h_prev @ W): W is not transposed. With one "
                    "sequence per row, W h_(t-1) is h_prev @ W.T.")
        if _near(got, torch.zeros_like(got)):
            return f"{RNN_TERMS[term]} is missing. {shown}: {term} never reaches h_t."
        if _near(got, torch.atanh(want.clamp(-0.999999, 0.999999))):
            return (f"{RNN_TERMS[term]} is added outside the tanh. {shown}, the term itself, not squashed. Equation 1 "
                    "squashes the whole sum: h_t = tanh(a_t), with every term of a_t inside the tanh.")
        return (f"{RNN_TERMS[term]} differs. {shown}. Check that term of a_t: it enters once, as "
                f"{ {'b': '+ b', 'W': 'h_prev @ W.T', 'U': 'x_t @ U.T'}[term]}.")
    return None


@checkpoint("Checkpoint 1 (Exercise 1, rnn_cell_step)")
def checkpoint_1(which, rnn_cell_step):
    """Exercise 1: rnn_cell_step against nn.RNNCell with the same weights, values and gradients, called the way
    RNNLM calls it (weights are trainable parameters, inputs carry gradients, x_t is a slice of the embeddings),
    at a small size and at the lab's own."""
    g = torch.Generator().manual_seed(1)
    B, d, d_h = 4, 5, 7
    with torch.random.fork_rng(devices=[]):                  # the same reference on every run
        torch.manual_seed(1)
        cell = nn.RNNCell(d, d_h)
    emb = torch.randn(B, 3, d, generator=g, requires_grad=True)
    x, h = emb[:, 1], torch.randn(B, d_h, generator=g, requires_grad=True)   # x_t = emb[:, t], as RNNLM passes it
    W, U = nn.Parameter(cell.weight_hh.detach().clone()), nn.Parameter(cell.weight_ih.detach().clone())
    b = nn.Parameter((cell.bias_ih + cell.bias_hh).detach().clone())
    names, dims = ("x_t", "h_prev", "W", "U", "b"), dict(B=B, d=d, d_h=d_h)
    products = ("h_prev @ W.T is (B, d_h) @ (d_h, d_h)", "x_t @ U.T is (B, d) @ (d, d_h)")
    got = _call(which, rnn_cell_step, x, h, W, U, b, how="as RNNLM calls it at every step of training",
                names=names, dims=dims, products=products)
    _check_tensor(which, "h_t", got, (B, d_h), torch.float32, fn=rnn_cell_step)
    want = cell(x, h)
    if not torch.allclose(got.detach(), want.detach(), atol=1e-5):
        xd, hd, Wd, Ud, bd, gd = (t.detach() for t in (x, h, W, U, b, got))
        a_t = hd @ Wd.T + xd @ Ud.T + bd
        known_mistakes = {
            "the bias b is missing": torch.tanh(hd @ Wd.T + xd @ Ud.T),
            "tanh is missing (that is a_t, not h_t)": a_t,
            "W is not transposed: with batches in rows, W h_(t-1) is h_prev @ W.T": torch.tanh(hd @ Wd + xd @ Ud.T + bd),
            "it applies sigmoid where Equation 1 has torch.tanh": torch.sigmoid(a_t),
            "it applies relu where Equation 1 has torch.tanh": torch.relu(a_t),
        }
        for mistake, value in known_mistakes.items():
            if torch.allclose(gd, value, atol=1e-5):
                _fail(which, f"your output matches a common mistake: {mistake}.")
        found = _diagnose_rnn(which, rnn_cell_step)
        _fail(which, f"differs from nn.RNNCell by up to {float((gd - want.detach()).abs().max()):.3g}: on the "
                     f"first row, expected {_row(want)}, got {_row(gd)}; {_first_difference(gd, want.detach())}. "
                     + (f"To find where, the checkpoint tried crafted weights: {found}" if found else
                        "The checkpoint's probes (W, U and b set to 0, then one at a time) could not tell which part "
                        "differs: each is right alone. Equation 1: a_t = W h_(t-1) + U x_t + b, h_t = tanh(a_t); with "
                        "batches in rows, a_t = h_prev @ W.T + x_t @ U.T + b."))
    _check_gradients(which, "h_t", got, want,
                     {"h_prev": (h, h), "x_t": (x, x), "W": (W, cell.weight_hh), "U": (U, cell.weight_ih),
                      "b": (b, cell.bias_ih)},
                     "trains W, U and b through this function, and Exercise 3A backpropagates through it")
    B, d, d_h = S.batch_size, D_EMBED, D_HIDDEN                 # the lab's own sizes
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(1)
        cell = nn.RNNCell(d, d_h)
    x, h = torch.randn(B, 2, d, generator=g)[:, 0], torch.randn(B, d_h, generator=g)
    got = _call(which, rnn_cell_step, x, h, cell.weight_hh, cell.weight_ih, cell.bias_ih + cell.bias_hh,
                how=f"at the lab's own sizes, as training calls it (a size typed into the function, like the first "
                    "call's B = 4, fails here)", names=names, dims=dict(B=B, d=d, d_h=d_h),
                products=products)
    _check_tensor(which, "h_t at the lab's own sizes", got, (B, d_h), torch.float32, fn=rnn_cell_step)
    if not torch.allclose(got.detach(), cell(x, h).detach(), atol=1e-5):
        _fail(which, f"right at B = 4, d = 5, d_h = 7 but not at the lab's own sizes B = {B}, d = {d}, d_h = {d_h}: "
                     "look for a size typed into the function (a reshape to 4 rows, say); take sizes from the inputs "
                     "(x_t.shape[0]) or let @ and broadcasting handle them")
    _passed(which, f"matches nn.RNNCell (max |difference| {_num((got - cell(x, h)).abs().max()):.1e}), "
                   "gradients included, at the checkpoint's sizes and the lab's", rnn_cell_step)


def _probe_loss(which, fn, logits, targets, how):
    """The loss (a float) the student's function gives on a crafted probe; None if it returned no loss."""
    out = _call(which, fn, logits, targets, names=("logits", "targets"), how=how)
    if not (isinstance(out, (tuple, list)) and out and (torch.is_tensor(out[0]) or isinstance(out[0], (int, float)))):
        return None
    return _num(out[0]) if (not torch.is_tensor(out[0]) or out[0].numel() == 1) else None


def _one_position_cause(got, z, t, eps_other=None):
    """What the loss on one position (logits z, target t) shows, in a beginner's words; None if it is right."""
    logp = torch.log_softmax(z.double(), -1)
    want = float(-logp[t])
    if got is not None and math.isfinite(got) and abs(got - want) <= 1e-4:
        return None
    shown = f"On one position (logits z of one row, target {t}) the loss should be -log softmax(z)[{t}] = {want:.4f}; yours is "
    if got is None or not math.isfinite(got):
        return shown + f"{got}."
    shown += f"{got:.4f}."
    if abs(got + float(z[t])) <= 1e-4:
        return shown + " That is -z[target]: the log-softmax is missing. Take torch.log_softmax(logits, dim=-1) first."
    if abs(got - want / math.log(2)) <= 1e-4:
        return shown + " That is the loss in bits (log base 2); the loss is in nats: use the natural log."
    if abs(got + float(torch.softmax(z.double(), -1)[t])) <= 1e-4:
        return shown + " That is minus a probability: take torch.log_softmax, the log of the probability, not torch.softmax."
    eps = (got - want) / (float(-logp.mean()) - want)
    if 0 < eps < 1 and eps_other is not None and abs(eps - eps_other) < 1e-3:
        return (shown + f" It mixes in {eps:.2g} of the average over every token: label smoothing "
                f"(label_smoothing={eps:.2g}). Equation 3 scores only the target's probability: leave label smoothing out.")
    other = [j for j in range(len(z)) if abs(got - float(-logp[j])) <= 1e-4]
    if other:
        return shown + (f" That is -log softmax(z)[{other[0]}]: your loss reads another token than the target. Pick "
                        "each row's target entry: .gather(-1, targets[..., None]).")
    return shown + (" The loss of one position is minus the log of the target's probability: torch.log_softmax over "
                    "the last dimension, then the target's entry, negated.")


def _diagnose_loss(which, fn, V):
    """Isolates the part of a language-model loss that differs, with crafted probes: one position, one position
    whose target is 0, several positions, logits peaked at the targets (and at the targets moved by one), and
    the training shape (B, T, |V|). Returns a message: what is wrong, how the probe shows it, what to change."""
    g = torch.Generator().manual_seed(21)
    z = torch.randn(V, generator=g, dtype=torch.float64).float()
    loss = lambda logits, targets, how: _probe_loss(which, fn, logits, targets, how)  # noqa: E731
    logp = torch.log_softmax(z.double(), -1)
    one = loss(z[None], torch.tensor([5]), "on one position, target 5 (a probe the checkpoint crafted)")
    nine = loss(z[None], torch.tensor([9]), "on one position, target 9 (a probe the checkpoint crafted)")
    eps9 = ((nine + float(logp[9])) / (float(-logp.mean()) + float(logp[9]))
            if nine is not None and math.isfinite(nine) else None)          # label smoothing's share, if it is that
    cause = _one_position_cause(one, z, 5, eps_other=eps9)
    if cause:
        return "the loss of a single position differs. " + cause
    zero = loss(z[None], torch.tensor([0]), "on one position, target 0 (a probe the checkpoint crafted)")
    want0 = float(-logp[0])
    if zero is None or not math.isfinite(zero) or abs(zero - want0) > 1e-4:
        return (f"a target of 0 is treated differently. On one position with target 0 the loss should be "
                f"-log softmax(z)[0] = {want0:.4f}; yours is {zero if zero is None else f'{zero:.4f}'}, while the same "
                "position with target 5 is right. Token 0 is a real character (the newline '\\n'), and the lab "
                "scores every position: leave out ignore_index (and any mask on target 0).")
    N = 6
    targets = torch.tensor([5, 9, 2, 7, 3, 1])
    logits = torch.randn(N, V, generator=g)
    want = float(F.cross_entropy(logits.double(), targets))
    several = loss(logits, targets, f"on {N} positions (logits (N, |V|), N = {N})")
    if several is not None and math.isfinite(several) and abs(several - want) > 1e-4:
        shown = (f"Each position alone is right, but over {N} positions the loss should be the mean, {want:.4f}, and "
                 f"yours is {several:.4f}.")
        if abs(several - want * N) <= 1e-3:
            return f"the average over positions differs. {shown} That is the sum: Equation 3 takes the mean (.mean())."
        peaked = lambda tg: torch.full((N, V), -10.0).scatter(1, tg[:, None], 10.0)  # noqa: E731 - ~0 loss at tg
        for shift in (1, -1):
            moved = targets.roll(shift)
            if (lambda v: v is not None and v < 1e-3)(loss(peaked(moved), targets, "on logits peaked at other targets")):
                return (f"the targets are moved by one position. {shown} On logits that put all the probability on "
                        f"the target of the position {'before' if shift == 1 else 'after'} each one, your loss is "
                        "about 0: your loss pairs each position with its neighbour's target. The lab passes the "
                        "targets already lined up (targets[n] is the character after position n): use them as they "
                        "come, without roll or a shift.")
        return (f"the combination over positions differs. {shown} The loss is the mean of the positions' losses, each "
                "position with its own target: -log softmax(z_n)[targets[n]], averaged with .mean().")
    B, T = 2, 3
    logits = torch.randn(B, T, V, generator=g)
    targets = torch.tensor([[5, 9, 2], [7, 3, 1]])
    want = float(F.cross_entropy(logits.reshape(-1, V).double(), targets.reshape(-1)))
    wide = loss(logits, targets, "on logits shaped (B, T, |V|) as training passes them")
    if wide is not None and math.isfinite(wide) and abs(wide - want) > 1e-4:
        shown = (f"On logits of shape (N, |V|) your loss is right, but on the same kind of logits shaped (B, T, |V|) "
                 f"= (2, 3, {V}), as training passes them, it should be {want:.4f} and yours is {wide:.4f}.")
        if abs(wide - want * T) <= 1e-3:
            return (f"the average over positions differs on 3-D logits. {shown} That is a sum over each sequence's "
                    "positions: take the mean over every position, e.g. flatten to (N, |V|) first.")
        return (f"the handling of the (B, T, |V|) shape differs. {shown} Take the softmax and pick the target "
                "along the last dimension (dim=-1), or flatten logits to (N, |V|) and targets to (N,) first.")
    return None


@checkpoint("Checkpoint 2 (Exercise 2, lm_loss_and_ppl)")
def checkpoint_2(which, lm_loss_and_ppl, vocab_size=65):
    """Exercise 2: equal logits give perplexity |V|; the loss agrees with F.cross_entropy in value and gradient,
    for the shapes and dtypes the lab passes (training (B, T, |V|); evaluation (N, |V|); n-grams float64)."""
    g = torch.Generator().manual_seed(2)
    B, T, V = 3, 11, vocab_size
    targets = torch.randint(0, V, (B, T + 1), generator=g)[:, 1:]   # chunk[:, 1:], as random_batch makes them
    dims = {"B": B, "T": T, "|V|": V}
    out = _call(which, lm_loss_and_ppl, torch.zeros(B, T, V), targets, names=("logits", "targets"), dims=dims,
                how="on equal logits (all 0), shaped as training passes them")
    if out is None:
        _returned_none(which, lm_loss_and_ppl, "loss, perplexity, bpc")
    if not (isinstance(out, (tuple, list)) and len(out) == 3):
        _fail(which, f"should return three values, the loss, the perplexity and the bits per character (return "
                     f"loss, perplexity, bpc); got {_what(out)}")
    if not torch.is_tensor(out[0]):
        _fail(which, f"the loss is {_what(out[0])}, not a tensor (did you call .item() or float()?): training calls "
                     ".backward() on it, which needs the tensor. return the tensor itself.")
    loss, ppl, bpc = (_num(v) for v in out)
    if abs(ppl - V) > 1e-3:
        ln_v, cause = math.log(V), ""                        # a cause only where the returned loss shows it
        if abs(ppl - B * T) <= 1e-3 and abs(loss - math.log(B * T)) <= 1e-4:
            cause = (f" Your perplexity is the number of positions, {B * T}: the softmax was taken over the positions. "
                     "Take it over the vocabulary, the last dimension (dim=-1).")
        elif abs(loss + 1 / V) <= 1e-4:
            cause = (f" Your loss is -1/{V}, minus a probability: take torch.log_softmax, the log of the probability, "
                     "not torch.softmax.")
        elif abs(loss - ln_v) <= 1e-4:
            cause = f" Your loss is right (ln {V}); the perplexity is exp(loss), Equation 4."
        elif abs(loss) <= 1e-6:
            cause = (" Your loss is 0 on equal logits: the log-softmax looks missing (-z[target] instead of "
                     "-log softmax(z)[target]).")
        elif abs(loss - ln_v * B * T) <= 1e-3 * B * T:
            cause = f" Your loss is ln {V} times the {B * T} positions: a sum; Equation 3 takes the mean."
        elif abs(loss - ln_v / math.log(2)) <= 1e-4:
            cause = " Your loss is in bits (log base 2); Equation 3 uses nats (the natural log)."
        _fail(which, f"equal logits must give perplexity exactly |V| = {V}, got {ppl:.4f}; the loss should be "
                     f"ln {V} = {ln_v:.4f}, got {loss:.4f}."
                     + (cause or " To find where, the checkpoint tried crafted inputs: "
                        + (_diagnose_loss(which, lm_loss_and_ppl, V) or "they could not tell which part differs.")))
    logits = torch.randn(B, T, V, generator=g, requires_grad=True)
    loss_t, ppl_t, bpc_t = _call(which, lm_loss_and_ppl, logits, targets, names=("logits", "targets"), dims=dims,
                                 how="on random logits that carry gradients, shaped as training passes them")
    reference = logits.detach().clone().requires_grad_(True)
    ref_t = F.cross_entropy(reference.reshape(-1, V), targets.reshape(-1))
    ref = float(ref_t.detach())
    if not torch.is_tensor(loss_t) or loss_t.dim() != 0:
        _fail(which, "the loss should be a scalar tensor (it is also the training loss)")
    if abs(_num(loss_t) - ref) > 1e-5:
        hint = ""
        if abs(_num(loss_t) - ref * B * T) < 1e-3:
            hint = " It looks like a sum over positions; Equation 3 takes the mean."
        elif abs(_num(loss_t) - ref / math.log(2)) < 1e-4:
            hint = " It looks like bits (log base 2); the loss is in nats (natural log)."
        elif abs(_num(loss_t) + float(logits.detach().gather(-1, targets[..., None]).mean())) < 1e-4:
            hint = " It is the mean of -z[target]: the log-softmax is missing."
        _fail(which, f"loss {_num(loss_t):.6f} differs from F.cross_entropy {ref:.6f}."
                     + (hint or " To find where, the checkpoint tried crafted inputs: "
                        + (_diagnose_loss(which, lm_loss_and_ppl, V) or "they could not tell which part differs.")))
    if abs(_num(ppl_t) - math.exp(ref)) > 1e-3 * math.exp(ref):
        _fail(which, f"perplexity {_num(ppl_t):.4f} should be exp(loss) = {math.exp(ref):.4f}")
    if abs(_num(bpc_t) - ref / math.log(2)) > 1e-5:
        _fail(which, f"bits per character {_num(bpc_t):.4f} should be loss / ln 2 = {ref / math.log(2):.4f}")
    _check_gradients(which, "the loss", loss_t, ref_t, {"the logits": (logits, reference)},
                     "trains both models with this loss")
    flat_dims = {"N": B * T, "|V|": V}
    flat = _call(which, lm_loss_and_ppl, logits.detach().reshape(-1, V), targets.reshape(-1), names=("logits", "targets"),
                 dims=flat_dims, how="on logits of shape (N, |V|) and targets (N,), as evaluation passes them")
    if abs(_num(flat[0]) - ref) > 1e-5:
        _fail(which, f"with logits of shape (N, |V|) and targets (N,), as evaluation passes them, the loss should be "
                     f"{ref:.6f}, got {_num(flat[0]):.6f}: support both shapes")
    wide = _call(which, lm_loss_and_ppl, torch.log_softmax(logits.detach().double(), -1).reshape(-1, V),
                 targets.reshape(-1), names=("logits", "targets"), dims=flat_dims,
                 how="on float64 log-probabilities, as the n-gram rows pass them")
    if abs(_num(wide[0]) - ref) > 1e-5:
        _fail(which, f"on float64 log-probabilities (how the n-gram rows are scored) the loss should be {ref:.6f}, "
                     f"got {_num(wide[0]):.6f}")
    _passed(which, f"equal logits give perplexity {ppl:.4f} = |V|; loss and its gradient match F.cross_entropy; "
                   f"bits per character = loss / ln 2", lm_loss_and_ppl)


@checkpoint("Checkpoint 3A (Exercise 3A, the gradient by distance)")
def checkpoint_3a(which, grad_norms, spectral_W):
    """Exercise 3A: the measured curve is a valid gradient norm and respects Equation 8's bound."""
    g = np.asarray(grad_norms, dtype=np.float64)
    if g.ndim != 1 or len(g) < 51:
        _fail(which, f"expected one norm per distance (at least 51), got shape {g.shape}")
    if np.any(g < 0):
        _fail(which, "the gradient norms must be non-negative")
    if not np.all(np.isfinite(g)):                                 # the model diverged: nothing of yours to check
        d = int(np.argmax(~np.isfinite(g)))
        print(f"⚠️ {which}: the norm is not a finite number from distance {d} on: the gradient overflowed, so the "
              "model diverged in training (a learning rate too large, or no clipping). Nothing you wrote is checked "
              "here; the lab runs on and your results file records it. Lower the learning rate, or keep clipping, to "
              "measure a curve.")
        return
    if g[0] <= 0:
        _fail(which, "the gradient at distance 0 is zero: did the loss reach the last position?")
    bound = g[0] * float(spectral_W) ** np.arange(len(g))
    if np.any(g > bound * (1 + 1e-3) + 1e-300):
        d = int(np.argmax(g > bound * (1 + 1e-3) + 1e-300))
        _fail(which, f"at distance {d} the measured norm exceeds the bound of Equation 8, "
                     "||dL/dh_T|| x ||W||^(T-s): the measurement is wrong")
    _passed(which, f"||W|| = {float(spectral_W):.2f}; the norm falls from {g[0]:.2e} at distance 0 to "
                   f"{g[50]:.2e} at 50 and {g[-1]:.2e} at {len(g) - 1}, always under the bound")


@checkpoint("Checkpoint 3B (Exercise 3B, clip_gradients)")
def checkpoint_3b(which, clip_gradients):
    """Exercise 3B: clip_gradients against torch.nn.utils.clip_grad_norm_, given a list and given a generator
    (the demonstration passes model.parameters(), which can be read only once)."""
    def make(grads, values):
        params = [nn.Parameter(v.clone()) for v in values]
        for p, gr in zip(params, grads):
            p.grad = gr.clone()
        return params

    def differs(mine, ref, ref_total, values, grads, kappa, total):
        """What is wrong with one call's effect, or None."""
        if total is None:
            return ("`clip_gradients` returned None: did the function end with `return total_norm`? It returns "
                    f"||g|| before clipping, here {float(ref_total):.4f}")
        if not (torch.is_tensor(total) and total.numel() == 1 or isinstance(total, (int, float))):
            return f"should return the total norm before clipping, one number ({float(ref_total):.4f}); got {_what(total)}"
        got, want = _num(total), float(ref_total)
        if not math.isfinite(got) or abs(got - want) > 1e-4 * max(1.0, want):
            norms = [float(gr.norm()) for gr in grads]
            after = min(want, kappa)
            if abs(got - after) <= 1e-4 * max(1.0, after) and want > kappa:
                return (f"returned {got:.4f}, the norm after clipping; return ||g|| from before, {want:.4f} (compute it "
                        "first, then clip)")
            if abs(got - sum(norms)) <= 1e-4 * max(1.0, sum(norms)):
                return (f"returned {got:.4f}, the sum of the parameters' norms; ||g|| is the norm of all gradients as one "
                        f"vector, the square root of the sum of all squares, {want:.4f}")
            if abs(got - want ** 2) <= 1e-4 * max(1.0, want ** 2):
                return (f"returned {got:.4f}, the squared norm (the sum of squares); ||g|| is its square root: "
                        f"torch.sqrt(...), {want:.4f}")
            return f"should return the total norm before clipping, {want:.4f}, got {got:.4f}"
        if any(not torch.equal(p.detach(), v) for p, v in zip(mine, values)):
            return "the parameters themselves changed; clip their gradients (p.grad), not p"
        if all(torch.allclose(p.grad, q.grad, atol=1e-5) for p, q in zip(mine, ref)):
            return None
        norms = [float(gr.norm()) for gr in grads]
        per_param = [gr * min(1.0, kappa / n) for gr, n in zip(grads, norms)]
        if all(torch.allclose(a.grad, b, atol=1e-5) for a, b in zip(mine, per_param)):
            return ("you clipped each parameter separately; Equation 9 uses the norm of all gradients together, "
                    "flattened into one vector")
        flat = lambda params: torch.cat([p.grad.flatten() for p in params])   # noqa: E731
        seen = f"expected ||g|| = {float(flat(ref).norm()):.4f} after clipping, {_row(flat(ref))}; got " \
               f"{float(flat(mine).norm()):.4f}, {_row(flat(mine))}"
        total_norm = float(ref_total)
        if kappa != 1 and total_norm > kappa and all(torch.allclose(a.grad, gr / total_norm, atol=1e-5)
                                                     for a, gr in zip(mine, grads)):
            return (f"after clipping, ||g|| should be kappa = {kappa:g}, and yours is 1 ({seen}): you divided by "
                    f"||g|| = {total_norm:.4f} without multiplying by kappa (at kappa = 1 the two agree). The factor is "
                    "min(1, kappa / ||g||)")
        if total_norm < kappa and all(torch.allclose(a.grad, gr * kappa / total_norm, atol=1e-5)
                                      for a, gr in zip(mine, grads)):
            return (f"the gradients were scaled up although ||g|| = {total_norm:.4f} < kappa = {kappa:g} ({seen}): the "
                    "factor is min(1, kappa / ||g||), never above 1, so gradients below kappa stay as they are")
        if all(torch.equal(a.grad, b) for a, b in zip(mine, grads)):
            changed = kappas_that_change()                    # the evidence: where it does scale p.grad
            if changed:
                return (f"the gradients were left unchanged although ||g|| = {total_norm:.4f} > kappa = {kappa:g} "
                        f"({seen}); on g = (3, 4), ||g|| = 5, your function changed them at kappa = "
                        f"{', '.join(f'{k:g}' for k in changed)}. Clip exactly when ||g|| > kappa")
            return (f"the gradients were not changed ({seen}), here or at any kappa tried (0.1 to 100 on g = (3, 4)). "
                    "Either the scaling never runs (clip when ||g|| > kappa) or it does not reach p.grad: multiply "
                    "every p.grad in place (p.grad.mul_(factor)); g = g * factor only makes a new tensor")
        return f"clipped gradients differ from clip_grad_norm_ ({seen}); Equation 9: g <- g * min(1, kappa / ||g||)"

    def kappas_that_change():
        """The kappas at which the student's function changes p.grad, of a few tried on g = (3, 4), ||g|| = 5."""
        changed = []
        for kappa in (0.1, 0.5, 2.0, 4.0, 10.0, 100.0):
            params = make([torch.tensor([3.0]), torch.tensor([4.0])], [torch.zeros(1), torch.zeros(1)])
            try:
                clip_gradients(params, kappa)
            except Exception:  # noqa: BLE001 - only probing; the checks report errors
                continue
            if not (float(params[0].grad) == 3.0 and float(params[1].grad) == 4.0):
                changed.append(kappa)
        return changed

    g = torch.Generator().manual_seed(3)
    cases = {"g = (3, 4), kappa = 1": ([torch.tensor([3.0]), torch.tensor([4.0])], 1.0),
             "g = (3, 4), kappa = 10": ([torch.tensor([3.0]), torch.tensor([4.0])], 10.0),
             "three random tensors, kappa = 1": ([torch.randn(5, 3, generator=g) * 4, torch.randn(7, generator=g),
                                                  torch.randn(2, 2, generator=g)], 1.0),
             # kappa other than 1, clipping and not: kappa = 1 alone cannot tell kappa / ||g|| from 1 / ||g||
             "g = (3, 4), kappa = 2.5": ([torch.tensor([3.0]), torch.tensor([4.0])], 2.5),
             "g = (3, 4), kappa = 7": ([torch.tensor([3.0]), torch.tensor([4.0])], 7.0),
             "three random tensors, kappa = 0.3": ([torch.randn(4, generator=g), torch.randn(3, 2, generator=g)], 0.3)}
    for name, (grads, kappa) in cases.items():
        values = [torch.randn(gr.shape, generator=g) for gr in grads]
        ref = make(grads, values)
        ref_total = torch.nn.utils.clip_grad_norm_(ref, kappa)
        mine = make(grads, values)
        total = _call(which, clip_gradients, mine, kappa, names=("params", "kappa"), how="with a list of parameters")
        problem = differs(mine, ref, ref_total, values, grads, kappa, total)
        if problem:
            _fail(which, f"{name}: {problem}")
        mine = make(grads, values)
        total = _call(which, clip_gradients, (p for p in mine), kappa, names=("params", "kappa"),
                      how="as the clipping demonstration does, with model.parameters()")
        problem = differs(mine, ref, ref_total, values, grads, kappa, total)
        if problem:
            _fail(which, f"{name}: right when params is a list, wrong when it is a generator ({problem}). The "
                         "demonstration passes model.parameters(), a generator that can be read only once: read "
                         "it into a list first (params = list(params)), then loop over the list.")
    with_unused = make([torch.tensor([3.0]), torch.tensor([4.0])], [torch.zeros(1), torch.zeros(1)])
    with_unused.append(nn.Parameter(torch.zeros(2)))          # no .grad, like a parameter the loss does not use
    _call(which, clip_gradients, with_unused, 1.0, names=("params", "kappa"),
          how="with a parameter whose .grad is None, like one the loss does not use (skip those)")
    _passed(which, "matches torch.nn.utils.clip_grad_norm_, given a list or a generator: (3, 4) becomes "
                   "(0.6, 0.8) at kappa = 1 and is unchanged at kappa = 10", clip_gradients)


GATE_NAMES = {"f": "forget gate f", "i": "input gate i", "o": "output gate o", "c": "candidate c_tilde"}


def _vec(t):
    """(0.500, -0.250, ...): a few numbers of a probe, for the message (entries a probe cannot read, NaN, left out)."""
    t = t.detach().reshape(-1)
    t = t[~t.isnan()] if t.is_floating_point() else t
    return "(" + ", ".join(f"{v:.3f}" for v in t[:4].tolist()) + (", ..." if t.numel() > 4 else "") + ")"


def _near(a, b, atol=1e-4):
    return torch.is_tensor(a) and a.shape == b.shape and bool(torch.allclose(a.detach().double(), b.double(), atol=atol))


def _lstm_probe_params(d, d_h, on=(), seed=40):
    """Equation 10's weights, all 0 except those named in `on` ('W_f', 'b_c', ...), which get fixed random values."""
    g = torch.Generator().manual_seed(seed)
    shapes = {"W": (d_h, d_h), "U": (d_h, d), "b": (d_h,)}
    p = SimpleNamespace(**{f"{k}_{gate}": torch.zeros(shape) for gate in "fioc" for k, shape in shapes.items()})
    for name in on:
        setattr(p, name, torch.randn(shapes[name[0]], generator=g))
    return p


def _lstm_reference_gates(x, h, p):
    pre = {gate: h @ getattr(p, f"W_{gate}").T + x @ getattr(p, f"U_{gate}").T + getattr(p, f"b_{gate}") for gate in "fioc"}
    return {gate: (torch.tanh if gate == "c" else torch.sigmoid)(a) for gate, a in pre.items()}


def _lstm_probe(which, fn, on=(), constant=None, c_shift=0.0):
    """One crafted call: B = 2, d = 3, d_h = 5, weights 0 except `on`; `constant` sets a bias to one value
    ({'b_c': 1.0}); c_shift is added to c_prev. Returns (x, h_prev, c_prev, the student's h and c, the reference
    gates, h and c)."""
    x = torch.tensor([[0.5, -1.0, 1.5], [-0.3, 0.8, 0.2]])
    h = torch.tensor([[0.9, -0.6, 0.3, -0.2, 0.7], [-0.4, 0.5, -0.8, 0.6, 0.1]])
    c = torch.tensor([[-2.0, -0.5, 0.0, 0.7, 1.6], [1.2, 0.0, -1.4, 0.4, -0.9]]) + c_shift   # an entry 0 on each row
    p = _lstm_probe_params(3, 5, on)
    for name, value in (constant or {}).items():
        setattr(p, name, torch.full_like(getattr(p, name), value))
    gates = _lstm_reference_gates(x, h, p)
    c_ref = gates["f"] * c + gates["i"] * gates["c"]
    out = _call(which, fn, x.clone(), h.clone(), c.clone(), p, names=("x_t", "h_prev", "c_prev", "p"),
                how="on a probe the checkpoint crafted (some weights set to 0)")
    got = out if isinstance(out, (tuple, list)) and len(out) == 2 else (None, None)
    got = tuple(t.detach().double() if torch.is_tensor(t) else t for t in got)
    return SimpleNamespace(x=x, h=h, c=c, p=p, h_got=got[0], c_got=got[1], gates=gates, c_ref=c_ref,
                           h_ref=gates["o"] * torch.tanh(c_ref))


def _sigmoid_shift(value, expected):
    """How much was added inside a sigmoid, if a constant explains it (value = sigma(expected_pre + shift))."""
    if not torch.is_tensor(value) or not bool(((value > 1e-6) & (value < 1 - 1e-6)).all()):
        return None
    shift = torch.logit(value.double()) - torch.logit(expected.double())
    return float(shift.mean()) if float(shift.max() - shift.min()) < 1e-3 else None


def _lstm_zero_probe_cause(z):
    """With every weight 0: every gate sigma(0) = 0.5, c_tilde = tanh(0) = 0, so c_t = 0.5 c_prev and
    h_t = 0.5 tanh(c_t). Which part of the student's step breaks this, from its numbers; None if nothing does."""
    c, cg, hg = z.c.double(), z.c_got, z.h_got
    shown = (f"With every weight and bias set to 0, each gate is sigma(0) = 0.5 and c_tilde = tanh(0) = 0, so "
             f"c_t should be 0.5 * c_prev")
    if not _near(cg, z.c_ref):
        if _near(cg, torch.tanh(z.c_ref)) and _near(hg, z.h_ref):
            return ("cell state", "the c_t you return has been squashed by tanh: your h_t is right, but your c_t "
                    f"is tanh of the cell state. {shown} = {_vec(z.c_ref)}, and you return {_vec(cg)} = tanh of it. "
                    "A method ending in _ (like c.tanh_()) changes c itself; use torch.tanh(c), which makes a new tensor.")
        if _near(cg, hg) or _near(cg, z.h_ref):
            return ("cell state", f"the second value you return is h_t again, not the cell state c_t. {shown} = "
                                  f"{_vec(z.c_ref)}; you return {_vec(cg)}, the same as your h_t. Return the pair "
                                  "h, c.")
        if _near(cg, torch.full_like(cg, 0.5)):
            return ("cell state", f"the second value you return is a gate, not the cell state c_t. {shown} = "
                                  f"{_vec(z.c_ref)}; you return 0.5 everywhere, what every gate is here. Return "
                                  "the pair h, c.")
        if _near(cg, 0.5 * z.h.double()):
            return ("cell state", f"your cell update follows h_prev instead of c_prev. {shown} = {_vec(z.c_ref)}; "
                                  f"yours is {_vec(cg)}, which is 0.5 * h_prev. Use c_prev in the cell update.")
        nonzero = c != 0
        offset = cg[~nonzero]
        ratio = cg[nonzero] / c[nonzero]
        if bool((offset.abs() < 1e-4).all()) and float(ratio.max() - ratio.min()) < 1e-4:
            r = float(ratio.mean())
            if abs(r - 1) < 1e-4:
                return ("forget gate", f"c_prev is not multiplied by the forget gate f. {shown} = {_vec(z.c_ref)}; "
                                       f"yours is c_prev itself, {_vec(cg)}. Multiply c_prev by f in the cell update.")
            shift = float(torch.logit(torch.tensor(r, dtype=torch.float64))) if 0 < r < 1 else None
            extra = (f" That is sigma({shift:.2g}): something adds {shift:+.2g} inside the forget gate's sigmoid; with "
                     "all its weights 0 it must be sigma(0) = 0.5 (the LSTM's training code sets its bias to 1 itself)."
                     if shift is not None and abs(shift) > 1e-3 else "")
            return ("forget gate", f"the forget gate's factor on c_prev is {r:.3f}, not 0.5. {shown} = "
                                   f"{_vec(z.c_ref)}; yours is {_vec(cg)}, {r:.3f} * c_prev.{extra}")
        if float(ratio.max() - ratio.min()) < 1e-4 and abs(float(ratio.mean()) - 0.5) < 1e-4:
            cand = offset / 0.5
            return ("candidate c_tilde", f"your cell update adds {_vec(offset)} where c_prev is 0, but with its "
                    f"weights 0 the candidate is tanh(0) = 0, so i * c_tilde adds 0. Your c_tilde acts as "
                    f"{float(cand.mean()):.3f}" + (" = sigmoid(0): the candidate takes tanh, not sigmoid"
                                                   if abs(float(cand.mean()) - 0.5) < 1e-4 else "") + ".")
        return None
    if not _near(hg, z.h_ref):
        tc = torch.tanh(cg)
        ratio = hg / tc
        ok = tc.abs() > 1e-3
        k = ratio[ok]
        if _near(hg, 0.5 * cg):
            return ("hidden state", f"tanh is missing from your hidden state: with every gate 0.5 and your (right) "
                                    f"c_t = {_vec(cg)}, h_t should be 0.5 * tanh(c_t) = {_vec(z.h_ref)}; yours is "
                                    f"{_vec(hg)}, 0.5 * c_t. Squash c_t with torch.tanh.")
        if _near(hg, 0.5 * torch.tanh(z.c.double())):
            return ("hidden state", f"your hidden state squashes c_prev, not the new c_t: h_t should be "
                                    f"0.5 * tanh(c_t) = {_vec(z.h_ref)}; yours is {_vec(hg)} = 0.5 * tanh(c_prev).")
        if _near(hg, torch.tanh(0.5 * cg)):
            return ("hidden state", f"the output gate sits inside the tanh: h_t should be o * tanh(c_t) = "
                                    f"{_vec(z.h_ref)}; yours is {_vec(hg)} = tanh(0.5 * c_t).")
        if _near(hg, 0.5 * torch.sigmoid(cg)):
            return ("hidden state", f"your hidden state squashes c_t with sigmoid: h_t should be 0.5 * tanh(c_t) = "
                                    f"{_vec(z.h_ref)}; yours is {_vec(hg)} = 0.5 * sigmoid(c_t). Use torch.tanh.")
        if len(k) and float(k.max() - k.min()) < 1e-4:
            r = float(k.mean())
            if abs(r - 1) < 1e-4:
                return ("output gate", f"the output gate is missing from h_t: with every gate 0.5, h_t should be "
                                       f"0.5 * tanh(c_t) = {_vec(z.h_ref)}; yours is tanh(c_t), {_vec(hg)}.")
            shift = float(torch.logit(torch.tensor(r, dtype=torch.float64))) if 0 < r < 1 else None
            return ("output gate", f"h_t / tanh(c_t) is {r:.3f} where the output gate with all its weights 0 is "
                                   f"sigma(0) = 0.5: h_t should be {_vec(z.h_ref)}, yours is {_vec(hg)}."
                    + (f" That is sigma({shift:.2g}): something adds {shift:+.2g} inside the output gate's sigmoid."
                       if shift is not None else ""))
        return ("hidden state", f"with every gate 0.5 and your (right) c_t = {_vec(cg)}, your h_t is {_vec(hg)}; "
                                f"expected 0.5 * tanh(c_t) = {_vec(z.h_ref)}.")
    return None


LSTM_GATE_LINE = {"f": "f = torch.sigmoid(h_prev @ p.W_f.T + x_t @ p.U_f.T + p.b_f)",
                  "i": "i = torch.sigmoid(h_prev @ p.W_i.T + x_t @ p.U_i.T + p.b_i)",
                  "o": "o = torch.sigmoid(h_prev @ p.W_o.T + x_t @ p.U_o.T + p.b_o)",
                  "c": "c_tilde = torch.tanh(h_prev @ p.W_c.T + x_t @ p.U_c.T + p.b_c)"}
LSTM_TERM = {"W": "h_prev @ p.W_{g}.T", "U": "x_t @ p.U_{g}.T", "b": "p.b_{g}"}


def _lstm_implied(q, q_shifted):
    """What the student's step implies on a probe, from two calls whose c_prev differ by 1: the factor on c_prev
    (the forget gate f), the term added to it (i * c_tilde) and h_t / tanh(c_t) (the output gate o)."""
    f = q_shifted.c_got - q.c_got
    tc = torch.tanh(q.c_got)
    o = torch.where(tc.abs() > 1e-3, q.h_got / torch.where(tc.abs() > 1e-3, tc, torch.ones_like(tc)), torch.nan)
    return {"f": f, "ic": q.c_got - f * q.c.double(), "o": o}


def _diagnose_lstm(which, fn):
    """Isolates the part of an LSTM step that differs, with crafted probes: every weight 0 (each gate sigma(0) =
    0.5), then one gate's weights at a time, then that gate's W, U and b one at a time. Returns the message: what
    is wrong, how the probe shows it, what to change; or that the probes could not tell."""
    z = _lstm_probe(which, fn)
    if not (torch.is_tensor(z.h_got) and torch.is_tensor(z.c_got)):
        return None
    found = _lstm_zero_probe_cause(z)
    if found:
        return f"the {found[0]} differs: {found[1]}"
    for gate in ("f", "c", "i", "o"):                           # c before i: the i probe needs c_tilde = tanh(1)
        constant = {"b_c": 1.0} if gate == "i" else None
        on = (f"W_{gate}", f"U_{gate}", f"b_{gate}")
        q = _lstm_probe(which, fn, on=on, constant=constant)
        if _near(q.c_got, q.c_ref) and _near(q.h_got, q.h_ref):
            continue
        got = _lstm_implied(q, _lstm_probe(which, fn, on=on, constant=constant, c_shift=1.0))
        want = {"f": q.gates["f"].double(), "ic": (q.gates["i"] * q.gates["c"]).double(), "o": q.gates["o"].double()}
        wrong = [k for k in ("f", "ic", "o") if not _near(torch.nan_to_num(got[k], nan=0.0),
                                                         torch.nan_to_num(want[k].where(~got[k].isnan(), torch.nan),
                                                                          nan=0.0))]
        terms = []
        for term in ("W", "U", "b"):
            r = _lstm_probe(which, fn, on=(f"{term}_{gate}",), constant=constant)
            if not (_near(r.c_got, r.c_ref) and _near(r.h_got, r.h_ref)):
                terms.append(LSTM_TERM[term].format(g=gate))
        where = (f" Setting its terms one at a time, your step goes wrong with {' and with '.join(terms)}."
                 if terms and len(terms) < 3 else "")
        shown = f"With every weight 0 your step is right. With only the {GATE_NAMES[gate]}'s weights set"
        if not wrong:
            break
        part = wrong[0]
        if part == "ic":                                        # i * c_tilde: which of the two, when it can tell
            other = {"c": "i", "i": "c"}.get(gate)
            alone = got["ic"] / (0.5 if gate == "c" else math.tanh(1.0))   # the gate, if the other one is right
            fits = bool((alone.abs() <= 1).all()) if gate == "c" else bool(((alone > 0) & (alone < 1)).all())
            part = gate if gate in ("c", "i") and fits else (other or "ic")
        named = "the input gate i or the candidate c_tilde" if part == "ic" else "the " + GATE_NAMES[part]
        seen = ({"f": f"the factor on c_prev (the forget gate) should be {_vec(want['f'])} and yours is "
                      f"{_vec(got['f'])}",
                 "o": f"h_t / tanh(c_t) (the output gate) should be {_vec(want['o'])} and yours is {_vec(got['o'])}"}
                .get(wrong[0], f"the term the cell update adds to f * c_prev, i * c_tilde, should be "
                               f"{_vec(want['ic'])} and yours is {_vec(got['ic'])}"))
        if part != gate and part != "ic" or part == "ic" and gate not in ("c", "i"):
            return (f"{named} reacts to the {GATE_NAMES[gate]}'s weights. {shown}, {seen}.{where} Check that each "
                    f"gate's line uses its own weights: p.W_{gate}, p.U_{gate} and p.b_{gate} belong to the "
                    f"{GATE_NAMES[gate]} alone" + (f"; {named[4:]}'s line: {LSTM_GATE_LINE[part]}" if part in
                                                   LSTM_GATE_LINE else "."))
        shift = _sigmoid_shift(got[wrong[0]], want[wrong[0]]) if wrong[0] in ("f", "o") else None
        return (f"{named} differs. {shown}, {seen}.{where}" + (f" Something adds {shift:+.2g} inside its sigmoid."
                                                              if shift else "")
                + (f" Check its line: {LSTM_GATE_LINE[part]}" if part in LSTM_GATE_LINE else ""))
    return ("the probes could not tell which part differs: with every weight 0, and with each gate's weights set "
            "one at a time, your step matches nn.LSTMCell; it differs only when several gates work together.")


@checkpoint("Checkpoint 4 (Exercise 4, lstm_cell_step)")
def checkpoint_4(which, lstm_cell_step):
    """Exercise 4: lstm_cell_step against nn.LSTMCell with the same weights, values and gradients with respect to
    the states, called the way the LSTM's gradient measurement calls it."""
    g = torch.Generator().manual_seed(4)
    B, d, d_h = 4, 5, 6
    with torch.random.fork_rng(devices=[]):                  # the same reference on every run
        torch.manual_seed(4)
        cell = nn.LSTMCell(d, d_h)
    x = torch.randn(B, 3, d, generator=g)[:, 1]              # emb[:, t], as the measurement passes it
    h, c = (torch.randn(B, d_h, generator=g, requires_grad=True) for _ in range(2))
    p = lstm_params_from(cell.weight_ih, cell.weight_hh, cell.bias_ih + cell.bias_hh)
    out = _call(which, lstm_cell_step, x, h, c, p, names=("x_t", "h_prev", "c_prev", "p"), dims=dict(B=B, d=d, d_h=d_h),
                how="as the LSTM's gradient measurement calls it at every step",
                products=("h_prev @ p.W_f.T is (B, d_h) @ (d_h, d_h)", "x_t @ p.U_f.T is (B, d) @ (d, d_h)",
                          "f * c_prev is elementwise, (B, d_h) * (B, d_h)"))
    if out is None:
        _returned_none(which, lstm_cell_step, "h, c")
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        _fail(which, f"should return the pair (h_t, c_t): return h, c; got {_what(out)}")
    h_got, c_got = out
    _check_tensor(which, "h_t", h_got, (B, d_h), fn=lstm_cell_step)
    _check_tensor(which, "c_t", c_got, (B, d_h), fn=lstm_cell_step)
    h_want, c_want = cell(x, (h, c))
    hg, cg, hw, cw = (t.detach() for t in (h_got, c_got, h_want, c_want))
    if torch.allclose(hg, cw, atol=1e-5) and torch.allclose(cg, hw, atol=1e-5):
        _fail(which, "you return (c_t, h_t); the lab reads the pair as h, c = lstm_cell_step(...): return h, c")
    if not torch.allclose(cg, cw, atol=1e-5):
        hd, cd = h.detach(), c.detach()
        f = torch.sigmoid(hd @ p.W_f.T + x @ p.U_f.T + p.b_f)
        i = torch.sigmoid(hd @ p.W_i.T + x @ p.U_i.T + p.b_i)
        c_tilde = torch.tanh(hd @ p.W_c.T + x @ p.U_c.T + p.b_c)
        known_mistakes = {
            "the cell update uses h_prev where Equation 10 has c_prev: c_t = f * c_prev + i * c_tilde":
                f * hd + i * c_tilde,
            "the input gate is missing from the cell update: c_t = f * c_prev + i * c_tilde": f * cd + c_tilde,
            "f and i swapped: the forget gate f scales the old cell state, the input gate i the candidate, "
            "c_t = f * c_prev + i * c_tilde": i * cd + f * c_tilde,
        }
        for mistake, value in known_mistakes.items():
            if torch.allclose(cg, value, atol=1e-5):
                _fail(which, mistake)
        _fail(which, f"c_t differs from nn.LSTMCell by up to {float((cg - cw).abs().max()):.3g}: on the first row, "
                     f"expected {_row(cw)}, got {_row(cg)}. To find where, the checkpoint tried crafted weights: "
                     + _diagnose_lstm(which, lstm_cell_step))
    if not torch.allclose(hg, hw, atol=1e-5):
        o = torch.sigmoid(h.detach() @ p.W_o.T + x @ p.U_o.T + p.b_o)
        known_mistakes = {
            "the hidden state uses c_prev; Equation 10 uses the new cell state: h_t = o * tanh(c_t)":
                o * torch.tanh(c.detach()),
            "tanh is missing: h_t = o * tanh(c_t), not o * c_t": o * cw,
            "tanh(o * c_t) puts the output gate inside the tanh; Equation 10: h_t = o * tanh(c_t)": torch.tanh(o * cw),
            "sigmoid on the new cell state; Equation 10 squashes it with tanh: h_t = o * tanh(c_t)": o * torch.sigmoid(cw),
        }
        for mistake, value in known_mistakes.items():
            if torch.allclose(hg, value, atol=1e-5):
                _fail(which, mistake)
        _fail(which, f"h_t differs from nn.LSTMCell by up to {float((hg - hw).abs().max()):.3g}: on the first row, "
                     f"expected {_row(hw)}, got {_row(hg)}. To find where, the checkpoint tried crafted weights: "
                     + _diagnose_lstm(which, lstm_cell_step))
    used_for = "measures the LSTM's gradient with respect to (h_s, c_s) through this function"
    both_got, both_want = torch.cat([h_got, c_got], 1), torch.cat([h_want, c_want], 1)
    _check_gradients(which, "(h_t, c_t)", both_got, both_want, {"h_prev": (h, h), "c_prev": (c, c)}, used_for)
    _passed(which, "h_t and c_t match nn.LSTMCell, gradients with respect to h_prev and c_prev included",
            lstm_cell_step)


@checkpoint("Checkpoint 4B (after Exercise 4: the LSTM's gradient against the RNN's)")
def checkpoint_4b(which, rnn_grad_norms, lstm_grad_norms, settings_name, distance=50):
    """After Exercise 4: the LSTM's gradient at distance 50 lies above the RNN's."""
    rnn, lstm = float(rnn_grad_norms[distance]), float(lstm_grad_norms[distance])
    ratio = "infinitely (the RNN's is exactly 0)" if rnn == 0 else f"{lstm / rnn:.2g} times"
    if lstm > rnn:
        return _passed(which, f"at {distance} characters back the LSTM's gradient ({lstm:.2e}) is {ratio} "
                              f"the RNN's ({rnn:.2e})")
    message = (f"at {distance} characters back the LSTM's gradient ({lstm:.2e}) is not above the RNN's "
               f"({rnn:.2e})")
    if settings_name != "full":
        print(f"⚠️ {which}: not enforced at the '{settings_name}' setting, whose models are barely trained: {message}")
        return
    _fail(which, message)


@checkpoint("Results checkpoint (third objective: the LSTM against the n-gram baseline)")
def checkpoint_results(which, table, settings_name):
    """The results table: the LSTM beats the trigram by at least 1.0 in perplexity and beats the best n-gram."""
    lstm, tri, best = (table[k]["perplexity"] for k in ("lstm", "trigram", "best_ngram"))
    problems = []
    if not lstm <= tri - 1.0:
        problems.append(f"the LSTM's test perplexity {lstm:.2f} is not at least 1.0 below the trigram's {tri:.2f}")
    if not lstm < best:
        problems.append(f"the LSTM's test perplexity {lstm:.2f} is not below the best n-gram's {best:.2f}")
    if not problems:
        n = table["best_ngram"].get("n")
        return _passed(which, f"LSTM {lstm:.2f} against trigram {tri:.2f} and {f'{n}-gram' if n else 'best n-gram'} {best:.2f}, "
                              "on the same 60,394 test characters")
    if settings_name != "full":
        print(f"⚠️ {which}: not enforced at the '{settings_name}' setting, whose models are barely trained: "
              + "; ".join(problems))
        return
    _fail(which, "; ".join(problems))


def _frequencies(ids, vocab):
    return torch.bincount(ids.reshape(-1), minlength=vocab).double() / ids.numel()


def _sampler_cause(freq, z, tau, tolerance):
    """A cause for draws with the wrong frequencies, only when they match what a known mistake gives."""
    known = {
        "the logits were multiplied by tau; Equation 12 says divide the logits by tau (z / tau)": torch.softmax(z * tau, -1),
        "every draw is the most probable token: that is greedy decoding (the arg max); draw at random from the "
        "probabilities with torch.multinomial": torch.nn.functional.one_hot(z.argmax(), len(z)).double(),
        "every token came out equally often, as if the probabilities did not depend on the logits: take the softmax "
        "over the vocabulary, the last dimension (dim=-1)": torch.full((len(z),), 1 / len(z), dtype=torch.float64),
        "the draws follow softmax(z / tau) in sorted order: you return the position in the sorted probabilities, not "
        "the token id. The lab's logits are not sorted: draw from the probabilities in their own order":
            torch.softmax(z / tau, -1).sort(descending=True).values,
    }
    if tau != 1:
        known["the draws follow softmax(z), so tau changes nothing (dividing the probabilities by tau does not change "
              "them: multinomial renormalizes). Divide the logits by tau, then take the softmax"] = torch.softmax(z, -1)
    for cause, probs in known.items():
        if float((freq - probs.double()).abs().max()) <= tolerance:
            return " " + cause[0].upper() + cause[1:] + "."
    return None


def _peaked_rows(shape, vocab):
    """Logits whose every row puts nearly all its probability (1 - 1e-15) on its own token: row n on token
    n % vocab. A right sampler draws exactly those tokens, whatever its random numbers."""
    rows = math.prod(shape)
    tokens = torch.arange(rows) % vocab
    logits = torch.full((rows, vocab), -20.0).scatter(1, tokens[:, None], 20.0)
    return logits.reshape(*shape, vocab), tokens.reshape(shape)


def _diagnose_sampler(which, fn, z, draws=2_000):
    """Isolates why draws have the wrong frequencies, with crafted probes: one row per call (right or not), then
    many identical rows in one call (do they all draw the same token?), then rows with different distributions
    (does each row draw from its own?). Returns a message, or None when the probes cannot tell."""
    show = lambda t: "(" + ", ".join(f"{v:.3f}" for v in t.tolist()) + ")"  # noqa: E731
    gen = torch.Generator().manual_seed(7)
    singles = [_call(which, fn, z[None], 1.0, gen, names=NAMES_5, dims={"|V|": len(z)},
                     how="one row per call (a probe the checkpoint crafted)") for _ in range(draws)]
    if not all(torch.is_tensor(t) and t.numel() == 1 for t in singles):
        return None
    freq, want = _frequencies(torch.cat([t.reshape(1) for t in singles]), len(z)), torch.softmax(z.double(), -1)
    singles_right = float((freq - want).abs().max()) <= 0.05
    many = _call(which, fn, z.expand(draws, -1), 1.0, torch.Generator().manual_seed(7), names=NAMES_5,
                 dims={"N": draws, "|V|": len(z)}, how=f"on {draws:,} identical rows in one call (a probe)")
    if singles_right and torch.is_tensor(many) and many.numel() == draws and len(set(many.tolist())) == 1:
        return (f"the rows of one call share one random number. One row per call, {draws:,} calls draw with the right "
                f"frequencies {show(freq)} (softmax(z) = {show(want)}); but {draws:,} identical rows in one call all "
                f"drew the same token, {int(many[0])}. Each row needs its own random number: draw with "
                "torch.multinomial(probs, num_samples=1, generator=generator) on the (N, |V|) probabilities, or "
                "torch.rand(N, 1) for N rows.")
    logits, tokens = _peaked_rows((8,), len(z))
    got = _call(which, fn, logits, 1.0, torch.Generator().manual_seed(7), names=NAMES_5, dims={"N": 8, "|V|": len(z)},
                how="on rows with different distributions (a probe)")
    if torch.is_tensor(got) and got.shape == tokens.shape and bool((got == 0).all()):
        return (f"you return a position in the sorted probabilities, not the token id. On 8 rows that each put nearly "
                f"all their probability on one token (row n on token n % {len(z)}: {tokens.tolist()}), every draw is "
                "0, the place of the most probable token once sorted. The lab's logits are not sorted: draw from the "
                "probabilities in their own order (or map the sorted position back through the sort's indices).")
    if torch.is_tensor(got) and got.shape == tokens.shape and not torch.equal(got, tokens):
        r = int((got != tokens).nonzero()[0])
        return (f"each row does not draw from its own probabilities. On 8 rows that each put nearly all their "
                f"probability on one token (row n on token n % {len(z)}: {tokens.tolist()}), your draws are "
                f"{got.tolist()}; row {r} drew {int(got[r])} instead of {int(tokens[r])}. Take the softmax along "
                "each row, the last dimension (dim=-1), and keep the rows in their order when you reshape.")
    return None


@checkpoint("Checkpoint 5 (Exercise 5, sample_with_temperature)")
def checkpoint_5(which, sample_with_temperature, draws=20_000, tolerance=0.015, steps=2_000):
    """Exercise 5: draw frequencies match softmax(z / tau) on logits that are not sorted, in one call of many rows
    and in many calls of one row with one generator (how generate() calls it, one character at a time), with and
    without a generator; tau = 0.01 always picks the arg max; the draws are token ids of the rows' shape."""
    z = torch.tensor([0.0, 2.0, -1.0, 1.0])                  # not sorted: the arg max is token 1
    show = lambda t: "(" + ", ".join(f"{v:.3f}" for v in t.tolist()) + ")"  # noqa: E731
    for tau in (0.5, 1.0, 2.0):
        gen = torch.Generator().manual_seed(5)
        ids = _call(which, sample_with_temperature, z.expand(draws, -1), tau, gen, names=NAMES_5,
                    dims={"N": draws, "|V|": len(z)}, how=f"at tau = {tau}, on {draws:,} rows of z = (0, 2, -1, 1)")
        _check_tensor(which, f"the draws at tau = {tau}", ids, (draws,), torch.int64, fn=sample_with_temperature)
        freq, want = _frequencies(ids, len(z)), torch.softmax(z.double() / tau, dim=-1)
        worst = float((freq - want).abs().max())
        if worst > tolerance:
            _fail(which, f"at tau = {tau}, {draws:,} draws on z = (0, 2, -1, 1) gave the frequencies {show(freq)}; "
                         f"softmax(z / tau) is {show(want)}; they differ by {worst:.3f} > {tolerance}."
                         + ((lambda found: f" To find why, the checkpoint tried crafted inputs: {found}" if found else
                             _sampler_cause(freq, z.double(), tau, 3 * tolerance)
                             or " Equation 12 divides the logits by tau, then takes the softmax over the vocabulary.")(
                                _diagnose_sampler(which, sample_with_temperature, z))))
    gen = torch.Generator().manual_seed(5)
    ones = [_call(which, sample_with_temperature, z[None], 1.0, gen, names=NAMES_5, dims={"|V|": len(z)},
                  how="one call per character, as generate() calls it, with one generator for the whole sample")
            for _ in range(steps)]
    _check_tensor(which, "the draw for logits of shape (1, |V|) (what generate() passes)", ones[0], (1,), torch.int64,
                  fn=sample_with_temperature)
    freq, want = _frequencies(torch.cat(ones), len(z)), torch.softmax(z.double(), dim=-1)
    if float((freq - want).abs().max()) > 0.05:
        same = len(set(int(t) for t in ones)) == 1
        _fail(which, f"one call per character, as generate() calls it ({steps:,} calls on z = (0, 2, -1, 1) with one "
                     f"generator), gave the frequencies {show(freq)} against softmax(z) = {show(want)}"
                     + (": every call drew the same token. Draw with the `generator` you are given (it moves on after "
                        "each draw); a new or re-seeded generator in each call draws the same random number every time"
                        if same else ". Draw with the `generator` you are given, on each call."))
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(5)
        free = _call(which, sample_with_temperature, z.expand(draws, -1), 1.0, None, names=NAMES_5,
                     dims={"N": draws, "|V|": len(z)}, how="without a generator (generator=None)")
    _check_tensor(which, "the draws without a generator", free, (draws,), torch.int64, fn=sample_with_temperature)
    if float((_frequencies(free, len(z)) - want).abs().max()) > tolerance:
        _fail(which, f"without a generator the draws' frequencies are {show(_frequencies(free, len(z)))}, against "
                     f"softmax(z) = {show(want)}: generator=None must draw from the same probabilities")
    gen = torch.Generator().manual_seed(5)
    ids = _call(which, sample_with_temperature, z.expand(1000, -1), 0.01, gen, names=NAMES_5,
                dims={"N": 1000, "|V|": len(z)}, how="at a very small tau = 0.01 (each draw must be the row's arg max)")
    if not bool((ids == 1).all()):
        _fail(which, f"at tau = 0.01 every draw must be the arg max, token 1 of z = (0, 2, -1, 1); got the frequencies "
                     f"{show(_frequencies(ids, len(z)))}")
    g = torch.Generator().manual_seed(0)
    batch = _call(which, sample_with_temperature, torch.randn(2, 3, 7, generator=g), 1.0, torch.Generator().manual_seed(0),
                  names=NAMES_5, dims={"|V|": 7}, how="on logits of shape (2, 3, |V|): one draw per row")
    _check_tensor(which, "draws for logits of shape (2, 3, |V|)", batch, (2, 3), fn=sample_with_temperature)
    peaked, tokens = _peaked_rows((2, 3), 7)
    batch = _call(which, sample_with_temperature, peaked, 1.0, torch.Generator().manual_seed(0), names=NAMES_5,
                  dims={"|V|": 7}, how="on logits of shape (2, 3, |V|) whose rows each put nearly all their "
                                       "probability on their own token")
    if not torch.equal(batch, tokens):
        _fail(which, f"on logits of shape (2, 3, |V|) whose every row puts nearly all its probability on its own token "
                     f"({tokens.tolist()}), your draws are {batch.tolist()}: each row must draw from its own softmax. "
                     "Take the softmax over the vocabulary, the last dimension (dim=-1), whatever the number of "
                     "dimensions, and reshape the draws back in the rows' order.")
    a, b = (_call(which, sample_with_temperature, z.expand(50, -1), 1.0, torch.Generator().manual_seed(9),
                  names=NAMES_5, dims={"N": 50, "|V|": len(z)}, how="twice with generators of the same seed")
            for _ in range(2))
    if not torch.equal(a, b):
        _fail(which, "two generators of the same seed gave different draws: pass the generator to torch.multinomial, "
                     "torch.multinomial(probs, num_samples=1, generator=generator)")
    _passed(which, f"{draws:,} draws at tau = 0.5, 1, 2 match softmax(z / tau) within {tolerance}, and so do "
                   f"{steps:,} one-row calls with one generator; tau = 0.01 always returns the arg max",
            sample_with_temperature)


def _reference_top_k(logits, k):
    return logits.masked_fill(logits < torch.topk(logits, k, dim=-1).values[..., -1:], float("-inf"))


def _reference_nucleus(logits, p):
    probs, order = torch.softmax(logits, dim=-1).sort(dim=-1, descending=True)
    drop = probs.cumsum(dim=-1) - probs >= p
    return logits.masked_fill(drop.scatter(-1, order, drop), float("-inf"))


def _check_filtered(which, fn, shown, probs, out, want, arg):
    """One filter's output on one worked example: which tokens it kept (want: their ids), and their values."""
    logits = probs.log()
    kept = set(torch.isfinite(out).nonzero().flatten().tolist())
    if kept == want:
        if not torch.allclose(out[sorted(want)], logits[sorted(want)], atol=1e-5):
            looks_like_probs = bool((out[sorted(want)] >= 0).all()) and abs(float(out[sorted(want)].sum()) - 1) < 1e-4
            _fail(which, f"{shown}: the kept tokens' values changed, expected {_row(logits[sorted(want)][None])}, got "
                         f"{_row(out[sorted(want)][None])}"
                         + (": these are probabilities. The filter returns logits, the kept tokens unchanged and the "
                            "others -inf (the sampler takes the softmax)" if looks_like_probs else
                            ": the filter keeps the kept tokens unchanged and sets the others to -inf"))
        return
    order = probs.argsort(descending=True).tolist()
    zeros = [t for t in range(len(probs)) if t not in want and float(out[t]) == 0.0]
    if zeros and bool(torch.isfinite(out).all()):
        looks_like_probs = bool((out >= 0).all()) and abs(float(out.sum()) - 1) < 1e-4
        _fail(which, f"{shown}: the dropped tokens {zeros} got 0"
                     + (": the output looks like probabilities. The filter returns logits, the kept tokens unchanged "
                        "and the others float(\"-inf\")" if looks_like_probs else
                        ", and a logit of 0 still has a probability after the softmax: set them to float(\"-inf\")"))
    message = (f"{shown} keeps {len(kept)} of the 4 tokens, {sorted(kept)}; expected {len(want)}, {sorted(want)}"
               " (removed tokens get logit -inf)")
    if len(kept) == len(want) and kept == set(order[-len(want):]):
        message += (": it keeps the least probable tokens; " + ("the k largest, torch.topk's default (largest=True)"
                    if fn.__name__.startswith("top") else "sort the probabilities with descending=True"))
    elif len(kept) == len(want):
        message += (": the right number of tokens, but not the right ones. The logits the lab passes are not sorted, "
                    "so keep each token in its own place: if you sort, scatter the sorted mask back, "
                    "mask.scatter(-1, order, mask); in their own places the kept ones are the most probable")
    elif fn.__name__.startswith("top") and kept == set(order[:len(want) - 1]):
        message += ": the k-th largest must stay: drop only what lies below it (logits < kth, not <=)"
    elif not fn.__name__.startswith("top") and kept == set(order[:len(want) - 1]):
        message += (": it drops the token that takes the total to p; keep it, and drop a token only when the "
                    "probability before it already reaches p (cumsum - probs >= p)")
    elif not fn.__name__.startswith("top"):
        message += (". Nucleus keeps the most probable tokens, in probabilities (torch.softmax(logits, dim=-1)) "
                    "sorted from the most probable down (descending=True), until their cumulative sum reaches p")
    _fail(which, message)


@contextmanager
def _topk_smallest_first():
    """torch.topk (and Tensor.topk) as they may behave: with sorted=False the k values come in no promised order;
    here, smallest first, so that a filter that takes the last of them as the k-th largest is caught on every
    machine (on a CPU, small inputs often come back sorted anyway)."""
    original, method = torch.topk, torch.Tensor.__dict__.get("topk")   # the method is usually inherited

    def topk(input, k, dim=-1, largest=True, sorted=True):  # noqa: A002 - torch's own argument names
        values, indices = original(input, k, dim=dim, largest=largest, sorted=True)
        if sorted:
            return torch.return_types.topk((values, indices))
        return torch.return_types.topk((values.flip(dim), indices.flip(dim)))
    torch.topk, torch.Tensor.topk = topk, topk
    try:
        yield
    finally:
        torch.topk = original
        if method is None:
            del torch.Tensor.topk
        else:
            torch.Tensor.topk = method


def _order_cause(which, fn, probs, arg, want):
    """When a filter keeps the wrong tokens on the worked example: the same probabilities sorted from the most
    probable down, and in a few orders, show whether the filter is right only on sorted logits (its mask is not
    put back in each token's own place, or is put back with gather, the inverse mapping, instead of scatter)."""
    order = probs.argsort(descending=True)
    ranked = probs[order]                                     # most probable first
    kept_in_order = lambda q: set(torch.isfinite(_call(which, fn, q.log(), arg, names=("logits", "arg"),  # noqa: E731
                                                       how="on the worked example in another order (a probe)"))
                                  .nonzero().flatten().tolist())
    want_ranked = {int((order == t).nonzero()) for t in want}
    if kept_in_order(ranked) != want_ranked:
        return
    sorted_keep = torch.zeros(len(probs), dtype=torch.bool)
    sorted_keep[sorted(want_ranked)] = True
    gathered = set(sorted_keep.gather(-1, order).nonzero().flatten().tolist())
    got = set(torch.isfinite(_call(which, fn, probs.log(), arg, names=("logits", "arg"), how="on the worked example"))
              .nonzero().flatten().tolist())
    shown = (f"On the worked example sorted from the most probable down, {_row(ranked[None])}, {fn.__name__} keeps the "
             f"right tokens; in the order the lab passes, {_row(probs[None])}, it keeps {sorted(got)} instead of "
             f"{sorted(want)}. The logits the lab passes are not sorted.")
    if got == gathered:
        _fail(which, f"{fn.__name__} puts its mask back in the wrong places. {shown} You map the sorted mask back "
                     "with gather, which reads it the inverse way round; scatter puts entry j back at its token's "
                     "place: drop = drop_sorted.scatter(-1, order, drop_sorted).")
    _fail(which, f"{fn.__name__} does not put its mask back in each token's own place. {shown} Return the logits "
                 "with the tokens in their own places: if you sort, put the mask back where each token was, "
                 "drop = drop_sorted.scatter(-1, order, drop_sorted), then logits.masked_fill(drop, float(\"-inf\")).")


@checkpoint("Challenge checkpoint (top_k_filter, nucleus_filter)")
def checkpoint_challenge(which, top_k_filter, nucleus_filter):
    """The optional challenge: the section-7 worked example, through the filters and the same sampler. Returns
    True when both filters pass; False, with a note and no error, when the challenge was skipped."""
    unwritten = []
    for fn in (top_k_filter, nucleus_filter):
        try:
            fn(torch.zeros(3), 1)
        except NotImplementedError:
            unwritten.append(f"`{fn.__name__}`")
        except Exception:  # noqa: BLE001 - reported by the checks below
            pass
    if unwritten:
        print(f"⏭️ {which}: skipped ({' and '.join(unwritten)} not written yet). The challenge is optional; "
              "the lab's results are already saved and nothing below depends on it.")
        return False
    # the section-7 worked example with its tokens in another order: the logits the lab passes are not sorted
    unsure, confident = torch.tensor([0.15, 0.50, 0.05, 0.30]), torch.tensor([0.01, 0.95, 0.01, 0.03])
    cases = [(top_k_filter, unsure, 2, {1, 3}), (nucleus_filter, unsure, 0.9, {0, 1, 3}),
             (top_k_filter, confident, 2, {1, 3}), (nucleus_filter, confident, 0.9, {1}),
             (top_k_filter, unsure, 1, {1}), (nucleus_filter, unsure, 1e-6, {1})]
    for fn, probs, arg, want in cases:
        shown = f"{fn.__name__}(log of {tuple(round(v, 2) for v in probs.tolist())}, {arg})"
        out = _call(which, fn, probs.log(), arg, names=("logits", "k" if fn is top_k_filter else "p"),
                    how="on the log-probabilities of the section-7 worked example")
        _check_tensor(which, f"{fn.__name__} output", out, probs.shape, fn=fn)
        if set(torch.isfinite(out).nonzero().flatten().tolist()) != want:
            _order_cause(which, fn, probs, arg, want)
        _check_filtered(which, fn, shown, probs, out, want, arg)
    g = torch.Generator().manual_seed(6)
    batch = torch.randn(3, 5, 11, generator=g)
    for fn, arg, reference in ((top_k_filter, 4, _reference_top_k), (nucleus_filter, 0.5, _reference_nucleus)):
        got = _call(which, fn, batch, arg, names=("logits", "k" if fn is top_k_filter else "p"), dims={"|V|": 11},
                    how="on logits of shape (3, 5, |V|), one row per position")
        _check_tensor(which, f"{fn.__name__} on logits (3, 5, |V|)", got, batch.shape, fn=fn)
        rows_got, rows_want = torch.isfinite(got).reshape(-1, 11), torch.isfinite(reference(batch, arg)).reshape(-1, 11)
        wrong = [r for r in range(len(rows_got)) if not torch.equal(rows_got[r], rows_want[r])]
        if wrong:
            r = wrong[0]
            _fail(which, f"{fn.__name__} on logits of shape (3, 5, |V|): row {r} of the 15 keeps the tokens "
                         f"{rows_got[r].nonzero().flatten().tolist()}, expected {rows_want[r].nonzero().flatten().tolist()} "
                         f"({len(wrong)} of 15 rows differ): filter each row on its own, along the vocabulary, the "
                         "last dimension (dim=-1)")
    with _topk_smallest_first():
        got = _call(which, top_k_filter, batch, 4, names=("logits", "k"), dims={"|V|": 11},
                    how="on logits of shape (3, 5, |V|), with torch.topk(..., sorted=False) giving its values smallest "
                        "first (an order it is allowed to use)")
    if not torch.equal(torch.isfinite(got), torch.isfinite(_reference_top_k(batch, 4))):
        _fail(which, "top_k_filter relies on the order in which torch.topk(..., sorted=False) returns the k values, and "
                     "that order is not promised: on the same (3, 5, |V|) logits, with torch.topk giving its k values "
                     f"smallest first, your filter keeps {int(torch.isfinite(got).sum())} tokens where it should keep "
                     f"{4 * 15} (4 per row). Take the k-th largest as the smallest of the k values "
                     "(.values.min(dim=-1, keepdim=True)), or leave sorted=True (the default) and take [..., -1:].")
    tied = torch.tensor([1.0, 2.0, 0.0, 1.0])                # the 2nd and 3rd largest are tied
    kept = torch.isfinite(_call(which, top_k_filter, tied, 2, names=("logits", "k"),
                                how="with two logits tied at the k-th largest value")).nonzero().flatten().tolist()
    if kept not in ([1, 3], [0, 1], [0, 1, 3]):
        _fail(which, f"top_k_filter((1, 2, 0, 1), 2) keeps the tokens {kept}: it must keep token 1 (the largest) and "
                     "the tied tokens 0 and 3, both or one of them")
    _passed(which, "top-2 keeps 2 of (0.50, 0.30, 0.15, 0.05), p = 0.9 keeps 3, k = 1 and a tiny p keep 1; "
                   "for (0.95, 0.03, 0.01, 0.01) p = 0.9 keeps 1; the same with the tokens in another order, on a "
                   "batch of rows, and with ties", top_k_filter, nucleus_filter)
    return True


# %% tags=["def"]
#@title Corpus, split and vocabulary (provided) { display-mode: "form" }
def load_corpus(path=None):
    """Tiny Shakespeare, checked against its sha256. Looks in LAB_CORPUS, then ../shared/data and
    the working folder, and downloads it only when none is given or found."""
    path = path or os.environ.get("LAB_CORPUS")
    if path:
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"corpus not found at {path}. Set LAB_CORPUS to the path of Tiny "
                                    f"Shakespeare (sha256 {CORPUS_SHA256}), or unset it to download it from "
                                    f"{CORPUS_URL}")
    else:
        found = [p for p in (Path("../shared/data/tinyshakespeare.txt"), Path("tinyshakespeare.txt")) if p.is_file()]
        path = found[0] if found else Path("tinyshakespeare.txt")
        if not found:
            print(f"downloading {CORPUS_URL}")
            try:
                urllib.request.urlretrieve(CORPUS_URL, path)
            except OSError as err:
                raise RuntimeError(f"could not download the corpus from {CORPUS_URL} ({err}). Download it by "
                                   f"hand and set LAB_CORPUS to its path.") from None
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != CORPUS_SHA256:
        raise ValueError(f"the corpus at {path} has sha256 {digest}, expected {CORPUS_SHA256} (Tiny "
                         f"Shakespeare from {CORPUS_URL}). Delete it and run this cell again to download "
                         "it, or point LAB_CORPUS at the right file.")
    return data.decode("utf-8")


def split_and_encode(text):
    """Fixed split by position and the 65-character vocabulary of train; returns ids as one array."""
    train = text[slice(*SPLIT["train"])]
    chars = sorted(set(train))
    stoi = {c: i for i, c in enumerate(chars)}
    ids = np.array([stoi[c] for c in text], dtype=np.int64)   # every character of val and test is in train
    return chars, ids


# %% tags=["def"]
#@title The character n-gram baseline, restated from Lab 1 (provided) { display-mode: "form" }
class CharNGram:
    """Add-k character n-gram: P(c | ctx) = (count(ctx, c) + k) / (count(ctx) + |V| k), counts from train.

    Contexts are the n - 1 preceding characters, encoded as one integer in base |V|.
    """

    def __init__(self, n, vocab_size):
        self.n, self.V = n, vocab_size

    def _context_codes(self, ids, positions):
        code = np.zeros(len(positions), dtype=np.int64)
        for back in range(self.n - 1, 0, -1):
            code = code * self.V + ids[positions - back]
        return code

    def fit(self, ids, start, end):
        pos = np.arange(start + self.n - 1, end)
        self.contexts, inverse = np.unique(self._context_codes(ids, pos), return_inverse=True)
        self.counts = np.zeros((len(self.contexts), self.V))           # count(ctx, c)
        np.add.at(self.counts, (inverse, ids[pos]), 1)
        self.totals = self.counts.sum(axis=1)                          # count(ctx)
        return self

    def log_probs(self, ids, start, end, k):
        """(end - start, |V|) log-probabilities for the characters ids[start:end], each from the true text
        before it (for the first ones, the end of the preceding split)."""
        codes = self._context_codes(ids, np.arange(start, end))
        row = np.clip(np.searchsorted(self.contexts, codes), 0, len(self.contexts) - 1)
        seen = self.contexts[row] == codes
        counts = np.where(seen[:, None], self.counts[row], 0.0)
        totals = np.where(seen, self.totals[row], 0.0)
        return np.log((counts + k) / (totals + self.V * k)[:, None])


# %% [markdown]
# Run the setup: load and check the corpus, split it, build the vocabulary.

# %%
text = load_corpus()
chars, ids = split_and_encode(text)
V = len(chars)
assert V == 65, f"expected the 65 characters of the training split, found {V}"
split_ids = {name: ids[a:b] for name, (a, b) in SPLIT.items()}
print(f"device: {DEVICE} · settings: {SETTINGS_NAME} · corpus sha256 ok · |V| = {V} · "
      + ", ".join(f"{name} {len(v):,}" for name, v in split_ids.items()))

# %% [markdown]
# # Part A · Recurrent Networks
#
# ## Exercise 1 · An RNN Cell by Hand (8 min · briefing section 2)
#
# Write one step of Equation 1:
#
# $$a_t = W h_{t-1} + U x_t + b, \qquad h_t = \tanh(a_t).$$
#
# Shapes are for a batch of $B$ sequences, one per row: `x_t` is `(B, d)`, `h_prev` is `(B, d_h)`,
# `W` is `(d_h, d_h)`, `U` is `(d_h, d)`, `b` is `(d_h,)`. The result `h_t` is `(B, d_h)`.

# %% [markdown] tags=["hint-1"]
# <details><summary>Hint</summary>
#
# With one sequence per row, $W h_{t-1}$ becomes `h_prev @ W.T`, and $U x_t$ becomes `x_t @ U.T`.
# The bias broadcasts over the batch. Then apply `torch.tanh`.
# </details>

# %% tags=["def", "exercise-1", "listed"]
def rnn_cell_step(x_t, h_prev, W, U, b):
    # x_t: (B, d)   h_prev: (B, d_h)   W: (d_h, d_h)   U: (d_h, d)   b: (d_h,)
    ### BEGIN SOLUTION (TODO: compute a_t = W h_(t-1) + U x_t + b for a batch in rows, and return h_t = tanh(a_t))
    a_t = h_prev @ W.T + x_t @ U.T + b      # (B, d_h)
    return torch.tanh(a_t)                   # h_t: (B, d_h)
    ### END SOLUTION


# %% tags=["checkpoint-1"]
checkpoint_1(rnn_cell_step)

# %% [markdown]
# ## Exercise 2 · Loss, Perplexity and Bits per Character (6 min · briefing sections 3 and 6)
#
# Write `lm_loss_and_ppl(logits, targets)`: the mean cross-entropy in nats (Equation 3), the
# perplexity (Equation 4) and the bits per character, $\mathrm{BPC} = \mathcal{L} / \ln 2$.
#
# $$\mathcal{L} = -\frac{1}{T}\sum_t \log \mathrm{softmax}(z_t)[w_{t+1}], \qquad \mathrm{PPL} = \exp(\mathcal{L}).$$
#
# `logits` is `(..., |V|)` and `targets` holds the next-token ids, shape `(...)`. Return the loss as a
# scalar tensor that still carries gradients: the same function is the training loss, and it scores
# every model in this lab, the n-grams included.

# %% [markdown] tags=["hint-2"]
# <details><summary>Hint</summary>
#
# Flatten to `(N, |V|)` and `(N,)`. `torch.log_softmax(logits, dim=-1)` gives $\log \hat y_t$; pick
# the target's entry of each row with `.gather(1, targets[:, None])` (or fancy indexing), negate and
# take the mean. Then `torch.exp(loss)` and `loss / math.log(2)`.
# </details>

# %% tags=["def", "exercise-2"]
def lm_loss_and_ppl(logits, targets):
    # logits: (..., |V|)   targets: (...) token ids; returns (mean loss in nats, perplexity, bits per char)
    ### BEGIN SOLUTION (TODO: mean of -log softmax(logits)[target] over all positions (Equation 3); perplexity = exp(loss) (Equation 4); bpc = loss / ln 2)
    logp = torch.log_softmax(logits.reshape(-1, logits.shape[-1]), dim=-1)   # (N, |V|)
    nll = -logp.gather(1, targets.reshape(-1, 1)).squeeze(1)                 # (N,) nats per position
    loss = nll.mean()
    return loss, torch.exp(loss), loss / math.log(2)
    ### END SOLUTION


# %% tags=["checkpoint-2"]
checkpoint_2(lm_loss_and_ppl)

# %% [markdown]
# ### The n-gram baseline, scored by your function (provided)
#
# Lab 1's character n-gram with add-k smoothing. $n$ and $k$ are chosen on the validation split from
# Lab 1's grid ($n \le 5$, $k \in \{1, 0.1, 0.01, 0.001\}$), never on test. Every test character is
# scored once, from the true text before it. The cell asserts that it reproduces Lab 1's test values
# to four decimals, and every row goes through your `lm_loss_and_ppl`.

# %% tags=["def"]
LAB1_TEST_NATS = {"uniform": 4.1744, "bigram": 2.4922, "trigram": 2.0859, "best_ngram": 1.8326}
LAB1_WORD_TRIGRAM_PPL = 1437   # Lab 1's word trigram's test perplexity, per word: a different scale, never compared here
K_GRID = (1, 0.1, 0.01, 0.001)


def score_log_probs(log_probs, split):
    """Scores a (N, |V|) array of log-probabilities of a split's characters with lm_loss_and_ppl."""
    a, b = SPLIT[split]
    loss, ppl, bpc = lm_loss_and_ppl(torch.from_numpy(log_probs), torch.from_numpy(ids[a:b]))
    return dict(test_nats=float(loss), perplexity=float(ppl), bpc=float(bpc))


def choose_on_validation(val_nats, k_grid=K_GRID):
    """{(n, k): validation nats} -> (the best k for each n, the best n with its best k): the lowest validation
    loss; the test split is never looked at."""
    orders = sorted({n for n, _ in val_nats})
    best_k = {n: min(k_grid, key=lambda k: val_nats[n, k]) for n in orders}
    return best_k, min(orders, key=lambda n: val_nats[n, best_k[n]])


# %%
with timed("ngram"):
    ngrams = {n: CharNGram(n, V).fit(ids, *SPLIT["train"]) for n in range(1, 6)}
    val_nats = {(n, k): score_log_probs(ngrams[n].log_probs(ids, *SPLIT["val"], k=k), "val")["test_nats"]
                for n in ngrams for k in K_GRID}                    # selection on validation only
    best_k, best_n = choose_on_validation(val_nats)
    n_test = SPLIT["test"][1] - SPLIT["test"][0]
    results = {"uniform": dict(label=f"Uniform over the {V} characters", lab=None,
                               **score_log_probs(np.full((n_test, V), -math.log(V)), "test"),
                               parameters=None, training_steps=None)}
    names = {"bigram": "Character bigram", "trigram": "Character trigram",
             "best_ngram": f"Best character n-gram, n ≤ 5: n = {best_n}"}
    for key, n in (("bigram", 2), ("trigram", 3), ("best_ngram", best_n)):
        results[key] = dict(label=f"{names[key]}, add-k (k = {best_k[n]:g})", lab=1, n=n, k=best_k[n],
                            **score_log_probs(ngrams[n].log_probs(ids, *SPLIT["test"], k=best_k[n]), "test"),
                            parameters=None, training_steps=None)

for key, lab1 in LAB1_TEST_NATS.items():
    assert round(results[key]["test_nats"], 4) == lab1, \
        f"{key}: {results[key]['test_nats']:.6f} nats per character does not reproduce Lab 1's {lab1}"
print("chosen on validation: k per n", best_k, "· best n", best_n)
for key, row in results.items():
    print(f"{row['label']:<52} {row['test_nats']:.4f} nats  ppl {row['perplexity']:6.2f}  bpc {row['bpc']:.2f}")
print("✅ reproduces Lab 1's test values to four decimals")

# %% [markdown]
# ### The RNN language model and its training loop (provided)
#
# `RNNLM` embeds each character ($d = 64$), runs **your** `rnn_cell_step` over the chunk
# ($d_h = 256$) and maps each $h_t$ to logits with $W_o, b_o$ (Equation 2). `train_lm` takes 64
# random chunks of $T = 128$ characters per step, starts each from $h_0 = 0$, uses teacher forcing,
# your `lm_loss_and_ppl`, Adam, and clipping at $\kappa = 1$. A non-finite loss stops training and
# names the step. Evaluation reads a split as one stream in chunks of 1,000 characters and carries
# the hidden state, starting from the end of the preceding split, so every character is scored once
# and none from a cold state.

# %% tags=["def"]
class RNNLM(nn.Module):
    """Embedding -> rnn_cell_step over time (Equation 1) -> output layer (Equation 2)."""

    def __init__(self, vocab_size, d=D_EMBED, d_h=D_HIDDEN):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d)
        bound = 1 / math.sqrt(d_h)                                  # nn.RNN's initialization
        self.W = nn.Parameter(torch.empty(d_h, d_h).uniform_(-bound, bound))
        self.U = nn.Parameter(torch.empty(d_h, d).uniform_(-bound, bound))
        self.b = nn.Parameter(torch.zeros(d_h))
        self.out = nn.Linear(d_h, vocab_size)                       # W_o, b_o
        self.d_h = d_h

    def forward(self, x, h=None, keep_states=False):
        # x: (B, T) token ids; h: (B, d_h) or None for h_0 = 0
        emb = self.embed(x)                                         # (B, T, d)
        h = torch.zeros(x.shape[0], self.d_h, device=x.device) if h is None else h
        states = []
        for t in range(x.shape[1]):
            h = rnn_cell_step(emb[:, t], h, self.W, self.U, self.b)  # (B, d_h)
            if keep_states:
                h.retain_grad()
            states.append(h)
        logits = self.out(torch.stack(states, dim=1))               # (B, T, |V|)
        return (logits, h, states) if keep_states else (logits, h)


class LSTMLM(nn.Module):
    """Embedding -> nn.LSTM (Equation 10, optimized) -> output layer (Equation 2). Forget-gate bias 1."""

    def __init__(self, vocab_size, d=D_EMBED, d_h=D_HIDDEN):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d)
        self.lstm = nn.LSTM(d, d_h, batch_first=True)
        with torch.no_grad():                                       # PyTorch's gate order: i, f, g, o
            self.lstm.bias_ih_l0[d_h:2 * d_h].fill_(1.0)
            self.lstm.bias_hh_l0[d_h:2 * d_h].fill_(0.0)             # so b_f = 1 in total
        self.out = nn.Linear(d_h, vocab_size)

    def forward(self, x, state=None):
        hs, state = self.lstm(self.embed(x), state)                 # hs: (B, T, d_h)
        return self.out(hs), state


def lstm_params_from(weight_ih, weight_hh, bias):
    """Splits PyTorch's stacked LSTM weights (gate order i, f, g, o) into Equation 10's W_*, U_*, b_*."""
    W_i, W_f, W_c, W_o = weight_hh.detach().chunk(4)
    U_i, U_f, U_c, U_o = weight_ih.detach().chunk(4)
    b_i, b_f, b_c, b_o = bias.detach().chunk(4)
    return SimpleNamespace(W_f=W_f, W_i=W_i, W_o=W_o, W_c=W_c, U_f=U_f, U_i=U_i, U_o=U_o, U_c=U_c,
                           b_f=b_f, b_i=b_i, b_o=b_o, b_c=b_c)


def count_parameters(model):
    return sum(p.numel() for p in model.parameters())


def random_batch(generator, batch_size=None, chunk_len=None):
    """batch_size random chunks of the training split: inputs w_1..w_T and targets w_2..w_(T+1)."""
    batch_size, chunk_len = batch_size or S.batch_size, chunk_len or S.chunk_len
    train = split_ids["train"]
    starts = torch.randint(0, len(train) - chunk_len - 1, (batch_size,), generator=generator)
    chunk = torch.from_numpy(np.stack([train[s:s + chunk_len + 1] for s in starts.tolist()]))
    return chunk[:, :-1].to(DEVICE), chunk[:, 1:].to(DEVICE)        # (B, T), (B, T)


def train_lm(model, steps, name):
    """Adam with clipping at kappa = 1 on random chunks (truncated BPTT), seeded; returns the loss per step."""
    torch.manual_seed(S.seed)
    batches = torch.Generator().manual_seed(S.seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=S.lr)
    losses = []
    model.train()
    for step in range(1, steps + 1):
        x, y = random_batch(batches)
        logits = model(x)[0]                                        # teacher forcing: inputs are the true text
        loss = lm_loss_and_ppl(logits, y)[0]
        if not torch.isfinite(loss):                               # diverged: keep the last finite step's weights
            print(f"⚠️ training {name}: the loss became {loss.item()} at step {step} of {steps}: the run diverged. "
                  f"Training stops here, the model keeps its weights of step {step - 1}, and the lab runs on (your "
                  "results file records the steps it trained). Check the exercises it uses, or lower the learning rate.")
            break
        optimizer.zero_grad()
        loss.backward()                                             # BPTT within each chunk (Equations 5, 7)
        torch.nn.utils.clip_grad_norm_(model.parameters(), S.clip_kappa)
        optimizer.step()
        losses.append(loss.item())
        if step % S.log_every == 0 or step == steps:
            print(f"{name} step {step:>5}/{steps}  train loss {np.mean(losses[-S.log_every:]):.3f} nats/char")
    return losses


@torch.no_grad()
def evaluate(model, split):
    """Scores every character of a split once with lm_loss_and_ppl, reading it as one stream in chunks of
    S.eval_chunk and carrying the state; the state is first warmed up on the end of the preceding split."""
    model.eval()
    a, b = SPLIT[split]
    warm = min(S.eval_chunk, a)
    stream = torch.from_numpy(ids[a - warm - 1:b]).to(DEVICE)        # the inputs start one character early
    inputs = stream[:-1]                                             # input j predicts stream[j + 1]
    state, all_logits = None, []
    for s in range(0, len(inputs), S.eval_chunk):
        x = inputs[s:s + S.eval_chunk][None]                          # (1, chunk)
        logits, state = model(x, state)
        all_logits.append(logits[0])
    logits = torch.cat(all_logits)[warm:]                            # drop the warm-up positions
    targets = stream[warm + 1:]
    assert len(targets) == b - a and len(logits) == b - a
    loss, ppl, bpc = lm_loss_and_ppl(logits.float(), targets)
    return dict(test_nats=float(loss), perplexity=float(ppl), bpc=float(bpc))


# %% [markdown]
# Train the RNN: 1,000 steps at the full setting. The cell prints how long they took on this machine.

# %%
torch.manual_seed(S.seed)
rnn = RNNLM(V).to(DEVICE)
assert count_parameters(rnn) == 103_041, f"RNNLM has {count_parameters(rnn):,} parameters, expected 103,041"
print(f"RNNLM: {count_parameters(rnn):,} parameters")
with timed("train_rnn"):
    rnn_losses = train_lm(rnn, S.rnn_steps, "RNN")
with timed("evaluate"):
    rnn_val, rnn_test = evaluate(rnn, "val"), evaluate(rnn, "test")
print(f"RNN trained in {PHASE_S['train_rnn']:.0f} s on {device_name(DEVICE)}")
print(f"RNN validation {rnn_val['test_nats']:.4f} nats (ppl {rnn_val['perplexity']:.2f}) · "
      f"test {rnn_test['test_nats']:.4f} nats (ppl {rnn_test['perplexity']:.2f})")
results["rnn"] = dict(label=f"RNN, d_h = {D_HIDDEN}, {len(rnn_losses):,} training steps", lab=3, **rnn_test,
                      parameters=count_parameters(rnn), training_steps=len(rnn_losses), d_h=D_HIDDEN)

# %% [markdown]
# ## Exercise 3 · Vanishing and Exploding Gradients (9 min · briefing section 4)
#
# ### Exercise 3A · How far back does the gradient reach?
#
# The provided `grad_by_distance` takes 64 validation chunks of 200 characters, runs the trained RNN
# over each from $h_0 = 0$, puts the loss at the **last position only**, and backpropagates to every
# earlier state $h_s$: Equation 6 made visible. `norm_by_distance` then takes the norm
# $\lVert \partial \mathcal{L}_T / \partial h_s \rVert$ of each chunk's gradient at each distance
# $T - s$ and averages over the chunks. The cell also prints $\lVert W \rVert$, the spectral norm of
# the trained recurrent matrix, so you can check what Equation 8's bound $\lVert W \rVert^{T-s}$ allows,
# and the norm of Equation 7's one-step Jacobian, $\lVert \mathrm{diag}(1 - h_j^2)\, W \rVert$, at every
# step of every chunk.
#
# Backpropagation runs in 32-bit floating point (float32), whose smallest positive number is about
# $1.4 \times 10^{-45}$. The norms are taken in float64 from that float32 gradient: a norm taken in
# float32 squares the entries first, and squares of entries below about $10^{-23}$ are 0 in float32,
# so it would read 0 while the gradient is not. The cell prints both distances: where every entry of
# the gradient is exactly 0, and where a float32 norm would read 0.
#
# **Predict first.** Before you run the next cell, write down your prediction in `my_prediction_3a`:
# as the distance $T - s$ grows from 0 to 199, will the measured norm grow, stay roughly flat, or
# shrink? If it shrinks, how fast: by a constant factor per character, or more slowly?

# %%
my_prediction_3a = ""   # your guess in words: grows, stays flat or shrinks with the distance, and how fast

# %% tags=["def"]
def validation_chunks(count, length):
    """count evenly spaced chunks of `length` characters from validation, plus the character after each."""
    val = split_ids["val"]
    starts = np.linspace(0, len(val) - length - 1, count).astype(int)
    x = torch.from_numpy(np.stack([val[s:s + length] for s in starts])).to(DEVICE)
    y = torch.from_numpy(val[starts + length]).to(DEVICE)
    return x, y                                                     # (count, length), (count,)


def grad_by_distance(model, x, y):
    """dL_T / dh_s of every chunk for s = T, T-1, ..., 1, in float32 as backpropagation computes it, with the
    loss at the last position only: (chunks, distance T - s, d_h). Summing the chunks' losses keeps each
    chunk's gradient its own."""
    model.eval()
    with torch.enable_grad():
        logits, _, states = model(x, keep_states=True)
        loss = F.cross_entropy(logits[:, -1], y, reduction="sum")   # L_T of every chunk
        loss.backward()
    grads = torch.stack([h.grad for h in states], dim=1)            # (chunks, T, d_h), index = s
    model.zero_grad(set_to_none=True)
    return grads.flip(1).cpu()                                      # index = distance T - s


def norm_by_distance(grads):
    """Mean over chunks of the gradient's norm at each distance, taken in float64: in float32 the squares of
    entries below about 1e-23 are 0, and the norm would read 0 although the gradient is not."""
    return grads.double().norm(dim=2).mean(dim=0).numpy()


PLACEHOLDERS = {"", "todo", "tbd", "none", "prediction", "my prediction", "your prediction", "guess", "x", "no idea"}


def _is_placeholder(value):
    words = "".join(ch for ch in str(value if value is not None else "").lower() if ch.isalnum() or ch.isspace()).split()
    return " ".join(words) in PLACEHOLDERS


def read_prediction(namespace, name=PREDICTION_NAME):
    """(the prediction's text or None, how it was found): from `name`, or, when no such variable holds one, from a
    variable whose name is a near miss of it (a misspelt name), so that the student's prediction is not lost."""
    value = namespace.get(name)
    if value is not None and not _is_placeholder(value):
        return str(value).strip(), None
    texts = [k for k, v in namespace.items() if isinstance(v, str) and not k.startswith("_") and k != name]
    for near in difflib.get_close_matches(name, texts, n=3, cutoff=0.85):
        if not _is_placeholder(namespace[near]):
            return namespace[near].strip(), near
    return None, None


def prediction_note(namespace):
    """What the Exercise 3A cell prints first, before any number: a visible request when the prediction is blank
    or a placeholder (Run All goes on), else the prediction as it will be saved with the results."""
    prediction, near = read_prediction(namespace)
    if prediction is None:
        value = namespace.get(PREDICTION_NAME)
        shown = str(value).strip() if value is not None else ""
        return (f"⚠️ Exercise 3A: no prediction in `{PREDICTION_NAME}` yet"
                + (f" ({shown!r} is a placeholder)" if shown else "")
                + ". Before you read the numbers below or the plot, write it in the quotes in the cell above, as a "
                f"sentence: {PREDICTION_NAME} = \"...\" (whether the norm grows, stays flat or shrinks as the "
                "distance grows, and how fast); then run both cells again. It is saved with your results.")
    if near:
        return (f"⚠️ Exercise 3A: no `{PREDICTION_NAME}` is set, but `{near}` is: your prediction is taken from it "
                f"and saved with your results. The name must be spelt {PREDICTION_NAME}.\n"
                f"your prediction (saved with your results): {prediction}")
    return f"your prediction (saved with your results): {prediction}"


def saved_prediction(namespace):
    """What the results file keeps as the prediction: its text, or None for a blank one or a placeholder."""
    return read_prediction(namespace)[0]


def step_jacobian_norms(derivative, W, k=24, block=1600):
    """||diag(1 - h_j^2) W||, the norm of Equation 7's one-step Jacobian, at every step: derivative is 1 - h_j^2,
    (..., d_h). Its square is the largest eigenvalue of D (W W^T) D, D = diag(1 - h_j^2), found for all steps at once
    by k steps of Lanczos (batched matrix products instead of one SVD per step). A Lanczos estimate never exceeds the true norm,
    and with k = 24 it agrees with torch.linalg.matrix_norm(..., ord=2) to about 1e-6 on the lab's matrices."""
    W = W.detach().double()
    gram, top = W @ W.T, torch.linalg.svd(W)[0][:, 0]               # start near W's most stretched direction
    rows = derivative.reshape(-1, derivative.shape[-1]).double()
    noise = torch.Generator().manual_seed(0)
    out = []
    for d in rows.split(block):
        q = d * top + 1e-3 * torch.randn(d.shape, generator=noise, dtype=d.dtype).to(d.device)
        q = q / q.norm(dim=1, keepdim=True)
        Q = torch.zeros(d.shape[0], k, d.shape[1], dtype=d.dtype, device=d.device)
        alpha = torch.zeros(d.shape[0], k, dtype=d.dtype, device=d.device)
        beta = torch.zeros(d.shape[0], k - 1, dtype=d.dtype, device=d.device)
        for j in range(k):
            Q[:, j] = q
            w = d * ((d * q) @ gram)                                # D W W^T D q
            alpha[:, j] = (w * q).sum(dim=1)
            for _ in range(2):                                      # full reorthogonalization, twice
                w = w - torch.einsum("nj,nji->ni", torch.einsum("nji,ni->nj", Q[:, :j + 1], w), Q[:, :j + 1])
            if j < k - 1:
                b = w.norm(dim=1)
                alive = b > 1e-12 * alpha[:, :j + 1].abs().amax(dim=1)   # else the Krylov space is exhausted
                beta[:, j] = torch.where(alive, b, torch.zeros_like(b))
                q = torch.where(alive[:, None], w / b.clamp_min(1e-300)[:, None], torch.zeros_like(w))
        T = torch.diag_embed(alpha) + torch.diag_embed(beta, 1) + torch.diag_embed(beta, -1)
        out.append(torch.linalg.eigvalsh(T)[:, -1].clamp_min(0).sqrt())
    return torch.cat(out).reshape(derivative.shape[:-1]).cpu()


def tanh_saturation(model, x, spectral_norm_W):
    """How saturated the RNN's units are on the chunks x (the states the gradient above was measured through):
    the share of the entries of h_j with |h_j| > 0.9, the mean of tanh's derivative 1 - h_j^2, Equation 8's
    one-step factor with the measured derivatives, ||diag(1 - h_j^2)|| ||W|| (the largest 1 - h_j^2 of the step
    times ||W||), as a geometric mean over the steps and chunks (the bound's factor per character), and the
    geometric mean of that largest 1 - h_j^2 alone; and the one-step Jacobian itself, ||diag(1 - h_j^2) W|| at every
    step of every chunk: its smallest, geometric mean and largest, and the share of steps where it is below 1."""
    model.eval()
    with torch.enable_grad():                                       # keep_states retains gradients
        _, _, states = model(x, keep_states=True)
    h = torch.stack([s.detach() for s in states], dim=1).double()  # (chunks, T, d_h)
    derivative = 1 - h ** 2
    largest = derivative.amax(dim=2)                                # (chunks, T): ||diag(1 - h_j^2)||
    jacobian = step_jacobian_norms(derivative, model.W)             # (chunks, T): ||diag(1 - h_j^2) W||
    return {"share_abs_h_above_0.9": float((h.abs() > 0.9).double().mean()),
            "mean_tanh_derivative": float(derivative.mean()),
            "bound_factor_per_character": float((largest * spectral_norm_W).log().mean().exp()),
            "largest_derivative_geometric_mean": float(largest.log().mean().exp()),
            "step_jacobian_norm": {"steps": jacobian.numel(), "min": float(jacobian.min()),
                                   "geometric_mean": float(jacobian.log().mean().exp()), "max": float(jacobian.max()),
                                   "share_below_1": float((jacobian < 1).double().mean())}}


def power_text(g0, w, d):
    """g0 * w ** d as text, also beyond the largest float (1.2e+382, where a float overflows): Equation 8's bound."""
    g0, w = float(g0), float(w)
    if not (math.isfinite(g0) and math.isfinite(w)):
        return "not a number (the run diverged)"
    if g0 == 0 or w == 0:
        return f"{g0 if d == 0 else 0.0:.1e}"
    exponent = math.log10(g0) + d * math.log10(w)
    whole = math.floor(exponent)
    mantissa = round(10 ** (exponent - whole), 1)
    if mantissa >= 10:                                              # 9.96 rounds to 10.0: one power up
        mantissa, whole = mantissa / 10, whole + 1
    return f"{mantissa:.1f}e{whole:+03d}"


def first_distance(flags):
    """The first distance at which flags (one boolean per distance) holds; None if it never does."""
    hits = np.flatnonzero(np.asarray(flags))
    return int(hits[0]) if len(hits) else None


# %%
print(prediction_note(globals()))
with timed("gradients_rnn"):
    chunk_x, chunk_y = validation_chunks(S.grad_chunks, S.grad_chunk_len)
    rnn_grads = grad_by_distance(rnn, chunk_x, chunk_y)             # float32, (chunks, distance, d_h)
    rnn_grad = norm_by_distance(rnn_grads)                          # float64 norms, mean over chunks
    spectral_W = float(torch.linalg.matrix_norm(rnn.W.detach(), ord=2))
rnn_all_zero = first_distance((rnn_grads == 0).all(dim=2).all(dim=0))        # every entry exactly 0
rnn_naive_zero = first_distance((rnn_grads.norm(dim=2) == 0).all(dim=0))    # a float32 norm reads 0
positive = rnn_grad > 0
rnn_factor = (float(10 ** np.polyfit(np.flatnonzero(positive), np.log10(rnn_grad[positive]), 1)[0])
              if positive.sum() >= 2 else float("nan"))                 # a line needs two points above 0
saturation = tanh_saturation(rnn, chunk_x, spectral_W)
print(f"||W|| (spectral norm of the trained RNN's W) = {spectral_W:.2f}")
for d in (0, 10, 25, 50, 100, 150, len(rnn_grad) - 1):
    print(f"distance {d:>3}: ||dL_T/dh_s|| = {rnn_grad[d]:.3e}    bound from Equation 8: {power_text(rnn_grad[0], spectral_W, d)}")
print(f"a straight line through the log of the norm: a factor of {rnn_factor:.3f} per character")
print(f"saturation: {saturation['share_abs_h_above_0.9']:.1%} of the entries of h have |h| > 0.9; tanh's derivative "
      f"1 - h^2 averages {saturation['mean_tanh_derivative']:.3f}; Equation 8's one-step factor with these "
      f"derivatives, ||diag(1 - h_j^2)|| ||W||, is {saturation['bound_factor_per_character']:.2f} per character "
      f"(geometric mean), against the measured {rnn_factor:.3f}: loose, because the largest 1 - h_j^2 of a step, "
      f"one unsaturated unit, averages {saturation['largest_derivative_geometric_mean']:.3f} (geometric mean)")
jac = saturation["step_jacobian_norm"]
print(f"the one-step Jacobian itself, ||diag(1 - h_j^2) W||, at each of the {jac['steps']:,} steps: smallest "
      f"{jac['min']:.2f}, geometric mean {jac['geometric_mean']:.2f}, largest {jac['max']:.2f}; below 1 at "
      f"{jac['share_below_1']:.1%} of the steps")
print("first distance at which every entry of the gradient is exactly 0 in float32:",
      rnn_all_zero if rnn_all_zero is not None else f"none within the {len(rnn_grad)} distances measured")
if rnn_naive_zero is not None:
    print(f"a norm taken in float32 would read 0 from distance {rnn_naive_zero} on, where the float64 norm is "
          f"{rnn_grad[rnn_naive_zero]:.1e} and the largest entry {float(rnn_grads[:, rnn_naive_zero].abs().max()):.1e}")

# %%
def plot_grad_curves(curves, title):
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for name, g in curves.items():
        d = np.arange(len(g))
        ax.semilogy(d[g > 0], g[g > 0], label=name)
    ax.set_xlabel("distance T − s (characters back)")
    ax.set_ylabel("||∂L_T / ∂state_s|| (log scale)")
    ax.set_title(title)
    ax.legend()
    plt.show()


plot_grad_curves({"RNN": rnn_grad}, "Exercise 3A: how far back the RNN's gradient reaches")

# %% tags=["checkpoint-3a"]
checkpoint_3a(rnn_grad, spectral_W)

# %% [markdown]
# **Explain what you see.** Is $\lVert W \rVert$ above or below 1? Does Equation 8's bound alone
# explain the curve? What does the one-step Jacobian of Equation 7, $\mathrm{diag}(1 - h_j^2)\, W$,
# add? Then open the briefing's "After the Lab" box for section 4.
#
# <details><summary>Answer</summary>
#
# When $\lVert W \rVert > 1$ the bound allows growth, so it cannot explain a curve that falls by a
# roughly constant factor per character. The one-step Jacobian $\mathrm{diag}(1 - h_j^2)\, W$ adds the
# factors $1 - h_j^2$: a saturated unit (with $|h_j|$ near 1) multiplies its part of the gradient by
# nearly 0, so the product of the actual Jacobians can shrink although $\lVert W \rVert$ is above 1.
# The cell printed how saturated this RNN is, and Equation 8 with the measured derivatives,
# $\lVert \mathrm{diag}(1 - h_j^2) \rVert\, \lVert W \rVert$ per step. That factor is loose: the norm of a
# diagonal matrix is its largest entry, so one unsaturated unit in a step keeps it near $\lVert W \rVert$.
# The cell also printed the one-step Jacobian's own norm, $\lVert \mathrm{diag}(1 - h_j^2)\, W \rVert$, at
# every step. Where it is below 1, that step shrinks every direction of the gradient. Where it is above 1
# at every step, no single step forces the fall: it comes from how the one-step Jacobians combine from
# step to step, which direction each one stretches and which it shrinks. Saturation can be part of that,
# and so can the directions in which $W$ stretches; this lab does not separate them.
# </details>
#
# ### Exercise 3B · Gradient clipping
#
# Write `clip_gradients(params, kappa)`, Equation 9: with $g$ all the parameters' gradients
# flattened into one vector, $g \leftarrow g \cdot \min(1, \kappa / \lVert g \rVert)$, in place on
# every `p.grad`. Return $\lVert g \rVert$ before clipping, as `torch.nn.utils.clip_grad_norm_` does.

# %% [markdown] tags=["hint-3b"]
# <details><summary>Hint</summary>
#
# `params` may be a generator (the demonstration passes `model.parameters()`), and a generator can
# be read only once: read it into a list first. Skip parameters whose `.grad` is `None`. The total norm is
# `torch.sqrt(sum((p.grad ** 2).sum() for p in grads))`, one number for all parameters together.
# Then multiply every `p.grad` in place (`p.grad.mul_(factor)`) by the same factor.
# </details>

# %% tags=["def", "exercise-3b"]
def clip_gradients(params, kappa):
    # params: iterable of tensors with .grad; clips all gradients together, in place; returns ||g||
    ### BEGIN SOLUTION (TODO: total norm of all p.grad together; multiply every p.grad by min(1, kappa / norm); return the norm)
    grads = [p.grad for p in params if p.grad is not None]
    total_norm = torch.sqrt(sum((g.detach() ** 2).sum() for g in grads))
    factor = torch.clamp(kappa / (total_norm + 1e-6), max=1.0)        # min(1, kappa / ||g||)
    for g in grads:
        g.detach().mul_(factor)
    return total_norm
    ### END SOLUTION


# %% tags=["checkpoint-3b"]
checkpoint_3b(clip_gradients)

# %% [markdown]
# ### The clipping demonstration (provided)
#
# Two fresh RNNs, identical initial weights, identical batches, 150 steps of **plain SGD** at a
# deliberately high learning rate of 2.0: one with your `clip_gradients` at $\kappa = 1$, one without.
# (Plain SGD, because Adam divides each step by a running estimate of the gradient's size, which can
# hide much of the effect of one huge gradient.)
#
# **Predict first.** Which run ends with the lower training loss? Will the unclipped one even end
# better than the uniform guess, $\ln 65 \approx 4.17$ nats per character?

# %% tags=["def"]
def sgd_run(clip, steps, lr, kappa, seed):
    """Trains a fresh RNNLM with plain SGD; returns the loss and the gradient norm (before clipping) per step.
    Non-finite values are recorded as they come: this run is meant to show an explosion, not stop at one."""
    torch.manual_seed(seed)
    model = RNNLM(V).to(DEVICE)
    batches = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses, norms = [], []
    for _ in range(steps):
        x, y = random_batch(batches)
        loss = lm_loss_and_ppl(model(x)[0], y)[0]
        optimizer.zero_grad()
        loss.backward()
        if clip:
            norm = clip_gradients(model.parameters(), kappa)
        else:
            norm = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters()))
        optimizer.step()
        losses.append(loss.item())
        norms.append(float(norm))
    return losses, norms


def final_loss(losses, last=10):
    """Where a run ended: the mean training loss of its last steps (one step alone is noisy); None if any is
    non-finite."""
    tail = losses[-last:]
    return float(np.mean(tail)) if all(math.isfinite(v) for v in tail) else None


# %%
with timed("clipping_demo"):
    sgd = {name: sgd_run(clip, S.sgd_steps, S.sgd_lr, S.clip_kappa, S.seed)
           for name, clip in (("clipped", True), ("unclipped", False))}
for name, (losses, norms) in sgd.items():
    end = final_loss(losses)
    print(f"{name:>9}: training loss at the end (mean of the last 10 steps) "
          f"{'non-finite' if end is None else f'{end:.2f}'} nats/char, largest gradient norm {np.nanmax(norms):.3g}")

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.5))
for name, (losses, norms) in sgd.items():
    ax1.semilogy(norms, label=name)
    ax2.plot(losses, label=name)
ax2.axhline(math.log(V), color="gray", linestyle="--", label="uniform guess, ln 65")
ax1.set(xlabel="SGD step", ylabel="gradient norm (log scale)")
ax2.set(xlabel="SGD step", ylabel="training loss (nats/char)")
ax1.legend(), ax2.legend()
plt.show()

# %% [markdown]
# # Part B · The LSTM
#
# ## Exercise 4 · The LSTM Cell (6 min · briefing section 5)
#
# The four gate lines of Equation 10 are given. Write the last two: the cell update
# $c_t = f_t \odot c_{t-1} + i_t \odot \tilde c_t$ and the hidden state $h_t = o_t \odot \tanh(c_t)$.
# The checkpoint compares your step with `nn.LSTMCell`.

# %% [markdown] tags=["hint-4"]
# <details><summary>Hint</summary>
#
# $\odot$ is the elementwise product, `*` in PyTorch. The cell update starts from the previous
# **cell** state `c_prev` (not `h_prev`), and the hidden state squashes the **new** cell state.
# </details>

# %% tags=["def", "exercise-4", "listed"]
def lstm_cell_step(x_t, h_prev, c_prev, p):
    # p holds W_*, U_*, b_* for f, i, o, c.  All states: (B, d_h)
    f = torch.sigmoid(h_prev @ p.W_f.T + x_t @ p.U_f.T + p.b_f)
    i = torch.sigmoid(h_prev @ p.W_i.T + x_t @ p.U_i.T + p.b_i)
    o = torch.sigmoid(h_prev @ p.W_o.T + x_t @ p.U_o.T + p.b_o)
    c_tilde = torch.tanh(h_prev @ p.W_c.T + x_t @ p.U_c.T + p.b_c)
    ### BEGIN SOLUTION (TODO: the cell update c and the hidden state h of Equation 10, then return h, c)
    c = f * c_prev + i * c_tilde          # cell update
    h = o * torch.tanh(c)                 # hidden state
    return h, c
    ### END SOLUTION


# %% tags=["checkpoint-4"]
checkpoint_4(lstm_cell_step)

# %% [markdown]
# ### Train the LSTM (provided)
#
# `nn.LSTM` is the same computation as your `lstm_cell_step`, in optimized form. 2,000 steps at the
# full setting, with the forget-gate bias set to 1 so that $f_t \approx \sigma(1) \approx 0.73$ at
# initialization.

# %%
torch.manual_seed(S.seed)
lstm = LSTMLM(V).to(DEVICE)
assert count_parameters(lstm) == 350_593, f"LSTMLM has {count_parameters(lstm):,} parameters, expected 350,593"
print(f"LSTMLM: {count_parameters(lstm):,} parameters")
with timed("train_lstm"):
    lstm_losses = train_lm(lstm, S.lstm_steps, "LSTM")
with timed("evaluate"):
    lstm_val, lstm_test = evaluate(lstm, "val"), evaluate(lstm, "test")
print(f"LSTM trained in {PHASE_S['train_lstm']:.0f} s on {device_name(DEVICE)}")
print(f"LSTM validation {lstm_val['test_nats']:.4f} nats (ppl {lstm_val['perplexity']:.2f}) · "
      f"test {lstm_test['test_nats']:.4f} nats (ppl {lstm_test['perplexity']:.2f})")
results["lstm"] = dict(label=f"LSTM, d_h = {D_HIDDEN}, {len(lstm_losses):,} training steps", lab=3, **lstm_test,
                       parameters=count_parameters(lstm), training_steps=len(lstm_losses), d_h=D_HIDDEN)

# %% [markdown]
# ### The LSTM's gradient against distance (provided)
#
# The same measurement as Exercise 3A, on the same validation chunks, with the trained LSTM's
# weights unrolled by **your** `lstm_cell_step`. The state at step $s$ is the pair $(h_s, c_s)$; we
# measure the norm of the gradient with respect to both, $\lVert \partial \mathcal{L}_T / \partial (h_s, c_s) \rVert$,
# again in float64. The cell also prints the forget-gate statistics: the mean, and the share of gate
# entries (one unit at one step) above 0.9 and 0.99. One step says little about a long span: along the
# direct path of Equation 11 a unit's gradient is multiplied by the product of its own gates, one per
# step, and even 0.9 held for 50 steps keeps only $0.9^{50} \approx 0.005$. So the cell then measures
# that product over the last $k$ steps of each chunk, for every unit and every distance $k$, and how
# much of the gradient at the last position the direct path alone carries $k$ steps back, beside what
# was measured there. These are means over the chunks, and a mean can be set by one or two chunks, so
# the cell also prints the same shares and ratios chunk by chunk: their median and the middle half.
#
# **Predict first.** Where will the LSTM's curve lie against the RNN's, 50 characters back?

# %% tags=["def"]
def lstm_grad_by_distance(model, x, y):
    """Like grad_by_distance, for the LSTM unrolled with lstm_cell_step: dL_T / d(h_s, c_s) of every chunk,
    h's and c's entries side by side, (chunks, distance T - s, 2 d_h); and every forget-gate value f_t met on
    the way."""
    model.eval()
    p = lstm_params_from(model.lstm.weight_ih_l0, model.lstm.weight_hh_l0,
                         model.lstm.bias_ih_l0 + model.lstm.bias_hh_l0)
    emb = model.embed(x).detach()                                   # (chunks, T, d)
    h, c = (torch.zeros(x.shape[0], p.W_f.shape[0], device=x.device, requires_grad=True) for _ in range(2))
    states, gates = [], []
    with torch.enable_grad():
        for t in range(x.shape[1]):
            with torch.no_grad():                                   # the forget gate again, to record it
                gates.append(torch.sigmoid(h @ p.W_f.T + emb[:, t] @ p.U_f.T + p.b_f))
            h, c = lstm_cell_step(emb[:, t], h, c, p)
            h.retain_grad(), c.retain_grad()
            states.append((h, c))
        loss = F.cross_entropy(model.out(h), y, reduction="sum")
        loss.backward()
    grads = torch.stack([torch.cat([h.grad, c.grad], dim=1) for h, c in states], dim=1)   # (chunks, T, 2 d_h)
    model.zero_grad(set_to_none=True)
    return grads.flip(1).cpu(), torch.stack(gates).cpu()


def histogram(values, edges):
    """Counts of values in the bins between consecutive edges (the last bin includes its right edge)."""
    counts, _ = np.histogram(np.asarray(values, dtype=np.float64), bins=np.asarray(edges))
    return {"edges": [float(e) for e in edges], "counts": [int(n) for n in counts]}


def direct_path_products(gates):
    """Equation 11 measured: along the direct path, d c_T / d c_(T - k) multiplies each unit's gradient by the
    product of that unit's forget gates over the last k steps. gates: (T, chunks, d_h), as lstm_grad_by_distance
    returns them; returns every k's product per chunk and unit, (T, chunks, d_h) in float64, index k - 1."""
    return gates.flip(0).double().cumprod(dim=0)


def direct_path_stats(products, grads, distance=50):
    """The distribution of the direct-path products over chunks and units, and how much of the gradient at the
    last position the direct path alone carries `distance` steps back: the norm of dL/dc_T times each unit's
    product, as a share of the norm of dL/d(h_T, c_T) (means over chunks, as norm_by_distance takes them); and how
    much of the cell state's gradient there falls on the units whose product stays above 0.1."""
    p = products.double().numpy().ravel()
    d_h = products.shape[1]
    at_0 = grads[:, 0].double()                                     # dL_T / d(h_T, c_T): h's entries, then c's
    last, cell = at_0.norm(dim=1).mean(), at_0[:, d_h:].norm(dim=1).mean()
    carried = (at_0[:, d_h:] * products.double()).norm(dim=1).mean()
    kept = (at_0[:, d_h:] * (products > 0.1)).norm(dim=1).mean()
    return {"distance": distance, "median": float(np.median(p)), "mean": float(p.mean()), "max": float(p.max()),
            "share_above_0.01": float((p > 0.01).mean()), "share_above_0.1": float((p > 0.1).mean()),
            "share_above_0.5": float((p > 0.5).mean()),
            "cell_share_at_0": float(cell / last), "kept_share_at_0": float(kept / cell),
            "carried_fall": float(carried / last)}


def direct_path_by_distance(products, grads, thetas):
    """Equation 11 at every distance k = 1 .. T - 1 the gradient was measured at: how many of the products (one per
    chunk and unit) exceed each θ of thetas, and the share of the gradient at the last position that the direct
    path alone carries k steps back (direct_path_stats's carried_fall, at every k)."""
    rows = products[:grads.shape[1] - 1]                            # k = 1 .. T - 1: (T - 1, chunks, d_h)
    d_h = rows.shape[2]
    flat = rows.reshape(rows.shape[0], -1).sort(dim=1).values
    cuts = torch.tensor(thetas, dtype=torch.float64).expand(flat.shape[0], -1).contiguous()
    count_above = flat.shape[1] - torch.searchsorted(flat, cuts, right=True)
    at_0 = grads[:, 0].double()
    carried = (at_0[:, d_h:] * rows).norm(dim=2).mean(dim=1) / at_0.norm(dim=1).mean()
    return {"distance": list(range(1, rows.shape[0] + 1)), "theta": [float(t) for t in thetas],
            "products": flat.shape[1], "count_above": count_above.tolist(),
            "carried_fall": [float(v) for v in carried]}


def gradient_by_chunk(rnn_grads, lstm_grads, products, distances):
    """The gradient's norm in each chunk at a few distances (the curves above are their means over the chunks): the
    RNN's ||dL_T/dh_s||, the LSTM's ||dL_T/d(h_s, c_s)||, and what the direct path alone carries there, the norm of
    dL_T/dc_T times each unit's product of its last k forget gates (1 at distance 0). A ratio of two means can be
    set by one or two chunks; these let each chunk's own share and ratio be read beside it."""
    d_h = products.shape[2]
    cell_0 = lstm_grads[:, 0, d_h:].double()                        # dL_T / dc_T of every chunk
    kept = [k for k in distances if k < lstm_grads.shape[1]]
    return {"distance": kept,
            "rnn_grad_norm": [rnn_grads[:, k].double().norm(dim=1).tolist() for k in kept],
            "lstm_grad_norm": [lstm_grads[:, k].double().norm(dim=1).tolist() for k in kept],
            "direct_path_norm": [(cell_0 if k == 0 else cell_0 * products[k - 1].double()).norm(dim=1).tolist()
                                 for k in kept]}


BY_CHUNK_DISTANCES = (0, 10, 25, 50, 100, 150)


# the demo's θ slider: 0.01 .. 0.99 in steps of 0.01
DIRECT_PATH_THETAS = np.round(np.arange(1, 100) / 100, 2)


# forget-gate bins: 0.01 wide up to 0.99, 0.001 up to 0.999, then 0.0001: the mass near 1 is what matters
FORGET_EDGES = np.round(np.concatenate([np.arange(0, 99) / 100, 0.99 + np.arange(0, 9) / 1000,
                                        0.999 + np.arange(0, 11) / 10000]), 4)


# %%
with timed("gradients_lstm"):
    lstm_grads, forget = lstm_grad_by_distance(lstm, chunk_x, chunk_y)
    lstm_grad = norm_by_distance(lstm_grads)                        # ||dL_T / d(h_s, c_s)||, float64
forget_stats = {"mean": float(forget.mean()), "share_above_0.9": float((forget > 0.9).float().mean()),
                "share_above_0.99": float((forget > 0.99).float().mean()),
                "histogram": histogram(forget.flatten(), FORGET_EDGES)}
products = direct_path_products(forget)                            # (T, chunks, d_h), index k - 1
direct_path = direct_path_stats(products[50 - 1], lstm_grads, 50)
direct_by_distance = direct_path_by_distance(products, lstm_grads, DIRECT_PATH_THETAS)
ratio_50 = float(lstm_grad[50] / rnn_grad[50]) if rnn_grad[50] > 0 else None
by_chunk = gradient_by_chunk(rnn_grads, lstm_grads, products, BY_CHUNK_DISTANCES)
print(f"forget gates: mean {forget_stats['mean']:.3f}, above 0.9: {forget_stats['share_above_0.9']:.1%}, "
      f"above 0.99: {forget_stats['share_above_0.99']:.1%}")
print(f"a gate of {forget_stats['mean']:.3f} on every step keeps {round(forget_stats['mean'], 3) ** 50:.1e} of the direct "
      f"path after 50 steps, a gate of 0.99 keeps {0.99 ** 50:.2f}; the LSTM's measured gradient falls to "
      f"{lstm_grad[50] / lstm_grad[0]:.1e} of its value over those 50 steps")
print(f"the product of each unit's own forget gates over the last 50 steps (Equation 11's direct path), over "
      f"{products[50 - 1].numel():,} units x chunks: median {direct_path['median']:.1e}, "
      f"above 0.5: {direct_path['share_above_0.5']:.1%}, above 0.1: {direct_path['share_above_0.1']:.1%}, "
      f"above 0.01: {direct_path['share_above_0.01']:.1%}")
print(f"at the last position the cell state holds {direct_path['cell_share_at_0']:.2f} of the gradient's norm, "
      f"and the units whose product stays above 0.1 hold {direct_path['kept_share_at_0']:.1e} of the cell state's")
print(f"the direct path alone carries {direct_path['carried_fall']:.1e} of the gradient at the last position 50 "
      f"steps back; measured: {lstm_grad[50] / lstm_grad[0]:.1e}")
for k in (10, 25, 50, 100, 150):
    print(f"distance {k:>3}: the direct path carries {direct_by_distance['carried_fall'][k - 1]:.1e} of the gradient "
          f"at the last position, {direct_by_distance['carried_fall'][k - 1] / (lstm_grad[k] / lstm_grad[0]):.1%} "
          f"of what was measured there")
print(f"at distance 50: LSTM {lstm_grad[50]:.3e}, RNN {rnn_grad[50]:.3e}, ratio "
      + (f"{ratio_50:.1e}" if ratio_50 else "infinite (the RNN's is exactly 0)"))
print("The lines above divide means over the chunks, which one or two chunks can set. Chunk by chunk "
      "(median, and the middle half of the chunks):")
at = {k: i for i, k in enumerate(by_chunk["distance"])}
share_text = lambda x: f"{x:.1%}" if x >= 0.001 else f"{x:.1e}"    # noqa: E731 (a share too small for one decimal)
for k in (25, 50, 100, 150):
    share = np.array(by_chunk["direct_path_norm"][at[k]]) / np.array(by_chunk["lstm_grad_norm"][at[k]])
    print(f"distance {k:>3}: the direct path carries {share_text(np.median(share))} of the chunk's measured gradient "
          f"({share_text(np.quantile(share, 0.25))} to {share_text(np.quantile(share, 0.75))})")
fall_50 = np.array(by_chunk["lstm_grad_norm"][at[50]]) / np.array(by_chunk["lstm_grad_norm"][at[0]])
print(f"the LSTM's gradient 50 characters back, over its value at the last position: {np.median(fall_50):.1e} "
      f"({np.quantile(fall_50, 0.25):.1e} to {np.quantile(fall_50, 0.75):.1e})")
with np.errstate(divide="ignore", invalid="ignore"):
    ratio_by_chunk = np.array(by_chunk["lstm_grad_norm"][at[50]]) / np.array(by_chunk["rnn_grad_norm"][at[50]])
print(f"LSTM / RNN at distance 50: {np.median(ratio_by_chunk):.1e} ({np.quantile(ratio_by_chunk, 0.25):.1e} to "
      f"{np.quantile(ratio_by_chunk, 0.75):.1e})")
plot_grad_curves({"RNN, ||∂L_T/∂h_s||": rnn_grad, "LSTM, ||∂L_T/∂(h_s, c_s)||": lstm_grad},
                 "The same measurement for the LSTM")

# %% tags=["checkpoint-4b"]
checkpoint_4b(rnn_grad, lstm_grad, SETTINGS_NAME)

# %% [markdown]
# ## The results table: the module's third objective (provided)
#
# Every row is scored by your `lm_loss_and_ppl` on the same 60,394 test characters, each from the
# true text before it. The n-gram's $n$ and $k$ were chosen on validation; the neural models'
# settings are fixed in the lab, and nothing is chosen on the test split. The RNN and the LSTM are
# not at equal compute (1,000 against 2,000 steps, 103,041 against 350,593 parameters), so the table
# shows whether each beats the counts, not how much of the gap between them is due to gating.

# %%
print(f"{'Model':<52} {'test nats/char':>14} {'perplexity':>11} {'bits/char':>10}")
for row in results.values():
    print(f"{row['label']:<52} {row['test_nats']:>14.4f} {row['perplexity']:>11.2f} {row['bpc']:>10.2f}")

# %% tags=["checkpoint-results"]
checkpoint_results(results, SETTINGS_NAME)

# %% [markdown]
# # Part C · Generating Text
#
# ## Exercise 5 · Sampling With Temperature (8 min · briefing section 7)
#
# Write `sample_with_temperature(logits, tau, generator)`, Equation 12: divide the logits by the
# temperature, take the softmax, draw one token per row.
#
# $$\hat y_t^{(\tau)} = \mathrm{softmax}(z_t / \tau), \qquad w_{t+1} \sim \hat y_t^{(\tau)}.$$
#
# `logits` is `(..., |V|)`; return one token id per row, shape `(...)`. Pass `generator` to
# `torch.multinomial` so the draws are reproducible from a seed.

# %% [markdown] tags=["hint-5"]
# <details><summary>Hint</summary>
#
# `torch.multinomial` accepts only 1-D or 2-D input: reshape the probabilities to `(N, |V|)`, draw
# with `num_samples=1`, then reshape the `(N, 1)` result back to `probs.shape[:-1]`.
# </details>

# %% tags=["def", "exercise-5", "listed"]
def sample_with_temperature(logits, tau, generator=None):
    # logits: (..., |V|), one row per position z_t; returns one token ID per row, shape (...)
    ### BEGIN SOLUTION (TODO: softmax of logits / tau (Equation 12), then one torch.multinomial draw per row with the generator)
    probs = torch.softmax(logits / tau, dim=-1)                  # softmax(z_t / tau)
    flat = probs.reshape(-1, probs.shape[-1])                    # (N, |V|): multinomial wants 1-D or 2-D
    draws = torch.multinomial(flat, num_samples=1, generator=generator)  # (N, 1)
    return draws.reshape(probs.shape[:-1])
    ### END SOLUTION


# %% tags=["checkpoint-5"]
checkpoint_5(sample_with_temperature)

# %% [markdown]
# ### Generate from the LSTM (provided)
#
# 300 characters from the same prompt, greedily and at $\tau = 0.5$, 1.0 and 1.5. Greedy decoding
# takes the arg max at every step. **Predict first:** which one loops, and which one invents words?

# %% tags=["def"]
@torch.no_grad()
def generate(model, prompt, length, pick, seed=0):
    """Feeds the model its own choices: pick(logits (1, |V|), generator) -> token id, one step at a time; stops early
    where the logits are not finite (a diverged model)."""
    model.eval()
    gen = torch.Generator(device=DEVICE).manual_seed(seed)
    stoi = {c: i for i, c in enumerate(chars)}
    x = torch.tensor([[stoi[c] for c in prompt]], device=DEVICE)
    logits, state = model(x)
    out = []
    for _ in range(length):
        if not torch.isfinite(logits[:, -1]).all():                 # a diverged model: no distribution to draw from
            break
        nxt = pick(logits[:, -1], gen)                                # (1,)
        out.append(chars[int(nxt)])
        logits, state = model(nxt.reshape(1, 1), state)
    return "".join(out)


def greedy(logits, generator=None):
    return logits.argmax(dim=-1)


# %%
PROMPT = "ROMEO:\n"
samples = []
with timed("sampling"):
    samples.append(dict(strategy="greedy", tau=None, text=generate(lstm, PROMPT, S.sample_len, greedy)))
    for tau in (0.5, 1.0, 1.5):
        pick = lambda z, g, tau=tau: sample_with_temperature(z, tau, g)
        samples.append(dict(strategy="temperature", tau=tau, text=generate(lstm, PROMPT, S.sample_len, pick, S.seed)))
for run in samples:
    print("--- greedy ---" if run["tau"] is None else f"--- τ = {run['tau']} ---")
    print(PROMPT + run["text"])

# %% [markdown]
# ### Material for the briefing page's sampling demo (provided)
#
# The briefing page's sampling demo replays this model: five prompts from the test split, the
# LSTM's next-character logits after each, and 150 characters generated from each prompt greedily
# (the arg max, by `greedy`) and at $\tau = 0.5$, 1.0 and 1.5 with **your** `sample_with_temperature`
# (the Challenge adds top-k and nucleus samples). Each prompt draws with its own seed, the run's seed
# plus its index, so no two prompts replay the same random draws. They are saved with your results
# below.

# %% tags=["def"]
def demo_prompts(split_text, count, shortest=40, longest=80):
    """count prompts from split_text, evenly spaced: each starts at the beginning of a line and ends after the
    last space within its first `longest` characters (and is at least `shortest` long)."""
    prompts = []
    for start in np.linspace(0, len(split_text) - 10 * longest, count).astype(int):
        line = split_text.index("\n", start) + 1                    # the next line's first character
        while split_text[line] == "\n":                             # a line with text
            line += 1
        window = split_text[line:line + longest]
        cut = window.rfind(" ", shortest - 1) + 1                   # just after a space, or 0 if none
        prompts.append(window[:cut] if cut >= shortest else window)
    return prompts


@torch.no_grad()
def next_char_logits(model, prompt):
    """The model's logits for the character after the prompt, (|V|,)."""
    model.eval()
    stoi = {c: i for i, c in enumerate(chars)}
    return model(torch.tensor([[stoi[c] for c in prompt]], device=DEVICE))[0][0, -1].float().cpu()


def demo_samples(model, prompts, picks, length, seed):
    """One sample per prompt and per (settings, pick) in picks: [{prompt_index, strategy, tau, k, p, seed, text}].
    Each prompt draws with its own seed (seed + its index): with one seed for all, the prompts' samples at one
    setting would share long runs of characters once the model's state forgets the prompt."""
    return [dict(prompt_index=i, **settings, seed=seed + i, text=generate(model, prompt, length, pick, seed + i))
            for i, prompt in enumerate(prompts) for settings, pick in picks]


def with_temperature(tau, logit_filter=None):
    """A pick for generate(): optionally filter the logits, then sample_with_temperature at tau."""
    return lambda z, g: sample_with_temperature(z if logit_filter is None else logit_filter(z), tau, g)


# %%
temperature_picks = [(dict(strategy="greedy", tau=None, k=None, p=None), greedy)] + [
    (dict(strategy="temperature", tau=tau, k=None, p=None), with_temperature(tau)) for tau in (0.5, 1.0, 1.5)]
with timed("sampling_demo"):
    prompts = demo_prompts(text[slice(*SPLIT["test"])], S.demo_prompts)
    sampling = {"vocab": list(chars), "seed": S.seed, "sample_length": S.demo_sample_len,
                "prompts": [{"text": q, "logits": next_char_logits(lstm, q).tolist()} for q in prompts],
                "samples": demo_samples(lstm, prompts, temperature_picks, S.demo_sample_len, S.seed)}
print(f"{len(prompts)} prompts from the test split, {len(sampling['samples'])} samples; the first prompt:")
print(repr(prompts[0]))

# %% [markdown]
# ## Save the results (provided)
#
# The course's build runs this notebook with its solutions and publishes these numbers on the
# briefing page. The file is **your results file**: in Colab it downloads when this cell runs (it is
# also in the file browser on the left); elsewhere it is beside the notebook. Drop it on the module
# page's *Your run* box to see your models beside the course's in every *After the Lab* box and
# demo; it stays in your browser. The optional Challenge below adds its samples to the same file
# (download it again after the Challenge to bring them along). A second file, `lab3_weights.safetensors`,
# holds your trained RNN and LSTM: choose it in the briefing's live demo (section 7) and it writes with
# your models.

# %%
lab_results = {
    "models": results,
    "gradient_by_distance": {
        "chunks": S.grad_chunks, "chunk_length": S.grad_chunk_len,
        "distance": list(range(len(rnn_grad))),
        "rnn_grad_norm": [float(v) for v in rnn_grad], "lstm_grad_norm": [float(v) for v in lstm_grad],
        "rnn_spectral_norm_W": spectral_W, "rnn_first_all_zero_distance": rnn_all_zero,
        "rnn_naive_norm_zero_distance": rnn_naive_zero, "rnn_factor_per_character": rnn_factor,
        "lstm_rnn_ratio_at_50": ratio_50,
        "rnn_saturation": saturation,
        "forget_gate": forget_stats, "direct_path": direct_path, "direct_path_by_distance": direct_by_distance,
        "by_chunk": by_chunk,
    },
    "clipping_demo": {
        "steps": S.sgd_steps, "lr": S.sgd_lr, "kappa": S.clip_kappa, "optimizer": "SGD",
        **{name: {"loss": losses, "grad_norm": norms,
                  "final_loss": final_loss(losses)}
           for name, (losses, norms) in sgd.items()},
    },
    "samples": {"prompt": PROMPT, "length": S.sample_len, "seed": S.seed, "runs": samples},
    "sampling": sampling,
    "student": {"prediction_3a": saved_prediction(globals())},
    "lab_run": {
        "settings": SETTINGS_NAME, "settings_values": vars(S), "seed": S.seed,
        "device": device_name(DEVICE),
        "device_type": DEVICE.type, "torch": torch.__version__, "python": platform.python_version(),
        "numpy": np.__version__, "corpus_sha256": CORPUS_SHA256, "phase_s": PHASE_S,
        "cpu_count": cpu_count(), "torch_threads": torch.get_num_threads(),
        "module": LAB_MODULE, "lab_source_sha256": LAB_SOURCE_SHA256,
    },
}
results_path = Path(os.environ.get("LAB_RESULTS", "lab3_results.json"))


def offer_download(path):
    """In Colab, hand the file to the browser as a download (elsewhere it is already on your disk)."""
    try:
        from google.colab import files
    except ImportError:
        return False
    files.download(str(path))
    return True


def strict_json(value, where="", found=None):
    """(value with every NaN and infinity as None, {where: "nan" | "inf" | "-inf"} for each): JSON has no such
    numbers, and Python's json.dumps would write NaN or Infinity, which no JSON reader takes."""
    found = {} if found is None else found
    if isinstance(value, float) and not math.isfinite(value):
        found[where] = "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
        return None, found
    if isinstance(value, dict):
        return {k: strict_json(v, f"{where}.{k}" if where else str(k), found)[0] for k, v in value.items()}, found
    if isinstance(value, (list, tuple)):
        return [strict_json(v, f"{where}.{i}", found)[0] for i, v in enumerate(value)], found
    return value, found


def save_results():
    lab_results["lab_run"]["saved_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    data, non_finite = strict_json(lab_results)
    if non_finite:   # each null that stands for a number that was not finite, and what it was
        data["non_finite"] = non_finite
        print(f"⚠️ {len(non_finite)} values were not finite numbers (a diverged run); the file writes each as null "
              "and lists it under non_finite: " + ", ".join(list(non_finite)[:3]) + (", ..." if len(non_finite) > 3 else ""))
    results_path.write_text(json.dumps(data, indent=1, ensure_ascii=False, allow_nan=False))
    print(f"wrote {results_path.resolve()} · phases (s): " + ", ".join(f"{k} {v:.1f}" for k, v in PHASE_S.items()))
    if offer_download(results_path):
        print(f"Colab is downloading {results_path.name}: drop it on the module page's 'Your run' box.")
    else:
        print(f"Your results file: drop {results_path.name} on the module page's 'Your run' box.")


def save_weights(path=Path("lab3_weights.safetensors")):
    """Your trained RNN and LSTM in one file (float32, each tensor under its model's name, as the course's build
    exports its own): the module page's live demo plays them when you choose this file there."""
    try:
        from safetensors.torch import save_file
    except ImportError:
        print("Your models were not saved for the page's live demo: it needs the safetensors package "
              "(pip install safetensors), which Colab has.")
        return
    tensors = {f"{name}.{k}": v.detach().to("cpu", torch.float32).contiguous()
               for name, model in (("rnn", rnn), ("lstm", lstm)) for k, v in model.state_dict().items()}
    save_file(tensors, str(path), metadata={"vocab": json.dumps(list(chars), ensure_ascii=False)})
    print(f"wrote {path.resolve()}: your models, for the live demo on the module page (section 7)")
    offer_download(path)


save_results()
save_weights()

# %% [markdown]
# # Challenge · Top-k and Nucleus Sampling (optional)
#
# For anyone who finishes early; skip it freely (the results are saved above, and the notebook runs
# to the end without it). Both are filters on the logits: they set the logits of the tokens
# they drop to $-\infty$ and leave the rest unchanged, so the filtered logits feed the same
# `sample_with_temperature` (the softmax then renormalizes over the kept tokens).
#
# - `top_k_filter(logits, k)` keeps the $k$ largest logits of each row.
# - `nucleus_filter(logits, p)` keeps, in each row, the smallest set of most probable tokens whose
#   total probability is at least $p$.

# %% [markdown] tags=["hint-challenge"]
# <details><summary>Hint</summary>
#
# Top-k: `torch.topk(logits, k).values[..., -1:]` is each row's k-th largest logit; mask everything
# below it. Nucleus: sort the probabilities in descending order, take `cumsum`, and drop a token when
# the probability mass **before** it already reaches p; then scatter the mask back to the original order.
# </details>

# %% tags=["def", "exercise-challenge"]
def top_k_filter(logits, k):
    # logits: (..., |V|); returns logits of the same shape with all but the k largest of each row at -inf
    ### BEGIN SOLUTION (TODO: keep the k largest logits of each row, set the others to -inf)
    kth = torch.topk(logits, k, dim=-1).values[..., -1:]          # (..., 1)
    return logits.masked_fill(logits < kth, float("-inf"))
    ### END SOLUTION


def nucleus_filter(logits, p):
    # logits: (..., |V|); keeps the smallest set of most probable tokens with total probability >= p
    ### BEGIN SOLUTION (TODO: sort probabilities descending, keep tokens until the cumulative mass reaches p, set the rest to -inf)
    probs, order = torch.softmax(logits, dim=-1).sort(dim=-1, descending=True)
    mass_before = probs.cumsum(dim=-1) - probs                    # mass of the more probable tokens
    drop_sorted = mass_before >= p                                # the set already reached p without it
    drop = drop_sorted.scatter(-1, order, drop_sorted)            # back to the original token order
    return logits.masked_fill(drop, float("-inf"))
    ### END SOLUTION


# %% tags=["checkpoint-challenge"]
challenge_done = checkpoint_challenge(top_k_filter, nucleus_filter)

# %% [markdown]
# With both filters written, the next cell generates from the same prompt with top-k ($k = 10$) and
# nucleus ($p = 0.9$) filtering at $\tau = 1$, adds top-k and nucleus samples to the sampling demo's
# material, and saves the results again.

# %%
if challenge_done:
    for name, pick in (("top-k, k = 10", with_temperature(1.0, lambda z: top_k_filter(z, 10))),
                       ("nucleus, p = 0.9", with_temperature(1.0, lambda z: nucleus_filter(z, 0.9)))):
        print(f"--- {name} ---\n{PROMPT}{generate(lstm, PROMPT, S.sample_len, pick, S.seed)}")
    filter_picks = [(dict(strategy="top_k", tau=1.0, k=k, p=None),
                     with_temperature(1.0, lambda z, k=k: top_k_filter(z, k))) for k in (5, 10)] + [
                    (dict(strategy="nucleus", tau=1.0, k=None, p=p),
                     with_temperature(1.0, lambda z, p=p: nucleus_filter(z, p))) for p in (0.5, 0.9)]
    with timed("sampling_demo"):
        sampling["samples"] += demo_samples(lstm, prompts, filter_picks, S.demo_sample_len, S.seed)
    save_results()
else:
    print("Challenge skipped: nothing more to generate or save.")

# %% [markdown]
# ## When you are done
#
# Runtime → Disconnect and delete runtime releases the machine. Then open the briefing's "After the
# Lab" boxes and compare your numbers with the build's.
