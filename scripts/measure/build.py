"""Run a module's lab and turn its measurements into data/<id>/results.json and its measured figures.

    python -m scripts.measure.build --settings full            # every module's published numbers: data/, figures/
    python -m scripts.measure.build --module ID --settings quick   # a minute or two; writes build/quick/ only
    python -m scripts.measure.build --settings full --no-run   # check only: refuse if data/ is stale
    python -m scripts.measure.build --module ID --force        # re-run even if data/ is up to date

What is the module's comes from modules/<id>/module.yml and modules/<id>/code/ (scripts/course.py):
its lab source, the keys of its measurements, its claims, its figures.

Steps (timed, except the write; the times go into provenance.duration_s, with the total first):

 1. notebook  the solution notebook, generated from the module's lab source (scripts/measure/lab_source.py)
 2. lab       executed with nbclient (kernel python3) in build/<id>/<settings>/, with LAB_SETTINGS,
              LAB_DEVICE (when --device is given; the lab picks cuda when present), LAB_CORPUS and
              LAB_RESULTS set; the executed notebook is kept there (executed.ipynb), also on
              failure, so a failing cell can be read with its outputs.  The lab's last cell writes
              its measurements (LAB_RESULTS); its own phases become lab_<phase> entries.  A module
              that declares lab.weights gets one more cell of the build's own, in the same kernel:
              the trained models' weights (scripts/measure/weights.py), checked and recorded in
              provenance.weights (file, sha256, shapes), and written beside results.json in step 6.
 3. claims    modules/<id>/code/claims.py: each prose claim of the pages, checked on the numbers.  At
              full settings one failing claim fails the build, naming it, and nothing is written.
 4. validate  against data/<id>/results.schema.json, provenance included.
 5. figures   modules/<id>/code/plots.py: the measured figures, in figures/<id>/.
 6. write     data/<id>/results.json and the figures, atomically (temp files, then renames): a build
              that fails anywhere leaves the previous data/ and figures/ byte for byte as they were.

An unchanged rebuild does not re-run the lab: when data/<id>/results.json is schema-valid, records the
current lab source hash and was measured with the requested settings, the build says it is up to
date and exits 0.  Quick settings never write to the committed data/ and figures/: they write to
build/quick/{data,figures}/<id>/ (or to --out DIR).

Exit status: 0 built or up to date; 1 build failed (lab cell error, failed claim, schema); 2 refused
(--no-run with stale data, quick settings aimed at the committed files, or a missing or wrong corpus,
checked before a kernel starts); 130 interrupted (Ctrl-C: the kernel is shut down, nothing is written).
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import json
import math
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

from scripts.measure import claims as claims_mod
from scripts import course, paths
from scripts.measure import lab_source, results
from scripts.measure import weights as weights_mod
from scripts.files import atomic_write
from scripts.paths import ROOT, rel
from scripts.measure.results import ResultsError

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")   # colors in IPython tracebacks
PROVENANCE_FROM_LAB = ("settings", "settings_values", "seed", "device", "device_type", "torch",
                       "python", "numpy")
# ... and these when the lab records them (a module's own schema may require them: one whose
# pages quote the run's time, which on a CPU depends on how many it had)
PROVENANCE_FROM_LAB_IF_RECORDED = ("cpu_count", "torch_threads")


class BuildError(Exception):
    """A build failure with a message meant for the reader (no traceback needed)."""


class BuildRefused(BuildError):
    """Bad input, refused before anything ran (exit status 2)."""


INTERRUPTED = "build interrupted; the previous data/ and figures/ are unchanged"


def log(msg: str = "") -> None:
    print(msg, flush=True)


# --------------------------------------------------------------------------------------------
# where things go
# --------------------------------------------------------------------------------------------
class Destination:
    """Where one build writes: its data file, its figures, and its work folder (executed notebook)."""

    def __init__(self, module: course.Module, settings: str, out: str | None):
        if out is None:
            base = ROOT if settings == "full" else paths.BUILD_DIR / "quick"
        else:
            base = Path(out).resolve()
        self.module = module
        self.base = base
        self.data = base / "data" / module.id / "results.json"
        self.figures = base / "figures" / module.id
        # the executed notebook and the lab's raw results: build/<id>/<settings>/ (or OUT/build/<id>/)
        self.work = (paths.BUILD_DIR / module.id / settings) if base == ROOT or out is None \
            else base / "build" / module.id
        self.committed = base == ROOT

    def outputs(self) -> list[Path]:
        return ([self.data] + [self.figures / n for n in self.module.code.plots.FIGURE_NAMES]
                + [self.data.parent / f for f in weights_mod.declared(self.module).values()])

    @property
    def weights(self) -> Path:
        """Where the build's export cell writes the trained models' weights (module.yml's lab.weights)."""
        return self.work / "weights"


# --------------------------------------------------------------------------------------------
# provenance helpers
# --------------------------------------------------------------------------------------------
def git_commit() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout.strip()
        return head + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"


def utc_now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


# --------------------------------------------------------------------------------------------
# 1. the solution notebook
# --------------------------------------------------------------------------------------------
def solution_notebook(module: course.Module):
    """(notebook, lab source sha256 it was generated from): the lab's cells with their solutions, then, for a
    module that declares lab.weights, the build's own cell that exports the trained models."""
    for _ in range(3):
        before = results.lab_source_sha256(module)
        nb = lab_source.solution_notebook(module)     # solutions in place, folded cells kept
        if results.lab_source_sha256(module) == before:
            break
        log("lab source changed while the notebook was generated; generating again")
    else:
        raise BuildError("the lab source keeps changing; try again when it is saved")
    models = weights_mod.declared(module)
    if models:
        nb.cells.append(nbformat.v4.new_code_cell(weights_mod.export_cell(models)))
    return nb, before


# --------------------------------------------------------------------------------------------
# 2. execute
# --------------------------------------------------------------------------------------------
def execute(nb, dest: Destination, settings: str, device: str | None, corpus: Path | None,
            cell_timeout: int | None, echo: bool = True) -> Path:
    """Execute the notebook in dest.work; return the path of the lab's results JSON.  The executed
    notebook is written there whatever happens, so a failing cell can be read with its outputs."""
    dest.work.mkdir(parents=True, exist_ok=True)
    lab_results = dest.work / "lab_results.json"
    executed = dest.work / "executed.ipynb"
    lab_results.unlink(missing_ok=True)
    executed.unlink(missing_ok=True)
    device = device or os.environ.get("LAB_DEVICE") or None     # else the lab picks cuda when present
    env = lab_environment(settings, device, corpus, lab_results)
    if weights_mod.declared(dest.module):
        dest.weights.mkdir(parents=True, exist_ok=True)
        for old in dest.weights.glob("*.safetensors"):
            old.unlink()
        env[weights_mod.ENV] = str(dest.weights)
    client = EchoingClient(nb, echo=echo, kernel_name="python3", timeout=cell_timeout, allow_errors=False,
                           record_timing=True, resources={"metadata": {"path": str(dest.work)}},
                           on_cell_executed=CellProgress(nb))
    log(f"executing the lab ({len(client.code_cells)} code cells) in {rel(dest.work)} "
        f"[LAB_SETTINGS={settings}, LAB_DEVICE={device or '(lab decides)'}]")
    try:
        client.execute(env=env)
    except (CellExecutionError, CellTimeoutError, DeadKernelError, asyncio.CancelledError) as e:
        if client.interrupted:
            raise KeyboardInterrupt from None
        raise BuildError(describe_failure(nb, e, executed)) from None
    finally:
        nbformat.write(nb, executed)
    if not lab_results.exists():
        raise BuildError(f"the lab ran to the end but wrote no results to LAB_RESULTS ({rel(lab_results)}); "
                         f"executed notebook: {rel(executed)}")
    return lab_results


def lab_environment(settings: str, device: str | None, corpus: Path | None, lab_results: Path) -> dict:
    """The kernel's environment: the LAB_* settings the lab reads, and no interactive plotting."""
    env = dict(os.environ, LAB_SETTINGS=settings, LAB_RESULTS=str(lab_results),
               MPLBACKEND="agg", PYTHONUNBUFFERED="1")
    if corpus is not None:
        env["LAB_CORPUS"] = str(corpus)
    if device:
        env["LAB_DEVICE"] = device
    return env


def code_cell_indices(nb) -> list[int]:
    return [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]


class CellProgress:
    """nbclient's on_cell_executed hook: logs each code cell that took a second or more, and the last."""

    def __init__(self, nb):
        self.code_cells = code_cell_indices(nb)
        self.start = self.last = time.perf_counter()

    def __call__(self, cell, cell_index, **_):
        now = time.perf_counter()
        took, self.last = now - self.last, now
        if took >= 1.0 or cell_index == self.code_cells[-1]:
            n = self.code_cells.index(cell_index) + 1 if cell_index in self.code_cells else "?"
            log(f"  [lab] code cell {n}/{len(self.code_cells)} (cell {cell_index}) {took:6.1f} s   "
                f"[{now - self.start:6.0f} s]")


class EchoingClient(NotebookClient):
    """Echoes the lab's printed lines (training progress, checkpoints) to the build's output, and stops at
    Ctrl-C with the kernel shut down at once."""

    def __init__(self, nb, echo: bool = True, **kwargs):
        super().__init__(nb, **kwargs)
        self.echo = echo
        self.code_cells = code_cell_indices(nb)
        self.interrupted = False

    @contextlib.asynccontextmanager
    async def async_setup_kernel(self, **kwargs):
        # nbclient's own SIGINT handler only schedules the kernel's shutdown and lets the cell run on; this
        # one cancels the run, and nbclient's clean-up on the way out then kills the kernel without waiting
        async with super().async_setup_kernel(**kwargs):
            run = asyncio.current_task()

            def interrupt():
                self.interrupted, self.shutdown_kernel = True, "immediate"
                run.cancel()
            asyncio.get_running_loop().add_signal_handler(signal.SIGINT, interrupt)
            yield

    def output(self, outs, msg, display_id, cell_index):
        if self.echo and msg.get("msg_type") == "stream" and msg["content"].get("name") == "stdout":
            text = ANSI.sub("", msg["content"].get("text", ""))
            sys.stdout.write("".join(f"  | {ln}\n" for ln in text.splitlines() if ln.strip()))
            sys.stdout.flush()
        return super().output(outs, msg, display_id, cell_index)


def describe_failure(nb, exc, executed: Path) -> str:
    """Which cell failed, its first lines, and the error: readable without opening the notebook."""
    code_cells = code_cell_indices(nb)
    failing = None
    for i in code_cells:
        if any(o.get("output_type") == "error" for o in nb.cells[i].get("outputs", [])):
            failing = i
    if failing is None:   # timeout / dead kernel: the first code cell without an execution count
        failing = next((i for i in code_cells if nb.cells[i].get("execution_count") is None), None)
    kind = type(exc).__name__
    lines = [f"the lab failed ({kind})"]
    if failing is not None:
        src = nb.cells[failing].source.splitlines()
        n = code_cells.index(failing) + 1
        lines.append(f"in code cell {n} of {len(code_cells)} (notebook cell index {failing}):")
        lines += ["    | " + s for s in src[:12]] + (["    | ..."] if len(src) > 12 else [])
    ename = getattr(exc, "ename", None)
    if ename:
        lines.append(ANSI.sub("", f"{ename}: {getattr(exc, 'evalue', '')}"))
        tb = [ln for ln in ANSI.sub("", str(getattr(exc, "traceback", ""))).splitlines() if ln.strip()]
        if tb:
            lines.append("traceback (last lines):")
            lines += ["    " + ln for ln in tb[-10:]]
    else:
        lines.append(str(exc).strip().splitlines()[-1] if str(exc).strip() else kind)
    lines.append(f"executed notebook with all outputs up to the failure: {rel(executed)}")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# 3-6. results
# --------------------------------------------------------------------------------------------
def read_lab_results(module: course.Module, path: Path, settings: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            lab = json.load(f, parse_constant=lambda name: float(name.replace("Infinity", "inf")))
    except (OSError, ValueError) as e:
        raise BuildError(f"cannot read the lab's results {rel(path)}: {e}") from None
    lab = results.finite_or_none(lab)   # the lab should write null for non-finite numbers; make sure
    missing = [k for k in measured_keys(module) + ["lab_run"] if k not in lab]
    if missing:
        raise BuildError(f"the lab's results {rel(path)} lack {', '.join(missing)}")
    run = lab["lab_run"]
    problems = results.lab_run_errors(run)      # schemas/lab-run.schema.json, which a module page checks too
    if problems:
        raise BuildError(f"the lab's results {rel(path)}: lab_run does not match {rel(results.LAB_RUN_SCHEMA)}: "
                         + "; ".join(problems[:5]))
    if run["settings"] != settings:
        raise BuildError(f"the lab ran with settings '{run['settings']}' but the build asked for "
                         f"'{settings}' (is LAB_SETTINGS read by the lab?)")
    return lab


def measured_keys(module: course.Module) -> list[str]:
    """The top-level keys of the lab's results that hold its measurements (module.yml: lab.measured)."""
    return list(module.lab.get("measured") or [])


def assemble(module: course.Module, lab: dict, lab_sha: str, corpus_sha: str | None, started_at: str,
             durations: dict) -> dict:
    run = lab["lab_run"]
    prov = {k: run[k] for k in PROVENANCE_FROM_LAB}
    prov.update({k: run[k] for k in PROVENANCE_FROM_LAB_IF_RECORDED if k in run})
    prov.update(git_commit=git_commit(), lab_source_sha256=lab_sha,
                corpus_sha256=run.get("corpus_sha256") or corpus_sha,
                started_at=started_at, duration_s=durations)
    # on a GitHub runner: the run that measured, whose artifact keeps the weights (never committed) for the
    # Site workflow's render to fetch (scripts/ci/fetch_weights.py)
    if os.environ.get("GITHUB_RUN_ID") and os.environ.get("GITHUB_REPOSITORY"):
        prov["ci_run"] = {"repository": os.environ["GITHUB_REPOSITORY"], "run_id": int(os.environ["GITHUB_RUN_ID"]),
                          "artifact": f"measured-{module.id}"}
    data = {"schema_version": 1, "provenance": prov}
    data.update({k: lab[k] for k in measured_keys(module)})
    data["claims"] = []
    return data


def print_summary(module: course.Module, data: dict) -> None:
    """The module's own lines about what was measured (modules/<id>/code/summary.py), if it has them."""
    if module.code.has("summary"):
        for line in module.code.summary.summary(data):
            log(line)


def print_durations(d: dict) -> None:
    log("durations (s): " + ", ".join(f"{k} {v:.1f}" for k, v in d.items()))


# --------------------------------------------------------------------------------------------
class Timer:
    """Wall-clock seconds of each build phase, in the order they ran."""

    def __init__(self):
        self.start = time.perf_counter()
        self.phases: dict[str, float] = {}

    @contextlib.contextmanager
    def phase(self, name: str):
        t0 = time.perf_counter()
        yield
        self.phases[name] = round(time.perf_counter() - t0, 3)

    def report(self) -> dict[str, float]:
        """provenance.duration_s: the total so far first, then each phase."""
        return {"total": round(time.perf_counter() - self.start, 3), **self.phases}


def build(module: course.Module, args) -> int:
    """The steps of the module docstring, in order; returns the exit status."""
    dest = Destination(module, args.settings, args.out)
    status = results.staleness(module, dest.data, args.settings, dest.figures)
    if args.from_results is None and not args.force:
        done = finish_if_up_to_date(status, dest)
        if done is not None:
            return done
    if args.no_run:
        return refuse_to_run(module, status, dest, args.settings)
    if not status.fresh:
        log(f"building: {status.message}")

    timer, started_at = Timer(), utc_now()
    corpus = Path(args.corpus).resolve() if args.corpus else module.corpus()    # None: the lab reads none
    lab_results_path, lab_sha = run_lab(module, args, dest, corpus, timer)   # 1-2. notebook and lab
    lab = read_lab_results(module, lab_results_path, args.settings)
    timer.phases.update(lab_phase_durations(lab))
    data = assemble(module, lab, lab_sha, corpus_sha256(lab, corpus), started_at, timer.report())
    weight_files = exported_weights(module, args, dest, data)
    print_summary(module, data)
    with timer.phase("claims"):                                          # 3. claims
        data["claims"] = check_claims(module, data, args.settings, dest)
    with timer.phase("validate"):                                        # 4. validate
        results.validate(module, data, what="the assembled results")
    with timer.phase("figures"):                                         # 5. figures, in memory
        figures = module.code.plots.draw_all(data)
    data["provenance"]["duration_s"] = timer.report()
    write_results(module, data, figures, dest, weight_files)             # 6. write, all at once
    print_durations(data["provenance"]["duration_s"])
    if results.lab_source_sha256(module) != lab_sha:
        log("note: the lab source changed during the build; these results are already stale")
    return 0


def finish_if_up_to_date(status: results.Status, dest: Destination) -> int | None:
    """0 when nothing needs the lab: the data is up to date, or only a figure is missing (redrawn
    from the data here); None when the lab must run."""
    if status.fresh:
        log(f"up to date: {status.message}; nothing to do (--force re-runs the lab)")
        return 0
    if status.state == "weights":
        log(status.message + "; the lab must run again to export them")
        return None
    if status.state == "figures":
        log(status.message + "; redrawing them from the data (the lab is not re-run)")
        figures = dest.module.code.plots.draw_all(results.load_results(dest.module, dest.data))
        atomic_write({dest.figures / n: b for n, b in figures.items()})
        log("wrote " + ", ".join(rel(dest.figures / n) for n in figures))
        return 0
    return None


def refuse_to_run(module: course.Module, status: results.Status, dest: Destination, settings: str) -> int:
    """--no-run and the data is not up to date: say why (both hashes when stale), exit status 2."""
    if status.state == "stale":
        log(f"refusing (--no-run): {rel(dest.data)} is stale.\n"
            f"  recorded lab_source_sha256: {status.recorded_sha256}\n"
            f"  current  lab_source_sha256: {status.current_sha256} ({rel(module.lab_source)})\n"
            f"  run `python -m scripts.measure.build --module {module.id} --settings {settings}` to re-measure")
    else:
        log(f"refusing (--no-run): {status.message}\n"
            f"  run `python -m scripts.measure.build --module {module.id} --settings {settings}` to measure")
    return 2


def run_lab(module: course.Module, args, dest: Destination, corpus: Path | None, timer: Timer) -> tuple[Path, str]:
    """Steps 1-2: (the lab's results JSON, the lab source sha256 it was run from)."""
    if args.from_results:
        log(f"using the lab results in {args.from_results} (the lab is not executed)")
        return Path(args.from_results), results.lab_source_sha256(module)
    check_corpus(module, corpus)
    models = weights_mod.declared(module)
    if models:
        try:
            weights_mod.check_library()
        except weights_mod.WeightsError as e:
            raise BuildRefused(str(e)) from None
    with timer.phase("notebook"):
        nb, lab_sha = solution_notebook(module)
    with timer.phase("lab"):
        path = execute(nb, dest, args.settings, args.device, corpus, args.cell_timeout, echo=not args.quiet)
    log(f"lab done in {timer.phases['lab']:.0f} s; executed notebook: {rel(dest.work / 'executed.ipynb')}")
    return path, lab_sha


def check_corpus(module: course.Module, corpus: Path | None) -> None:
    """Refuse a missing or wrong corpus before a kernel starts, with advice for the build (the lab's own
    message tells a student to delete the file and download it again; the build never does either).
    The lab names its data's sha256 and address (CORPUS_SHA256, CORPUS_URL); a lab without them reads no corpus."""
    try:
        want = lab_source.lab_constant("CORPUS_SHA256", module)
    except KeyError:
        return
    advice = (f"Pass --corpus PATH or set LAB_CORPUS to the lab's corpus (sha256 {want}, "
              f"{lab_source.lab_constant('CORPUS_URL', module)}); the build never downloads or replaces the corpus.")
    if corpus is None or not corpus.is_file():
        raise BuildRefused(f"corpus not found: {corpus or '(module.yml names no lab.corpus)'}. {advice}")
    got = results.sha256_file(corpus)
    if got != want:
        raise BuildRefused(f"{corpus} is not the corpus the lab was written for: its sha256 is {got}. {advice}")


def lab_phase_durations(lab: dict) -> dict[str, float]:
    """The lab's own phase timings (lab_run.phase_s) as lab_<phase> entries; nonsense is dropped."""
    return {f"lab_{k}": round(float(v), 3) for k, v in (lab["lab_run"].get("phase_s") or {}).items()
            if isinstance(v, (int, float)) and math.isfinite(v) and v >= 0}


def corpus_sha256(lab: dict, corpus: Path | None) -> str | None:
    """The corpus file's sha256 (None when absent), which must be the one the lab reports reading."""
    if corpus is None or not corpus.exists():
        return None
    sha = results.sha256_file(corpus)
    if lab["lab_run"].get("corpus_sha256") not in (None, sha):
        raise BuildError(f"the lab reports corpus sha256 {lab['lab_run']['corpus_sha256']} but "
                         f"{corpus} has {sha}")
    return sha


def check_claims(module: course.Module, data: dict, settings: str, dest: Destination) -> list[dict]:
    """Step 3: every claim evaluated and reported.  At full settings a failed claim stops the build
    (the measured results are kept beside the executed notebook, not written)."""
    evaluated = claims_mod.evaluate(module, data)
    bad = claims_mod.failed(evaluated)
    log(f"claims ({len(evaluated) - len(bad)} of {len(evaluated)} hold"
        f"{'' if settings == 'full' else '; quick settings: reported, not enforced'}):")
    log(claims_mod.report(evaluated))
    if bad and settings == "full":
        rejected = dest.work / "results.rejected.json"
        rejected.parent.mkdir(parents=True, exist_ok=True)
        rejected.write_text(results.dumps({**data, "claims": evaluated}), encoding="utf-8")
        raise BuildError("claims that no longer hold: " + ", ".join(r["name"] for r in bad)
                         + f"\nnothing was written; the measured results are in {rel(rejected)}")
    return evaluated


def exported_weights(module: course.Module, args, dest: Destination, data: dict) -> dict[str, bytes]:
    """The trained models' weights the export cell wrote ({file name: bytes}), recorded in
    data['provenance']['weights'].  A lab run must have written them; lab results given with
    --from-results bring them from a weights/ folder beside that file, or the build writes none."""
    models = weights_mod.declared(module)
    if not models:
        return {}
    folder = Path(args.from_results).parent / "weights" if args.from_results else dest.weights
    if args.from_results and not all((folder / f).is_file() for f in models.values()):
        log(f"no weights beside {args.from_results} (a weights/ folder): the results record none")
        return {}
    try:
        data["provenance"]["weights"] = weights_mod.describe(models, folder)
    except weights_mod.WeightsError as e:
        raise BuildError(str(e)) from None
    return weights_mod.files(models, folder)


def write_results(module: course.Module, data: dict, figures: dict[str, bytes], dest: Destination,
                  weight_files: dict[str, bytes] | None = None) -> None:
    """Step 6: the data file, every measured figure and the trained weights, all at once (all change or none does)."""
    text = results.dumps(data)
    results.validate(module, json.loads(text), what="the results to write")
    files = {dest.data: text, **{dest.figures / n: b for n, b in figures.items()},
             **{dest.data.parent / n: b for n, b in (weight_files or {}).items()}}
    atomic_write(files)
    log("wrote " + ", ".join(rel(p) for p in files))


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=textwrap.dedent(__doc__.split("\n\n", 1)[1]))
    ap.add_argument("--settings", choices=("full", "quick"), default="full",
                    help="named lab settings (default: full, the published numbers)")
    ap.add_argument("--no-run", action="store_true",
                    help="never execute the lab: succeed if the results are up to date, refuse if not")
    ap.add_argument("--force", action="store_true", help="re-run the lab even if the results are up to date")
    course.add_module_argument(ap)
    ap.add_argument("--out", help="write DIR/data/<id>/results.json and DIR/figures/<id>/ (quick default: build/quick)")
    ap.add_argument("--device", choices=("cuda", "cpu"), help="LAB_DEVICE for the lab (default: the lab "
                    "picks cuda when available)")
    ap.add_argument("--corpus", help="the lab's data file (default: $LAB_CORPUS, else module.yml's lab.corpus)")
    ap.add_argument("--cell-timeout", type=int, default=3600, help="seconds per cell (default 3600)")
    ap.add_argument("--quiet", action="store_true", help="do not echo the lab's printed lines")
    ap.add_argument("--from-results", metavar="LAB_RESULTS_JSON",
                    help="development and tests: skip the lab and use this lab results JSON")
    return ap.parse_args(argv)


def acquire_lock(dest: Destination):
    """One build at a time per output location (a second one would race for the same files)."""
    import fcntl

    dest.work.mkdir(parents=True, exist_ok=True)
    f = open(dest.work / ".build.lock", "a+")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.seek(0)
        holder = f.read().strip() or "?"
        f.close()
        raise BuildError(f"another build is running for {rel(dest.base)} (pid {holder}); wait for it") from None
    f.seek(0)
    f.truncate()
    f.write(str(os.getpid()))
    f.flush()
    return f


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        modules = course.selected(args.module)
    except course.ModuleError as e:
        log(f"refusing: {e}")
        return 2
    if args.from_results and len(modules) != 1:
        log("refusing: --from-results needs --module ID")
        return 2
    status = 0
    for module in modules:
        if len(modules) > 1:
            log(f"== {module.id}")
        status = build_one(module, args)
        if status:
            return status
    return status


def build_one(module: course.Module, args) -> int:
    dest = Destination(module, args.settings, args.out)
    if args.settings == "quick" and dest.committed:
        log("refusing: quick settings must not write the committed data/ and figures/ "
            "(use --out DIR or the default build/quick/)")
        return 2
    try:
        lock = acquire_lock(dest)
    except BuildError as e:
        log(f"refusing: {e}")
        return 2
    try:
        return build(module, args)
    except KeyboardInterrupt:
        log(INTERRUPTED)
        return 130
    except BuildRefused as e:
        log(f"refusing: {e}")
        return 2
    except (BuildError, ResultsError) as e:
        log(f"BUILD FAILED: {e}")
        log("the previous data/ and figures/ are unchanged")
        return 1
    finally:
        lock.close()


if __name__ == "__main__":
    sys.exit(main())
