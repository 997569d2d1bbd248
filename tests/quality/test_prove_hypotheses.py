"""Hypotheses bound the domain of a proof (issue 26, item 2).

Six true Olympiad-style claims ended their proofs in ``FunctionDomainError: sqrt is undefined at
-0.59...`` or ``log is undefined at 0``, although their hypotheses (radicand > 0, variables
> 0) exclude those points.  A seeded family of such true claims, proved as ``verify lemma``
proves a survivor (the claim's own proof domain, a box budget): positive variables (free on
the default box, or bounded below by 0), sqrt, log and real powers of expressions whose
positivity is a hypothesis, random coefficients, a little room in each bound.

Every member proves, or -- where the margin is unbounded at the edge of the domain (log of a
quantity that a hypothesis keeps positive: no ball holds log near 0) -- says how much of the
volume it decided.  None ends in an error.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from verifier import Claim, Hypothesis, Part, Scalar
from verifier.proof_audit import ProofBudget, attempt

KINDS = ("sqrt-radicand", "log-radicand", "power", "sqrt-product", "triangle", "log-variables")
#: the kinds whose margin is unbounded where a hypothesis becomes an equality (log of a -> 0+)
UNBOUNDED_AT_THE_EDGE = {"log-radicand", "log-variables"}
#: the default budget of work; where the margin is unbounded at the edge, enough to decide 95 %
BUDGET = ProofBudget(per_check=60, total=600, boxes=2500)
EDGE_BUDGET = ProofBudget(per_check=60, total=600, boxes=400)


def positive(name):
    return Hypothesis(f"{name} > 0", lambda ctx, v: getattr(v, name), strict=True)


def member(seed: int):
    """(kind, claim): a true claim of the family, its coefficients drawn from ``seed``."""
    rng = np.random.default_rng(seed)

    def q(lo, hi, den=4):
        return Fraction(int(rng.integers(lo * den, hi * den + 1)), den)

    kind = KINDS[seed % len(KINDS)]
    al, be, ga, room = q(1, 2), q(1, 2), q(0, 1), Fraction(1, 10)
    bounded = bool(rng.integers(2))

    def var(name):
        return Scalar(name, lo=0) if bounded else Scalar(name)

    def r(ctx, v):
        return al * v.a + be * v.b - ga

    two = [var("a"), var("b")]
    if kind == "sqrt-radicand":  # sqrt(r) <= (r + 1) / 2, r > 0 a hypothesis
        variables, hyps = two, [positive("a"), positive("b"), Hypothesis("r > 0", r, strict=True)]
        part = Part("main", lhs=lambda c, v: c.sqrt(r(c, v)), rhs=lambda c, v: (r(c, v) + 1) / 2 + room)
    elif kind == "log-radicand":  # log(r) <= r - 1
        variables, hyps = two, [positive("a"), positive("b"), Hypothesis("r > 0", r, strict=True)]
        part = Part("main", lhs=lambda c, v: c.log(r(c, v)), rhs=lambda c, v: r(c, v) - 1 + room)
    elif kind == "power":  # Bernoulli: s^p <= 1 + p (s - 1) for 0 < p < 1, s = al a + be b > 0
        p = q(1, 3) / 4

        def s(c, v):
            return al * v.a + be * v.b

        variables, hyps = two, [positive("a"), positive("b")]
        part = Part("main", lhs=lambda c, v: c.power(s(c, v), p), rhs=lambda c, v: 1 + p * (s(c, v) - 1) + room)
    elif kind == "sqrt-product":  # AM-GM
        variables, hyps = two, [positive("a"), positive("b")]
        part = Part("main", lhs=lambda c, v: c.sqrt(al * v.a * be * v.b), rhs=lambda c, v: (al * v.a + be * v.b) / 2 + room)
    elif kind == "triangle":  # sqrt(a + b - g c) <= sqrt(a) + sqrt(b), a + b - g c > 0 a hypothesis

        def t(c, v):
            return v.a + v.b - ga * v.c

        variables = two + [var("c")]
        hyps = [positive("a"), positive("b"), positive("c"), Hypothesis("a + b - g c > 0", t, strict=True)]
        part = Part("main", lhs=lambda c, v: c.sqrt(t(c, v)), rhs=lambda c, v: c.sqrt(v.a) + c.sqrt(v.b) + room)
    else:  # log(al a) + log(be b) <= al a + be b - 2
        variables, hyps = two, [positive("a"), positive("b")]
        part = Part("main", lhs=lambda c, v: c.log(al * v.a) + c.log(be * v.b), rhs=lambda c, v: al * v.a + be * v.b - 2 + room)
    claim = Claim(id=f"olympiad-{seed}", kind="property", paper="family", location="-", title=kind, statement=kind,
                  dims=[], variables=variables, hypotheses=hyps, parts=[part])
    return kind, claim


@pytest.mark.parametrize("seed", range(12))
def test_a_true_claim_with_domain_hypotheses_proves_or_says_what_it_decided(seed):
    kind, claim = member(seed)
    proof, refuting = attempt(claim.checks()[0], EDGE_BUDGET if kind in UNBOUNDED_AT_THE_EDGE else BUDGET)
    assert refuting is None
    assert proof.status.value != "error", proof.message
    if kind in UNBOUNDED_AT_THE_EDGE:
        assert proof.status.value in ("proved", "inconclusive"), proof
        assert proof.volume_percent is not None and proof.volume_percent >= 95, proof
    else:
        assert proof.status.value == "proved", (kind, proof)
