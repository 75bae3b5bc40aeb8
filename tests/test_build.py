"""The build (scripts/measure/build.py, results.py, claims.py, M3.code.plots.py): schema, provenance, claims,
staleness, atomic writes, and a quick build end to end.

The end-to-end test executes the lab at quick settings (about a minute on 2 CPU cores); skip it
with `pytest -m "not slow"`.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from scripts.measure import build, claims, lab_source, results

from scripts import course, files, paths

from scripts.pages import render_site
from scripts.paths import ROOT
from tests.support import committed_results, corpus, fake_lab_results, fixture

# the module whose real lab and data these tests build with (its fake lab results are its own shape)
M3 = course.module("03-sequence-models")

FIXTURE = M3.fixture
COMMITTED = M3.results


@pytest.fixture(scope="session")
def corpus_path():
    return corpus(M3)




def snapshot(paths) -> dict:
    return {str(p): (p.read_bytes() if p.exists() else None) for p in paths}


@pytest.fixture(scope="session")
def built_once(tmp_path_factory):
    """One complete build from fake lab results (validated, its claims checked, its figures drawn), made once
    for the session: each test that needs a previous build changes its own copy of it (`built`)."""
    base = tmp_path_factory.mktemp("built")
    lab = base / "lab_results.json"
    lab.write_text(json.dumps(fake_lab_results(M3)))
    out = base / "out"
    assert build.main(["--settings", "full", "--out", str(out), "--from-results", str(lab)]) == 0
    return out, lab


@pytest.fixture
def built(tmp_path, built_once):
    """A complete previous build in tmp_path/out (from fake lab results), and the lab results file: a copy of the
    session's one build, byte for byte."""
    out, lab = built_once
    shutil.copytree(out, tmp_path / "out", symlinks=True)
    shutil.copy2(lab, tmp_path / "lab_results.json")
    return tmp_path / "out", tmp_path / "lab_results.json"


# --------------------------------------------------------------------------------------------
# the committed results
# --------------------------------------------------------------------------------------------
def committed() -> dict:
    return committed_results(M3)


def require_lab_source() -> None:
    """The lab source is committed: a test that needs it fails, never skips, when it is not there."""
    if not M3.lab_source.is_file():
        pytest.fail(f"{paths.rel(M3.lab_source)} is missing: the lab source is committed with the module",
                    pytrace=False)


def test_committed_results_have_provenance():
    d = committed()
    p = d["provenance"]
    assert p["settings"] == "full"
    for k in ("device", "torch", "python", "numpy", "git_commit", "started_at"):
        assert p[k] and p[k] != "fixture", k
    assert p["corpus_sha256"] == "86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed"
    assert p["started_at"].endswith("Z")
    dur = p["duration_s"]
    for phase in ("total", "notebook", "lab", "claims", "figures"):
        assert phase in dur, phase
    assert any(k.startswith("lab_") for k in dur)
    assert dur["total"] >= dur["lab"]


# (fresh, valid and holding its claims: tests/test_every_module.py, for every module)


@pytest.fixture(scope="module")
def redrawn() -> dict[str, bytes]:
    """The measured figures as the build draws them from the committed data: scripts/measure/build.py passes the
    results it writes (and, redrawing a missing figure, the results file it loads) to plots.draw_all."""
    return M3.code.plots.draw_all(committed())


@pytest.mark.parametrize("name", M3.code.plots.FIGURE_NAMES)
def test_committed_figure_is_the_redraw_from_the_committed_data(redrawn, name):
    """Byte for byte, as tests/test_figures.py checks the diagrams: a committed figure that is not what the
    module's plotting code draws from the committed results is stale (or was drawn from other data)."""
    figure = M3.figures_dir / name
    redraw = ("`python3 -m scripts.measure.build --settings full --no-run` (it redraws a missing figure from the committed "
              "data without running the lab), then commit it")
    assert figure.is_file(), f"{paths.rel(figure)} is missing: it is committed with the module; run {redraw}"
    assert figure.read_bytes() == redrawn[name], (
        f"{paths.rel(figure)} is not what {paths.rel(M3.dir / 'build' / 'plots.py')} draws from "
        f"{paths.rel(COMMITTED)}: delete it and run {redraw}")


