"""A check on a box of coordinates: how a box becomes data, and its enclosures.

The domain is a box of *coordinates*: every entry of a boxed variable, and for a variable
built by a relation (``b`` with ``||b|| <= eps``) its unit-box coordinate ``u`` in
``[-1, 1]`` (``b = near + radius * u``), so every box lies inside the relation.  A box is
evaluated on :class:`~.jets.Jet` s, which gives in one pass a plain enclosure of every entry
of the margin, a centred (mean-value) enclosure, the value at the centre and an enclosure of
the gradient.
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from flint import fmpq

from ..claims import Check, _domain_hypotheses
from ..contexts import ExactContext
from .domain import Domain
from .charts import NoChart, chart_atlas
from .jets import ZERO, JetContext, NeedsChoice, interval_ball

EXACT = ExactContext()
#: boxes narrower than this (relative to the domain, in every coordinate) are left open
MIN_RELATIVE_WIDTH = Fraction(1, 2**30)


class BoundedDomainError(ValueError):
    """Branch and bound needs a finite box for every free variable."""


@dataclass(frozen=True)
class Coordinate:
    var: str
    index: tuple[int, ...]
    unit: bool  # a unit-box coordinate of a relation-bound variable
    role: str = "entry"  # entry | chart (a parameter of a set's chart) | piece (which chart)

    @property
    def label(self) -> str:
        idx = ",".join(str(i + 1) for i in self.index)
        name = f"u[{self.var}]" if self.unit else f"{self.role}[{self.var}]" if self.role != "entry" else self.var
        return f"{name}_{idx}" if idx else name


def _kind(var) -> str | None:
    return var.domain.kind if var.domain is not None else None


def _simplex_last(var, idx, shape) -> bool:
    """The last entry of a simplex row is its total minus the others: no coordinate of its own."""
    return _kind(var) in ("simplex", "stochastic") and idx[-1] == shape[-1] - 1


#: the kinds a branch and bound ranges over through charts (:mod:`.charts`)
CHARTED = ("unit-vector", "sphere", "orthogonal")


UNIT = (Fraction(-1), Fraction(1))


def coordinates(check: Check, domain: Domain):
    """The coordinates of the domain and the root boxes that cover it (one per choice of charts).

    A set that is not a box -- a sphere, the orthogonal group -- is covered by charts: each
    a rational map from the box [-1, 1]^m onto part of the set, together onto all of it
    (:mod:`.charts`).  Which chart a root box uses is a *piece* coordinate, fixed in that box.
    """
    coords, box, pieces = [], [], []
    for var in check.variables:
        shape = var.concrete_shape(domain.dims)
        kind = _kind(var)
        if kind == "derived":
            continue  # computed from the others
        if kind in CHARTED:
            try:
                atlas = chart_atlas(var, shape)
            except NoChart as exc:
                raise BoundedDomainError(str(exc)) from None
            given, whole = domain.boxes.get(var.name), var.domain.entry_bounds()
            if given is not None and (given[0] > whole[0] or given[1] < whole[1]):
                raise BoundedDomainError(f"branch and bound ranges over the whole {kind} set of {var.name}: drop its --box")
            coords += [Coordinate(var.name, (i,), False, "chart") for i in range(atlas.parameters)]
            box += [UNIT] * atlas.parameters
            coords.append(Coordinate(var.name, (), False, "piece"))
            box.append(None)
            pieces.append(atlas.pieces)
            continue
        if var.radius is not None:
            span = UNIT
        elif kind in ("simplex", "stochastic"):
            whole = var.domain.entry_bounds()
            lo, hi = domain.boxes.get(var.name) or whole
            span = (max(lo, whole[0]), min(hi, whole[1]))
        else:
            span = domain.boxes.get(var.name)
            if span is None:
                raise BoundedDomainError(f"branch and bound needs a bounded box for {var.name}: give --box {var.name}=LO:HI (or --box LO:HI)")
        for idx in np.ndindex(*shape):
            if not _simplex_last(var, idx, shape):
                coords.append(Coordinate(var.name, idx, var.radius is not None))
                box.append(span)
    roots = []
    for choice in itertools.product(*(range(n) for n in pieces)):
        it = iter(choice)
        roots.append([(Fraction(next(it)),) * 2 if b is None else b for b in box])
    return coords, roots


class BoxProblem:
    """One check on one domain: builds the data of a box and evaluates it."""

    def __init__(self, check: Check, domain: Domain, prec: int):
        self.check, self.domain, self.prec = check, domain, prec
        self.coords, self.roots = coordinates(check, domain)
        self.root = self.roots[0]
        self.undecided: list = []
        self.widths = [hi - lo for lo, hi in self.root]
        self.active = [w > 0 for w in self.widths]
        self.piece = [c.role == "piece" for c in self.coords]
        self.charts = {v.name: chart_atlas(v, v.concrete_shape(domain.dims)) for v in check.variables
                       if _kind(v) in CHARTED}

    def data(self, ctx, values):
        """Variables from coordinate values (Jets, balls or exact rationals), in declaration order."""
        data, k = {}, 0
        for var in self.check.variables:
            shape = var.concrete_shape(self.domain.dims)
            if _kind(var) == "derived":
                with ctx.precision():
                    value = var.domain.fn(ctx, self.check.values(data, self.domain.dims))
                data[var.name] = np.asarray(value, dtype=object).reshape((1,) + shape)
                continue
            atlas = self.charts.get(var.name)
            if atlas is not None:
                params = values[k:k + atlas.parameters]
                k += atlas.parameters
                with ctx.precision():
                    point = atlas.point(ctx, params, int(values[k]))
                k += 1
                data[var.name] = np.asarray(point, dtype=object).reshape((1,) + shape)
                continue
            arr = np.empty((1,) + shape, dtype=object)
            for idx in np.ndindex(*shape):
                if _simplex_last(var, idx, shape):
                    # the sum is exactly the total by construction; the entry's sign is a hypothesis
                    total = var.domain.total
                    rest = int(total) if total.denominator == 1 else ctx.scalar(total)
                    for j in range(shape[-1] - 1):
                        rest = rest - arr[(0,) + idx[:-1] + (j,)]
                    arr[(0,) + idx] = rest
                    continue
                arr[(0,) + idx] = values[k]
                k += 1
            if var.radius is not None:
                radius = np.asarray(data[var.radius])
                radius = radius.reshape(radius.shape + (1,) * len(shape))
                arr = (data[var.near] if var.near else 0) + radius * arr
            data[var.name] = arr
        return data

    def jets(self, box, choices=(), max_choices=0):
        radii = [(hi - lo) / 2 if act and hi > lo else None for (lo, hi), act in zip(box, self.active)]
        ctx = JetContext([None if r is None else interval_ball(-r, r) for r in radii], self.prec, choices, max_choices)
        with ctx.precision():
            values = [lo if piece else ctx.coordinate(i, lo, hi) for i, ((lo, hi), piece) in enumerate(zip(box, self.piece))]
        return ctx, values

    def hypotheses(self, ctx, data):
        v = self.check.values(data, self.domain.dims)
        with ctx.precision():
            return [np.ravel(np.asarray(h.margin(ctx, v), dtype=object))[0] for h in self.check.hypotheses]

    def margins(self, ctx, data):
        """The entries of the margin: one, or each entry of an elementwise part."""
        part = self.check.part
        if not part.elementwise:
            return [self.check.evaluate(ctx, data, self.domain.dims, with_hypotheses=False).margin[0]]
        v = self.check.values(data, self.domain.dims)
        with ctx.precision():
            lhs, rhs = np.asarray(part.lhs(ctx, v), dtype=object), np.asarray(part.rhs(ctx, v), dtype=object)
            if part.relation in ("<=", "<"):
                per = rhs - lhs
            elif part.relation in (">=", ">"):
                per = lhs - rhs
            else:
                per = -ctx.abs(lhs - rhs)
        return list(np.ravel(per[0]))

    def evaluate(self, ctx, data):
        return self.hypotheses(ctx, data), self.margins(ctx, data)

    def path_margins(self, box, max_choices):
        """Margins on every smooth piece: one list of entry Jets per choice of undecided branches.

        Also records, in ``self.undecided``, the gradients of the first max/min each piece
        left undecided.
        """
        out, stack = [], [()]
        self.undecided = []
        while stack:
            choices = stack.pop()
            ctx, values = self.jets(box, choices, max_choices)
            try:
                out.append(self.margins(ctx, self.data(ctx, values)))
            except NeedsChoice:
                stack += [choices + (1,), choices + (0,)]
                continue
            self.undecided += ctx.undecided[:1]
        return out

    def anchored(self, box, max_choices):
        """Mean-value enclosures of the margin entries anchored where the relations vanish.

        For a relation-bound variable (``b = near + radius u``) the anchor is ``u = 0``, the
        unperturbed point.  There the memo makes ``f(a + 0) - f(a)`` exactly 0, so the anchor
        value is sharp over the whole box; the change from the anchor is enclosed by the
        gradient in ``u`` over the box stretched to contain ``u = 0`` (mean-value theorem).
        Returns (enclosures, the pieces' margins over the stretched box, the stretched box),
        or None when the check has no relation-bound variable.
        """
        units = [j for j, c in enumerate(self.coords) if c.unit and self.active[j]]
        if not units:
            return None
        anchor, stretched = list(box), list(box)
        for j in units:
            lo, hi = box[j]
            anchor[j] = (Fraction(0), Fraction(0))
            stretched[j] = (min(lo, Fraction(0)), max(hi, Fraction(0)))
        at_anchor = self.path_margins(anchor, 0)
        slopes = self.path_margins(stretched, max_choices)
        out = []
        for i in range(len(at_anchor[0])):
            value = hull(m[i].enclosure() for m in at_anchor)
            for j in units:
                g = hull(m[i].g[j] if m[i].g else ZERO for m in slopes)
                value = value + g * interval_ball(*box[j])
            out.append(value)
        return out, slopes, stretched

    def centre(self, box):
        return [(lo + hi) / 2 for lo, hi in box]

    def exact_point(self, point):
        values = [q if piece else fmpq(q.numerator, q.denominator) for q, piece in zip(point, self.piece)]
        return self.data(EXACT, values)

    def volume(self, box) -> float:
        """The share of the domain's volume in ``box`` (every root box has the same widths)."""
        out = 1.0 / len(self.roots)
        for (lo, hi), w, act in zip(box, self.widths, self.active):
            if act:
                out *= float((hi - lo) / w)
        return out

    def too_small(self, box) -> bool:
        return all(not act or (hi - lo) <= w * MIN_RELATIVE_WIDTH for (lo, hi), w, act in zip(box, self.widths, self.active))


def built_in_texts(check: Check) -> set[str]:
    """Texts of the domain relations the coordinates satisfy by construction."""
    out = set()
    for var in check.variables:
        plain = dataclasses.replace(var, lower=None, upper=None, domain=None)
        out |= {h.text for h in _domain_hypotheses(plain)}
        if _kind(var) in CHARTED:
            out |= {h.text for h in var.domain.hypotheses(var)}  # every chart maps onto the set
        if _kind(var) in ("simplex", "stochastic", "derived"):
            # the sum of a row, or the defining equation: exact by construction; only the
            # sign of an entry (the first hypothesis of a simplex) is left to check
            out |= {h.text for h in var.domain.hypotheses(var)[1 if _kind(var) != "derived" else 0:]}
    return out


def hull(balls):
    out = None
    for b in balls:
        out = b if out is None else out.union(b)
    return out


def holds(ball, strict) -> bool:
    return bool(ball > 0) if strict else bool(ball >= 0)


def fails(ball, strict) -> bool:
    return bool(ball <= 0) if strict else bool(ball < 0)


