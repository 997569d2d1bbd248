"""Lemma B.3 (softmax under a perturbation of bounded balance), Appendix B.

As printed:
    Lemma B.3. If P = softm(A), A~ = A - E, P~ = softm(A~) and D is defined as in Definition
    3.5, D_ii := max_{j,l} |E_ij - E_il|, then for all i, j in [n]
        e^{-D_ii} P~_ij <= P_ij <= e^{D_ii} P~_ij.

Reading.  A, E in R^{n x n}; softm is the row softmax (Definition 3.1).  Part ``lower`` is
the left inequality, part ``upper`` the right one, each for every (i, j).

Hand derivation (true).  P_ij = exp(A~_ij) / sum_l exp(A~_il) exp(E_il - E_ij), and every
E_il - E_ij lies in [-D_ii, D_ii], so the denominator is within a factor e^{+-D_ii} of
sum_l exp(A~_il): P_ij in [e^{-D_ii} P~_ij, e^{D_ii} P~_ij].  Equality holds when D_ii = 0
(rows of E constant, then P = P~ exactly: margins 0); otherwise both bounds are strict, and
approached only as P~_ij -> 0 with E_ij an extreme of its row.
"""

from verifier import Claim, Dim, Matrix, Part, ProofDomain

from . import PAPER
from .common import softm
from .definition_3_5 import pairwise_balance


def _P(ctx, v):
    return softm(ctx, v.A)


def _Ptilde(ctx, v):
    return softm(ctx, v.A - v.E)


def _eD(ctx, v, sign):
    return ctx.exp(sign * pairwise_balance(ctx, v.E))[..., :, None]


claim = Claim(
    id="B.3",
    kind="lemma",
    paper=PAPER,
    location="Appendix B",
    title="Softmax ratio bound under a balanced perturbation",
    statement="P = softm(A), P~ = softm(A - E), D_ii = max_{j,l} |E_ij - E_il|: e^{-D_ii} P~_ij <= P_ij <= e^{D_ii} P~_ij.",
    latex=r"e^{-D_{i,i}}\widetilde P_{i,j} \le P_{i,j} \le e^{D_{i,i}}\widetilde P_{i,j}",
    notes="A, E are n x n; softm is the row softmax; D is Definition 3.5's, evaluated literally over all pairs.",
    dims=[Dim("n", 1, 5)],
    # n = 1 is trivial (softmax of one entry is 1); at n = 2 the 8 free entries leave first-order
    # enclosures undecided everywhere (0 % of the volume after 2,500 boxes): a small budget of work
    prove_on=ProofDomain(dims={"n": 2}, box=(-1, 1), max_boxes=500),
    variables=[Matrix("A", "n", "n"), Matrix("E", "n", "n")],
    parts=[
        Part(
            "lower",
            lhs=lambda ctx, v: _eD(ctx, v, -1) * _Ptilde(ctx, v),
            rhs=_P,
            elementwise=True,
            statement="e^{-D_ii} P~_ij <= P_ij for all i, j",
            lhs_text="e^{-D_ii} P~_ij",
            rhs_text="P_ij",
        ),
        Part(
            "upper",
            lhs=_P,
            rhs=lambda ctx, v: _eD(ctx, v, 1) * _Ptilde(ctx, v),
            elementwise=True,
            statement="P_ij <= e^{D_ii} P~_ij for all i, j",
            lhs_text="P_ij",
            rhs_text="e^{D_ii} P~_ij",
        ),
    ],
)