# --------------------------------------------------------------------------------------------
# claims, as the build enforces them
# --------------------------------------------------------------------------------------------
def test_failing_claim_at_full_settings_fails_the_build_and_writes_nothing(built, capsys):
    out, lab = built
    before = snapshot(build.Destination(M3, "full", str(out)).outputs())
    d = json.loads(lab.read_text())
    d["clipping_demo"]["unclipped"]["final_loss"] = 3.9
    lab.write_text(json.dumps(d))
    assert build.main(["--settings", "full", "--out", str(out), "--from-results", str(lab)]) == 1
    text = capsys.readouterr().out
    assert "claims that no longer hold: unclipped_sgd_worse_than_uniform" in text
    assert snapshot(build.Destination(M3, "full", str(out)).outputs()) == before


def test_failing_claim_at_quick_settings_is_reported_not_enforced(tmp_path, capsys):
    lab = tmp_path / "lab.json"
    d = fake_lab_results(M3, "quick")
    d["gradient_by_distance"]["rnn_first_all_zero_distance"] = 150
    lab.write_text(json.dumps(d))
    out = tmp_path / "q"
    assert build.main(["--settings", "quick", "--out", str(out), "--from-results", str(lab)]) == 0
    assert "[FAIL] rnn_gradient_never_exactly_zero_within_the_chunk" in capsys.readouterr().out
    written = results.load_results(M3, out / "data" / M3.id / "results.json")
    assert {c["name"]: c["holds"] for c in written["claims"]}["rnn_gradient_never_exactly_zero_within_the_chunk"] is False


# --------------------------------------------------------------------------------------------
# provenance, staleness, unchanged rebuilds
# --------------------------------------------------------------------------------------------
def test_build_adds_provenance(built):
    out, _ = built
    d = results.load_results(M3, out / "data" / M3.id / "results.json")
    p = d["provenance"]
    assert p["lab_source_sha256"] == results.lab_source_sha256(M3)
    assert p["git_commit"]
    assert set(p["duration_s"]) >= {"total", "claims", "validate", "figures", "lab_ngram",
                                    "lab_train_rnn", "lab_train_lstm"}
    assert list(p["duration_s"])[0] == "total" and "write" not in p["duration_s"]   # no phase times json.dumps
    assert len(d["claims"]) == len(M3.code.claims.CLAIMS) and all(c["holds"] for c in d["claims"])


def test_unchanged_rebuild_does_not_rerun(built, capsys, monkeypatch):
    out, _ = built
    before = snapshot(build.Destination(M3, "full", str(out)).outputs())
    monkeypatch.setattr(build, "execute", lambda *a, **k: pytest.fail("the lab was re-run"))
    assert build.main(["--settings", "full", "--out", str(out)]) == 0
    assert "up to date" in capsys.readouterr().out
    assert build.main(["--settings", "full", "--out", str(out), "--no-run"]) == 0
    assert snapshot(build.Destination(M3, "full", str(out)).outputs()) == before


def test_staleness_detected_when_lab_source_changes(built, capsys, monkeypatch):
    out, _ = built
    data = out / "data" / M3.id / "results.json"
    recorded = results.load_results(M3, data)["provenance"]["lab_source_sha256"]
    assert results.staleness(M3, data, "full", out / "figures" / M3.id).fresh
    changed = hashlib.sha256(b"an edited lab").hexdigest()
    monkeypatch.setattr(results, "lab_source_sha256", lambda module: changed)
    s = results.staleness(M3, data, "full", out / "figures" / M3.id)
    assert s.state == "stale" and recorded in s.message and changed in s.message
    # --no-run refuses, naming both hashes, and touches nothing
    before = snapshot(build.Destination(M3, "full", str(out)).outputs())
    assert build.main(["--settings", "full", "--out", str(out), "--no-run"]) == 2
    text = capsys.readouterr().out
    assert "stale" in text and recorded in text and changed in text
    assert snapshot(build.Destination(M3, "full", str(out)).outputs()) == before
    # and a plain build would run the lab
    called = []
    monkeypatch.setattr(build, "execute", lambda *a, **k: called.append(1) or pytest.skip("ok"))
    monkeypatch.setattr(build, "solution_notebook", lambda module: (None, changed))
    try:
        build.main(["--settings", "full", "--out", str(out)])
    except pytest.skip.Exception:
        pass
    assert called == [1]


