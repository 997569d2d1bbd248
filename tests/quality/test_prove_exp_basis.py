"""True exp claims from a seed that the exponential basis proves and boxes cannot close.

Two families, with random rational coefficients, dimensions and boxes, none of them a claim of
the pack:

* a softmax ratio bound under a scaled perturbation (Lemma B.3's shape, with E scaled by c):
  softm(A)_ij <= e^{c D_i} softm(A - cE)_ij and e^{-c D_i} softm(A - cE)_ij <= softm(A)_ij,
  D_i = max_{j,l} |E_ij - E_il|; tight wherever a row of E is constant, so a branch and bound
  cannot close the boxes there;
* a weighted, scaled perturbation of a sum of exponentials (Lemma 4.2 (4)'s shape):
  |sum_i w_i e^{r a_i + b_i} - sum_i w_i e^{r a_i}| <= (e^eps - 1) sum_i w_i e^{r a_i + b_i}
  for ||b|| <= eps, tight at b = -eps 1.

The false members (the exponent halved, the factor halved) are refuted, never proved.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from verifier import Claim, Dim, Hypothesis, Matrix, Part, Scalar, Vector
from verifier.library import softmax
from verifier.prove import make_proof_box, prove

#: the same budget for the tree before and after: boxes cannot close these claims within it
TIME, BOXES = 30, 300


def _row_range_pairs(ctx, E):
    return ctx.max(ctx.abs(E[..., :, :, None] - E[..., :, None, :]), (-2, -1))


def softmax_ratio(seed: int, honest: bool = True):
    rng = random.Random(seed)
    c = Fraction(rng.randint(1, 7), rng.randint(1, 4))
    k = c if honest else c / 2  # halved: false wherever a row of E is not constant
    side = rng.choice(["upper", "lower"])
    sign = 1 if side == "upper" else -1

    def bound(ctx, v):
        return ctx.exp(sign * k * _row_range_pairs(ctx, v.E))[..., :, None] * softmax(ctx, v.A - c * v.E)

    P = lambda ctx, v: softmax(ctx, v.A)
    part = Part(side, lhs=P if side == "upper" else bound, rhs=bound if side == "upper" else P, elementwise=True,
                lhs_text="l", rhs_text="r")
    claim = Claim(id=f"ratio{seed}", kind="lemma", paper="t", location="-", title="t", statement=f"c = {c}, k = {k}",
                  dims=[Dim("n", 1, 3)], variables=[Matrix("A", "n", "n"), Matrix("E", "n", "n")], parts=[part])
    centre, half = Fraction(rng.randint(-4, 4), 2), Fraction(rng.randint(1, 4), 2)
    check = claim.checks()[0]
    return check, make_proof_box(check, {"n": 2}, (centre - half, centre + half))


def weighted_perturbation(seed: int, honest: bool = True):
    rng = random.Random(1000 + seed)
    n = rng.randint(2, 3)
    weights = [Fraction(rng.randint(1, 9), rng.randint(1, 4)) for _ in range(n)]
    r = Fraction(rng.choice([-3, -2, -1, 1, 2, 3]), rng.randint(1, 3))
    factor = Fraction(1) if honest else Fraction(1, 2)

    def weighted(ctx, x):
        terms = [ctx.const(w) * ctx.exp(x[..., i]) for i, w in enumerate(weights)]
        return sum(terms[1:], terms[0])

    claim = Claim(
        id=f"weighted{seed}", kind="lemma", paper="t", location="-", title="t", statement=f"w = {weights}, r = {r}",
        dims=[Dim("n", n, n)], variables=[Vector("a", "n"), Scalar("eps", lo=0), Vector("b", "n", radius="eps")],
        hypotheses=[Hypothesis("eps > 0", lambda ctx, v: v.eps, strict=True)],
        parts=[Part("main",
                    lhs=lambda ctx, v: ctx.abs(weighted(ctx, ctx.const(r) * v.a + v.b) - weighted(ctx, ctx.const(r) * v.a)),
                    rhs=lambda ctx, v: ctx.const(factor) * (ctx.exp(v.eps) - 1) * weighted(ctx, ctx.const(r) * v.a + v.b),
                    lhs_text="l", rhs_text="r")])
    check = claim.checks()[0]
    centre, half = rng.randint(-3, 3), rng.randint(1, 4)
    eps_hi = Fraction(rng.randint(1, 4), 2)
    return check, make_proof_box(check, {"n": n}, None, {"a": (Fraction(centre - half), Fraction(centre + half)),
                                                      "eps": (Fraction(1, 100), eps_hi)})


FAMILIES = {"softmax-ratio": softmax_ratio, "weighted-perturbation": weighted_perturbation}


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_true_members_are_proved(family, seed):
    check, domain = FAMILIES[family](seed)
    p = prove(check, domain, time_limit=TIME, max_boxes=BOXES)
    assert p.result.verdict.value == "proved", f"{check.claim.statement}: {p.result.message}"


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_false_members_are_refuted_never_proved(family, seed):
    check, domain = FAMILIES[family](seed, honest=False)
    p = prove(check, domain, time_limit=TIME, max_boxes=BOXES)
    assert p.result.verdict.value == "refuted" and p.result.counterexample is not None, f"{check.claim.statement}: {p.result.message}"
