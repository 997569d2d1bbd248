"""Spheres: unit vectors of the Euclidean, max and l1 norms, and Euclidean spheres of a rational radius squared.

Exact points.  The unit sphere's rational points are the inverse stereographic images of
rational points, ``y = (2t, 1 - |t|^2) / (1 + |t|^2)`` seen from the pole opposite a point's
largest entry (those ``t`` are its chart).  A sphere of radius squared r^2 the same way from
one rational point ``p`` of it (:func:`sphere_rational_point`): the line from ``p`` through
``x`` meets the coordinate hyperplane ``x_j = 0`` at ``t``, and back,
``x = p + 2 (r^2 - p.t) / |t - p|^2 (t - p)``.  The max and l1 spheres: divide by the norm.

Samples: axes and diagonal directions, the signed permutations of the sphere's rational
point and the stereographic images of small rationals seen from them, normalised Gaussians,
near-axis and normalised small integers; cube vertices and faces (max norm), edges and faces
of the cross-polytope (l1).  Three or more unit vectors of one size are also drawn together
from known configurations (:mod:`verifier.configurations`).

Proofs: charts covering the set by rational pieces over ``[-1, 1]^(n-1)``: the 2n faces of the
cube (max norm) pushed radially onto the cross-polytope (l1), and stereographic projection
from either pole (Euclidean; for a sphere from ``+-p`` onto the hyperplane through 0
orthogonal to ``p``), each covering a closed hemisphere.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from flint import fmpq

from ..claims import ClaimDefinitionError, Hypothesis, Variable
from ..configurations import known_configurations, spread_subsets
from ..draws import log_scale, pick, scaled, signed_permutations, signs, support
from .base import (Chart, ChartAtlas, ChartedMap, Kind, equal_magnitudes, exact_point, positive_rational, q, require_dim, require_identifier,
                   sign_of_piece, stereographic_point)
from .orthogonal import orthogonal_polar
from .simplex import simplex_rows

NORMS = {2: "2", "2": "2", 1: "1", "1": "1", "inf": "inf", float("inf"): "inf"}

SPHERE_PATTERNS = {
    "2": {"axis": 1.5, "diagonal": 1.5, "gauss": 2.5, "near-axis": 1.0, "simple": 0.7},
    "inf": {"vertex": 1.5, "face": 1.5, "axis": 1.0, "gauss": 2.0, "simple": 0.7},
    "1": {"axis": 1.5, "edge": 1.0, "face": 1.0, "diagonal": 1.0, "gauss": 2.5},
}
#: a sphere of any rational radius squared: the unit sphere's patterns scaled, and its exact
#: rational points -- the signed permutations of one of them ((1, 1, 1) for radius squared 3)
#: and the stereographic images of small rationals seen from those
EUCLIDEAN_SPHERE_PATTERNS = {"axis": 1.0, "diagonal": 1.5, "rational-point": 1.0, "small-rational": 1.0,
                             "gauss": 2.5, "near-axis": 1.0, "simple": 0.7}
#: share of a batch drawn from known configurations where a claim has several unit vectors of one size
CONFIGURATION_SHARE = 0.25


# ----------------------------------------------------------------------------- unit vectors
@dataclass(frozen=True)
class UnitSphere(Kind):
    """``||u|| == 1`` exactly, for the Euclidean, max or l1 norm.

    Onto the Euclidean sphere exactly: inverse stereographic projection of the point's
    stereographic coordinates seen from the pole opposite its largest entry,
    ``y = (2t, 1 - |t|^2) / (1 + |t|^2)``, rational whenever ``t`` is (those ``t`` are its
    free coordinates).  The max and l1 spheres: divide by the norm.
    """

    name = "unit-vector"
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

    def entry_bounds(self):
        return Fraction(-1), Fraction(1)

    # -- samples ----------------------------------------------------------------------------
    def patterns(self, var):
        return SPHERE_PATTERNS[self.norm]

    def draw(self, pattern, rng, m, shape, var):
        return unit_sphere_samples(pattern, self.norm, rng, m, shape[-1])

    def on_boundary(self, var, flat):
        if self.norm == "2":
            return equal_magnitudes(flat)
        # every point of these spheres lies on a facet of the cube or cross-polytope: the
        # boundary is the lower-dimensional faces (a zero entry, or two entries at +-1)
        zero = np.any(flat == 0, axis=1)
        return zero | (np.count_nonzero(np.abs(flat) == 1.0, axis=1) >= 2) if self.norm == "inf" else zero

    @property
    def draws_together(self):
        return self.norm == "2"

    def draw_together(self, names, data, shape, rng, size):
        draw_configurations(1.0, names, data, shape, rng, size)

    # -- rational points --------------------------------------------------------------------
    def chart(self, point):
        if self.norm != "2" or not len(point):
            return None
        j, s = _pole(point)
        return Chart(np.array(stereographic(exact_point(point), j, s), dtype=object),
                     lambda t, j=j, s=s: inverse_stereographic(list(t), j, s))

    # -- proofs -----------------------------------------------------------------------------
    def atlas(self, var, shape) -> ChartAtlas:
        (n,) = shape
        if n == 1:
            return ChartAtlas(0, 2, lambda ctx, t, k: [sign_of_piece(ctx, k)])
        if self.norm == "2":
            return ChartAtlas(n - 1, 2, lambda ctx, t, k: stereographic_point(ctx, t, k))
        return ChartAtlas(n - 1, 2 * n, lambda ctx, t, k: _cube_face(ctx, t, k, radial=self.norm == "1"))

    def proof_map(self, var, shape, box, request):
        return ChartedMap(var, shape, box, self.atlas(var, shape)) if request.charts else None


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


def unit_sphere_samples(name, norm, rng, m, n):
    """m unit vectors of a norm in R^n drawn by one pattern."""
    if n == 0:
        return np.zeros((m, 0))
    if name == "axis":
        out = np.zeros((m, n))
        out[np.arange(m), rng.integers(0, n, m)] = rng.choice([-1.0, 1.0], m)
        return out
    if name == "vertex":  # max norm: every entry +-1
        return signs(rng, m, n)
    if name == "face":  # max norm: one entry +-1, the rest inside; l1: a signed face of the cross-polytope
        if norm == "inf":
            out = rng.uniform(-1, 1, (m, n))
            out[np.arange(m), rng.integers(0, n, m)] = rng.choice([-1.0, 1.0], m)
            return out
        return simplex_rows("face", rng, m, n) * signs(rng, m, n)
    if name == "edge":
        return simplex_rows("edge", rng, m, n) * signs(rng, m, n)
    if name == "diagonal":
        mask = support(rng, m, n, rng.integers(1, n + 1, m)) if rng.random() < 0.5 else np.ones((m, n), dtype=bool)
        x = signs(rng, m, n) * mask
    elif name == "near-axis":
        x = np.zeros((m, n))
        x[np.arange(m), rng.integers(0, n, m)] = 1.0
        x = x + rng.standard_normal((m, n)) * log_scale(rng, m, -4, -1)[:, None]
    elif name == "simple":
        x = rng.integers(-3, 4, (m, n)).astype(float)
    elif name == "gauss":
        x = rng.standard_normal((m, n))
    else:
        raise AssertionError(name)
    return sphere_normalise(x, norm)


def draw_configurations(radius, names, data, shape, rng, size):
    """A share of the rows: the group's vectors are far-apart points of a known
    configuration in R^d, turned by a Haar-random orthogonal map (half the rows) or a
    signed permutation (the rest, which keeps axis-aligned sets axis-aligned)."""
    d, k = shape[-1], len(names)
    configs = [c for c in known_configurations(d) if len(c) >= k]
    rows = np.nonzero(rng.random(size) < CONFIGURATION_SHARE)[0]
    if not configs or not len(rows):
        return
    which = rng.integers(0, len(configs), len(rows))
    for c, conf in enumerate(configs):
        at = rows[which == c]
        m = len(at)
        if not m:
            continue
        points = conf[spread_subsets(conf, k, rng, m)]  # (m, k, d)
        haar = rng.random(m) < 0.5
        turn = signed_permutations(rng, m, d)
        turn[haar] = orthogonal_polar(rng.standard_normal((int(np.count_nonzero(haar)), d, d)))
        points = radius * points @ turn
        for j, name in enumerate(names):
            data[name][at] = points[:, j]


def _cube_face(ctx, t, k, radial):
    """Face k of the cube [-1, 1]^n: entry k // 2 fixed at +-1; for the l1 sphere, pushed onto it."""
    axis = k // 2
    v = list(t[:axis]) + [sign_of_piece(ctx, k)] + list(t[axis:])
    if not radial:
        return v
    total = abs(v[0])
    for x in v[1:]:
        total = total + abs(x)
    return [x / total for x in v]


