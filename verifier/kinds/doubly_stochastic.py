"""Doubly stochastic matrices: entries >= 0, every row and every column summing to exactly 1.

Exact points are the convex combinations of permutation matrices with rational weights
(Birkhoff-von Neumann: every doubly stochastic matrix is one).  The chart is a Birkhoff
decomposition -- permutations found one at a time as matchings on the support (the float
values only choose them), each weighted by the least entry it covers, exactly -- and back,
the weights' combination divided by their sum.  In floats: Sinkhorn's scaling.  Samples:
permutations, block-diagonal matrices with uniform blocks (rows and columns permuted),
mixtures of two or of several permutations, the uniform matrix, Sinkhorn's scaling of
positive matrices.  Proofs: every entry in [0, 1] with the sums as hypotheses.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from flint import fmpq

from ..claims import Hypothesis, Variable
from ..draws import log_scale, permutations, pick
from .base import Chart, Kind, exact_point, require_dim, require_identifier
from .simplex import row_sum_gap

#: doubly stochastic matrices: permutations, block-diagonal ones (uniform blocks, rows and
#: columns permuted), mixtures of two or of several permutations (Birkhoff), the uniform
#: matrix; inside: Sinkhorn's scaling of positive matrices
DOUBLY_STOCHASTIC_PATTERNS = {"permutation": 1.5, "block-diagonal": 1.5, "two-permutations": 1.0,
                              "birkhoff": 1.5, "uniform": 0.3, "sinkhorn": 2.0}
#: Sinkhorn's alternate row and column scalings applied to a float batch
SINKHORN_STEPS = 40


@dataclass(frozen=True)
class DoublyStochasticMatrix(Kind):
    """Entries >= 0 with every row and every column summing to exactly 1."""

    name = "doubly-stochastic"

    def hypotheses(self, var):
        return [
            Hypothesis(f"{var.name} \u2265 0 entrywise", lambda ctx, v, n=var.name: ctx.min_all(v[n])),
            Hypothesis(f"each row of {var.name} sums to exactly 1", lambda ctx, v, n=var.name: row_sum_gap(ctx, v[n], 1)),
            Hypothesis(f"each column of {var.name} sums to exactly 1", lambda ctx, v, n=var.name: row_sum_gap(ctx, ctx.T(v[n]), 1)),
        ]

    def onto_set(self, x):
        return sinkhorn(x)

    def onto_set_exact(self, point):
        if point.shape[0] == 0 or self.contains(point):
            return point
        chart = self.chart(point)
        return chart.point(chart.params)

    def contains(self, point):
        return (all(v >= 0 for v in point.ravel()) and all(sum(row, fmpq(0)) == 1 for row in point)
                and all(sum(col, fmpq(0)) == 1 for col in point.T))

    def entry_bounds(self):
        return Fraction(0), Fraction(1)

    # -- samples ----------------------------------------------------------------------------
    def patterns(self, var):
        return DOUBLY_STOCHASTIC_PATTERNS

    def draw(self, pattern, rng, m, shape, var):
        return doubly_stochastic_samples(pattern, rng, m, shape[-1])

    def on_boundary(self, var, flat):
        return np.any(flat == 0, axis=1)

    # -- rational points --------------------------------------------------------------------
    def chart(self, point):
        if point.shape[0] == 0:
            return None
        perms, weights = birkhoff_decomposition(point)
        return Chart(np.array(weights, dtype=object), lambda w, perms=perms: permutation_mixture(perms, w))


def sinkhorn(x):
    """Float matrices (batch first) moved onto the doubly stochastic set, to rounding.

    Negative entries cut to 0 and a zero row made uniform; then Sinkhorn's scaling (rows and
    columns divided by their sums in turn), which keeps zeros zero but converges slowly near
    a reducible pattern; then the affine correction to exact row and column sums; then a
    mix with the uniform matrix just large enough to undo any entry the correction made
    negative (the mix keeps the sums).  Finite, batched, the identity on the set.
    """
    x = np.where(np.isfinite(x) & (x > 0), x, 0.0)
    n = x.shape[-1]
    if n == 0:
        return x
    x = np.where(x.sum(axis=-1, keepdims=True) > 0, x, 1.0 / n)
    for _ in range(SINKHORN_STEPS):
        cols = x.sum(axis=-2, keepdims=True)
        x = x / np.where(cols > 0, cols, 1.0)
        rows = x.sum(axis=-1, keepdims=True)
        x = x / np.where(rows > 0, rows, 1.0)
    rows, cols = x.sum(axis=-1, keepdims=True) - 1, x.sum(axis=-2, keepdims=True) - 1
    x = x - rows / n - cols / n + rows.sum(axis=-2, keepdims=True) / n**2
    low = np.minimum(x.min(axis=(-2, -1), keepdims=True), 0.0)
    mix = -low / (1.0 / n - low)
    return np.where(mix > 0, (1 - mix) * x + mix / n, x)


def birkhoff_decomposition(point):
    """Permutations (as column indices per row) and exact weights with sum w_k P_k <= point,
    equal when the point is doubly stochastic: each step matches every row to a column on
    the support of what is left (largest product of entries), takes the least matched entry
    as its weight, and subtracts."""
    n = point.shape[0]
    rest = np.array([[v if v > 0 else fmpq(0) for v in row] for row in exact_point(point)], dtype=object)
    perms, weights = [], []
    for _ in range(n * n):
        values = np.array([[float(v) for v in row] for row in rest])
        cost = np.where(values > 0, -np.log(np.where(values > 0, values, 1.0)), 1e6)
        from scipy.optimize import linear_sum_assignment  # loaded when first drawn: scipy's optimiser costs 0.3 s at start

        _, cols = linear_sum_assignment(cost)
        weight = min(rest[i, cols[i]] for i in range(n))
        if weight <= 0:
            break
        perms.append(tuple(int(c) for c in cols))
        weights.append(weight)
        for i in range(n):
            rest[i, cols[i]] -= weight
    if not perms:
        return [tuple(range(n))], [fmpq(1)]
    return perms, weights


def permutation_mixture(perms, weights):
    """sum w_k P_k / sum w_k (negative weights cut to 0): doubly stochastic for any rational weights."""
    weights = [w if w > 0 else fmpq(0) for w in weights]
    total = sum(weights, fmpq(0))
    if total == 0:
        weights, total = [fmpq(1)] + [fmpq(0)] * (len(perms) - 1), fmpq(1)
    n = len(perms[0])
    out = np.empty((n, n), dtype=object)
    out[...] = fmpq(0)
    for perm, w in zip(perms, weights):
        for i, j in enumerate(perm):
            out[i, j] += w / total
    return out


def doubly_stochastic_samples(name, rng, m, n):
    """m doubly stochastic n x n matrices drawn by one pattern."""
    if n == 0:
        return np.zeros((m, 0, 0))
    if name == "permutation":
        return permutations(rng, m, n)
    if name == "uniform":
        return np.full((m, n, n), 1.0 / n)
    if name == "block-diagonal":
        # consecutive indices share a block where no cut falls between them; each block
        # uniform, then rows and columns permuted
        label = np.cumsum(np.concatenate([np.zeros((m, 1), bool), rng.random((m, n - 1)) < 0.5], axis=1), axis=1)
        same = label[:, :, None] == label[:, None, :]
        blocks = same / same.sum(axis=2, keepdims=True)
        return permutations(rng, m, n) @ blocks @ permutations(rng, m, n)
    if name == "two-permutations":
        t = np.where(rng.random(m) < 0.5, pick(rng, [1 / 2, 1 / 3, 2 / 3, 1 / 4, 3 / 4], m), rng.random(m))[:, None, None]
        return t * permutations(rng, m, n) + (1 - t) * permutations(rng, m, n)
    if name == "birkhoff":
        k = int(rng.integers(2, n + 2))
        w = np.where(rng.random((m, 1)) < 0.5, rng.integers(1, 4, (m, k)), rng.exponential(1.0, (m, k)))
        w = w / w.sum(axis=1, keepdims=True)
        return sum(w[:, i, None, None] * permutations(rng, m, n) for i in range(k))
    if name == "sinkhorn":
        # scales up to 10^0.5: Sinkhorn converges slowly on matrices far from positive
        z = rng.standard_normal((m, n, n)) * log_scale(rng, m, -1, 0.5)[:, None, None]
        return sinkhorn(np.exp(z - z.max(axis=(1, 2), keepdims=True)))
    raise AssertionError(name)



def DoublyStochastic(name: str, size: str, description: str = "") -> Variable:
    """A square matrix with entries >= 0 and every row and every column summing to exactly 1."""
    require_identifier(name)
    require_dim(f"DoublyStochastic {name}", "size", size)
    return Variable(name, (size, size), domain=DoublyStochasticMatrix(), description=description)


__all__ = ["DoublyStochastic", "DoublyStochasticMatrix", "DOUBLY_STOCHASTIC_PATTERNS", "SINKHORN_STEPS", "sinkhorn", "birkhoff_decomposition",
           "permutation_mixture", "doubly_stochastic_samples"]
