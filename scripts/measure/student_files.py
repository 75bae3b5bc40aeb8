"""Genuine results files: a module's lab run along the paths students take, each file as the lab saved it.

    python -m scripts.measure.student_files --module ID        # make what is missing, list all
    python -m scripts.measure.student_files --module ID --list # list, run nothing

The module names its paths in modules/<id>/code/student_files.py: PATHS, a list of StudentPath (the solution
notebook at another seed, the student notebook with the optional part skipped, stopped right after the save
cell, a run that diverges, the lab source of an earlier commit), and SMALL, the settings a student could type
into the lab's settings cell that make a run as short as it can be while it still writes every field.  Each path
is executed with nbclient like the build (scripts/measure/build.py): the notebook generated from that lab source
(scripts/measure/lab_source.py), LAB_SETTINGS=quick, one cell of the path's own after the settings cell (what
the student typed there), the kernel in a temporary folder.

The files are cached in build/student-files/<id>/<path>-<key>.json, the key the sha256 of the lab source run,
the path's definition and this runner: an unchanged lab makes no run (make test reads the cache), a changed lab
source re-runs the paths of the current source only (an earlier commit's source does not change).  Each file
comes with <path>-<key>.log: the cells' outputs, to read when a path fails.
"""
from __future__ import annotations

import argparse
import dataclasses
import fcntl
import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from scripts import course, paths
from scripts.measure import lab_source

# a change here changes every key: the files are made again
RUNNER_VERSION = "1"
CACHE = paths.ROOT / "build" / "student-files"


@dataclasses.dataclass(frozen=True)
class StudentPath:
    """One way through the lab, as a student takes it."""
    name: str                       # the file's name: solution-seed-1
    what: str                       # in a student's words: "the solution notebook, seed 1"
    commit: str | None = None       # the lab source of this commit (None: the current one)
    mode: str = "solution"          # the notebook: "solution", or "student" (stubs, folded solutions)
    settings: tuple = ()            # (name, value) pairs the student typed into the settings cell
    ticked: tuple = ()              # student mode: the exercises whose use_solution box is ticked
    stop_after_save: bool = False   # the student stops right after the (first) save cell
    until_error: bool = False       # the student runs on until a cell fails, and stops there

    def definition(self) -> str:
        return json.dumps(dataclasses.asdict(self), sort_keys=True, default=str)


def lab_text(module: course.Module, commit: str | None) -> bytes:
    """The lab source at `commit` (its path then, which moved once), or the current one."""
    if commit is None:
        return module.lab_source.read_bytes()
    names = subprocess.run(["git", "ls-tree", "-r", "--name-only", commit, "--", "lab/"], cwd=paths.ROOT,
                           capture_output=True, text=True, check=True).stdout.split()
    want = module.lab_source.name
    found = [n for n in names if Path(n).name == want]
    if not found:
        raise SystemExit(f"commit {commit} has no lab source named {want} under lab/")
    return subprocess.run(["git", "show", f"{commit}:{found[0]}"], cwd=paths.ROOT, capture_output=True,
                          check=True).stdout


def earlier_labs(module: course.Module) -> list[StudentPath]:
    """The solution notebook of every earlier version of the lab that saved a results file: one path per commit that
    changed the lab source (its path then: it moved once), newest first, a version the current source equals left out."""
    log = subprocess.run(["git", "log", "--format=%H %h %ad %s", "--date=short", "--", "lab/"], cwd=paths.ROOT,
                         capture_output=True, text=True, check=True).stdout.splitlines()
    current = module.lab_source.read_bytes()
    seen, out = {current}, []
    for line in log:
        full, short, date, subject = line.split(" ", 3)
        try:
            text = lab_text(module, full)
        except SystemExit:                      # a commit before the lab had this name
            continue
        if text in seen or b"_RESULTS" not in text:           # LAB_RESULTS, or LAB3_RESULTS before the rename
            continue
        seen.add(text)
        out.append(StudentPath(f"lab-{short}", f"the lab as of {date} ({short}: {subject[:80]})", commit=full))
    return out


def key(module: course.Module, path: StudentPath, small: dict) -> str:
    h = hashlib.sha256()
    for part in (lab_text(module, path.commit), path.definition().encode(), json.dumps(small, sort_keys=True).encode(),
                 RUNNER_VERSION.encode()):
        h.update(hashlib.sha256(part).digest())
    return h.hexdigest()[:16]


def committed_dir(module: course.Module) -> Path:
    """Where the files of earlier versions are kept in the repository: their source never changes, so neither do
    they, and a fresh checkout need not run them (`--commit-earlier` copies them there)."""
    return module.dir / "tests" / "student-files"


def target(module: course.Module, path: StudentPath, small: dict) -> Path:
    name = f"{path.name}-{key(module, path, small)}.json"
    kept = committed_dir(module) / name
    return kept if path.commit and kept.exists() else CACHE / module.id / name


def settings_cell(small: dict, student: tuple) -> str:
    """What the student typed after the settings cell: the small settings, then the path's own."""
    values = {**small, **dict(student)}
    literal = lambda v: f"float({str(v)!r})" if isinstance(v, float) and not math.isfinite(v) else repr(v)  # noqa: E731
    return "\n".join(["# typed by the student (scripts/measure/student_files.py): a short run",
                      "_typed = {" + ", ".join(f"{k!r}: {literal(v)}" for k, v in values.items()) + "}",
                      "for _name, _value in _typed.items():",
                      "    if hasattr(S, _name):", "        setattr(S, _name, _value)"])


