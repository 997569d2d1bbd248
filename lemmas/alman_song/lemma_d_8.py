"""Lemma D.8 (layer norms do not grow much), Appendix D.4.

As printed:
    Lemma D.8. Let X_0 be the input of the first layer, ||X_0||_inf <= phi_0; for l in [L],
    X_l is the l-th layer output; ||W_v||_inf <= eta.  Then
    * Part 1. For any l, ||X_{l+1}||_inf <= ||X_l||_inf (1 + H eta)
    * Part 2. For any l, ||X_l||_inf <= phi_0 (1 + H eta)^l
    Proof: ||softm_i(X_l) X_l W_{v,i}|| <= ||softm_i(X_l)|| ||X_l|| ||W_{v,i}|| (Fact 3.3).

Reading.  The network of Definition 3.7: X_{l+1} = X_l + sum_h softm(X_l Q_h K_h^T X_l^T)
X_l V_h (Definition 3.6, no beta), L layers of H heads, X_l in R^{n x d}.  Only the value
weights are bounded (|V_{l,h}| <= eta entrywise), as the lemma states; Q, K are free.
Part 1 is checked for every l = 0..L-1, part 2 for every l = 1..L; phi_0 >= ||X_0||.

Hand derivation (false for d >= 2).  softm(.) has rows summing to 1, so ||P Z|| <= ||Z||,
but ||X V||_inf <= d ||X||_inf ||V||_inf only (Fact 3.3 (2) fails by the factor d).  The
true bound is ||X_{l+1}|| <= ||X_l|| (1 + H d eta).  With n = 1 (softmax = 1), d = 2, H = 1:
X_0 = (1, 1), V = eta * ones gives X_1 = (1 + 2 eta)(1, 1), so ||X_1|| = 1 + 2 eta > 1 + eta
for every eta > 0: both parts fail.  For d = 1 both hold.
"""

from verifier import Claim, Dim, Part, Scalar, Variable

from . import PAPER
from .network import outputs, weights


def _norms(ctx, v):
    xs = outputs(ctx, v.X0, v.Wq, v.Wk, v.Wv)
    return [ctx.norm_inf(x) for x in xs]


def _stack(values):
    import numpy as np

    return np.stack(values, axis=-1)


def _growth(ctx, v):
    return 1 + v.dims["H"] * v.eta


claim = Claim(
    id="D.8",
    kind="lemma",
    paper=PAPER,
    location="Appendix D.4",
    title="Layer norms do not grow much",
    statement="||X_0||_inf <= phi_0, ||W_v||_inf <= eta: (1) ||X_{l+1}|| <= ||X_l|| (1 + H eta); (2) ||X_l|| <= phi_0 (1 + H eta)^l.",
    latex=r"\|X_{\ell+1}\|_\infty \le \|X_\ell\|_\infty(1+H\eta),\quad \|X_\ell\|_\infty \le \phi_0(1+H\eta)^\ell",
    notes=(
        "Network of Definition 3.7 (residual + H softmax heads, no beta). Only value weights are "
        "bounded by eta, as stated; query/key weights are free. Parts hold for every layer index."
    ),
    dims=[Dim("L", 1, 3), Dim("H", 1, 2), Dim("n", 1, 3), Dim("d", 1, 3)],
    variables=[
        Variable("X0", ("n", "d")),
        Scalar("phi0", lower=lambda ctx, v: ctx.norm_inf(v.X0), lower_text="||X_0||_inf"),
        Scalar("eta", lo=0),
        *weights("L", bounded=("Wv",)),
    ],
    parts=[
        Part(
            "1",
            lhs=lambda ctx, v: _stack(_norms(ctx, v)[1:]),
            rhs=lambda ctx, v: _stack(_norms(ctx, v)[:-1]) * _growth(ctx, v)[:, None],
            elementwise=True,
            statement="||X_{l+1}||_inf <= ||X_l||_inf (1 + H eta) for l = 0..L-1",
            lhs_text="||X_{l+1}||_inf",
            rhs_text="||X_l||_inf (1 + H eta)",
        ),
        Part(
            "2",
            lhs=lambda ctx, v: _stack(_norms(ctx, v)[1:]),
            rhs=lambda ctx, v: _stack([v.phi0 * _growth(ctx, v) ** l for l in range(1, v.dims["L"] + 1)]),
            elementwise=True,
            statement="||X_l||_inf <= phi_0 (1 + H eta)^l for l = 1..L",
            lhs_text="||X_l||_inf",
            rhs_text="phi_0 (1 + H eta)^l",
        ),
    ],
)
