"""Proofs in the audit from the command line: rows, JSON, lock, drift and reports."""

import json
import textwrap

import pytest

from verifier.proof_audit import MIN_ATTEMPT_SECONDS
from click.testing import CliRunner

from verifier.cli import main

# a true claim z3 decides, and one with exp whose proof goes through or not depending on its right side
PACK = textwrap.dedent('''
    from verifier import Claim, Part, ProofDomain, Scalar

    triangle = Claim(
        id="tri", title="triangle", paper="gen", statement="|x + y| <= |x| + |y|", dims=[],
        variables=[Scalar("x"), Scalar("y")],
        parts=[Part("main", lhs=lambda ctx, v: ctx.abs(v.x + v.y), rhs=lambda ctx, v: ctx.abs(v.x) + ctx.abs(v.y))],
        prove_on=ProofDomain(box=BOX),
    )
    tangent = Claim(
        id="tan", title="tangent", paper="gen", statement="exp(x) >= line(x)", dims=[], variables=[Scalar("x")],
        parts=[Part("main", lhs=lambda ctx, v: ctx.exp(v.x), rhs=lambda ctx, v: RHS, relation=">=")],
        prove_on=ProofDomain(box=(-1, 2)),
    )
    claims = [triangle, tangent]
''')
# exp(x) >= x has room; exp(x) >= 1 + x + x|x|/2 touches at 0 to second order, which no split reaches
# (and exp(x) >= 1 + x itself is now proved by SMT with exp abstracted: the tangent is one of its facts)
PROVABLE, TOUCHING = "v.x", "1 + v.x + v.x * ctx.abs(v.x) / 2"


def write_pack(path, rhs=PROVABLE, box="(-3, 5)"):
    path.write_text(PACK.replace("RHS", rhs).replace("BOX", box))
    return path


def edited(pack, **kw):
    """The pack as edited after the lock (a new file: a loaded pack is cached by its path)."""
    return write_pack(pack.with_name("gen_claims_edited.py"), **kw)


