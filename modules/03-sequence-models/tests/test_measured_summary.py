"""scripts/ci/measured_summary.py: the pull request's description of what the GPU measured."""
from __future__ import annotations

from scripts.ci import measured_summary
from tests.support import this_module

M3 = this_module(__file__)    # the module these tests belong to (their folder's)


def test_the_description_gives_provenance_summary_and_every_claim(capsys):
    assert measured_summary.main(["--module", M3.id, "--run-url", "https://example.org/runs/7"]) == 0
    out = capsys.readouterr().out
    data = __import__("json").loads(M3.results.read_text(encoding="utf-8"))
    assert "([run](https://example.org/runs/7))" in out and f"## {M3.id}" in out
    assert data["provenance"]["lab_source_sha256"][:12] in out
    assert f"Claims: {sum(c['holds'] for c in data['claims'])} of {len(data['claims'])} hold." in out
    for c in data["claims"]:
        assert f"| `{c['name']}` | {'yes' if c['holds'] else '**no**'} |" in out


def test_a_claim_that_fails_is_marked(monkeypatch):
    real = measured_summary.results.load_results

    def one_failing(m, path=None):
        d = real(m)
        d["claims"][0] = {**d["claims"][0], "holds": False, "detail": "a | b"}
        return d
    monkeypatch.setattr(measured_summary.results, "load_results", one_failing)
    section = "\n".join(measured_summary.module_section(M3))
    assert "| **no** | a / b |" in section
