"""``verify lock`` and ``verify check``: match, drift, bad input, and nothing rewritten."""

import json
import xml.etree.ElementTree as ET

from lemmas import REGISTRY
from verifier.results import Verdict

from .lock_project import BUDGET, CHECKS, lock_doc, locked_template, project, run, run_everything, snapshot  # noqa: F401  (fixtures)

REVIEWER = "counterexamples/alman-song-2025/4.1/reviewer.json"


def edit_json(path, change):
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc, indent=2))


def entry(doc, claim, part, reading):
    return next(e for e in doc["checks"] if (e["claim"], e["part"], e["reading"]) == (claim, part, reading))


# ------------------------------------------------------------------------------ lock
def test_lock_lists_every_check_with_the_search_it_used(project):
    doc = lock_doc(project)
    assert doc["search"]["budget"] == BUDGET and doc["search"]["seed"] == 0
    assert [(e["claim"], e["part"], e["reading"]) for e in doc["checks"]] == CHECKS
    for e in doc["checks"]:
        assert e["verdict"] in {v.value for v in Verdict}
        for f in e.get("counterexamples", []):
            assert (project / f).is_file(), f
    e = entry(doc, "4.1", "main", "as-printed")
    assert e["verdict"] == "refuted" and REVIEWER in e["counterexamples"]


def test_lock_from_an_empty_store_finds_and_saves_the_counterexamples(tmp_path, monkeypatch):
    """No stored evidence: the fixed-seed search itself must find every refutation it locks."""
    monkeypatch.chdir(tmp_path)
    r = run("lock", "--budget", 5000)
    assert r.exit_code == 0, r.stderr
    doc = lock_doc(tmp_path)
    refuted = {(e["claim"], e["part"], e["reading"]) for e in doc["checks"] if e["verdict"] == "refuted"}
    assert ("4.1", "main", "as-printed") in refuted
    saved = sorted(p.relative_to(tmp_path).as_posix() for p in (tmp_path / "counterexamples").rglob("*.json"))
    listed = sorted(f for e in doc["checks"] for f in e.get("counterexamples", []))
    assert saved == listed and len(saved) == len(refuted)
    for f in saved:
        assert run("replay", f).exit_code == 1  # each one certifies on its own
    assert run("check").exit_code == 0


def test_lock_is_reproducible(project):
    first = (project / "claims.lock").read_text()
    r = run("lock", "--budget", BUDGET)
    assert r.exit_code == 0, r.stderr
    assert (project / "claims.lock").read_text() == first


# ------------------------------------------------------------------------------ check
def test_check_matches_the_lock(project):
    r = run("check")
    assert r.exit_code == 0, r.stderr
    assert r.stdout == ""
    assert f"{len(CHECKS)} checks: {len(CHECKS)} match the lock, 0 drifted" in " ".join(r.stderr.split())


def test_check_json_is_one_object_per_check(project):
    r = run("check", "--json")
    assert r.exit_code == 0, r.stderr
    items = json.loads(r.stdout)
    assert [(i["claim"], i["part"], i["reading"]) for i in items] == CHECKS
    assert {i["status"] for i in items} == {"match"}
    replayed = [i for i in items if i["counterexamples"]]
    searched = [i for i in items if i["search"]]
    assert replayed and searched and len(replayed) + len(searched) == len(items)
    assert all(c["still_refutes"] for i in replayed for c in i["counterexamples"])
    assert all(i["search"]["seed"] == 0 and i["search"]["evaluations"] >= BUDGET for i in searched)


def test_hand_edited_counterexample_is_drift_naming_the_file(project):
    edit_json(project / REVIEWER, lambda d: d["vars"].update(B=[["2"], ["0"], ["-2"]]))  # B = A
    r = run("check")
    assert r.exit_code == 1
    text = " ".join(r.stderr.split())
    assert "stored counterexample no longer refutes" in text and "reviewer.json" in text
    items = json.loads(run("check", "--json").stdout)
    drift = [i for i in items if i["status"] == "drift"]
    assert [(i["claim"], i["part"]) for i in drift] == [("4.1", "main")]
    assert [c["still_refutes"] for c in drift[0]["counterexamples"]] == [True, False]


