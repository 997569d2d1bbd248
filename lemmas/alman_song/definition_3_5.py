"""Definition 3.5 (theta-balance), Section 3.3, as Lemmas B.3, B.4 and 5.1 use it.

As printed:
    Definition 3.5. Given a matrix E in R^{n x n}, we define a corresponding matrix D in
    R^{n x n} to be the diagonal matrix with D_ii := max_{j,l in [n]} |E_ij - E_il|.  We say E
    is theta-balanced, if ||D||_inf <= theta.

The definition itself is well posed (D is unique).  What can be checked is how it is used:
* ``row-range``: D_ii, computed literally over all pairs (j, l), is the range of row i,
  max_j E_ij - min_j E_ij -- the form ``common.balance`` evaluates and the form Lemma B.3's
  proof uses (every E_il - E_ij lies in [-D_ii, D_ii]).
* ``norm-bound``: E is (2 ||E||_inf)-balanced, the true relation between the entrywise norm and
  balance.
* ``as-used-in-B.4``: ||E||_inf <= theta implies E is theta-balanced, i.e.
  ||D||_inf <= ||E||_inf.  Lemma B.4's proof bounds ||E||_inf by 1 and concludes that E is
  1-balanced; this is the step it needs.

Hand derivation.  row-range: |E_ij - E_il| <= max - min with equality at the argmax and
argmin, so it is an identity (checked with '==').  norm-bound: |E_ij - E_il| <= |E_ij| +
|E_il| <= 2||E||_inf, tight at E = (1 -1).  as-used-in-B.4 is false: E = (1 -1) has
||E||_inf = 1 and ||D||_inf = 2 (n = 1 is impossible since then D = 0; n = 2 is smallest).
"""

from verifier import Claim, Dim, Matrix, Part, ProofDomain

from . import PAPER
from .common import balance


def pairwise_balance(ctx, E):
    """D_ii = max_{j,l} |E_ij - E_il| literally, over every pair (shape batch x n)."""
    gaps = ctx.abs(E[..., :, :, None] - E[..., :, None, :])
    return ctx.max(gaps, (-2, -1))


claim = Claim(
    id="3.5",
    kind="definition",
    paper=PAPER,
    location="Section 3.3",
    title="theta-balance, as used by Lemmas B.3 and B.4",
    statement="D_ii := max_{j,l} |E_ij - E_il|; E is theta-balanced if ||D||_inf <= theta.",
    latex=r"D_{i,i} := \max_{j,l\in[n]} |E_{i,j}-E_{i,l}|,\quad E\ \theta\text{-balanced} \iff \|D\|_\infty \le \theta",
    notes=(
        "Checks the uses of the definition: D_ii is the row range (Lemma B.3, common.balance); "
        "||D||_inf <= 2||E||_inf; and the step of Lemma B.4's proof that ||E||_inf <= theta makes E "
        "theta-balanced (||D||_inf <= ||E||_inf), which loses the factor 2."
    ),
    dims=[Dim("n", 1, 5)],
    prove_on=ProofDomain(dims={"n": 3}, box=None),  # piecewise linear: z3 decides it for every real E
    variables=[Matrix("E", "n", "n")],
    parts=[
        Part(
            "row-range",
            lhs=lambda ctx, v: pairwise_balance(ctx, v.E),
            rhs=lambda ctx, v: ctx.max(v.E, -1) - ctx.min(v.E, -1),
            relation="==",
            elementwise=True,
            statement="max_{j,l} |E_ij - E_il| = max_j E_ij - min_j E_ij for every row i",
            lhs_text="D_ii",
            rhs_text="row range of E",
        ),
        Part(
            "norm-bound",
            lhs=lambda ctx, v: balance(ctx, v.E),
            rhs=lambda ctx, v: 2 * ctx.norm_inf(v.E),
            statement="||D||_inf <= 2 ||E||_inf",
            lhs_text="||D||_inf",
            rhs_text="2 ||E||_inf",
        ),
        Part(
            "as-used-in-B.4",
            lhs=lambda ctx, v: balance(ctx, v.E),
            rhs=lambda ctx, v: ctx.norm_inf(v.E),
            statement="||E||_inf <= theta implies E is theta-balanced: ||D||_inf <= ||E||_inf",
            lhs_text="||D||_inf",
            rhs_text="||E||_inf",
        ),
    ],
)
