"""What every kind of set answers: its membership, its samples, its exact points, its proof map.

A *kind* is the set a constrained :class:`~verifier.claims.Variable` lies on when it is not a
box (``var.domain``).  One class per kind, one module per family of kinds, each owning what it
knows about its set:

* **membership**, stated as exact hypotheses (``sum p == 1`` exactly, ``Q^T Q == I``
  exactly), so every certificate checks that its point lies on the set;
* **samples** for the search: a table of named patterns heavy on the set's boundary
  (:meth:`Kind.patterns`, :meth:`Kind.draw`), and where its boundary lies
  (:meth:`Kind.on_boundary`, for measuring the sampler);
* **onto the set**: a float batch moved onto it (:meth:`Kind.onto_set`, for the local
  search), and one exact point moved onto it in rationals (:meth:`Kind.onto_set_exact`, so a
  float candidate becomes a point a certificate can hold);
* **rational points**: a :class:`Chart` at a point -- the free coordinates in which the set's
  rational points are simple (stereographic coordinates, Cayley parameters, Birkhoff
  weights) and the rational map back -- which the near-tie search and the shrinker round in;
* **proofs**: a :class:`ProofMap` writing the variable through coordinates a prover ranges
  over (a box of them for branch and bound, symbols for SMT), through a
  :class:`ChartAtlas` of rational pieces where the set needs several.

The kinds know nothing of the search, the certifier or the provers: those read a kind
through this interface (:mod:`verifier.sampling`, :mod:`verifier.rational_points`,
:mod:`verifier.prove.parametrisation`).  Stan's constrained types (simplex, unit_vector,
ordered, ...) are the model; unlike a sampler's transform, the verifier also needs the set's
boundary, its exact points and a proof's cover of it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, ClassVar

import numpy as np
from flint import fmpq

from ..errors import VerifierError
from ..claims import ClaimDefinitionError, Hypothesis, Variable, domain_hypotheses
from ..contexts import BallContext, ExactContext, NotRational, exact_decimal, to_fraction
from ..draws import grouped

Bounds = tuple[Fraction, Fraction]
UNIT = (Fraction(-1), Fraction(1))
SHARE = (Fraction(0), Fraction(1))


def q(x) -> fmpq:
    """The exact value of a number as an fmpq."""
    f = to_fraction(x)
    return fmpq(f.numerator, f.denominator)


def exact_point(x) -> np.ndarray:
    """An array of numbers as an object array of fmpq."""
    return np.vectorize(q, otypes=[object])(np.asarray(x, dtype=object))


def equal_magnitudes(flat):
    """Every nonzero entry of equal magnitude (axis and diagonal directions, Hadamard-like)."""
    a = np.abs(flat)
    top = a.max(axis=1, keepdims=True)
    return np.all((a == 0) | np.isclose(a, top, rtol=1e-12, atol=0), axis=1)


# ------------------------------------------------------------------------ rational charts
@dataclass(frozen=True)
class Chart:
    """Free coordinates of a point of a set, and the rational map from them back onto the set.

    ``params`` are rationals in which the set's rational points are simple (stereographic
    coordinates, Cayley parameters); ``point(params)`` is a point exactly on the set for every
    rational ``params``, and ``point(chart.params)`` is the point the chart was taken at.
    """

    params: np.ndarray
    point: Callable[[np.ndarray], np.ndarray]


class NoChart(VerifierError, ValueError):
    """The set has no proof chart here (names why and what to do)."""


@dataclass(frozen=True)
class ChartAtlas:
    """A proof's cover of a set by a few *pieces*, each a rational map from ``[-1, 1]^m`` into it.

    Together the pieces reach every point (they may overlap: a proof needs a cover, not a
    partition).  The maps are rational and written once against ``ctx``, so a rational
    parameter gives an exact point on the set -- a box's centre can be certified as it is --
    and the same map runs on Jets (enclosures), z3 terms, sympy and exact rationals.
    """

    parameters: int  # m: each piece maps [-1, 1]^m into the set
    pieces: int
    point: Callable[[Any, list, int], Any]  # (ctx, parameters, piece) -> nested list of entries


def sign_of_piece(ctx, k):
    """+1 for an even piece, -1 for an odd one (the two poles, the two signs)."""
    return ctx.scalar(Fraction(1 if k % 2 == 0 else -1))


def stereographic_point(ctx, t, k):
    """The point of the unit sphere with stereographic coordinates t, from the pole k picks (in ``ctx``)."""
    square = t[0] * t[0]
    for x in t[1:]:
        square = square + x * x
    denominator = 1 + square
    return [2 * x / denominator for x in t] + [sign_of_piece(ctx, k) * (1 - square) / denominator]


# ------------------------------------------------------------------------- proof maps
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


@dataclass(frozen=True)
class MapRequest:
    """What a prover asks of a variable's map: SMT's (linear where the set allows) or branch
    and bound's, through charts or by membership equalities, and the check it belongs to."""

    smt: bool
    charts: bool
    check: Any
    dims: Any