def test_staleness_with_real_lab_source_copy(built, tmp_path, monkeypatch):
    """Point the lab source at an edited copy: the hash changes and the data is stale."""
    out, _ = built
    require_lab_source()
    copy_ = tmp_path / "lab03_sequence_models.py"
    copy_.write_bytes(M3.lab_source.read_bytes() + b"\n# an edit\n")
    # the module is the one definition of its lab source: results and lab_source follow
    monkeypatch.setattr(type(M3), "lab_source", property(lambda self: copy_))
    s = results.staleness(M3, out / "data" / M3.id / "results.json", "full", out / "figures" / M3.id)
    assert s.state == "stale" and s.current_sha256 == hashlib.sha256(copy_.read_bytes()).hexdigest()


def test_other_settings_are_not_up_to_date(built):
    out, _ = built
    s = results.staleness(M3, out / "data" / M3.id / "results.json", "quick", out / "figures" / M3.id)
    assert s.state == "settings" and not s.fresh


def test_missing_figure_is_redrawn_without_running_the_lab(built, monkeypatch):
    out, _ = built
    fig = out / "figures" / M3.id / "clipping-demo.svg"
    old = fig.read_bytes()
    fig.unlink()
    monkeypatch.setattr(build, "execute", lambda *a, **k: pytest.fail("the lab was re-run"))
    assert build.main(["--settings", "full", "--out", str(out), "--no-run"]) == 0
    assert fig.read_bytes() == old


# --------------------------------------------------------------------------------------------
# atomicity and quick isolation
# --------------------------------------------------------------------------------------------
def test_build_dying_while_drawing_leaves_old_files_byte_identical(built, monkeypatch):
    out, lab = built
    outputs = build.Destination(M3, "full", str(out)).outputs()
    before = snapshot(outputs)
    d = json.loads(lab.read_text())
    d["models"]["lstm"]["training_steps"] = 2001          # a different measurement ...
    lab.write_text(json.dumps(d))

    def boom(data):
        raise RuntimeError("simulated crash while drawing")

    monkeypatch.setattr(M3.code.plots, "draw_all", boom)  # ... and a crash half-way
    with pytest.raises(RuntimeError, match="simulated crash"):
        build.main(["--settings", "full", "--out", str(out), "--from-results", str(lab), "--force"])
    assert snapshot(outputs) == before
    assert not [p for p in (out / "data").iterdir() if p.name.startswith(".")]   # no temp files left