# ---------------------------------------------------------------------------------- spheres
@dataclass(frozen=True)
class EuclideanSphere(Kind):
    """``x_1^2 + ... + x_n^2 == radius_squared`` exactly, for a positive rational radius_squared.

    Its rational points are the stereographic images of rational points of a hyperplane,
    seen from one rational point ``p`` of the sphere (:func:`sphere_rational_point`): the
    line from ``p`` through ``x`` meets the coordinate hyperplane ``x_j = 0`` at ``t``, and
    back, ``x = p + 2 (r^2 - p.t) / |t - p|^2 (t - p)``, rational whenever ``t`` is.  The
    pole is the signed permutation of ``p`` most opposite the point (its chart's centre),
    ``j`` the point's largest entry.  With radius_squared = 1 and ``p = e_1`` this is the
    unit sphere's inverse stereographic projection.
    """

    name = "sphere"
    radius_squared: Fraction = Fraction(1)
    draws_together = True

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

    def entry_bounds(self):
        r = sqrt_upper(self.radius_squared)
        return -r, r

    def rational_point(self, n) -> tuple[Fraction, ...]:
        p = sphere_rational_point(n, self.radius_squared)
        if p is None:
            raise ValueError(f"no rational point on the sphere of radius squared {self.radius_squared} in {n} dimensions")
        return p

    # -- samples ----------------------------------------------------------------------------
    def patterns(self, var):
        return EUCLIDEAN_SPHERE_PATTERNS

    def draw(self, pattern, rng, m, shape, var):
        return self._samples(pattern, rng, m, shape[-1])

    def _samples(self, name, rng, m, n):
        if n == 0:
            return np.zeros((m, 0))
        if name not in ("rational-point", "small-rational"):
            return scaled(unit_sphere_samples(name, "2", rng, m, n), np.sqrt(float(self.radius_squared)))
        p = np.sort(np.abs(np.array(self.rational_point(n), dtype=float)))[::-1]
        perm = np.argsort(rng.random((m, n)), axis=1)
        pole = np.zeros((m, n))
        pole[np.arange(m)[:, None], perm] = p  # p's largest entry at perm[:, 0]
        pole *= signs(rng, m, n)
        if name == "rational-point":
            return pole
        # the line from the pole through a point meets x_j = 0 (j where the pole is largest) at
        # t; small rational t give rational points of small height
        t = rng.integers(-3, 4, (m, n)) / pick(rng, [1.0, 2.0, 3.0, 4.0], (m, 1))
        t[np.arange(m), perm[:, 0]] = 0.0
        d = t - pole
        lam = 2 * (float(self.radius_squared) - np.sum(pole * t, axis=1)) / np.sum(d * d, axis=1)
        return pole + lam[:, None] * d

    def on_boundary(self, var, flat):
        # no boundary: the special points are the axis and diagonal directions and the
        # signed permutations of the sphere's rational point
        p = np.sort(np.abs(np.array(self.rational_point(flat.shape[1]), dtype=float)))
        like_p = np.all(np.isclose(np.sort(np.abs(flat), axis=1), p, rtol=1e-12, atol=0), axis=1)
        return equal_magnitudes(flat) | like_p

    def draw_together(self, names, data, shape, rng, size):
        draw_configurations(np.sqrt(float(self.radius_squared)), names, data, shape, rng, size)

    # -- rational points --------------------------------------------------------------------
    def chart(self, point):
        if not len(point):
            return None
        x = exact_point(point)
        p, j = _opposite_pole(x, self.rational_point(len(x)))
        scale = p[j] / (p[j] - x[j])
        t = p + (x - p) * scale
        return Chart(np.delete(t, j), lambda t, p=p, j=j, r2=q(self.radius_squared): _from_pole(p, j, r2, t))

    # -- proofs -----------------------------------------------------------------------------
    def atlas(self, var, shape) -> ChartAtlas:
        (n,) = shape
        p = self.rational_point(n)
        if n == 1:
            return ChartAtlas(0, 2, lambda ctx, t, k: [sign_of_piece(ctx, k) * ctx.scalar(p[0])])
        return ChartAtlas(n - 1, 2, lambda ctx, t, k: _sphere_from_pole(ctx, t, k, p, self.radius_squared))

    def proof_map(self, var, shape, box, request):
        return ChartedMap(var, shape, box, self.atlas(var, shape)) if request.charts else None


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


