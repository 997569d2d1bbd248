"""Rational points with larger denominators (issue 27, mechanism 5): found by rounding the
coordinates together, to one common denominator, rather than one at a time.

The families (``domain_families.LARGE_DENOMINATOR_FAMILIES``) draw from the seed a strict
claim false at one rational point only: a point of a face of the simplex whose entries have a
common denominator between 101 and 400 (Cauchy-Schwarz's equality point), and a point of a
sphere of rational radius squared whose coordinates have a common denominator up to 2000.
Float64 reaches the point to within rounding; rounding each coordinate to denominators <= 100
cannot land on it.  The tree before this step refuted 0 of 5 and 2 of 5 of them.
"""

from __future__ import annotations

import pytest

from .domain_families import LARGE_DENOMINATOR_FAMILIES, assert_refuted_on_the_set


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("family", sorted(LARGE_DENOMINATOR_FAMILIES))
def test_a_point_with_a_large_common_denominator_is_found(family, seed):
    check = LARGE_DENOMINATOR_FAMILIES[family](seed).checks()[0]
    cx = assert_refuted_on_the_set(check, seed).counterexample
    assert max(int(str(x).partition("/")[2] or 1) for values in cx.vars.values() for x in values) > 100
