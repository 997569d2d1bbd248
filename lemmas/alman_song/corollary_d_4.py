"""Corollary D.4 (softmax perturbation in terms of ||b||), Appendix D.2.

As printed:
    Corollary D.4. Let a, b in R^n.  Then ||softm(a + b) - softm(a)||_inf <= 2(e^{||b||_inf} - 1).

Hand derivation (true).  This is Lemma B.2 with eps = ||b||_inf, which satisfies its
hypothesis with equality.  It is loose in the same way: the softmax is 1/2-Lipschitz from
l_inf to l_inf, so the left side is at most min(1, ||b||/2) against about 2||b|| on the
right; the largest ratio lhs/rhs is 1/4 (at b -> 0), and b = 0 gives 0 <= 0.
"""

from verifier import Claim, Dim, Part, ProofDomain, Vector

from . import PAPER
from .common import softm

claim = Claim(
    id="D.4",
    kind="corollary",
    paper=PAPER,
    location="Appendix D.2",
    title="Softmax perturbation in terms of ||b||",
    statement="For a, b in R^n: ||softm(a + b) - softm(a)||_inf <= 2(e^{||b||_inf} - 1).",
    latex=r"\|\mathrm{softm}(a+b)-\mathrm{softm}(a)\|_\infty \le 2(e^{\|b\|_\infty}-1)",
    notes="softm is Definition 3.1's softmax; ||.||_inf is the max norm.",
    dims=[Dim("n", 1, 8)],
    prove_on=ProofDomain(dims={"n": 2}),
    variables=[Vector("a", "n"), Vector("b", "n")],
    parts=[
        Part(
            "main",
            lhs=lambda ctx, v: ctx.norm_inf(softm(ctx, v.a + v.b) - softm(ctx, v.a)),
            rhs=lambda ctx, v: 2 * (ctx.exp(ctx.norm_inf(v.b)) - 1),
            lhs_text="||softm(a+b) - softm(a)||_inf",
            rhs_text="2(e^||b|| - 1)",
        )
    ],
)
