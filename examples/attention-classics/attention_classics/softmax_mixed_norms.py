"""The Lipschitz constant of softmax with inverse temperature between two l_p norms.

As printed (I. Maeda, "Lipschitzness of the Softmax Function", Proposition; read at
https://ibukimaeda.github.io/blog/en/2025-12-12-lipschitz_constant_of_softmax):
    For any 1 <= p, q <= inf and sigma_lambda, the following holds:
    ||sigma_lambda(x) - sigma_lambda(y)||_p <= L_{p,q} ||x - y||_q,
    where L_{p,q} = lambda 2^{-1 + 1/p - 1/q}.

Reading.  sigma_lambda(x) = softmax(lambda x), lambda > 0 (strict hypothesis), x, y in R^n.
Parts: (p, q) = (1, inf) with L = lambda, (inf, 1) with L = lambda/4, (2, 1) with
L = lambda 2^{-3/2}, and (2, 2) with L = lambda/2 (the form Gao & Pavel's Proposition 4
states with constant lambda, here sharpened).

Hand derivation (true for these four).  J = lambda (diag(s) - s s^T).  ||J||_{inf->1}: for
u in {-1, 1}^n with a the mass of s where u = 1, ||J u||_1 = lambda 4 a (1 - a) <= lambda.
||J||_{1->inf} = lambda max_{i,j} |J_ij| = lambda max(s_i (1 - s_i), s_i s_j) <= lambda/4.
||J||_{1->2} = lambda max_j s_j ||e_j - s||_2 = lambda max_j s_j sqrt((1 - s_j)^2 +
sum_{i != j} s_i^2) <= lambda sqrt(2) s_j (1 - s_j) <= lambda 2^{-3/2}.  ||J||_2 <= lambda/2
(see softmax-lipschitz).  Each is attained near s = (1/2, 1/2), x -> y: the search should
reach ratios close to 1 and no further.

Verdict.  All four parts survive the search (seed 0, default budget) with largest ratio 1
(to float64 precision) in each: the four constants are tight.  ``verify prove`` at n = 2,
lambda in [1/2, 2], x, y in [-2, 2]^2 is inconclusive for each (0.2-22 % of the volume in
15 s; the margin vanishes along x = y).
"""

from verifier import Claim, Dim, Hypothesis, Part, Scalar, Vector
from verifier.library import softmax, vector_norm


def _diff(ctx, v, p):
    lam = v.lam[:, None]
    return vector_norm(ctx, softmax(ctx, lam * v.x) - softmax(ctx, lam * v.y), p)


def _part(p, q, constant, text):
    return Part(
        f"{p}-{q}",
        lhs=lambda ctx, v: _diff(ctx, v, p),
        rhs=lambda ctx, v: v.lam * vector_norm(ctx, v.x - v.y, q) * constant(ctx),
        statement=f"||sigma_lambda(x) - sigma_lambda(y)||_{p} <= {text} ||x - y||_{q}",
        lhs_text=f"||sigma(lambda x) - sigma(lambda y)||_{p}",
        rhs_text=f"{text} ||x - y||_{q}",
    )


claim = Claim(
    id="softmax-mixed-norms",
    kind="proposition",
    paper="maeda-2025",
    location="blog post 'Lipschitzness of the Softmax Function', Proposition",
    title="Softmax with inverse temperature between l_q and l_p",
    statement="||sigma_lambda(x) - sigma_lambda(y)||_p <= lambda 2^{-1 + 1/p - 1/q} ||x - y||_q for 1 <= p, q <= inf",
    dims=[Dim("n", 2, 5)],
    variables=[Scalar("lam", lo=0), Vector("x", "n"), Vector("y", "n")],
    hypotheses=[Hypothesis("lambda > 0", lambda ctx, v: v.lam, strict=True)],
    parts=[
        _part(1, "inf", lambda ctx: 1, "lambda"),
        _part("inf", 1, lambda ctx: ctx.const("1/4"), "lambda/4"),
        _part(2, 1, lambda ctx: ctx.sqrt(ctx.const(2)) / 4, "lambda 2^(-3/2)"),
        _part(2, 2, lambda ctx: ctx.const("1/2"), "lambda/2"),
    ],
)
