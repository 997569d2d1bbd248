"""``verify prove`` sees a constrained variable through its exact membership hypotheses."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from tests.quality.domain_families import exact_point, orthogonal_signed_permutation, thirds_simplex, true_derived, true_ordered, true_simplex, unit_inf_vertex
from verifier import Simplex, Sphere
from verifier.contexts import ExactContext
from verifier.domains import membership_errors
from verifier.prove import make_proof_box, prove


def _smt(check):
    dims = {d.name: d.lo for d in check.dims}
    return prove(check, make_proof_box(check, dims), method="smt", time_limit=30)


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


def _exp_claim(var, dims, bound):
    from verifier import Claim, Dim, Part

    return Claim("e", "e", "e", variables=(var,), dims=tuple(Dim(k, n, n) for k, n in dims.items()),
                 parts=(Part("main", lambda ctx, v: ctx.sum_all(ctx.exp(v[var.name])), lambda ctx, v: ctx.const(bound)),)).checks()[0]


def test_branch_and_bound_ranges_over_the_simplex_itself():
    from verifier import Simplex, Stochastic

    # sum exp(p_i) over the 3-simplex peaks at a vertex: e + 2 < 5; rows of P peak at e + 1 each
    check = _exp_claim(Simplex("x", "n"), {"n": 3}, 5)
    proved = prove(check, make_proof_box(check, {"n": 3}), method="branch-and-bound", time_limit=30)
    assert proved.result.verdict.value == "proved", proved.result.message
    check = _exp_claim(Stochastic("x", "n", "n"), {"n": 2}, 7)
    refuted = prove(check, make_proof_box(check, {"n": 2}), method="branch-and-bound", time_limit=30)
    assert refuted.result.verdict.value == "refuted"
    cx = refuted.result.counterexample
    assert membership_errors(check, exact_point(cx), cx.dims, ExactContext()) is None


@pytest.mark.parametrize("make, n, w, top", [
    (lambda: Sphere("x", "n", 3), 3, (1, 2, -1), 18),  # max <w, x> = |w| sqrt(3), squared
    (lambda: Sphere("x", "n", "1/2"), 2, (3, 1), 5),
    (lambda: Simplex("x", "n", "5/2"), 3, (1, 2, -1), 25),  # max 5/2 * 2 = 5
])
def test_branch_and_bound_ranges_over_a_sphere_and_a_scaled_simplex(make, n, w, top):
    """exp(<w, x>) against exp(sqrt(top) +- 1/4): proved above, refuted below at a point on the set."""
    from verifier import Claim, Dim, Part

    var = make()
    best = Fraction(float(np.sqrt(top))).limit_denominator(1000)
    for gap, verdict in ((Fraction(1, 4), "proved"), (-Fraction(1, 4), "refuted")):
        check = Claim("e", "e", "e", variables=(var,), dims=(Dim("n", n, n),),
                      parts=(Part("main", lambda ctx, v: ctx.exp(ctx.sum(v.x * np.asarray(w, dtype=object), -1)),
                                  lambda ctx, v, b=best + gap: ctx.exp(ctx.const(b))),)).checks()[0]
        p = prove(check, make_proof_box(check, {"n": n}), method="branch-and-bound", time_limit=60)
        assert p.result.verdict.value == verdict, p.result.message
        assert f"x on the {var.domain.name} set" in p.result.domain
        if verdict == "refuted":
            cx = p.result.counterexample
            assert membership_errors(check, exact_point(cx), cx.dims, ExactContext()) is None


def test_branch_and_bound_says_which_kinds_it_cannot_parametrise():
    from verifier import Orthogonal
    from verifier.prove import BoundedDomainError

    check = _exp_claim(Orthogonal("x", "n"), {"n": 4}, 30)
    with pytest.raises(BoundedDomainError, match="up to n = 3 .*not n = 4"):
        prove(check, make_proof_box(check, {"n": 4}), method="branch-and-bound", time_limit=5)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("holds", [False, True])
def test_prove_refuses_an_irrational_derived_variable_naming_it(seed, holds):
    """z3 and branch and bound would both need c = sqrt(...) exactly: one clear error, true or false claim alike."""
    from tests.quality.domain_families import irrational_derived
    from verifier.prove import MethodError

    check = irrational_derived(seed, holds).checks()[0]
    with pytest.raises(MethodError, match="Derived c = sqrt.*irrational.*define c with"):
        prove(check, make_proof_box(check, {}), time_limit=5)
