"""When the LogSumExp bounds are met: the lower-bound case as printed is false.

As printed (Wikipedia, "LogSumExp", section "Properties"; read at
https://findwords.info/term/logsumexp):
    The lower bound is met when only one of the argument is non-zero, while the upper bound
    is met when all the arguments are equal.

Reading.  n >= 2 arguments.  ``lower``: x = (c, 0, ..., 0) with c != 0 (exactly one
argument non-zero) gives LSE(x) = max(x).  ``upper``: x = (c, ..., c) gives
LSE(x) = max(x) + log n.

Hand derivation.  ``upper`` is true: LSE(c 1) = log(n e^c) = c + log n.  ``lower`` is false
for every c: LSE(c, 0, ..., 0) = log(e^c + n - 1) while max = max(c, 0); the gap is
log(1 + (n - 1) e^{-c}) for c > 0 and log(e^c + n - 1) > log(n - 1) >= 0 for c < 0 -- never
zero.  Already n = 2, c = 1: LSE = log(e + 1) = 1.3133 > 1.  The lower bound is met only
for n = 1 (or in the limit as the other arguments go to minus infinity).

Verdict.  ``lower`` refuted from scratch (ball arithmetic: the enclosure of
|LSE - max| lies above zero); ``upper`` survives (the enclosure of the difference always
straddles zero: an identity, which a search cannot prove).  ``verify prove lse-equality
--part upper --dims n=2 --box -4:4`` proves it in 0.14 s: branch and bound reduces the
box to its faces, where sympy shows the margin is identically zero.
"""

import numpy as np

from verifier import Claim, Dim, Hypothesis, Part, Scalar
from verifier.library import logsumexp


def _one_nonzero(v):
    c = v.c[:, None]
    return np.concatenate([c, np.repeat(0 * c, v.dims["n"] - 1, axis=1)], axis=1)


def _all_equal(v):
    return np.repeat(v.c[:, None], v.dims["n"], axis=1)


claim = Claim(
    id="lse-equality",
    kind="fact",
    paper="wikipedia-logsumexp",
    location="Wikipedia, LogSumExp, section Properties",
    title="When the LogSumExp bounds are met",
    statement="The lower bound is met when only one of the argument is non-zero, while the upper bound is met when all the arguments are equal.",
    notes="n >= 2. lower: x = (c, 0, ..., 0), c != 0. upper: x = (c, ..., c).",
    dims=[Dim("n", 2, 6)],
    variables=[Scalar("c")],
    parts=[
        Part(
            "lower",
            lhs=lambda ctx, v: logsumexp(ctx, _one_nonzero(v)),
            rhs=lambda ctx, v: ctx.max(_one_nonzero(v), -1),
            relation="==",
            hypotheses=(Hypothesis("c != 0 (only one argument is non-zero)", lambda ctx, v: ctx.abs(v.c), strict=True),),
            lhs_text="LSE(c, 0, ..., 0)",
            rhs_text="max(c, 0)",
        ),
        Part(
            "upper",
            lhs=lambda ctx, v: logsumexp(ctx, _all_equal(v)),
            rhs=lambda ctx, v: v.c + ctx.log(ctx.const(v.dims["n"])),
            relation="==",
            lhs_text="LSE(c, ..., c)",
            rhs_text="c + log n",
        ),
    ],
)
