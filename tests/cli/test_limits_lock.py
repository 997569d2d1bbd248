"""The lock pins content, a bad lockfile is named by field, one failing check never sinks the rest.

Issue 16, parts 3 and 4: a hand-edited counterexample file is drift (naming the file and both
hashes) even when it still refutes; ``verify lock`` accepts the new content; a lock of the
old schema asks to re-lock; a check that raises in ``check``, ``report`` or ``lock`` becomes
one error row (claim, part, reading, exception) while every other row is complete, exit 2.
"""

import copy
import hashlib
import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from verifier import limits

from .lock_project import CHECKS, lock_doc, locked_template, project, run, run_everything  # noqa: F401  (fixtures)

REVIEWER = "counterexamples/alman-song-2025/4.1/reviewer.json"


def sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def entry_of(doc, claim, part, reading):
    (e,) = [e for e in doc["checks"] if (e["claim"], e["part"], e["reading"]) == (claim, part, reading)]
    return e


# ------------------------------------------------------------------------------ content hashes
def test_lock_records_the_sha256_of_every_listed_file(project):
    doc = lock_doc(project)
    assert doc["schema_version"] == 3
    listed = [(e, f) for e in doc["checks"] for f in e.get("counterexamples", [])]
    assert listed
    for e, f in listed:
        assert e["sha256"][f] == sha(project / f)


def test_an_edited_note_that_still_refutes_is_drift_naming_file_and_hashes(project):
    path = project / REVIEWER
    locked = sha(path)
    doc = json.loads(path.read_text())
    doc["note"] = "edited by hand"
    path.write_text(json.dumps(doc, indent=2))
    r = run("check")
    assert r.exit_code == 1, r.stderr
    flat = " ".join(r.stderr.split())
    assert "edited since the lock" in flat and "reviewer.json" in flat
    assert locked in flat.replace(" ", "") and sha(path) in flat.replace(" ", "")


def test_an_edited_input_digit_is_drift_and_lock_accepts_the_new_content(project):
    path = project / REVIEWER
    doc = json.loads(path.read_text())
    doc["vars"]["A"] = [["2"], ["0"], ["-3"]]
    doc["vars"]["B"] = [["1"], ["1"], ["-3"]]
    path.write_text(json.dumps(doc, indent=2))
    r = run_everything("lock", "--budget", 1000, "--prove-time", 0, "--claim", "4.1")  # the file states the old point's values: the lock pins no such file
    assert r.exit_code == 2 and "reviewer.json" in r.stderr and "lhs stored 2, recomputed 1.5" in r.stderr, r.stderr
    doc.update(lhs="1.5", rhs="1", margin="-0.5")
    path.write_text(json.dumps(doc, indent=2))
    r = run("check", "--json")
    assert r.exit_code == 1, r.stderr  # still refutes (lhs 3/2 > 1), but it is not the file that was locked
    rows = {(o["claim"], o["part"], o["reading"]): o for o in json.loads(r.stdout)}
    assert "edited since the lock" in rows["4.1", "main", "as-printed"]["change"]
    assert run("lock", "--budget", 1000).exit_code == 0
    assert entry_of(lock_doc(project), "4.1", "main", "as-printed")["sha256"][REVIEWER] == sha(path)
    assert run("check").exit_code == 0


def test_a_lock_of_the_old_schema_asks_to_relock(project):
    doc = lock_doc(project)
    doc["schema_version"] = 1
    for e in doc["checks"]:
        e.pop("sha256", None)
    (project / "claims.lock").write_text(json.dumps(doc))
    r = run("check")
    assert r.exit_code == 2 and "schema_version" in r.stderr and "verify lock" in r.stderr and "sha256" in r.stderr


# ------------------------------------------------------------------------------ mutated lockfiles
_LOCK_EDITS = {
    "search.seed": st.one_of(st.integers(max_value=-1), st.just(2**64), st.text(max_size=3)),
    "search.budget": st.one_of(st.integers(max_value=0), st.just(10**16), st.floats(allow_nan=True)),
    "search.dps": st.one_of(st.integers(max_value=14), st.integers(min_value=limits.MAX_DPS + 1), st.just(10**4000)),
    "search.time_limit": st.one_of(st.sampled_from([0, -1, 1e999, 10**7, "30"]), st.none()),
    "sha256": st.one_of(st.text(max_size=70), st.just("A" * 64), st.none(), st.integers()),
}


def _mutate(doc, where, value):
    if where == "sha256":
        e = next(e for e in doc["checks"] if e.get("counterexamples"))
        e["sha256"][e["counterexamples"][0]] = value
        return "sha256"
    section, key = where.split(".")
    doc[section][key] = value
    return where


