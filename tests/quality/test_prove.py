"""Proofs on bounded domains: what is true gets proved, what is false gets a certified counterexample."""

from fractions import Fraction

import pytest

from tests.conftest import check_of
from verifier.prove import make_proof_box, prove
from verifier.results import Verdict
from verifier.evidence import parse_exact

BOX = (Fraction(-5), Fraction(5))


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@pytest.mark.parametrize("d", [1, 2])
def test_repaired_lemma_4_1_is_proved_for_small_dimensions(n, d):
    check = check_of("4.1", reading="repaired")
    p = prove(check, make_proof_box(check, {"n": n, "d": d}), time_limit=30)
    assert p.result.verdict is Verdict.PROVED, p.result.message
    assert p.result.method == "smt" and p.details.solver == "unsat"
    # on all of R^(n x d): the domain says so
    assert f"n = {n}, d = {d}" in p.result.domain and "\u211d" in p.result.domain


def test_original_lemma_4_1_is_refuted_by_the_solvers_model():
    check = check_of("4.1", reading="as-printed")
    p = prove(check, make_proof_box(check, {"n": 3, "d": 2}), time_limit=30)
    r = p.result
    assert r.verdict is Verdict.REFUTED and r.certified and r.method == "exact"
    cx = r.counterexample
    assert cx.found_by.phase == "solver" and p.details.solver == "sat"
    assert parse_exact(cx.margin) < 0 and parse_exact(cx.lhs) > parse_exact(cx.rhs)


def test_lemma_4_1_holds_for_n_at_most_2():
    """The module docstring's hand derivation: for n <= 2, Res(Z) = (Z_1 - Z_2)/2 (1, -1)."""
    check = check_of("4.1", reading="as-printed")
    assert prove(check, make_proof_box(check, {"n": 2, "d": 2}), time_limit=30).result.verdict is Verdict.PROVED


@pytest.mark.parametrize("part, dims", [("2", dict(m=1, k=2, p=1)), ("2", dict(m=2, k=1, p=2)), ("3", dict(m=1, k=1, p=3)), ("3", dict(m=2, k=1, p=2))])
def test_repaired_fact_3_3_is_proved_where_z3_decides_it(part, dims):
    check = check_of("3.3", part=part, reading="repaired")
    p = prove(check, make_proof_box(check, dims), time_limit=30)
    assert p.result.verdict is Verdict.PROVED, p.result.message


@pytest.mark.parametrize("part, dims", [("2", dict(m=1, k=2, p=1)), ("3", dict(m=1, k=1, p=2))])
def test_original_fact_3_3_is_refuted_by_the_solver(part, dims):
    check = check_of("3.3", part=part, reading="as-printed")
    p = prove(check, make_proof_box(check, dims), time_limit=30)
    assert p.result.verdict is Verdict.REFUTED and p.result.counterexample.found_by.phase == "solver"


def test_smt_time_limit_gives_inconclusive():
    check = check_of("3.3", part="1", reading="as-printed")
    p = prove(check, make_proof_box(check, dict(m=2, k=2, p=2)), time_limit=0.5)
    assert p.result.verdict is Verdict.INCONCLUSIVE and "timeout" in p.details.solver


def test_lemma_b_2_is_proved_by_branch_and_bound_at_n_1():
    check = check_of("B.2")
    domain = make_proof_box(check, {"n": 1}, None, {"a": BOX, "eps": (Fraction(1, 100), Fraction(2))})
    p = prove(check, domain, time_limit=30)
    assert p.result.verdict is Verdict.PROVED and p.result.method == "branch-and-bound"
    assert p.details.volume_proved == 1.0 and "eps \u2208 [0.01, 2]" in p.result.domain


def test_branch_and_bound_time_limit_gives_inconclusive_with_volume():
    check = check_of("B.2")
    domain = make_proof_box(check, {"n": 4}, None, {"a": BOX, "eps": (Fraction(1, 100), Fraction(2))})
    p = prove(check, domain, time_limit=1.0)
    assert p.result.verdict is Verdict.INCONCLUSIVE and p.result.seconds < 10
    assert 0 <= p.details.volume_proved < 1 and "volume" in p.result.message


def test_equality_face_is_named_not_spun_on():
    """Lemma 4.2 (1) is an equality at b = eps: the branch and bound's output says so (by default
    SMT with exp abstracted proves it first)."""
    check = check_of("4.2", part="1", reading="intended")
    domain = make_proof_box(check, {"n": 1}, None, {"a": BOX, "eps": (Fraction(1, 100), Fraction(2))})
    p = prove(check, domain, method="branch-and-bound", time_limit=2.0)
    assert p.result.verdict in (Verdict.INCONCLUSIVE, Verdict.PROVED)
    assert any("equality on the face b_1 = eps" in n for n in p.details.notes)


@pytest.mark.parametrize("part, face", [("1", "b_1 = eps"), ("2", "b_1 = \u2212eps"), ("3", "b_1 = eps"), ("4", "b_1 = \u2212eps")])
def test_intended_lemma_4_2_is_proved_with_its_equality_face_closed(part, face):
    """Every box along the face is reduced onto it by monotonicity; there sympy shows margin = 0."""
    check = check_of("4.2", part=part, reading="intended")
    domain = make_proof_box(check, {"n": 1}, None, {"a": BOX, "eps": (Fraction(1, 100), Fraction(2))})
    p = prove(check, domain, method="branch-and-bound", time_limit=120)
    assert p.result.verdict is Verdict.PROVED, p.result.message
    assert "vanishes identically" in p.result.message and p.details.volume_proved == 1.0
    assert any(f"equality on the face {face}" in n and "closed" in n for n in p.details.notes), p.details.notes


def test_lemma_b_2_is_proved_at_n_3_on_the_stated_box():
    check = check_of("B.2")
    domain = make_proof_box(check, {"n": 3}, None, {"a": BOX, "eps": (Fraction(1, 100), Fraction(2))})
    p = prove(check, domain, method="branch-and-bound", time_limit=300)
    assert p.result.verdict is Verdict.PROVED, p.result.message
    assert p.details.volume_proved == 1.0


def test_strict_reading_is_refuted_on_its_equality_face():
    check = check_of("4.2", part="3", reading="as-printed")
    domain = make_proof_box(check, {"n": 2}, None, {"a": BOX, "eps": (Fraction(1, 100), Fraction(2))})
    p = prove(check, domain, time_limit=20)
    assert p.result.verdict is Verdict.REFUTED and p.result.certified
    assert "symbolic" in p.result.counterexample.certificate


def test_lemma_b_2_is_proved_at_n_2_on_the_stated_box():
    """The goal of the issue: eps in [0.01, 2], a in [-5, 5]^2, where the inequality is strict."""
    check = check_of("B.2")
    domain = make_proof_box(check, {"n": 2}, None, {"a": BOX, "eps": (Fraction(1, 100), Fraction(2))})
    p = prove(check, domain, time_limit=120)
    assert p.result.verdict is Verdict.PROVED, p.result.message
    assert p.details.volume_proved == 1.0 and p.details.boxes_proved > 1
    assert p.result.domain == "n = 2; a \u2208 [-5, 5]^2, eps \u2208 [0.01, 2], b: every value with \u2016b\u2016\u221e \u2264 eps"
