"""Proof strategies as a list (issue 33, item 3): one order, one convention, a record per turn.

``prove`` was an if-ladder of five strategies with four ways of saying "could not" (None, two
exceptions, a flag); now each strategy says whether it applies, then attempts, and every turn is
recorded in the proof's details with its outcome, its seconds and its reason.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

import verifier.prove as prove_module
from verifier import Claim, Part, Scalar
from verifier.prove import (METHODS, STRATEGIES, BoundedDomainError, MethodError, Outcome, ProofStop, Strategy,
                            make_proof_box, prove)
from verifier.prove.result import Proof


def _claim(margin, lo=-1, hi=1, strict=False):
    part = Part("main", lhs=margin, rhs=lambda c, v: 0, relation=">" if strict else ">=")
    return Claim(id="s", kind="property", paper="t", location="-", title="t", statement="t", dims=[],
                 variables=[Scalar("x", lo=lo, hi=hi)], parts=[part]).checks()[0]


def _domain(check, box=True):
    return make_proof_box(check, {}, None if box else None, {})


def test_methods_are_auto_and_every_strategy_by_name_in_the_order_of_the_list():
    names = [s.name for s in STRATEGIES]
    assert METHODS == ("auto",) + tuple(dict.fromkeys(names))
    assert names[:2] == ["identity", "smt"] and names[-1] == "branch-and-bound"
    for s in STRATEGIES:
        assert isinstance(s, Strategy) and s.name and s.summary


def test_every_turn_is_recorded_with_its_outcome_and_why():
    check = _claim(lambda c, v: v.x - c.tanh(v.x), 0, 3)
    proof = prove(check, _domain(check), time_limit=30, max_boxes=500)
    assert proof.result.verdict.value == "proved" and proof.details.stop is ProofStop.PROVED
    turns = {r.name: r for r in proof.details.attempts}
    names = [r.name for r in proof.details.attempts]
    assert names == [s.name for s in STRATEGIES][:len(names)]  # in the list's one order
    assert turns["identity"].outcome is Outcome.UNDECIDED and turns["identity"].reason
    assert turns["smt"].outcome is Outcome.NOT_APPLICABLE and "tanh" in turns["smt"].reason
    last = proof.details.attempts[-1]
    assert last.name == proof.details.strategy and last.outcome is Outcome.PROVED  # the list stops at the first decision
    assert proof.details.strategy in ("probe", "branch-and-bound")
    assert all(r.seconds >= 0 for r in proof.details.attempts)


def test_a_polynomial_claim_is_decided_by_smt_and_the_list_stops_there():
    check = _claim(lambda c, v: v.x * v.x - 2 * v.x + 1)
    proof = prove(check, _domain(check), time_limit=30)
    assert proof.details.strategy == "smt" and proof.details.method == "smt"
    assert [r.name for r in proof.details.attempts] == ["identity", "smt"]
    assert proof.details.certificate is not None


@pytest.mark.parametrize("method", METHODS[1:])
def test_every_method_alone_gives_a_proof_or_a_refusal_naming_why(method):
    check = _claim(lambda c, v: c.exp(v.x) - 1 - v.x, -1, 1)
    try:
        proof = prove(check, _domain(check), method, time_limit=20, max_boxes=200)
    except (MethodError, BoundedDomainError) as exc:
        assert str(exc)
        # each refuses only where its own applies() says why: z3 has no exp, a sum of squares no
        # transcendental margin, a touching point refutes only a strict claim
        assert method in ("smt", "sum-of-squares", "touching-point"), (method, exc)
        return
    assert isinstance(proof, Proof)
    assert proof.result.verdict.value in ("proved", "inconclusive"), (method, proof.result.message)
    assert [r.name for r in proof.details.attempts] == [method]


def test_smt_alone_on_a_claim_with_exp_says_to_use_branch_and_bound():
    check = _claim(lambda c, v: c.exp(v.x) - 1 - v.x)
    with pytest.raises(MethodError, match="exp.*use --method branch-and-bound"):
        prove(check, _domain(check), "smt", time_limit=5)


def test_branch_and_bound_alone_without_a_box_is_a_bounded_domain_error():
    check = Claim(id="s", kind="property", paper="t", location="-", title="t", statement="t", dims=[],
                  variables=[Scalar("x")], parts=[Part("main", lhs=lambda c, v: c.exp(v.x), rhs=lambda c, v: 0, relation=">=")]).checks()[0]
    with pytest.raises(BoundedDomainError, match="needs a bounded box for x"):
        prove(check, make_proof_box(check, {}), "branch-and-bound", time_limit=5)


def test_a_box_budget_stops_branch_and_bound_with_its_own_stop_reason():
    check = _claim(lambda c, v: v.x * v.x * v.x * v.x + F(1, 10**9), -1, 1)
    proof = prove(check, _domain(check), "branch-and-bound", time_limit=30, max_boxes=1)
    assert proof.result.verdict.value in ("proved", "inconclusive")
    if proof.result.verdict.value == "inconclusive":
        assert proof.details.stop is ProofStop.BOX_BUDGET


class _Raises(Strategy):
    name, summary = "raises", "a strategy whose claim raises"

    def attempt(self, check, domain, budget):
        raise ZeroDivisionError("in the claim")


class _Nothing(Strategy):
    name, summary = "nothing", "a strategy that decides nothing"

    def attempt(self, check, domain, budget):
        return None

    def undecided(self, check, domain):
        return "it never does"


class _Refuses(Strategy):
    name, summary = "refuses", "a strategy that never applies"

    def applies(self, check, domain):
        return "not for this claim"


def test_one_convention_none_is_recorded_and_a_raising_claim_is_an_error_row(monkeypatch):
    check = _claim(lambda c, v: v.x * v.x)
    monkeypatch.setattr(prove_module, "STRATEGIES", (_Nothing(),))
    monkeypatch.setattr(prove_module, "METHODS", ("auto", "nothing"))
    proof = prove(check, _domain(check), time_limit=5)
    assert proof.result.verdict.value == "inconclusive" and proof.details.stop is ProofStop.NOTHING_DECIDED
    assert [(r.name, r.outcome) for r in proof.details.attempts] == [("nothing", Outcome.UNDECIDED)]
    assert "it never does" in proof.result.message
    # nothing decided and a strategy could not run: its reason is the answer (a box to give, say)
    monkeypatch.setattr(prove_module, "STRATEGIES", (_Nothing(), _Refuses()))
    monkeypatch.setattr(prove_module, "METHODS", ("auto", "nothing", "refuses"))
    with pytest.raises(MethodError, match="not for this claim"):
        prove(check, _domain(check), time_limit=5)
    with pytest.raises(MethodError, match="not for this claim"):
        prove(check, _domain(check), "refuses", time_limit=5)
    monkeypatch.setattr(prove_module, "STRATEGIES", (_Raises(),))
    monkeypatch.setattr(prove_module, "METHODS", ("auto", "raises"))
    proof = prove(check, _domain(check), time_limit=5)
    assert proof.result.verdict.value == "error" and proof.details.stop is ProofStop.CLAIM_RAISED
    assert proof.details.attempts[0].outcome is Outcome.RAISED and "ZeroDivisionError" in proof.details.attempts[0].reason
