"""Simple rationals near a point: the ladder of ``limit_denominator`` from one expansion."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from verifier.rational_points import DENOMINATORS, limit_denominators


def _values(seed, count):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        kind = rng.integers(5)
        if kind == 0:  # floats, as the search hands them over
            out.append(Fraction(float(rng.uniform(-10, 10))))
        elif kind == 1:  # small rationals, some already on the ladder
            out.append(Fraction(int(rng.integers(-500, 501)), int(rng.integers(1, 401))))
        elif kind == 2:  # midway between two neighbours: the tie rule decides
            b = int(rng.integers(1, 60))
            out.append(Fraction(2 * int(rng.integers(-300, 301)) + 1, 2 * b))
        elif kind == 3:  # far from 1 in size
            out.append(Fraction(float(rng.uniform(-1, 1) * 10.0 ** rng.integers(-30, 30))))
        else:  # integers
            out.append(Fraction(int(rng.integers(-10**6, 10**6))))
    return out


@pytest.mark.parametrize("seed", range(3))
def test_the_ladder_is_limit_denominator_at_every_rung(seed):
    bounds = list(DENOMINATORS) + [1, 11, 1000, 10**6]
    for v in _values(seed, 2000):
        got = limit_denominators(v, bounds)
        for m in bounds:
            assert Fraction(int(got[m].p), int(got[m].q)) == v.limit_denominator(m), (v, m)


def _float_point(xs):
    from flint import fmpq

    return np.array([fmpq(*Fraction(float(x)).as_integer_ratio()) for x in xs], dtype=object)


@pytest.mark.parametrize("seed", range(5))
def test_a_common_denominator_is_recovered_from_floats_where_rounding_each_coordinate_fails(seed):
    """p / q with q in 101..9999, seen through float64 (and 1e-9 of noise): one lattice
    reduction gives back every coordinate; rounding each alone to denominators <= 100 cannot."""
    from verifier.rational_points import common_denominator

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 9))
    q = int(rng.integers(101, 10**4))
    exact = [Fraction(int(rng.integers(-3 * q, 3 * q)), q) for _ in range(n)]
    exact[0] = Fraction(int(rng.integers(1, q)) * q + 1, q)  # at least one coordinate in lowest terms
    noisy = [float(x) + float(rng.uniform(-1e-9, 1e-9)) for x in exact]
    got = common_denominator(_float_point(noisy), 10**6)
    assert [Fraction(int(v.p), int(v.q)) for v in got] == exact
    assert [x.limit_denominator(100) for x in exact] != exact


def test_no_common_denominator_is_invented_for_unrelated_coordinates():
    from verifier.rational_points import common_denominator

    rng = np.random.default_rng(0)
    for _ in range(20):
        assert common_denominator(_float_point(rng.standard_normal(4)), 10**9) is None
