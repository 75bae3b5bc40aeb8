"""Mutants of a lab's reference solutions, run through their own checkpoints: do the checkpoints stop wrong code,
and do their messages name the part that is wrong?

    make lab-mutants                                            # every module with modules/<id>/code/mutant_inputs.py
    python3 -m scripts.ci.lab_mutants --module ID --log data/<id>/checkpoint-diagnosis.md

Each exercise function (the cells tagged exercise-N, as the solution notebook has them) is mutated from its
syntax tree, one change at a time, with a fixed seed: operators swapped, constants and dimensions changed, an
index moved, a method made in-place, a term dropped, a call's arguments swapped, one name put for another of
the function's (x_t for h_prev, p.W_i for p.W_f), tanh and sigmoid, gather and scatter exchanged.  A mutant whose
outputs equal the reference's on the module's own inputs (modules/<id>/code/mutant_inputs.py) is equivalent and
not counted.  Every other mutant runs in the lab's namespace (the solution's definition cells, then the mutant
in place of the exercise), then that exercise's checkpoint cell: it must stop there, with the checkpoint's own
message (not a raw traceback).  A message "names the part" when it contains a word for the statement the
mutant changed (PART_WORDS below: the gate, the term, the argument).  The last line:
`lab mutants: K of N output-changing mutants stopped at their own checkpoint`.
"""
from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import importlib.util
import io
import linecache
import random
import sys
from dataclasses import dataclass, field

from scripts import course
from scripts.measure.lab_source import _tags, build_notebook, load_lab, source_sha256

SEED = 42
PER_FUNCTION = 60            # mutants drawn per exercise function (all of them when there are fewer sites)

SWAP_BINOP = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.MatMult: ast.Mult,
              ast.Pow: ast.Mult}
SWAP_CMP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
            ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is}
SWAP_CALL = {"tanh": "sigmoid", "sigmoid": "tanh", "softmax": "log_softmax", "log_softmax": "softmax",
             "gather": "scatter", "scatter": "gather", "sqrt": "square", "exp": "log", "clamp": "clip",
             "mean": "sum", "sum": "mean", "cumsum": "cumprod", "min": "max", "max": "min", "argsort": "sort"}
NOT_SWAPPED = {"p", "params", "generator"}    # containers and a generator, not values a student mixes up
IN_PLACE = {"tanh", "sigmoid", "mul", "add", "masked_fill", "scatter", "clamp", "exp", "div", "sub"}

# words that, in a checkpoint's message, name the statement a mutant changed: by the name the statement assigns
PART_WORDS = {
    "f": ("forget gate",), "i": ("input gate",), "o": ("output gate",), "c_tilde": ("candidate",),
    "c": ("cell update", "cell state", "c_prev", "forget gate", "input gate", "candidate", "in place"),
    "h": ("hidden state", "h_t", "output gate", "tanh", "in place"),
    "a_t": ("bias", "W is not", "W h_(t-1)", "U x_t", "h_prev", "x_t", "a_t"),
    "logp": ("log-softmax", "log_softmax", "softmax", "dimension", "one position", "bits", "log base"),
    "nll": ("target", "gather", "one position", "minus", "moved by one"),
    "loss": ("mean", "sum", "average"),
    "grads": ("generator", "a list", "None", ".grad"), "total_norm": ("norm before", "squared", "square root", "sum of"),
    "factor": ("min(1, kappa", "scaled up", "without multiplying by kappa", "factor", "left unchanged", "not changed"),
    "for": ("in place", "p.grad", "scaled up", "not changed", "left unchanged", "factor"),
    "probs": ("softmax", "tau", "dimension"), "flat": ("rows", "row ", "reshape"),
    "draws": ("generator", "multinomial", "random number", "each row"),
    "kth": ("k-th", "largest", "topk"), "mass_before": ("cumsum", "before it", "reaches p"),
    "drop_sorted": ("reaches p", "drop", "cumsum"), "drop": ("scatter", "own place", "gather"),
    "return": ("return", "shape", "tanh", "perplexity", "bits per character", "exp(loss)", "masked_fill", "-inf",
               "tuple", "pair", "norm before", "changed its argument", "the draws", "probabilities"),
}


@dataclass
class Mutant:
    function: str
    description: str
    statement: str            # the name the changed statement assigns ('return' for a return)
    source: str
    changed: str = ""         # the changed statement as the mutant has it


@dataclass
class Outcome:
    exercise: str
    counted: int = 0
    stopped: int = 0
    named: int = 0
    raw: list = field(default_factory=list)
    survivors: list = field(default_factory=list)
    unnamed: list = field(default_factory=list)
    named_examples: list = field(default_factory=list)
    equivalent: int = 0


