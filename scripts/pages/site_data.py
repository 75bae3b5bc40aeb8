#!/usr/bin/env python3
"""What the pages show, formatted from each module's data: committed files that Quarto reads.

    python3 -m scripts.pages.site_data [--module ID]            # rewrite them from data/ (make data)
    python3 -m scripts.pages.site_data --check                  # what `quarto render` runs first: no writes, no torch
    python3 -m scripts.pages.site_data --module ID --results tests/fixtures/ID/results.json --out-root /tmp/x

For each module (modules/<id>/module.yml), reads data/<id>/results.json (the lab's measurements,
schema-checked), data/<id>/worked_examples.json when the module has worked examples, and the lab
source as text (the functions of its cells tagged `listed`), and writes under the output root:

  modules/<id>/_metadata.yml          the module's page values under `data:`, as display text:
                                      Quarto merges a folder's _metadata.yml into each page (and
                                      deck) in it, so {{< meta data.models.lstm.ppl >}} is the
                                      module's own value and two modules never collide
  modules/<id>/_generated/_*.md       include partials: the module's own (modules/<id>/code/
                                      page_data.py: tables, worked answers) and the code listings

These files are committed, so a fresh clone renders with `quarto render` alone (Quarto resolves
includes before any pre-render step).  --check stops the render when a data file is missing or
invalid, naming it and the problem, or when a committed file is not what the data gives (a data
change not yet formatted), naming the files and the command that fixes them.  Nothing falls back
to the test fixture.  Numbers become text in scripts/pages/formatting.py, the one formatter.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import sys
from pathlib import Path

import yaml

from scripts import course, paths

from scripts.measure import results
from scripts.files import write_if_changed

FIX_COMMAND = "python3 -m scripts.pages.site_data"
NAMESPACE = "data"      # a page reads its module's values as {{< meta data.KEY >}}


class SiteDataError(Exception):
    """A data file is missing or invalid, or a committed page file is out of date."""


# --------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------
def load_results(module: course.Module, path: Path | None = None) -> tuple[Path, dict]:
    path = Path(path or module.results)
    try:
        return path, results.load_results(module, path)    # the build's one reader: strict JSON, schema-checked
    except results.ResultsError as err:
        raise SiteDataError(str(err)) from err


def load_worked_examples(module: course.Module, path: Path | None = None) -> dict | None:
    """The module's worked examples (None for a module without them), their shape checked."""
    if not module.code.has("worked_examples"):
        return None
    path = Path(path or module.worked_examples)
    fix = f"run `python3 -m scripts.measure.worked_examples --module {module.id}`"
    if not path.exists():
        raise SiteDataError(f"{paths.rel(path)} does not exist: {fix}")
    try:
        worked = results.read_json(path)
        wanted = getattr(module.code.page_data, "WORKED_PROVENANCE", ())
        missing = [k for k in wanted if k not in worked["provenance"]]
        if missing:
            raise KeyError(f"provenance lacks {', '.join(missing)}")
        for part, (rows, keys) in getattr(module.code.page_data, "WORKED_SHAPE", {}).items():
            for row in worked[part][rows]:
                missing = [k for k in keys if k not in row]
                if missing:
                    raise KeyError(f"{part}.{rows}[] lacks {', '.join(missing)}")
    except (ValueError, KeyError, TypeError) as err:
        raise SiteDataError(f"{paths.rel(path)} is not a worked-examples file ({err}): {fix}") from err
    return worked


# --------------------------------------------------------------------------------------------
# What every module's pages show: provenance and listings
# --------------------------------------------------------------------------------------------
def short_commit(commit: str) -> str:
    """'0123456789abcdef...+dirty' -> '0123456789ab+dirty'."""
    base, dirty = (commit[:-6], "+dirty") if commit.endswith("+dirty") else (commit, "")
    return base[:12] + dirty


