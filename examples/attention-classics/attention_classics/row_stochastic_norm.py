"""An attention matrix never increases the largest absolute row sum -- but may the column sum.

As printed (Y. Dong, J.-B. Cordonnier and A. Loukas, "Attention is not all you need: pure
attention loses rank doubly exponentially with depth", ICML 2021, arXiv 2103.03404; abstract
read at https://d6108366.hf-mirror.com/papers/2103.03404.md):
    Specifically, without skip connections or multi-layer perceptrons (MLPs), the output
    converges doubly exponentially to a rank-1 matrix.
The fact this module states is one the paper's proof of that sentence relies on, not a
sentence it prints: the residual is bounded in the composite norm sqrt(||.||_1 ||.||_inf),
and an attention matrix P is row-stochastic, so ||P||_inf = 1.  Location not verified: the
section of the paper where the fact is used was given from memory as "Section 2" and could
not be checked against the paper's text (the search corpus holds its abstract only).

Reading.  For every row-stochastic P (n x n; ``Stochastic``, each row exactly on the
simplex) and every X (n x d): ||P X|| <= ||X||.  ``inf``: ||.|| is the largest absolute row
sum, the norm the fact is about.  ``l1``: the same bound read with the largest absolute
column sum, the other half of the composite norm.

Hand derivation.  Row i of P X is sum_k P_ik X_k with P_ik >= 0 summing to 1, so its absolute
row sum is at most sum_k P_ik ||X_k||_1 <= max_k ||X_k||_1 = ||X||_inf (true).  The column
sum has no such bound: ||P||_1 is the largest column sum of P, up to n when every row
attends to one token; P = [[1, 0], [1, 0]] and X = (1, 0)^T give ||P X||_1 = 2 > 1 = ||X||_1
(false).

Verdict.  ``inf`` survives (largest ratio 1, at P = I); ``l1`` is refuted from scratch with an
exact certificate, shrunk to all rows attending to one token, every row of P summing to 1
exactly.
"""

from verifier import Claim, Dim, Matrix, Part, Reading, Stochastic


def _norm(ctx, x, which):
    # inf: the largest row's l1 norm; 1: the largest column's l1 norm
    axis = 2 if which == "inf" else 1
    return ctx.max(ctx.sum(ctx.abs(x), axis=axis), axis=1)


claim = Claim(
    id="dong-P-norm",
    kind="lemma",
    paper="dong-cordonnier-loukas-2021",
    location="location not verified (given from memory as Section 2, the l1/l-inf bounds of the residual)",
    title="A row-stochastic matrix does not increase the infinity norm",
    statement="For every row-stochastic P (n x n) and every X (n x d): ||P X||_inf <= ||X||_inf.",
    dims=[Dim("n", 1, 5), Dim("d", 1, 3)],
    variables=[Stochastic("P", "n", "n", description="attention matrix"), Matrix("X", "n", "d")],
    parts=[
        Part(
            "main",
            lhs=lambda ctx, v: _norm(ctx, v.P @ v.X, v.params["norm"]),
            rhs=lambda ctx, v: _norm(ctx, v.X, v.params["norm"]),
            lhs_text="||P X||",
            rhs_text="||X||",
        )
    ],
    readings=[
        Reading("inf", "||.|| is the largest absolute row sum (the norm the fact is about).", params={"norm": "inf"}),
        Reading("l1", "||.|| read as the largest absolute column sum.", params={"norm": "1"}),
    ],
)
