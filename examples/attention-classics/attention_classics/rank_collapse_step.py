"""One layer of pure attention never moves the tokens apart -- unless the values scale them.

As printed (Y. Dong, J.-B. Cordonnier and A. Loukas, "Attention is not all you need: pure
attention loses rank doubly exponentially with depth", ICML 2021, Abstract; read at
https://infoscience.epfl.ch/signposting/describedby/cd7e6af6-1c68-41d2-85da-619c299d40ba):
    Specifically, without skip connections or multi-layer perceptrons (MLPs), the output
    converges doubly exponentially to a rank-1 matrix.

Reading.  The single-layer step behind "converges to rank 1", in the distance to the
matrices 1 y^T measured by the entrywise max norm: res(X) = X - 1 y^T with y the column
midrange (the minimiser of ||X - 1 y^T||_max; verifier.library.res_midrange), so
||res(X)||_max = max_j range_j(X) / 2.  ``attention-only``: the attention matrix
P = softmax(X Wq Wk^T X^T) applied to X, ||res(P X)||_max <= ||res(X)||_max.
``with-values``: the misreading that a whole pure-attention layer P X Wv never moves the
output away from rank 1, whatever Wv.  The paper's theorem bounds the weights (its beta);
the misreading drops that hypothesis.

Hand derivation.  P is row-stochastic, so every entry of column j of P X is a convex
combination of column j of X and lies in [min_i X_ij, max_i X_ij]: range_j(P X) <=
range_j(X) (true).  With values the range can grow: d = 1, X = (0, -1)^T, Wq = Wk = 1 gives
scores [[0, 0], [0, 1]], P = [[1/2, 1/2], [1 - s, s]] with s = sigmoid(1) = 0.731, so
P X = (-1/2, -s)^T has range s - 1/2 = 0.231, and Wv = 5 makes it 1.155: ||res(P X Wv)||
= 0.578 > 1/2 = ||res(X)|| (false; any Wv > 1/0.462 works here).

Verdict.  ``attention-only`` survives (largest ratio 1, at P = identity-like attention;
``verify prove`` at n = 2, d = 1 on [-1, 1] is inconclusive, 4.7 % of the volume in 15 s);
``with-values`` is refuted from scratch with a ball-arithmetic certificate; from seed 0
the search returns X = (-1, 1)^T, Wq = 1, Wk = -1, Wv = -2: the scores -X X^T make each
token attend to the other, P X = -tanh(1) X, and Wv = -2 gives ||res(P X Wv)|| = 2 tanh(1)
= 1.523 > 1 = ||res(X)||.
"""

from verifier import Claim, Dim, Matrix, Part, Reading
from verifier.library import max_norm, res_midrange, softmax


def _attention_times_X(ctx, v):
    X = v.X
    return softmax(ctx, X @ v.Wq @ ctx.T(v.Wk) @ ctx.T(X)) @ X


claim = Claim(
    id="rank-collapse-step",
    kind="theorem",
    paper="dong-cordonnier-loukas-2021",
    location="ICML 2021, Abstract",
    title="One pure-attention layer does not move the tokens apart",
    statement="without skip connections or multi-layer perceptrons (MLPs), the output converges doubly exponentially to a rank-1 matrix",
    dims=[Dim("n", 2, 4), Dim("d", 1, 3)],
    variables=[Matrix("X", "n", "d"), Matrix("Wq", "d", "d"), Matrix("Wk", "d", "d")],
    parts=[
        Part(
            "attention-only",
            lhs=lambda ctx, v: max_norm(ctx, res_midrange(ctx, _attention_times_X(ctx, v))),
            rhs=lambda ctx, v: max_norm(ctx, res_midrange(ctx, v.X)),
            lhs_text="||res(P X)||_max",
            rhs_text="||res(X)||_max",
        ),
        Part(
            "with-values",
            lhs=lambda ctx, v: max_norm(ctx, res_midrange(ctx, _attention_times_X(ctx, v) @ v.Wv)),
            rhs=lambda ctx, v: max_norm(ctx, res_midrange(ctx, v.X)),
            lhs_text="||res(P X Wv)||_max",
            rhs_text="||res(X)||_max",
        ),
    ],
    readings=[
        Reading("as-printed", "The attention matrix alone (W_V = I).", parts=("attention-only",)),
        Reading(
            "with-values",
            "Misreading: a whole layer P X W_V, any W_V.",
            parts=("with-values",),
            extra_variables=(Matrix("Wv", "d", "d"),),
        ),
    ],
)
