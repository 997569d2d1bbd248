"""``verify prove`` sees a constrained variable through its exact membership hypotheses."""

from __future__ import annotations

import pytest

import numpy as np
from flint import fmpq

from tests.quality.domain_families import orthogonal_signed_permutation, thirds_simplex, true_derived, true_ordered, true_simplex, unit_inf_vertex
from verifier.contexts import ExactContext
from verifier.domains import membership_errors
from verifier.prove import make_domain, prove
from verifier.store import parse_exact


@pytest.mark.parametrize("make", [true_simplex, true_ordered, true_derived])
def test_z3_proves_true_claims_on_the_sets(make):
    check = make(1).checks()[0]
    dims = {d.name: d.lo for d in check.dims}
    proof = prove(check, make_domain(check, dims), method="smt", time_limit=30)
    assert proof.result.verdict.value == "proved", proof.result.message


@pytest.mark.parametrize("make", [thirds_simplex, unit_inf_vertex, orthogonal_signed_permutation])
def test_z3_models_are_certified_points_on_the_sets(make):
    check = make(2).checks()[0]
    dims = {d.name: d.lo for d in check.dims}
    proof = prove(check, make_domain(check, dims), method="smt", time_limit=30)
    assert proof.result.verdict.value == "refuted", proof.result.message
    cx = proof.result.counterexample
    point = {k: np.vectorize(lambda s: fmpq(parse_exact(s).numerator, parse_exact(s).denominator), otypes=[object])(np.asarray(v, dtype=object))[None]
             for k, v in cx.vars.items()}
    assert membership_errors(check, point, cx.dims, ExactContext()) is None
