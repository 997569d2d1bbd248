"""Branch and bound on unit vectors and orthogonal matrices: claims drawn from a seed.

Each claim is ``exp(<W, X>) <= exp(c)`` over a set whose maximum of ``<W, X>`` is known in
closed form -- the dual norm of ``w`` on a unit sphere (||w||_2, ||w||_1, ||w||_inf for the
2-, max- and l1-spheres), the nuclear norm of ``W`` on the orthogonal group (n = 2; n = 3 once) -- with ``c`` a
quarter above it (true: proved) or below it (false: refuted at a point exactly on the set).
The weights and sizes come from the seed; nothing is tuned to the prover.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from verifier import Claim, Dim, Orthogonal, Part, UnitVector
from verifier.contexts import ExactContext
from verifier.domains import membership_errors
from verifier.prove import make_proof_box, prove
from verifier.evidence import parse_exact

GAP = Fraction(1, 4)


def _weights(rng, shape):
    while True:
        w = rng.integers(-3, 4, shape)
        if np.any(w):
            return w


def _family(kind, seed, true, gap=GAP):
    rng = np.random.default_rng(seed)
    if kind.startswith("orthogonal"):
        n = 3 if kind == "orthogonal-3" else 2
        w = _weights(rng, (n, n))
        best = float(np.linalg.svd(w, compute_uv=False).sum())
        var = Orthogonal("X", "n")
    else:
        n = int(rng.integers(2, 4))
        w = _weights(rng, (n,))
        norm = kind.split("-")[1]
        best = float({"2": np.linalg.norm(w), "inf": np.abs(w).sum(), "1": np.abs(w).max()}[norm])
        var = UnitVector("X", "n", norm=1 if norm == "1" else norm if norm == "inf" else 2)
    # a rational bound a quarter away from the maximum (which is irrational for the 2-norm)
    bound = Fraction(best).limit_denominator(1000) + (gap if true else -gap)
    weights = [int(x) for x in w.ravel()]

    def lhs(ctx, v):
        x = v["X"].reshape(v["X"].shape[0], -1)
        return ctx.exp(ctx.sum(x * np.asarray(weights, dtype=object), -1))

    claim = Claim("sets", "seeded", f"exp(<W, X>) <= exp({bound})", variables=(var,), dims=(Dim("n", n, n),),
                  parts=(Part("main", lhs, lambda ctx, v: ctx.exp(ctx.const(bound))),))
    return claim.checks()[0], n


KINDS = ["unit-2", "unit-inf", "unit-1", "orthogonal"]


def _proved(kind, seed, true, gap=GAP):
    """The member's branch-and-bound proof on its smallest dims, and the member's check."""
    check, n = _family(kind, seed, true=true, gap=gap)
    return prove(check, make_proof_box(check, {"n": n}), method="branch-and-bound", time_limit=120), check


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", range(3))
def test_true_claims_on_the_sets_are_proved(kind, seed):
    p, _ = _proved(kind, seed, true=True)
    assert p.result.verdict.value == "proved", p.result.message
    assert p.details.volume_proved == 1.0 and f"X on the {'orthogonal' if kind == 'orthogonal' else 'unit-vector'} set" in p.result.domain


def test_rotations_and_reflections_in_three_dimensions():
    """n = 3 through quaternions: a maximum inside a chart needs boxes as small as the square
    root of the gap, in three parameters -- a wider gap keeps the test short."""
    p, _ = _proved("orthogonal-3", 7, true=True, gap=Fraction(3, 2))
    assert p.result.verdict.value == "proved", p.result.message
    p, _ = _proved("orthogonal-3", 7, true=False, gap=Fraction(3, 2))
    assert p.result.verdict.value == "refuted" and p.result.certified


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", range(3))
def test_false_claims_on_the_sets_are_refuted_on_the_set(kind, seed):
    p, check = _proved(kind, seed, true=False)
    assert p.result.verdict.value == "refuted", p.result.message
    cx = p.result.counterexample
    assert p.result.certified and parse_exact(cx.margin) < 0
    point = {k: np.asarray([[Fraction(x) for x in np.ravel(v)]], dtype=object).reshape((1,) + np.shape(v)) for k, v in cx.vars.items()}
    assert membership_errors(check, point, cx.dims, ExactContext()) is None
