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

Reading ``any-attention`` (a port to ``Stochastic``).  The proof uses one property of the
attention matrices: "||softm()||_inf <= 1", i.e. each P_h = softm(X_l Q_h K_h^T X_l^T) is
row-stochastic.  So the statement it proves is about *every* attention matrix, and reads
plainly with P a ``Stochastic`` variable: for every X in R^{n x d}, every row-stochastic
P (n x n) and every V (d x d) with |V_ij| <= eta, ||X + P X V||_inf <= ||X||_inf (1 + eta).
Dims narrowed to one layer (part 1 is a statement about any one layer, whose input is any
matrix here) and one head (H heads add H such terms; the triangle inequality turns the
one-head bound into the factor 1 + H eta, and a one-head counterexample is one for every H
with the other heads' V = 0).  Q and K do not enter this reading (the search still carries
them).  Unlike softm(scores), a ``Stochastic`` P reaches one-hot rows and rows with zeros,
the boundary where a row picks one token exactly; the softmax reading never gets there.

Hand derivation (false for d >= 2).  softm(.) has rows summing to 1, so ||P Z|| <= ||Z||,
but ||X V||_inf <= d ||X||_inf ||V||_inf only (Fact 3.3 (2) fails by the factor d).  The
true bound is ||X_{l+1}|| <= ||X_l|| (1 + H d eta).  With n = 1 (softmax = 1), d = 2, H = 1:
X_0 = (1, 1), V = eta * ones gives X_1 = (1 + 2 eta)(1, 1), so ||X_1|| = 1 + 2 eta > 1 + eta
for every eta > 0: both parts fail.  For d = 1 both hold.

Hand derivation of ``any-attention`` (the same verdicts, now for every attention matrix).
Row i of P Z is sum_k P_ik Z_k with P_ik >= 0 summing to 1, a convex combination of Z's
rows, so ||P Z||_inf <= ||Z||_inf (entrywise max norm) -- the true content of
"||softm()||_inf <= 1".  d = 1: ||X + P X v|| <= ||X|| + |v| ||P X|| <= ||X|| (1 + eta):
true, with equality at X = x 1 and v = eta (P X = X for every P).  d >= 2: the factor d of
X V stays: n = 1 forces P = (1) and the counterexample above refutes both parts; for n >= 2,
X with first row (1, 1) (the others in [-1, 1]) and any P whose first row is one-hot on it
(P = I, say) does the same: row 1 of X + P X V is (1 + 2 eta)(1, 1).
Expected: both parts refuted, at d >= 2; for d = 1 (narrowed in a test) both survive.

What the search found (``any-attention``, seeds 0-4, default budget): both parts refuted
with exact certificates at d = 2 after 4,096-8,192 evaluations, mostly at n = 1 as derived;
part 1 on seeds 2 and 3 at n = 2 with one-hot rows, P = [[0, 1], [0, 1]] (both rows on one
token) and [[0, 1], [1, 0]].  With d narrowed to 1 both parts survive (seeds 0-2), the
largest ratio at most 1.
"""

from verifier import Claim, Dim, Part, Reading, Scalar, Stochastic, Variable
from verifier.claims import DEFAULT_READING

from . import PAPER
from .network import outputs, weights


def _norms(ctx, v):
    if v.params.get("attention") == "any":
        xs = [v.X0, v.X0 + v.P @ v.X0 @ v.Wv[:, 0, 0]]  # one layer, one head, any attention matrix
    else:
        xs = outputs(ctx, v.X0, v.Wq, v.Wk, v.Wv)
    return [ctx.norm_inf(x) for x in xs]


ANY_ATTENTION = Reading(
    "any-attention",
    "The proof uses only ||softm()||_inf <= 1 (rows summing to 1): the attention matrix is any row-stochastic P "
    "(Stochastic), one layer and one head: ||X + P X V||_inf <= ||X||_inf (1 + eta). Q, K do not enter.",
    params={"attention": "any"},
    extra_variables=(Stochastic("P", "n", "n", description="any attention matrix (row-stochastic)"),),
    dims=(Dim("L", 1, 1), Dim("H", 1, 1)),
)


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
    readings=[DEFAULT_READING, ANY_ATTENTION],
)
