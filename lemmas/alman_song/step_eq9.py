"""Eq. (9), proof of Lemma 5.2 (Section 5.2): softm_1(X) = softm_1(R_X).

As printed:
    Let R_X = Res(X) so that X = R_X + y_X 1_d^T for some vector y_X in R^n. Using Fact 3.2,
    we can show that softm_1(X) = softm_1(R_X).   (9)

The sentence contradicts itself: Res of Definition 3.4 gives X = R_X + 1_n y^T (a constant
per *column*, y in R^d), but the proof writes X = R_X + y_X 1_d^T (a constant per *row*,
y_X in R^n), which is what Fact 3.2 (a row softmax is invariant under adding a constant to
each row) needs.  Readings:
* ``as-printed``: R_X = Res(X) of Definition 3.4 (midrange), softm_1 = softm applied to X.
* ``adversarial``: the same with any minimiser of Definition 3.4 (tX in [0, 1]^d).
* ``rowwise-res``: R_X removes the midrange of each row (the proof's X = R_X + y_X 1_d^T).
* ``attention``: softm_1(Z) = softm(Z W Z^T), the attention matrix of a head, R_X of Def. 3.4.

Hand derivation.  as-printed / adversarial: false for d >= 2 already at n = 1, where
R_X = 0 (every column range is 0) and softm(0) is uniform: X = (0, 1) gives
softm(X) = (1, e)/(1 + e) != (1/2, 1/2).  For d = 1 softm of a single column is 1 on both
sides.  rowwise-res: true by Fact 3.2 (survives, 'tight').  attention: false, since
X W X^T = R W R^T + 1 x^T W R^T + (row constants), and 1 x^T W R^T varies along rows
(n = 2, d = 1 suffices).
"""

from verifier import Claim, Dim, Matrix, Part, ProofDomain, Reading

from . import PAPER
from .common import RES_MIDRANGE, res, res_midrange, res_readings, softm


def _R(ctx, v, X):
    if v.params.get("rows"):
        return ctx.T(res_midrange(ctx, ctx.T(X)))
    return res(ctx, v, X, "tX")


def _softm_1(ctx, v, Z):
    return softm(ctx, Z @ v.W @ ctx.T(Z)) if v.params.get("attention") else softm(ctx, Z)


_midrange, _adversarial = res_readings("tX")

claim = Claim(
    id="eq9",
    kind="proof-step",
    paper=PAPER,
    location="Section 5.2, proof of Lemma 5.2, Eq. (9)",
    title="Eq. (9): softm_1(X) = softm_1(R_X)",
    statement="With R_X = Res(X): softm_1(X) = softm_1(R_X).",
    latex=r"\mathrm{softm}_1(X) = \mathrm{softm}_1(R_X)",
    notes=(
        "Res of Definition 3.4 removes a constant per column; the proof's X = R_X + y_X 1_d^T removes one per row "
        "(reading rowwise-res). softm_1 is softm applied to X itself, or (reading attention) softm(X W X^T)."
    ),
    dims=[Dim("n", 1, 4), Dim("d", 1, 4)],
    # d = 2: at d = 1 a row softmax has one entry and both sides are 1 (the audit calls that degenerate)
    prove_on=ProofDomain(dims={"n": 2, "d": 2}),
    variables=[Matrix("X", "n", "d")],
    parts=[
        Part(
            "main",
            lhs=lambda ctx, v: _softm_1(ctx, v, v.X),
            rhs=lambda ctx, v: _softm_1(ctx, v, _R(ctx, v, v.X)),
            relation="==",
            lhs_text="softm_1(X)_ij",
            rhs_text="softm_1(R_X)_ij",
        )
    ],
    readings=[
        Reading("as-printed", "R_X = Res(X) of Definition 3.4 (midrange); softm_1 = softm of X itself.", params=RES_MIDRANGE),
        Reading("adversarial", _adversarial.summary, params=_adversarial.params, extra_variables=_adversarial.extra_variables),
        Reading("rowwise-res", "R_X removes the midrange of each row, as the proof's X = R_X + y_X 1_d^T.", params={"rows": True}),
        Reading(
            "attention",
            "softm_1(Z) = softm(Z W Z^T), a head's attention matrix; R_X = Res(X) of Definition 3.4 (midrange).",
            params={**RES_MIDRANGE, "attention": True},
            extra_variables=(Matrix("W", "d", "d"),),
        ),
    ],
)
