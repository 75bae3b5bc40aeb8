"""The guard against Colab drift: run each module's STUDENT notebook as a student who ticks every folded
solution would, at quick settings on a CPU, with whatever torch, numpy and matplotlib are installed
(the scheduled workflow .github/workflows/colab-drift.yml installs the newest of each, unpinned, as
Colab moves), and fail loudly, naming the versions, when any cell fails or any checkpoint does.

    python -m scripts.ci.colab_drift                       # every module's committed lab/<id>/<lab>.ipynb
    python -m scripts.ci.colab_drift --module ID
    python -m scripts.ci.colab_drift --out build/drift     # where the executed notebooks are kept (default; one folder per module)
    python -m scripts.ci.colab_drift --corpus PATH         # else $LAB_CORPUS, else the module's lab.corpus, else the lab downloads it

Exit status: 0 every cell ran and every checkpoint passed (an optional challenge included), 1 a cell
failed or a checkpoint did not pass (the versions, the failing cell and its error are printed), 2 a
notebook has no solution to tick (it is not a student notebook) or there is none.

Needs only nbformat, nbclient, ipykernel and pyyaml beside what the notebooks import (no project
package is imported), so the workflow installs nothing pinned by requirements.txt.
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
import yaml
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

ROOT = Path(__file__).resolve().parent.parent.parent
TICK = re.compile(r'^use_solution = False(\s*#@param \{type:"boolean"\})$', re.M)
ANSI = re.compile(r"\x1b\[[0-9;]*m")
# what Colab ships and the notebook imports; nbclient/ipykernel run it here
PACKAGES = ("torch", "numpy", "matplotlib", "nbclient", "ipykernel")


def modules() -> dict[str, dict]:
    """Every module (modules/<id>/module.yml) with a lab: {id: {notebook, corpus}}."""
    out = {}
    for info in sorted((ROOT / "modules").glob("*/module.yml")):
        m = yaml.safe_load(info.read_text(encoding="utf-8")) or {}
        lab = m.get("lab") or {}
        if not lab.get("source"):
            continue
        mid = info.parent.name
        corpus = lab.get("corpus")
        out[mid] = {"notebook": ROOT / "lab" / mid / Path(lab["source"]).with_suffix(".ipynb").name,
                    "corpus": (ROOT / corpus).resolve() if corpus else None}
    return out


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


def shown(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


def run_notebook(path: Path, out: Path, corpus: Path | None, timeout: int, v: dict) -> int:
    nb = nbformat.read(path, as_version=4)
    ticked = tick_every_solution(nb)
    if ticked == 0:
        print(f"colab_drift: no `use_solution = False` box found in {path}: is it a student notebook?")
        return 2
    out.mkdir(parents=True, exist_ok=True)
    executed = out / f"{path.stem}_drift_executed.ipynb"
    env = dict(os.environ, LAB_SETTINGS="quick", LAB_DEVICE="cpu", MPLBACKEND="Agg",
               LAB_RESULTS=str(out / "lab_results.json"))
    if corpus and corpus.exists():
        env["LAB_CORPUS"] = str(corpus.resolve())
    print(f"colab_drift: running {shown(path)} with all {ticked} solutions ticked "
          f"(LAB_SETTINGS=quick, LAB_DEVICE=cpu) in {out}", flush=True)
    client = NotebookClient(nb, kernel_name="python3", timeout=timeout, allow_errors=False,
                            resources={"metadata": {"path": str(out)}})
    t0 = time.monotonic()
    failure = None
    try:
        client.execute(env=env)
    except (CellExecutionError, CellTimeoutError, DeadKernelError) as exc:
        failure = failing_cell(nb, exc)
    finally:
        nbformat.write(nb, executed)
    seconds = time.monotonic() - t0
    text = printed(nb)
    if failure is None:
        passed = [ln for ln in text.splitlines() if ln.startswith("✅")]
        failed = [ln for ln in text.splitlines() if "❌" in ln]
        # every ticked solution is followed by its checkpoint: at least as many passes as solutions
        if failed or len(passed) < ticked:
            failure = (f"a checkpoint did not pass ({len(passed)} passed for {ticked} ticked solutions)"
                       + "".join(f"\n    {ln}" for ln in failed))
    name = shown(path)
    if failure:
        msg = (f"COLAB DRIFT: {name} FAILED with every solution ticked on\n    {versions_line(v)}\n"
               f"{failure}\nexecuted notebook with its outputs: {executed}")
        print("\n" + "=" * 100 + "\n" + msg + "\n" + "=" * 100, file=sys.stderr, flush=True)
        summary(f"### ❌ Colab drift: {name} fails\n\n```\n{msg}\n```")
        return 1
    msg = f"{name} passed every checkpoint in {seconds:.0f} s on {versions_line(v)}"
    print(f"colab_drift: OK: {msg}")
    summary(f"### ✅ Colab drift: {msg}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--module", help="one module's id (default: every module with a lab)")
    ap.add_argument("--notebook", type=Path, help="a notebook to run instead of the modules' own")
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "drift",
                    help="folder for the executed notebooks and the labs' results (default build/drift)")
    ap.add_argument("--corpus", type=Path, default=None,
                    help="the lab's data (else $LAB_CORPUS, else the module's lab.corpus, else the lab downloads it)")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per cell (default 900)")
    args = ap.parse_args(argv)

    v = versions()
    print(f"colab_drift: versions: {versions_line(v)}", flush=True)
    if args.notebook:
        runs = {args.notebook.stem: {"notebook": args.notebook.resolve(), "corpus": None}}
    else:
        runs = modules()
        if args.module:
            runs = {k: m for k, m in runs.items() if k == args.module}
    if not runs:
        print(f"colab_drift: no module with a lab{f' named {args.module}' if args.module else ''}")
        return 2
    worst = 0
    for mid, m in runs.items():
        corpus = args.corpus or (None if os.environ.get("LAB_CORPUS") else m["corpus"])
        worst = max(worst, run_notebook(m["notebook"], args.out / mid, corpus, args.timeout, v))
    return worst


if __name__ == "__main__":
    sys.exit(main())
