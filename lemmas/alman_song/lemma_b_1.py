"""Lemma B.1 (perturbation of 1/alpha), Appendix B.

As printed:
    Lemma B.1. Let a, b in R^n. Let ||b||_inf <= eps. Then we can show
    * |alpha(a+b)^{-1} - alpha(a)^{-1}| < (e^eps - 1) alpha(a)^{-1}
    * |alpha(a+b)^{-1} - alpha(a)^{-1}| < (e^eps - 1) alpha(a+b)^{-1}
    (the proof shows both with '<=').

Readings.
* ``as-printed``: both bullets with the strict '<' of the extracted text.
* ``intended``: '<=' in both bullets, which is what the proof establishes.
eps > 0 is taken as a hypothesis (a perturbation radius), as in Lemma 4.2.

Hand derivation.  |1/alpha' - 1/alpha| = |alpha - alpha'| / (alpha alpha') with
alpha = alpha(a), alpha' = alpha(a + b).  By Lemma 4.2 (4) |alpha' - alpha| <= (e^eps - 1)
alpha', which gives bullet 1 with '<='; Lemma 4.2 (3) gives bullet 2.  Both are equalities:
bullet 1 at b = -eps 1 (alpha' = e^{-eps} alpha, so the left side is (e^eps - 1)/alpha), and
bullet 2 at b = eps 1 (alpha' = e^eps alpha, left side (1 - e^{-eps})/alpha =
(e^eps - 1)/alpha').  So the intended reading holds with margins reaching 0, and the strict
reading is false for every a and eps > 0 -- e.g. n = 1, a = 0, eps = 1, b = -1 (bullet 1):
both sides equal e - 1, which only a symbolic proof of equality can certify.
"""

from verifier import Claim, Dim, Hypothesis, Part, ProofDomain, Reading, Scalar, Vector

from . import PAPER
from .common import alpha


def _inverse_gap(ctx, v):
    return ctx.abs(1 / alpha(ctx, v.a + v.b) - 1 / alpha(ctx, v.a))


def _growth(ctx, v):
    return ctx.exp(v.eps) - 1


_STRICT = {
    "1": "|alpha(a+b)^-1 - alpha(a)^-1| < (e^eps - 1) alpha(a)^-1",
    "2": "|alpha(a+b)^-1 - alpha(a)^-1| < (e^eps - 1) alpha(a+b)^-1",
}

claim = Claim(
    id="B.1",
    kind="lemma",
    paper=PAPER,
    location="Appendix B",
    title="Perturbation of 1/alpha",
    statement="Let a, b in R^n with ||b||_inf <= eps. Then |alpha(a+b)^-1 - alpha(a)^-1| < (e^eps - 1) alpha(a)^-1 and < (e^eps - 1) alpha(a+b)^-1.",
    latex=r"|\alpha(a+b)^{-1}-\alpha(a)^{-1}| < (e^\epsilon-1)\alpha(a)^{-1},\quad |\alpha(a+b)^{-1}-\alpha(a)^{-1}| < (e^\epsilon-1)\alpha(a+b)^{-1}",
    notes=(
        "The extracted text prints '<' in both bullets; the proof only gives '<='. Both readings "
        "are checked. alpha(x) = <exp(x), 1_n> (Definition 3.1); eps > 0 is taken as a hypothesis."
    ),
    dims=[Dim("n", 1, 6)],
    # at n = 1 alpha(a) = exp(a) and the sum the lemma is about has one term
    prove_on=ProofDomain(dims={"n": 2}, box=(-1, 1)),
    variables=[Vector("a", "n"), Scalar("eps", lo=0), Vector("b", "n", radius="eps")],
    hypotheses=[Hypothesis("eps > 0", lambda ctx, v: v.eps, strict=True)],
    parts=[
        Part(
            "1",
            lhs=_inverse_gap,
            rhs=lambda ctx, v: _growth(ctx, v) / alpha(ctx, v.a),
            statement="|alpha(a+b)^-1 - alpha(a)^-1| <= (e^eps - 1) alpha(a)^-1",
            latex=r"|\alpha(a+b)^{-1}-\alpha(a)^{-1}| \le (e^\epsilon-1)\alpha(a)^{-1}",
            lhs_text="|alpha(a+b)^-1 - alpha(a)^-1|",
            rhs_text="(e^eps - 1) alpha(a)^-1",
        ),
        Part(
            "2",
            lhs=_inverse_gap,
            rhs=lambda ctx, v: _growth(ctx, v) / alpha(ctx, v.a + v.b),
            statement="|alpha(a+b)^-1 - alpha(a)^-1| <= (e^eps - 1) alpha(a+b)^-1",
            latex=r"|\alpha(a+b)^{-1}-\alpha(a)^{-1}| \le (e^\epsilon-1)\alpha(a+b)^{-1}",
            lhs_text="|alpha(a+b)^-1 - alpha(a)^-1|",
            rhs_text="(e^eps - 1) alpha(a+b)^-1",
        ),
    ],
    readings=[
        Reading("intended", "<= in both bullets, as the proof shows."),
        Reading(
            "as-printed",
            "Both bullets with the strict '<' printed in the statement.",
            overrides={p: {"relation": "<", "statement": s} for p, s in _STRICT.items()},
        ),
    ],
)
