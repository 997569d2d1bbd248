"""Taylor series of the claim's own functions (verifier.prove.taylor) and the simplest rational.

Every smooth function of the ctx table expands by its row alone (value from the ball form, the
rest from the row's derivative on series one order lower).  Checked against mpmath's numerical
Taylor coefficients at random points: each ball must contain mpmath's value, at a point (exact
coefficients) and over an interval (the Lagrange remainder's enclosure).
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from verifier.contexts import FUNCTIONS
from verifier.prove.jets import interval_ball
from verifier.prove.taylor import ball_series, coefficients, exact_series, symbolic_series
from verifier.prove.touching import simplest_rational

#: function -> (mpmath form, interval of points drawn)
MP = {
    "exp": (mpmath.exp, (-2, 2)), "log": (mpmath.log, (F(1, 4), 3)), "sqrt": (mpmath.sqrt, (F(1, 4), 3)),
    "tanh": (mpmath.tanh, (-2, 2)), "sigmoid": (lambda x: 1 / (1 + mpmath.exp(-x)), (-3, 3)),
    "softplus": (lambda x: mpmath.log1p(mpmath.exp(x)), (-3, 3)), "erf": (mpmath.erf, (-2, 2)),
    "sin": (mpmath.sin, (-3, 3)), "cos": (mpmath.cos, (-3, 3)), "log1p": (mpmath.log1p, (F(-1, 2), 3)),
    "expm1": (mpmath.expm1, (-2, 2)), "lambertw": (lambda x: mpmath.re(mpmath.lambertw(x)), (F(-1, 4), 3)),
}
ORDER = 5


def _expand(ctx, name, point):
    with ctx.precision():
        x = ctx.wrap(np.asarray([ctx.line(point, 1)], dtype=object))
        return coefficients(getattr(ctx, name)(x)[0])


def test_every_smooth_function_of_the_table_has_a_series():
    smooth = {f.name for f in FUNCTIONS if not f.piecewise and not f.exponent}
    assert smooth == set(MP)


@pytest.mark.parametrize("name", sorted(MP))
def test_series_at_a_point_and_over_an_interval_enclose_mpmath_taylor_coefficients(name):
    fn, (lo, hi) = MP[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    ctx = ball_series(128, ORDER)
    for _ in range(3):
        a = F(lo) + (F(hi) - F(lo)) * F(int(rng.integers(1, 64)), 64)
        width = F(1, 32)
        with mpmath.workdps(40):
            exact = mpmath.taylor(fn, mpmath.mpf(a.numerator) / a.denominator, ORDER)
            inside = mpmath.taylor(fn, (mpmath.mpf(a.numerator) / a.denominator) + mpmath.mpf(1) / 97, ORDER)
        at_point = _expand(ctx, name, a)
        over = _expand(ctx, name, interval_ball(a, a + width))
        for k in range(ORDER + 1):
            assert abs(float(at_point[k].mid()) - float(exact[k])) <= float(at_point[k].rad()) + 1e-30, (name, a, k)
            assert over[k].lower() <= float(inside[k]) <= over[k].upper(), (name, a, k, over[k], inside[k])


def test_power_series_with_a_constant_and_a_variable_exponent():
    ctx = ball_series(128, 4)
    with ctx.precision(), mpmath.workdps(40):
        x = ctx.wrap(np.asarray([ctx.line(F(2), 1)], dtype=object))
        out = coefficients(ctx.power(x, F(3, 2))[0])
        want = mpmath.taylor(lambda t: t ** mpmath.mpf(1.5), 2, 4)
        assert all(abs(mpmath.mpf(c.mid().str(40, radius=False)) - w) < 1e-25 for c, w in zip(out, want))
        # x^p along x = 2 + t, p = 3/2 + t: d^k/dt^k of (2 + t)^(3/2 + t)
        p = ctx.wrap(np.asarray([ctx.line(F(3, 2), 1)], dtype=object))
        out = coefficients(ctx.power(x, p)[0])
        want = mpmath.taylor(lambda t: (2 + t) ** (mpmath.mpf(1.5) + t), 0, 4)
        assert all(abs(mpmath.mpf(c.mid().str(40, radius=False)) - w) < 1e-25 for c, w in zip(out, want))


def test_exact_and_symbolic_series_agree_where_the_values_are_rational():
    for ctx in (exact_series(4), symbolic_series(4)):
        with ctx.precision():
            x = ctx.wrap(np.asarray([ctx.line(F(1, 3), 1)], dtype=object))
            out = coefficients((x * x * x - 2 * x + F(1, 3))[0])
        assert [F(str(c)) for c in out] == [F(1, 27) - F(2, 3) + F(1, 3), F(1, 3) - 2, 1, 1, 0]


def test_a_kink_on_the_line_breaks_the_series_without_raising():
    ctx = ball_series(64, 3)
    with ctx.precision():
        x = ctx.wrap(np.asarray([ctx.line(F(0), 1)], dtype=object))
        assert coefficients(ctx.abs(x)[0]) is None
        assert coefficients(ctx.abs(x + 1)[0]) is not None
        assert coefficients(ctx.sqrt(x)[0]) is None  # sqrt is not smooth at 0


def test_a_product_of_a_ball_with_itself_is_never_negative():
    ctx = ball_series(64, 4)
    with ctx.precision():
        x = ctx.wrap(np.asarray([ctx.line(interval_ball(F(-1, 8), F(1, 8)), 1)], dtype=object))
        c = coefficients((x**4)[0])
    assert c[2] >= 0 and c[0] >= 0


@pytest.mark.parametrize("lo, hi, want", [
    (F(0), F(1, 64), F(0)), (F(1, 2), F(1), F(1)), (F(-3, 8), F(-1, 4), F(-1, 3)), (F(36, 100), F(38, 100), F(3, 8)),
    (F(3699, 10000), F(3701, 10000), F(37, 100)), (F(5, 3), F(5, 3), F(5, 3)), (F(-7, 2), F(-13, 4), F(-7, 2)),
])
def test_the_simplest_rational_of_an_interval(lo, hi, want):
    assert simplest_rational(lo, hi) == want


def test_the_simplest_rational_has_the_least_denominator_in_its_interval():
    rng = np.random.default_rng(0)
    for _ in range(200):
        a = F(int(rng.integers(-1000, 1000)), int(rng.integers(1, 300)))
        b = a + F(int(rng.integers(1, 50)), int(rng.integers(50, 5000)))
        q = simplest_rational(a, b)
        assert a <= q <= b
        assert not any(a <= F(k, d) <= b for d in range(1, q.denominator) for k in range(int(a * d) - 1, int(b * d) + 2))
