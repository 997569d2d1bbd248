"""Dot-product self-attention is not Lipschitz (Kim, Papamakarios & Mnih 2021).

As printed (H. Kim, G. Papamakarios and A. Mnih, "The Lipschitz Constant of
Self-Attention", ICML 2021, Abstract; read at https://www.sciencestack.ai/paper/2006.04710):
    We prove that the standard dot-product self-attention is not Lipschitz for unbounded
    input domain

Reading.  A statement that no constant works cannot be refuted by one point; what can be
checked is every candidate constant.  The claim checked is the one the theorem denies:
f(X) = softmax(X X^T) X (one head, W_Q = W_K = W_V = I, d = 1) is K-Lipschitz in the
max norm, ||f(X) - f(Y)||_max <= K ||X - Y||_max, for K = 10 and K = 100 (readings).  A
certified violation of each is what the theorem predicts.

Hand derivation (false for every K).  n = 2, X = (0, t)^T, Y = (e, t)^T.  Row 1 of f at
x_1 = e is t sigmoid(e t - e^2) + e (1 - sigmoid(e t - e^2)), whose derivative in e at 0
is t^2/4 + 1/2.  So for small e, ||f(Y) - f(X)|| ~ (t^2/4 + 1/2) e > K e once t^2 > 4K:
t = 7, e = 1/100 breaks K = 10 (about 12.7 e); t = 21, e = 1/1000 breaks K = 100.

Verdict.  Both readings are refuted from scratch with ball-arithmetic certificates,
agreeing with the theorem.  The search finds a second mechanism, a whole step rather than
the derivative above: seed 0 gives X = (-25, 0)^T, Y = (-25, -1)^T.  Row 2 of f(X) has
scores (0, 0), uniform attention, f_2 = -25/2; in Y its scores are (25, 1), attention almost
all on token 1, f_2 ~ -25: ||f(X) - f(Y)|| = 12.5 > 10 = K ||X - Y||.  For K = 100 the
same shape at -340 (170 > 100).
"""

from verifier import Claim, Dim, Matrix, Part, Reading
from verifier.library import max_norm, softmax


def _attention(ctx, X):
    return softmax(ctx, X @ ctx.T(X)) @ X


claim = Claim(
    id="dp-attention-lipschitz",
    kind="theorem",
    paper="kim-papamakarios-mnih-2021",
    location="ICML 2021, Abstract (Theorem 3.1)",
    title="Dot-product self-attention is K-Lipschitz (denied by the theorem)",
    statement="the standard dot-product self-attention is not Lipschitz for unbounded input domain",
    notes="Checked: the K-Lipschitz bound the theorem denies, for K = 10 and K = 100; W_Q = W_K = W_V = I, d = 1.",
    dims=[Dim("n", 2, 4), Dim("d", 1, 1)],
    variables=[Matrix("X", "n", "d"), Matrix("Y", "n", "d")],
    parts=[
        Part(
            "main",
            lhs=lambda ctx, v: max_norm(ctx, _attention(ctx, v.X) - _attention(ctx, v.Y)),
            rhs=lambda ctx, v: v.params["K"] * max_norm(ctx, v.X - v.Y),
            lhs_text="||f(X) - f(Y)||_max",
            rhs_text="K ||X - Y||_max",
        )
    ],
    readings=[
        Reading("K=10", "f is 10-Lipschitz.", params={"K": 10}),
        Reading("K=100", "f is 100-Lipschitz.", params={"K": 100}),
    ],
)
