"""The simplex (entries >= 0 summing to exactly a total) and row-stochastic matrices (each row on it).

Onto the set: negative entries cut to 0, then the row scaled to its total; the entries are
the free coordinates (rounding them and rescaling keeps them simple).  Samples: vertices,
edges, faces and face centroids, softmax of scaled Gaussians, sparse Dirichlet, normalised
small integers; a stochastic matrix draws its rows so, or one-hot rows, one row repeated, all
rows at one token.  Proofs: stick breaking over ``[0, 1]^(n-1)`` for branch and bound (a
vertex or face of the simplex is a face of the box), the first n - 1 entries free for SMT.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from flint import fmpq

from ..claims import Hypothesis, Variable
from ..draws import grouped, log_scale, scaled, support
from .base import (SHARE, Bounds, Constraint, Coordinate, Kind, ProofMap, bound_texts, box_constraints, hypothesis_texts, positive_rational, q,
                   require_dim, require_identifier)

SIMPLEX_PATTERNS = {
    "vertex": 1.5,
    "edge": 1.0,
    "face": 1.0,
    "face-centroid": 1.0,
    "softmax": 2.0,
    "dirichlet-sparse": 1.0,
    "simple": 0.7,
}
STOCHASTIC_PATTERNS = {  # whole matrices
    "rows": 3.0,  # each row drawn from SIMPLEX_PATTERNS
    "repeated-row": 1.0,
    "one-hot-rows": 1.0,
    "same-vertex": 0.5,
    "softmax-rows": 1.5,  # every row inside: attention of finite scores
}


@dataclass(frozen=True)
class SimplexRows(Kind):
    """Entries >= 0 along the last axis, summing to exactly ``total``."""

    name = "simplex"
    total: Fraction = Fraction(1)

    def hypotheses(self, var):
        what = "each row of " + var.name if len(var.shape) == 2 else var.name
        return [
            Hypothesis(f"{var.name} \u2265 0 entrywise", lambda ctx, v, n=var.name: ctx.min_all(v[n])),
            Hypothesis(f"{what} sums to exactly {self.total}", lambda ctx, v, n=var.name, t=self.total: row_sum_gap(ctx, v[n], t)),
        ]

    def describe(self):
        return [f"total={self.total}"] if self.total != 1 else []

    def onto_set(self, x):
        x = np.where(np.isfinite(x) & (x > 0), x, 0.0)
        total = x.sum(axis=-1, keepdims=True)
        k = x.shape[-1]
        out = np.where(total > 0, x / np.where(total > 0, total, 1.0), 1.0 / max(k, 1))
        return out if self.total == 1 else out * float(self.total)

    def onto_set_exact(self, point):
        rows = point.reshape(-1, point.shape[-1]) if point.ndim else point.reshape(1, 1)
        out = np.empty_like(rows)
        want = q(self.total)
        for i, row in enumerate(rows):
            row = [r if r > 0 else fmpq(0) for r in row]
            total = sum(row, fmpq(0))
            out[i] = [want / len(row)] * len(row) if total == 0 else [r * want / total for r in row]
        return out.reshape(point.shape)

    def contains(self, point):
        rows = point.reshape(-1, point.shape[-1])
        return all(all(v >= 0 for v in row) and sum(row, fmpq(0)) == q(self.total) for row in rows)

    def entry_bounds(self):
        return Fraction(0), self.total

    # -- samples --------------------------------------------------------------------------
    def patterns(self, var):
        return SIMPLEX_PATTERNS

    def draw(self, pattern, rng, m, shape, var):
        return scaled(simplex_rows(pattern, rng, m, shape[-1]), self.total)

    def on_boundary(self, var, flat):
        return np.any(flat == 0, axis=1) if flat.shape[1] > 1 or len(var.shape) == 2 else np.zeros(len(flat), bool)

    # -- proofs ---------------------------------------------------------------------------
    def proof_map(self, var, shape, box, request):
        return FreeSimplex(var, shape, box) if request.smt else StickBreaking(var, shape, box)


@dataclass(frozen=True)
class StochasticRows(SimplexRows):
    """A row-stochastic matrix: each row on the simplex (an attention matrix)."""

    name = "stochastic"

    def patterns(self, var):
        return STOCHASTIC_PATTERNS

    def draw(self, pattern, rng, m, shape, var):
        return stochastic(pattern, rng, m, shape)


def row_sum_gap(ctx, x, total):
    """``-max |sum of a row - total|``: 0 exactly on the set, negative off it."""
    rows = ctx.sum(x, axis=np.ndim(x) - 1)
    return -ctx.max_all(ctx.abs(rows - ctx.const(total)))


# ------------------------------------------------------------------------------- samples
def simplex_rows(name, rng, m, k):
    """m points of the simplex in R^k drawn by one pattern."""
    if k == 0:
        return np.zeros((m, 0))
    if name == "vertex":
        out = np.zeros((m, k))
        out[np.arange(m), rng.integers(0, k, m)] = 1.0
        return out
    if name == "edge":
        t = np.where(rng.random(m) < 0.5, rng.choice([1 / 2, 1 / 3, 2 / 3, 1 / 4, 3 / 4], m), rng.random(m))
        out = np.zeros((m, k))
        i = rng.integers(0, k, m)
        j = (i + rng.integers(1, max(k, 2), m)) % k
        out[np.arange(m), i] += t
        out[np.arange(m), j] += 1 - t
        return out
    if name in ("face", "face-centroid"):
        hi = k if name == "face-centroid" else max(k - 1, 1)
        mask = support(rng, m, k, rng.integers(1, hi + 1, m))
        w = rng.exponential(1.0, (m, k)) if name == "face" else np.ones((m, k))
        w = w * mask
        return w / w.sum(axis=1, keepdims=True)
    if name == "softmax":
        z = rng.standard_normal((m, k)) * log_scale(rng, m, -1, 1.5)[:, None]
        z = np.exp(z - z.max(axis=1, keepdims=True))
        return z / z.sum(axis=1, keepdims=True)
    if name == "dirichlet-sparse":
        w = rng.gamma(0.2, 1.0, (m, k)) + 1e-300
        return w / w.sum(axis=1, keepdims=True)
    if name == "simple":
        w = rng.integers(0, 4, (m, k)).astype(float)
        w[w.sum(axis=1) == 0] = 1.0
        return w / w.sum(axis=1, keepdims=True)
    raise AssertionError(name)


def stochastic(name, rng, m, shape):
    """m row-stochastic matrices of ``shape`` drawn by one pattern."""
    r, k = shape
    if name == "rows":
        return grouped(rng, m * r, (k,), SIMPLEX_PATTERNS, lambda n, g, c, s: simplex_rows(n, g, c, k)).reshape(m, r, k)
    if name == "repeated-row":
        row = grouped(rng, m, (k,), SIMPLEX_PATTERNS, lambda n, g, c, s: simplex_rows(n, g, c, k))
        return np.repeat(row[:, None, :], r, axis=1)
    if name == "one-hot-rows":
        return simplex_rows("vertex", rng, m * r, k).reshape(m, r, k)
    if name == "same-vertex":
        return np.repeat(simplex_rows("vertex", rng, m, k)[:, None, :], r, axis=1)
    if name == "softmax-rows":
        return simplex_rows("softmax", rng, m * r, k).reshape(m, r, k)
    raise AssertionError(name)


# -------------------------------------------------------------------------------- proofs
class _SimplexRowsMap(ProofMap):
    """Each row of a simplex or stochastic matrix from n - 1 coordinates of its own."""

    role, span = "entry", None

    def coordinates(self):
        *rows, k = self.shape
        return [(Coordinate(self.var.name, row + (j,), False, self.role), self.span) for row in np.ndindex(*rows) for j in range(k - 1)]

    def value(self, ctx, params, piece, data):
        *rows, k = self.shape
        arr = np.empty((1,) + self.shape, dtype=object)
        for r, row in enumerate(np.ndindex(*rows)):
            for j, x in enumerate(self.row(ctx, params[r * (k - 1):(r + 1) * (k - 1)])):
                arr[(0,) + row + (j,)] = x
        return arr

    def row(self, ctx, params) -> list:
        raise NotImplementedError


class StickBreaking(_SimplexRowsMap):
    """Each row on the simplex from ``s`` in [0, 1]^(n-1): ``p_k = s_k prod_{j<k} (1 - s_j)``.

    Onto the simplex, every image on it (entries >= 0, the sum exactly 1 by telescoping),
    and a vertex or face of the simplex is a face of the box -- where the equality faces of a
    claim tight on the simplex's boundary are found and closed.
    """

    role, span = "chart", SHARE

    def __init__(self, var, shape, box: Bounds | None):
        super().__init__(var, shape)
        self.built_in = hypothesis_texts(var.domain.hypotheses(var)) | bound_texts(var)
        self.constraints = box_constraints(var, box, var.domain.entry_bounds())

    def row(self, ctx, params):
        return stick_breaking(ctx, params, self.var.domain.total)


def stick_breaking(ctx, params, total=Fraction(1)) -> list:
    """The point of the simplex (scaled to ``total``) whose stick-breaking shares are ``params``."""
    out, rest = [], 1
    for j, s in enumerate(params):
        out.append(rest * s if j else s)
        rest = rest * (1 - s)
    return _scaled_row(ctx, out + [rest], total)


class FreeSimplex(_SimplexRowsMap):
    """SMT: the first n - 1 entries of a row are free, the last is 1 minus them; entries >= 0 one by one."""

    def __init__(self, var, shape, box: Bounds | None):
        super().__init__(var, shape)
        self.built_in = hypothesis_texts(var.domain.hypotheses(var))
        self.span = box
        self.constraints = (Constraint(f"{var.name} \u2265 0 entrywise", lambda ctx, v, n=var.name: v[n]),) + box_constraints(var, box, var.domain.entry_bounds())

    def row(self, ctx, params):
        total = self.var.domain.total
        rest = int(total) if total.denominator == 1 else ctx.scalar(total)
        for x in params:
            rest = rest - x
        return list(params) + [rest]


def _scaled_row(ctx, row: list, total: Fraction) -> list:
    """A row of shares summing to 1, scaled to sum to ``total`` (a simplex of another total)."""
    if total == 1:
        return row
    factor = int(total) if total.denominator == 1 else ctx.scalar(total)
    return [x * factor for x in row]



# ----------------------------------------------------------------------------- factories
def Simplex(name: str, size: str, total: Any = 1, description: str = "") -> Variable:
    """Entries >= 0 summing to exactly ``total`` (a probability vector when total = 1: a softmax output).

    ``total`` is a positive exact rational: an int, ``"3/2"``, a Fraction, or a float by its
    shortest repr (``0.1`` is 1/10), as variable bounds are.
    """
    require_identifier(name)
    require_dim(f"Simplex {name}", "size", size)
    total = positive_rational(f"Simplex {name}", "total", total)
    return Variable(name, (size,), domain=SimplexRows(total), description=description)


def Stochastic(name: str, rows: str, cols: str, description: str = "") -> Variable:
    """A row-stochastic matrix: each row on the simplex (an attention matrix)."""
    require_identifier(name)
    require_dim(f"Stochastic {name}", "rows", rows)
    require_dim(f"Stochastic {name}", "cols", cols)
    return Variable(name, (rows, cols), domain=StochasticRows(), description=description)


__all__ = ["Simplex", "Stochastic", "SimplexRows", "StochasticRows", "SIMPLEX_PATTERNS", "STOCHASTIC_PATTERNS", "simplex_rows", "stochastic", "row_sum_gap",
           "StickBreaking", "FreeSimplex", "stick_breaking"]
