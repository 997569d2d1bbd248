"""Piecewise-linear equalities solved exactly: the solution set as boxes or a union of simplices.

``|x - 1| + |x| + |x + 1| = x + 2`` is ``x in [0, 1]``; ``|x + y| + |x - y| = 2`` is the boundary of
a square, four segments.  A condition built from rational affine forms with ``+``, rational
multiples, ``|.|``, ``max`` and ``min`` is affine on each cell of the arrangement of its kinks;
on a cell its zero set is the whole cell, nothing, or the cell cut by a hyperplane.  So:

1. *cells*: each ``|a|``, ``max(a, b)``, ``min(a, b)`` splits the cell it is met in by the sign
   of ``a`` (of ``a - b``), innermost first, keeping only cells a linear program finds feasible
   (relaxed by 1e-7, so rounding never drops a cell: an empty one is dropped later, exactly);
2. *pieces*: on each cell, inside the box of the declared bounds, the zero set is a polytope,
   whose vertices are enumerated exactly (every choice of active constraints, solved in
   rationals, kept where every constraint holds exactly);
3. *simplest form*: pieces inside others dropped, collinear segments that meet joined, and
   each piece cut into simplices (a segment is one; a polygon a fan of triangles).

Nothing is rounded: every vertex is the exact solution of a rational linear system, and a
point of a piece satisfies the condition exactly (checked on every piece's vertices and
centroid before it is returned).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import sympy
from flint import fmpq, fmpq_mat
from scipy.optimize import linprog
from scipy.spatial import Delaunay

from ..errors import VerifierError

#: largest number of variables in one piecewise-linear condition (vertex enumeration is combinatorial)
MAX_VARIABLES = 4
#: largest number of cells of the arrangement examined
MAX_CELLS = 4096

Affine = tuple[tuple[Fraction, ...], Fraction]  # (coefficients per variable, constant)


class NotPiecewiseLinear(VerifierError, ValueError):
    """The condition is not built from rational affine forms by + - * (a constant) |.| max min."""


@dataclass(frozen=True)
class ConvexPiece:
    """A polytope of the solution set: its vertices, and the constraints that cut it out."""

    vertices: tuple[tuple[Fraction, ...], ...]
    inequalities: tuple[Affine, ...]  # each >= 0
    equalities: tuple[Affine, ...]  # each == 0

    @property
    def dimension(self) -> int:
        return _rank([tuple(c - o for c, o in zip(v, self.vertices[0])) for v in self.vertices[1:]])

    def holds(self, point) -> bool:
        return all(_value(a, point) >= 0 for a in self.inequalities) and all(_value(a, point) == 0 for a in self.equalities)

    def is_box(self) -> bool:
        """An axis-aligned box (some coordinates fixed): every corner of its bounding box is a vertex."""
        lo = [min(v[i] for v in self.vertices) for i in range(len(self.vertices[0]))]
        hi = [max(v[i] for v in self.vertices) for i in range(len(self.vertices[0]))]
        corners = set(itertools.product(*[(a,) if a == b else (a, b) for a, b in zip(lo, hi)]))
        return corners == set(self.vertices)

    def bounds(self) -> list[tuple[Fraction, Fraction]]:
        return [(min(v[i] for v in self.vertices), max(v[i] for v in self.vertices)) for i in range(len(self.vertices[0]))]


# --------------------------------------------------------------------------- affine forms
def _rational(c) -> Fraction:
    c = sympy.sympify(c)
    if not c.is_Rational:
        raise NotPiecewiseLinear(f"{c} is not a rational number")
    return Fraction(int(c.p), int(c.q))


def _add(a: Affine, b: Affine) -> Affine:
    return tuple(x + y for x, y in zip(a[0], b[0])), a[1] + b[1]


def _scale(a: Affine, s: Fraction) -> Affine:
    return tuple(x * s for x in a[0]), a[1] * s


def _value(a: Affine, point) -> Fraction:
    return sum((c * x for c, x in zip(a[0], point)), Fraction(0)) + a[1]


def _is_zero(a: Affine) -> bool:
    return not any(a[0]) and a[1] == 0


# ---------------------------------------------------------------------------------- cells
def cells(expr, symbols, box) -> list[tuple[tuple[Affine, ...], Affine]]:
    """Every (cell, affine form of ``expr`` on it): cells are lists of affine forms >= 0 (and the box)."""
    out = _pieces(sympy.sympify(expr), list(symbols), (), box)
    return out


def _pieces(expr, symbols, cell, box):
    n = len(symbols)
    if expr.is_Number:
        return [(cell, ((Fraction(0),) * n, _rational(expr)))]
    if expr.is_Symbol:
        if expr not in symbols:
            raise NotPiecewiseLinear(f"{expr} is not a variable of the condition")
        return [(cell, (tuple(Fraction(int(s == expr)) for s in symbols), Fraction(0)))]
    if expr.is_Add:
        out = [(cell, ((Fraction(0),) * n, Fraction(0)))]
        for arg in expr.args:
            out = [(c2, _add(acc, aff)) for c1, acc in out for c2, aff in _pieces(arg, symbols, c1, box)]
            _check_size(out)
        return out
    if expr.is_Mul:
        constant = sympy.Integer(1)
        rest = []
        for arg in expr.args:
            if arg.is_number:
                constant *= arg
            else:
                rest.append(arg)
        if len(rest) != 1:
            raise NotPiecewiseLinear(f"{expr} multiplies variables")
        s = _rational(constant)
        return [(c, _scale(aff, s)) for c, aff in _pieces(rest[0], symbols, cell, box)]
    if isinstance(expr, sympy.Abs):
        out = []
        for c1, aff in _pieces(expr.args[0], symbols, cell, box):
            for sign in (1, -1):
                side = _scale(aff, Fraction(sign))
                c2 = c1 + (side,)
                if _feasible(c2, box):
                    out.append((c2, side))
        return out
    if isinstance(expr, (sympy.Max, sympy.Min)):
        larger = isinstance(expr, sympy.Max)
        first, *others = expr.args
        out = _pieces(first, symbols, cell, box)
        for arg in others:
            nxt = []
            for c1, a in out:
                for c2, b in _pieces(arg, symbols, c1, box):
                    diff = _add(a, _scale(b, Fraction(-1)))  # a - b
                    for keep_a in (True, False):
                        side = diff if keep_a == larger else _scale(diff, Fraction(-1))
                        c3 = c2 + (side,)
                        if _feasible(c3, box):
                            nxt.append((c3, a if keep_a else b))
            out = nxt
            _check_size(out)
        return out
    if expr.is_Pow and expr.exp == 1:
        return _pieces(expr.base, symbols, cell, box)
    raise NotPiecewiseLinear(f"{expr} is not piecewise linear (+, a rational multiple, |.|, max and min of affine forms)")


def _check_size(out):
    if len(out) > MAX_CELLS:
        raise NotPiecewiseLinear(f"more than {MAX_CELLS} cells: too many kinks to solve exactly")


def _feasible(cell, box) -> bool:
    """False only where the cell (and the box) certainly has no point: the LP is relaxed by 1e-7
    per constraint, so rounding never drops a cell that has one."""
    n = len(box)
    if not cell:
        return True
    a = np.array([[-float(c) for c in aff[0]] for aff in cell])
    b = np.array([float(aff[1]) + 1e-7 * (1 + sum(abs(float(c)) for c in aff[0])) for aff in cell])
    bounds = [(float(lo) - 1e-7, float(hi) + 1e-7) for lo, hi in box]
    res = linprog(np.zeros(n), A_ub=a, b_ub=b, bounds=bounds, method="highs")
    return res.status != 2  # 2: infeasible


# ------------------------------------------------------------------------------- vertices
def _rank(rows) -> int:
    rows = [r for r in rows]
    if not rows:
        return 0
    return fmpq_mat(len(rows), len(rows[0]), [fmpq(x.numerator, x.denominator) for r in rows for x in r]).rank()


def _solve(rows: list[Affine]) -> tuple[Fraction, ...] | None:
    """The point where every affine form vanishes, if the square system is nonsingular."""
    n = len(rows[0][0])
    m = fmpq_mat(n, n, [fmpq(c.numerator, c.denominator) for r in rows for c in r[0]])
    if m.rank() < n:
        return None
    rhs = fmpq_mat(n, 1, [fmpq(-r[1].numerator, r[1].denominator) for r in rows])
    x = m.solve(rhs)
    return tuple(Fraction(int(x[i, 0].p), int(x[i, 0].q)) for i in range(n))


def polytope(inequalities: tuple[Affine, ...], equalities: tuple[Affine, ...], n: int) -> ConvexPiece | None:
    """The polytope ``{x : ineq >= 0, eq == 0}`` (bounded: the box is among the inequalities) by its
    exact vertices, or None when it is empty."""
    if equalities and _rank([e[0] for e in equalities]) < len(equalities):
        equalities = _independent(equalities)
    need = n - len(equalities)
    found = set()
    for chosen in itertools.combinations(range(len(inequalities)), need):
        point = _solve(list(equalities) + [inequalities[i] for i in chosen])
        if point is None or point in found:
            continue
        if all(_value(a, point) >= 0 for a in inequalities) and all(_value(e, point) == 0 for e in equalities):
            found.add(point)
    if not found:
        return None
    return ConvexPiece(tuple(sorted(found)), tuple(inequalities), tuple(equalities))


def _independent(equalities):
    out = []
    for e in equalities:
        if _rank([x[0] for x in out + [e]]) == len(out) + 1:
            out.append(e)
    return tuple(out)


# ----------------------------------------------------------------------------- the solver
def solve_piecewise_linear(expr, symbols, box) -> list[ConvexPiece]:
    """The exact solution set of ``expr == 0`` inside ``box`` (``[(lo, hi)]`` per symbol), as
    convex pieces, none inside another, collinear segments that meet joined."""
    n = len(symbols)
    if n > MAX_VARIABLES:
        raise NotPiecewiseLinear(f"{n} variables: piecewise-linear conditions are solved in up to {MAX_VARIABLES}")
    walls = tuple(((tuple(Fraction(int(i == k)) for i in range(n)), -lo)) for k, (lo, _) in enumerate(box)) + \
        tuple(((tuple(Fraction(-int(i == k)) for i in range(n)), hi)) for k, (_, hi) in enumerate(box))
    pieces = []
    for cell, aff in cells(expr, symbols, box):
        if not any(aff[0]) and aff[1] != 0:
            continue
        equalities = () if _is_zero(aff) else (aff,)
        piece = polytope(tuple(dict.fromkeys(cell + walls)), equalities, n)
        if piece is not None:
            pieces.append(piece)
    return _simplest(pieces)


def _simplest(pieces: list[ConvexPiece]) -> list[ConvexPiece]:
    """Drop pieces inside others (the larger kept), join collinear segments that meet."""
    pieces = sorted(pieces, key=lambda p: (-p.dimension, -len(p.vertices), p.vertices))
    kept: list[ConvexPiece] = []
    for p in pieces:
        if not any(all(k.holds(v) for v in p.vertices) for k in kept):
            kept.append(p)
    changed = True
    while changed:
        changed = False
        for a, b in itertools.combinations(kept, 2):
            joined = _joined_segments(a, b)
            if joined is not None:
                kept = [p for p in kept if p is not a and p is not b] + [joined]
                kept = [p for p in kept if p is joined or not all(joined.holds(v) for v in p.vertices)]
                changed = True
                break
    return sorted(kept, key=lambda p: p.vertices)


def _joined_segments(a: ConvexPiece, b: ConvexPiece) -> ConvexPiece | None:
    """Two segments (or a segment and a point) on one line that overlap or touch: the segment they make."""
    if a.dimension != 1 or b.dimension > 1:
        return None
    if b.dimension == 0:
        return None
    p, q = a.vertices
    direction = tuple(y - x for x, y in zip(p, q))
    points = list(a.vertices) + list(b.vertices)
    if _rank([tuple(c - o for c, o in zip(v, p)) for v in points[1:]]) != 1:
        return None
    axis = next(i for i, d in enumerate(direction) if d != 0)
    t = lambda v: (v[axis] - p[axis]) / direction[axis]  # noqa: E731
    ta = sorted(t(v) for v in a.vertices)
    tb = sorted(t(v) for v in b.vertices)
    if tb[0] > ta[1] or ta[0] > tb[1]:
        return None  # a gap between them
    ends = (min(points, key=t), max(points, key=t))
    # the joined segment is cut out by the line and its two ends: the equalities of a, and t in range
    line = _line_equalities(p, q)
    lo, hi = t(ends[0]), t(ends[1])
    forms = (_t_form(p, direction, axis, -lo), _scale(_t_form(p, direction, axis, -hi), Fraction(-1)))
    return ConvexPiece(tuple(sorted(ends)), forms, tuple(line))


def _t_form(p, direction, axis, shift) -> Affine:
    """The affine form ``t(x) + shift`` where ``t`` is the line's parameter read from coordinate ``axis``."""
    n = len(p)
    coeffs = tuple(Fraction(1) / direction[axis] if i == axis else Fraction(0) for i in range(n))
    return coeffs, -p[axis] / direction[axis] + shift


