"""scripts/ci/fetch_weights.py, the Site workflow's step that brings the trained weights (never committed) beside
each module's results before the render: run for real against a `gh` on PATH that serves an artifact folder the
way `gh run download -D` lays it out, with the weights a real quick build exported and the results it wrote."""
from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys

import pytest

from scripts import course, paths
from scripts.measure import results, weights
from scripts.ci import fetch_weights

MODULES = [m for m in course.modules() if m.lab.get("weights")]


def fake_gh(tmp_path, artifact_dir, log):
    """A `gh` that logs its arguments and copies artifact_dir into the -D folder (or fails when there is none)."""
    gh = tmp_path / "gh"
    gh.write_text("#!/usr/bin/env python3\nimport shutil, sys\n"
                  f"open({str(log)!r}, 'a').write(' '.join(sys.argv[1:]) + '\\n')\n"
                  f"src = {str(artifact_dir)!r}\n"
                  "import os\n"
                  "if not os.path.isdir(src): print('no artifact', file=sys.stderr); sys.exit(1)\n"
                  "shutil.copytree(src, sys.argv[sys.argv.index('-D') + 1], dirs_exist_ok=True)\n")
    gh.chmod(gh.stat().st_mode | stat.S_IEXEC)
    return str(gh)


@pytest.fixture
def module_copy(tmp_path, monkeypatch):
    """Module 3's committed results in a temporary project root, recorded as measured by run 4242, with no weights
    beside them (a clone), and the artifact of that run holding weights at the shapes the results record (made
    here: the course's own are the build's output, which a clone does not have), their sha256 recorded."""
    if not MODULES:
        pytest.fail("no module declares lab.weights: this test has nothing real to fetch")
    import torch
    from safetensors.torch import save_file
    m = MODULES[0]
    root = tmp_path / "root"
    data_dir = root / "data" / m.id
    data_dir.mkdir(parents=True)
    for f in ("results.json", "results.schema.json"):
        shutil.copy(m.data_dir / f, data_dir / f)
    d = json.loads((data_dir / "results.json").read_text())
    d["provenance"]["ci_run"] = {"repository": "owner/course", "run_id": 4242, "artifact": f"measured-{m.id}"}
    artifact = tmp_path / "artifact" / "data" / m.id
    artifact.mkdir(parents=True)
    recorded = d["provenance"]["weights"]
    gen = torch.Generator().manual_seed(0)
    for entry in recorded.values():
        path = artifact / entry["file"]
        save_file({k: torch.randn(*shape, generator=gen) for k, shape in entry["tensors"].items()}, str(path))
        entry.update(sha256=weights.sha256_file(path), bytes=path.stat().st_size)
    (data_dir / "results.json").write_text(json.dumps(d))
    monkeypatch.setattr(paths, "ROOT", root)
    return m, data_dir, recorded, tmp_path / "artifact"


def test_fetches_the_recorded_weights_from_the_run_that_measured_them(module_copy, tmp_path):
    m, data_dir, recorded, artifact = module_copy
    log = tmp_path / "gh.log"
    said = fetch_weights.fetch(m, gh=fake_gh(tmp_path, artifact, log))
    assert "fetched" in said and "4242" in said
    assert not weights.missing(data_dir, recorded) and not weights.problems(data_dir, recorded)
    assert log.read_text().split() == ["run", "download", "4242", "-R", "owner/course", "-n", f"measured-{m.id}",
                                       "-D", log.read_text().split()[-1]]
    # nothing to do the second time: no call
    assert "are here" in fetch_weights.fetch(m, gh=fake_gh(tmp_path, artifact, log)) and len(log.read_text().splitlines()) == 1
    recorded_lab = json.loads((data_dir / "results.json").read_text())["provenance"]["lab_source_sha256"]
    assert results.staleness(m, data_dir / "results.json", "full", None, current_sha256=recorded_lab).fresh


def test_weights_that_are_not_the_recorded_ones_are_not_kept(module_copy, tmp_path, capsys):
    m, data_dir, recorded, artifact = module_copy
    first = next(iter(recorded.values()))["file"]
    f = next(artifact.rglob(first))
    f.write_bytes(f.read_bytes()[:-4] + b"\0\0\0\0")
    said = fetch_weights.fetch(m, gh=fake_gh(tmp_path, artifact, tmp_path / "gh.log"))
    assert "did not match" in said and weights.missing(data_dir, recorded) == [e["file"] for e in recorded.values()]
    assert "::warning::" in capsys.readouterr().out


def test_a_failed_download_or_no_run_leaves_the_site_without_them_and_says_so(module_copy, tmp_path, capsys):
    m, data_dir, recorded, artifact = module_copy
    said = fetch_weights.fetch(m, gh=fake_gh(tmp_path, tmp_path / "expired", tmp_path / "gh.log"))
    assert "fetch failed" in said and "no artifact" in capsys.readouterr().out
    d = json.loads((data_dir / "results.json").read_text())
    del d["provenance"]["ci_run"]
    (data_dir / "results.json").write_text(json.dumps(d))
    assert "no run to fetch from" in fetch_weights.fetch(m, gh="/nonexistent/gh")
    assert "outside the Site workflow" in capsys.readouterr().out
    assert weights.missing(data_dir, recorded)


def test_the_build_records_the_run_only_on_a_github_runner(monkeypatch):
    from scripts.measure import build
    m = MODULES[0]
    lab = json.loads(m.fixture.with_name("lab-results-quick.json").read_text())
    for env in ("GITHUB_RUN_ID", "GITHUB_REPOSITORY"):
        monkeypatch.delenv(env, raising=False)
    assert "ci_run" not in build.assemble(m, lab, "0" * 64, None, "t", {"total": 1})["provenance"]
    monkeypatch.setenv("GITHUB_RUN_ID", "77"); monkeypatch.setenv("GITHUB_REPOSITORY", "o/r")
    assert build.assemble(m, lab, "0" * 64, None, "t", {"total": 1})["provenance"]["ci_run"] == \
        {"repository": "o/r", "run_id": 77, "artifact": f"measured-{m.id}"}