class ProofMap:
    """How one variable is written through its coordinates (in declaration order).

    A map makes some of the check's hypotheses true by construction (a row sums to exactly
    1, a unit vector has norm 1): those are ``built_in`` and no prover evaluates them.  What
    it does not make true stays a hypothesis, and its own side conditions (the entries of an
    SMT simplex are >= 0, one by one) are ``constraints`` every prover checks.
    """

    pieces = 1
    built_in: frozenset[str] = frozenset()
    constraints: tuple[Constraint, ...] = ()

    def __init__(self, var: Variable, shape: tuple[int, ...]):
        self.var, self.shape = var, shape

    def coordinates(self) -> list[tuple[Coordinate, Bounds | None]]:
        return []

    def value(self, ctx, params: list, piece: int, data: dict):
        raise NotImplementedError


class Entries(ProofMap):
    """Every entry is a coordinate of its own."""

    def __init__(self, var, shape, span: Bounds | None, built_in=frozenset()):
        super().__init__(var, shape)
        self.span, self.built_in = span, built_in

    def coordinates(self):
        return [(Coordinate(self.var.name, idx, False), self.span) for idx in np.ndindex(*self.shape)]

    def value(self, ctx, params, piece, data):
        return entries_array(self.shape, params)


def entries_array(shape, params):
    """Coordinates laid out as one value of ``shape`` (batch axis of one)."""
    arr = np.empty((1,) + shape, dtype=object)
    for k, idx in enumerate(np.ndindex(*shape)):
        arr[(0,) + idx] = params[k]
    return arr


class ChartedMap(ProofMap):
    """A set through the rational pieces of its :class:`ChartAtlas`."""

    def __init__(self, var, shape, box: Bounds | None, atlas: ChartAtlas):
        super().__init__(var, shape)
        self.atlas = atlas
        self.pieces = self.atlas.pieces
        self.built_in = hypothesis_texts(var.domain.hypotheses(var))
        self.constraints = box_constraints(var, box, var.domain.entry_bounds())

    def coordinates(self):
        return [(Coordinate(self.var.name, (i,), False, "chart"), UNIT) for i in range(self.atlas.parameters)]

    def value(self, ctx, params, piece, data):
        with ctx.precision():
            point = self.atlas.point(ctx, list(params), piece)
        return np.asarray(point, dtype=object).reshape((1,) + self.shape)


def hypothesis_texts(hypotheses) -> frozenset[str]:
    return frozenset(h.text for h in hypotheses)


def bound_texts(var: Variable) -> frozenset[str]:
    """The texts of a variable's own ``lo``/``hi`` hypotheses."""
    plain = dataclasses.replace(var, radius=None, near=None, lower=None, upper=None, domain=None)
    return hypothesis_texts(domain_hypotheses(plain))


def box_constraints(var: Variable, box: Bounds | None, natural: Bounds) -> tuple[Constraint, ...]:
    """A --box narrower than the set's own range: its ends become constraints on the entries."""
    out = []
    if box is not None and box[0] > natural[0]:
        out.append(Constraint(f"{var.name} \u2265 {box[0]}", lambda ctx, v, n=var.name, lo=box[0]: v[n] - ctx.const(lo)))
    if box is not None and box[1] < natural[1]:
        out.append(Constraint(f"{var.name} \u2264 {box[1]}", lambda ctx, v, n=var.name, hi=box[1]: ctx.const(hi) - v[n]))
    return tuple(out)


# ------------------------------------------------------------------------ exact bounds
def exact_bound(ctx, fn, values, side):
    """``fn(ctx, values)`` where it stays rational; else the rigorous ``side`` ("lower" or
    "upper") of its ball enclosure, as an exact rational (a bound that leaves the rationals,
    ``sqrt(a)`` say, still gives a point on the right side of it)."""
    if not isinstance(ctx, ExactContext):
        with np.errstate(all="ignore"):
            return fn(ctx, values)
    try:
        return fn(ctx, values)
    except NotRational:
        ball = BallContext(256)
        bv = values.mapped(ball.asarray)
        with ball.precision():
            enclosure = np.asarray(fn(ball, bv), dtype=object)
        return np.frompyfunc(lambda b: arb_endpoint_to_fmpq(b, side), 1, 1)(enclosure)


def arb_endpoint_to_fmpq(b, side):
    """The exact rational value of a ball's lower or upper endpoint."""
    end = b.upper() if side == "upper" else b.lower()
    man, exp = end.mid().man_exp()
    man, exp = int(man), int(exp)
    return fmpq(man * 2**exp) if exp >= 0 else fmpq(man, 2 ** (-exp))


# ------------------------------------------------------------------------ factories' checks
def require_identifier(name):
    """A variable's name must be an identifier (it is an attribute of ``v``)."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ClaimDefinitionError(f"variable name must be an identifier, got {name!r}")


def require_dim(owner, what, dim):
    """A size is a Dim's name or a positive int."""
    if isinstance(dim, int) and not isinstance(dim, bool) and dim >= 1:
        return  # a fixed size
    if not isinstance(dim, str) or not dim.isidentifier():
        raise ClaimDefinitionError(f"{owner}: {what} must name a Dim or be a positive int, got {dim!r}")


