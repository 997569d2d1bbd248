"""Hard examples on constrained kinds do get found, from a fresh seed, on the set.

Each family (see ``domain_families``) draws its dimension, extremal point and offset from
the seed and fails only at a vertex, a face centroid, a one-hot row, a tie, a diagonal
direction, a signed permutation or an equality point at simple rationals (1/3, sevenths).
Every family must be refuted on seeds 0-4 at the default budget, with a counterexample
that lies exactly on its set and that an independent certifier confirms; true claims of
each kind must survive.
"""

from __future__ import annotations

import dataclasses

import pytest

from verifier.engine import QUICK, SearchConfig, run_check

from .domain_families import REFUTED_FAMILIES, TRUE_FAMILIES, assert_refuted_on_the_set, irrational_derived

SEEDS = range(5)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("family", sorted(REFUTED_FAMILIES))
def test_family_is_refuted_on_the_set(family, seed):
    assert_refuted_on_the_set(REFUTED_FAMILIES[family](seed).checks()[0], seed)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("kind", sorted(TRUE_FAMILIES))
def test_true_claim_of_each_kind_survives(kind, seed):
    check = TRUE_FAMILIES[kind](seed).checks()[0]
    result = run_check(check, dataclasses.replace(QUICK, seed=seed))
    assert result.verdict.value == "survived", (kind, seed, result.counterexample)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("holds", [False, True])
def test_a_derived_variable_that_leaves_the_rationals_fails_clearly(seed, holds):
    """c = sqrt(k - a^2 - b^2) cannot be stored exactly: before any search, true claim or
    false, the run stops with one message that names c and says what to do, and certifies
    nothing (a float violation is no certificate)."""
    result = run_check(irrational_derived(seed, holds).checks()[0], SearchConfig(seed=seed, budget=5_000))
    assert result.verdict.value == "error" and result.counterexample is None
    assert result.stats.evaluations == 0
    assert "Derived c = sqrt(" in result.message and "+ - * / only" in result.message
    assert "\n" not in result.message