def _sphere_from_pole(ctx, u, k, p, r2):
    """The point of ``|x|^2 = r2`` seen from the pole ``+-p`` (k) through ``t`` in ``p``'s orthogonal hyperplane."""
    n = len(p)
    j = max(range(n), key=lambda i: abs(p[i]))
    c = ctx.scalar(sqrt_upper(r2))
    free = [c * x for x in u]
    t = free[:j] + [None] + free[j:]
    rest = None
    for i in range(n):
        if i != j and p[i]:
            term = ctx.scalar(-p[i] / p[j]) * t[i]
            rest = term if rest is None else rest + term
    t[j] = rest if rest is not None else ctx.scalar(Fraction(0))
    square = t[0] * t[0]
    for x in t[1:]:
        square = square + x * x
    radius2 = ctx.scalar(r2)
    denominator = square + radius2
    pole = [sign_of_piece(ctx, k) * ctx.scalar(x) for x in p]
    return [(pole[i] * (square - radius2) + 2 * radius2 * t[i]) / denominator for i in range(n)]


def _sum_of_squares(total: int, k: int) -> tuple[int, ...] | None:
    """Integers whose squares sum to ``total``, exactly k of them (zeros allowed), or None."""
    # sympy's number theory, loaded when a point is first put on a sphere: a claim is stated
    # and described without it
    from sympy import factorint
    from sympy.solvers.diophantine.diophantine import sum_of_four_squares, sum_of_squares, sum_of_three_squares

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



