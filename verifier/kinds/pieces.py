"""A finite union of pieces: points, segments, triangles, ... -- simplices with rational vertices.

The solution set of a piecewise-linear condition (``|x + y| + |x - y| = 2``: the boundary of
a square, four segments) is such a union, and so is any bounded polyhedral set once it is cut
into simplices.  A piece is the convex hull of k + 1 affinely independent rational vertices in
R^n (k <= n); its points are ``sum_i w_i v_i`` with weights on the simplex, exact for exact
weights.  Membership: some piece holds the point, read from its barycentric coordinates (an
affine map of the point, exact), so the hypothesis is piecewise linear in every context.

Samples: a piece chosen uniformly, then the simplex's own patterns on the weights (vertices,
edges, faces and their centroids, softmax, sparse Dirichlet, simple weights): heavy on every
piece's ends.  Onto the set: the nearest piece's clipped barycentric weights, exactly; the
weights are the chart, so a near-tie rounds to simple points of a piece.  Proofs: the piece is
a coordinate of its own, the weights come from stick breaking over ``[0, 1]^k`` (branch and
bound); SMT states the union by its membership (piecewise linear: If terms).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from flint import fmpq, fmpq_mat

from ..claims import ClaimDefinitionError, Hypothesis, Variable
from ..contexts import exact_decimal
from .base import SHARE, Chart, Coordinate, Kind, ProofMap, box_constraints, exact_point, hypothesis_texts, q, require_dim, require_identifier
from .simplex import SIMPLEX_PATTERNS, simplex_rows, stick_breaking


@dataclass(frozen=True)
class Piece:
    """The convex hull of affinely independent rational vertices (a point, a segment, a triangle, ...)."""

    vertices: tuple[tuple[Fraction, ...], ...]

    @property
    def dimension(self) -> int:
        return len(self.vertices) - 1

    @functools.cached_property
    def float_vertices(self) -> np.ndarray:
        return np.array([[float(c) for c in v] for v in self.vertices])

    @functools.cached_property
    def _affine(self):
        """(rows I, A, b, rest J, B, c) in Fractions: the weights of v_1..v_k are ``A x_I + b``, and
        ``x_J = B x_I + c`` on the piece's affine hull."""
        v0 = self.vertices[0]
        n, k = len(v0), self.dimension
        if k == 0:
            return (), [], [], tuple(range(n)), [[] for _ in range(n)], list(v0)
        edges = fmpq_mat(n, k, [q(self.vertices[j + 1][i] - v0[i]) for i in range(n) for j in range(k)])
        rows = _independent_rows(edges, k)
        inverse = fmpq_mat(k, k, [edges[i, j] for i in rows for j in range(k)]).inv()
        rest = tuple(i for i in range(n) if i not in rows)
        a = [[_fraction(inverse[r, s]) for s in range(k)] for r in range(k)]
        b = [-sum((a[r][s] * v0[rows[s]] for s in range(k)), Fraction(0)) for r in range(k)]
        e = [[_fraction(edges[i, t]) for t in range(k)] for i in range(n)]
        big_b = [[sum((e[j][t] * a[t][s] for t in range(k)), Fraction(0)) for s in range(k)] for j in rest]
        c = [v0[j] + sum((e[j][t] * b[t] for t in range(k)), Fraction(0)) for j in rest]
        return rows, a, b, rest, big_b, c

    def weights(self, x, number=None) -> tuple[list, list]:
        """(the k + 1 barycentric weights, the residuals of the other coordinates) of a point ``x``
        (a list of its entries: exact rationals, or a context's entries of a batch); ``number``
        makes a coefficient a number of ``x``'s kind (``ctx.const``; exact rationals by default)."""
        number = number or q
        rows, a, b, rest, big_b, c = self._affine
        xs = [x[i] for i in rows]
        tail = [_affine_form(a[r], xs, b[r], number) for r in range(len(rows))]
        head = number(Fraction(1))
        for t in tail:
            head = head - t
        residuals = [x[j] - _affine_form(big_b[m], xs, c[m], number) for m, j in enumerate(rest)]
        return [head] + tail, residuals

    def contains(self, point) -> bool:
        w, res = self.weights([q(v) for v in point])
        return all(v >= 0 for v in w) and all(r == 0 for r in res)

    def point(self, weights) -> np.ndarray:
        """``sum w_i v_i / sum w_i`` for exact weights (negative ones cut to 0): a point of the piece."""
        w = [v if v > 0 else fmpq(0) for v in weights]
        total = sum(w, fmpq(0))
        if total == 0:
            w, total = [fmpq(1)] + [fmpq(0)] * self.dimension, fmpq(1)
        out = np.empty(len(self.vertices[0]), dtype=object)
        out[:] = [sum((wi * q(v[i]) for wi, v in zip(w, self.vertices)), fmpq(0)) / total for i in range(len(out))]
        return out

    def nearest(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Float weights of a batch of points (least squares, clipped, normalised) and the distance to them."""
        v = self.float_vertices
        if self.dimension == 0:
            return np.ones((len(x), 1)), np.linalg.norm(x - v[0], axis=1)
        edges = (v[1:] - v[0]).T  # n x k
        tail, *_ = np.linalg.lstsq(edges, (x - v[0]).T, rcond=None)
        w = np.concatenate([1 - tail.sum(axis=0, keepdims=True), tail]).T
        w = np.clip(w, 0, None)
        w /= np.where(w.sum(axis=1, keepdims=True) > 0, w.sum(axis=1, keepdims=True), 1)
        return w, np.linalg.norm(w @ v - x, axis=1)

    def margin(self, ctx, x):
        """>= 0 exactly on the piece: the least weight, and minus each residual's size (x: batch first)."""
        w, res = self.weights([x[:, i] for i in range(np.shape(x)[1])], ctx.const)
        terms = w + [-ctx.abs(r) for r in res]
        out = terms[0]
        for t in terms[1:]:
            out = ctx.minimum(out, t)
        return out


def _fraction(x: fmpq) -> Fraction:
    return Fraction(int(x.p), int(x.q))


def _affine_form(coefficients, xs, constant, number):
    """``sum c_s x_s + constant`` with the coefficients as ``number`` s (zero ones left out)."""
    out = number(constant)
    for coef, x in zip(coefficients, xs):
        if coef:
            out = out + number(coef) * x
    return out


def _independent_rows(m: fmpq_mat, k: int) -> tuple[int, ...]:
    """k rows of an n x k matrix of rank k that are independent (the first such, greedily)."""
    rows: list[int] = []
    for i in range(m.nrows()):
        trial = rows + [i]
        if fmpq_mat(len(trial), k, [m[r, j] for r in trial for j in range(k)]).rank() == len(trial):
            rows = trial
            if len(rows) == k:
                return tuple(rows)
    raise ValueError("the vertices of a piece are not affinely independent")


@dataclass(frozen=True)
class PiecesSet(Kind):
    """A finite union of :class:`Piece` s in R^n; ``text`` names it (the condition it solves)."""

    name = "pieces"
    pieces: tuple[Piece, ...] = ()
    text: str = ""

    def hypotheses(self, var):
        def inside(ctx, v, n=var.name):
            x = v[n]
            out = self.pieces[0].margin(ctx, x)
            for piece in self.pieces[1:]:
                out = ctx.maximum(out, piece.margin(ctx, x))
            return out

        what = f" ({self.text})" if self.text else ""
        return [Hypothesis(f"{var.name} on one of its {len(self.pieces)} pieces{what}", inside)]

    def describe(self):
        return [f"pieces={len(self.pieces)}"] + ([f"of {self.text}"] if self.text else [])

    def entry_bounds(self):
        vertices = [c for p in self.pieces for v in p.vertices for c in v]
        return min(vertices), max(vertices)

    def contains(self, point):
        return any(p.contains(point) for p in self.pieces)

    def _nearest(self, x):
        """Per row of a float batch: the nearest piece and its weights there."""
        best, weights, which = None, [None] * len(x), np.zeros(len(x), dtype=int)
        for k, piece in enumerate(self.pieces):
            w, d = piece.nearest(x)
            closer = d < best if best is not None else np.ones(len(x), bool)
            best = np.where(closer, d, best) if best is not None else d
            which = np.where(closer, k, which)
            for i in np.nonzero(closer)[0]:
                weights[i] = w[i]
        return which, weights

    def onto_set(self, x):
        x = np.where(np.isfinite(x), x, 0.0)
        which, weights = self._nearest(x)
        return np.array([w @ self.pieces[k].float_vertices for k, w in zip(which, weights)])

    def onto_set_exact(self, point):
        if self.contains(point):
            return point
        chart = self.chart(point)
        return chart.point(chart.params)

    def chart(self, point):
        exact = exact_point(point)
        for piece in self.pieces:
            if piece.contains(exact):
                w, _ = piece.weights(list(exact))
                return Chart(np.array(w, dtype=object), piece.point)
        which, weights = self._nearest(np.array([[float(v) for v in exact]]))
        piece = self.pieces[int(which[0])]
        return Chart(exact_point(weights[0]), piece.point)

    # -- samples ----------------------------------------------------------------------------
    def patterns(self, var):
        return SIMPLEX_PATTERNS

    def draw(self, pattern, rng, m, shape, var):
        which = rng.integers(0, len(self.pieces), m)
        out = np.empty((m, shape[-1]))
        for k, piece in enumerate(self.pieces):
            at = np.nonzero(which == k)[0]
            if len(at):
                out[at] = simplex_rows(pattern, rng, len(at), piece.dimension + 1) @ piece.float_vertices
        return out

    def on_boundary(self, var, flat):
        which, weights = self._nearest(flat)
        return np.array([np.any(np.isclose(w, 0, atol=1e-12)) or len(w) == 1 for w in weights])

    # -- proofs -----------------------------------------------------------------------------
    def proof_map(self, var, shape, box, request):
        # SMT states the union by its membership, piecewise linear (If terms): no case split per piece
        return None if request.smt else PiecesMap(var, shape, box)


class PiecesMap(ProofMap):
    """Which piece (a coordinate of its own) and its weights, by stick breaking over [0, 1]^k:
    every image on the set, every vertex and edge of a piece a face of the box."""

    def __init__(self, var, shape, box):
        super().__init__(var, shape)
        dom = var.domain
        self.size = max(p.dimension for p in dom.pieces)
        self.pieces = len(dom.pieces)
        self.built_in = hypothesis_texts(dom.hypotheses(var))
        self.constraints = box_constraints(var, box, dom.entry_bounds())

    def coordinates(self):
        return [(Coordinate(self.var.name, (i,), False, "chart"), SHARE) for i in range(self.size)]

    def value(self, ctx, params, piece, data):
        p = self.var.domain.pieces[piece]
        weights = stick_breaking(ctx, list(params[:p.dimension]))
        arr = np.empty((1,) + self.shape, dtype=object)
        for i in range(self.shape[0]):
            total = None
            for w, v in zip(weights, p.vertices):
                term = w * ctx.scalar(v[i]) if v[i] != 0 else None
                if term is not None:
                    total = term if total is None else total + term
            arr[0, i] = total if total is not None else ctx.scalar(Fraction(0))
        return arr


# ----------------------------------------------------------------------------------- factory
def Pieces(name: str, size: int, pieces, text: str = "", description: str = "") -> Variable:
    """A point of a finite union of simplices: ``pieces`` is a list of pieces, each the list of
    its vertices (1 for a point, 2 for a segment, 3 for a triangle, ... affinely independent),
    each vertex ``size`` exact numbers (``(1, "1/2")``).  ``text`` names the set in messages."""
    require_identifier(name)
    owner = f"Pieces {name}"
    require_dim(owner, "size", size)
    if not isinstance(size, int):
        raise ClaimDefinitionError(f"{owner}: size must be a fixed int (the pieces' vertices have that many entries), got {size!r}")
    out = []
    for k, vertices in enumerate(pieces):
        try:
            vertices = tuple(tuple(exact_decimal(c) for c in v) for v in vertices)
        except (TypeError, ValueError) as exc:
            raise ClaimDefinitionError(f"{owner}: piece {k + 1}: vertices must hold exact numbers ({exc})") from None
        if not vertices or any(len(v) != size for v in vertices):
            raise ClaimDefinitionError(f"{owner}: piece {k + 1} must list vertices of {size} entries each, got {vertices!r}")
        piece = Piece(vertices)
        try:
            piece._affine  # noqa: B018 - computed once, and the check that the vertices span a simplex
        except ValueError:
            raise ClaimDefinitionError(f"{owner}: piece {k + 1}: its vertices are not affinely independent (cut the piece into simplices)") from None
        out.append(piece)
    if not out:
        raise ClaimDefinitionError(f"{owner}: needs at least one piece")
    return Variable(name, (size,), domain=PiecesSet(tuple(out), text), description=description)


__all__ = ["Pieces", "PiecesSet", "Piece", "PiecesMap"]
