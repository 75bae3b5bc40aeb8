"""The guard against Colab drift: run the STUDENT notebook as a student who ticks every folded
solution would, at quick settings on a CPU, with whatever torch, numpy and matplotlib are installed
(the scheduled workflow .github/workflows/colab-drift.yml installs the newest of each, unpinned, as
Colab moves), and fail loudly, naming the versions, when any cell fails or any checkpoint does.

    python -m scripts.colab_drift                       # the committed lab/lab03_sequence_models.ipynb
    python -m scripts.colab_drift --out build/drift     # where the executed notebook is kept (default)
    python -m scripts.colab_drift --corpus PATH         # else $LAB3_CORPUS, else ../shared/data/, else the lab downloads it

Exit status: 0 every cell ran and every checkpoint passed (the Challenge included), 1 a cell failed
or a checkpoint did not pass (the versions, the failing cell and its error are printed), 2 the
notebook has no solution to tick (it is not the student notebook this script knows).

Needs only nbformat, nbclient and ipykernel beside what the notebook imports (no project package
is imported), so the workflow installs nothing pinned by requirements.txt.
"""
from __future__ import annotations

import argparse
import importlib.metadata
import os
import platform
import re
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "lab" / "lab03_sequence_models.ipynb"
TICK = re.compile(r'^use_solution = False(\s*#@param \{type:"boolean"\})$', re.M)
SHARED_CORPUS = ROOT.parent / "shared" / "data" / "tinyshakespeare.txt"
ANSI = re.compile(r"\x1b\[[0-9;]*m")
# what Colab ships and the notebook imports; nbclient/ipykernel run it here
PACKAGES = ("torch", "numpy", "matplotlib", "nbclient", "ipykernel")
# the checkpoints a run with every solution ticked must pass (the Challenge's too)
CHECKPOINTS = ("Checkpoint 1 (Exercise 1", "Checkpoint 2 (Exercise 2", "Checkpoint 3B (Exercise 3B",
               "Checkpoint 4 (Exercise 4", "Checkpoint 5 (Exercise 5", "Challenge checkpoint")


def versions() -> dict[str, str]:
    out = {"python": platform.python_version(), "platform": platform.platform()}
    for name in PACKAGES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def versions_line(v: dict[str, str]) -> str:
    return ", ".join(f"{k} {v[k]}" for k in ("python", *PACKAGES)) + f" ({v['platform']})"


def tick_every_solution(nb) -> int:
    """Set every folded solution's `use_solution` box to True (as a student ticking it in Colab's
    form would); returns how many were ticked."""
    n = 0
    for cell in nb.cells:
        if cell.cell_type == "code" and any(t.startswith("solution-") for t in cell.metadata.get("tags", [])):
            cell.source, k = TICK.subn(r"use_solution = True\1", cell.source, count=1)
            n += k
    return n


def printed(nb) -> str:
    return "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))


def failing_cell(nb, exc) -> str:
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    bad = next((i for i in code if any(o.get("output_type") == "error" for o in nb.cells[i].get("outputs", []))),
               None)
    if bad is None:
        bad = next((i for i in code if nb.cells[i].get("execution_count") is None), None)
    lines = [f"{type(exc).__name__}"]
    if bad is not None:
        src = nb.cells[bad].source.splitlines()
        lines.append(f"in code cell {code.index(bad) + 1} of {len(code)} "
                     f"(tags {nb.cells[bad].metadata.get('tags', [])}):")
        lines += ["    | " + s for s in src[:12]] + (["    | ..."] if len(src) > 12 else [])
    if getattr(exc, "ename", None):
        lines.append(ANSI.sub("", f"{exc.ename}: {exc.evalue}"))
        tb = [ln for ln in ANSI.sub("", str(getattr(exc, "traceback", ""))).splitlines() if ln.strip()]
        lines += ["    " + ln for ln in tb[-12:]]
    else:
        lines.append(str(exc).strip()[-2000:])
    return "\n".join(lines)


def summary(text: str) -> None:
    """The outcome in the GitHub Actions run summary too, when there is one."""
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(text + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--notebook", type=Path, default=NOTEBOOK)
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "drift",
                    help="folder for the executed notebook and the lab's results (default build/drift)")
    ap.add_argument("--corpus", type=Path, default=None, help="Tiny Shakespeare (else $LAB3_CORPUS, else ../shared/data/, else the lab downloads it)")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per cell (default 900)")
    args = ap.parse_args(argv)

    v = versions()
    print(f"colab_drift: versions: {versions_line(v)}", flush=True)
    nb = nbformat.read(args.notebook, as_version=4)
    ticked = tick_every_solution(nb)
    if ticked == 0:
        print(f"colab_drift: no `use_solution = False` box found in {args.notebook}: is it the student notebook?")
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    executed = args.out / "lab03_drift_executed.ipynb"
    env = dict(os.environ, LAB3_SETTINGS="quick", LAB3_DEVICE="cpu", MPLBACKEND="Agg",
               LAB3_RESULTS=str(args.out / "lab_results.json"))
    # the corpus as the build finds it (../shared/data beside the project), else the lab's own search
    corpus = args.corpus or (None if os.environ.get("LAB3_CORPUS") else SHARED_CORPUS)
    if corpus and corpus.exists():
        env["LAB3_CORPUS"] = str(corpus.resolve())
    print(f"colab_drift: running {args.notebook.name} with all {ticked} solutions ticked "
          f"(LAB3_SETTINGS=quick, LAB3_DEVICE=cpu) in {args.out}", flush=True)
    client = NotebookClient(nb, kernel_name="python3", timeout=args.timeout, allow_errors=False,
                            resources={"metadata": {"path": str(args.out)}})
    t0 = time.monotonic()
    failure = None
    try:
        client.execute(env=env)
    except (CellExecutionError, CellTimeoutError, DeadKernelError) as exc:
        failure = failing_cell(nb, exc)
    finally:
        nbformat.write(nb, executed)
    seconds = time.monotonic() - t0
    out = printed(nb)
    if failure is None:
        missing = [c for c in CHECKPOINTS if f"✅ {c}" not in out]
        if "❌" in out or missing:
            failure = ("a checkpoint did not pass: " + (f"missing ✅ for {missing}" if missing else "")
                       + "".join(f"\n    {ln}" for ln in out.splitlines() if "❌" in ln))
    if failure:
        msg = (f"COLAB DRIFT: the student notebook FAILED with every solution ticked on\n    {versions_line(v)}\n"
               f"{failure}\nexecuted notebook with its outputs: {executed}")
        print("\n" + "=" * 100 + "\n" + msg + "\n" + "=" * 100, file=sys.stderr, flush=True)
        summary(f"### ❌ Colab drift: the student notebook fails\n\n```\n{msg}\n```")
        return 1
    msg = f"the student notebook passed every checkpoint in {seconds:.0f} s on {versions_line(v)}"
    print(f"colab_drift: OK: {msg}")
    summary(f"### ✅ Colab drift: {msg}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
