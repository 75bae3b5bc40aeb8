"""scripts/ is one importable package: every module imports as scripts.<name> or scripts.<role>.<name>
with nothing added to sys.path, and the commands the Makefile and Quarto run are `python -m scripts...`."""
import importlib
import re
import subprocess
import sys

import pytest
import yaml

from scripts import paths

SYS_PATH_EDIT = re.compile(r"sys\.path\.(insert|append|extend)\(|sys\.path\s*\+?=")
MODULES = sorted(".".join(p.relative_to(paths.ROOT / "scripts").with_suffix("").parts)
                 for p in (paths.ROOT / "scripts").rglob("*.py")
                 if p.stem != "__init__" and "module_template" not in p.parts)


@pytest.mark.parametrize("name", MODULES)
def test_every_module_imports_from_the_package(name):
    assert len(MODULES) > 15 and "measure.build" in MODULES     # the glob sees the role folders
    importlib.import_module(f"scripts.{name}")


def test_nothing_edits_sys_path():
    for edit in ("sys.path.insert(0, str(ROOT))", "sys.path.append(x)", "sys.path += [x]", "sys.path = [x]"):
        assert SYS_PATH_EDIT.search(edit), edit
    files = [p for d in ("scripts", "tests", "lab") for p in (paths.ROOT / d).rglob("*.py")
             if p.name != "test_package.py"]                      # this file names the patterns
    offenders = [str(p.relative_to(paths.ROOT)) for p in files if SYS_PATH_EDIT.search(p.read_text(encoding="utf-8"))]
    assert not offenders


def test_commands_run_scripts_as_modules():
    """No `python scripts/x.py` (which would run outside the package) in the Makefile or _quarto.yml."""
    makefile = (paths.ROOT / "Makefile").read_text(encoding="utf-8")
    assert not re.search(r"\$\(PY\) scripts/\w+\.py", makefile)
    project = yaml.safe_load(paths.QUARTO_CONFIG.read_text(encoding="utf-8"))["project"]
    steps = [*project.get("pre-render", []), *([project["post-render"]] if isinstance(project.get("post-render"), str)
                                               else project.get("post-render", []))]
    python_steps = [s for s in steps if "scripts" in s and s.split()[0].startswith("python")]
    assert python_steps and all(" -m scripts." in s for s in python_steps), steps


def test_an_entry_point_runs_from_the_project_root(tmp_path):
    """`python -m scripts.measure.results` (the staleness report) runs as the README says, from the project root."""
    res = subprocess.run([sys.executable, "-m", "scripts.measure.results"], cwd=paths.ROOT, capture_output=True, text=True)
    assert res.returncode in (0, 1), res.stderr       # 0 fresh, 1 stale: both are answers
    assert "data/03-sequence-models/results.json" in res.stdout
