"""Orthogonal matrices: ``Q^T Q == I`` exactly (rotations and reflections).

Exact points: ``Q = S (I - A)(I + A)^-1`` with ``S`` the nearest signed permutation and ``A``
skew-symmetric and rational (the Cayley transform), which reaches every orthogonal matrix with
no eigenvalue -1 relative to ``S``; ``A`` is the chart.  In floats: the polar factor.
Samples: signed permutations, Hadamard-like (Sylvester blocks), Givens rotations, Householder
reflections in small integer directions, Haar, near a signed permutation.  Proofs, n <= 3:
rotations and reflections by a point of the circle (n = 2, 4 pieces), the rotation of a unit
quaternion and its negative (n = 3, 2 pieces), the points +-1 (n = 1).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from flint import fmpq, fmpq_mat

from ..claims import Hypothesis, Variable
from ..draws import log_scale, signed_permutations
from .base import Chart, ChartAtlas, ChartedMap, Kind, NoChart, equal_magnitudes, q, require_dim, require_identifier, sign_of_piece, stereographic_point

ORTHOGONAL_PATTERNS = {"signed-permutation": 1.5, "hadamard": 1.5, "givens": 1.0,
                       "haar": 2.5, "near-permutation": 1.5, "householder": 1.5}
#: orthogonal matrices are charted for branch and bound up to this size
MAX_ORTHOGONAL = 3


@dataclass(frozen=True)
class OrthogonalMatrix(Kind):
    """``Q^T Q == I`` exactly.

    Onto the set exactly: ``Q = S (I - A)(I + A)^-1`` with ``S`` the nearest signed
    permutation and ``A`` skew-symmetric and rational (the Cayley transform), which reaches
    every orthogonal matrix with no eigenvalue -1 relative to ``S``; ``A`` is the chart.
    In floats: the polar factor.
    """

    name = "orthogonal"

    def hypotheses(self, var):
        def gap(ctx, v, n=var.name):
            q = v[n]
            eye = _identity(np.shape(q)[-1], q)
            gap = ctx.T(q) @ q - eye
            # a sum of squares, not a max of |.|: polynomial, so z3 reasons about it without
            # case splits; still 0 exactly on the set and negative off it
            return -ctx.sum_all(gap * gap)

        return [Hypothesis(f"{var.name}\u1d40{var.name} = I exactly", gap)]

    def onto_set(self, x):
        x = np.where(np.isfinite(x), x, 0.0)
        return orthogonal_polar(x) if x.shape[-1] else x

    def onto_set_exact(self, point):
        n = point.shape[0]
        if n == 0 or self.contains(point):
            return point
        sign = nearest_signed_permutation(point)
        # a rational A with denominators bounded by float64's: the exact A of a float Q has
        # squared denominators, and the certificate's cost grows with them
        a = cayley_parameters(point, sign)
        a = np.vectorize(lambda v: q(float(v)), otypes=[object])(a)
        a = (a - a.T) / 2
        return cayley(a, sign)

    def contains(self, point):
        m = _mat(point)
        return m.transpose() * m == _eye(m.nrows())

    def entry_bounds(self):
        return Fraction(-1), Fraction(1)

    # -- samples ----------------------------------------------------------------------------
    def patterns(self, var):
        return ORTHOGONAL_PATTERNS

    def draw(self, pattern, rng, m, shape, var):
        return orthogonal_samples(pattern, rng, m, shape[-1])

    def on_boundary(self, var, flat):  # a zero entry: permutation, Givens or block structure
        return equal_magnitudes(flat) | np.any(flat == 0, axis=1)

    # -- rational points --------------------------------------------------------------------
    def chart(self, point):
        if not point.size:
            return None
        sign = nearest_signed_permutation(point)
        try:
            a = cayley_parameters(point, sign)
        except ValueError:
            return None
        return Chart(a, lambda a, sign=sign: cayley((a - a.T) / 2, sign))

    # -- proofs -----------------------------------------------------------------------------
    def atlas(self, var, shape) -> ChartAtlas:
        n = shape[0]
        if n == 1:
            return ChartAtlas(0, 2, lambda ctx, t, k: [[sign_of_piece(ctx, k)]])
        if n == 2:
            return ChartAtlas(1, 4, _orthogonal_2)
        if n == 3:
            return ChartAtlas(3, 2, _orthogonal_3)
        raise NoChart(f"branch and bound charts orthogonal matrices up to n = {MAX_ORTHOGONAL} "
                      f"(quaternions), not n = {n}: prove {var.name} with --method smt")

    def proof_map(self, var, shape, box, request):
        return ChartedMap(var, shape, box, self.atlas(var, shape)) if request.charts else None


def _identity(n, like):
    """The n x n identity in ints: every context lifts ints to its own numbers."""
    return np.eye(n) if np.asarray(like).dtype != object else np.eye(n, dtype=int).astype(object)


def _eye(n):
    return fmpq_mat(n, n, [fmpq(int(i == j)) for i in range(n) for j in range(n)])


def _mat(x):
    n = x.shape[0]
    return fmpq_mat(n, n, [q(v) for v in x.ravel()])


def _arr(m):
    n = m.nrows()
    return np.array([[m[i, j] for j in range(n)] for i in range(n)], dtype=object)


def nearest_signed_permutation(x) -> np.ndarray:
    """Greedy: the largest |entry| fixes a row and a column, and so on."""
    a = np.abs(np.asarray(x, dtype=float))
    n = a.shape[0]
    s = np.zeros((n, n), dtype=object)
    s[...] = fmpq(0)
    rows, cols = set(range(n)), set(range(n))
    for _ in range(n):
        i, j = max(((i, j) for i in rows for j in cols), key=lambda ij: a[ij])
        s[i, j] = fmpq(1) if float(x[i, j]) >= 0 else fmpq(-1)
        rows.discard(i)
        cols.discard(j)
    return s


def cayley(a, sign=None):
    """``S (I - A)(I + A)^-1``: orthogonal for every skew-symmetric rational ``A``."""
    m = _mat(a)
    eye = _eye(m.nrows())
    out = (eye - m) * (eye + m).inv()
    if sign is not None:
        out = _mat(sign) * out
    return _arr(out)


def cayley_parameters(x, sign):
    """The skew-symmetric ``A`` with ``S^T x = (I - A)(I + A)^-1`` (projected to skew)."""
    m = _mat(sign).transpose() * _mat(x)
    eye = _eye(m.nrows())
    try:
        a = _arr((eye - m) * (eye + m).inv())
    except ZeroDivisionError:
        raise ValueError("orthogonal projection: S^T Q has eigenvalue -1") from None
    return (a - a.T) / 2


def orthogonal_polar(x):
    """The orthogonal factor of a polar decomposition: the nearest orthogonal matrix."""
    u, _, vt = np.linalg.svd(np.asarray(x, dtype=float))
    return u @ vt


# ---------------------------------------------------------------------------------- samples
def hadamard(n):
    """A Hadamard-like orthogonal matrix: Sylvester blocks of the largest powers of 2 in n."""
    out = np.zeros((n, n))
    i = 0
    while i < n:
        size = 1 << ((n - i).bit_length() - 1)
        h = np.array([[1.0]])
        while h.shape[0] < size:
            h = np.block([[h, h], [h, -h]])
        out[i : i + size, i : i + size] = h / np.sqrt(size)
        i += size
    return out


def orthogonal_samples(name, rng, m, n):
    """m orthogonal n x n matrices drawn by one pattern."""
    if n == 0:
        return np.zeros((m, 0, 0))
    if name == "signed-permutation":
        return signed_permutations(rng, m, n)
    if name == "hadamard":
        return signed_permutations(rng, m, n) @ hadamard(n) @ signed_permutations(rng, m, n)
    if name == "givens":
        theta = np.where(rng.random(m) < 0.5, rng.choice([np.pi / 4, np.pi / 6, np.pi / 3, np.arctan2(3, 4)], m), rng.uniform(0, 2 * np.pi, m))
        g = np.repeat(np.eye(n)[None], m, axis=0)
        if n >= 2:
            i = rng.integers(0, n, m)
            j = (i + rng.integers(1, n, m)) % n
            idx = np.arange(m)
            c, s = np.cos(theta), np.sin(theta)
            g[idx, i, i], g[idx, j, j], g[idx, i, j], g[idx, j, i] = c, c, -s, s
        return signed_permutations(rng, m, n) @ g
    if name == "haar":
        return orthogonal_polar(rng.standard_normal((m, n, n)))
    if name == "near-permutation":
        a = rng.standard_normal((m, n, n)) * log_scale(rng, m, -3, -0.5)[:, None, None]
        return signed_permutations(rng, m, n) @ orthogonal_polar(np.eye(n) + a - np.swapaxes(a, 1, 2))
    if name == "householder":
        # reflections I - 2 s s^T / |s|^2 in small integer directions s (rational: the
        # reflections I - (2/3) s s^T of a sign vector, say), half of them times a signed permutation
        s = rng.integers(-2, 3, (m, n)).astype(float)
        s[~np.any(s != 0, axis=1), 0] = 1.0
        h = np.eye(n) - 2 * s[:, :, None] * s[:, None, :] / np.sum(s * s, axis=1)[:, None, None]
        turn = rng.random(m) < 0.5
        h[turn] = signed_permutations(rng, int(np.count_nonzero(turn)), n) @ h[turn]
        return h
    raise AssertionError(name)


# ----------------------------------------------------------------------------------- proofs
def _orthogonal_2(ctx, t, k):
    c, s = stereographic_point(ctx, t, k % 2)[::-1]
    if k < 2:
        return [[c, -s], [s, c]]
    return [[c, s], [s, -c]]


def _orthogonal_3(ctx, t, k):
    """The rotation of the unit quaternion (q_0 >= 0 chart), negated for piece 1."""
    q1, q2, q3, q0 = stereographic_point(ctx, t, 0)
    rows = [
        [1 - 2 * (q2 * q2 + q3 * q3), 2 * (q1 * q2 - q0 * q3), 2 * (q1 * q3 + q0 * q2)],
        [2 * (q1 * q2 + q0 * q3), 1 - 2 * (q1 * q1 + q3 * q3), 2 * (q2 * q3 - q0 * q1)],
        [2 * (q1 * q3 - q0 * q2), 2 * (q2 * q3 + q0 * q1), 1 - 2 * (q1 * q1 + q2 * q2)],
    ]
    if k == 0:
        return rows
    return [[-x for x in row] for row in rows]



def Orthogonal(name: str, size: str, description: str = "") -> Variable:
    """A square matrix with ``Q^T Q == I`` exactly (rotations and reflections)."""
    require_identifier(name)
    require_dim(f"Orthogonal {name}", "size", size)
    return Variable(name, (size, size), domain=OrthogonalMatrix(), description=description)


__all__ = ["Orthogonal", "OrthogonalMatrix", "ORTHOGONAL_PATTERNS", "MAX_ORTHOGONAL", "nearest_signed_permutation", "cayley", "cayley_parameters",
           "orthogonal_polar", "hadamard", "orthogonal_samples"]
