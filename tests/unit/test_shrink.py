from fractions import Fraction

from verifier.shrink import _simpler_values, complexity


def test_complexity_orders_simple_numbers_first():
    assert complexity(Fraction(0)) < complexity(Fraction(1)) < complexity(Fraction(1, 3)) < complexity(Fraction(123456, 7))


def test_simpler_values_are_simpler():
    q = Fraction(2332037061855653, 1237940039285380274899124224)
    cands = _simpler_values(q)
    assert cands[0] == 0
    assert all(complexity(c) <= complexity(q) for c in cands)
    assert Fraction(-3) in _simpler_values(Fraction(-80643))
