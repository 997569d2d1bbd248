"""Lemma C.1 (multi-head version of Lemma 5.2), Appendix C.1.

As printed (garbled):
    Lemma C.1. If the following conditions hold,
    * Let H denote the number of heads.
    * Note that softm_1 and softm_2 are two different instantiations with different
      W_k, W_q, W_v weights.
    * Let X in R^{n x d}.
    * A_i = softmv_{1,i}(X) in R^{n x d} for i in [H].  (softmv as in Definition A.1)
    * B = X + sum_{i=1}^H A_i.
    * ||Res(A_i)||_inf <= K ||Res(X)||_inf <= eps for all i in [H].  (K as in Lemma 5.1)
    * Let g(eps) := 2(e^eps - 1).
    * Let W_v satisfy ||(B - X) W_v||_inf <= H eps and ||X W_v||_inf <= 1
    * Let eps_0 = 3 g(2 H eps)
    Then Part 1. ||softm_2(B) - softm_2(X)||_inf <= eps_0
         Part 2. ||softmv_2(B) - softmv_2(X)||_inf <= eps_0

Readings.
* softm_j(Z) is the attention matrix of head j, softm(Z Q_j K_j^T Z^T) (Definition A.1: "W_q,
  W_k are the weights used in softm"), softmv_j(Z) = softm_j(Z) Z V_j; layer 1 has heads
  (Q1_i, K1_i, V1_i), layer 2 one head (Q2, K2, V2), and W_v is V2 (the proof of Part 2 uses
  ||(B - X) W_v|| and ||X W_v|| for softmv_2).  No beta (Definition 1.1).  The row-softmax
  reading of Definition 3.1 is not well formed here (A_i = softm(X) X V needs n = d, and
  "different weights" would mean nothing), so it is not shipped.
* eps_0 = 3 g(2 H eps) as printed; the proof ends with 2 g(2 H eps), a stronger claim, so a
  refutation of the printed one refutes both.
* Two readings of K (eps is a free scalar in both):
  - ``attention`` (K bound to Lemma 5.1): K_i = (e^{theta_i} - 1) ||V1_i||_inf with theta_i the
    balance (Definition 3.5) of Res(X) Q1_i K1_i^T Res(X)^T, Res by the per-column midrange;
    hypotheses ||Res(A_i)|| <= K_i ||Res(X)|| <= eps.
  - ``attention-free-K``: K is any constant, so the condition is ||Res(A_i)|| <= eps (with
    Res(X) != 0, so that such a K exists).
  eps is searched from its lower bound up: the largest of the conditions that bound it from
  below (K_i ||Res(X)||, resp. ||Res(A_i)||, and ||(B - X) W_v|| / H).  The conditions on W_v
  are conditions of the lemma, so they apply to both parts (for Part 1, W_v = V2 is a free
  matrix that only has to exist).

Hand derivation (false).  Res removes a *column*-constant 1_n y^T, but the softmax is only
invariant under *row* shifts (Fact 3.2): the proof's "softm_2(B) = softm_2(R_B)" confuses
the two.  Take H = 1, n = 2, d = 2, Q1 = 0: the layer-1 attention is uniform, so
A = 1_n (mean row of X) V1 = 1_n y^T has Res(A) = 0, theta = 0, K = 0: every hypothesis holds
with eps = 0, so eps_0 = 0.  X = [[1, 0], [0, 0]], V1 with y = (0, c); W2 = Q2 K2^T =
[[0, 0], [1, 0]]: X W2 X^T = 0 (uniform attention) but B W2 B^T adds c to column 1 of every
row, so softm_2(B) has rows (sigma(c), 1 - sigma(c)): Part 1's left side is sigma(c) - 1/2 > 0
= eps_0.  With V2 = [[1, 0], [0, 0]]: (B - X) V2 = 1 y^T V2 = 0 and ||X V2|| = 1, and Part 2's
left side is the same sigma(c) - 1/2.  Both parts are false under both readings.
"""

from verifier import Claim, Dim, Hypothesis, Matrix, Part, Reading, Scalar, Variable

from . import PAPER
from .common import balance, res_midrange, satt, softm


def _A(ctx, v):
    """[A_1, ..., A_H], A_i = softmv_{1,i}(X)."""
    return [satt(ctx, v.X, v.Q1[:, i], v.K1[:, i], v.V1[:, i]) for i in range(v.dims["H"])]


def _B(ctx, v):
    out = v.X
    for a in _A(ctx, v):
        out = out + a
    return out


def _max(ctx, values):
    out = values[0]
    for x in values[1:]:
        out = ctx.maximum(out, x)
    return out


def _res_A(ctx, v):
    return [ctx.norm_inf(res_midrange(ctx, a)) for a in _A(ctx, v)]


def _K_res_X(ctx, v):
    """[K_i ||Res(X)||], K_i = (e^{theta_i} - 1) ||V1_i|| (Lemma 5.1, no beta)."""
    R = res_midrange(ctx, v.X)
    out = []
    for i in range(v.dims["H"]):
        theta = balance(ctx, R @ v.Q1[:, i] @ ctx.T(v.K1[:, i]) @ ctx.T(R))
        out.append((ctx.exp(theta) - 1) * ctx.norm_inf(v.V1[:, i]) * ctx.norm_inf(R))
    return out