def notebook(source: Path, path: StudentPath, small: dict):
    """The notebook the student runs on this path."""
    nb = lab_source.build_notebook(path.mode, source)
    cells = []
    for cell in nb.cells:
        if cell.cell_type == "code":
            for ex in path.ticked:
                if f"solution-{ex}" in cell.metadata.get("tags", []):
                    cell.source = cell.source.replace("use_solution = False", "use_solution = True", 1)
        cells.append(cell)
        if cell.cell_type == "code" and "S = SimpleNamespace(" in cell.source:
            cells.append(nbformat.v4.new_code_cell(settings_cell(small, path.settings)))
        # the save cell: the first that calls save_results() at its top level (an earlier lab wrote its file inline)
        if path.stop_after_save and cell.cell_type == "code" and "save_results()" in cell.source.splitlines():
            break
    if not any("S = SimpleNamespace(" in c.source for c in cells if c.cell_type == "code"):
        raise SystemExit(f"{path.name}: the lab has no settings cell (S = SimpleNamespace(...)) to type into")
    nb.cells = cells
    return nb


def run(module: course.Module, path: StudentPath, small: dict, out: Path) -> None:
    """Execute the path's notebook; the file the lab saved goes to `out`, the outputs to out.with_suffix('.log')."""
    with tempfile.TemporaryDirectory(prefix=f"student-{path.name}-") as tmp:
        work = Path(tmp)
        source = work / module.lab_source.name
        source.write_bytes(lab_text(module, path.commit))
        nb = notebook(source, path, small)
        saved = work / "results.json"
        # one thread: the machine is shared, and a short run on one thread is not slower than on two that wait
        env = dict(os.environ, LAB_SETTINGS="quick", LAB_RESULTS=str(saved), MPLBACKEND="agg", PYTHONUNBUFFERED="1",
                   OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
        if module.corpus():
            env["LAB_CORPUS"] = str(module.corpus())
        # the lab's variables before they lost the module's number (LAB3_SETTINGS, ...), for an earlier version
        env.update({k.replace("LAB_", "LAB3_"): v for k, v in env.items() if k.startswith("LAB_")})
        client = NotebookClient(nb, kernel_name="python3", timeout=900, allow_errors=False,
                                resources={"metadata": {"path": str(work)}})
        failure = None
        try:
            client.execute(env=env)
        except CellExecutionError as err:
            failure = str(err).splitlines()[-1][:300] if str(err) else type(err).__name__
        log = [f"{path.name}: {path.what}", f"failure: {failure}" if failure else "ran to the end"]
        for cell in nb.cells:
            if cell.cell_type == "code":
                for o in cell.get("outputs", []):
                    log.append(o.get("text") or "".join(o.get("traceback", []))[-2000:] or "")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.with_suffix(".log").write_text("\n".join(log), encoding="utf-8")
        if failure and not path.until_error:
            raise SystemExit(f"{path.name}: the lab failed ({failure}); see {paths.rel(out.with_suffix('.log'))}")
        if not saved.exists():
            raise SystemExit(f"{path.name}: the lab wrote no results file ({failure or 'no error'}); "
                             f"see {paths.rel(out.with_suffix('.log'))}")
        tmp_out = out.with_suffix(".tmp")
        tmp_out.write_bytes(saved.read_bytes())
        tmp_out.replace(out)


def module_paths(module: course.Module) -> tuple[list[StudentPath], dict]:
    spec = module.code.student_files
    return list(spec.PATHS), dict(spec.SMALL)


def ensure(module: course.Module, only: list[str] | None = None, echo=print) -> dict[str, Path]:
    """Every path's file, made where it is missing: {path name: file}.  One process at a time (a lock file): the
    Python and node suites both ask, and one lab run at a time is all this machine takes."""
    student_paths, small = module_paths(module)
    files = {}
    (CACHE / module.id).mkdir(parents=True, exist_ok=True)
    lock = open(CACHE / module.id / ".lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    for path in student_paths:
        if only and path.name not in only:
            continue
        out = target(module, path, small)
        if not out.exists():
            echo(f"student_files: running {path.name} ({path.what}) ...")
            t0 = time.perf_counter()
            run(module, path, small, out)
            echo(f"student_files: {path.name} took {time.perf_counter() - t0:.0f} s -> {paths.rel(out)}")
        files[path.name] = out
    lock.close()
    return files


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--module", required=True)
    ap.add_argument("--only", nargs="*", help="these paths only")
    ap.add_argument("--list", action="store_true", help="list the paths and their files; run nothing")
    ap.add_argument("--json", action="store_true", help="print {path: {file, what}} as JSON (for the node tests)")
    ap.add_argument("--commit-earlier", action="store_true",
                    help="copy the earlier versions' files (with their logs) into modules/<id>/tests/student-files/")
    args = ap.parse_args(argv)
    module = course.module(args.module)
    student_paths, small = module_paths(module)
    if args.list:
        for p in student_paths:
            out = target(module, p, small)
            print(f"{p.name:<28} {'cached' if out.exists() else 'missing':<8} {paths.rel(out)}  {p.what}")
        return 0
    files = ensure(module, args.only, echo=lambda m: print(m, file=sys.stderr))
    whats = {p.name: p.what for p in student_paths}
    if args.commit_earlier:
        committed_dir(module).mkdir(parents=True, exist_ok=True)
        for p in student_paths:
            if p.commit and files.get(p.name) and files[p.name].parent != committed_dir(module):
                for f in (files[p.name], files[p.name].with_suffix(".log")):
                    (committed_dir(module) / f.name).write_bytes(f.read_bytes())
    if args.json:
        print(json.dumps({n: {"file": str(f), "what": whats[n]} for n, f in files.items()}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
