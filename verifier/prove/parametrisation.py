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
``UnitVector``, ``Orthogonal`` n <= 3   the kind's rational charts (its atlas):     the same charts, one solver call per
                                        parameters in [-1, 1]^m and a piece         choice of pieces
======================================  ==========================================  =====================================

Each kind writes its own map (:meth:`verifier.kinds.Kind.proof_map`); what is left here is a
variable of no kind: its entries, or a relation to another variable.

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
import itertools
from fractions import Fraction

import numpy as np

from ..errors import VerifierError
from ..claims import Check, Hypothesis, Variable, domain_hypotheses
from ..kinds.base import UNIT, Bounds, Constraint, Coordinate, Entries, MapRequest, NoChart, ProofMap, bound_texts, entries_array, hypothesis_texts
from .domain import ProofBox

#: choices of chart pieces an SMT proof tries one call each; beyond, the charted sets are
#: stated by their membership equalities instead (a product of many spheres' pieces)
MAX_SMT_PIECES = 64


class BoundedDomainError(VerifierError, ValueError):
    """Branch and bound needs a finite box for every free variable."""


class RelationMap(ProofMap):
    """``b = near + radius u`` with ``u`` in the unit box: every box lies inside the relation."""

    def __init__(self, var, shape):
        super().__init__(var, shape)
        self.built_in = hypothesis_texts(domain_hypotheses(dataclasses.replace(var, lo=None, hi=None, lower=None, upper=None, domain=None)))

    def coordinates(self):
        return [(Coordinate(self.var.name, idx, True), UNIT) for idx in np.ndindex(*self.shape)]

    def value(self, ctx, params, piece, data):
        var = self.var
        u = entries_array(self.shape, params)
        radius = np.asarray(data[var.radius])
        radius = radius.reshape(radius.shape + (1,) * len(self.shape))
        return (data[var.near] if var.near else 0) + radius * u


# -------------------------------------------------------------------------- the domain
class Parametrisation:
    """The coordinates of a domain and the map from them onto every variable, for one prover.

    ``smt`` picks the SMT maps (linear where the set allows it: symbols, free simplex
    entries); otherwise branch and bound's (every coordinate in a bounded span, every image
    on the set).  ``charts=False`` states spheres and orthogonal matrices by their membership
    equalities instead of their charts (an SMT proof with too many choices of pieces).
    """

    def __init__(self, check: Check, domain: ProofBox, smt: bool = False, charts: bool = True):
        self.check, self.domain, self.smt = check, domain, smt
        self.maps: list[ProofMap] = [self._map(var, charts) for var in check.variables]
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

    def _map(self, var: Variable, charts: bool) -> ProofMap:
        shape = var.concrete_shape(self.domain.dims)
        box = self.domain.boxes.get(var.name)
        if var.domain is not None:
            try:
                own = var.domain.proof_map(var, shape, box, MapRequest(self.smt, charts, self.check, self.domain.dims))
            except NoChart as exc:
                if not self.smt:
                    raise BoundedDomainError(str(exc)) from None
                return Entries(var, shape, box)  # z3 decides the membership equalities
            if own is not None:
                return own
        if var.radius is not None and not self.smt:
            return RelationMap(var, shape)
        if self.smt or var.radius is not None:
            return Entries(var, shape, box)
        if box is None:
            raise BoundedDomainError(f"branch and bound needs a bounded box for {var.name}: give --box {var.name}=LO:HI (or --box LO:HI)")
        # the box lies inside the variable's own bounds (the domain intersected them)
        return Entries(var, shape, box, bound_texts(var))

    # ------------------------------------------------------------------------------------
    def roots(self) -> list[list[Bounds]]:
        """The root boxes: every coordinate's span, one box per choice of chart pieces."""
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
