"""A simplex of any total and a sphere of any rational radius squared (issue 28's kinds):
hard examples on them get found, from a fresh seed, exactly on the set.

The families (``domain_families.SCALED_FAMILIES``) draw the size, the total or radius squared,
and the extremal point from the seed: a vertex of the scaled simplex, a rational point inside
it, a rational point of the sphere (Cauchy-Schwarz's equality point: a strict claim false
there and nowhere else), a small cap of the sphere.  Every family is refuted on seeds 0-4 at
the default budget with a counterexample on its set that an independent certifier confirms;
true claims on both kinds survive.  (Before these kinds existed, none of this could be stated.)
"""

from __future__ import annotations

import dataclasses

import pytest

from verifier.engine import QUICK, run_check

from .domain_families import SCALED_FAMILIES, SCALED_TRUE_FAMILIES, assert_refuted_on_the_set


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("family", sorted(SCALED_FAMILIES))
def test_family_is_refuted_on_the_scaled_set(family, seed):
    assert_refuted_on_the_set(SCALED_FAMILIES[family](seed).checks()[0], seed)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("kind", sorted(SCALED_TRUE_FAMILIES))
def test_true_claims_on_the_scaled_sets_survive(kind, seed):
    check = SCALED_TRUE_FAMILIES[kind](seed).checks()[0]
    result = run_check(check, dataclasses.replace(QUICK, seed=seed))
    assert result.verdict.value == "survived", (kind, seed, result.counterexample)
