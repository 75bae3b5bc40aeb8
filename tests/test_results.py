"""scripts/files.py and scripts/measure/results.py: the details mutation testing found unchecked (make
mutation; tests/mutation-survivors.md lists what is left and why).  Expected values written out."""
from __future__ import annotations

import json
import os
import stat

import pytest

from scripts import course, files, paths

from scripts.measure import results
from tests.support import fake_lab_results, fixture

# the module whose real lab and data these tests build with (its fake lab results are its own shape)
M3 = course.module("03-sequence-models")

SHA = "0123456789abcdef" * 4


def test_dumps_is_the_one_stable_serialization():
    assert results.dumps({"a": [1, "θ"], "b": 0.5}) == '{\n "a": [\n  1,\n  "θ"\n ],\n "b": 0.5\n}\n'
    with pytest.raises(ValueError):
        results.dumps({"loss": float("nan")})                  # the lab must write null instead


def test_staleness_defaults_to_full_settings_and_names_a_missing_file(tmp_path):
    d = fixture(M3)
    d["provenance"].update(lab_source_sha256=SHA, settings="full")
    path = tmp_path / "results.json"
    path.write_text(json.dumps(d), encoding="utf-8")
    assert results.staleness(M3, path, figures_dir=None, current_sha256=SHA).state == "fresh"
    missing = results.staleness(M3, tmp_path / "none.json", "full", None, current_sha256=SHA)
    assert missing.state == "missing" and missing.message.endswith("none.json does not exist")


def test_temp_file_is_hidden_beside_its_target_and_readable(tmp_path, monkeypatch):
    target = tmp_path / "new" / "deeper" / "a.json"          # parents are made
    seen, real = [], files._replace
    monkeypatch.setattr(files, "_replace", lambda src, dst: seen.append(src) or real(src, dst))
    files.atomic_write({target: "x"})
    (tmp,) = seen
    # same folder (so the rename is atomic), a hidden name that says what it was for
    assert tmp.parent == target.parent and tmp.name.startswith(".a.json.") and tmp.name.endswith(".tmp")
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o644 and target.read_text() == "x"


def test_backup_is_copied_where_hard_links_fail(tmp_path, monkeypatch):
    a = tmp_path / "a.txt"
    a.write_text("old")

    def no_links(src, dst):
        raise OSError("no hard links on this filesystem")

    monkeypatch.setattr(os, "link", no_links)
    files.atomic_write({a: "new"})
    assert a.read_text() == "new" and sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_a_failure_while_backing_up_is_reported_as_itself(tmp_path, monkeypatch):
    a = tmp_path / "a.txt"
    a.write_text("old")

    def broken(targets):
        raise OSError("disk full")

    monkeypatch.setattr(files, "_back_up", broken)
    with pytest.raises(OSError, match="disk full"):
        files.atomic_write({a: "new"})
    assert a.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def results_file(tmp_path, settings="full"):
    d = fixture(M3)
    d["provenance"].update(lab_source_sha256=SHA, settings=settings)
    path = tmp_path / "results.json"
    path.write_text(json.dumps(d), encoding="utf-8")
    return path


def test_every_state_reports_both_hashes_and_what_it_means(tmp_path):
    path, figures = results_file(tmp_path), tmp_path / "figures"
    figures.mkdir()
    (figures / M3.code.plots.FIGURE_NAMES[0]).write_text("<svg/>")
    s = results.staleness(M3, path, "full", figures, current_sha256=SHA)
    assert (s.state, s.recorded_sha256, s.current_sha256) == ("figures", SHA, SHA)
    assert s.message.endswith("is up to date but figures are missing: " + ", ".join(M3.code.plots.FIGURE_NAMES[1:]))
    for name in M3.code.plots.FIGURE_NAMES[1:]:
        (figures / name).write_text("<svg/>")
    s = results.staleness(M3, path, "full", figures, current_sha256=SHA)
    assert (s.state, s.recorded_sha256, s.current_sha256) == ("fresh", SHA, SHA)
    assert s.message.endswith("is up to date (lab source sha256 0123456789ab..., settings full)")
    s = results.staleness(M3, results_file(tmp_path, "quick"), "full", None, current_sha256=SHA)
    assert (s.state, s.recorded_sha256, s.current_sha256) == ("settings", SHA, SHA)
    assert s.message.endswith("was measured with settings 'quick', not 'full'")
    s = results.staleness(M3, tmp_path / "none.json", "full", None, current_sha256=SHA)
    assert (s.recorded_sha256, s.current_sha256) == (None, SHA)