def test_surviving_claim_now_refuted_is_drift(project):
    """A lock that says 4.1 survives: the locked search finds the counterexample afresh.

    The files the lock listed go too (a file left in the store unlisted is drift of its own:
    test_check_hostile.py)."""
    for f in entry(lock_doc(project), "4.1", "main", "as-printed")["counterexamples"]:
        (project / f).unlink()
    edit_json(project / "claims.lock", lambda d: entry(d, "4.1", "main", "as-printed").update(verdict="survived", counterexamples=[], method="none"))
    r = run("check", "--json")
    assert r.exit_code == 1
    item = next(i for i in json.loads(r.stdout) if i["claim"] == "4.1")
    assert item["change"] == "surviving claim now refuted" and item["now"] == "refuted"
    assert item["search"]["certified"] and item["search"]["counterexample"]["margin"].startswith("-")


def test_verdict_moved_and_registry_changes_are_drift(project):
    def change(d):
        entry(d, "B.2", "main", "as-printed")["verdict"] = "inconclusive"
        d["checks"].remove(entry(d, "3.3", "1", "as-printed"))
        d["checks"].append({"paper": "alman-song-2025", "claim": "9.9", "part": "main", "reading": "as-printed", "verdict": "survived"})

    edit_json(project / "claims.lock", change)
    r = run_everything("check", "--json")  # the whole registry: a claim gone from it is not selectable by id
    assert r.exit_code == 1
    items = {(i["claim"], i["part"], i["reading"]): i for i in json.loads(r.stdout)}
    assert items["B.2", "main", "as-printed"]["change"] == "verdict moved" and items["B.2", "main", "as-printed"]["now"] == "survived"
    assert items["3.3", "1", "as-printed"]["change"] == "not in the lock"
    assert items["9.9", "main", "as-printed"]["change"] == "in the lock, no longer in the registry"
    assert sum(items[k]["status"] == "drift" for k in CHECKS) == 2
    assert all(i["change"] == "not in the lock" for k, i in items.items() if k not in CHECKS and k[0] != "9.9")


def test_check_never_rewrites_anything(project):
    edit_json(project / REVIEWER, lambda d: d["vars"].update(B=[["2"], ["0"], ["-2"]]))
    before = snapshot(project)
    assert run("check").exit_code == 1
    assert run("check", "--json").exit_code == 1
    assert snapshot(project) == before


def test_junit_one_case_per_check(project):
    edit_json(project / REVIEWER, lambda d: d["vars"].update(B=[["2"], ["0"], ["-2"]]))
    r = run("check", "--junit", "out/junit.xml")
    assert r.exit_code == 1
    suite = ET.parse(project / "out" / "junit.xml").getroot().find("testsuite")
    cases = suite.findall("testcase")
    assert len(cases) == len(CHECKS) == int(suite.get("tests"))
    failed = [c for c in cases if c.find("failure") is not None]
    assert [c.get("name") for c in failed] == ["4.1 part main [as-printed]"] and suite.get("failures") == "1"
    assert "reviewer.json" in failed[0].find("failure").get("message")
    assert all(float(c.get("time")) >= 0 for c in cases)
    # a dot-free class per claim, and the claim's module with the line of the part
    assert failed[0].get("classname") == "alman-song-2025 4_1" and all("." not in c.get("classname") for c in cases)
    module = failed[0].get("file")  # relative to the working folder when inside it
    lines = open(module).read().splitlines()
    assert module.endswith("lemma_4_1.py") and "lhs=" in lines[int(failed[0].get("line")) - 1]