def run_phrase(p: dict) -> str:
    """'full settings, seed 0, on a CPU, not yet on a Colab T4' and its GPU counterpart."""
    where = "on a CPU, not yet on a Colab T4" if p["device_type"] == "cpu" else f"on a GPU ({p['device']})"
    return f"{p['settings']} settings, seed {p['seed']}, {where}"


def lab_compute(p: dict) -> str:
    """How long the build's run of the lab took, and where: '10 minutes on 16 CPU cores (AMD EPYC), ...' (on a
    CPU when the lab did not record how many cores it had).
    A build from existing results (--from-results) times no lab run, and says so."""
    seconds = p.get("duration_s", {}).get("lab")
    if seconds is None:
        return "not timed in this build; not yet timed on a Colab T4"
    minutes = max(1, round(seconds / 60))
    cpu = f"on {p['cpu_count']} CPU cores" if "cpu_count" in p else "on a CPU"    # recorded by labs that record it
    where = (f"{cpu} ({p['device']}), at {p['settings']} settings; not yet timed on a Colab T4"
             if p["device_type"] == "cpu" else f"on a GPU ({p['device']}), at {p['settings']} settings")
    return f"{minutes} minute{'s' if minutes != 1 else ''} {where}"


def provenance_variables(p: dict) -> dict:
    out = {
        "settings": p["settings"],
        "seed": str(p["seed"]),
        "device": p["device"],
        "device_type": p["device_type"],
        "run_phrase": run_phrase(p),
        "torch": p["torch"],
        "date": p["started_at"][:10],
        "git_commit": short_commit(p["git_commit"]),
    }
    out["lab_compute"] = lab_compute(p)
    return out


def provenance_line(p: dict, module: course.Module) -> str:
    """The line under a measured table: which run of the lab, where, when, from which sources."""
    return (f"*Provenance:* `{paths.rel(module.results)}`, Lab {module.number} run with {p['settings']} settings, "
            f"seed {p['seed']}, on {p['device']} ({p['device_type']}), torch {p['torch']}, Python {p['python']}, "
            f"started {p['started_at']}, git commit `{short_commit(p['git_commit'])}`, "
            f"lab source `{p['lab_source_sha256'][:12]}`.")


def code_listing(module: course.Module, name: str) -> str:
    """A function of the lab, as the solution notebook has it (read as text: nothing is run)."""
    from scripts.measure import lab_source   # (jupytext, imported only when the files are made: not by a cached --check)
    return f"```python\n{lab_source.function_source(name, module).rstrip()}\n```\n"


# --------------------------------------------------------------------------------------------
# Writing and checking
# --------------------------------------------------------------------------------------------
def site_files(module: course.Module, data: dict, worked: dict | None, source: Path) -> dict[Path, str]:
    """Every file this writes for a module, relative to the output root, with its text."""
    from scripts.measure import lab_source
    page_data = module.code.page_data
    values = {**page_data.variables(data, worked), "provenance": provenance_variables(data["provenance"])}
    partials = {
        **page_data.partials(data, worked, values),
        **{f"_code-{name.replace('_', '-')}.md": code_listing(module, name)
           for name in lab_source.listed_functions(module)},
    }
    header = f"# GENERATED by `{FIX_COMMAND}` from {paths.rel(source)}; do not edit.\n"
    files = {module.metadata_file: header + yaml.safe_dump({NAMESPACE: values}, allow_unicode=True,
                                                           sort_keys=False, width=1000)}
    files.update({module.generated / name: text for name, text in partials.items()})
    return {path: text.rstrip("\n") + "\n" for path, text in files.items()}


def leftovers(module: course.Module, files: dict[Path, str], root: Path) -> list[Path]:
    """Partials under `root` that this no longer writes (a renamed or dropped one)."""
    folder = root / module.generated
    return sorted(p.relative_to(root) for p in folder.glob("*") if p.relative_to(root) not in files) \
        if folder.is_dir() else []


