"""Mutation testing: how many deliberately broken copies of the code the tests catch.

    make mutation                         # both tools, a few minutes each on 2 cores
    python3 -m scripts.ci.mutation --python  # mutmut only (or --js: Stryker only)
    python3 -m scripts.ci.mutation --python --group site_data.py   # one group of setup.cfg

mutmut (requirements-dev.txt; its settings in setup.cfg) mutates the build and site code
(scripts/pages/formatting and site_data, scripts/measure/results, claims and build, scripts/files; a module's own build code under
modules/<id>/code/ is loaded by path, out of mutmut's reach), one group at a time, and runs
for each mutant those of the group's fast tests that reach the mutated function.  Stryker (package.json devDependencies; settings in
stryker.config.json) mutates the demo modules and runs their node tests.  Both run in a temporary
copy of the project (the last commit, or with --worktree the work tree as it is), so the work tree
is never mutated; the reports land in build/mutation/.  The survivors judged harmless, and why, are listed in
tests/mutation-survivors.md.  Exit status 1 when either score is below 80%.
"""
from __future__ import annotations

import argparse
import configparser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from scripts import course, paths

TARGET = 80.0                                      # percent of mutants killed
REPORTS = paths.BUILD_DIR / "mutation"
STRYKER_CAUGHT = ("Killed", "Timeout")
STRYKER_UNCOUNTED = ("CompileError", "RuntimeError", "Ignored")


