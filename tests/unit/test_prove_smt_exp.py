"""SMT with exp abstracted: its facts hold of the true exp, unsat is a proof, sat is only a lead."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
import z3
from flint import arb, fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import check_of
from verifier import Claim, Dim, Part, Scalar, Vector
from verifier.prove import make_proof_box, prove
from verifier.prove.smt_exp import ExpAbstraction, prove_exp_abstracted

BOX = (Fraction(-5), Fraction(5))
EPS = (Fraction(1, 100), Fraction(2))


def _rational_bounds(q: Fraction):
    ball = arb(fmpq(q.numerator, q.denominator)).exp()
    ends = [ball.lower(), ball.upper()]
    return [Fraction(int(m)) * Fraction(2) ** int(e) for m, e in (x.mid().man_exp() for x in ends)]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.fractions(min_value=-3, max_value=3, max_denominator=8), min_size=1, max_size=4))
def test_the_facts_hold_of_the_true_exponentials(exponents):
    """Some choice inside rational enclosures of exp(t) satisfies every fact: the true exp does."""
    ctx = ExpAbstraction()
    xs = [z3.Real(f"x{k}") for k in range(len(exponents))]
    # exponents as sums of the symbols too, so that product relations meet exact equalities
    terms = xs + [xs[0] + x for x in xs[1:]]
    es = [ctx._exp_one(t) for t in terms]
    solver = z3.Solver()
    solver.set("timeout", 20000)
    solver.add(*ctx.facts())
    solver.add(*[x == z3.RealVal(q) for x, q in zip(xs, exponents)])
    values = list(exponents) + [exponents[0] + q for q in exponents[1:]]
    for e, q in zip(es, values):
        lo, hi = _rational_bounds(q)
        solver.add(e >= z3.RealVal(lo), e <= z3.RealVal(hi))
    assert solver.check() == z3.sat


@pytest.mark.parametrize("n", [1, 2])
@pytest.mark.parametrize("part", ["1", "2"])
def test_lemma_4_2_is_proved_by_the_abstraction_before_branch_and_bound(part, n):
    """By the abstraction on its own; ``prove`` meets the exact exponential basis first, which proves it too."""
    check = check_of("4.2", part=part, reading="intended")
    domain = make_proof_box(check, {"n": n}, None, {"a": BOX, "eps": EPS})
    p = prove_exp_abstracted(check, domain, 60)
    assert p is not None and p.result.verdict.value == "proved" and p.result.method == "smt", p and p.result.message
    assert p.details.solver == "unsat (exp abstracted)"
    assert "exp abstracted" in p.result.message
    p = prove(check, domain, time_limit=60)
    assert p.result.verdict.value == "proved" and p.result.method == "smt", p.result.message
    assert p.details.solver == "unsat (exponential basis)"


def test_on_unbounded_reals_too():
    check = check_of("4.2", part="1", reading="intended")
    p = prove(check, make_proof_box(check, {"n": 1}, None, {}), time_limit=60)
    assert p.result.verdict.value == "proved", p.result.message


def _scalar_claim(text_lhs, lhs, rhs, lo, hi):
    return Claim(id="e", kind="lemma", paper="t", location="-", title="t", statement=text_lhs, dims=[],
                 variables=[Scalar("x", lo=lo, hi=hi)],
                 parts=[Part("main", lhs=lhs, rhs=rhs, lhs_text="l", rhs_text="r", relation=">=")]).checks()[0]


def test_a_model_of_the_abstraction_is_no_counterexample():
    """exp(x) >= 1 + x + x^2/2 on [1/4, 1] is true; the abstraction knows only exp(x) >= 1 + x, so
    z3 finds a model, which the certifier rejects: no verdict from it, and branch and bound proves."""
    check = _scalar_claim("exp(x) >= 1 + x + x^2/2", lambda c, v: c.exp(v.x), lambda c, v: 1 + v.x + v.x * v.x / 2, 0, 1)
    domain = make_proof_box(check, {}, None, {"x": (Fraction(1, 4), Fraction(1))})
    assert prove_exp_abstracted(check, domain, 10) is None
    p = prove(check, domain, time_limit=60)
    assert p.result.verdict.value == "proved" and p.result.method == "branch-and-bound", p.result.message


def test_a_certified_model_refutes():
    """exp(x) <= 1 + x/2 on [0, 1] is false at every x > 0, and the abstraction rules out x = 0
    (there exp(x) <= 1): whatever model z3 gives is a violation, which the certifier confirms."""
    check = _scalar_claim("1 + x/2 >= exp(x)", lambda c, v: 1 + v.x / 2, lambda c, v: c.exp(v.x), 0, 1)
    p = prove_exp_abstracted(check, make_proof_box(check, {}, None, {"x": (Fraction(0), Fraction(1))}), 10)
    assert p is not None and p.result.verdict.value == "refuted" and p.result.counterexample is not None


@pytest.mark.parametrize("seed", range(4))
def test_seeded_exp_perturbation_bounds_are_proved_by_the_abstraction(seed):
    """|exp(a + b) - exp(a)| <= C (e^eps - 1) exp(a) with ||b|| <= eps: true for C >= 1 (4.2 (1)
    with a constant), on random boxes and dimensions."""
    rng = random.Random(seed)
    constant, n = Fraction(rng.randint(4, 12), 4), rng.randint(1, 3)
    centre, half = rng.randint(-6, 6), rng.randint(1, 6)
    check = Claim(id="f", kind="lemma", paper="t", location="-", title="t", statement="t",
                  variables=[Vector("a", "n"), Scalar("eps", lo=0), Vector("b", "n", radius="eps")],
                  dims=[Dim("n", 1, 4)],
                  parts=[Part("main", lhs=lambda c, v: c.abs(c.exp(v.a + v.b) - c.exp(v.a)), elementwise=True,
                              rhs=lambda c, v: constant * (c.exp(v.eps) - 1)[:, None] * c.exp(v.a), lhs_text="l", rhs_text="r")]).checks()[0]
    domain = make_proof_box(check, {"n": n}, None, {"a": (Fraction(centre - half), Fraction(centre + half)),
                                                 "eps": (Fraction(1, 100), Fraction(rng.randint(1, 6), 2))})
    p = prove_exp_abstracted(check, domain, 60)
    assert p is not None and p.result.verdict.value == "proved" and p.details.solver == "unsat (exp abstracted)", p and p.result.message
    p = prove(check, domain, time_limit=60)
    assert p.result.verdict.value == "proved" and p.result.method == "smt", p.result.message
