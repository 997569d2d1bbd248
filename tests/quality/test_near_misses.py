"""Near misses become counterexamples (issue 27): one seeded family per way the search used to
stop one step short, each refuted from seeds 0-4 at the default budget.

The families are in :mod:`tests.quality.near_miss_families`; member ``s`` is searched from
seed ``s``, so five different claims are tried per family.  Each family's docstring says why
its claims are false; the tests check the counterexample against that, by the certificate's
own exact numbers where the claim stays rational.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from tests.quality.near_miss_families import (aligned_hyperparameter, irrational_peak, largest_size_only, rugged_position,
                                              spread_vectors, strict_boundary_ratio)
from verifier.engine import SearchConfig, run_check
from verifier.results import Verdict
from verifier.evidence import parse_exact
from verifier.tighten import tighten

SEEDS = range(5)


def refuted(claim, seed):
    r = run_check(claim.checks()[0], SearchConfig(seed=seed, shrink=False))
    assert r.verdict is Verdict.REFUTED, (claim.statement, seed, r.stop_reason, r.stats.best_relative_margin)
    assert r.certified and parse_exact(r.counterexample.margin) < 0
    return r


@pytest.mark.parametrize("seed", SEEDS)
def test_below_float64_at_an_irrational_point(seed):
    """1. A peak's height quoted as its float64 value or to 16 digits: found at dps digits,
    where float64's rounding exceeds the margin."""
    claim, excess = irrational_peak(seed)
    r = refuted(claim, seed)
    assert r.counterexample.found_by.phase == "deep"
    assert r.method == "interval"
    lhs, rhs = parse_exact(r.counterexample.lhs), parse_exact(r.counterexample.rhs)
    assert 0 < (lhs - rhs) / rhs <= 2 * excess  # above C, by no more than the supremum is


@pytest.mark.parametrize("seed", SEEDS)
def test_the_hyperparameter_and_the_weights_together(seed):
    """2. A constant quoted to 7 decimals, false only where a direction and a scale are both tuned."""
    claim, excess = aligned_hyperparameter(seed)
    r = refuted(claim, seed)
    lhs, rhs = parse_exact(r.counterexample.lhs), parse_exact(r.counterexample.rhs)
    assert 0 < (lhs - rhs) / rhs <= 2 * excess


@pytest.mark.parametrize("seed", SEEDS)
def test_the_largest_size_only(seed):
    """3. False only at the largest size of the range, with a decoy near-tie at size 1."""
    claim, top = largest_size_only(seed)
    r = refuted(claim, seed)
    assert r.counterexample.dims == {"n": top}


@pytest.mark.parametrize("seed", SEEDS)
def test_a_rugged_one_dimensional_range(seed):
    """4. A position among 20,000 basins, false only within about 0.1 of t0."""
    claim, t0 = rugged_position(seed)
    r = refuted(claim, seed)
    t = parse_exact(r.counterexample.vars["t"])
    assert abs(t - t0) < Fraction(15, 100)


@pytest.mark.parametrize("seed", SEEDS)
def test_many_coordinates_a_max_over_pairs(seed):
    """7. The largest pairwise cosine of 10 to 24 vectors, bounded below by too much."""
    claim, c = spread_vectors(seed)
    r = refuted(claim, seed)
    assert parse_exact(r.counterexample.lhs) < c


@pytest.mark.parametrize("seed", SEEDS)
def test_a_best_constant_at_a_strict_boundary(seed):
    """8. ``verify tighten`` where the largest ratio is reached inside and on an excluded
    boundary: a certified bound at a point of the domain, the same whatever the budget."""
    claim = strict_boundary_ratio(seed)
    for budget in (20_000, 200_000):
        t = tighten(claim.checks()[0], SearchConfig(seed=seed, budget=budget))
        assert t.lower_bound is not None and t.lower_bound <= 1, (budget, t.lower_bound)  # certified: never above the truth
        assert 1 - t.lower_bound < Fraction(1, 10**12), (budget, float(t.lower_bound))  # the constant, on both budgets
        assert parse_exact(t.witness.vars["x"]) > 0  # a point of the domain
