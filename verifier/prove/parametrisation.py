"""How a proof sees its domain: coordinates, and one map from them onto every variable.

A prover ranges over *coordinates*, not over the variables: a box of them (branch and bound)
or one real symbol each (SMT).  Every variable is written through them by the map of its
kind, once against ``ctx``, so the same map gives Jets (enclosures over a box), z3 terms,
sympy expressions and exact rationals -- a box's centre or a solver's model becomes an
exact point *on* the set, which the certifier checks as it is.

======================================  ==========================================  =====================================
variable                                branch and bound: coordinates               SMT: coordinates
======================================  ==========================================  =====================================
plain                                   every entry, in its box                     every entry (a real symbol)
``b`` with ``||b - a||_inf <= eps``     ``u`` in [-1, 1] per entry, ``a + eps u``   every entry; the relation is a
                                                                                    (linear) hypothesis
``Derived``                             none: its definition                        none: its definition
``Simplex``, each ``Stochastic`` row    ``s`` in [0, 1]^(n-1), stick breaking       the first n - 1 entries; the last is
                                        ``p_k = s_k prod_{j<k} (1 - s_j)``          1 - the others; ``p_k >= 0`` each
``Ordered`` (``lo <= x <= hi``)         ``s`` in [0, 1]^n, ``x_n = lo + (hi-lo)     every entry; ``x_{k+1} - x_k >= 0``
                                        s_n``, ``x_k = lo + (x_{k+1} - lo) s_k``    each
``UnitVector``, ``Orthogonal`` n <= 3   the charts of :mod:`.charts`: parameters    the same charts, one solver call per
                                        in [-1, 1]^m and a piece                    choice of pieces
======================================  ==========================================  =====================================

A map makes some of the check's hypotheses true by construction (a row sums to exactly 1,
a derived variable equals its definition, a unit vector has norm 1): those are *built in*
and no prover evaluates them.  A membership equality is never certainly true of a box, so a
box that only meets the set could never be closed, and as an SMT constraint it leaves z3 to
rediscover the substitution (measured: ``a^3 + b^3 + c^3 + 6abc >= 1/4`` on the simplex, a
z3 timeout at 20 s with the membership equality, 0.01 s through the free coordinates).
What a map does not make true -- a derived variable's bounds, an author's hypothesis --
stays a hypothesis, and a map's own side conditions (the entries of an SMT simplex are
>= 0, one by one) are *constraints* every prover checks.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from ..claims import Check, Hypothesis, Variable, _domain_hypotheses
from .charts import NoChart, chart_atlas
from .domain import Bounds, Domain

UNIT = (Fraction(-1), Fraction(1))
SHARE = (Fraction(0), Fraction(1))
#: choices of chart pieces an SMT proof tries one call each; beyond, the charted sets are
#: stated by their membership equalities instead (a product of many spheres' pieces)
MAX_SMT_PIECES = 64


class BoundedDomainError(ValueError):
    """Branch and bound needs a finite box for every free variable."""


@dataclass(frozen=True)
class Coordinate:
    var: str
    index: tuple[int, ...]
    unit: bool  # a unit-box coordinate of a relation-bound variable
    role: str = "entry"  # entry | chart (a parameter of a set's map) | piece (which chart)

    @property
    def label(self) -> str:
        idx = ",".join(str(i + 1) for i in self.index)
        name = f"u[{self.var}]" if self.unit else f"{self.role}[{self.var}]" if self.role != "entry" else self.var
        return f"{name}_{idx}" if idx else name


@dataclass(frozen=True)
class Constraint:
    """A side condition of a map: every entry of ``terms(ctx, v)`` is >= 0 on the set."""

    text: str
    terms: Callable[[Any, Any], Any]


def _kind(var) -> str | None:
    return var.domain.kind if var.domain is not None else None


def _texts(hypotheses) -> frozenset[str]:
    return frozenset(h.text for h in hypotheses)


def _bound_texts(var: Variable) -> frozenset[str]:
    """The texts of a variable's own ``lo``/``hi`` hypotheses."""
    plain = dataclasses.replace(var, radius=None, near=None, lower=None, upper=None, domain=None)
    return _texts(_domain_hypotheses(plain))


