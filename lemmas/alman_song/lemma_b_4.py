"""Lemma B.4 (small beta makes E 1-balanced), Appendix B.

As printed (garbled):
    Lemma B.4. If the following conditions hold
    * Let W_a, W_k, W_v be the matrix that ||W_a||_inf, ||W_k||_inf, ||W_v||_inf <= eta.
    * Let W = W_a W_b^T.
    * Let E = beta Res(X) W Res(X)^T.
    * Let beta satisfy that beta <= 1/(||Res(X)||_inf^2 eta^2).
    Then, we have E is theta-balanced with theta = 1.
    Proof. ||W||_inf <= ||W_q||_inf ||W_k||_inf <= eta^2. ||E||_inf <= beta ||Res(X)||^2 ||W||
    <= beta ||Res(X)||^2 eta^2.

Readings.
* W_a, W_b are read as W_q, W_k (the proof's names): W = W_q W_k^T, ||W_q||, ||W_k|| <= eta.
  W_v does not enter the conclusion and is left out.  X is n x d, beta > 0.
* Res (Definition 3.4) is not unique for d >= 2, so two readings:
  ``midrange`` (per-column midrange, always a minimiser) and ``adversarial`` (any valid
  minimiser, chosen by t in [0, 1]^d via ``verifier.library.res_minimiser``).  ||Res(X)||_inf, hence the
  hypothesis on beta, is the same for every minimiser.
* Parts: ``main`` is the statement (balance(E) <= 1, Definition 3.5); ``proof-bound`` is what
  the proof actually bounds, ||E||_inf <= 1; ``proof-step-W`` is the proof's first step
  ||W||_inf <= ||W_q|| ||W_k|| <= eta^2 (Fact 3.3 (2); no Res, so checked once).

Hand derivation (false).  balance(E) <= 2||E||_inf and |E_ij| = beta |sum_{k,l} R_ik W_kl R_jl|
<= beta d^2 ||R||^2 ||W||_inf with ||W||_inf <= d eta^2 (Fact 3.3 (2) fails by the factor d),
so the true bound is balance(E) <= 2 d^3.  Already d = 1 breaks ``main``: X = (1, -1)^T has
Res(X) = X (unique for d = 1), eta = 1, W_q = W_k = 1, beta = 1 = 1/(||R||^2 eta^2), and
E = [[1, -1], [-1, 1]] has row range 2 > 1.  ``proof-bound`` holds for d = 1 (|E_ij| <= beta
R^2 eta^2 <= 1) and fails for d = 2: X = [[1, 1], [-1, -1]], all weights 1, beta = 1 gives
E_11 = 8.  ``proof-step-W`` fails for d = 2: W_q = W_k = ones, eta = 1 gives W = 2 ones,
||W|| = 2 > 1 (the factor d of Fact 3.3 (2)).  The hand counterexamples have d = 1 or columns
of equal range, where the midrange is the only minimiser, so both Res readings are refuted.
"""

from verifier import Claim, Dim, Hypothesis, Matrix, Part, Reading, Scalar
from verifier.library import RES_ADVERSARIAL, RES_MIDRANGE, minimiser_choices, res, res_midrange

from . import PAPER
from .common import balance


def _res(ctx, v):
    return res(ctx, v, v.X, "t")


def _E(ctx, v):
    R = _res(ctx, v)
    W = v.Wq @ ctx.T(v.Wk)
    return v.beta[:, None, None] * (R @ W @ ctx.T(R))


def _beta_max(ctx, v):
    """1 / (||Res(X)||^2 eta^2); ||Res(X)|| is the optimal value, the same for every minimiser.

    The denominator is floored at 10^-30 so the bound stays a finite rational when Res(X) = 0
    or eta = 0; the floor only shrinks the domain, so every point in it meets the lemma's
    hypothesis.
    """
    denom = ctx.norm_inf(res_midrange(ctx, v.X)) ** 2 * v.eta**2
    return 1 / ctx.maximum(denom, ctx.const("1/" + "1" + "0" * 30))


claim = Claim(
    id="B.4",
    kind="lemma",
    paper=PAPER,
    location="Appendix B",
    title="Small beta makes E 1-balanced",
    statement="||W_q||, ||W_k|| <= eta, W = W_q W_k^T, E = beta Res(X) W Res(X)^T, beta <= 1/(||Res(X)||^2 eta^2): E is 1-balanced.",
    latex=r"\beta \le \frac{1}{\|\mathrm{Res}(X)\|_\infty^2\eta^2} \implies E=\beta\,\mathrm{Res}(X)W\mathrm{Res}(X)^\top \text{ is 1-balanced}",
    notes=(
        "W_a, W_b in the garbled statement are read as W_q, W_k (W = W_q W_k^T, as in Lemma 5.1 and "
        "the proof). Balance is Definition 3.5's row range, not ||E||_inf: part 'proof-bound' checks "
        "what the proof bounds. beta > 0 and eta > 0 are hypotheses."
    ),
    dims=[Dim("n", 1, 4), Dim("d", 1, 3)],
    variables=[
        Matrix("X", "n", "d"),
        Scalar("eta", lo=0),
        Matrix("Wq", "d", "d", radius="eta"),
        Matrix("Wk", "d", "d", radius="eta"),
        Scalar("beta", lo=0, upper=_beta_max, upper_text="1/(||Res(X)||^2 eta^2)"),
    ],
    hypotheses=[
        Hypothesis("eta > 0", lambda ctx, v: v.eta, strict=True),
        Hypothesis("beta > 0", lambda ctx, v: v.beta, strict=True),
    ],
    parts=[
        Part(
            "main",
            lhs=lambda ctx, v: balance(ctx, _E(ctx, v)),
            rhs=lambda ctx, v: 1,
            statement="E is 1-balanced: max_i max_{j,l} |E_ij - E_il| <= 1",
            lhs_text="||D||_inf",
            rhs_text="theta = 1",
        ),
        Part(
            "proof-bound",
            lhs=lambda ctx, v: ctx.norm_inf(_E(ctx, v)),
            rhs=lambda ctx, v: 1,
            statement="||E||_inf <= 1 (what the proof bounds)",
            lhs_text="||E||_inf",
            rhs_text="1",
        ),
        Part(
            "proof-step-W",
            lhs=lambda ctx, v: ctx.norm_inf(v.Wq @ ctx.T(v.Wk)),
            rhs=lambda ctx, v: v.eta**2,
            statement="||W||_inf <= ||W_q||_inf ||W_k||_inf <= eta^2 (the proof's first step)",
            lhs_text="||W_q W_k^T||_inf",
            rhs_text="eta^2",
        ),
    ],
    readings=[
        Reading("midrange", "Res(X) subtracts the per-column midrange (always a minimiser).", params=RES_MIDRANGE),
        Reading(
            "adversarial",
            "Res(X) with any valid minimiser, chosen adversarially by t in [0, 1]^d.",
            params=RES_ADVERSARIAL,
            parts=("main", "proof-bound"),
            extra_variables=minimiser_choices("t"),
        ),
    ],
)
