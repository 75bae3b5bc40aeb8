"""What the tests share of the claims as data (not tests themselves): the verdicts and sentences that the page
(_extensions/course/run-claims.js, npm's jsonata, through tests/js/run-claims-cli.mjs) and the build
(scripts/measure/claims.py, jsonata-python) give on one results file, and the check that they agree."""
from __future__ import annotations

import json
import subprocess

from scripts import course, paths
from scripts.measure import claims


def page_evaluation(module: course.Module, data: dict, tmp_path) -> list[dict]:
    results = tmp_path / "results.json"
    results.write_text(json.dumps(data), encoding="utf-8")
    out = subprocess.run(["node", "tests/js/run-claims-cli.mjs", str(module.dir / claims.CLAIMS_FILE), str(results)],
                         cwd=paths.ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def build_evaluation(module: course.Module, data: dict) -> list[dict]:
    """What the build says of claims.json's claims (scripts.measure.claims.evaluate, which counts one that cannot be
    computed as not holding)."""
    names = set(claims.data_claims(module))
    return [{"name": c["name"], "holds": c["holds"], "says": c["detail"]} for c in claims.evaluate(module, data)
            if c["name"] in names]


def agree(module: course.Module, data: dict, tmp_path) -> list[dict]:
    """The page's and the build's verdicts on `data`, which must be the same (and the same sentences, or both
    'could not be evaluated'); returns the build's, by claim."""
    page, build = page_evaluation(module, data, tmp_path), build_evaluation(module, data)
    assert [c["name"] for c in page] == list(claims.data_claims(module)), "the page evaluates claims.json, in its order"
    page.sort(key=lambda c: c["name"])
    build.sort(key=lambda c: c["name"])
    assert [c["name"] for c in page] == [c["name"] for c in build]
    for p, b in zip(page, build):
        assert p["holds"] == b["holds"], (p, b)
        if not b["says"].startswith("could not be evaluated"):
            assert p["says"] == b["says"], (p, b)
        else:
            assert p["says"].startswith("could not be evaluated"), (p, b)
    return build
