"""Eq. (6), proof of Lemma 5.1 (Section 5.1): the column-constant terms can be dropped.

As printed:
    The unscaled attention scores are A = (X W_q + 1_n b_q^T)(X W_k + 1_n b_k^T)^T ...
    b := W_k b_q ... Using Fact 3.2, we can remove the first term in the above equation
    since it is constant across columns. We thus have that the following equation for
    P = softm(A):  P = softm(beta R W R^T + 1_n r^T) = softm(E + 1_n r^T)   (6)
    where ... r = beta R (W^T x + b) in R^n, ... E = beta R W R^T.

Reading.  X = 1_n x^T + R with R = Res(X) (so x is the subtracted minimiser), W = W_q W_k^T,
and P = softm of the *scaled* scores beta (X W_q + 1 b_q^T)(X W_k + 1 b_k^T)^T (the proof
scales A by beta in Eq. (5)).  Entrywise equality of the two n x n matrices.

Hand derivation (true, for any x with X = 1 x^T + R, so for every minimiser).  Expanding,
(X W_q + 1 b_q^T)(X W_k + 1 b_k^T)^T = X W X^T + X W_q b_k 1^T + 1 b^T X^T + (b_q^T b_k) 1 1^T
and X W X^T + 1 b^T X^T = R W R^T + 1 (x^T W + b^T) R^T + [R W x + 1 x^T W x + 1 b^T x] 1^T.
The bracketed terms and X W_q b_k 1^T, b_q^T b_k 1 1^T are constant along each row (a
vector times 1^T), which Fact 3.2 removes; what is left is beta R W R^T + 1 r^T with
r^T = beta (x^T W + b^T) R^T.  Expected: survives; the two sides agree to within the ball
enclosures ('tight').
"""

from verifier import Claim, Dim, Hypothesis, Matrix, Part, ProofDomain, Scalar, Vector

from . import PAPER
from .common import res_readings, softm, split_res


def _scores(ctx, v):
    b = v.beta[:, None, None]
    Q = v.X @ v.Wq + v.bq[:, None, :]
    K = v.X @ v.Wk + v.bk[:, None, :]
    return b * (Q @ ctx.T(K))


def _reduced(ctx, v):
    b = v.beta[:, None, None]
    x, R = split_res(ctx, v, v.X, "tX")
    W = v.Wq @ ctx.T(v.Wk)
    bias = v.bq[:, None, :] @ ctx.T(v.Wk)  # b^T = (W_k b_q)^T as a row
    return b * (R @ W @ ctx.T(R)) + b * ((x @ W + bias) @ ctx.T(R))


claim = Claim(
    id="eq6",
    kind="proof-step",
    paper=PAPER,
    location="Section 5.1, proof of Lemma 5.1, Eq. (6)",
    title="Eq. (6): softm(A) = softm(beta R W R^T + 1 r^T)",
    statement="P = softm(A) = softm(beta R W R^T + 1_n r^T) with r = beta R (W^T x + b), b = W_k b_q, X = 1_n x^T + R, R = Res(X).",
    latex=r"\mathrm{softm}(A) = \mathrm{softm}(\beta R W R^\top + \mathbf{1}_n r^\top)",
    notes="A = beta (X W_q + 1 b_q^T)(X W_k + 1 b_k^T)^T, the proof's scaled scores with biases; entrywise equality.",
    dims=[Dim("n", 1, 4), Dim("d", 1, 3)],
    # n = 1 is trivial (softmax of one entry is 1); at n = 2 the 8 free entries leave first-order
    # enclosures undecided everywhere (0 % of the volume after 2,500 boxes): a small budget of work
    prove_on=ProofDomain(dims={"n": 2, "d": 1}, box=(-1, 1), max_boxes=500),
    variables=[
        Matrix("X", "n", "d"),
        Matrix("Wq", "d", "d"),
        Matrix("Wk", "d", "d"),
        Vector("bq", "d"),
        Vector("bk", "d"),
        Scalar("beta", lo=0),
    ],
    hypotheses=[Hypothesis("beta > 0", lambda ctx, v: v.beta, strict=True)],
    parts=[
        Part(
            "main",
            lhs=lambda ctx, v: softm(ctx, _scores(ctx, v)),
            rhs=lambda ctx, v: softm(ctx, _reduced(ctx, v)),
            relation="==",
            lhs_text="softm(A)_ij",
            rhs_text="softm(beta R W R^T + 1 r^T)_ij",
        )
    ],
    readings=res_readings("tX"),
)