#: the kinds proved through the rational charts of :mod:`.charts`
CHARTED = ("unit-vector", "sphere", "orthogonal")


# ------------------------------------------------------------------------------ the maps
class _Map:
    """How one variable is written through its coordinates (in declaration order)."""

    pieces = 1
    built_in: frozenset[str] = frozenset()
    constraints: tuple[Constraint, ...] = ()

    def __init__(self, var: Variable, shape: tuple[int, ...]):
        self.var, self.shape = var, shape

    def coordinates(self) -> list[tuple[Coordinate, Bounds | None]]:
        return []

    def value(self, ctx, params: list, piece: int, data: dict):
        raise NotImplementedError


class _Entries(_Map):
    """Every entry is a coordinate of its own."""

    def __init__(self, var, shape, span: Bounds | None, built_in=frozenset()):
        super().__init__(var, shape)
        self.span, self.built_in = span, built_in

    def coordinates(self):
        return [(Coordinate(self.var.name, idx, False), self.span) for idx in np.ndindex(*self.shape)]

    def value(self, ctx, params, piece, data):
        arr = np.empty((1,) + self.shape, dtype=object)
        for k, idx in enumerate(np.ndindex(*self.shape)):
            arr[(0,) + idx] = params[k]
        return arr


class _Relation(_Map):
    """``b = near + radius u`` with ``u`` in the unit box: every box lies inside the relation."""

    def __init__(self, var, shape):
        super().__init__(var, shape)
        self.built_in = _texts(_domain_hypotheses(dataclasses.replace(var, lo=None, hi=None, lower=None, upper=None, domain=None)))

    def coordinates(self):
        return [(Coordinate(self.var.name, idx, True), UNIT) for idx in np.ndindex(*self.shape)]

    def value(self, ctx, params, piece, data):
        var = self.var
        u = _Entries.value(self, ctx, params, piece, data)
        radius = np.asarray(data[var.radius])
        radius = radius.reshape(radius.shape + (1,) * len(self.shape))
        return (data[var.near] if var.near else 0) + radius * u


class _Derived(_Map):
    """Its definition, evaluated on the variables before it; its bounds stay hypotheses."""

    def __init__(self, var, shape, check: Check, dims):
        super().__init__(var, shape)
        self.check, self.dims = check, dims
        self.built_in = _texts(var.domain.hypotheses(var))

    def value(self, ctx, params, piece, data):
        with ctx.precision():
            value = self.var.domain.fn(ctx, self.check.values(data, self.dims))
        return np.asarray(value, dtype=object).reshape((1,) + self.shape)


class _SimplexRows(_Map):
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


class _StickBreaking(_SimplexRows):
    """Each row on the simplex from ``s`` in [0, 1]^(n-1): ``p_k = s_k prod_{j<k} (1 - s_j)``.

    Onto the simplex, every image on it (entries >= 0, the sum exactly 1 by telescoping),
    and a vertex or face of the simplex is a face of the box -- where the equality faces of a
    claim tight on the simplex's boundary are found and closed.
    """

    role, span = "chart", SHARE

    def __init__(self, var, shape, box: Bounds | None):
        super().__init__(var, shape)
        self.built_in = _texts(var.domain.hypotheses(var)) | _bound_texts(var)
        self.constraints = _box_constraints(var, box, var.domain.entry_bounds())

    def row(self, ctx, params):
        out, rest = [], 1
        for j, s in enumerate(params):
            out.append(rest * s if j else s)
            rest = rest * (1 - s)
        return _scaled(ctx, out + [rest], self.var.domain.total)


class _FreeSimplex(_SimplexRows):
    """SMT: the first n - 1 entries of a row are free, the last is 1 minus them; entries >= 0 one by one."""

    def __init__(self, var, shape, box: Bounds | None):
        super().__init__(var, shape)
        self.built_in = _texts(var.domain.hypotheses(var))
        self.span = box
        self.constraints = (Constraint(f"{var.name} \u2265 0 entrywise", lambda ctx, v, n=var.name: v[n]),) + _box_constraints(var, box, var.domain.entry_bounds())

    def row(self, ctx, params):
        total = self.var.domain.total
        rest = int(total) if total.denominator == 1 else ctx.scalar(total)
        for x in params:
            rest = rest - x
        return list(params) + [rest]