def copy_project(dest: Path, worktree: bool) -> None:
    """The committed project (HEAD), or with worktree=True the files git tracks and the untracked ones
    it does not ignore, as they are in the work tree; node_modules is linked, not copied."""
    if worktree:
        listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=paths.ROOT,
                                capture_output=True, check=True).stdout.decode().split("\0")
        for name in filter(None, listed):
            src = paths.ROOT / name
            if src.is_file():
                (dest / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dest / name)
    else:
        archive = subprocess.run(["git", "archive", "--format=tar", "HEAD"], cwd=paths.ROOT,
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    (dest / "node_modules").symlink_to(paths.NODE_MODULES)


def mark_not_mutated(copy: Path) -> None:
    """setup.cfg [mutation] not_mutated lists, per file, the functions and classes that only the slow
    tests reach (they start a kernel or a process) or that only print: in the copy, each gets mutmut's
    `# pragma: no mutate block` at the end of its header."""
    cfg = configparser.ConfigParser()
    cfg.read(copy / "setup.cfg")
    for entry in filter(None, cfg.get("mutation", "not_mutated", fallback="").splitlines()):
        path, names = entry.split(":", 1)
        lines = (copy / path.strip()).read_text(encoding="utf-8").splitlines()
        for name in names.split():
            start = next((i for i, ln in enumerate(lines) if re.match(rf"(def|class) {name}\b", ln)), None)
            if start is None:
                print(f"note: setup.cfg [mutation] names {name}, which {path.strip()} no longer defines")
                continue
            end = next(i for i in range(start, len(lines)) if lines[i].rstrip().endswith(":"))
            lines[end] += "  # pragma: no mutate block"
        (copy / path.strip()).write_text("\n".join(lines) + "\n", encoding="utf-8")


def score(caught: int, total: int) -> float:
    return 100.0 * caught / total if total else 0.0


def mutmut_groups(copy: Path) -> list[tuple[list[str], list[str]]]:
    """setup.cfg [mutation] groups: one line per run, 'files mutated | tests run against them'."""
    cfg = configparser.ConfigParser()
    cfg.read(copy / "setup.cfg")
    lines = filter(None, cfg.get("mutation", "groups").splitlines())
    return [(files.split(), tests.split()) for files, tests in (line.split("|") for line in lines)]


def set_mutmut_scope(copy: Path, files: list[str], tests: list[str]) -> None:
    cfg = configparser.ConfigParser()
    cfg.read(copy / "setup.cfg")
    cfg["mutmut"]["only_mutate"] = "\n" + "\n".join(files)
    cfg["mutmut"]["pytest_add_cli_args_test_selection"] = "\n" + "\n".join(tests)
    with open(copy / "setup.cfg", "w", encoding="utf-8") as f:
        cfg.write(f)


def run_mutmut(copy: Path, only: str | None = None) -> tuple[int, int]:
    """mutmut once per group (each module against the tests written for it, so that a run takes
    minutes); the counts added up, the survivors listed in build/mutation/mutmut-results.txt."""
    # each lab's corpus stays where it is (the copy has no ../shared beside it); one corpus per run
    corpora = [m.corpus() for m in course.modules() if m.corpus() is not None]
    env = dict(os.environ, OMP_NUM_THREADS="1", **({"LAB_CORPUS": str(corpora[0])} if corpora else {}))
    mark_not_mutated(copy)
    mutmut = [sys.executable, "-m", "mutmut"]
    caught = counted = 0
    listings, per_group = [], {}
    for files, tests in mutmut_groups(copy):
        if only and not any(only in f for f in files):
            continue
        set_mutmut_scope(copy, files, tests)
        shutil.rmtree(copy / "mutants", ignore_errors=True)
        subprocess.run(mutmut + ["run", "--max-children", "2"], cwd=copy, env=env, check=True)
        subprocess.run(mutmut + ["export-cicd-stats"], cwd=copy, env=env, check=True)
        listings.append(subprocess.run(mutmut + ["results", "--all", "true"], cwd=copy, env=env,
                                       capture_output=True, text=True, check=True).stdout)
        stats = json.loads((copy / "mutants" / "mutmut-cicd-stats.json").read_text())
        per_group[" ".join(files)] = stats
        # as mutmut counts: a timeout is caught (the mutant looped), a skipped mutant is not counted
        caught += stats["killed"] + stats["timeout"]
        counted += stats["total"] - stats["skipped"]
        print(f"mutmut {' '.join(files)}: {stats}", flush=True)
    REPORTS.mkdir(parents=True, exist_ok=True)
    (REPORTS / "mutmut-results.txt").write_text("".join(listings), encoding="utf-8")
    (REPORTS / "mutmut-stats.json").write_text(json.dumps(per_group, indent=1), encoding="utf-8")
    return caught, counted


def run_stryker(copy: Path) -> tuple[int, int]:
    subprocess.run(["npx", "--no-install", "stryker", "run"], cwd=copy, check=True)
    report = copy / "reports" / "mutation" / "stryker.json"
    REPORTS.mkdir(parents=True, exist_ok=True)
    shutil.copy2(report, REPORTS / "stryker.json")
    statuses = [m["status"] for f in json.loads(report.read_text())["files"].values() for m in f["mutants"]]
    counted = [s for s in statuses if s not in STRYKER_UNCOUNTED]
    return sum(s in STRYKER_CAUGHT for s in counted), len(counted)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    only = ap.add_mutually_exclusive_group()
    only.add_argument("--python", action="store_true", help="mutmut only")
    only.add_argument("--js", action="store_true", help="Stryker only")
    ap.add_argument("--group", metavar="FILE", help="mutmut: only the groups that mutate a file whose path contains FILE")
    ap.add_argument("--worktree", action="store_true",
                    help="test the work tree as it is (uncommitted changes included), not the last commit")
    args = ap.parse_args(argv)
    scores = {}
    with tempfile.TemporaryDirectory(prefix="m3-mutation-") as tmp:
        copy = Path(tmp)
        copy_project(copy, args.worktree)
        if not args.js:
            scores["Python (mutmut)"] = run_mutmut(copy, args.group)
        if not args.python:
            scores["JavaScript (Stryker)"] = run_stryker(copy)
    print(f"\nmutation scores (reports in {paths.rel(REPORTS)}; harmless survivors: tests/mutation-survivors.md)")
    for name, (caught, total) in scores.items():
        print(f"  {name}: {caught} of {total} mutants killed, {score(caught, total):.1f}%")
    return 0 if all(score(*s) >= TARGET for s in scores.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