def _statement_name(stmt) -> str:
    if isinstance(stmt, ast.Return):
        return "return"
    if isinstance(stmt, ast.Assign):
        target = stmt.targets[0]
        if isinstance(target, ast.Tuple):
            return getattr(target.elts[0], "id", "?")
        return getattr(target, "id", "?")
    return type(stmt).__name__.lower()


def _sites(fn: ast.FunctionDef):
    """(statement index, node path, description, mutate(node) -> new node) for every mutation of fn's body."""
    # names a student could put one for another: the function's tensors (its arguments and the names it assigns),
    # not a namespace of weights (p) or a module (torch)
    names = sorted(({a.arg for a in fn.args.args} | {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)
                                                     and isinstance(n.ctx, ast.Store)}) - NOT_SWAPPED)
    attrs = sorted({n.attr for n in ast.walk(fn) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                    and n.value.id == "p"})
    for s_index, stmt in enumerate(fn.body):
        for node in ast.walk(stmt):
            if isinstance(node, ast.BinOp):
                swap = SWAP_BINOP.get(type(node.op))
                if swap:
                    yield s_index, node, f"{type(node.op).__name__} -> {swap.__name__}", \
                        lambda n, swap=swap: ast.BinOp(n.left, swap(), n.right)
                yield s_index, node, "drop the right term", lambda n: n.left
                yield s_index, node, "drop the left term", lambda n: n.right
            elif isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in SWAP_CMP:
                swap = SWAP_CMP[type(node.ops[0])]
                yield s_index, node, f"{type(node.ops[0]).__name__} -> {swap.__name__}", \
                    lambda n, swap=swap: ast.Compare(n.left, [swap()], n.comparators)
            elif isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
                    and not isinstance(node.value, bool):
                for new in {node.value + 1, 0, -node.value, node.value * 2} - {node.value}:
                    yield s_index, node, f"constant {node.value!r} -> {new!r}", \
                        lambda n, new=new: ast.Constant(type(n.value)(new))
            elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
                yield s_index, node, f"{node.value} -> {not node.value}", lambda n: ast.Constant(not n.value)
            elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
                yield s_index, node, "drop a minus sign", lambda n: n.operand
            elif isinstance(node, ast.Attribute) and node.attr == "T":
                yield s_index, node, "drop .T", lambda n: n.value
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "p":
                for other in attrs:
                    if other != node.attr and other[0] == node.attr[0]:
                        yield s_index, node, f"p.{node.attr} -> p.{other}", \
                            lambda n, other=other: ast.Attribute(n.value, other, n.ctx)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in names:
                for other in names:
                    if other != node.id:
                        yield s_index, node, f"{node.id} -> {other}", lambda n, other=other: ast.Name(other, n.ctx)
            elif isinstance(node, ast.Call):
                func = node.func
                if node.args and getattr(func, "attr", None) in ("sigmoid", "tanh", "softmax", "log_softmax"):
                    yield s_index, node, f"+ 1.0 inside {func.attr}", lambda n: ast.Call(
                        n.func, [ast.BinOp(n.args[0], ast.Add(), ast.Constant(1.0)), *n.args[1:]], n.keywords)
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
                if name in SWAP_CALL and isinstance(func, ast.Attribute):
                    yield s_index, node, f"{name} -> {SWAP_CALL[name]}", lambda n, new=SWAP_CALL[name]: ast.Call(
                        ast.Attribute(n.func.value, new, n.func.ctx), n.args, n.keywords)
                if name in IN_PLACE and isinstance(func, ast.Attribute) and not _is_module(func.value):
                    yield s_index, node, f"{name} -> {name}_ (in place)", lambda n: ast.Call(
                        ast.Attribute(n.func.value, n.func.attr + "_", n.func.ctx), n.args, n.keywords)
                if len(node.args) >= 2:
                    yield s_index, node, f"swap the arguments of {name}", lambda n: ast.Call(
                        n.func, [n.args[1], n.args[0], *n.args[2:]], n.keywords)
                for k, kw in enumerate(node.keywords):
                    if kw.arg == "dim":
                        for new in (0, 1):
                            yield s_index, node, f"{name}(dim=... -> {new})", lambda n, k=k, new=new: ast.Call(
                                n.func, n.args, [*n.keywords[:k], ast.keyword("dim", ast.Constant(new)),
                                                 *n.keywords[k + 1:]])
                    yield s_index, node, f"drop {name}'s {kw.arg}=", lambda n, k=k: ast.Call(
                        n.func, n.args, n.keywords[:k] + n.keywords[k + 1:])
            elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple):
                yield s_index, node, "drop the leading ... of an index", lambda n: ast.Subscript(
                    n.value, n.slice.elts[-1], n.ctx)


def _is_module(node) -> bool:
    return isinstance(node, ast.Name) and node.id in ("torch", "F", "math", "np")


