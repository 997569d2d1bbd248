"""Definition 3.4 (Res), Section 3.2: is the argmin well defined?

As printed:
    Definition 3.4 (Res). Let Z in R^{n x d} denote any matrix, we define function the
    Res : R^{n x d} -> R^{n x d} as Res(Z) := Z - 1_n y^T where
    y := argmin_{y in R^d} ||Z - 1_n y^T||_inf.

Reading.  ||.||_inf is the entrywise max norm (Section 3.1), so
||Z - 1_n y^T||_inf = max_j max_i |Z_ij - y_j|.  "Res is a function" needs the argmin to be
a single point.  The claim checked is that uniqueness: the lowest and the highest
minimiser coincide, y_lo = y_hi (entrywise, compared at the column where they differ
most).  A certified violation is a witness that the definition is ill-posed: one Z and
two different minimisers, y_lo and y_hi, both attaining the minimum.

Hand derivation.  Column j alone needs |Z_ij - y_j| <= m for all i, i.e.
max_i Z_ij - m <= y_j <= min_i Z_ij + m, and the smallest feasible m is
m* = max_j range_j / 2 (range_j = max_i Z_ij - min_i Z_ij).  So y is a minimiser iff
y_lo_j := max_i Z_ij - m* <= y_j <= min_i Z_ij + m* =: y_hi_j for every j, an interval of
width 2 m* - range_j = max_k range_k - range_j.  The argmin is unique iff every column
has the same range: always for d = 1 (the 'd=1' reading survives) and for n = 1 (all
ranges 0); for n, d >= 2 any Z whose columns have different ranges is a witness, the
smallest being Z = [[1, 0], [0, 0]]: m* = 1/2, and y = (1/2, -1/2) and y = (1/2, 1/2)
both give ||Z - 1 y^T||_inf = 1/2.  Expected verdict: ill-posed (d >= 2).

Reading a reported witness.  lhs and rhs are y_lo_j and y_hi_j at the column j where they
differ most; the report also shows the two full minimisers y_lo, y_hi and the optimal
value m* = ||Z - 1 y^T||_inf they share (the part's ``show``), so Z and two different
minimisers are on the page.
"""

from verifier import Claim, Dim, Matrix, ProofDomain, Reading
from verifier.library import max_norm, res_minimiser_bounds, unique_argmin

from . import PAPER


def _minimisers(ctx, v):
    """The lowest and the highest minimiser, each a vector of length d."""
    lo, hi = res_minimiser_bounds(ctx, v.Z)
    return lo[:, 0, :], hi[:, 0, :]


claim = Claim(
    id="3.4",
    kind="definition",
    paper=PAPER,
    location="Section 3.2",
    title="Res is well defined (the argmin is unique)",
    statement="y := argmin_y ||Z - 1_n y^T||_inf is a single point, so Res(Z) := Z - 1_n y^T is a function.",
    latex=r"\arg\min_{y\in\mathbb{R}^d}\|Z-\mathbf{1}_n y^\top\|_\infty \text{ is a singleton}",
    notes=(
        "||.||_inf is the entrywise max norm. The minimisers are exactly the y with "
        "max_i Z_ij - m* <= y_j <= min_i Z_ij + m*, m* = max_j range_j / 2; lhs and rhs are "
        "the lowest and highest minimiser at the column where they differ most. A violation "
        "is a Z with two different minimisers: the definition is ill-posed."
    ),
    dims=[Dim("n", 1, 4), Dim("d", 1, 4)],
    variables=[Matrix("Z", "n", "d")],
    parts=[
        unique_argmin(
            "unique",
            _minimisers,
            lambda ctx, v, y: max_norm(ctx, v.Z - y[:, None, :]),
            statement="the lowest minimiser y_lo equals the highest y_hi",
            objective_text="||Z - 1 {y}^T||_inf",
            lhs_text="y_lo_j = max_i Z_ij - m*",
            rhs_text="y_hi_j = min_i Z_ij + m*",
        )
    ],
    readings=[
        Reading("as-printed", "Any n x d matrix Z."),
        Reading("d=1", "One column (d = 1): the midrange is the unique minimiser.", dims=(Dim("d", 1, 1),),
                prove_on=ProofDomain(dims={"n": 4}, box=None)),
    ],
    refuted_verdict="ill-posed",
)
