"""One function, every context: the mathematics is written once."""

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb, fmpq

from verifier.contexts import BallContext, ExactContext, FloatContext, MPContext, NotRational, SymbolicContext


def f(ctx, x):
    # a bit of everything claims use: matmul, reductions, abs, arithmetic with ints
    return ctx.norm_inf(x @ ctx.T(x)) - ctx.sum_all(ctx.abs(x)) / 2 + ctx.max(x, -1)[:, 0]


def data():
    return [[[Fraction(1, 3), Fraction(-2)], [Fraction(5, 7), Fraction(0)]]]


def test_same_value_in_every_context():
    exact = ExactContext()
    want = f(exact, exact.asarray(np.array(data(), dtype=object)))[0]
    assert isinstance(want, fmpq)
    fl = FloatContext()
    got = f(fl, np.array([[[1 / 3, -2.0], [5 / 7, 0.0]]]))[0]
    assert got == pytest.approx(float(want), rel=1e-15)
    mp = MPContext(60)
    with mp.precision():
        v = f(mp, mp.asarray(np.array(data(), dtype=object)))[0]
        assert abs(v - mpmath.mpf(int(want.p)) / int(want.q)) < mpmath.mpf(10) ** -55
    ball = BallContext(128)
    with ball.precision():
        b = f(ball, ball.asarray(np.array(data(), dtype=object)))[0]
        assert b.contains(arb(want))
        assert b.rad() < arb(2) ** -100
    sym = SymbolicContext()
    s = f(sym, sym.asarray(np.array(data(), dtype=object)))[0]
    assert Fraction(int(s.p), int(s.q)) == Fraction(int(want.p), int(want.q))


def test_exact_context_refuses_to_leave_the_rationals():
    exact = ExactContext()
    x = exact.asarray(np.array([[Fraction(1, 2)]], dtype=object))
    with pytest.raises(NotRational):
        exact.exp(x)
    zero = exact.asarray(np.array([[0]], dtype=object))
    assert exact.exp(zero)[0, 0] == 1  # exp(0) = 1 is rational


def test_exact_context_rejects_non_finite():
    with pytest.raises(ValueError):
        ExactContext().asarray(np.array([float("nan")], dtype=object))


def test_ball_max_is_an_enclosure():
    ball = BallContext(64)
    with ball.precision():
        a = arb("0.3 +/- 0.1")
        b = arb(1) / 3
        m = ball.max(np.array([[a, b]], dtype=object), -1)[0]
    # every point of max(a, b) lies in [1/3, 0.4]
    assert m.contains(arb(1) / 3) and m.contains(arb("0.4"))
    assert not m.contains(arb("0.2"))


def test_mp_precision_is_scoped():
    before = mpmath.mp.dps
    with MPContext(80).precision():
        assert mpmath.mp.dps == 80
    assert mpmath.mp.dps == before