def mutants(source: str, function: str, count: int, rng: random.Random) -> list[Mutant]:
    """Up to `count` mutants of `function` in `source` (its cell), each one change, drawn with `rng`."""
    tree = ast.parse(source)
    fn_index = next(i for i, n in enumerate(tree.body) if isinstance(n, ast.FunctionDef) and n.name == function)
    fn = tree.body[fn_index]
    found = [(s_index, id(node), description, mutate) for s_index, node, description, mutate in _sites(fn)]
    rng.shuffle(found)
    out, seen = [], {ast.unparse(fn)}                        # the reference itself is no mutant
    for s_index, node_id, description, mutate in found:
        new_tree = copy.deepcopy(tree)
        new_fn = new_tree.body[fn_index]
        copies = dict(zip([id(n) for n in ast.walk(fn)], ast.walk(new_fn)))   # the same walk order in the copy
        target = copies[node_id]
        replacement = mutate(target)
        if not _replace(new_fn, target, replacement):
            continue
        ast.fix_missing_locations(new_tree)
        try:
            text = ast.unparse(new_fn)
        except Exception:  # noqa: BLE001 - a mutation Python cannot write back: skip it
            continue
        if text in seen:
            continue
        seen.add(text)
        out.append(Mutant(function, description, _statement_name(fn.body[s_index]), text,
                          ast.unparse(new_fn.body[s_index])))
        if len(out) >= count:
            break
    return out


def _replace(root, target, replacement) -> bool:
    for parent in ast.walk(root):
        for name, value in ast.iter_fields(parent):
            if value is target:
                setattr(parent, name, replacement)
                return True
            if isinstance(value, list):
                for k, item in enumerate(value):
                    if item is target:
                        value[k] = replacement
                        return True
    return False


def _same(torch, a, b) -> bool:
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        return isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)) and len(a) == len(b) and \
            all(_same(torch, x, y) for x, y in zip(a, b))
    if a is None or b is None:
        return a is None and b is None
    if torch.is_tensor(a) or torch.is_tensor(b):
        if not (torch.is_tensor(a) and torch.is_tensor(b)):
            try:
                a, b = (float(v.detach()) if torch.is_tensor(v) else float(v) for v in (a, b))
                return abs(a - b) <= 1e-6 * max(1.0, abs(b))
            except (TypeError, ValueError, RuntimeError):
                return False
        if a.shape != b.shape or a.dtype.is_floating_point != b.dtype.is_floating_point:
            return False
        if not a.dtype.is_floating_point:
            return bool(torch.equal(a, b))
        return bool(torch.allclose(a.detach().double(), b.detach().double(), atol=1e-6, rtol=1e-5, equal_nan=True))
    try:
        return abs(float(a) - float(b)) <= 1e-6 * max(1.0, abs(float(b)))
    except (TypeError, ValueError):
        return a == b


def _outputs(ns, calls):
    results = []
    for call in calls:
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                results.append(call())
        except Exception as err:  # noqa: BLE001 - a mutant that raises changes the output
            results.append(("raised", type(err).__name__))
    return results


def _load_inputs(module):
    path = module.dir / "code" / "mutant_inputs.py"
    spec = importlib.util.spec_from_file_location(f"mutant_inputs_{module.id.replace('-', '_')}", path)
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded


def run(module, per_function=PER_FUNCTION, seed=SEED):
    """{exercise: Outcome} for every exercise function of the module's lab."""
    inputs = _load_inputs(module)
    base = load_lab(module, "solution")
    torch = base["torch"]
    cells = build_notebook("solution", module).cells
    checkpoint_cells = {t[len("checkpoint-"):]: c.source for c in cells for t in _tags(c) if t.startswith("checkpoint-")}
    rng = random.Random(seed)
    outcomes = {}
    for cell in cells:
        exercise = next((t[len("exercise-"):] for t in _tags(cell) if t.startswith("exercise-")), None)
        if exercise is None or cell.cell_type != "code":
            continue
        outcome = outcomes.setdefault(exercise, Outcome(exercise))
        functions = [n.name for n in ast.parse(cell.source).body if isinstance(n, ast.FunctionDef)]
        for function in functions:
            torch.manual_seed(SEED)
            reference = _outputs(base, inputs.calls(base)[function])
            for mutant in mutants(cell.source, function, per_function, rng):
                ns = dict(base)
                filename = f"<mutant {outcome.counted + outcome.equivalent} of {function}>"
                # as IPython does for a cell: its lines readable, so that a message can quote the line that failed
                linecache.cache[filename] = (len(mutant.source), None, mutant.source.splitlines(True), filename)
                try:
                    exec(compile(mutant.source, filename, "exec"), ns)  # noqa: S102 - our own mutant
                except SyntaxError:
                    continue
                torch.manual_seed(SEED)
                if _same(torch, _outputs(ns, inputs.calls(ns)[function]), reference):
                    outcome.equivalent += 1
                    continue
                outcome.counted += 1
                _judge(ns, checkpoint_cells[exercise], mutant, outcome)
    return outcomes