def test_build_dying_between_renames_restores_old_files(built, monkeypatch):
    out, lab = built
    outputs = build.Destination(M3, "full", str(out)).outputs()
    before = snapshot(outputs)
    d = json.loads(lab.read_text())
    d["models"]["lstm"]["training_steps"] = 2001
    lab.write_text(json.dumps(d))
    real, calls = files._replace, []

    def flaky(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise OSError("simulated crash between renames")
        real(src, dst)

    monkeypatch.setattr(files, "_replace", flaky)
    with pytest.raises(OSError, match="between renames"):
        build.main(["--settings", "full", "--out", str(out), "--from-results", str(lab), "--force"])
    assert snapshot(outputs) == before
    for folder in (out / "data", out / "figures" / M3.id):
        assert not [p.name for p in folder.iterdir() if p.name.startswith(".")]


def test_atomic_write_all_or_nothing(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "sub" / "b.txt"
    files.atomic_write({a: "one", b: b"two"})
    assert a.read_text() == "one" and b.read_bytes() == b"two"

    class Unwritable:
        pass

    with pytest.raises(TypeError):
        files.atomic_write({a: "new", b: Unwritable()})    # fails while staging
    assert a.read_text() == "one" and b.read_bytes() == b"two"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "sub"]


def test_quick_never_targets_the_committed_files(capsys):
    p = build.Destination(M3, "quick", None)
    assert p.data == ROOT / "build" / "quick" / "data" / M3.id / "results.json"
    assert p.figures == ROOT / "build" / "quick" / "figures" / M3.id
    assert build.main(["--settings", "quick", "--out", str(ROOT), "--no-run"]) == 2
    assert "must not write the committed" in capsys.readouterr().out


# --------------------------------------------------------------------------------------------
# figures
# --------------------------------------------------------------------------------------------
def test_figures_are_labelled_svg():
    d = fixture(M3)
    d["clipping_demo"]["unclipped"]["loss"][-3:] = [None, None, None]   # a diverged run draws too
    figs = M3.code.plots.draw_all(d)
    assert set(figs) == set(M3.code.plots.FIGURE_NAMES)
    g = figs["gradient-by-distance.svg"].decode()
    assert "LSTM, ‖∂L/∂(hₛ, cₛ)‖" in g and "RNN, ‖∂L/∂hₛ‖" in g and "distance" in g and "float64" in g
    r = figs["gradient-rnn.svg"].decode()
    assert "Equation 8's bound" in r and "from 140 back, a norm taken in" in r and "LSTM" not in r
    c = figs["clipping-demo.svg"].decode()
    assert "ln 65" in c and "SGD step" in c and "clipped" in c and "non-finite" in c
    assert figs == M3.code.plots.draw_all(d)          # deterministic: rebuilds diff cleanly


# --------------------------------------------------------------------------------------------
# end to end
# --------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_quick_build_end_to_end(tmp_path, corpus_path):
    """Execute the lab at quick settings with nbclient and write a complete, valid result set."""
    require_lab_source()
    committed_before = snapshot([COMMITTED] + [M3.figures_dir / n for n in M3.code.plots.FIGURE_NAMES])
    sha_before = results.lab_source_sha256(M3)
    out = tmp_path / "quick"
    cmd = [sys.executable, "-m", "scripts.measure.build", "--settings", "quick", "--out", str(out),
           "--device", "cpu", "--corpus", str(corpus_path)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))    # run from elsewhere: the build must not depend on cwd
    # (no time limit: on a loaded machine the quick build may take several times its usual minute)
    r = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    d = results.load_results(M3, out / "data" / M3.id / "results.json")
    p = d["provenance"]
    assert p["settings"] == "quick" and p["device_type"] == "cpu"
    sha_after = results.lab_source_sha256(M3)
    assert p["lab_source_sha256"] in (sha_before, sha_after)     # the lab may be edited while it runs
    assert {"notebook", "lab", "claims", "figures"} <= set(p["duration_s"])
    assert len(d["claims"]) == len(M3.code.claims.CLAIMS)
    assert not claims.failed(claims.evaluate(M3, d)[:1]), "the n-gram rows must match Lab 1 at any settings"
    for n in M3.code.plots.FIGURE_NAMES:
        assert (out / "figures" / M3.id / n).stat().st_size > 1000
    assert (out / "build" / M3.id / "executed.ipynb").exists()
    notebook_and_page_agree(out / "build" / M3.id / "executed.ipynb", d)
    # the committed full results were not touched
    assert snapshot([COMMITTED] + [M3.figures_dir / n for n in M3.code.plots.FIGURE_NAMES]) == committed_before
    # and an unchanged rebuild is a no-op
    if results.lab_source_sha256(M3) == p["lab_source_sha256"]:
        r = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True)
        assert r.returncode == 0 and "up to date" in r.stdout, r.stdout[-2000:]