def test_schema_messages_name_the_place_and_stay_short(tmp_path):
    with pytest.raises(results.ResultsError, match=r"at \(top level\): \[\] is not of type 'object'"):
        results.validate(M3, [])
    d = fixture(M3)
    # "'" + s + "' is not of type 'number'" is len(s) + 26 characters: 200 is kept whole, 201 is cut
    for length, shown in ((174, "'" + "9" * 174 + "' is not of type 'number'"),
                          (175, ("'" + "9" * 175 + "' is not of type 'number'")[:200] + "...")):
        d["models"]["lstm"]["test_nats"] = "9" * length
        assert results.schema_errors(M3, d) == [f"at models/lstm/test_nats: {shown}"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(d), encoding="utf-8")
    with pytest.raises(results.ResultsError, match=f"^{path} does not match"):
        results.load_results(M3, path)
    with pytest.raises(results.ResultsError, match="none.json does not exist: run `python -m scripts.measure.build"):
        results.load_results(M3, tmp_path / "none.json")


# --- issue 17: the gaps a hand-made round of mutants found ---------------------------------------------

def test_write_if_changed_never_leaves_a_half_written_file(tmp_path, monkeypatch):
    """Interrupted while writing (here: text that cannot be encoded, the error halfway through the write) or
    just before the rename: the committed page file keeps its old content, byte for byte, and no temp is left.
    Writing in place (open(path, 'w')) would have emptied it."""
    target = tmp_path / "_metadata.yml"
    target.write_text("old: 1\n", encoding="utf-8")
    with pytest.raises(UnicodeEncodeError):
        files.write_if_changed(target, "new: 2\n" * 1000 + "\ud800")        # a lone surrogate: unencodable
    assert target.read_bytes() == b"old: 1\n" and sorted(p.name for p in tmp_path.iterdir()) == ["_metadata.yml"]

    def interrupted(src, dst):
        raise KeyboardInterrupt
    monkeypatch.setattr(files, "_replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        files.write_if_changed(target, "new: 2\n")
    assert target.read_bytes() == b"old: 1\n" and sorted(p.name for p in tmp_path.iterdir()) == ["_metadata.yml"]
    monkeypatch.undo()
    assert files.write_if_changed(target, "new: 2\n") is True and target.read_text() == "new: 2\n"
    assert files.write_if_changed(target, "new: 2\n") is False


def test_a_nan_is_refused_naming_where_it_is(tmp_path):
    d = fixture(M3)
    d["gradient_by_distance"]["rnn_grad_norm"][3] = float("nan")
    d["clipping_demo"]["clipped"]["final_loss"] = float("inf")
    p = tmp_path / "results.json"
    p.write_text(json.dumps(d), encoding="utf-8")                 # json writes NaN and Infinity
    with pytest.raises(results.ResultsError) as err:
        results.load_results(M3, p)
    assert str(err.value).endswith("is not valid JSON: non-finite number at gradient_by_distance/rnn_grad_norm/3 "
                                   "and 1 more (the lab must write null)")
    assert results.non_finite({"a": [1.0, {"b": float("-inf")}], "c": None, "d": "NaN"}) == ["a/1/b"]
    assert results.non_finite(float("nan")) == ["(top level)"]


def test_messages_name_project_files_relative_to_the_project(tmp_path, monkeypatch):
    inside = paths.ROOT / "data" / "no-such-results.json"
    with pytest.raises(results.ResultsError, match=r"^data/no-such-results\.json does not exist: run"):
        results.load_results(M3, inside)
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version": 1}', encoding="utf-8")
    schema = M3.schema                                             # the module's schema, read before ROOT moves
    monkeypatch.setattr(type(M3), "schema", property(lambda self: schema))
    monkeypatch.setattr(paths, "ROOT", tmp_path)                   # a file inside the project: shown relative
    with pytest.raises(results.ResultsError, match=r"^bad\.json does not match ") as err:
        results.load_results(M3, bad)
    assert str(tmp_path) not in str(err.value)


# --------------------------------------------------------------------------------------------
# results files: staleness
# --------------------------------------------------------------------------------------------


def results_file_with_sha(tmp_path, sha: str, settings: str = "full"):
    d = fixture(M3)
    d["provenance"].update(lab_source_sha256=sha, settings=settings)
    path = tmp_path / "results.json"
    path.write_text(json.dumps(d), encoding="utf-8")
    return path


SHA = "0123456789abcdef" * 4


@pytest.mark.parametrize("content", [
    b"",                                                  # empty
    b'{"schema_version": 1, "provenance": {',             # cut off half-way through a write
    b"\xff\xfe not text",                                 # not UTF-8
    b"[]",                                                # JSON, but not a results file
])
def test_unreadable_results_are_never_up_to_date(tmp_path, content):
    path = tmp_path / "results.json"
    path.write_bytes(content)
    s = results.staleness(M3, path, "full", None, current_sha256=SHA)
    assert (s.state, s.fresh) == ("invalid", False)


def test_staleness_compares_the_whole_hash(tmp_path):
    assert results.staleness(M3, results_file_with_sha(tmp_path, SHA), "full", None, current_sha256=SHA).fresh
    for changed in (SHA[:-1] + "0",                        # differs in the last hex digit only
                    "f" + SHA[1:]):                        # ... or in the first only
        s = results.staleness(M3, results_file_with_sha(tmp_path, SHA), "full", None, current_sha256=changed)
        assert (s.state, s.fresh) == ("stale", False), changed


def test_results_of_other_settings_are_not_up_to_date(tmp_path):
    path = results_file_with_sha(tmp_path, SHA, settings="quick")
    s = results.staleness(M3, path, "full", None, current_sha256=SHA)
    assert (s.state, s.fresh) == ("settings", False)
    assert results.staleness(M3, path, "quick", None, current_sha256=SHA).fresh


# --------------------------------------------------------------------------------------------
# files: a successful write leaves only the targets
# --------------------------------------------------------------------------------------------
def test_successful_overwrite_leaves_no_backup_or_temp_file(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "figs" / "b.svg"
    b.parent.mkdir()
    a.write_text("old a")
    b.write_bytes(b"old b")
    files.atomic_write({a: "new a", b: b"new b"})
    assert a.read_text() == "new a" and b.read_bytes() == b"new b"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a.json", "b.svg", "figs"]
    assert files.write_if_changed(a, "newer a") is True
    assert files.write_if_changed(a, "newer a") is False
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a.json", "b.svg", "figs"]


# --------------------------------------------------------------------------------------------
# schema
# --------------------------------------------------------------------------------------------
def test_fixture_matches_schema():
    results.validate(M3, fixture(M3))


def test_broken_copy_is_rejected_with_clear_message(tmp_path):
    d = fixture(M3)
    d["models"]["lstm"]["test_nats"] = "1.6"
    del d["provenance"]["lab_source_sha256"]
    with pytest.raises(results.ResultsError) as e:
        results.validate(M3, d)
    msg = str(e.value)
    assert "models/lstm/test_nats" in msg and "'1.6' is not of type 'number'" in msg
    assert "lab_source_sha256" in msg and "2 problems" in msg
    p = tmp_path / "b.json"
    p.write_text(json.dumps(d))
    with pytest.raises(results.ResultsError, match="does not match"):
        results.load_results(M3, p)


def test_non_finite_numbers_are_rejected(tmp_path):
    p = tmp_path / "nan.json"
    p.write_text(M3.fixture.read_text().replace('"final_loss": 9.34', '"final_loss": NaN'))
    with pytest.raises(results.ResultsError, match="non-finite"):
        results.load_results(M3, p)
    assert results.finite_or_none({"a": [1.0, float("nan"), float("inf")]}) == {"a": [1.0, None, None]}


def test_staleness_checks_the_modules_own_figures_by_default(tmp_path, monkeypatch):
    """No figures_dir given: the module's figures/<id>/ is the one checked (None skips the check)."""
    data = results_file(tmp_path)
    sha = results.load_results(M3, data)["provenance"]["lab_source_sha256"]
    empty = tmp_path / "no-figures"
    empty.mkdir()
    monkeypatch.setattr(type(M3), "figures_dir", property(lambda self: empty))
    s = results.staleness(M3, data, current_sha256=sha)
    assert s.state == "figures" and all(n in s.message for n in M3.code.plots.FIGURE_NAMES)
    assert results.staleness(M3, data, figures_dir=None, current_sha256=sha).fresh
    for name in M3.code.plots.FIGURE_NAMES:
        (empty / name).write_text("<svg/>", encoding="utf-8")
    assert results.staleness(M3, data, current_sha256=sha).fresh


# --------------------------------------------------------------------------------------------
# one provenance schema
# --------------------------------------------------------------------------------------------
def test_every_modules_schema_refers_to_the_one_provenance_schema():
    """Module schemas (each module's and the template's) take provenance by $ref, and define none of their own."""
    shared = json.loads(results.PROVENANCE_SCHEMA.read_text(encoding="utf-8"))
    template = paths.ROOT / "scripts" / "module_template" / "data" / "results.schema.json"
    schemas = [m.schema for m in course.modules()] + [template]
    for path in schemas:
        schema = json.loads(path.read_text(encoding="utf-8"))
        prov = schema["properties"]["provenance"]
        assert prov["$ref"] == shared["$id"], path
        # a module may only narrow it: require an optional entry, hold one to its own shapes (Module 3's weights)
        assert set(prov) <= {"$ref", "description", "required", "properties"}, path
        assert set(prov.get("properties", {})) <= set(shared["properties"]), path
        assert set(prov.get("required", [])) <= set(shared["properties"]), path
        assert "provenance" in schema["required"], path
        assert '"pattern": "^[0-9a-f]{64}$"' not in path.read_text(encoding="utf-8"), f"{path}: a hash typed again"


def test_the_build_writes_exactly_the_provenance_schema():
    from scripts.measure import build

    shared = json.loads(results.PROVENANCE_SCHEMA.read_text(encoding="utf-8"))
    prov = build.assemble(M3, fake_lab_results(M3), "0" * 64, "1" * 64, "2026-12-04T00:00:00Z", {"total": 1.0})["provenance"]
    # every required entry, and nothing the schema does not name (the optional ones come when there is something
    # to record: a module's exported weights)
    assert set(shared["required"]) <= set(prov) <= set(shared["properties"])


@pytest.mark.parametrize("change, problem", [
    ({"extra": 1}, "Additional properties are not allowed ('extra' was unexpected)"),
    ({"corpus_sha256": "abc"}, "at provenance/corpus_sha256: 'abc' does not match"),
    ({"device_type": "tpu"}, "at provenance/device_type: 'tpu' is not one of"),
])
def test_a_provenance_the_build_would_not_write_is_refused(change, problem):
    d = fixture(M3)
    d["provenance"].update(change)
    assert any(problem in line for line in results.schema_errors(M3, d)), results.schema_errors(M3, d)


def test_a_lab_that_reads_no_corpus_records_null():
    d = fixture(M3)
    d["provenance"]["corpus_sha256"] = None
    assert results.schema_errors(M3, d) == []
