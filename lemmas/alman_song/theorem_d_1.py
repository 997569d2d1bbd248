"""Theorem D.1 (layer collapse; formal version of Theorem 1.2), Appendix D.1.

As printed:
    Theorem D.1. Suppose S is a SAtt with residuals, with the property that for every attention
    head in every one of its layers, the weight matrices W_q, W_k, W_v in R^{d x d} all have the
    bound ||W_q||_inf, ||W_k||_inf, ||W_v||_inf <= eta.  Let H denote the number of heads.  Let
    L denote the number of layers.  Assume eta <= A min{1/(HL), 1/phi_0} <= 1 for some
    parameter A <= O(1).  Then, there exists a SAtt with residuals S' with just one layer so
    that, for any bounded X in R^{n x d} with ||X||_inf <= phi_0, we have
    ||S(X) - S'(X)||_inf <= O(A/L).
    (The proof ends with "The final is 2 delta <= ... <= 2A/L".)

Reading.  S is the network of Definition 3.7 (X_{l+1} = X_l + sum_h softm(X_l Q K^T X_l^T) X_l
V, no beta), L layers of H heads.  The theorem is existential in S' and asymptotic in O(.);
it is checked with the proof's explicit constant, ||S(X) - S'(X)||_inf <= 2A/L, with
A in (0, 1] (A <= O(1) read as A <= 1), phi_0 > 0, against named candidate surrogates, one
per part.  A failing surrogate earns the verdict ``surrogate-fails``, never a refutation of
the theorem (another S' might do).
* ``parallel``: one layer holding every head of every layer, all applied to the input:
  S'(X) = X + sum_l sum_h SAtt_{l,h}(X).  (It has L*H heads; the theorem does not fix H.)
* ``identity``: one layer with W_v = 0, S'(X) = X.
* ``first-layer``: S's first layer alone, S'(X) = X + SAtt_1(X).

Hand derivation (n = 1 makes every softmax 1, so SAtt(Z) = Z V and everything is rational).
* identity fails: n = d = H = 1, L = 2, A = 1, phi_0 = 2, eta = 1/2, X = 2, V_1 = V_2 = 1/2:
  S(X) = 2 (3/2)^2 = 9/2, ||S(X) - X|| = 5/2 > 2A/L = 1.
* first-layer fails on the same point: S'(X) = 3, ||S(X) - S'(X)|| = 3/2 > 1.
* parallel: S(X) - S'(X) = x (products of two or more v's).  L = 2, d = 1: x v_1 v_2 <=
  A^2/2 <= A = 2A/L, so it holds there; but L = 3, H = 1, A = 1, phi_0 = 3, eta = 1/3, X = 3,
  all V = 1/3: S(X) = 3 (4/3)^3 = 64/9, S'(X) = 6, difference 10/9 > 2/3.  With d = 2 it
  fails already for L = 2 (X V_1 V_2 gains d^2).
These failures are of the surrogates: for n = 1 the network is linear, X -> X prod_l (I +
sum_h V_{l,h}), and one layer with a single head V = prod_l (I + sum_h V_{l,h}) - I
reproduces it exactly, so the theorem itself is not contradicted there.
"""

from verifier import Claim, Dim, Hypothesis, Part, Reading, Scalar, Variable

from . import PAPER
from .network import heads, outputs, parallel_surrogate, weights


def _S(ctx, v):
    return outputs(ctx, v.X, v.Wq, v.Wk, v.Wv)[-1]


def _surrogate(name):
    def first_layer(ctx, v):
        return v.X + heads(ctx, v.X, v.Wq[:, 0], v.Wk[:, 0], v.Wv[:, 0])

    table = {
        "parallel": lambda ctx, v: parallel_surrogate(ctx, v.X, v.Wq, v.Wk, v.Wv),
        "identity": lambda ctx, v: v.X,
        "first-layer": first_layer,
    }
    return table[name]


def _bound(ctx, v):
    return 2 * v.A / v.dims["L"]


def _eta_max(ctx, v):
    """A min{1/(HL), 1/phi_0} = A / max(HL, phi_0) (finite even at phi_0 = 0)."""
    HL = ctx.const(v.dims["H"] * v.dims["L"])
    return v.A / ctx.maximum(v.phi0 * 0 + HL, v.phi0)


_SURROGATES = {
    "parallel": "S'(X) = X + sum_l sum_h SAtt_{l,h}(X): every head of every layer applied to the input",
    "identity": "S'(X) = X: one layer with W_v = 0",
    "first-layer": "S'(X) = X + SAtt_1(X): the first layer of S alone",
}

claim = Claim(
    id="D.1",
    kind="theorem",
    paper=PAPER,
    location="Appendix D.1",
    title="Layer collapse (formal version of Theorem 1.2)",
    statement="All weights <= eta, eta <= A min{1/(HL), 1/phi_0} <= 1: there is a one-layer S' with ||S(X) - S'(X)||_inf <= O(A/L) for all ||X||_inf <= phi_0.",
    latex=r"\exists S'\ \text{(one layer)}:\ \|S(X)-S'(X)\|_\infty \le O(A/L)\quad \forall \|X\|_\infty\le\phi_0",
    notes=(
        "Existential: checked against named surrogates S' (one per part) with the proof's explicit "
        "constant 2A/L and A in (0, 1]. A failing surrogate is 'surrogate-fails', not a refutation. "
        "S: Definition 3.7's network, no beta."
    ),
    refuted_verdict="surrogate-fails",
    readings=[Reading("explicit-2A/L", "O(A/L) read with the proof's explicit constant 2A/L, A in (0, 1].")],
    dims=[Dim("L", 1, 3), Dim("H", 1, 2), Dim("n", 1, 2), Dim("d", 1, 2)],
    variables=[
        Scalar("A", lo=0, hi=1),
        Scalar("phi0", lo=0),
        Scalar("eta", lo=0, upper=_eta_max, upper_text="A min{1/(HL), 1/phi_0}"),
        Variable("X", ("n", "d"), radius="phi0"),
        *weights("L"),
    ],
    hypotheses=[
        Hypothesis("A > 0", lambda ctx, v: v.A, strict=True),
        Hypothesis("phi_0 > 0", lambda ctx, v: v.phi0, strict=True),
        Hypothesis("A min{1/(HL), 1/phi_0} <= 1", lambda ctx, v: 1 - _eta_max(ctx, v)),
    ],
    parts=[
        Part(
            name,
            lhs=lambda ctx, v, name=name: ctx.norm_inf(_S(ctx, v) - _surrogate(name)(ctx, v)),
            rhs=_bound,
            statement=f"||S(X) - S'(X)||_inf <= 2A/L with {text}",
            lhs_text="||S(X) - S'(X)||_inf",
            rhs_text="2A/L",
        )
        for name, text in _SURROGATES.items()
    ],
)
