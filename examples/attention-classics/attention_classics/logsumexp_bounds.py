"""LogSumExp lies between the maximum and the maximum plus log n.

As printed (Wikipedia, "LogSumExp", section "Properties"; read at
https://findwords.info/term/logsumexp, which reproduces the article):
    max{x_1, ..., x_n} <= LSE(x_1, ..., x_n) <= max{x_1, ..., x_n} + log(n)

Reading.  LSE(x) = log(exp(x_1) + ... + exp(x_n)), natural logarithm, x in R^n.  The lower
bound is stated as a ``>=`` part (LSE >= max), the upper as a ``<=`` part.

Hand derivation (true).  With m = max_i x_i: e^m <= sum_i e^{x_i} <= n e^m, and log is
increasing.  Equality in the upper bound iff all x_i are equal; the lower bound is strict
for n >= 2 (every other term adds e^{x_i} > 0) and an equality for n = 1.

Verdict.  Both parts survive the search (seed 0, default budget); for ``upper`` the largest
ratio reached is 1 (equal entries).  ``verify prove lse-bounds --dims n=2 --box -4:4``:
``lower`` proved by branch and bound (0.16 s, 179 boxes); ``upper`` inconclusive after 60 s
with 99.94 % of the volume proved -- the margin is zero along x_1 = x_2, where no enclosure
can be bounded away from zero.
"""

from verifier import Claim, Dim, Part, Vector
from verifier.library import logsumexp

claim = Claim(
    id="lse-bounds",
    kind="fact",
    paper="wikipedia-logsumexp",
    location="Wikipedia, LogSumExp, section Properties",
    title="max <= LSE <= max + log n",
    statement="max{x_1, ..., x_n} <= LSE(x_1, ..., x_n) <= max{x_1, ..., x_n} + log(n)",
    dims=[Dim("n", 1, 6)],
    variables=[Vector("x", "n")],
    parts=[
        Part(
            "lower",
            lhs=lambda ctx, v: logsumexp(ctx, v.x),
            rhs=lambda ctx, v: ctx.max(v.x, -1),
            relation=">=",
            lhs_text="LSE(x)",
            rhs_text="max_i x_i",
        ),
        Part(
            "upper",
            lhs=lambda ctx, v: logsumexp(ctx, v.x),
            rhs=lambda ctx, v: ctx.max(v.x, -1) + ctx.log(ctx.const(v.dims["n"])),
            lhs_text="LSE(x)",
            rhs_text="max_i x_i + log n",
        ),
    ],
)
