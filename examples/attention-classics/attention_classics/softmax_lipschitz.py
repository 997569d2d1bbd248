"""Softmax is 1/2-Lipschitz in every l_p norm (Nair 2025); not from l_inf to l_1.

As printed (P. Nair, "Softmax is 1/2-Lipschitz: A tight bound across all l_p norms",
arXiv 2510.23012, Abstract; read at https://arxiv.org/html/2510.23012v1):
    we prove that the softmax function is contractive with the Lipschitz constant 1/2,
    uniformly across all l_p norms with p >= 1.

Reading (``as-printed``).  sigma(x)_i = e^{x_i} / sum_j e^{x_j};
||sigma(x) - sigma(y)||_p <= 1/2 ||x - y||_p for all x, y in R^n, parts p = 1, 2, inf.
``across-norms`` is the misreading "1/2 whatever norms measure input and output", checked
with the l_inf norm on the input and the l_1 norm on the output.

Hand derivation.  The Jacobian at z is J = diag(s) - s s^T, s = sigma(z).  Row i of |J| sums
to s_i (1 - s_i) + sum_{j != i} s_i s_j = 2 s_i (1 - s_i) <= 1/2, so ||J||_{inf->inf} <= 1/2;
J is symmetric, so ||J||_{1->1} = ||J||_{inf->inf} and ||J||_2 <= sqrt(||J||_1 ||J||_inf)
<= 1/2.  Integrating J along the segment from y to x gives the three parts (true).  From
l_inf to l_1 the constant is 1, not 1/2: x = (t, -t), y = (-t, t) give
||sigma(x) - sigma(y)||_1 = 2 (sigmoid(2t) - sigmoid(-2t)) = 2 tanh(t), against
1/2 ||x - y||_inf = t, and 2 tanh(t) > t for 0 < t < 1.91 (t = 1: 1.523 > 1; the ratio tends
to 2 as t -> 0): ``across-norms`` is false.

Verdict.  The three parts survive the search; the largest ratio lhs/rhs approaches 1 in
each (for p = 2 it stays below, 1 - 1.5e-10 from seed 0: the supremum is reached only in
the limit, as Nair states).  ``across-norms`` is refuted from scratch (seed 0: x = (1, -1),
y = 0, lhs = tanh(1) = 0.7616 against rhs = 1/2, ball arithmetic).  ``verify prove
softmax-lipschitz --dims n=2 --box -2:2`` is inconclusive for all three parts (12-58 % of
the volume in 15 s): the margin is zero along x = y.
"""

from verifier import Claim, Dim, Part, Reading, Vector
from verifier.library import softmax, vector_norm


def _part(name, p_out, p_in):
    return Part(
        name,
        lhs=lambda ctx, v: vector_norm(ctx, softmax(ctx, v.x) - softmax(ctx, v.y), p_out),
        rhs=lambda ctx, v: vector_norm(ctx, v.x - v.y, p_in) / 2,
        lhs_text=f"||softmax(x) - softmax(y)||_{p_out}",
        rhs_text=f"1/2 ||x - y||_{p_in}",
    )


claim = Claim(
    id="softmax-lipschitz",
    kind="theorem",
    paper="nair-2025",
    location="arXiv 2510.23012, Abstract",
    title="Softmax is 1/2-Lipschitz in every l_p norm",
    statement="the softmax function is contractive with the Lipschitz constant 1/2, uniformly across all l_p norms with p >= 1",
    dims=[Dim("n", 1, 6)],
    variables=[Vector("x", "n"), Vector("y", "n")],
    parts=[_part("1", 1, 1), _part("2", 2, 2), _part("inf", "inf", "inf"), _part("inf-to-1", 1, "inf")],
    readings=[
        Reading("as-printed", "The same l_p norm on input and output, p = 1, 2, inf.", parts=("1", "2", "inf")),
        Reading("across-norms", "Misreading: 1/2 whatever the norms; l_inf on the input, l_1 on the output.", parts=("inf-to-1",)),
    ],
)
