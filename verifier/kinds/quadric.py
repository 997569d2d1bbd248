"""Quadrics with a rational point: ``x^T A x + b.x + c = 0`` (a conic in the plane, a quadric surface, ...).

A quadric through a smooth rational point ``p`` is rational: the line from ``p`` in direction
``d`` meets it again at ``p + lam d`` with ``lam = -grad f(p).d / Q(d)`` (``Q(d) = d^T A d``),
rational whenever ``d`` is.  Directions are charted by their largest entry: ``d_j = 1`` and the
others ``t`` in ``[-1, 1]^(n-1)``, ``n`` charts covering every direction, so every point of the
quadric but those on lines through ``p`` inside it is reached (an ellipse: all of it; a
hyperbola: all but ``p``'s asymptotic directions, where the point runs off to infinity).
Membership: ``-|f(x)|``, polynomial.  Onto the set: the second point of the line from ``p``
through ``x`` (exactly; the identity on the quadric), and the chart's ``t`` is what a near-tie
rounds.  Samples: a chart, then ``t`` at small rationals, the chart's ends and centre, or
uniform; ``p`` itself.  Proofs: the charts (n pieces) for branch and bound, the polynomial
equation for SMT.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from flint import fmpq

from ..claims import ClaimDefinitionError, Hypothesis, Variable
from ..contexts import exact_decimal
from ..draws import pick
from .base import Chart, ChartAtlas, ChartedMap, Kind, exact_point, hypothesis_texts, q, require_identifier

QUADRIC_PATTERNS = {"small-rational": 2.0, "ends": 1.0, "axis": 0.7, "uniform": 2.0, "pole": 0.3}


@dataclass(frozen=True)
class QuadricSet(Kind):
    """``x^T A x + b.x + c == 0`` exactly, with a smooth rational point ``point``; ``text`` names it."""

    name = "quadric"
    matrix: tuple[tuple[Fraction, ...], ...] = ()
    linear: tuple[Fraction, ...] = ()
    constant: Fraction = Fraction(0)
    point: tuple[Fraction, ...] = ()
    text: str = ""

    # -- the polynomial in any numbers ---------------------------------------------------
    def value(self, x, number):
        """``f(x)`` for a list of entries of any kind; ``number`` makes a coefficient one of them."""
        n = len(self.point)
        out = number(self.constant)
        for i in range(n):
            if self.linear[i]:
                out = out + number(self.linear[i]) * x[i]
            for j in range(n):
                if self.matrix[i][j]:
                    out = out + number(self.matrix[i][j]) * x[i] * x[j]
        return out

    def _gradient_at_point(self) -> list[Fraction]:
        n = len(self.point)
        return [2 * sum((self.matrix[i][j] * self.point[j] for j in range(n)), Fraction(0)) + self.linear[i] for i in range(n)]

    def _through(self, d, number):
        """The second point of the quadric on the line from ``point`` in direction ``d`` (entries of any kind)."""
        n = len(self.point)
        g = self._gradient_at_point()
        slope, curve = number(Fraction(0)), number(Fraction(0))
        for i in range(n):
            if g[i]:
                slope = slope + number(g[i]) * d[i]
            for j in range(n):
                if self.matrix[i][j]:
                    curve = curve + number(self.matrix[i][j]) * d[i] * d[j]
        lam = -slope / curve
        return [number(self.point[i]) + lam * d[i] for i in range(n)]

    # -- the set --------------------------------------------------------------------------
    def hypotheses(self, var):
        def on(ctx, v, n=var.name):
            x = v[n]
            return -ctx.abs(self.value([x[:, i] for i in range(np.shape(x)[1])], ctx.const))

        return [Hypothesis(f"{var.name} on the quadric {self.text or 'f = 0'} exactly", on)]

    def describe(self):
        return [f"of {self.text}"] if self.text else []

    def proof_relation(self, var):
        return f"{var.name} on the quadric {self.text or 'f = 0'}"

    def contains(self, point):
        return self.value([q(v) for v in point], q) == 0

    def onto_set(self, x):
        x = np.where(np.isfinite(x), x, 0.0)
        p = np.array([float(c) for c in self.point])
        d = x - p
        with np.errstate(all="ignore"):
            out = np.array(self._through([d[:, i] for i in range(d.shape[1])], float)).T
        return np.where(np.all(d == 0, axis=1, keepdims=True), p, out)  # the point itself: no line to follow

    def onto_set_exact(self, point):
        if self.contains(point):
            return point
        chart = self.chart(point)
        if chart is None:
            raise ValueError("the point is the quadric's own rational point")
        return chart.point(chart.params)

    def chart(self, point):
        x = exact_point(point)
        d = [v - q(p) for v, p in zip(x, self.point)]
        if all(v == 0 for v in d):
            return None
        j = max(range(len(d)), key=lambda i: abs(d[i]))
        t = np.array([d[i] / d[j] for i in range(len(d)) if i != j], dtype=object)
        return Chart(t, lambda t, j=j: self.point_of_direction(j, t))

    def point_of_direction(self, j, t):
        """The quadric's second point on the line from its point in the direction with entry j = 1 and the others ``t``."""
        d = list(t[:j]) + [fmpq(1)] + list(t[j:])
        try:
            return np.array(self._through(d, q), dtype=object)
        except ZeroDivisionError:
            raise ValueError("the line from the quadric's point in that direction meets it nowhere else") from None

    # -- samples --------------------------------------------------------------------------
    def patterns(self, var):
        return QUADRIC_PATTERNS

    def draw(self, pattern, rng, m, shape, var):
        n = shape[-1]
        if pattern == "pole":
            return np.tile(np.array([float(c) for c in self.point]), (m, 1))
        if pattern == "small-rational":
            t = rng.integers(-4, 5, (m, n - 1)) / pick(rng, [1.0, 2.0, 3.0, 4.0], (m, 1))
            t = np.clip(t, -1, 1)
        elif pattern == "ends":
            t = pick(rng, [-1.0, 1.0], (m, n - 1))
        elif pattern == "axis":
            t = np.zeros((m, n - 1))
        else:
            t = rng.uniform(-1, 1, (m, n - 1))
        free = np.ones((m, n), dtype=bool)
        free[np.arange(m), rng.integers(0, n, m)] = False  # the direction's chart: its largest entry is 1
        d = np.ones((m, n))
        d[free] = t.ravel()
        with np.errstate(all="ignore"):
            return np.array(self._through([d[:, i] for i in range(n)], float)).T

    # -- proofs ---------------------------------------------------------------------------
    def atlas(self, var, shape) -> ChartAtlas:
        (n,) = shape

        def point(ctx, t, k):
            d = list(t[:k]) + [ctx.scalar(Fraction(1))] + list(t[k:])
            return self._through(d, ctx.scalar)

        return ChartAtlas(n - 1, n, point)

    def proof_map(self, var, shape, box, request):
        if request.smt or not request.charts:
            return None
        return QuadricMap(var, shape, self.atlas(var, shape))


