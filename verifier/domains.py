"""Constrained variable kinds: simplexes, stochastic matrices, unit vectors, ordered vectors,
orthogonal matrices and variables derived from the others.

A kind is a :class:`~verifier.claims.Variable` whose ``domain`` names a set that is not a box.
The domain is data plus the set's maps, and nothing else:

* membership, stated as exact hypotheses (``sum p == 1`` exactly, ``Q^T Q == I`` exactly), so
  every certificate checks that its point lies on the set;
* *onto the set*: a float batch moved onto it (:meth:`Domain.onto_set`, for the local
  search), and one exact point moved onto it in rationals (:meth:`Domain.onto_set_exact`, so
  a float candidate becomes a point a certificate can hold);
* *to free coordinates and back* (:meth:`Domain.chart`): the coordinates in which the set's
  rational points are simple -- stereographic coordinates of a sphere, Cayley parameters of
  an orthogonal matrix -- and the rational map from them back onto the set;
* where the set's boundary is (:meth:`Domain.on_boundary`, for measuring the sampler).

The kinds know nothing of the search.  The sampler (:mod:`verifier.sampling`) reads them to
draw samples heavy on each set's boundary; the rational-point search
(:mod:`verifier.rational_points`) reads their charts to round a near-tie to simple rationals
on the set.  Stan's constrained types (simplex, unit_vector, ordered, ...) are the model;
unlike a sampler's transform, the verifier also needs the set's boundary and exact points.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

import numpy as np
from flint import fmpq, fmpq_mat
from scipy.optimize import linear_sum_assignment
from sympy import factorint
from sympy.solvers.diophantine.diophantine import sum_of_four_squares, sum_of_squares, sum_of_three_squares

from .claims import ClaimDefinitionError, Hypothesis, Variable
from .contexts import ExactContext, FloatContext, NotRational, exact_decimal, to_fraction

NORMS = {2: "2", "2": "2", 1: "1", "1": "1", "inf": "inf", float("inf"): "inf"}
FLOAT = FloatContext()


def q(x) -> fmpq:
    """The exact value of a number as an fmpq."""
    f = to_fraction(x)
    return fmpq(f.numerator, f.denominator)


def exact_point(x) -> np.ndarray:
    """An array of numbers as an object array of fmpq."""
    return np.vectorize(q, otypes=[object])(np.asarray(x, dtype=object))


@dataclass(frozen=True)
class Chart:
    """Free coordinates of a point of a set, and the rational map from them back onto the set.

    ``params`` are rationals in which the set's rational points are simple (stereographic
    coordinates, Cayley parameters); ``point(params)`` is a point exactly on the set for every
    rational ``params``, and ``point(chart.params)`` is the point the chart was taken at.
    """

    params: np.ndarray
    point: Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Domain:
    """The set a constrained variable lies on; ``kind`` names it in messages.

    Points of the maps are one variable's value without a batch axis (``onto_set``: with
    one, batch first), exact maps take and give object arrays of fmpq.
    """

    kind: str

    def hypotheses(self, var: Variable) -> list[Hypothesis]:
        return []

    def describe(self) -> list[str]:
        """The kind's parameters as they read in its text (``norm=inf``)."""
        return []

    def onto_set(self, x: np.ndarray) -> np.ndarray:
        """A float batch moved onto the set (a local search's steps leave it)."""
        return x

    def onto_set_exact(self, point: np.ndarray) -> np.ndarray:
        """One exact point moved onto the set in rationals; a point on the set is left unchanged."""
        return point

    def contains(self, point: np.ndarray) -> bool:
        """Is the exact point on the set?"""
        return True

    def chart(self, point: np.ndarray) -> Chart | None:
        """Free coordinates at an exact point; None where the entries themselves are the coordinates."""
        return None

    def on_boundary(self, var: Variable, flat: np.ndarray) -> np.ndarray:
        """Per float sample (rows of ``flat``): on the set's boundary or a special direction?"""
        return np.zeros(len(flat), bool)

    def entry_bounds(self) -> tuple[Fraction, Fraction] | None:
        """A box holding every entry of every point of the set (None: the set is unbounded)."""
        return None

    def validate(self, var: Variable, dims) -> None:
        """Raise ClaimDefinitionError where the set has no exact point at a size in ``dims``
        (name -> Dim): nothing on it could be certified."""


