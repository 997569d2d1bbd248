"""``verify prove`` sees a constrained variable through its exact membership hypotheses."""

from __future__ import annotations

import pytest

from tests.quality.domain_families import exact_point, orthogonal_signed_permutation, thirds_simplex, true_derived, true_ordered, true_simplex, unit_inf_vertex
from verifier.contexts import ExactContext
from verifier.domains import membership_errors
from verifier.prove import make_domain, prove


def _smt(check):
    dims = {d.name: d.lo for d in check.dims}
    return prove(check, make_domain(check, dims), method="smt", time_limit=30)


@pytest.mark.parametrize("make", [true_simplex, true_ordered, true_derived])
def test_z3_proves_true_claims_on_the_sets(make):
    proof = _smt(make(1).checks()[0])
    assert proof.result.verdict.value == "proved", proof.result.message


@pytest.mark.parametrize("make", [thirds_simplex, unit_inf_vertex, orthogonal_signed_permutation])
def test_z3_models_are_certified_points_on_the_sets(make):
    check = make(2).checks()[0]
    proof = _smt(check)
    assert proof.result.verdict.value == "refuted", proof.result.message
    cx = proof.result.counterexample
    assert membership_errors(check, exact_point(cx), cx.dims, ExactContext()) is None
