"""Fact 3.2 (shift-invariance of softmax), Section 3.1.

As printed:
    Fact 3.2 (Shift-invariance property of softmax). For any vector x in R^n and for any
    fixed scalar a in R, we have softm(x) = softm(x + a 1_n).

Reading.  softm is Definition 3.1 taken literally, alpha(x)^{-1} exp(x), *without* the
max-shift that the other claims use for numerical safety (that shift is this very fact,
so using it here would make the check vacuous).  The equality is compared entrywise.

Hand derivation (true).  exp(x + a 1) = e^a exp(x) and alpha(x + a 1) = e^a alpha(x), so
the factor e^a cancels.  Expected verdict: survives.  float64 rounds exp(x_i + a) and
exp(x_i) e^a differently, so the search meets tiny nonzero differences (about 1e-16
relative); each is a suspect that the re-check must reject: the ball enclosures of the
two sides overlap and the difference straddles 0 at every precision ('tight', never a
violation).  Huge |a| or x overflow exp in float64; those candidates are non-finite and
skipped, the mathematics does not change.
"""

from verifier import Claim, Dim, Part, ProofDomain, Scalar, Vector

from . import PAPER
from .common import softm_by_definition

claim = Claim(
    id="3.2",
    kind="fact",
    paper=PAPER,
    location="Section 3.1",
    title="Shift-invariance of softmax",
    statement="For any x in R^n and a in R, softm(x) = softm(x + a 1_n).",
    latex=r"\mathrm{softm}(x) = \mathrm{softm}(x + a\mathbf{1}_n)",
    notes=(
        "softm is evaluated literally as alpha(x)^{-1} exp(x) (Definition 3.1), not with the "
        "max-shift, which is this fact. Entrywise equality of the two vectors."
    ),
    dims=[Dim("n", 1, 6)],
    # the identity through exp: ball enclosures of both sides overlap, never separate, so more
    # boxes decide little more (and each costs ~30 ms): a small budget of work
    prove_on=ProofDomain(dims={"n": 2}, max_boxes=500),
    variables=[Vector("x", "n"), Scalar("a")],
    parts=[
        Part(
            "main",
            lhs=lambda ctx, v: softm_by_definition(ctx, v.x),
            rhs=lambda ctx, v: softm_by_definition(ctx, v.x + v.a[:, None]),
            relation="==",
            lhs_text="softm(x)_i",
            rhs_text="softm(x + a 1_n)_i",
        )
    ],
    derivation="exp(x + a1) = e^a exp(x) and alpha(x + a1) = e^a alpha(x): the factor e^a cancels.",
)