def notebook_and_page_agree(executed: Path, data: dict) -> None:
    """Issue 17: each derived number the LSTM box shows is the one the notebook printed (same inputs, unrounded,
    two figures); a blank 3A prediction is asked for and Run All still finishes."""
    nb = json.loads(executed.read_text(encoding="utf-8"))
    printed = "".join(o.get("text", "") if isinstance(o.get("text", ""), str) else "".join(o["text"])
                      for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", []))
    assert "⚠️ Exercise 3A: no prediction in `my_prediction_3a` yet" in printed
    m = re.search(r"a gate of (\d\.\d{3}) on every step keeps (\S+) of the direct path .* measured gradient falls to "
                  r"(\S+) of its value", printed)
    assert m, "the notebook no longer prints the LSTM box's derived numbers"
    v = M3.code.page_data.gradient_variables(data["gradient_by_distance"])

    def sci(shown: str) -> str:                                   # '9.3 × 10⁻⁸' -> '9.3e-08'
        mant, _, power = shown.partition(" × 10") if " × " in shown else ("1", "", shown[2:])
        exp = int(power.translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")))
        return f"{mant}e{exp:+03d}"
    assert (v["forget_mean"], sci(v["forget_mean_pow_50"]), sci(v["lstm_fall_50"])) == m.groups()
    ratio = re.search(r"at distance 50: LSTM \S+, RNN \S+, ratio (\S+)", printed).group(1)
    assert sci(v["ratio_at_50"]) == ratio
    factor = re.search(r"a factor of (\d\.\d{3}) per character", printed).group(1)
    assert v["factor_per_character"] == factor


# --------------------------------------------------------------------------------------------
# the site build (scripts/pages/render_site.py) with a stand-in for quarto
# --------------------------------------------------------------------------------------------

FAKE_QUARTO = """#!/usr/bin/env python3
import pathlib, sys
args = sys.argv[1:]
out = pathlib.Path(args[args.index("--output-dir") + 1])
out.mkdir(parents=True, exist_ok=True)
(out / "index.html").write_text("new site")
sys.exit(1 if "{fail}" == "yes" else 0)
"""


def fake_quarto(tmp_path, fail: bool) -> str:
    q = tmp_path / f"quarto-{'fail' if fail else 'ok'}"
    q.write_text(FAKE_QUARTO.replace("{fail}", "yes" if fail else "no"))
    q.chmod(0o755)
    return str(q)


@pytest.fixture
def project(tmp_path, monkeypatch):
    proj = tmp_path / "proj"
    (proj / "_site").mkdir(parents=True)
    (proj / "_site" / "index.html").write_text("old site")
    monkeypatch.setattr(render_site, "PROJECT", proj)
    return proj


def assert_no_scratch_left(project: Path) -> None:
    """Only the site is left: no scratch folder (rendering writes no page data: `make data` does)."""
    assert sorted(p.name for p in project.iterdir()) == ["_site"]


def test_render_swaps_in_the_new_site(project, tmp_path):
    assert render_site.main(["--quarto", fake_quarto(tmp_path, fail=False)]) == 0
    assert (project / "_site" / "index.html").read_text() == "new site"
    assert_no_scratch_left(project)


def test_failed_render_keeps_the_previous_site(project, tmp_path, capsys):
    assert render_site.main(["--quarto", fake_quarto(tmp_path, fail=True)]) == 1
    assert (project / "_site" / "index.html").read_text() == "old site"
    assert_no_scratch_left(project)
    assert "previous _site/ is unchanged" in capsys.readouterr().out


def test_missing_quarto_says_how_to_install(project, monkeypatch, capsys):
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("QUARTO", raising=False)
    assert render_site.main([]) == 3
    assert "quarto.org/docs/get-started" in capsys.readouterr().out


# --------------------------------------------------------------------------------------------
# executing a notebook (a toy lab: seconds, not minutes)
# --------------------------------------------------------------------------------------------
def toy_notebook(*cells):
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# toy lab")] + [nbformat.v4.new_code_cell(c) for c in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


def test_execute_sets_the_lab_environment_and_keeps_the_notebook(tmp_path, capsys):
    nb = toy_notebook(
        'import os, json\nprint("hello from the lab")',
        'json.dump({k: os.environ.get(k) for k in ("LAB_SETTINGS", "LAB_DEVICE", "LAB_CORPUS")} | '
        '{"cwd": os.getcwd()}, open(os.environ["LAB_RESULTS"], "w"))')
    paths = build.Destination(M3, "quick", str(tmp_path / "out"))
    out = build.execute(nb, paths, "quick", "cpu", tmp_path / "corpus.txt", cell_timeout=120)
    got = json.loads(out.read_text())
    assert got == {"LAB_SETTINGS": "quick", "LAB_DEVICE": "cpu", "LAB_CORPUS": str(tmp_path / "corpus.txt"),
                   "cwd": str(paths.work)}
    assert "  | hello from the lab" in capsys.readouterr().out
    assert (paths.work / "executed.ipynb").exists()


def test_failing_cell_is_named_with_its_source_and_error(tmp_path):
    import nbformat

    nb = toy_notebook("x = 1", "def f():\n    raise ValueError('the checkpoint failed')\nf()", "print('never')")
    paths = build.Destination(M3, "quick", str(tmp_path / "out"))
    with pytest.raises(build.BuildError) as e:
        build.execute(nb, paths, "quick", "cpu", tmp_path / "corpus.txt", cell_timeout=120)
    msg = str(e.value)
    assert "code cell 2 of 3 (notebook cell index 2)" in msg
    assert "| def f():" in msg and "ValueError: the checkpoint failed" in msg
    assert "\x1b[" not in msg                                  # no terminal colors
    executed = nbformat.read(paths.work / "executed.ipynb", 4)
    assert executed.cells[2].outputs[-1]["ename"] == "ValueError"
    assert str(paths.work / "executed.ipynb") in msg


def test_second_concurrent_build_is_refused(built, capsys):
    out, lab = built
    held = build.acquire_lock(build.Destination(M3, "full", str(out)))
    try:
        assert build.main(["--settings", "full", "--out", str(out), "--from-results", str(lab)]) == 2
        assert "another build is running" in capsys.readouterr().out
    finally:
        held.close()
    assert build.main(["--settings", "full", "--out", str(out), "--from-results", str(lab)]) == 0


# --------------------------------------------------------------------------------------------
# the build: only results of the settings it asked for
# --------------------------------------------------------------------------------------------
def lab_results(settings: str) -> dict:
    """What the lab's last cell writes, from the fixture, with an LSTM curve that satisfies the claims (one
    definition: tests/support.py's)."""
    return fake_lab_results(M3, settings)


@pytest.mark.parametrize("ran_with", ["full", "quick"])
def test_build_refuses_lab_results_of_other_settings(tmp_path, capsys, ran_with):
    lab_json, out = tmp_path / "lab.json", tmp_path / "out"
    lab_json.write_text(json.dumps(lab_results(ran_with)), encoding="utf-8")
    status = build.main(["--settings", "full", "--out", str(out), "--from-results", str(lab_json)])
    written = out / "data" / M3.id / "results.json"
    if ran_with == "full":                                # the control: the same results are accepted
        assert status == 0 and results.load_results(M3, written)["provenance"]["settings"] == "full"
    else:
        assert status == 1 and not written.exists()
        assert "settings 'quick'" in capsys.readouterr().out


@pytest.mark.parametrize("change, problem", [
    (lambda run: run.pop("torch"), "'torch' is a required property"),
    (lambda run: run.update(device_type="tpu"), "at device_type: 'tpu' is not one of"),
    (lambda run: run.update(module="Module three"), "at module: 'Module three' does not match"),
])
def test_build_refuses_a_lab_run_the_lab_run_schema_refuses(tmp_path, capsys, change, problem):
    """The lab's own record of its run is checked against schemas/lab-run.schema.json, the schema a module page
    checks a student's file with: one definition of what a lab saves."""
    lab = lab_results("full")
    change(lab["lab_run"])
    lab_json, out = tmp_path / "lab.json", tmp_path / "out"
    lab_json.write_text(json.dumps(lab), encoding="utf-8")
    assert build.main(["--settings", "full", "--out", str(out), "--from-results", str(lab_json)]) == 1
    said = capsys.readouterr().out
    assert "lab_run does not match schemas/lab-run.schema.json" in said and problem in said, said
    assert not (out / "data" / M3.id / "results.json").exists()


# --------------------------------------------------------------------------------------------
# refusals and interruptions: Ctrl-C leaves the previous results and no kernel; a wrong corpus is
# refused before a kernel starts, with advice for the build
# --------------------------------------------------------------------------------------------
INTERRUPTED = "build interrupted; the previous data/ and figures/ are unchanged"


def kernels_of(pid: int) -> list[int]:
    """Process ids of the IPython kernels started by process `pid` (children, read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        ppid = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("PPid:"))
        if ppid == pid and "ipykernel" in cmdline:
            found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = next(line for line in Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith("State:"))
    except (OSError, StopIteration):
        return False
    return " Z " not in state + " "          # a zombie is not running


def test_wrong_corpus_is_refused_before_a_kernel_starts(tmp_path, monkeypatch, capsys):
    wrong = tmp_path / "tinyshakespeare.txt"
    wrong.write_text("To be, or not to be\n")
    monkeypatch.setattr(build, "execute", lambda *a, **k: pytest.fail("a kernel was started"))
    code = build.main(["--settings", "quick", "--out", str(tmp_path / "out"), "--corpus", str(wrong)])
    out = capsys.readouterr().out
    assert code == 2
    assert f"refusing: {wrong} is not the corpus the lab was written for" in out
    assert lab_source.lab_constant("CORPUS_SHA256", M3) in out and "--corpus PATH or set LAB_CORPUS" in out
    assert "never downloads or replaces" in out and "Delete it" not in out   # not the notebook's advice


def test_missing_corpus_is_refused_before_a_kernel_starts(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(build, "execute", lambda *a, **k: pytest.fail("a kernel was started"))
    code = build.main(["--settings", "quick", "--out", str(tmp_path / "out"), "--corpus", str(tmp_path / "none.txt")])
    assert code == 2 and "refusing: corpus not found" in capsys.readouterr().out


@pytest.mark.slow
def test_ctrl_c_during_the_lab_prints_one_line_exits_130_and_leaves_no_kernel(tmp_path, corpus_path):
    corpus = corpus_path
    out = tmp_path / "out"
    previous = {out / "data" / M3.id / "results.json": b"{}\n", out / "figures" / M3.id / "gradient-by-distance.svg": b"<svg/>"}
    for path, content in previous.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    proc = subprocess.Popen([sys.executable, "-m", "scripts.measure.build", "--settings", "quick", "--device", "cpu",
                             "--out", str(out), "--corpus", str(corpus)], cwd=paths.ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=dict(os.environ, OMP_NUM_THREADS="1"))
    lines = []
    kernels: list[int] = []
    deadline = time.monotonic() + 120
    for line in proc.stdout:                      # wait until the lab is running in a kernel
        lines.append(line.rstrip("\n"))
        kernels = kernels or kernels_of(proc.pid)
        if line.startswith("  | ") and kernels or time.monotonic() > deadline:
            break
    assert kernels, "no kernel was seen:\n" + "\n".join(lines)
    proc.send_signal(signal.SIGINT)
    rest, _ = proc.communicate(timeout=60)
    printed = [ln for ln in rest.splitlines() if ln.strip()]
    assert proc.returncode == 130, "\n".join(lines + printed)
    assert printed[-1] == INTERRUPTED and "Traceback" not in rest, rest
    assert not [ln for ln in printed if not ln.startswith("  | ") and not ln.startswith("  [lab]")][:-1], rest
    for _ in range(50):
        if not any(alive(pid) for pid in kernels):
            break
        time.sleep(0.1)
    assert not any(alive(pid) for pid in kernels), f"kernel {kernels} still running"
    for path, content in previous.items():
        assert path.read_bytes() == content
