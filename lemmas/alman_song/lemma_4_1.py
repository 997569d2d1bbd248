"""Lemma 4.1 (perturbation property of Res), Section 4.1.

As printed:
    Lemma 4.1. Let Res() be defined as Definition 3.4. If ||A - B||_inf <= eps, then
    ||Res(A) - Res(B)||_inf <= eps.

Reading.  ||.||_inf is the entrywise max norm (Section 3.1).  Res(Z) = Z - 1_n y^T with y
the minimiser of ||Z - 1_n y^T||_inf; we use the per-column midrange, which is always a
minimiser and the only one when d = 1 (so every d = 1 counterexample refutes the lemma
under any choice of minimiser).

Hand derivation (why it is false).  With d = 1, Res(Z) = Z - mid(Z) 1 where mid is the
midrange, so Res(A) - Res(B) = (A - B) - (mid(A) - mid(B)) 1.  The midrange is 1-Lipschitz
in the max norm, so ||Res(A) - Res(B)|| <= 2 ||A - B||: the true constant is at most 2,
and the reviewer's A = (2, 0, -2), B = (1, 1, -3) reaches it (lhs 2, eps 1).  For n <= 2
the lemma holds: Res(Z) = (Z_1 - Z_2)/2 (1, -1), so ||Res(A) - Res(B)|| =
|(A-B)_1 - (A-B)_2| / 2 <= eps.  The smallest counterexamples therefore have n = 3.

The proof's first step ||Res(A) - Res(B)|| <= ||A - 1 y_B^T - Res(B)|| assumes the
minimiser for B is also best for A, which is the error.

Repaired reading (``repaired``): ||Res(A) - Res(B)||_inf <= 2 eps.  Res acts column by
column, and in column j, Res(A)_ij - Res(B)_ij = (A - B)_ij - (mid_j(A) - mid_j(B)).  The
midrange is 1-Lipschitz in the max norm (max and min each move by at most eps when every
entry moves by at most eps), so each term is at most eps and the sum at most 2 eps.  The
reviewer's example above attains it, so 2 is the smallest constant that works for n >= 3.
"""

from verifier import Claim, Dim, Matrix, Part, ProofDomain, Reading, Scalar
from verifier.claims import DEFAULT_READING

from . import PAPER
from .common import RES_ADVERSARIAL, minimiser_choices, res, res_midrange

claim = Claim(
    id="4.1",
    kind="lemma",
    paper=PAPER,
    location="Section 4.1",
    title="Perturbation property of Res",
    statement="If ||A - B||_inf <= eps, then ||Res(A) - Res(B)||_inf <= eps.",
    latex=r"\|A-B\|_\infty \le \epsilon \implies \|\mathrm{Res}(A)-\mathrm{Res}(B)\|_\infty \le \epsilon",
    notes=(
        "||.||_inf is the entrywise max norm (Section 3.1). Res uses the per-column midrange, "
        "a minimiser of Definition 3.4 for every d and the unique one for d = 1."
    ),
    dims=[Dim("n", 1, 6), Dim("d", 1, 4)],
    prove_on=ProofDomain(dims={"n": 4, "d": 2}, box=None),  # piecewise linear: z3 decides it for every real A and eps
    variables=[
        Matrix("A", "n", "d"),
        Scalar("eps", lo=0),
        Matrix("B", "n", "d", near="A", radius="eps"),
    ],
    parts=[
        Part(
            "main",
            lhs=lambda ctx, v: ctx.norm_inf(res_midrange(ctx, v.A) - res_midrange(ctx, v.B)),
            rhs=lambda ctx, v: v.eps,
            lhs_text="||Res(A) - Res(B)||_inf",
            rhs_text="eps",
        )
    ],
    readings=[
        DEFAULT_READING,
        # Adversarial: Res(A) and Res(B) may pick any minimisers (tA, tB in [0, 1]^d).  For
        # d >= 2 they can differ at A = B, eps = 0; for d = 1 this is the midrange reading.
        Reading(
            "adversarial",
            "Res picks any minimiser of Definition 3.4 (chosen adversarially by tA, tB in [0, 1]^d).",
            params=RES_ADVERSARIAL,
            extra_variables=minimiser_choices("tA", "tB"),
            overrides={"main": {"lhs": lambda ctx, v: ctx.norm_inf(res(ctx, v, v.A, "tA") - res(ctx, v, v.B, "tB"))}},
        ),
        Reading(
            "repaired",
            "The constant the proof can give: ||Res(A) - Res(B)||_inf <= 2 eps (derivation in the module docstring).",
            parts=("main",),
            overrides={"main": {"rhs": lambda ctx, v: 2 * v.eps, "rhs_text": "2 eps", "statement": "If ||A - B||_inf <= eps, then ||Res(A) - Res(B)||_inf <= 2 eps."}},
        ),
    ],
)