class _OrderedChart(_Map):
    """``x_n = lo + (hi - lo) s_n``, ``x_k = lo + (x_{k+1} - lo) s_k``: onto the ordered vectors in [lo, hi]."""

    def __init__(self, var, shape, box: Bounds):
        super().__init__(var, shape)
        self.lo, self.hi = box
        self.built_in = _texts(var.domain.hypotheses(var)) | _bound_texts(var)

    def coordinates(self):
        return [(Coordinate(self.var.name, (j,), False, "chart"), SHARE) for j in range(self.shape[0])]

    def value(self, ctx, params, piece, data):
        (n,) = self.shape
        lo, width = ctx.scalar(self.lo), ctx.scalar(self.hi - self.lo)
        arr = np.empty((1, n), dtype=object)
        above = None
        for j in reversed(range(n)):
            arr[0, j] = above = lo + width * params[j] if above is None else lo + (above - lo) * params[j]
        return arr


class _OrderedEntries(_Entries):
    """SMT: every entry a symbol, and ``x_{k+1} - x_k >= 0`` one by one (linear, without case splits)."""

    def __init__(self, var, shape, span):
        super().__init__(var, shape, span, _texts(var.domain.hypotheses(var)))
        self.constraints = (Constraint(f"{var.name} ordered", lambda ctx, v, n=var.name: v[n][..., 1:] - v[n][..., :-1]),)


class _Charted(_Map):
    """A sphere or the orthogonal group through the rational charts of :mod:`.charts`."""

    def __init__(self, var, shape, box: Bounds | None):
        super().__init__(var, shape)
        self.atlas = chart_atlas(var, shape)
        self.pieces = self.atlas.pieces
        self.built_in = _texts(var.domain.hypotheses(var))
        self.constraints = _box_constraints(var, box, var.domain.entry_bounds())

    def coordinates(self):
        return [(Coordinate(self.var.name, (i,), False, "chart"), UNIT) for i in range(self.atlas.parameters)]

    def value(self, ctx, params, piece, data):
        with ctx.precision():
            point = self.atlas.point(ctx, list(params), piece)
        return np.asarray(point, dtype=object).reshape((1,) + self.shape)


def _scaled(ctx, row: list, total: Fraction) -> list:
    """A row of shares summing to 1, scaled to sum to ``total`` (a simplex of another total)."""
    if total == 1:
        return row
    factor = int(total) if total.denominator == 1 else ctx.scalar(total)
    return [x * factor for x in row]


def _box_constraints(var: Variable, box: Bounds | None, natural: Bounds) -> tuple[Constraint, ...]:
    """A --box narrower than the set's own range: its ends become constraints on the entries."""
    out = []
    if box is not None and box[0] > natural[0]:
        out.append(Constraint(f"{var.name} \u2265 {box[0]}", lambda ctx, v, n=var.name, lo=box[0]: v[n] - ctx.const(lo)))
    if box is not None and box[1] < natural[1]:
        out.append(Constraint(f"{var.name} \u2264 {box[1]}", lambda ctx, v, n=var.name, hi=box[1]: ctx.const(hi) - v[n]))
    return tuple(out)


