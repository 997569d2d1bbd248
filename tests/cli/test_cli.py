"""The command line through click's runner: exit codes, JSON, bad input."""

import json

from pathlib import Path

import pytest
from click.testing import CliRunner

from verifier.cli import main

ROOT = Path(__file__).resolve().parents[2]
REVIEWER = ROOT / "counterexamples" / "alman-song-2025" / "4.1" / "reviewer.json"
FIELDS = {"claim", "part", "reading", "verdict", "certified", "method", "counterexample", "best_margin", "evaluations", "seconds", "seed", "dps"}


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_lemma_4_1_refuted_exit_1_json():
    r = run("lemma", "4.1", "--reading", "as-printed", "--json", "--budget", "20000", "--seed", "3")
    assert r.exit_code == 1, r.stderr
    out = json.loads(r.stdout)
    assert isinstance(out, list) and len(out) == 1
    item = out[0]
    assert FIELDS <= set(item)
    assert item["claim"] == "4.1" and item["verdict"] == "refuted" and item["certified"] is True
    assert item["method"] == "exact" and item["seed"] == 3 and item["dps"] == 50
    cx = item["counterexample"]
    assert set(cx) >= {"vars", "lhs", "rhs", "margin"}
    assert all(isinstance(x, str) for row in cx["vars"]["A"] for x in row)


def test_surviving_claim_exits_0_with_best_margin():
    r = run("lemma", "B.2", "--json", "--budget", "5000")
    assert r.exit_code == 0, r.stderr
    item = json.loads(r.stdout)[0]
    assert item["verdict"] == "survived" and item["counterexample"] is None and item["certified"] is False
    assert item["method"] == "none" and item["best_margin"] is not None and item["evaluations"] >= 5000


def test_every_part_and_reading_is_an_object():
    r = run("lemma", "4.2", "--json", "--budget", "3000")
    items = json.loads(r.stdout)
    assert [(i["part"], i["reading"]) for i in items] == [("1", "intended"), ("2", "intended"), ("3", "intended"), ("4", "intended"), ("3", "as-printed")]
    assert r.exit_code == 1  # the strict as-printed part 3 is refuted
    r = run("lemma", "4.2", "--json", "--budget", "3000", "--reading", "intended")
    assert r.exit_code == 0


def test_human_output_goes_to_stderr():
    r = run("lemma", "lemma 4.1", "--budget", "20000")
    assert r.exit_code == 1
    assert r.stdout == ""
    assert "REFUTED" in r.stderr and "Res(A)" in r.stderr


def test_save_then_replay(tmp_path):
    r = run("lemma", "3.3", "--part", "2", "--save", "--store", str(tmp_path), "--budget", "20000")
    assert r.exit_code == 1
    files = list(tmp_path.rglob("*.json"))
    assert len(files) == 1
    r = run("replay", str(files[0]), "--json")
    assert r.exit_code == 1
    assert json.loads(r.stdout)["still_refutes"] is True


def test_replay_reviewer_case():
    r = run("replay", str(REVIEWER), "--json")
    assert r.exit_code == 1
    out = json.loads(r.stdout)
    assert (out["lhs"], out["rhs"], out["margin"]) == ("2", "1", "-1")
    assert out["method"] == "exact"


def test_edited_counterexample_no_longer_refutes(tmp_path):
    doc = json.loads(REVIEWER.read_text())
    doc["vars"]["B"] = [["2"], ["0"], ["-2"]]  # B = A: nothing to see
    p = tmp_path / "edited.json"
    p.write_text(json.dumps(doc))
    r = run("replay", str(p))
    assert r.exit_code == 0
    assert "NO LONGER REFUTES" in r.stderr


def test_unknown_id_suggests_closest():
    r = run("lemma", "4.7")
    assert r.exit_code == 2
    assert "unknown claim id '4.7'" in r.stderr and "4.1" in r.stderr
    assert "Traceback" not in r.stderr + r.stdout


@pytest.mark.parametrize(
    "content, fragment",
    [
        ("{oops", "not valid JSON"),
        ('{"schema": "claim-verifier/counterexample"}', "schema_version"),
    ],
)
def test_malformed_file_exit_2_names_file_and_field(tmp_path, content, fragment):
    p = tmp_path / "bad.json"
    p.write_text(content)
    r = run("replay", str(p))
    assert r.exit_code == 2
    assert "bad.json" in r.stderr and fragment in r.stderr
    assert "Traceback" not in r.stderr


def test_non_finite_number_rejected(tmp_path):
    doc = json.loads(REVIEWER.read_text())
    doc["vars"]["eps"] = "inf"
    p = tmp_path / "inf.json"
    p.write_text(json.dumps(doc))
    r = run("replay", str(p))
    assert r.exit_code == 2 and "vars.eps" in r.stderr and "non-finite" in r.stderr


def test_usage_errors_exit_2():
    assert run("lemma", "4.1", "--budget", "0").exit_code == 2
    assert run("lemma", "4.1", "--dps", "5").exit_code == 2
    assert run("lemma", "4.1", "--reading", "nope").exit_code == 2
    assert run("lemma", "3.3", "--part", "9").exit_code == 2
    assert run("replay", "/does/not/exist.json").exit_code == 2
    assert run("frobnicate").exit_code == 2


def test_list_and_show():
    r = run("list", "--json")
    assert r.exit_code == 0
    ids = [c["id"] for c in json.loads(r.stdout)]
    assert {"3.3", "4.1", "4.2", "B.2"} <= set(ids)
    r = run("show", "4.1")
    assert r.exit_code == 0 and "Res" in r.stdout
    r = run("show", "4.1", "--json")
    assert json.loads(r.stdout)["notes"]


def test_list_pipes_one_line_per_claim_to_stdout():
    """`verify list | grep 4.1` finds the claim, on one line with its pack and readings."""
    r = run("list")
    assert r.exit_code == 0 and r.stderr == ""
    line = next(line for line in r.stdout.splitlines() if "\t4.1\t" in line)
    fields = line.split("\t")
    assert fields[:3] == ["alman-song-2025", "4.1", "lemma"] and "as-printed" in line and "repaired" in line


def test_claim_that_raises_is_error_exit_2():
    from verifier import Claim, Dim, Part, Vector
    from verifier.packside import memory_pack

    def boom(ctx, v):
        raise ZeroDivisionError("1/0 in the statement")

    bad = Claim(id="Z.1", title="raises", statement="", dims=[Dim("n", 1, 2)], variables=[Vector("x", "n")],
                parts=[Part("main", lhs=boom, rhs=boom)])
    memory_pack("raises", [bad])
    r = run("lemma", "Z.1", "--json", "--budget", "100", "--pack", "raises")
    assert r.exit_code == 2
    item = json.loads(r.stdout)[0]
    assert item["verdict"] == "error" and "1/0 in the statement" in item["message"]
