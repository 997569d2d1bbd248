"""``verify expr --where`` with piecewise-linear equalities, on seeded members.

* an interval: ``|x - p| + |x - q| = q - p`` is ``x in [p, q]``; on it ``(x - p)(x - q) <= 0`` holds
  (survives, proved) and ``<= -delta`` fails at the ends (refuted at a certified point);
* a square's boundary: ``|(x - a) + (y - b)| + |(x - a) - (y - b)| = 2 r`` is four segments; on it
  ``x^2 + y^2 <= (|a| + r)^2 + (|b| + r)^2`` holds (tight at a corner) and ``- delta`` fails there.
p, q, a, b, r and delta are drawn from the seed; the verdicts are the engine's.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from verifier.certify import Certifier
from verifier.engine import QUICK, SearchConfig, run_check
from verifier.frontend import ExprRequest, build
from verifier.prove import make_proof_box, prove

from .domain_families import exact_point


def _t(q: Fraction) -> str:
    return f"({q.numerator}/{q.denominator})"


def interval_member(seed, false):
    rng = np.random.default_rng([seed, 5])
    p = Fraction(int(rng.integers(-8, 5)), int(rng.choice([1, 2, 3])))
    q = p + Fraction(int(rng.integers(1, 9)), int(rng.choice([1, 2, 4])))
    delta = Fraction(1, 10 ** int(rng.integers(1, 4))) if false else 0
    statement = f"(x - {_t(p)}) (x - {_t(q)}) <= -{_t(delta)}"
    return build(ExprRequest(statement, ("x",), (), (f"|x - {_t(p)}| + |x - {_t(q)}| = {_t(q - p)}",), None, f"interval-{seed}")), (p, q)


def square_member(seed, false):
    rng = np.random.default_rng([seed, 6])
    a, b = (Fraction(int(rng.integers(-6, 7)), int(rng.choice([1, 2]))) for _ in range(2))
    r = Fraction(int(rng.integers(1, 7)), int(rng.choice([1, 2])))
    top = (abs(a) + r) ** 2 + (abs(b) + r) ** 2 - (Fraction(1, 10 ** int(rng.integers(1, 4))) if false else 0)
    where = f"|(x - {_t(a)}) + (y - {_t(b)})| + |(x - {_t(a)}) - (y - {_t(b)})| = {_t(2 * r)}"
    return build(ExprRequest(f"x^2 + y^2 <= {_t(top)}", ("x, y",), (), (where,), None, f"square-{seed}"))


@pytest.mark.parametrize("seed", range(4))
def test_an_interval_condition_narrows_the_variable_and_decides_both_twins(seed):
    built, (p, q) = interval_member(seed, false=False)
    x = built.claim.variables[0]
    assert (x.lo.exact, x.hi.exact) == (p, q) and f"solved as x \u2208 [" in built.claim.notes
    check = built.claim.checks()[0]
    assert run_check(check, SearchConfig(seed=seed, budget=QUICK.budget)).verdict.value == "survived"
    assert prove(check, make_proof_box(check, {}), time_limit=30).result.verdict.value == "proved"
    false, _ = interval_member(seed, false=True)
    result = run_check(false.claim.checks()[0], SearchConfig(seed=seed, budget=QUICK.budget))
    assert result.verdict.value == "refuted" and Fraction(result.counterexample.vars["x"]) in (p, q)


@pytest.mark.parametrize("seed", range(4))
def test_a_square_boundary_is_four_segments_and_decides_both_twins(seed):
    built = square_member(seed, false=False)
    pieces = built.claim.variables[0].domain
    assert pieces.name == "pieces" and len(pieces.pieces) == 4 and all(p.dimension == 1 for p in pieces.pieces)
    check = built.claim.checks()[0]
    assert run_check(check, SearchConfig(seed=seed, budget=QUICK.budget)).verdict.value == "survived"
    assert prove(check, make_proof_box(check, {}), time_limit=30).result.verdict.value == "proved"
    false = square_member(seed, false=True).claim.checks()[0]
    result = run_check(false, SearchConfig(seed=seed, budget=QUICK.budget))
    assert result.verdict.value == "refuted", result.stop_reason
    assert Certifier(50).certify(false, exact_point(result.counterexample), result.counterexample.dims).violated