class QuadricMap(ChartedMap):
    """The quadric's charts: lines from its rational point, by the direction's largest entry."""

    def __init__(self, var, shape, atlas):
        super(ChartedMap, self).__init__(var, shape)
        self.atlas = atlas
        self.pieces = atlas.pieces
        self.built_in = hypothesis_texts(var.domain.hypotheses(var))


# -------------------------------------------------------------------------- rational points
#: the values tried for all coordinates but one, when looking for a rational point
SMALL = sorted({Fraction(a, b) for a in range(-4, 5) for b in (1, 2, 3)}, key=lambda v: (abs(v.numerator) + v.denominator, v))


def rational_point(matrix, linear, constant, limit: int = 20000) -> tuple[Fraction, ...] | None:
    """A smooth rational point of the quadric, of small height, or None: all coordinates but one
    from small rationals, the last solved from its quadratic (a rational root of a square discriminant)."""
    n = len(linear)
    tried = 0
    for solved in range(n):
        for others in itertools.product(SMALL, repeat=n - 1):
            tried += 1
            if tried > limit:
                return None
            x = list(others[:solved]) + [None] + list(others[solved:])
            a = matrix[solved][solved]
            b = linear[solved] + 2 * sum((matrix[solved][j] * x[j] for j in range(n) if j != solved), Fraction(0))
            c = constant + sum((linear[j] * x[j] for j in range(n) if j != solved), Fraction(0)) + \
                sum((matrix[i][j] * x[i] * x[j] for i in range(n) for j in range(n) if i != solved and j != solved), Fraction(0))
            for root in _rational_roots(a, b, c):
                p = tuple(root if v is None else v for v in x)
                gradient = [2 * sum((matrix[i][j] * p[j] for j in range(n)), Fraction(0)) + linear[i] for i in range(n)]
                if any(gradient):
                    return p
    return None


