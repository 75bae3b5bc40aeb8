"""Every command the project names runs what exists: each package.json script, each Makefile target's
recipe and each step of _quarto.yml names a script or module that is there (a renamed file breaks
this test, not a maintainer's day), and the cheap ones run."""
from __future__ import annotations

import importlib.util
import json
import re
import shlex
import subprocess
import sys

import yaml

from scripts import paths

SCRIPT_FILE = re.compile(r"(?:^|\s)((?:scripts|tests|_extensions)/[\w./-]+\.(?:py|mjs|sh))\b")
PY_MODULE = re.compile(r"-m (scripts\.[\w.]+)")


def named_files_and_modules(command: str) -> tuple[list[str], list[str]]:
    return SCRIPT_FILE.findall(command), PY_MODULE.findall(command)


def assert_resolves(command: str, where: str) -> None:
    files, modules = named_files_and_modules(command)
    for f in files:
        assert (paths.ROOT / f).is_file(), f"{where}: {command!r} names {f}, which does not exist"
    for m in modules:
        assert importlib.util.find_spec(m) is not None, f"{where}: {command!r} runs module {m}, which does not exist"


def test_package_json_scripts_resolve_and_vendor_runs():
    scripts = json.loads((paths.ROOT / "package.json").read_text(encoding="utf-8"))["scripts"]
    for name, command in scripts.items():
        assert_resolves(command, f"package.json scripts.{name}")
    # the cheap one runs for real, as `npm run vendor` does (node --test is `make test` itself)
    res = subprocess.run(shlex.split(scripts["vendor"]), cwd=paths.ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


def test_quarto_project_steps_resolve():
    project = yaml.safe_load(paths.QUARTO_CONFIG.read_text(encoding="utf-8"))["project"]
    post = project["post-render"]
    assert post == ["node _extensions/course/post-render/run.mjs"], "one post-render entry: the pipeline"
    for step in [*project["pre-render"], *post]:
        assert_resolves(step, "_quarto.yml")
        assert re.search(r"(scripts/|_extensions/|-m scripts\.)", step), step
        assert any(named_files_and_modules(step)), f"{step!r} names no file or module this test can check"


def test_every_makefile_target_resolves():
    makefile = (paths.ROOT / "Makefile").read_text(encoding="utf-8")
    phony = re.search(r"^\.PHONY:(.*)$", makefile, re.M).group(1).split()
    targets = re.findall(r"^([a-z][\w-]*):", makefile, re.M)
    assert sorted(phony) == sorted(targets), "every target is .PHONY and every .PHONY a target"
    for target in targets:
        # what the target would run (make -n prints the recipe without running it)
        res = subprocess.run(["make", "-n", target, "ID=x", "TITLE=x"], cwd=paths.ROOT, capture_output=True, text=True)
        assert res.returncode == 0, f"make -n {target}: {res.stderr}"
        for line in res.stdout.splitlines():
            assert_resolves(line, f"make {target}")