def positive_rational(owner, what, value) -> Fraction:
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


# ------------------------------------------------------------------------------ the kind
@dataclass(frozen=True)
class Kind:
    """The set a constrained variable lies on; ``name`` names it in messages and stored files.

    Points of the maps are one variable's value without a batch axis (``onto_set``: with
    one, batch first), exact maps take and give object arrays of fmpq.
    """

    name: ClassVar[str] = "set"
    #: reads the values of earlier variables (a derived value, a ball about another variable)
    relative: ClassVar[bool] = False
    #: computed from the earlier variables, with no freedom of its own (a derived value)
    computed: ClassVar[bool] = False

    # -- the set ------------------------------------------------------------------------
    def hypotheses(self, var: Variable) -> list[Hypothesis]:
        return []

    def describe(self) -> list[str]:
        """The kind's parameters as they read in its text (``norm=inf``)."""
        return []

    def depends_on(self) -> tuple[str, ...]:
        """The variables the set is stated through, which must be declared before it."""
        return ()

    def validate(self, var: Variable, dims) -> None:
        """Raise ClaimDefinitionError where the set has no exact point at a size in ``dims``
        (name -> Dim): nothing on it could be certified."""

    def entry_bounds(self) -> Bounds | None:
        """A box holding every entry of every point of the set (None: the set is unbounded)."""
        return None

    def proof_relation(self, var: Variable) -> str | None:
        """How a proof domain states a relative set (None: the set is boxed by its entries)."""
        return None

    def contains(self, point: np.ndarray) -> bool:
        """Is the exact point on the set?"""
        return True

    # -- onto the set -------------------------------------------------------------------
    def onto_set(self, x: np.ndarray) -> np.ndarray:
        """A float batch moved onto the set (a local search's steps leave it)."""
        return x

    def onto_set_exact(self, point: np.ndarray) -> np.ndarray:
        """One exact point moved onto the set in rationals; a point on the set is left unchanged."""
        return point

    def onto(self, var: Variable, ctx, x, values):
        """The variable's value moved onto its set: exactly (one point) in rationals, else a
        float batch; ``values`` are the candidate's variables (read by relative kinds)."""
        if isinstance(ctx, ExactContext):
            return self.onto_set_exact(exact_point(np.asarray(x, dtype=object)[0]))[None]
        return self.onto_set(np.array(x, dtype=float))

    # -- samples ------------------------------------------------------------------------
    def patterns(self, var: Variable) -> dict[str, float]:
        """The sampler's pattern weights (name -> weight) for this variable."""
        raise NotImplementedError(f"the {self.name} kind draws no samples")

    def draw(self, pattern: str, rng, m: int, shape, var: Variable) -> np.ndarray:
        """m float samples (batch first) of one pattern."""
        raise NotImplementedError(pattern)

    def sample(self, var: Variable, shape, rng, size: int, values=None) -> np.ndarray:
        """A batch of float samples split between the patterns, clipped to the variable's bounds."""
        x = grouped(rng, size, shape, self.patterns(var), self.draw, var)
        return np.clip(x, var.lo if var.lo is not None else -np.inf, var.hi if var.hi is not None else np.inf)

    def on_boundary(self, var: Variable, flat: np.ndarray) -> np.ndarray:
        """Per float sample (rows of ``flat``): on the set's boundary or a special direction?"""
        return np.zeros(len(flat), bool)

    #: several variables of one such kind and size are also drawn together (known
    #: configurations of unit vectors), by :meth:`draw_together`
    draws_together: ClassVar[bool] = False

    def draw_together(self, names, data, shape, rng, size) -> None:
        """Overwrite a share of the rows of ``data[name]`` for the group ``names`` in place."""

    # -- rational points ----------------------------------------------------------------
    def chart(self, point: np.ndarray) -> Chart | None:
        """Free coordinates at an exact point; None where the entries themselves are the coordinates."""
        return None

    # -- proofs -------------------------------------------------------------------------
    def proof_map(self, var: Variable, shape, box: Bounds | None, request: MapRequest) -> ProofMap | None:
        """The variable written through a prover's coordinates; None: its entries, in their
        box (the prover's default).  Raises :class:`NoChart` where branch and bound cannot
        range over the set (SMT then states it by its membership)."""
        return None


__all__ = ["Kind", "Chart", "ChartAtlas", "NoChart", "ProofMap", "Entries", "ChartedMap", "MapRequest", "Coordinate", "Constraint",
           "Bounds", "UNIT", "SHARE", "q", "exact_point", "equal_magnitudes", "sign_of_piece", "stereographic_point", "hypothesis_texts", "bound_texts",
           "box_constraints", "entries_array", "exact_bound", "arb_endpoint_to_fmpq", "require_identifier", "require_dim",
           "positive_rational"]