def out_of_date(module: course.Module, files: dict[Path, str], root: Path) -> list[str]:
    """The files under `root` that are missing, differ from `files`, or are left over."""
    stale = []
    for rel, text in files.items():
        target = root / rel
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            stale.append(str(rel))
    return stale + [f"{rel} (no longer written)" for rel in leftovers(module, files, root)]


def run(module: course.Module, out_root: Path, check: bool, results_path: Path | None = None,
        worked_path: Path | None = None) -> str:
    path, data = load_results(module, results_path)
    try:
        files = site_files(module, data, load_worked_examples(module, worked_path), path)
    except (KeyError, ValueError, TypeError) as err:     # data the schema allows but the module cannot show
        raise SiteDataError(f"{paths.rel(path)}: the module's page data cannot be formatted from it "
                            f"({type(err).__name__}: {err})") from err
    if check:
        stale = out_of_date(module, files, out_root)
        if stale:
            raise SiteDataError(f"not what data/ gives (a data change not yet formatted): {', '.join(stale)}; "
                                f"run `{FIX_COMMAND} --module {module.id}` and commit the result")
        return f"site_data: {module.id}: the {len(files)} page data files are up to date with {paths.rel(path)}"
    for rel in files:
        (out_root / rel).parent.mkdir(parents=True, exist_ok=True)
    written = [rel for rel, text in files.items() if write_if_changed(out_root / rel, text)]
    for rel in leftovers(module, files, out_root):
        (out_root / rel).unlink()
    return f"site_data: {paths.rel(path)} -> {len(files)} files under {paths.rel(out_root)} ({len(written)} changed)"


# --check, which every `quarto render` runs first, remembers the inputs of its last pass (in Quarto's
# scratch folder): a render with none of them changed skips the check (it reads the lab source and
# the data, about two seconds) and says so.
CHECK_STAMP = paths.ROOT / ".quarto" / "site-data-check.json"
CHECKED = ["data", "lab", "scripts", "schemas", "modules/*/module.yml", "modules/*/_metadata.yml", "modules/*/_generated",
           "modules/*/code"]


def check_fingerprint() -> str:
    """Path, size and modification time of every file --check may read (CHECKED; not the pages)."""
    h = hashlib.sha256()
    for pattern in CHECKED:
        for top in sorted(paths.ROOT.glob(pattern)):
            walk = os.walk(top) if top.is_dir() else [(str(top.parent), [], [top.name])]
            for dirpath, dirnames, filenames in walk:
                dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
                for name in sorted(filenames):
                    st = os.stat(os.path.join(dirpath, name))
                    h.update(f"{dirpath}/{name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    course.add_module_argument(ap)
    ap.add_argument("--out-root", type=Path, default=paths.ROOT,
                    help="where modules/<id>/_metadata.yml and _generated/ are written (default: project root)")
    ap.add_argument("--results", type=Path, help="read this results file instead of data/<id>/results.json (one module)")
    ap.add_argument("--worked-examples", type=Path, help="and this worked-examples file (one module)")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; fail if the data is missing or invalid or the files are out of date")
    args = ap.parse_args(argv)
    cached = args.check and not (args.results or args.worked_examples) and args.out_root == paths.ROOT
    if cached and CHECK_STAMP.exists() and CHECK_STAMP.read_text() == f"{args.module}:{check_fingerprint()}":
        print(f"site_data: nothing changed since the last check passed ({paths.rel(CHECK_STAMP)})")
        return 0
    try:
        modules = course.selected(args.module)
        if (args.results or args.worked_examples) and len(modules) != 1:
            raise SiteDataError("--results and --worked-examples need --module ID")
        for module in modules:
            print(run(module, args.out_root, args.check, args.results, args.worked_examples))
    except (SiteDataError, course.ModuleError) as err:
        print(f"site_data: {err}", file=sys.stderr)
        return 1
    if cached and CHECK_STAMP.parent.is_dir():
        CHECK_STAMP.write_text(f"{args.module}:{check_fingerprint()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
