"""Lemma B.2 (softmax perturbation), Appendix B.

As printed:
    Lemma B.2. Let a, b in R^n. If |b_i| <= eps for all i in [n], then
    ||softm(a + b) - softm(a)||_inf <= 2(e^eps - 1).

Hand derivation (true).  Write s = softm(a), s' = softm(a + b).  The proof splits
|s'_i - s_i| <= A_1 + A_2 with A_1 = alpha(a+b)^{-1} |e^{a_i+b_i} - e^{a_i}| <= (e^eps - 1) s'_i
(Lemma 4.2 (2)) and A_2 = e^{a_i} |alpha(a+b)^{-1} - alpha(a)^{-1}| <= (e^eps - 1) s_i
(Lemma B.1, which follows from Lemma 4.2 (4)).  Both are <= e^eps - 1, so the bound holds.
It is far from tight: for small eps the left side is at most about eps/2 (the softmax is
1/2-Lipschitz from l_inf to l_inf), against 2 eps on the right, and it never exceeds 1.
"""

from verifier import Claim, Dim, Part, ProofDomain, Scalar, Vector

from . import PAPER
from .common import softm

claim = Claim(
    id="B.2",
    kind="lemma",
    paper=PAPER,
    location="Appendix B",
    title="Softmax perturbation bound",
    statement="If |b_i| <= eps for all i, then ||softm(a + b) - softm(a)||_inf <= 2(e^eps - 1).",
    latex=r"\|b\|_\infty \le \epsilon \implies \|\mathrm{softm}(a+b)-\mathrm{softm}(a)\|_\infty \le 2(e^\epsilon-1)",
    notes="softm is the softmax of Definition 3.1; ||.||_inf is the max norm.",
    dims=[Dim("n", 1, 8)],
    prove_on=ProofDomain(dims={"n": 3}, box=(-5, 5), boxes={"eps": ("0.01", 2)}),  # off the face eps = 0, where both sides vanish
    variables=[Vector("a", "n"), Scalar("eps", lo=0), Vector("b", "n", radius="eps")],
    parts=[
        Part(
            "main",
            lhs=lambda ctx, v: ctx.norm_inf(softm(ctx, v.a + v.b) - softm(ctx, v.a)),
            rhs=lambda ctx, v: 2 * (ctx.exp(v.eps) - 1),
            lhs_text="||softm(a+b) - softm(a)||_inf",
            rhs_text="2(e^eps - 1)",
        )
    ],
)
