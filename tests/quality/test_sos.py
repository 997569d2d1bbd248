"""Sum-of-squares certificates (verifier/prove/sos.py) on seeded polynomials with equality cases.

Each true member gets a certificate that the exact re-check (a polynomial identity over Q,
weights >= 0) accepts; each false twin (the same polynomial shifted below 0 at its touching
point) gets none.  Nothing here was tuned to the draws.
"""

from fractions import Fraction

import numpy as np
import pytest

from verifier import Claim, Part, Scalar
from verifier.prove import make_proof_box
from verifier.prove.sos import SumOfSquares, check_certificate, sos_certificate


class _Budget:
    seconds = 10.0
    dps = 50


def touching_squares(rng, shift: Fraction) -> Claim:
    """sum_k (a_k . (x - c))^2 + (x0 - c0)^2 (x1 - c1)^2 >= shift on [-2, 2]^2: zero at the random rational centre c."""
    c = [Fraction(int(rng.integers(-4, 5)), int(rng.integers(2, 5))) for _ in range(2)]  # inside the box
    rows = [[int(v) for v in rng.integers(-3, 4, size=2)] for _ in range(2)]

    def lhs(ctx, v):
        d0, d1 = v.x - c[0], v.y - c[1]
        return sum((a * d0 + b * d1) ** 2 for a, b in rows) + (d0 * d1) ** 2

    return Claim(id="T.sos", title="touching squares", statement=f"sum of squares >= {shift}", dims=[],
                 variables=[Scalar("x", lo=-2, hi=2), Scalar("y", lo=-2, hi=2)],
                 parts=[Part("main", relation=">=", lhs=lhs, rhs=lambda ctx, v: ctx.const(shift))]), c


def am_gm_three(rng, shift: Fraction) -> Claim:
    """w-weighted a^4 + b^4 + c^4 >= abc(a + b + c) (equality on the diagonal a = b = c), shifted."""
    w = int(rng.integers(1, 4))
    return Claim(id="T.amgm", title="AM-GM", statement="a^4 + b^4 + c^4 >= abc(a+b+c)", dims=[],
                 variables=[Scalar(n, lo=-2, hi=2) for n in "abc"],
                 parts=[Part("main", relation=">=", lhs=lambda ctx, v: w * (v.a**4 + v.b**4 + v.c**4) + shift,
                             rhs=lambda ctx, v: w * v.a * v.b * v.c * (v.a + v.b + v.c))])


def _domain(check):
    return make_proof_box(check, {}, named={v.name: (v.lo.exact, v.hi.exact) for v in check.variables})


@pytest.mark.parametrize("seed", range(4))
def test_touching_squares_certified_and_false_twins_not(seed):
    claim, centre = touching_squares(np.random.default_rng(seed), Fraction(0))
    check = claim.checks()[0]
    proof = SumOfSquares().attempt(check, _domain(check), _Budget())
    assert proof is not None, "no certificate for a sum of squares"
    sos = proof.details.certificate.sos
    assert check_certificate(sos) is None
    false, _ = touching_squares(np.random.default_rng(seed), Fraction(1, 100))
    assert sos_certificate(false.checks()[0], _domain(false.checks()[0])) is None


@pytest.mark.parametrize("seed", range(2))
def test_am_gm_on_a_diagonal_of_touching_points(seed):
    """A whole line of touching points (a = b = c): the Gram matrices are singular there."""
    true = am_gm_three(np.random.default_rng(seed), Fraction(0)).checks()[0]
    sos = sos_certificate(true, _domain(true))
    assert sos is not None and check_certificate(sos) is None
    false = am_gm_three(np.random.default_rng(seed), Fraction(-1, 100)).checks()[0]
    assert sos_certificate(false, _domain(false)) is None


def test_a_touching_point_at_a_quadratic_irrational():
    """(x^2 - r)^2 (1 + y^2) + (y - 1)^2 >= 0 touches 0 at x = +-sqrt(r): the kernel equations
    come from the exact algebraic zeros, one rational equation per power of sqrt(r)."""
    r = int(np.random.default_rng(7).integers(2, 4))
    claim = Claim(id="T.sosalg", title="t", statement="s", dims=[], variables=[Scalar("x", lo=-2, hi=2), Scalar("y", lo=-2, hi=2)],
                  parts=[Part("main", relation=">=", lhs=lambda ctx, v: (v.x**2 - r) ** 2 * (1 + v.y**2) + (v.y - 1) ** 2,
                              rhs=lambda ctx, v: ctx.const(0))])
    check = claim.checks()[0]
    sos = sos_certificate(check, _domain(check))
    assert sos is not None and check_certificate(sos) is None


def test_a_tampered_certificate_is_rejected():
    claim, _ = touching_squares(np.random.default_rng(0), Fraction(0))
    check = claim.checks()[0]
    sos = sos_certificate(check, _domain(check))
    bad = dict(sos, terms=[dict(sos["terms"][0], weight="-1")] + list(sos["terms"][1:]))
    assert check_certificate(bad) is not None
    bad = dict(sos, constant="1/1000")
    assert check_certificate(bad) == "the identity does not hold"


@pytest.mark.parametrize("lhs, reason", [(lambda ctx, v: ctx.exp(v.x), "(exp)"), (lambda ctx, v: [][1], "(IndexError)")])
def test_a_claim_with_exp_or_that_raises_is_named_not_a_sum_of_squares_problem(lhs, reason):
    # exp is seen in the exported graph at once; a claim that raises is named, never raised through
    claim = Claim(id="n", title="t", statement="s", dims=[], variables=[Scalar("x", lo=-1, hi=1)],
                  parts=[Part("main", lhs=lhs, rhs=lambda ctx, v: v.x * v.x)]).checks()[0]
    why = SumOfSquares().applies(claim, make_proof_box(claim, {}))
    assert why is not None and reason in why, why
