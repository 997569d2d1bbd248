"""Lemma 4.2 (perturbation property of exp), Section 4.2.

As printed (the extracted text lost the minus signs; the proof restores them):
    Let a, b in R^n, ||b||_inf <= eps.  Then
    (1) |exp(a_i + b_i) - exp(a_i)| <= (e^eps - 1) exp(a_i),
    (2) |exp(a_i + b_i) - exp(a_i)| <= (e^eps - 1) exp(a_i + b_i),
    (3) |alpha(a + b) - alpha(a)| <  (e^eps - 1) alpha(a),
    (4) |alpha(a + b) - alpha(a)| <= (e^eps - 1) alpha(a + b),
    with alpha(x) = <exp(x), 1_n> (Definition 3.1).

Readings.
* ``intended``: <= in all four parts, which is what the proof shows.
* ``as-printed``: part (3) with the strict '<' as printed; parts 1, 2, 4 read the same under
  both readings, so only part 3 is checked again.
eps > 0 is assumed (a perturbation radius); parts (1), (2) hold for each i.

Hand derivation.  |e^{a+b} - e^a| = e^a |e^b - 1| <= e^a (e^eps - 1) since |e^b - 1| <=
e^{|b|} - 1; and = e^{a+b} |1 - e^{-b}| <= e^{a+b}(e^eps - 1).  Summing gives (3), (4) with
<=.  All four are tight: (1) and (3) at b = eps * 1, (2) and (4) at b = -eps * 1, with
equality exactly -- so the strict reading of (3) is false (for every a and eps > 0, at
b = eps * 1), and the <= reading survives with margins that reach 0.
"""

from verifier import Claim, Dim, Hypothesis, Part, ProofDomain, Reading, Scalar, Vector

from . import PAPER
from .common import alpha


def _growth(ctx, v):
    return ctx.exp(v.eps) - 1


#: parts (3), (4) sum over i: at n = 1 alpha(a) = exp(a) and they are parts (1), (2) again
_SUMS = ProofDomain(dims={"n": 2}, box=(-5, 5), boxes={"eps": ("0.01", 2)})


claim = Claim(
    id="4.2",
    kind="lemma",
    paper=PAPER,
    location="Section 4.2",
    title="Perturbation property of exp",
    statement="Let a, b in R^n with ||b||_inf <= eps. Then (1)-(4) bound |exp(a+b) - exp(a)| and |alpha(a+b) - alpha(a)| by (e^eps - 1) times exp(a), exp(a+b), alpha(a), alpha(a+b).",
    notes=(
        "The extracted text drops the minus signs inside |.|; the proof restores them. "
        "eps > 0 is taken as a hypothesis. Parts (1), (2) are checked for every index i."
    ),
    dims=[Dim("n", 1, 6)],
    # parts (1), (2) hold entrywise, so n = 1 is each entry's statement; eps >= 1/100 keeps the
    # proof off the corner eps = 0, where the equality faces b = a - eps and b = a + eps meet
    prove_on=ProofDomain(dims={"n": 1}, box=(-5, 5), boxes={"eps": ("0.01", 2)}),
    variables=[Vector("a", "n"), Scalar("eps", lo=0), Vector("b", "n", radius="eps")],
    hypotheses=[Hypothesis("eps > 0", lambda ctx, v: v.eps, strict=True)],
    parts=[
        Part(
            "1",
            lhs=lambda ctx, v: ctx.abs(ctx.exp(v.a + v.b) - ctx.exp(v.a)),
            rhs=lambda ctx, v: _growth(ctx, v)[:, None] * ctx.exp(v.a),
            elementwise=True,
            statement="|exp(a_i + b_i) - exp(a_i)| <= (e^eps - 1) exp(a_i)",
            latex=r"|\exp(a_i+b_i)-\exp(a_i)| \le (e^\epsilon-1)\exp(a_i)",
            lhs_text="|exp(a_i+b_i) - exp(a_i)|",
            rhs_text="(e^eps - 1) exp(a_i)",
        ),
        Part(
            "2",
            lhs=lambda ctx, v: ctx.abs(ctx.exp(v.a + v.b) - ctx.exp(v.a)),
            rhs=lambda ctx, v: _growth(ctx, v)[:, None] * ctx.exp(v.a + v.b),
            elementwise=True,
            statement="|exp(a_i + b_i) - exp(a_i)| <= (e^eps - 1) exp(a_i + b_i)",
            latex=r"|\exp(a_i+b_i)-\exp(a_i)| \le (e^\epsilon-1)\exp(a_i+b_i)",
            lhs_text="|exp(a_i+b_i) - exp(a_i)|",
            rhs_text="(e^eps - 1) exp(a_i+b_i)",
        ),
        Part(
            "3",
            prove_on=_SUMS,
            lhs=lambda ctx, v: ctx.abs(alpha(ctx, v.a + v.b) - alpha(ctx, v.a)),
            rhs=lambda ctx, v: _growth(ctx, v) * alpha(ctx, v.a),
            statement="|alpha(a + b) - alpha(a)| <= (e^eps - 1) alpha(a)",
            latex=r"|\alpha(a+b)-\alpha(a)| \le (e^\epsilon-1)\,\alpha(a)",
            lhs_text="|alpha(a+b) - alpha(a)|",
            rhs_text="(e^eps - 1) alpha(a)",
        ),
        Part(
            "4",
            prove_on=_SUMS,
            lhs=lambda ctx, v: ctx.abs(alpha(ctx, v.a + v.b) - alpha(ctx, v.a)),
            rhs=lambda ctx, v: _growth(ctx, v) * alpha(ctx, v.a + v.b),
            statement="|alpha(a + b) - alpha(a)| <= (e^eps - 1) alpha(a + b)",
            latex=r"|\alpha(a+b)-\alpha(a)| \le (e^\epsilon-1)\,\alpha(a+b)",
            lhs_text="|alpha(a+b) - alpha(a)|",
            rhs_text="(e^eps - 1) alpha(a+b)",
        ),
    ],
    readings=[
        Reading("intended", "<= in every part, as the proof shows."),
        Reading(
            "as-printed",
            "Part (3) with the strict '<' printed in the statement.",
            parts=("3",),
            overrides={"3": {"relation": "<", "statement": "|alpha(a + b) - alpha(a)| < (e^eps - 1) alpha(a)"}},
        ),
    ],
)