def verify(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def paper(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return write_pack(tmp_path / "gen_claims.py")


def lock(pack, *extra):
    return verify("lock", "--pack", pack, "--budget", 600, "--prove-time", 5, "--prove-total", 30, "--jobs", 1, *extra)


def test_lemma_json_says_where_a_survivor_was_proved(paper):
    r = verify("lemma", "tri", "--pack", paper, "--budget", 600, "--prove-time", 5, "--json")
    assert r.exit_code == 0, r.stderr
    (item,) = json.loads(r.stdout)
    assert item["verdict"] == "survived"
    assert item["proof"]["status"] == "proved" and item["proof"]["method"] == "smt"
    assert item["audit"] == "proved (z3) on x \u2208 [-3, 5], y \u2208 [-3, 5]"  # z3's word: no kernel has re-checked it
    assert item["proof"]["domain_spec"]["boxes"] == {"x": ["-3", "5"], "y": ["-3", "5"]}


def test_prove_time_zero_switches_proofs_off(paper):
    r = verify("lemma", "tri", "--pack", paper, "--budget", 600, "--prove-time", 0, "--json")
    (item,) = json.loads(r.stdout)
    assert item["proof"] is None and item["audit"] == "survived"


def test_all_rows_say_proved_on_the_domain_or_the_share_decided(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pack = write_pack(tmp_path / "gen_claims.py", rhs=TOUCHING)
    r = verify("all", "--pack", pack, "--budget", 600, "--prove-time", 5, "--jobs", 2)
    assert r.exit_code == 0, r.stderr
    rows = {line.split()[0]: line for line in r.stderr.splitlines() if line.startswith(("tri", "tan"))}
    assert "PROVED" in rows["tri"] and "on x \u2208 [-3, 5], y \u2208 [-3, 5]" in rows["tri"]
    assert "SURVIVED" in rows["tan"] and "proof: inconclusive, " in rows["tan"] and "% of volume on x \u2208 [-1, 2]" in rows["tan"]
    assert "of 2 proofs tried on the stated domains, 1 proved, 1 inconclusive" in r.stderr


def test_lock_records_the_proof_and_check_matches_it(paper):
    r = lock(paper)
    assert r.exit_code == 0, r.stderr
    doc = json.loads((paper.parent / "claims.lock").read_text())
    assert doc["schema_version"] == 3 and doc["search"]["prove_time"] == 5 and doc["search"]["prove_boxes"] == 2500
    entries = {e["claim"]: e for e in doc["checks"]}
    assert entries["tri"]["proof"]["status"] == "proved" and entries["tri"]["proof"]["on"].startswith("x \u2208 [-3, 5]")
    assert entries["tan"]["proof"]["status"] == "proved" and entries["tan"]["proof"]["method"] == "branch-and-bound"
    r = verify("check", "--pack", paper, "--jobs", 1)
    assert r.exit_code == 0, r.stderr
    assert "2 proofs" in r.stderr


def test_a_proof_that_no_longer_goes_through_is_drift(paper):
    assert lock(paper).exit_code == 0
    now = edited(paper, rhs=TOUCHING)  # still true, still survives the search; the proof stops going through
    r = verify("check", "--pack", now, "--jobs", 1)
    assert r.exit_code == 1, r.stderr
    drift = [line for line in r.stderr.splitlines() if line.startswith("drift: tan")]
    assert drift and "proof no longer goes through" in drift[0] and "now inconclusive" in drift[0] and "% of the volume" in drift[0]
    assert not [line for line in r.stderr.splitlines() if line.startswith("drift: tri")]


def test_a_proof_locked_as_inconclusive_is_not_tried_again_but_its_domain_is_checked(paper):
    write_pack(paper, rhs=TOUCHING)
    assert lock(paper).exit_code == 0
    r = verify("check", "--pack", edited(paper, rhs=PROVABLE), "--jobs", 1, "--json")
    assert r.exit_code == 0, r.stderr
    rows = {row["claim"]: row for row in json.loads(r.stdout)}
    proof = rows["tan"]["search"]["proof"]
    assert rows["tan"]["status"] == "match" and proof["status"] == "inconclusive" and proof["message"].startswith("as locked")
    moved = paper.with_name("gen_claims_moved.py")
    moved.write_text(paper.read_text().replace("ProofDomain(box=(-1, 2))", "ProofDomain(box=(-1, 3))"))
    r = verify("check", "--pack", moved, "--jobs", 1)
    assert r.exit_code == 1 and "drift: tan part main [as-printed]: proof domain changed" in r.stderr


def test_a_moved_proof_domain_is_drift(paper):
    assert lock(paper).exit_code == 0
    r = verify("check", "--pack", edited(paper, box="(-3, 6)"), "--jobs", 1)
    assert r.exit_code == 1 and "drift: tri part main [as-printed]: proof domain changed" in r.stderr


def test_a_version_2_lock_still_loads_and_checks_without_proofs(paper):
    assert lock(paper, "--prove-time", 0).exit_code == 0
    path = paper.parent / "claims.lock"
    doc = json.loads(path.read_text())
    doc["schema_version"] = 2
    for key in ("prove_time", "prove_total"):
        del doc["search"][key]
    path.write_text(json.dumps(doc))
    r = verify("check", "--pack", paper, "--jobs", 1)
    assert r.exit_code == 0, r.stderr
    assert "0 proofs" in r.stderr


@pytest.mark.parametrize("edit, field", [
    (lambda e: e["proof"].update(status="sort of"), "checks[0].proof.status"),
    (lambda e: e["proof"].update(volume_percent=140), "checks[0].proof.volume_percent"),
    (lambda e: e.update(proof=[]), "checks[0].proof"),
    (lambda doc: doc["search"].update(prove_boxes=0), "search.prove_boxes"),
    (lambda doc: doc["search"].update(prove_boxes="many"), "search.prove_boxes"),
    (lambda e: e["proof"].update(also_on="n = 3"), "checks[0].proof.also_on"),
    (lambda e: e["proof"].update(identical_sides="yes"), "checks[0].proof.identical_sides"),
])
def test_a_corrupt_proof_in_the_lock_names_the_field(paper, edit, field):
    assert lock(paper).exit_code == 0
    path = paper.parent / "claims.lock"
    doc = json.loads(path.read_text())
    edit(doc if field.startswith("search") else doc["checks"][0])
    path.write_text(json.dumps(doc))
    r = verify("check", "--pack", paper)
    assert r.exit_code == 2 and field in r.stderr and "Traceback" not in r.stderr


def test_reports_say_proved_on_the_domain(paper):
    write_pack(paper, rhs=TOUCHING)
    assert lock(paper).exit_code == 0
    summary = verify("report", "--pack", paper, "--format", "markdown", "--summary").stdout
    assert "| proved (z3) on x \u2208 [-3, 5], y \u2208 [-3, 5] | smt |" in summary
    assert "| survived (proof: inconclusive, " in summary and "% of volume on x \u2208 [-1, 2]) | - |" in summary
    for fmt in ("markdown", "html", "latex"):
        r = verify("report", "--pack", paper, "--format", fmt, "--jobs", 1)
        assert r.exit_code == 0, r.stderr
        assert "proved (z3) on x" in r.stdout and "Proof inconclusive on x" in r.stdout, fmt
        assert "as locked" in r.stdout and " s of 0 s" not in r.stdout, fmt  # the lock's record, not a run of no time


def test_quick_gives_proofs_the_ci_time(paper, monkeypatch):
    monkeypatch.delenv("VERIFY_PROVE_TIME")
    quick = json.loads(verify("all", "--pack", paper, "--quick", "--json").stdout)
    # --quick's 5 s per check bound its search and its proof together: the proof gets what the search left
    for item in quick:
        left = 5.0 - item["seconds"]
        if left >= MIN_ATTEMPT_SECONDS:
            assert item["proof"]["time_limit"] == pytest.approx(left, abs=2e-3), item
        else:  # a search slowed down by a loaded machine left the proof no time
            assert item["proof"]["status"] == "not attempted" and "--time" in item["proof"]["message"], item


SIZES = textwrap.dedent('''
    from verifier import Claim, Dim, Part, Vector

    def cauchy_schwarz(cid, dims):
        return Claim(id=cid, title="qm-am", paper="gen", statement="(sum x)^2 <= n sum x^2", dims=dims, variables=[Vector("x", "n")],
                     parts=[Part("main", lhs=lambda ctx, v: ctx.sum_all(v.x) ** 2, rhs=lambda ctx, v: v.dims["n"] * ctx.sum_all(v.x * v.x))])

    claims = [cauchy_schwarz("sizes", [Dim("n", 1, 6)]), cauchy_schwarz("one", [Dim("n", 1, 1)])]
''')


def test_the_lock_and_the_audit_table_say_which_sizes_were_proved_and_where_sides_coincide(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pack = tmp_path / "sizes_claims.py"
    pack.write_text(SIZES)
    assert lock(pack).exit_code == 0
    entries = {e["claim"]: e["proof"] for e in json.loads((tmp_path / "claims.lock").read_text())["checks"]}
    assert entries["sizes"]["on"].startswith("n = 2;") and entries["sizes"]["also_on"] == ["n = 3", "n = 4"]
    assert "identical_sides" not in entries["sizes"]
    assert entries["one"]["on"].startswith("n = 1;") and entries["one"]["identical_sides"] is True and entries["one"]["method"] == "identity"
    summary = verify("report", "--pack", pack, "--format", "markdown", "--summary").stdout
    assert "| proved (z3) on n = 2; x \u2208 [-2, 2]^2 (also at n = 3; n = 4) | smt |" in summary
    assert "| proved on n = 1; x \u2208 [-2, 2]^1, where both sides are the same function (nothing is compared there) | identity |" in summary
    r = verify("check", "--pack", pack, "--jobs", 1)
    assert r.exit_code == 0, r.stderr


def test_the_init_examples_true_part_is_proved_where_it_says_something(tmp_path, monkeypatch):
    """The scaffold's part (1), ||x||_2^2 <= ||x||_1^2, was "Proved on n = 1", where both sides are x^2."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    assert verify("init", "paper", "--paper", "smith-2024").exit_code == 0
    r = verify("lemma", "1", "--part", "1", "--pack", tmp_path / "paper" / "smith_2024_claims", "--budget", 4000, "--prove-time", 20, "--json")
    assert r.exit_code == 0, r.stderr
    (item,) = json.loads(r.stdout)
    proof = item["proof"]
    assert proof["status"] == "proved" and proof["domain"].startswith("n = 2;") and not proof["identical_sides"]
    assert proof["also"] == ["n = 3", "n = 4"]
