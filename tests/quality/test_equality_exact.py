"""Issue 34 (exact half): tight claims whose touching point is irrational.

Seeded families, nothing tuned to them: ``x + c/x >= 2 sqrt(c)`` for x > 0 with a random
non-square c (touching at x = sqrt c), and ``(x^2 - 2 p x + p^2 - q^2 r)^2 + 1 >= 1`` with a random
quadratic irrational centre ``p + q sqrt r``.  Each true member is proved (or survives), each
strict twin is REFUTED at the algebraic point with a certificate that a fresh exact re-check
(read back from its stored strings) accepts -- never the other way round.  On the tree before,
every strict twin survived (no rational point refutes it).
"""

from fractions import Fraction

import numpy as np
import pytest

from verifier import Claim, Hypothesis, Part, Scalar
from verifier.algebraic import AlgebraicNumber
from verifier.algebraic_store import parse_algebraic
from verifier.certify import Certifier
from verifier.engine import SearchConfig, run_check
from verifier.prove import make_proof_box, prove
from verifier.results import Verdict

BUDGET = 40_000


def _non_square(rng, lo=2, hi=60):
    c = int(rng.integers(lo, hi))
    while int(round(c**0.5)) ** 2 == c:
        c += 1
    return c


def am_gm(c: int, relation: str) -> Claim:
    return Claim(
        id=f"T.amgm{c}{relation}", title=f"x + {c}/x {relation} 2 sqrt({c})", statement=f"x + {c}/x {relation} 2 sqrt({c}) for x > 0",
        dims=[], variables=[Scalar("x", lo=0, hi=100)], hypotheses=[Hypothesis("x > 0", lambda ctx, v: v.x, strict=True)],
        parts=[Part("main", relation=relation, lhs=lambda ctx, v: v.x + c / v.x, rhs=lambda ctx, v: 2 * ctx.sqrt(c))],
    )


def centred_square(p: int, q: int, r: int, relation: str) -> Claim:
    k = Fraction(p * p - q * q * r)
    return Claim(
        id=f"T.sq{p}_{q}_{r}{relation}", title="a square", statement=f"(x^2 - {2 * p}x + {k})^2 + 1 {relation} 1", dims=[],
        variables=[Scalar("x", lo=-20, hi=20)],
        parts=[Part("main", relation=relation, lhs=lambda ctx, v: (v.x * v.x - 2 * p * v.x + k) ** 2 + 1, rhs=lambda ctx, v: 1)],
    )


def _assert_refuted_at_algebraic_point(claim: Claim, expected: float):
    check = claim.checks()[0]
    r = run_check(check, SearchConfig(seed=0, budget=BUDGET))
    assert r.verdict is Verdict.REFUTED, (claim.statement, r.verdict, r.message)
    cx = r.counterexample
    assert cx.method == "algebraic" and cx.margin == "0"
    x = parse_algebraic(cx.vars["x"])  # read back from the stored string, checked exactly
    assert isinstance(x, AlgebraicNumber) and abs(float(x) - expected) < 1e-9
    again = Certifier(50, confirm="always").certify(check, {"x": np.array([x], dtype=object)}, {})
    assert again.violated and again.method == "algebraic" and again.exact_margin == 0


@pytest.mark.parametrize("seed", range(3))
def test_am_gm_with_an_irrational_touching_point(seed):
    c = _non_square(np.random.default_rng(seed))
    _assert_refuted_at_algebraic_point(am_gm(c, ">"), c**0.5)
    true = am_gm(c, ">=").checks()[0]
    assert run_check(true, SearchConfig(seed=0, budget=BUDGET)).verdict is Verdict.SURVIVED
    proof = prove(true, make_proof_box(true, {}), time_limit=20)
    assert proof.result.verdict is Verdict.PROVED, proof.result.message


@pytest.mark.parametrize("seed", range(3))
def test_a_square_vanishing_at_a_random_quadratic_irrational(seed):
    rng = np.random.default_rng(100 + seed)
    p, q, r = int(rng.integers(-4, 5)), int(rng.integers(1, 3)), _non_square(rng, 2, 12)
    roots = (p - q * r**0.5, p + q * r**0.5)
    claim = centred_square(p, q, r, ">")
    check = claim.checks()[0]
    result = run_check(check, SearchConfig(seed=0, budget=BUDGET))
    assert result.verdict is Verdict.REFUTED, (claim.statement, result.message)
    x = parse_algebraic(result.counterexample.vars["x"])
    assert min(abs(float(x) - t) for t in roots) < 1e-9
    assert Certifier(50, confirm="always").certify(check, {"x": np.array([x], dtype=object)}, {}).violated
    true = centred_square(p, q, r, ">=").checks()[0]
    assert run_check(true, SearchConfig(seed=0, budget=BUDGET)).verdict is Verdict.SURVIVED