def _line_equalities(p, q) -> tuple[Affine, ...]:
    """n - 1 affine forms vanishing exactly on the line through p and q."""
    n = len(p)
    d = [y - x for x, y in zip(p, q)]
    axis = next(i for i, v in enumerate(d) if v != 0)
    out = []
    for j in range(n):
        if j == axis:
            continue
        # d_axis (x_j - p_j) - d_j (x_axis - p_axis) = 0
        coeffs = tuple(d[axis] if i == j else -d[j] if i == axis else Fraction(0) for i in range(n))
        out.append((coeffs, -d[axis] * p[j] + d[j] * p[axis]))
    return tuple(out)


# --------------------------------------------------------------------------------- simplices
def simplices(piece: ConvexPiece) -> list[tuple[tuple[Fraction, ...], ...]]:
    """The piece cut into simplices (exact vertices): a point or a segment as it is, a polygon
    into a fan of triangles, higher dimensions by Delaunay's triangulation of its vertices."""
    vertices = list(piece.vertices)
    k = piece.dimension
    if k == 0:
        return [(vertices[0],)]
    if k == 1:
        p = vertices[0]
        d = next(tuple(c - o for c, o in zip(v, p)) for v in vertices[1:] if v != p)
        axis = next(i for i, v in enumerate(d) if v != 0)
        ends = sorted(vertices, key=lambda v: v[axis] * (1 if d[axis] > 0 else -1))
        return [(ends[0], ends[-1])]
    coords = _chart(vertices, k)
    if k == 2:
        centre = coords.mean(axis=0)
        order = np.argsort(np.arctan2(coords[:, 1] - centre[1], coords[:, 0] - centre[0]), kind="stable")
        ring = [vertices[i] for i in order]
        return [(ring[0], ring[i], ring[i + 1]) for i in range(1, len(ring) - 1)]
    out = []
    for simplex in Delaunay(coords).simplices:
        vs = [vertices[i] for i in simplex]
        if _rank([tuple(c - o for c, o in zip(v, vs[0])) for v in vs[1:]]) == k:
            out.append(tuple(vs))
    return out


def _chart(vertices, k) -> np.ndarray:
    """Float coordinates of the vertices in k of the axes where the piece is not flat (for ordering only)."""
    base = vertices[0]
    diffs = [[float(c - o) for c, o in zip(v, base)] for v in vertices]
    axes: list[int] = []
    for i in range(len(base)):
        trial = axes + [i]
        if np.linalg.matrix_rank(np.array([[row[j] for j in trial] for row in diffs])) == len(trial):
            axes = trial
        if len(axes) == k:
            break
    return np.array([[row[j] for j in axes] for row in diffs])


__all__ = ["NotPiecewiseLinear", "ConvexPiece", "solve_piecewise_linear", "simplices", "cells", "polytope", "MAX_VARIABLES"]