# ------------------------------------------------------------------------------- factories
def UnitVector(name: str, size: str, norm: Any = 2, description: str = "") -> Variable:
    """A vector of norm exactly 1: ``norm`` is 2 (the sphere), ``"inf"`` or 1."""
    require_identifier(name)
    require_dim(f"UnitVector {name}", "size", size)
    if norm not in NORMS:
        raise ClaimDefinitionError(f"UnitVector {name}: norm must be 2, 'inf' or 1, got {norm!r}")
    return Variable(name, (size,), domain=UnitSphere(NORMS[norm]), description=description)


def Sphere(name: str, size: str, radius_squared: Any = 1, description: str = "") -> Variable:
    """A point of the Euclidean sphere ``x_1^2 + ... + x_n^2 == radius_squared`` exactly.

    ``radius_squared`` is a positive exact rational (as ``Simplex``'s total).  Certificates
    need exact points on the sphere, so a claim whose sizes include one where the sphere has
    no rational point (3 on the circle, 7 on the sphere in R^3) is refused when it is declared.
    """
    require_identifier(name)
    require_dim(f"Sphere {name}", "size", size)
    radius_squared = positive_rational(f"Sphere {name}", "radius_squared", radius_squared)
    return Variable(name, (size,), domain=EuclideanSphere(radius_squared), description=description)


__all__ = ["UnitVector", "Sphere", "UnitSphere", "EuclideanSphere", "NORMS", "SPHERE_PATTERNS", "EUCLIDEAN_SPHERE_PATTERNS", "stereographic", "inverse_stereographic",
           "sphere_normalise", "unit_sphere_samples", "draw_configurations", "sqrt_upper", "sphere_rational_point",
           "sphere_obstruction"]
