"""The build's guards (issue 9, item 5): Ctrl-C leaves the previous results and no kernel; a wrong corpus is
refused before a kernel starts, with advice for the build."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from scripts import build, lab_source, paths
from tests.support import M3

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
def test_ctrl_c_during_the_lab_prints_one_line_exits_130_and_leaves_no_kernel(tmp_path):
    corpus = M3.corpus()
    if not corpus.is_file():
        pytest.skip(f"the corpus is not at {corpus}")
    out = tmp_path / "out"
    previous = {out / "data" / M3.id / "results.json": b"{}\n", out / "figures" / M3.id / "gradient-by-distance.svg": b"<svg/>"}
    for path, content in previous.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    proc = subprocess.Popen([sys.executable, "-m", "scripts.build", "--settings", "quick", "--device", "cpu",
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