# ------------------------------------------------------------------------------ bad input
def test_missing_lock_says_how_to_make_one(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = run("check")
    assert r.exit_code == 2
    assert "claims.lock" in r.stderr and "verify lock" in r.stderr and "Traceback" not in r.stderr


def test_corrupt_lock_names_the_field(project):
    lock = project / "claims.lock"
    lock.write_text("{ not json")
    r = run("check")
    assert r.exit_code == 2 and "not valid JSON" in r.stderr and "verify lock" in r.stderr
    lock.write_text(json.dumps({"schema": "claim-verifier/lock", "schema_version": 7, "search": {}, "checks": []}))
    r = run("check")
    assert r.exit_code == 2 and "schema_version" in r.stderr
    lock.write_text(json.dumps({"schema": "claim-verifier/lock", "schema_version": 2, "search": {"seed": 0, "budget": 10, "dps": 50, "time_limit": 1},
                                "checks": [{"paper": "p", "claim": "4.1", "part": "main", "reading": "as-printed"}]}))
    r = run("check")
    assert r.exit_code == 2 and "checks[0].verdict" in r.stderr


def test_counterexample_with_wrong_schema_version_is_named(project):
    edit_json(project / REVIEWER, lambda d: d.update(schema_version=99))
    r = run("check")
    assert r.exit_code == 2
    assert "reviewer.json" in r.stderr and "schema_version" in r.stderr and "Traceback" not in r.stderr


def test_counterexample_with_a_missing_field_is_named(project):
    edit_json(project / REVIEWER, lambda d: d.pop("lhs"))
    r = run("check")
    assert r.exit_code == 2 and "reviewer.json" in r.stderr and "'lhs'" in r.stderr


def test_counterexample_listed_but_deleted_is_named(project):
    (project / REVIEWER).unlink()
    r = run("check")
    assert r.exit_code == 2 and "reviewer.json" in r.stderr and "no such file" in r.stderr


def test_counterexample_for_another_check_is_refused(project):
    edit_json(project / REVIEWER, lambda d: d.update(reading="intended"))
    r = run("check")
    assert r.exit_code == 2 and "reviewer.json" in r.stderr and "'reading'" in r.stderr


def test_save_stores_a_new_refutation_only_when_asked(project):
    edit_json(project / "claims.lock", lambda d: entry(d, "4.1", "main", "as-printed").update(verdict="survived", counterexamples=[], method="none"))
    folder = project / "counterexamples" / "alman-song-2025" / "4.1"

    def as_printed_files():
        return [f for f in folder.glob("*.json") if json.loads(f.read_text())["reading"] == "as-printed"]

    for f in as_printed_files():
        f.unlink()
    assert run("check").exit_code == 1
    assert as_printed_files() == []
    r = run("check", "--save")
    assert r.exit_code == 1 and "saved" in r.stderr
    saved = as_printed_files()
    assert len(saved) == 1
    assert run("replay", saved[0]).exit_code == 1


def test_every_registered_claim_is_locked_in_the_repository():
    """The committed claims.lock covers the registry (regenerate with `verify lock`)."""
    from verifier.lock import read
    from .lock_project import ROOT

    lock = read(ROOT / "claims.lock")
    assert [e.key for e in lock.entries] == [ch.key for c in REGISTRY for ch in c.checks()]


def test_lock_one_claim_keeps_the_other_entries(project):
    before = lock_doc(project)
    edit_json(project / REVIEWER, lambda d: d["vars"].update(B=[["2"], ["0"], ["-2"]]))
    r = run_everything("lock", "--budget", BUDGET, "--claim", "4.1")
    assert r.exit_code == 0, r.stderr
    after = lock_doc(project)
    assert [e for e in after["checks"] if e["claim"] != "4.1"] == [e for e in before["checks"] if e["claim"] != "4.1"]
    assert REVIEWER not in entry(after, "4.1", "main", "as-printed")["counterexamples"]
    r = run_everything("lock", "--budget", BUDGET + 1, "--claim", "4.1")
    assert r.exit_code == 2 and f"--budget {BUDGET}" in r.stderr


def test_parallel_searches_give_the_same_results(project):
    def strip(items):
        for i in items:
            i.pop("seconds")
            if i["search"]:
                i["search"].pop("seconds")
        return items

    one = strip(json.loads(run("check", "--json", "--jobs", 1).stdout))
    two = strip(json.loads(run("check", "--json", "--jobs", 2).stdout))
    assert one == two and any(i["search"] for i in one)


def test_lock_leaves_out_a_stored_file_that_no_longer_refutes(project):
    edit_json(project / REVIEWER, lambda d: d["vars"].update(B=[["2"], ["0"], ["-2"]]))
    r = run("lock", "--budget", BUDGET)
    assert r.exit_code == 0, r.stderr
    assert "no longer refutes" in r.stderr
    e = entry(lock_doc(project), "4.1", "main", "as-printed")
    assert e["verdict"] == "refuted" and e["counterexamples"] == ["counterexamples/alman-song-2025/4.1/main-as-printed-seed0.json"]
    assert run("check").exit_code == 0


def test_lock_refuses_a_corrupt_stored_file(project):
    before = (project / "claims.lock").read_text()
    edit_json(project / REVIEWER, lambda d: d.update(schema_version="one"))
    r = run("lock", "--budget", BUDGET)
    assert r.exit_code == 2 and "reviewer.json" in r.stderr and "schema_version" in r.stderr
    assert (project / "claims.lock").read_text() == before