@settings(max_examples=30, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.sampled_from(sorted(_LOCK_EDITS)), data=st.data())
def test_a_mutated_lockfile_is_refused_by_field_before_any_work(project, where, data):
    original = (project / "claims.lock").read_text()
    try:
        doc = json.loads(original)
        field = _mutate(doc, where, data.draw(_LOCK_EDITS[where]))
        (project / "claims.lock").write_text(json.dumps(doc))
        r = run("check")
        assert r.exit_code == 2, r.stderr
        assert "claims.lock" in r.stderr and field in r.stderr and "Traceback" not in r.stderr
    finally:
        (project / "claims.lock").write_text(original)


# ------------------------------------------------------------------------------ one failing check
def _explode_on_4_1(monkeypatch):
    """A replay and a search that raise for claim 4.1 only (whatever the cause, the rest must survive).
    Patched in this process before the command starts its workers, which inherit the patch by fork."""
    import verifier.tasks as tasks

    real_replay, real_search = tasks.replay_file, tasks.run_check

    def replay(path, find_claim, dps=None):
        if "/4.1/" in str(path):
            raise RuntimeError("boom in replay")
        return real_replay(path, find_claim, dps)

    def run_check(check, config, progress=None, runner=None):
        if check.claim.id == "4.1":
            raise RuntimeError("boom in search")
        return real_search(check, config, progress, runner)

    monkeypatch.setattr(tasks, "replay_file", replay)
    monkeypatch.setattr(tasks, "run_check", run_check)


def test_check_keeps_every_other_row_when_one_claim_raises(project, monkeypatch):
    _explode_on_4_1(monkeypatch)
    r = run("check", "--json", "--jobs", 1)
    assert r.exit_code == 2 and "Traceback" not in r.stderr
    rows = json.loads(r.stdout)
    assert [(o["claim"], o["part"], o["reading"]) for o in rows] == CHECKS
    broken = [o for o in rows if o["claim"] == "4.1"]
    assert broken and all(o["now"] == "error" and "RuntimeError: boom in" in o["detail"] for o in broken)
    assert all(o["status"] == "match" for o in rows if o["claim"] != "4.1")
    assert "drift: 4.1 part main [as-printed]" in r.stderr and "boom in replay" in r.stderr


def test_report_keeps_every_other_row_when_one_claim_raises(project, monkeypatch):
    _explode_on_4_1(monkeypatch)
    r = run("report", "--format", "markdown", "--jobs", 1)
    assert r.exit_code == 2 and "Traceback" not in r.stderr
    assert "Lemma B.2" in r.stdout and "Fact 3.3" in r.stdout
    assert "boom in replay" in r.stderr


def test_lock_shows_every_row_and_refuses_to_write_when_one_claim_raises(project, monkeypatch):
    before = (project / "claims.lock").read_bytes()
    _explode_on_4_1(monkeypatch)
    r = run("lock", "--budget", 1000, "--jobs", 1)
    assert r.exit_code == 2 and "Traceback" not in r.stderr
    assert "not writing" in r.stderr and "4.1 part main [as-printed]" in r.stderr and "boom in replay" in r.stderr
    flat = " ".join(r.stderr.split())
    assert "B.2" in flat and "3.3" in flat  # the other rows are shown
    assert (project / "claims.lock").read_bytes() == before


def test_a_corrupt_file_is_one_error_row_naming_file_and_field(project):
    doc = json.loads((project / REVIEWER).read_text())
    bad = copy.deepcopy(doc)
    bad["vars"]["eps"] = "1" * 100_000
    (project / REVIEWER).write_text(json.dumps(bad))
    r = run("check", "--json")
    assert r.exit_code == 2
    rows = json.loads(r.stdout)
    (row,) = [o for o in rows if o["now"] == "error"]
    assert row["claim"] == "4.1" and "reviewer.json" in row["detail"] and "vars.eps" in row["detail"]
    assert len(rows) == len(CHECKS)


def test_a_search_that_stops_at_its_counterexample_is_not_called_time_capped(project):
    """Issue 16 part 3: the note said "time cap reached" whenever fewer evaluations than the budget were spent."""
    doc = lock_doc(project)
    e = entry_of(doc, "4.1", "main", "as-printed")
    e.update(counterexamples=[], method="exact")
    (project / "claims.lock").write_text(json.dumps(doc))
    r = run("check", "--json")
    rows = {(o["claim"], o["part"], o["reading"]): o for o in json.loads(r.stdout)}
    row = rows["4.1", "main", "as-printed"]
    assert row["now"] == "refuted" and row["search"]["evaluations"] < doc["search"]["budget"]
    assert "time cap" not in (row["detail"] or "") and "time cap" not in r.stderr
