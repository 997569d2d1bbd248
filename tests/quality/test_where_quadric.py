"""``verify expr --where`` with a quadric equality: a conic through a rational point, on seeded members.

Each member draws a symmetric integer matrix (an ellipse or a hyperbola), a linear part and a
rational point ``p``, and sets the constant so that the conic passes through ``p``; the front
end must find a rational point itself and chart the conic by the lines through it.  The true
twin ``f(x, y) <= 0`` (0 on the conic) survives, the false twin ``f(x, y) <= -delta`` is
refuted at a certified point exactly on the conic; chart images of random rationals lie on it
exactly.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from flint import fmpq

from verifier.certify import Certifier
from verifier.contexts import ExactContext
from verifier.engine import QUICK, SearchConfig, run_check
from verifier.frontend import ExprRequest, build
from verifier.kinds import membership_errors

from .domain_families import exact_point


def conic(seed):
    rng = np.random.default_rng([seed, 7])
    while True:
        a, c = (int(v) for v in rng.integers(-3, 4, 2))
        b = int(rng.integers(-2, 3))
        if a and c and a * c - b * b != 0 and (a > 0 or c > 0):
            break
    d, e = (int(v) for v in rng.integers(-3, 4, 2))
    p = [Fraction(int(rng.integers(-4, 5)), int(rng.choice([1, 2, 3]))) for _ in range(2)]
    f0 = a * p[0] ** 2 + 2 * b * p[0] * p[1] + c * p[1] ** 2 + d * p[0] + e * p[1]
    text = f"{a} x^2 + {2 * b} x y + {c} y^2 + {d} x + {e} y"
    return text, f0  # the value of the quadratic at p: the conic text = f0 passes through p


def member(seed, false):
    text, value = conic(seed)
    delta = Fraction(1, 10 ** (seed % 3 + 1)) if false else 0
    where = f"{text} = ({value.numerator}/{value.denominator})"
    bound = value - delta
    statement = f"{text} <= ({bound.numerator}/{bound.denominator})"
    return build(ExprRequest(statement, ("x, y in [-20, 20]",), (), (where,), None, f"conic-{seed}"))


@pytest.mark.parametrize("seed", range(4))
def test_a_conic_is_charted_through_a_rational_point_and_decides_both_twins(seed):
    built = member(seed, false=False)
    quadric = built.claim.variables[0]
    assert quadric.domain.name == "quadric"
    check = built.claim.checks()[0]
    rng = np.random.default_rng(seed)
    for _ in range(8):  # chart images of random rationals lie on the conic exactly
        j = int(rng.integers(2))
        t = np.array([fmpq(int(rng.integers(-8, 9)), 8)], dtype=object)
        try:
            point = quadric.domain.point_of_direction(j, t)
        except ValueError:  # a direction along an asymptote
            continue
        assert quadric.domain.contains(point)
    assert run_check(check, SearchConfig(seed=seed, budget=QUICK.budget)).verdict.value == "survived"
    false = member(seed, false=True).claim.checks()[0]
    result = run_check(false, SearchConfig(seed=seed, budget=QUICK.budget))
    assert result.verdict.value == "refuted", (seed, result.stop_reason, result.message)
    point = exact_point(result.counterexample)
    assert membership_errors(false, point, {}, ExactContext()) is None
    assert Certifier(50).certify(false, point, {}).violated
