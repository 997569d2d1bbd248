"""Fact 3.3 (norm inequality), Section 3.1.

As printed:
    Fact 3.3 (Norm inequality). For any matrices A, B we have (1) ||AB||_1 <= ||A||_1 ||B||_1,
    (2) ||AB||_inf <= ||A||_inf ||B||_inf, (3) ||AB||_1 <= ||A||_1 ||B||_inf.

Reading.  Section 3.1 defines both norms entrywise for matrices: ||A||_1 = sum_{j,l} |A_jl|
and ||A||_inf = max_{j,l} |A_jl|.  A is m x k and B is k x p.

Hand derivation.
(1) holds: |sum_t A_it B_tj| <= sum_t |A_it||B_tj|, and summing over i, j gives a sub-sum of
    sum_{i,t,t',j} |A_it||B_t'j| = ||A||_1 ||B||_1.  Equality holds for entrywise nonnegative
    rank-one products (k = 1), where float64 rounding makes the margin go slightly negative:
    the case the re-check exists for.
(2) fails for k >= 2: |(AB)_ij| <= k ||A||_inf ||B||_inf and the constant k is reached by
    A = (1 1), B = (1 1)^T: ||AB||_inf = 2 > 1.  It holds for k = 1.
(3) fails for p >= 2: ||AB||_1 <= p ||A||_1 ||B||_inf, reached by A = (1), B = (1 1):
    ||AB||_1 = 2 > 1.  It holds for p = 1.

Repaired reading (``repaired``, parts 2 and 3) with the constants derived above, both
attained by the examples given: (2) ||AB||_inf <= k ||A||_inf ||B||_inf, since each entry
of AB is a sum of k products each at most ||A||_inf ||B||_inf in size; (3) ||AB||_1 <=
p ||A||_1 ||B||_inf, since ||AB||_1 <= sum_{i,t,j} |A_it||B_tj| <= p ||A||_1 ||B||_inf.
"""

from verifier import Claim, Dim, Matrix, Part, ProofDomain, Reading
from verifier.claims import DEFAULT_READING

from . import PAPER

claim = Claim(
    id="3.3",
    kind="fact",
    paper=PAPER,
    location="Section 3.1",
    title="Norm inequality",
    statement="For any matrices A, B: (1) ||AB||_1 <= ||A||_1 ||B||_1, (2) ||AB||_inf <= ||A||_inf ||B||_inf, (3) ||AB||_1 <= ||A||_1 ||B||_inf.",
    latex=r"\|AB\|_1 \le \|A\|_1\|B\|_1,\quad \|AB\|_\infty \le \|A\|_\infty\|B\|_\infty,\quad \|AB\|_1 \le \|A\|_1\|B\|_\infty",
    notes="Both norms are entrywise (Section 3.1): ||A||_1 = sum |A_jl|, ||A||_inf = max |A_jl|. A is m x k, B is k x p.",
    dims=[Dim("m", 1, 5), Dim("k", 1, 5), Dim("p", 1, 5)],
    variables=[Matrix("A", "m", "k"), Matrix("B", "k", "p")],
    parts=[
        Part(
            "1",
            prove_on=ProofDomain(dims={"m": 1, "k": 2, "p": 2}, box=None),  # z3, every real A and B
            lhs=lambda ctx, v: ctx.norm_1(v.A @ v.B),
            rhs=lambda ctx, v: ctx.norm_1(v.A) * ctx.norm_1(v.B),
            statement="||AB||_1 <= ||A||_1 * ||B||_1",
            latex=r"\|AB\|_1 \le \|A\|_1 \cdot \|B\|_1",
            lhs_text="||AB||_1",
            rhs_text="||A||_1 ||B||_1",
        ),
        Part(
            "2",
            prove_on=ProofDomain(dims={"m": 1, "k": 2, "p": 1}, box=None),  # z3, every real A and B
            lhs=lambda ctx, v: ctx.norm_inf(v.A @ v.B),
            rhs=lambda ctx, v: ctx.norm_inf(v.A) * ctx.norm_inf(v.B),
            statement="||AB||_inf <= ||A||_inf * ||B||_inf",
            latex=r"\|AB\|_\infty \le \|A\|_\infty \cdot \|B\|_\infty",
            lhs_text="||AB||_inf",
            rhs_text="||A||_inf ||B||_inf",
        ),
        Part(
            "3",
            prove_on=ProofDomain(dims={"m": 1, "k": 1, "p": 2}, box=None),  # z3, every real A and B
            lhs=lambda ctx, v: ctx.norm_1(v.A @ v.B),
            rhs=lambda ctx, v: ctx.norm_1(v.A) * ctx.norm_inf(v.B),
            statement="||AB||_1 <= ||A||_1 * ||B||_inf",
            latex=r"\|AB\|_1 \le \|A\|_1 \cdot \|B\|_\infty",
            lhs_text="||AB||_1",
            rhs_text="||A||_1 ||B||_inf",
        ),
    ],
    readings=[
        DEFAULT_READING,
        Reading(
            "repaired",
            "Parts 2 and 3 with the constants that make them true: k (the inner dimension) and p (the columns of B).",
            parts=("2", "3"),
            overrides={
                "2": {
                    "rhs": lambda ctx, v: v.dims["k"] * ctx.norm_inf(v.A) * ctx.norm_inf(v.B),
                    "rhs_text": "k ||A||_inf ||B||_inf",
                    "statement": "||AB||_inf <= k * ||A||_inf * ||B||_inf",
                },
                "3": {
                    "rhs": lambda ctx, v: v.dims["p"] * ctx.norm_1(v.A) * ctx.norm_inf(v.B),
                    "rhs_text": "p ||A||_1 ||B||_inf",
                    "statement": "||AB||_1 <= p * ||A||_1 * ||B||_inf",
                },
            },
        ),
    ],
)
