"""Lemma D.7 (Lipschitz bound for a head at layer l), Appendix D.3.

As printed:
    Lemma D.7. If the following conditions hold
    * Let X_l denote l-th layer output
    * Let ||W_a||_inf, ||W_k||_inf, ||W_v||_inf <= eta
    * Let Y satisfy that ||Y - X_l||_inf < 2||X_l||_inf
    * eps_l := 2 eta phi_0 (1 + H eta)^l.
    Then ||softmv(X_l) - softmv(Y)||_inf < 3 eta (eps_l^2 + 1).
    Proof. ||softmv(X_l) - softmv(Y)|| <= K_2 ||X - Y|| (Lemma D.6), and K_2 <= 12 ||X_l||^2
    eta^3 + eta <= 12 (phi_0 (1 + H eta))^2 eta^3 + eta = 3 eta (eps_l^2 + 1).

Reading.  X_l is the output of l layers of the network of Definition 3.7 (H heads per layer,
no beta) on an input X_0 with ||X_0||_inf <= phi_0, every weight bounded by eta
(Definition A.2; W_a is read as W_q).  softmv is one further head with weights Q, K, V,
|entries| <= eta: softmv(Z) = softm(Z Q K^T Z^T) Z V (Definitions A.1, 1.1).
Y = X_l + Delta with ||Delta||_inf < 2 ||X_l||_inf.  Readings:
* ``as-printed``: the bound 3 eta (eps_l^2 + 1) with no factor ||X_l - Y||, strict '<'.
* ``intended``: ||softmv(X_l) - softmv(Y)|| <= 3 eta (eps_l^2 + 1) ||X_l - Y||, which is
  what the proof derives (the K_2 of Lemma D.6 bounded by 3 eta (eps_l^2 + 1)).

Hand derivation.
* as-printed is false by scaling: n = 1 makes softm = 1, so the left side is ||Delta V||,
  up to 2 ||X_l|| eta (d = 1), while the right side is about 3 eta when eps_l is small.
  phi_0 = 2, eta small: ||X_l|| ~ 2 and Delta ~ -1.9 X_l give lhs ~ 3.8 eta > 3 eta.
* intended: for n = 1 the left side is ||Delta V|| <= d eta ||Delta|| (Fact 3.3 (2) again
  loses d), against 3 eta (1 + eps_l^2) ||Delta||: false for d >= 4 when eps_l^2 < 1/3
  (Delta = delta ones, V = eta ones).  For d <= 3 the attention term would have to make up
  the difference; not expected in the small-eta regime.
"""

from verifier import Claim, Dim, Hypothesis, Matrix, Part, Reading, Scalar, Variable

from . import PAPER
from .common import satt
from .network import outputs, weights


def _X_l(ctx, v):
    return outputs(ctx, v.X0, v.Wq, v.Wk, v.Wv)[-1]


def eps_l(ctx, v, layer):
    """eps_l := 2 eta phi_0 (1 + H eta)^l (Definition A.2)."""
    return 2 * v.eta * v.phi0 * (1 + v.dims["H"] * v.eta) ** layer


def _gap(ctx, v):
    X = _X_l(ctx, v)
    return ctx.norm_inf(satt(ctx, X, v.Q, v.K, v.V) - satt(ctx, X + v.Delta, v.Q, v.K, v.V))


def _bound(ctx, v):
    c = 3 * v.eta * (eps_l(ctx, v, v.dims["l"]) ** 2 + 1)
    return c * ctx.norm_inf(v.Delta) if v.params["factor"] else c


claim = Claim(
    id="D.7",
    kind="lemma",
    paper=PAPER,
    location="Appendix D.3",
    title="Lipschitz bound for a head at layer l",
    statement="||W_q||, ||W_k||, ||W_v|| <= eta, ||Y - X_l|| < 2||X_l||, eps_l = 2 eta phi_0 (1 + H eta)^l: ||softmv(X_l) - softmv(Y)||_inf < 3 eta (eps_l^2 + 1).",
    latex=r"\|\mathrm{softmv}(X_\ell)-\mathrm{softmv}(Y)\|_\infty < 3\eta(\epsilon_\ell^2+1)",
    notes=(
        "X_l: output of l layers of Definition 3.7's network (H heads, no beta) on X_0 with "
        "||X_0|| <= phi_0; all weights bounded by eta (Definition A.2; W_a read as W_q). softmv is one "
        "more head (Q, K, V). eta > 0 is a hypothesis (at eta = 0 the strict bound fails trivially as "
        "0 < 0). The printed bound lacks the factor ||X_l - Y|| that the proof carries."
    ),
    dims=[Dim("l", 1, 2), Dim("H", 1, 2), Dim("n", 1, 3), Dim("d", 1, 4)],
    variables=[
        Variable("X0", ("n", "d")),
        Scalar("phi0", lower=lambda ctx, v: ctx.norm_inf(v.X0), lower_text="||X_0||_inf"),
        Scalar("eta", lo=0),
        *weights("l"),
        Matrix("Q", "d", "d", radius="eta"),
        Matrix("K", "d", "d", radius="eta"),
        Matrix("V", "d", "d", radius="eta"),
        Scalar("r", lo=0, upper=lambda ctx, v: 2 * ctx.norm_inf(_X_l(ctx, v)), upper_text="2 ||X_l||_inf"),
        Matrix("Delta", "n", "d", radius="r"),
    ],
    hypotheses=[
        Hypothesis("eta > 0", lambda ctx, v: v.eta, strict=True),
        Hypothesis("||Y - X_l||_inf < 2 ||X_l||_inf", lambda ctx, v: 2 * ctx.norm_inf(_X_l(ctx, v)) - ctx.norm_inf(v.Delta), strict=True),
    ],
    parts=[
        Part(
            "main",
            lhs=_gap,
            rhs=_bound,
            relation="<",
            statement="||softmv(X_l) - softmv(Y)||_inf < 3 eta (eps_l^2 + 1)",
            lhs_text="||softmv(X_l) - softmv(Y)||_inf",
            rhs_text="3 eta (eps_l^2 + 1)",
        )
    ],
    readings=[
        Reading("as-printed", "Strict bound 3 eta (eps_l^2 + 1), no factor ||X_l - Y||.", params={"factor": False}),
        Reading(
            "intended",
            "<= 3 eta (eps_l^2 + 1) ||X_l - Y||, the K_2 bound the proof derives.",
            params={"factor": True},
            overrides={"main": {"relation": "<=", "statement": "||softmv(X_l) - softmv(Y)||_inf <= 3 eta (eps_l^2 + 1) ||X_l - Y||_inf", "rhs_text": "3 eta (eps_l^2 + 1) ||X_l - Y||"}},
        ),
    ],
)
