"""The step ||R_X - R_B||_inf <= ||R_A||_inf in the proof of Lemma 5.2 (Section 5.2).

As printed:
    We can show R_X = Res(X) = Res(B - A) = Res(B - R_A). Then, we know
    ||R_X - R_B||_inf <= ||Res(B - R_A) - Res(B)||_inf <= ||R_A||_inf <= eps.

Reading.  B = X + A for any X, A in R^{n x d} (the step uses nothing else about A);
R_Z = Res(Z).  The chain ends in ||R_A|| <= eps, a hypothesis; the step checked is
||R_X - R_B||_inf <= ||R_A||_inf.  Readings ``midrange`` / ``adversarial``: the minimisers
Res picks for X and for B (tX, tB in [0, 1]^d; ||R_A||_inf does not depend on the choice).

Hand derivation (false).  Res(B - A) = Res(B - R_A) is right (A - R_A = 1 y_A^T is removed
by Res), and the second inequality is Lemma 4.1 applied to B - R_A and B, at distance
||R_A||: Lemma 4.1 is false, so is the step.  The reviewer's counterexample to Lemma 4.1
(2, 0, -2) vs (1, 1, -3) differs by (1, -1, 1), which is its own Res; so X = (2, 0, -2)^T,
A = (-1, 1, -1)^T, B = (1, 1, -3)^T give R_X = (2, 0, -2), R_B = (2, 2, -2),
||R_X - R_B|| = 2 > 1 = ||R_A||.  n <= 2 cannot fail (as for Lemma 4.1).
Expected: refuted with n = 3, d = 1.
"""

from verifier import Claim, Dim, Matrix, Part

from . import PAPER
from .common import res, res_midrange, res_readings

claim = Claim(
    id="5.2-step",
    kind="proof-step",
    paper=PAPER,
    location="Section 5.2, proof of Lemma 5.2 (between Eq. (10) and Eq. (11))",
    title="||R_X - R_B||_inf <= ||R_A||_inf (via Lemma 4.1)",
    statement="With B = X + A: ||Res(X) - Res(B)||_inf <= ||Res(A)||_inf.",
    latex=r"\|\mathrm{Res}(X)-\mathrm{Res}(X+A)\|_\infty \le \|\mathrm{Res}(A)\|_\infty",
    notes="B = X + A for any X, A (the step uses nothing else); ||R_A||_inf is the same for every minimiser.",
    dims=[Dim("n", 1, 5), Dim("d", 1, 3)],
    variables=[Matrix("X", "n", "d"), Matrix("A", "n", "d")],
    parts=[
        Part(
            "main",
            lhs=lambda ctx, v: ctx.norm_inf(res(ctx, v, v.X, "tX") - res(ctx, v, v.X + v.A, "tB")),
            rhs=lambda ctx, v: ctx.norm_inf(res_midrange(ctx, v.A)),
            lhs_text="||R_X - R_B||_inf",
            rhs_text="||R_A||_inf",
        )
    ],
    readings=res_readings("tX", "tB"),
)