# -------------------------------------------------------------------------- the domain
class Parametrisation:
    """The coordinates of a domain and the map from them onto every variable, for one prover.

    ``smt`` picks the SMT maps (linear where the set allows it: symbols, free simplex
    entries); otherwise branch and bound's (every coordinate in a bounded span, every image
    on the set).  ``charts=False`` states spheres and orthogonal matrices by their membership
    equalities instead of their charts (an SMT proof with too many choices of pieces).
    """

    def __init__(self, check: Check, domain: Domain, smt: bool = False, charts: bool = True):
        self.check, self.domain, self.smt = check, domain, smt
        self.maps: list[_Map] = [self._map(var, charts) for var in check.variables]
        self.coords: list[Coordinate] = []
        self.spans: list[Bounds | None] = []
        #: how many coordinates each map reads, in order (a piece coordinate not counted)
        self.counts: list[int] = []
        for m in self.maps:
            own = m.coordinates()
            self.counts.append(len(own))
            for coord, span in own:
                self.coords.append(coord)
                self.spans.append(span)
            if m.pieces > 1:
                self.coords.append(Coordinate(m.var.name, (), False, "piece"))
                self.spans.append(None)
        self.pieces = [m.pieces for m in self.maps if m.pieces > 1]
        self.built_in = frozenset().union(*(m.built_in for m in self.maps))
        #: the hypotheses a prover still evaluates: the stated ones and those no map builds in
        self.hypotheses: tuple[Hypothesis, ...] = tuple(h for h in check.hypotheses if h.text not in self.built_in)
        self.constraints: tuple[Constraint, ...] = tuple(c for m in self.maps for c in m.constraints)

    def _map(self, var: Variable, charts: bool) -> _Map:
        shape = var.concrete_shape(self.domain.dims)
        kind = _kind(var)
        box = self.domain.boxes.get(var.name)
        if kind == "derived":
            return _Derived(var, shape, self.check, self.domain.dims)
        if kind in CHARTED and charts:
            try:
                return _Charted(var, shape, box)
            except NoChart as exc:
                if not self.smt:
                    raise BoundedDomainError(str(exc)) from None
                return _Entries(var, shape, box)  # z3 decides the membership equalities
        if kind in ("simplex", "stochastic"):
            return _FreeSimplex(var, shape, box) if self.smt else _StickBreaking(var, shape, box)
        if kind == "ordered":
            if self.smt:
                return _OrderedEntries(var, shape, box)
            if box is None:
                raise BoundedDomainError(f"branch and bound needs a bounded box for {var.name}: give --box {var.name}=LO:HI (or --box LO:HI)")
            return _OrderedChart(var, shape, box)
        if var.radius is not None and not self.smt:
            return _Relation(var, shape)
        if self.smt or var.radius is not None:
            return _Entries(var, shape, box)
        if box is None:
            raise BoundedDomainError(f"branch and bound needs a bounded box for {var.name}: give --box {var.name}=LO:HI (or --box LO:HI)")
        # the box lies inside the variable's own bounds (the domain intersected them)
        return _Entries(var, shape, box, _bound_texts(var))

    # ------------------------------------------------------------------------------------
    def roots(self) -> list[list[Bounds]]:
        """The root boxes: every coordinate's span, one box per choice of chart pieces."""
        import itertools

        out = []
        for choice in itertools.product(*(range(n) for n in self.pieces)):
            it = iter(choice)
            out.append([(Fraction(next(it)),) * 2 if c.role == "piece" else span for c, span in zip(self.coords, self.spans)])
        return out

    def data(self, ctx, values) -> dict:
        """Every variable from coordinate values (Jets, balls, z3 terms, sympy or exact), in declaration order."""
        data, k = {}, 0
        for m, count in zip(self.maps, self.counts):
            params = values[k:k + count]
            k += count
            piece = 0
            if m.pieces > 1:
                piece = int(values[k])
                k += 1
            data[m.var.name] = m.value(ctx, params, piece, data)
        return data

    def hypothesis_margins(self, ctx, data) -> list[tuple[Any, bool]]:
        """(margin, strict) of every hypothesis no map builds in: >= 0 (> 0 strict) where it holds."""
        v = self.check.values(data, self.domain.dims)
        with ctx.precision():
            return [(np.ravel(np.asarray(h.margin(ctx, v), dtype=object))[0], h.strict) for h in self.hypotheses]

    def conditions(self, ctx, data) -> list[tuple[Any, bool]]:
        """(margin, strict) of every hypothesis left, then of every constraint (its least entry;
        :meth:`constraint_terms` gives the entries one by one, for SMT)."""
        out = self.hypothesis_margins(ctx, data)
        v = self.check.values(data, self.domain.dims)
        with ctx.precision():
            for c in self.constraints:
                terms = np.asarray(c.terms(ctx, v), dtype=object)
                if terms.size:
                    out.append((np.ravel(np.asarray(ctx.min_all(terms), dtype=object))[0], False))
        return out

    def constraint_terms(self, ctx, data) -> list:
        v = self.check.values(data, self.domain.dims)
        with ctx.precision():
            return [t for c in self.constraints for t in np.ravel(np.asarray(c.terms(ctx, v), dtype=object))]


__all__ = ["BoundedDomainError", "Constraint", "Coordinate", "MAX_SMT_PIECES", "Parametrisation"]