def _rational_roots(a: Fraction, b: Fraction, c: Fraction) -> list[Fraction]:
    if a == 0:
        return [-c / b] if b else []
    disc = b * b - 4 * a * c
    if disc < 0:
        return []
    num, den = disc.numerator, disc.denominator
    rn, rd = _isqrt(num), _isqrt(den)
    if rn is None or rd is None:
        return []
    root = Fraction(rn, rd)
    return sorted({(-b + root) / (2 * a), (-b - root) / (2 * a)}, key=lambda v: (abs(v.numerator) + v.denominator, v))


def _isqrt(k: int) -> int | None:
    r = math.isqrt(k)
    return r if r * r == k else None


# ----------------------------------------------------------------------------------- factory
def Quadric(name: str, size: int, matrix, linear=None, constant=0, point=None, text: str = "", description: str = "") -> Variable:
    """A point of the quadric ``x^T A x + b.x + c = 0`` in R^size (``matrix`` A symmetric, ``linear`` b,
    ``constant`` c, exact numbers), through the smooth rational ``point`` (found when not given)."""
    require_identifier(name)
    owner = f"Quadric {name}"
    if not isinstance(size, int) or isinstance(size, bool) or size < 2:
        raise ClaimDefinitionError(f"{owner}: size must be a fixed int >= 2, got {size!r}")
    try:
        a = tuple(tuple(exact_decimal(v) for v in row) for row in matrix)
        b = tuple(exact_decimal(v) for v in (linear if linear is not None else [0] * size))
        c = exact_decimal(constant)
    except (TypeError, ValueError) as exc:
        raise ClaimDefinitionError(f"{owner}: the coefficients must be exact numbers ({exc})") from None
    if len(a) != size or any(len(row) != size for row in a) or len(b) != size:
        raise ClaimDefinitionError(f"{owner}: matrix must be {size} x {size} and linear of {size} entries")
    if any(a[i][j] != a[j][i] for i in range(size) for j in range(size)):
        raise ClaimDefinitionError(f"{owner}: matrix must be symmetric")
    if not any(any(row) for row in a):
        raise ClaimDefinitionError(f"{owner}: matrix is 0: the set is a hyperplane, not a quadric")
    if point is None:
        point = rational_point(a, b, c)
        if point is None:
            raise ClaimDefinitionError(f"{owner}: no rational point of small height found on {text or 'the quadric'}; "
                                       "give one (point=...), or it may have none (x^2 + y^2 = 3 has none): no point of it could be certified")
    p = tuple(exact_decimal(v) for v in point)
    dom = QuadricSet(a, b, c, p, text)
    if len(p) != size or not dom.contains(np.array([q(v) for v in p], dtype=object)):
        raise ClaimDefinitionError(f"{owner}: point {point!r} is not on the quadric")
    if not any(dom._gradient_at_point()):
        raise ClaimDefinitionError(f"{owner}: point {point!r} is singular (the gradient vanishes there): lines through it do not chart the quadric")
    return Variable(name, (size,), domain=dom, description=description)


__all__ = ["Quadric", "QuadricSet", "QuadricMap", "QUADRIC_PATTERNS", "rational_point"]