def _judge(ns, checkpoint_source, mutant, outcome):
    error = ns["CheckpointError"]
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            exec(compile(checkpoint_source, "<checkpoint cell>", "exec"), ns)  # noqa: S102 - the lab's own cell
    except error as failure:
        message = str(failure)
        outcome.stopped += 1
        words = PART_WORDS.get(mutant.statement, ())
        quoted = [line.split(": ", 1)[1].strip() for line in message.splitlines()
                  if line.strip().startswith("at line ") and ": " in line]
        if any(q and q in mutant.changed for q in quoted):
            outcome.named += 1                                   # an error, at the line the mutant changed
            outcome.named_examples.append((mutant, message))
        elif any(w.lower() in message.lower() for w in words) and "could not tell" not in message:
            outcome.named += 1
            outcome.named_examples.append((mutant, message))
        else:
            outcome.unnamed.append((mutant, message))
        return
    except Exception as err:  # noqa: BLE001 - a raw traceback is the finding
        outcome.raw.append((mutant, f"{type(err).__name__}: {err}"))
        return
    outcome.survivors.append(mutant)


def report(module, outcomes) -> str:
    counted = sum(o.counted for o in outcomes.values())
    stopped = sum(o.stopped for o in outcomes.values())
    named = sum(o.named for o in outcomes.values())
    lines = [f"# Checkpoint diagnosis: mutants of {module.id}'s reference solutions", "",
             f"Written by `python3 -m scripts.ci.lab_mutants --module {module.id}` on the lab source with sha256 "
             f"{source_sha256(module)} (seed {SEED}, up to "
             f"{PER_FUNCTION} mutants per exercise function; equivalent mutants, whose outputs equal the reference's "
             "on the module's inputs, are not counted). A message \"names the part\" when it contains a word for the "
             "statement the mutant changed (PART_WORDS in scripts/ci/lab_mutants.py: the gate, the term, the "
             "argument) or quotes the changed line in an error: a lenient measure, so a sample of the messages "
             "follows the table, to read.", "",
             "| exercise | output-changing | stopped at its own checkpoint | raw tracebacks | message names the part | equivalent |",
             "|---|---:|---:|---:|---:|---:|"]
    for o in outcomes.values():
        lines.append(f"| {o.exercise} | {o.counted} | {o.stopped} ({_pct(o.stopped, o.counted)}) | {len(o.raw)} | "
                     f"{o.named} ({_pct(o.named, o.stopped)}) | {o.equivalent} |")
    lines.append(f"| all | {counted} | {stopped} ({_pct(stopped, counted)}) | "
                 f"{sum(len(o.raw) for o in outcomes.values())} | {named} ({_pct(named, stopped)}) | "
                 f"{sum(o.equivalent for o in outcomes.values())} |")
    lines += ["", "## Not stopped (survivors and raw tracebacks)", ""]
    for o in outcomes.values():
        for m in o.survivors:
            lines.append(f"- {o.exercise} `{m.function}`: {m.description} (statement `{m.statement}`): passed")
        for m, err in o.raw:
            lines.append(f"- {o.exercise} `{m.function}`: {m.description}: raw {err.splitlines()[0][:120]}")
    lines += ["", "## Stopped, but the message does not name the changed statement", ""]
    for o in outcomes.values():
        for m, message in o.unnamed:
            lines.append(f"- {o.exercise} `{m.function}`: {m.description} (statement `{m.statement}`): "
                         f"{message.splitlines()[0][:240]}")
    lines += ["", "## A sample of the messages counted as naming the part (to read, not to count)", ""]
    sample = random.Random(SEED)
    for o in outcomes.values():
        for m, message in sample.sample(o.named_examples, min(4, len(o.named_examples))):
            text = " ".join(message.split())
            lines.append(f"- {o.exercise} `{m.function}`: {m.description} (statement `{m.statement}`): {text[:700]}")
    lines += ["", f"lab mutants: {stopped} of {counted} output-changing mutants stopped at their own checkpoint"]
    return "\n".join(lines) + "\n"


def _pct(a, b):
    return f"{100 * a / b:.0f}%" if b else "-"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    course.add_module_argument(parser)
    parser.add_argument("--log", help="also write the report to this file (markdown)")
    parser.add_argument("--per-function", type=int, default=PER_FUNCTION)
    args = parser.parse_args(argv)
    for module in course.selected(args.module):
        if not (module.dir / "code" / "mutant_inputs.py").is_file():
            continue
        text = report(module, run(module, args.per_function))
        print(text)
        if args.log:
            with open(args.log, "w", encoding="utf-8") as out:
                out.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
