"""Charts of the sets a branch and bound ranges over that are not boxes.

Each set is covered by a few *pieces*, each a rational map from the box ``[-1, 1]^m`` into
the set; together they reach every point of it (they may overlap: a proof needs a cover, not
a partition).  The maps are rational, so a rational parameter gives an exact rational point
on the set -- a box's centre can be certified as it is -- and they are written once against
``ctx``: the same map runs on Jets (enclosures), sympy (faces) and exact rationals.

* unit vector, max norm: the 2n faces of the cube, ``v_k = +-1`` and the other entries free;
* unit vector, l1 norm: the same faces pushed radially onto the cross-polytope,
  ``u = v / sum |v_i|`` (a bijection from the cube's surface);
* unit vector, Euclidean norm: inverse stereographic projection from either pole,
  ``u = (2t, +-(1 - |t|^2)) / (1 + |t|^2)`` for ``t`` in ``[-1, 1]^(n-1)``: each chart
  covers a closed hemisphere (``|t| <= 1``), the box a little more;
* a sphere ``|x|^2 = r^2`` of rational radius squared (``Sphere``): stereographic projection
  from a rational point ``p`` of it and from ``-p`` onto the hyperplane through 0 orthogonal
  to ``p``, ``x = (P (|t|^2 - r^2) + 2 r^2 t) / (|t|^2 + r^2)`` for the pole ``P = +-p``; ``t``
  has the free coordinates ``t_i = c u_i`` (``i != j``, ``u`` in ``[-1, 1]^(n-1)``, ``c`` a
  rational >= r) and ``t_j`` fixed by ``p.t = 0``.  The chart from ``P`` covers the closed
  hemisphere ``P.x <= 0`` (where ``|t| <= r``, and ``|t_i| <= |t|``), so the two cover the
  sphere, each with a rational map: a rational ``u`` gives an exact rational point;
* orthogonal matrices, n = 2: rotations and reflections by the point ``(c, s)`` of the
  circle from the two stereographic charts (4 pieces);
* orthogonal matrices, n = 3: the rotation of a unit quaternion with ``q_0 >= 0`` (one
  stereographic chart of the 3-sphere; ``q`` and ``-q`` give the same rotation), and its
  negative, which has determinant -1 (2 pieces);
* n = 1: the points +-1 (2 pieces, no parameter).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

from ..domains import sqrt_upper

#: orthogonal matrices are charted up to this size
MAX_ORTHOGONAL = 3


class NoChart(ValueError):
    """The set has no chart here (names why)."""


@dataclass(frozen=True)
class ChartAtlas:
    parameters: int  # m: each piece maps [-1, 1]^m into the set
    pieces: int
    point: Callable[[Any, list, int], Any]  # (ctx, parameters, piece) -> nested list of entries


def chart_atlas(var, shape) -> ChartAtlas:
    kind = var.domain.kind
    if kind == "unit-vector":
        (n,) = shape
        norm = var.domain.norm
        if n == 1:
            return ChartAtlas(0, 2, lambda ctx, t, k: [_sign(ctx, k)])
        if norm == "2":
            return ChartAtlas(n - 1, 2, lambda ctx, t, k: _stereographic(ctx, t, k))
        return ChartAtlas(n - 1, 2 * n, lambda ctx, t, k: _cube_face(ctx, t, k, radial=norm == "1"))
    if kind == "sphere":
        (n,) = shape
        p = var.domain.rational_point(n)
        if n == 1:
            return ChartAtlas(0, 2, lambda ctx, t, k: [_sign(ctx, k) * ctx.scalar(p[0])])
        return ChartAtlas(n - 1, 2, lambda ctx, t, k: _sphere_from_pole(ctx, t, k, p, var.domain.radius_squared))
    if kind == "orthogonal":
        n = shape[0]
        if n == 1:
            return ChartAtlas(0, 2, lambda ctx, t, k: [[_sign(ctx, k)]])
        if n == 2:
            return ChartAtlas(1, 4, _orthogonal_2)
        if n == 3:
            return ChartAtlas(3, 2, _orthogonal_3)
        raise NoChart(f"branch and bound charts orthogonal matrices up to n = {MAX_ORTHOGONAL} "
                      f"(quaternions), not n = {n}: prove {var.name} with --method smt")
    raise NoChart(f"no chart for the {kind} set of {var.name}")


def _sign(ctx, k):
    return ctx.scalar(Fraction(1 if k % 2 == 0 else -1))


def _cube_face(ctx, t, k, radial):
    """Face k of the cube [-1, 1]^n: entry k // 2 fixed at +-1; for the l1 sphere, pushed onto it."""
    axis = k // 2
    v = list(t[:axis]) + [_sign(ctx, k)] + list(t[axis:])
    if not radial:
        return v
    total = abs(v[0])
    for x in v[1:]:
        total = total + abs(x)
    return [x / total for x in v]


def _stereographic(ctx, t, k):
    """The point of the unit sphere with stereographic coordinates t, from the pole k picks."""
    square = t[0] * t[0]
    for x in t[1:]:
        square = square + x * x
    denominator = 1 + square
    return [2 * x / denominator for x in t] + [_sign(ctx, k) * (1 - square) / denominator]


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
    pole = [_sign(ctx, k) * ctx.scalar(x) for x in p]
    return [(pole[i] * (square - radius2) + 2 * radius2 * t[i]) / denominator for i in range(n)]


def _orthogonal_2(ctx, t, k):
    c, s = _stereographic(ctx, t, k % 2)[::-1]
    if k < 2:
        return [[c, -s], [s, c]]
    return [[c, s], [s, -c]]


def _orthogonal_3(ctx, t, k):
    """The rotation of the unit quaternion (q_0 >= 0 chart), negated for piece 1."""
    q1, q2, q3, q0 = _stereographic(ctx, t, 0)
    rows = [
        [1 - 2 * (q2 * q2 + q3 * q3), 2 * (q1 * q2 - q0 * q3), 2 * (q1 * q3 + q0 * q2)],
        [2 * (q1 * q2 + q0 * q3), 1 - 2 * (q1 * q1 + q3 * q3), 2 * (q2 * q3 - q0 * q1)],
        [2 * (q1 * q3 - q0 * q2), 2 * (q2 * q3 + q0 * q1), 1 - 2 * (q1 * q1 + q2 * q2)],
    ]
    if k == 0:
        return rows
    return [[-x for x in row] for row in rows]


__all__ = ["ChartAtlas", "NoChart", "chart_atlas", "MAX_ORTHOGONAL"]
