"""Lemma 5.2 (single head), Section 5.2.

As printed (extracted text):
    Lemma 5.2 (Single Head). Let X in R^{n x d}. Let A = softm_1(X) (Recall that softm()
    function is defined as Definition 3.1. Note that softm_1 and softm_2 are two different
    instantiations with different W_k, W_q, W_v weights). Let B = X + A. Suppose
    ||Res(A)||_inf <= K ||Res(X)||_inf <= eps. (We remark that this condition will hold due
    to Lemma 5.1; here K is as defined in Lemma 5.1). Let g(eps) := 2(e^eps - 1) and let
    eps_0 = 2 g(2 eps). Then we can show ||softm_2(B) - softm_2(X)||_inf <= eps_0.

The statement is ambiguous: softm_i "with weights" is never defined, B = X + A needs A to
be n x d, and Appendix C says the lemma "ignor[es] the effects of X W_v, and thus
automatically assum[es] n = d".  The proof writes X = R_X + y_X 1_d^T with y_X in R^n,
i.e. it removes a constant from each *row*, while Definition 3.4 removes one from each
column.  Readings (W_i stands for W_q,i W_k,i^T, any d x d matrix; beta is absorbed in it):
* ``as-printed``: softm_1 = softm_2 = softm of Definition 3.1 applied to the n x d matrix
  itself; K >= 0 is "some K" (no weights, so Lemma 5.1's K is undefined); Res as Def. 3.4.
* ``rowwise-res``: as ``as-printed``, but Res removes a constant from each row, as the
  proof's X = R_X + y_X 1_d^T does.
* ``n-equals-d``: the appendix's simplification: A = softm(X W_1 X^T), head 1's attention
  matrix, so X is n x n; softm_2(Z) = softm(Z W_2 Z^T); K >= 0 is "some K" (K of Lemma 5.1
  is (e^theta - 1) ||W_v|| with W_v playing no other role, so any K >= 0).
* ``intended``: A = softmv_1(X) = softm(X W_1 X^T) X W_v1 (Definition A.1, an n x d head
  output), softm_2(Z) = softm(Z W_2 Z^T) (the n x n attention matrix, as Lemma C.1 part 1),
  K = (e^theta - 1) ||W_v1||_inf with theta >= balance(Res(X) W_1 Res(X)^T), exactly Lemma
  5.1's K; Res midrange.
* ``intended-adversarial``: as ``intended``, Res(X) inside theta's E any minimiser (tX).
Every reading takes eps >= K ||Res(X)||_inf (the search sits on the bound).  Where K is
"some K >= 0" the hypothesis "exists K: ||Res(A)|| <= K ||Res(X)|| <= eps" is equivalent to
||Res(A)||_inf <= eps, because Res(X) = 0 (equal rows) forces equal rows in A, so Res(A) =
0, in these readings; that is what is checked (eps >= ||Res(A)||_inf).  The intended
readings check ||Res(A)||_inf <= K ||Res(X)||_inf with Lemma 5.1's K.  ||Res(.)||_inf
does not depend on the minimiser, so only ``intended`` has an adversarial variant.  The claim has no shared
variables: each reading declares its own (the n-equals-d reading has X n x n and d = 1
unused).

Hand derivation.
* as-printed: false, at n = 1.  Then Res(X) = Res(A) = 0 (one row: every column range is
  0), so eps = 0 satisfies the hypothesis and eps_0 = 4(e^0 - 1) = 0, while
  softm(x + softm(x)) != softm(x) unless x is constant: X = (0, 1) gives a difference
  about 0.05.  The error is Eq. (9): removing column constants does not commute with a
  row softmax.
* rowwise-res: true.  Row i of A shifted by a constant is within ||Res_row(A)|| <= eps of
  0, so by Fact 3.2 and Lemma B.2, ||softm(X + A) - softm(X)|| <= g(eps) <= 2 g(2 eps).
* n-equals-d and intended: false.  A may carry a large column-constant part 1 c^T
  (invisible to Res, so the hypothesis holds) and B W_2 B^T - X W_2 X^T then contains
  1 c^T W_2 X^T, which varies along rows and is not removed by Fact 3.2; a large W_2
  moves softm_2 by up to 1 while eps stays small.  The proof's step
  ||R_X - R_B|| <= ||R_A|| is Lemma 4.1, false as well (claim 5.2-step).
"""

from verifier import Claim, Dim, Hypothesis, Matrix, Part, ProofDomain, Reading, Scalar

from . import PAPER
from .common import RES_ADVERSARIAL, RES_MIDRANGE, balance, minimiser_choices, res, res_midrange, softm


def _res_norm(ctx, v, Z):
    """||Res(Z)||_inf: Definition 3.4, or with the constant removed from each row."""
    return ctx.norm_inf(res_midrange(ctx, ctx.T(Z) if v.params.get("rows") else Z))


def _A(ctx, v):
    model = v.params["model"]
    if model == "plain":
        return softm(ctx, v.X)
    P = softm(ctx, v.X @ v.W1 @ ctx.T(v.X))
    return P if model == "attention-matrix" else P @ v.X @ v.Wv1


