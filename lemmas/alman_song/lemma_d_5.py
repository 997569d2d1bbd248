"""Lemma D.5 (linear softmax perturbation bound), Appendix D.2.

As printed:
    Lemma D.5. Let a, b in R^n.  If ||b||_inf <= 1, then
        ||softm(a + b) - softm(b)||_inf <= 4 ||b||_inf.
    Proof. For x in (0, 1], e^x - 1 <= 2x.  Thus ||softm(a+b) - softm(b)|| <= 2(e^{||b||} - 1)
    by Corollary D.4 ...

Readings.
* ``as-printed``: softm(a + b) - softm(b), exactly as printed (well formed: both are n-vectors).
* ``intended``: softm(a + b) - softm(a), the left side of Corollary D.4 that the proof uses.

Hand derivation.  as-printed is false: at b = 0 it demands softm(a) = softm(0) = uniform, e.g.
n = 2, a = (1, 0), b = 0: lhs = e/(e + 1) - 1/2 = 0.23.. > 0 = rhs.  intended is true:
Corollary D.4 gives 2(e^x - 1) with x = ||b|| in [0, 1], and e^x - 1 <= 2x on [0, 1] (convex,
with e - 1 < 2 at x = 1), so the bound is 4x; it is loose (sup ratio 1/8, the 1/2-Lipschitz
constant over 4) and tight only at b = 0 (0 <= 0).
"""

from verifier import Claim, Dim, Part, ProofDomain, Reading, Vector

from . import PAPER
from .common import softm


def _lhs(ctx, v):
    base = v.b if v.params["base"] == "b" else v.a
    return ctx.norm_inf(softm(ctx, v.a + v.b) - softm(ctx, base))


claim = Claim(
    id="D.5",
    kind="lemma",
    paper=PAPER,
    location="Appendix D.2",
    title="Linear softmax perturbation bound",
    statement="If ||b||_inf <= 1, then ||softm(a + b) - softm(b)||_inf <= 4 ||b||_inf.",
    latex=r"\|b\|_\infty\le 1 \implies \|\mathrm{softm}(a+b)-\mathrm{softm}(b)\|_\infty \le 4\|b\|_\infty",
    notes=(
        "As printed the left side compares softm(a+b) with softm(b); the proof (via Corollary D.4) "
        "is about softm(a+b) - softm(a). Both readings are checked."
    ),
    dims=[Dim("n", 1, 6)],
    prove_on=ProofDomain(dims={"n": 2}),
    variables=[Vector("a", "n"), Vector("b", "n", lo=-1, hi=1)],
    parts=[
        Part(
            "main",
            lhs=_lhs,
            rhs=lambda ctx, v: 4 * ctx.norm_inf(v.b),
            lhs_text="||softm(a+b) - softm(.)||_inf",
            rhs_text="4 ||b||_inf",
        )
    ],
    readings=[
        Reading("as-printed", "||softm(a + b) - softm(b)||_inf <= 4||b||_inf, as printed.", params={"base": "b"}),
        Reading("intended", "||softm(a + b) - softm(a)||_inf <= 4||b||_inf, as the proof uses it.", params={"base": "a"}),
    ],
)