def _eps0(ctx, v):
    return 3 * 2 * (ctx.exp(2 * v.dims["H"] * v.eps) - 1)


def _attention_2(ctx, v, Z):
    return softm(ctx, Z @ v.Q2 @ ctx.T(v.K2) @ ctx.T(Z))


def _value_shift(ctx, v):
    """||(B - X) W_v||_inf / H: the condition ||(B - X) W_v|| <= H eps is a lower bound on eps."""
    return ctx.norm_inf((_B(ctx, v) - v.X) @ v.V2) / v.dims["H"]


_W_V_HYPOTHESES = (
    Hypothesis("||(B - X) W_v||_inf <= H eps", lambda ctx, v: v.dims["H"] * v.eps - ctx.norm_inf((_B(ctx, v) - v.X) @ v.V2)),
    Hypothesis("||X W_v||_inf <= 1", lambda ctx, v: 1 - ctx.norm_inf(v.X @ v.V2)),
)


def _lemma_5_1_K_hypotheses():
    def each(i):
        return Hypothesis(f"||Res(A_{i + 1})|| <= K_{i + 1} ||Res(X)||", lambda ctx, v: _K_res_X(ctx, v)[i] - _res_A(ctx, v)[i] if i < v.dims["H"] else ctx.const(0) * v.eps)

    return tuple(each(i) for i in range(2))


claim = Claim(
    id="C.1",
    kind="lemma",
    paper=PAPER,
    location="Appendix C.1",
    title="Multiple heads version of Lemma 5.2",
    statement="A_i = softmv_{1,i}(X), B = X + sum_i A_i, ||Res(A_i)|| <= K ||Res(X)|| <= eps, ||(B - X) W_v|| <= H eps, ||X W_v|| <= 1, eps_0 = 3 g(2 H eps): (1) ||softm_2(B) - softm_2(X)|| <= eps_0, (2) ||softmv_2(B) - softmv_2(X)|| <= eps_0.",
    latex=r"\|\mathrm{softm}_2(B)-\mathrm{softm}_2(X)\|_\infty \le \epsilon_0,\quad \|\mathrm{softmv}_2(B)-\mathrm{softmv}_2(X)\|_\infty \le \epsilon_0",
    notes=(
        "softm_j(Z) = softm(Z Q_j K_j^T Z^T) (attention of head j), softmv_j(Z) = softm_j(Z) Z V_j; "
        "W_v = V2 (layer 2's value matrix); no beta; eps_0 = 3 g(2 H eps) as printed. Readings differ "
        "in what K is bound to (Lemma 5.1's K per head, or any K)."
    ),
    dims=[Dim("n", 1, 3), Dim("d", 1, 2), Dim("H", 1, 2)],
    variables=[
        Matrix("X", "n", "d"),
        Variable("Q1", ("H", "d", "d")),
        Variable("K1", ("H", "d", "d")),
        Variable("V1", ("H", "d", "d")),
        Matrix("Q2", "d", "d"),
        Matrix("K2", "d", "d"),
        Matrix("V2", "d", "d"),
    ],
    hypotheses=_W_V_HYPOTHESES,
    parts=[
        Part(
            "1",
            lhs=lambda ctx, v: ctx.norm_inf(_attention_2(ctx, v, _B(ctx, v)) - _attention_2(ctx, v, v.X)),
            rhs=_eps0,
            statement="||softm_2(B) - softm_2(X)||_inf <= eps_0 = 3 g(2 H eps)",
            lhs_text="||softm_2(B) - softm_2(X)||_inf",
            rhs_text="3 g(2 H eps)",
        ),
        Part(
            "2",
            lhs=lambda ctx, v: ctx.norm_inf(satt(ctx, _B(ctx, v), v.Q2, v.K2, v.V2) - satt(ctx, v.X, v.Q2, v.K2, v.V2)),
            rhs=_eps0,
            statement="||softmv_2(B) - softmv_2(X)||_inf <= eps_0 = 3 g(2 H eps)",
            lhs_text="||softmv_2(B) - softmv_2(X)||_inf",
            rhs_text="3 g(2 H eps)",
        ),
    ],
    readings=[
        Reading(
            "attention",
            "K_i = (e^theta_i - 1)||V1_i|| of Lemma 5.1 per head; ||Res(A_i)|| <= K_i ||Res(X)|| <= eps.",
            extra_variables=(Scalar("eps", lo=0, lower=lambda ctx, v: _max(ctx, _K_res_X(ctx, v) + [_value_shift(ctx, v)]), lower_text="max(max_i K_i ||Res(X)||, ||(B - X) W_v|| / H)"),),
            extra_hypotheses=_lemma_5_1_K_hypotheses(),
        ),
        Reading(
            "attention-free-K",
            "K is any constant: ||Res(A_i)|| <= eps for every head, Res(X) != 0.",
            extra_variables=(Scalar("eps", lo=0, lower=lambda ctx, v: _max(ctx, _res_A(ctx, v) + [_value_shift(ctx, v)]), lower_text="max(max_i ||Res(A_i)||, ||(B - X) W_v|| / H)"),),
            extra_hypotheses=(Hypothesis("Res(X) != 0", lambda ctx, v: ctx.norm_inf(res_midrange(ctx, v.X)), strict=True),),
        ),
    ],
)
