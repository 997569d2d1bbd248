"""False claims for each relation whose two sides differ at every counterexample.

Drawn from a seed so the tests do not depend on one tuned constant: ``x^2 REL x - c``
(and ``e^x REL x + 1 + c``, which only balls can certify) with ``c`` drawn in (1/64, 1/5).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np

from verifier.claims import Claim, Part, Scalar

RELATIONS = ("<=", "<", ">=", ">", "==")
PAPER = "orientation-test"


def offset(seed: int) -> Fraction:
    rng = np.random.default_rng(seed)
    return Fraction(int(rng.integers(1, 5)), int(rng.integers(20, 64)))


def polynomial_claim(relation: str, seed: int) -> Claim:
    c = offset(seed)
    return Claim(
        id=f"poly{RELATIONS.index(relation)}",
        title="x^2 against x - c",
        statement=f"x^2 {relation} x - {c}",
        paper=PAPER,
        variables=(Scalar("x", lo=-2, hi=2),),
        dims=(),
        parts=(Part("main", lambda ctx, v: v.x * v.x, lambda ctx, v, c=c: v.x - c, relation=relation, lhs_text="x^2", rhs_text="x - c"),),
    )


def exp_claim(relation: str, seed: int) -> Claim:
    """``e^x`` against ``x + 1 + c`` (true for no relation everywhere): certified in balls."""
    c = offset(seed)
    # e^x >= x + 1 + c fails near 0; e^x <= x + 1 + c fails at x = 2
    return Claim(
        id=f"exp{RELATIONS.index(relation)}",
        title="e^x against x + 1 + c",
        statement=f"e^x {relation} x + 1 + {c}",
        paper=PAPER,
        variables=(Scalar("x", lo=-2, hi=2),),
        dims=(),
        parts=(Part("main", lambda ctx, v: ctx.exp(v.x), lambda ctx, v, c=c: v.x + 1 + c, relation=relation, lhs_text="e^x", rhs_text="x + 1 + c"),),
    )


def sides_at(claim: Claim, x: Fraction, dps: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """The claim's own lhs and rhs at ``x``, recomputed here from the statement (not the claim's code)."""
    c = offset_of(claim)
    with mpmath.workdps(dps + 20):
        xm = mpmath.mpf(x.numerator) / x.denominator
        if claim.id.startswith("poly"):
            return xm * xm, xm - mpmath.mpf(c.numerator) / c.denominator
        return mpmath.exp(xm), xm + 1 + mpmath.mpf(c.numerator) / c.denominator


def offset_of(claim: Claim) -> Fraction:
    return Fraction(claim.statement.rsplit(" ", 1)[1])