def _identity(n, like):
    """The n x n identity in ints: every context lifts ints to its own numbers."""
    return np.eye(n) if np.asarray(like).dtype != object else np.eye(n, dtype=int).astype(object)


def _equal_magnitudes(flat):
    """Every nonzero entry of equal magnitude (axis and diagonal directions, Hadamard-like)."""
    a = np.abs(flat)
    top = a.max(axis=1, keepdims=True)
    return np.all((a == 0) | np.isclose(a, top, rtol=1e-12, atol=0), axis=1)


# ------------------------------------------------------------------------------ simplex
@dataclass(frozen=True)
class SimplexRows(Domain):
    """Entries >= 0 along the last axis, summing to exactly ``total`` (every row of a matrix).

    Onto the set: negative entries cut to 0, then the row scaled to sum ``total``.  The
    entries are the free coordinates (rounding them and rescaling keeps them simple).
    """

    total: Fraction = Fraction(1)

    def hypotheses(self, var):
        what = "each row of " + var.name if len(var.shape) == 2 else var.name
        return [
            Hypothesis(f"{var.name} \u2265 0 entrywise", lambda ctx, v, n=var.name: ctx.min_all(v[n])),
            Hypothesis(f"{what} sums to exactly {self.total}", lambda ctx, v, n=var.name, t=self.total: _row_sum_gap(ctx, v[n], t)),
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

    def on_boundary(self, var, flat):
        return np.any(flat == 0, axis=1) if flat.shape[1] > 1 or len(var.shape) == 2 else np.zeros(len(flat), bool)

    def entry_bounds(self):
        return Fraction(0), self.total


def _row_sum_gap(ctx, x, total):
    """``-max |sum of a row - total|``: 0 exactly on the set, negative off it."""
    rows = ctx.sum(x, axis=np.ndim(x) - 1)
    return -ctx.max_all(ctx.abs(rows - ctx.const(total)))


# ------------------------------------------------------------------------------ spheres
@dataclass(frozen=True)
class UnitSphere(Domain):
    """``||u|| == 1`` exactly, for the Euclidean, max or l1 norm.

    Onto the Euclidean sphere exactly: inverse stereographic projection of the point's
    stereographic coordinates seen from the pole opposite its largest entry,
    ``y = (2t, 1 - |t|^2) / (1 + |t|^2)``, rational whenever ``t`` is (those ``t`` are its
    free coordinates).  The max and l1 spheres: divide by the norm.
    """

    norm: str = "2"

    def hypotheses(self, var):
        symbol = {"2": "\u2016{}\u2016\u2082", "inf": "\u2016{}\u2016\u221e", "1": "\u2016{}\u2016\u2081"}[self.norm].format(var.name)
        if self.norm == "2":
            gap = lambda ctx, v, n=var.name: -ctx.abs(ctx.sum_all(v[n] * v[n]) - ctx.const(1))  # noqa: E731
            symbol += "\u00b2"
        elif self.norm == "inf":
            gap = lambda ctx, v, n=var.name: -ctx.abs(ctx.norm_inf(v[n]) - ctx.const(1))  # noqa: E731
        else:
            gap = lambda ctx, v, n=var.name: -ctx.abs(ctx.norm_1(v[n]) - ctx.const(1))  # noqa: E731
        return [Hypothesis(f"{symbol} = 1 exactly", gap)]

    def describe(self):
        return [f"norm={self.norm}"]

    def onto_set(self, x):
        return sphere_normalise(np.where(np.isfinite(x), x, 0.0), self.norm)

    def onto_set_exact(self, point):
        x, n = point, len(point)
        if n == 0:
            raise ValueError("a unit vector needs at least one entry")
        if all(v == 0 for v in x):
            return np.array([fmpq(1)] + [fmpq(0)] * (n - 1), dtype=object)
        if self.norm == "inf":
            return x / max(abs(v) for v in x)
        if self.norm == "1":
            return x / sum((abs(v) for v in x), fmpq(0))
        if self.contains(x):
            return x
        j, s = _pole(x)
        return inverse_stereographic(stereographic(x, j, s), j, s)

    def contains(self, point):
        if self.norm == "2":
            return sum((v * v for v in point), fmpq(0)) == 1
        if self.norm == "inf":
            return max((abs(v) for v in point), default=0) == 1
        return sum((abs(v) for v in point), fmpq(0)) == 1

    def chart(self, point):
        if self.norm != "2" or not len(point):
            return None
        j, s = _pole(point)
        return Chart(np.array(stereographic(exact_point(point), j, s), dtype=object),
                     lambda t, j=j, s=s: inverse_stereographic(list(t), j, s))

    def on_boundary(self, var, flat):
        if self.norm == "2":
            return _equal_magnitudes(flat)
        # every point of these spheres lies on a facet of the cube or cross-polytope: the
        # boundary is the lower-dimensional faces (a zero entry, or two entries at +-1)
        zero = np.any(flat == 0, axis=1)
        return zero | (np.count_nonzero(np.abs(flat) == 1.0, axis=1) >= 2) if self.norm == "inf" else zero

    def entry_bounds(self):
        return Fraction(-1), Fraction(1)


def _pole(x):
    """The axis of the largest entry and its sign: seen from the opposite pole, x is well inside the chart."""
    j = max(range(len(x)), key=lambda i: abs(x[i]))
    return j, (1 if x[j] > 0 else -1)


def stereographic(y, j, s):
    """Coordinates of a unit vector ``y`` seen from the pole ``-s e_j``."""
    return [y[i] / (1 + s * y[j]) for i in range(len(y)) if i != j]


def inverse_stereographic(t, j, s):
    """The rational point of the unit sphere with stereographic coordinates ``t``."""
    big_t = sum((v * v for v in t), fmpq(0))
    out = [2 * v / (1 + big_t) for v in t]
    out.insert(j, s * (1 - big_t) / (1 + big_t))
    return np.array(out, dtype=object)


def sphere_normalise(x, norm):
    """Float vectors divided by their norm (a zero vector becomes the first axis)."""
    x = np.array(x, dtype=float)
    zero = ~np.any(x != 0, axis=-1)
    x[zero, ..., 0] = 1.0
    if norm == "inf":
        return x / np.max(np.abs(x), axis=-1, keepdims=True)
    if norm == "1":
        return x / np.sum(np.abs(x), axis=-1, keepdims=True)
    return x / np.sqrt(np.sum(x * x, axis=-1, keepdims=True))


@dataclass(frozen=True)
class EuclideanSphere(Domain):
    """``x_1^2 + ... + x_n^2 == radius_squared`` exactly, for a positive rational radius_squared.

    Its rational points are the stereographic images of rational points of a hyperplane,
    seen from one rational point ``p`` of the sphere (:func:`sphere_rational_point`): the
    line from ``p`` through ``x`` meets the coordinate hyperplane ``x_j = 0`` at ``t``, and
    back, ``x = p + 2 (r^2 - p.t) / |t - p|^2 (t - p)``, rational whenever ``t`` is.  The
    pole is the signed permutation of ``p`` most opposite the point (its chart's centre),
    ``j`` the point's largest entry.  With radius_squared = 1 and ``p = e_1`` this is the
    unit sphere's inverse stereographic projection.
    """

    radius_squared: Fraction = Fraction(1)

    def hypotheses(self, var):
        return [Hypothesis(f"\u2016{var.name}\u2016\u2082\u00b2 = {self.radius_squared} exactly",
                           lambda ctx, v, n=var.name, r=self.radius_squared: -ctx.abs(ctx.sum_all(v[n] * v[n]) - ctx.const(r)))]

    def describe(self):
        return [f"radius_squared={self.radius_squared}"]

    def validate(self, var, dims):
        size = dims[var.shape[0]]
        for n in range(size.lo, min(size.hi, 3) + 1):
            reason = sphere_obstruction(n, self.radius_squared)
            if reason:
                terms = " + ".join(f"x_{i + 1}^2" for i in range(n))
                fine = next(m for m in range(n + 1, 5) if sphere_rational_point(m, self.radius_squared) is not None)
                sizes = f"sizes {var.shape[0]} >= {fine}" if isinstance(var.shape[0], str) else f"a size of at least {fine}"
                raise ClaimDefinitionError(
                    f"Sphere {var.name}: {terms} = {self.radius_squared} has no rational point ({reason}), so no point of it "
                    f"can be certified exactly: choose another radius_squared, or {sizes}")

    def onto_set(self, x):
        out = sphere_normalise(np.where(np.isfinite(x), x, 0.0), "2")
        return out if self.radius_squared == 1 else out * math.sqrt(self.radius_squared)

    def onto_set_exact(self, point):
        if not len(point):
            raise ValueError("a point of a sphere needs at least one entry")
        if self.contains(point):
            return point
        if all(v == 0 for v in point):
            return exact_point(self.rational_point(len(point)))
        chart = self.chart(point)
        return chart.point(chart.params)

    def contains(self, point):
        return sum((v * v for v in point), fmpq(0)) == q(self.radius_squared)

    def rational_point(self, n) -> tuple[Fraction, ...]:
        p = sphere_rational_point(n, self.radius_squared)
        if p is None:
            raise ValueError(f"no rational point on the sphere of radius squared {self.radius_squared} in {n} dimensions")
        return p

    def chart(self, point):
        if not len(point):
            return None
        x = exact_point(point)
        p, j = _opposite_pole(x, self.rational_point(len(x)))
        scale = p[j] / (p[j] - x[j])
        t = p + (x - p) * scale
        return Chart(np.delete(t, j), lambda t, p=p, j=j, r2=q(self.radius_squared): _from_pole(p, j, r2, t))

    def on_boundary(self, var, flat):
        # no boundary: the special points are the axis and diagonal directions and the
        # signed permutations of the sphere's rational point
        p = np.sort(np.abs(np.array(self.rational_point(flat.shape[1]), dtype=float)))
        like_p = np.all(np.isclose(np.sort(np.abs(flat), axis=1), p, rtol=1e-12, atol=0), axis=1)
        return _equal_magnitudes(flat) | like_p

    def entry_bounds(self):
        r = sqrt_upper(self.radius_squared)
        return -r, r


def sqrt_upper(value: Fraction) -> Fraction:
    """A simple rational >= sqrt(value): exact where value is a square of a rational."""
    num, den = value.numerator * value.denominator, value.denominator
    root = math.isqrt(num)
    return Fraction(root if root * root == num else root + 1, den)


def _opposite_pole(x, p0):
    """The signed permutation ``p`` of ``p0`` that minimises ``p.x``, and the axis j of x's
    largest entry (where p is largest, so ``p_j - x_j`` is far from 0)."""
    n = len(x)
    order = sorted(range(n), key=lambda i: -abs(x[i]))  # stable: ties keep the first index first
    sizes = sorted((abs(q(v)) for v in p0), reverse=True)
    p = np.empty(n, dtype=object)
    for i, size in zip(order, sizes):
        p[i] = -size if x[i] > 0 else size
    return p, order[0]


def _from_pole(p, j, r2, params):
    """The point of the sphere ``|x|^2 = r2`` whose line from the pole ``p`` meets ``x_j = 0`` at ``params``."""
    t = np.insert(np.asarray(params, dtype=object), j, fmpq(0))
    d = t - p
    lam = 2 * (r2 - sum((a * b for a, b in zip(p, t)), fmpq(0))) / sum((v * v for v in d), fmpq(0))
    return p + lam * d


def _sum_of_squares(total: int, k: int) -> tuple[int, ...] | None:
    """Integers whose squares sum to ``total``, exactly k of them (zeros allowed), or None."""
    if k == 1:
        root = math.isqrt(total)
        return (root,) if root * root == total else None
    if k == 2:
        if any(p % 4 == 3 and e % 2 for p, e in factorint(total).items()):
            return None
        root = math.isqrt(total)
        return (root, 0) if root * root == total else next(sum_of_squares(total, 2), None)
    if k == 3:
        return sum_of_three_squares(total)
    return sum_of_four_squares(total)


@functools.lru_cache(maxsize=256)
def sphere_rational_point(n: int, radius_squared: Fraction) -> tuple[Fraction, ...] | None:
    """A rational point of ``x_1^2 + ... + x_n^2 = radius_squared`` with the fewest nonzero
    entries, largest first, or None where there is none.

    ``a/b`` is a sum of k rational squares exactly when ``a b`` is a sum of k integer squares
    (``a/b = a b / b^2``; for k <= 3 a sum of rational squares of an integer is one of
    integer squares, Davenport-Cassels), so integer squares summing to ``a b``, divided by b.
    """
    num, den = radius_squared.numerator, radius_squared.denominator
    for k in range(1, min(n, 4) + 1):
        roots = _sum_of_squares(num * den, k)
        if roots is not None:
            entries = sorted((Fraction(abs(r), den) for r in roots if r), reverse=True)
            return tuple(entries) + (Fraction(0),) * (n - len(entries))
    return None


def sphere_obstruction(n: int, radius_squared: Fraction) -> str | None:
    """Why the sphere has no rational point in n dimensions (n <= 3), or None where it has one."""
    if sphere_rational_point(n, radius_squared) is not None:
        return None
    value = radius_squared.numerator * radius_squared.denominator
    which = f"{value}, numerator times denominator of {radius_squared}," if radius_squared.denominator != 1 else f"{value}"
    if n == 1:
        return f"{radius_squared} is not the square of a rational"
    if n == 2:
        return f"{which} has a prime 3 mod 4 to an odd power: not a sum of two squares"
    return f"{which} has the form 4^a (8b + 7): not a sum of three squares"


# ------------------------------------------------------------------------------ ordered
@dataclass(frozen=True)
class OrderedEntries(Domain):
    """``x_1 <= x_2 <= ... <= x_n``; onto the set: sort."""

    def hypotheses(self, var):
        def gap(ctx, v, n=var.name):
            x = v[n]
            if np.shape(x)[-1] < 2:
                return ctx.const(0)
            return ctx.min_all(x[..., 1:] - x[..., :-1])

        return [Hypothesis(f"{var.name}\u2081 \u2264 {var.name}\u2082 \u2264 \u2026 (ordered)", gap)]

    def onto_set(self, x):
        return np.sort(x, axis=-1)

    def onto_set_exact(self, point):
        return np.array(sorted(point), dtype=object)

    def on_boundary(self, var, flat):
        tie = np.any(np.diff(flat, axis=1) == 0, axis=1)
        for end in (var.lo, var.hi):
            if end is not None:
                tie |= np.any(flat == end, axis=1)
        return tie


# --------------------------------------------------------------------------- orthogonal
@dataclass(frozen=True)
class OrthogonalMatrix(Domain):
    """``Q^T Q == I`` exactly.

    Onto the set exactly: ``Q = S (I - A)(I + A)^-1`` with ``S`` the nearest signed
    permutation and ``A`` skew-symmetric and rational (the Cayley transform), which reaches
    every orthogonal matrix with no eigenvalue -1 relative to ``S``; ``A`` is the chart.
    In floats: the polar factor.
    """

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

    def chart(self, point):
        if not point.size:
            return None
        sign = nearest_signed_permutation(point)
        try:
            a = cayley_parameters(point, sign)
        except ValueError:
            return None
        return Chart(a, lambda a, sign=sign: cayley((a - a.T) / 2, sign))

    def on_boundary(self, var, flat):  # a zero entry: permutation, Givens or block structure
        return _equal_magnitudes(flat) | np.any(flat == 0, axis=1)

    def entry_bounds(self):
        return Fraction(-1), Fraction(1)


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


# --------------------------------------------------------------------- doubly stochastic
@dataclass(frozen=True)
class DoublyStochasticMatrix(Domain):
    """Entries >= 0 with every row and every column summing to exactly 1.

    Its rational points are the convex combinations of permutation matrices with rational
    weights (Birkhoff-von Neumann: every doubly stochastic matrix is one).  The chart is a
    Birkhoff decomposition -- permutations found one at a time as matchings on the support
    (the float values only choose them), each weighted by the least entry it covers, exactly --
    and back, the weights' combination divided by their sum.  In floats: Sinkhorn's scaling.
    """

    def hypotheses(self, var):
        return [
            Hypothesis(f"{var.name} \u2265 0 entrywise", lambda ctx, v, n=var.name: ctx.min_all(v[n])),
            Hypothesis(f"each row of {var.name} sums to exactly 1", lambda ctx, v, n=var.name: _row_sum_gap(ctx, v[n], 1)),
            Hypothesis(f"each column of {var.name} sums to exactly 1", lambda ctx, v, n=var.name: _row_sum_gap(ctx, ctx.T(v[n]), 1)),
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

    def chart(self, point):
        if point.shape[0] == 0:
            return None
        perms, weights = birkhoff_decomposition(point)
        return Chart(np.array(weights, dtype=object), lambda w, perms=perms: permutation_mixture(perms, w))

    def on_boundary(self, var, flat):
        return np.any(flat == 0, axis=1)

    def entry_bounds(self):
        return Fraction(0), Fraction(1)


#: Sinkhorn's alternate row and column scalings applied to a float batch
SINKHORN_STEPS = 40


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


# ------------------------------------------------------------------------------ derived
class IrrationalDerivedValue(Exception):
    """A derived variable's definition left the rationals at a point the search must certify.

    Not a ValueError or ArithmeticError: those mark one bad candidate, which the search
    skips; this is the claim's definition, and no point of it can be certified.
    """

    def __init__(self, var: Variable, text: str, reason: str):
        self.variable = var.name
        what = f"{var.name} = {text}" if text else var.name
        super().__init__(
            f"Derived {what} is irrational at the points the search certifies ({reason}); a certificate "
            f"needs every variable exactly: define {var.name} with + - * / only, or parametrise its set "
            "rationally (a point of a sphere: Sphere)")


@dataclass(frozen=True)
class DerivedValue(Domain):
    """A variable defined by the earlier ones: its value is ``fn(ctx, v)``, checked exactly.

    Not a set of its own: :meth:`value` computes it from the others, in floats or exactly.
    """

    fn: Callable[[Any, Any], Any] | None = None
    text: str = ""

    def hypotheses(self, var):
        text = f"{var.name} = {self.text}" if self.text else f"{var.name} is its defining expression"
        return [Hypothesis(text, lambda ctx, v, n=var.name, f=self.fn: -ctx.max_all(ctx.abs(v[n] - f(ctx, v))))]

    def value(self, var, ctx, values, shape):
        """The variable's value from the earlier ones, broadcast to ``shape`` (batch first).

        Exactly (in rationals) it must stay rational: else
        :class:`IrrationalDerivedValue`, naming the variable.
        """
        if not isinstance(ctx, ExactContext):
            with np.errstate(all="ignore"):
                out = np.asarray(self.fn(FLOAT, values), dtype=float)
            return np.broadcast_to(out, shape).copy() if np.shape(out) != tuple(shape) else out
        try:
            with ctx.precision():
                out = np.asarray(self.fn(ctx, values), dtype=object)
        except NotRational as exc:
            raise IrrationalDerivedValue(var, self.text, str(exc)) from None
        return np.broadcast_to(out, shape).copy() if np.ndim(out) < len(shape) else out

    def on_boundary(self, var, flat):
        at = np.zeros(len(flat), bool)
        for end in (var.lo, var.hi):
            if end is not None:
                at |= np.any(flat == end, axis=1)
        return at


# ------------------------------------------------------------------------ public factories
def _check_name(name):
    if not isinstance(name, str) or not name.isidentifier():
        raise ClaimDefinitionError(f"variable name must be an identifier, got {name!r}")


def _check_dim(owner, what, dim):
    if isinstance(dim, int) and not isinstance(dim, bool) and dim >= 1:
        return  # a fixed size
    if not isinstance(dim, str) or not dim.isidentifier():
        raise ClaimDefinitionError(f"{owner}: {what} must name a Dim or be a positive int, got {dim!r}")


def _positive_rational(owner, what, value) -> Fraction:
    """The exact value of a positive rational argument (a float by its shortest repr)."""
    try:
        if isinstance(value, bool):
            raise TypeError
        exact = exact_decimal(value)
    except (TypeError, ValueError):
        exact = None
    if exact is None or exact <= 0:
        raise ClaimDefinitionError(f"{owner}: {what} must be a positive exact rational (an int, '3/2', a Fraction), got {value!r}")
    return exact


def Simplex(name: str, size: str, total: Any = 1, description: str = "") -> Variable:
    """Entries >= 0 summing to exactly ``total`` (a probability vector when total = 1: a softmax output).

    ``total`` is a positive exact rational: an int, ``"3/2"``, a Fraction, or a float by its
    shortest repr (``0.1`` is 1/10), as variable bounds are.
    """
    _check_name(name)
    _check_dim(f"Simplex {name}", "size", size)
    total = _positive_rational(f"Simplex {name}", "total", total)
    return Variable(name, (size,), domain=SimplexRows("simplex", total), description=description)


def Stochastic(name: str, rows: str, cols: str, description: str = "") -> Variable:
    """A row-stochastic matrix: each row on the simplex (an attention matrix)."""
    _check_name(name)
    _check_dim(f"Stochastic {name}", "rows", rows)
    _check_dim(f"Stochastic {name}", "cols", cols)
    return Variable(name, (rows, cols), domain=SimplexRows("stochastic"), description=description)


def UnitVector(name: str, size: str, norm: Any = 2, description: str = "") -> Variable:
    """A vector of norm exactly 1: ``norm`` is 2 (the sphere), ``"inf"`` or 1."""
    _check_name(name)
    _check_dim(f"UnitVector {name}", "size", size)
    if norm not in NORMS:
        raise ClaimDefinitionError(f"UnitVector {name}: norm must be 2, 'inf' or 1, got {norm!r}")
    return Variable(name, (size,), domain=UnitSphere("unit-vector", NORMS[norm]), description=description)


def Sphere(name: str, size: str, radius_squared: Any = 1, description: str = "") -> Variable:
    """A point of the Euclidean sphere ``x_1^2 + ... + x_n^2 == radius_squared`` exactly.

    ``radius_squared`` is a positive exact rational (as ``Simplex``'s total).  Certificates
    need exact points on the sphere, so a claim whose sizes include one where the sphere has
    no rational point (3 on the circle, 7 on the sphere in R^3) is refused when it is declared.
    """
    _check_name(name)
    _check_dim(f"Sphere {name}", "size", size)
    radius_squared = _positive_rational(f"Sphere {name}", "radius_squared", radius_squared)
    return Variable(name, (size,), domain=EuclideanSphere("sphere", radius_squared), description=description)


def DoublyStochastic(name: str, size: str, description: str = "") -> Variable:
    """A square matrix with entries >= 0 and every row and every column summing to exactly 1."""
    _check_name(name)
    _check_dim(f"DoublyStochastic {name}", "size", size)
    return Variable(name, (size, size), domain=DoublyStochasticMatrix("doubly-stochastic"), description=description)


def Ordered(name: str, size: str, lo: float | None = None, hi: float | None = None, description: str = "") -> Variable:
    """A vector with ``x_1 <= x_2 <= ... <= x_n`` and entries in ``[lo, hi]``."""
    _check_name(name)
    _check_dim(f"Ordered {name}", "size", size)
    return Variable(name, (size,), lo=lo, hi=hi, domain=OrderedEntries("ordered"), description=description)


def Orthogonal(name: str, size: str, description: str = "") -> Variable:
    """A square matrix with ``Q^T Q == I`` exactly (rotations and reflections)."""
    _check_name(name)
    _check_dim(f"Orthogonal {name}", "size", size)
    return Variable(name, (size, size), domain=OrthogonalMatrix("orthogonal"), description=description)


def Derived(name: str, fn, lo: float | None = None, hi: float | None = None, text: str = "", shape: tuple[str, ...] = (), description: str = "") -> Variable:
    """A variable defined by the earlier ones, ``fn(ctx, v)`` (``c = 3 - a - b``).

    It is shown and stored with a counterexample like any variable; ``lo``/``hi`` and the
    defining equation are hypotheses checked exactly.  ``fn`` must stay rational (+ - * /):
    a stored point is exact, and a search that meets an irrational value (a ``sqrt``)
    stops with :class:`IrrationalDerivedValue`, naming the variable.
    """
    _check_name(name)
    if not callable(fn):
        raise ClaimDefinitionError(f"Derived {name}: fn must be a function f(ctx, v), got {fn!r}")
    return Variable(name, tuple(shape), lo=lo, hi=hi, domain=DerivedValue("derived", fn, text), description=description)


def domain_of(var: Variable) -> Domain | None:
    return getattr(var, "domain", None)


def is_derived(var: Variable) -> bool:
    """Is the variable computed from the others rather than free on a set?"""
    return isinstance(domain_of(var), DerivedValue)


def kind_text(var: Variable, dims=None) -> str:
    """The variable's kind as a stored file and ``verify show`` state it.

    ``stochastic(n x m, n=2, m=3)`` with dims (a stored file), ``stochastic`` without (next to
    the shape); ``real`` for a variable of no kind (its box, ball or bound functions are the
    claim's, not a set's); ``derived(3 - a - b)`` for a derived variable.
    """
    dom = domain_of(var)
    if isinstance(dom, DerivedValue):
        return f"derived({dom.text})" if dom.text else "derived"
    name = "real" if dom is None else dom.kind
    args = []
    if dims is not None and var.shape:
        args = [var.shape_text] + [f"{s}={dims[s]}" for s in dict.fromkeys(var.shape) if isinstance(s, str)]
    if dom is not None:
        args += dom.describe()
    return f"{name}({', '.join(args)})" if args else name


def variable_kinds(variables, dims) -> dict[str, str]:
    return {var.name: kind_text(var, dims) for var in variables}


def membership_errors(check, data, dims, ctx) -> tuple[str, str] | None:
    """The first variable of an exact point that is off its set: (name, reason), or None."""
    values = check.values(data, dims)
    for var in check.variables:
        dom = domain_of(var)
        for hyp in dom.hypotheses(var) if dom is not None else ():
            try:
                with ctx.precision():
                    margin = np.asarray(hyp.margin(ctx, values), dtype=object).ravel()[0]
            except ArithmeticError:  # leaves the rationals (or divides by 0): the certificate decides
                continue
            if margin < 0:
                return var.name, f"not on the {dom.kind} set: '{hyp.text}' fails"
    return None


__all__ = ["Simplex", "Stochastic", "DoublyStochastic", "UnitVector", "Sphere", "Ordered", "Orthogonal", "Derived", "Domain", "Chart", "IrrationalDerivedValue",
           "domain_of", "is_derived", "kind_text", "membership_errors", "variable_kinds"]