def _softm_2(ctx, v, Z):
    return softm(ctx, Z) if v.params["model"] == "plain" else softm(ctx, Z @ v.W2 @ ctx.T(Z))


def _K(ctx, v):
    return (ctx.exp(v.theta) - 1) * ctx.norm_inf(v.Wv1)


def _theta_floor(ctx, v):
    R = res(ctx, v, v.X, "tX")
    return balance(ctx, R @ v.W1 @ ctx.T(R))


def _eps_floor(ctx, v):
    if v.params.get("some_K"):
        return _res_norm(ctx, v, _A(ctx, v))
    return _K(ctx, v) * _res_norm(ctx, v, v.X)


def _lhs(ctx, v):
    B = v.X + _A(ctx, v)
    return ctx.norm_inf(_softm_2(ctx, v, B) - _softm_2(ctx, v, v.X))


def _rhs(ctx, v):
    return 4 * (ctx.exp(2 * v.eps) - 1)  # eps_0 = 2 g(2 eps), g(e) = 2(e^e - 1)


_HYPOTHESIS = Hypothesis(
    "||Res(A)||_inf <= K ||Res(X)||_inf", lambda ctx, v: _K(ctx, v) * _res_norm(ctx, v, v.X) - _res_norm(ctx, v, _A(ctx, v))
)
_EPS = Scalar("eps", lower=_eps_floor, lower_text="K ||Res(X)||_inf (some K: ||Res(A)||_inf)")
_THETA = Scalar("theta", lower=_theta_floor, lower_text="balance(Res(X) W_1 Res(X)^T)")


def _plain(name, summary, prove_on=None, **params):
    return Reading(
        name,
        summary,
        params={**RES_MIDRANGE, "model": "plain", "some_K": True, **params},
        extra_variables=(Matrix("X", "n", "d"), _EPS),
        prove_on=prove_on,
    )


def _intended(name, summary, res_params, extra=()):
    return Reading(
        name,
        summary,
        params={**res_params, "model": "softmv"},
        extra_variables=(Matrix("X", "n", "d"), Matrix("W1", "d", "d"), Matrix("Wv1", "d", "d"), Matrix("W2", "d", "d"))
        + tuple(extra)
        + (_THETA, _EPS),
        extra_hypotheses=(_HYPOTHESIS,),
    )


claim = Claim(
    id="5.2",
    kind="lemma",
    paper=PAPER,
    location="Section 5.2",
    title="Perturbation of one transformer layer (single head)",
    statement=(
        "Let A = softm_1(X), B = X + A, ||Res(A)||_inf <= K ||Res(X)||_inf <= eps, g(eps) = 2(e^eps - 1), "
        "eps_0 = 2 g(2 eps). Then ||softm_2(B) - softm_2(X)||_inf <= eps_0."
    ),
    latex=r"\|\mathrm{softm}_2(X+\mathrm{softm}_1(X))-\mathrm{softm}_2(X)\|_\infty \le 4(e^{2\epsilon}-1)",
    notes=(
        "Garbled: softm_i 'with weights' is undefined, B = X + A needs A to be n x d, and the proof's Res removes "
        "row constants while Definition 3.4 removes column constants. Five readings (see `verify show 5.2`); "
        "eps sits on its bound K ||Res(X)||_inf; each reading declares its own variables."
    ),
    dims=[Dim("n", 1, 4), Dim("d", 1, 4)],
    variables=[],
    parts=[
        Part(
            "main",
            lhs=_lhs,
            rhs=_rhs,
            lhs_text="||softm_2(B) - softm_2(X)||_inf",
            rhs_text="eps_0 = 4(e^(2 eps) - 1)",
        )
    ],
    readings=[
        _plain("as-printed", "softm_1 = softm_2 = softm applied to the n x d matrix itself; some K >= 0; Res of Definition 3.4."),
        _plain("rowwise-res", "As printed, but Res removes a constant from each row, as the proof's X = R_X + y_X 1_d^T.", rows=True,
               prove_on=ProofDomain(dims={"n": 2, "d": 1}, box=(-1, 1))),
        Reading(
            "n-equals-d",
            "A = softm(X W_1 X^T), head 1's n x n attention matrix (n = d, as Appendix C says); softm_2(Z) = softm(Z W_2 Z^T); some K >= 0.",
            params={**RES_MIDRANGE, "model": "attention-matrix", "some_K": True},
            extra_variables=(Matrix("X", "n", "n"), Matrix("W1", "n", "n"), Matrix("W2", "n", "n"), _EPS),
            dims=(Dim("d", 1, 1),),
        ),
        _intended(
            "intended",
            "A = softm(X W_1 X^T) X W_v1 (head output), softm_2(Z) = softm(Z W_2 Z^T), K of Lemma 5.1; Res midrange.",
            RES_MIDRANGE,
        ),
        _intended(
            "intended-adversarial",
            "As intended; Res(X) inside Lemma 5.1's E is any minimiser (tX in [0, 1]^d).",
            RES_ADVERSARIAL,
            minimiser_choices("tX"),
        ),
    ],
)
