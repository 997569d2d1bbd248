"""Dong, Cordonnier & Loukas 2021 (arXiv 2103.03404) on row-stochastic matrices, stated with ``Stochastic``.

Their analysis of pure attention bounds the residual ``res(X) = X - 1 x^T`` in the composite
norm ``sqrt(||.||_1 ||.||_inf)`` and uses that an attention matrix ``P`` is row-stochastic:
``||P||_inf = 1`` (every row sums to 1), so ``||P X||_inf <= ||X||_inf`` for every ``X``, with
``||.||_inf`` the largest absolute row sum.  The ``l1`` half has no such bound: ``||P||_1`` is
the largest column sum of ``P``, up to n when every row attends to one token.

Readings: ``inf`` (the fact as used; true) and ``l1`` (the same bound read with the largest
absolute column sum; false, and the search must say so from a fresh seed).  Waiting for
the second pack of "Any paper" (branch library9); the lead moves it there.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from verifier import Claim, Dim, Matrix, Part, Reading, Stochastic
from verifier.engine import SearchConfig, run_check


def _norm(ctx, x, which):
    # inf: max over rows of the row's l1 norm; 1: max over columns of the column's l1 norm
    axis, other = (2, 1) if which == "inf" else (1, 1)
    return ctx.max(ctx.sum(ctx.abs(x), axis=axis), axis=other)


DONG_ROW_STOCHASTIC = Claim(
    id="dong-P-norm",
    title="A row-stochastic matrix does not increase the infinity norm",
    statement="For every row-stochastic P (n x n) and every X (n x d): ||P X||_inf <= ||X||_inf.",
    paper="dong-2021",
    location="Section 2 (the l1/l-inf bounds of the residual)",
    variables=(Stochastic("P", "n", "n", description="attention matrix"), Matrix("X", "n", "d")),
    dims=(Dim("n", 1, 5), Dim("d", 1, 3)),
    parts=(Part("main", lambda ctx, v: _norm(ctx, v.P @ v.X, v.params["norm"]), lambda ctx, v: _norm(ctx, v.X, v.params["norm"]),
                lhs_text="||P X||", rhs_text="||X||"),),
    readings=(Reading("inf", "||.|| is the largest absolute row sum (the norm the paper uses here).", params={"norm": "inf"}),
              Reading("l1", "||.|| read as the largest absolute column sum.", params={"norm": "1"})),
)


@pytest.mark.parametrize("seed", range(5))
def test_the_inf_norm_fact_survives_and_the_l1_reading_is_refuted(seed):
    inf = run_check(DONG_ROW_STOCHASTIC.checks(reading="inf")[0], SearchConfig(seed=seed, budget=40_000))
    assert inf.verdict.value == "survived"
    l1 = run_check(DONG_ROW_STOCHASTIC.checks(reading="l1")[0], SearchConfig(seed=seed))
    assert l1.verdict.value == "refuted"
    rows = l1.counterexample.vars["P"]
    assert all(sum(Fraction(x) for x in row) == 1 for row in rows)
