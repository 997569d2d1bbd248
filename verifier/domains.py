"""Constrained variable kinds: simplexes, stochastic matrices, unit vectors, ordered vectors,
orthogonal matrices and variables derived from the others.

A kind is a :class:`~verifier.claims.Variable` whose ``domain`` names a set that is not a box.
Three things follow from the set, each kept in one module:

* membership, stated here as exact hypotheses (``sum p == 1`` exactly, ``Q^T Q == I``
  exactly), so every certificate checks that its point lies on the set;
* the exact rational points on the set (:mod:`verifier.rational_points`): a float point is
  moved onto the set before it is certified, and near-ties are retried at nearby simple
  rationals projected back onto it;
* the search's samples (:mod:`verifier.sampling`), heavy on the set's boundary (vertices,
  faces, one-hot rows, ties, axis and diagonal directions, signed permutations).

Stan's constrained types (simplex, unit_vector, ordered, ...) are the model; unlike a
sampler's transform, the verifier also needs the set's boundary and exact points on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .claims import ClaimDefinitionError, Hypothesis, Variable

NORMS = {2: "2", "2": "2", 1: "1", "1": "1", "inf": "inf", float("inf"): "inf"}


@dataclass(frozen=True)
class Domain:
    """The set a constrained variable lies on; ``kind`` names it in messages."""

    kind: str

    def hypotheses(self, var: Variable) -> list[Hypothesis]:
        return []


def _identity(n, like):
    """The n x n identity in ints: every context lifts ints to its own numbers."""
    return np.eye(n) if np.asarray(like).dtype != object else np.eye(n, dtype=int).astype(object)


@dataclass(frozen=True)
class SimplexRows(Domain):
    """Entries >= 0 along the last axis, summing to exactly 1 (every row of a matrix)."""

    def hypotheses(self, var):
        what = "each row of " + var.name if len(var.shape) == 2 else var.name
        return [
            Hypothesis(f"{var.name} \u2265 0 entrywise", lambda ctx, v, n=var.name: ctx.min_all(v[n])),
            Hypothesis(f"{what} sums to exactly 1", lambda ctx, v, n=var.name: _row_sum_gap(ctx, v[n])),
        ]


def _row_sum_gap(ctx, x):
    """``-max |sum of a row - 1|``: 0 exactly on the set, negative off it."""
    rows = ctx.sum(x, axis=np.ndim(x) - 1)
    return -ctx.max_all(ctx.abs(rows - ctx.const(1)))


@dataclass(frozen=True)
class UnitSphere(Domain):
    """``||u|| == 1`` exactly, for the Euclidean, max or l1 norm."""

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


@dataclass(frozen=True)
class OrderedEntries(Domain):
    """``x_1 <= x_2 <= ... <= x_n``."""

    def hypotheses(self, var):
        def gap(ctx, v, n=var.name):
            x = v[n]
            if np.shape(x)[-1] < 2:
                return ctx.const(0)
            return ctx.min_all(x[..., 1:] - x[..., :-1])

        return [Hypothesis(f"{var.name}\u2081 \u2264 {var.name}\u2082 \u2264 \u2026 (ordered)", gap)]


@dataclass(frozen=True)
class OrthogonalMatrix(Domain):
    """``Q^T Q == I`` exactly."""

    def hypotheses(self, var):
        def gap(ctx, v, n=var.name):
            q = v[n]
            eye = _identity(np.shape(q)[-1], q)
            gap = ctx.T(q) @ q - eye
            # a sum of squares, not a max of |.|: polynomial, so z3 reasons about it without
            # case splits; still 0 exactly on the set and negative off it
            return -ctx.sum_all(gap * gap)

        return [Hypothesis(f"{var.name}\u1d40{var.name} = I exactly", gap)]


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
            "rationally (a point of a sphere: UnitVector)")


@dataclass(frozen=True)
class DerivedValue(Domain):
    """A variable defined by the earlier ones: its value is ``fn(ctx, v)``, checked exactly."""

    fn: Callable[[Any, Any], Any] | None = None
    text: str = ""

    def hypotheses(self, var):
        text = f"{var.name} = {self.text}" if self.text else f"{var.name} is its defining expression"
        return [Hypothesis(text, lambda ctx, v, n=var.name, f=self.fn: -ctx.max_all(ctx.abs(v[n] - f(ctx, v))))]


# ------------------------------------------------------------------------ public factories
def _check_name(name):
    if not isinstance(name, str) or not name.isidentifier():
        raise ClaimDefinitionError(f"variable name must be an identifier, got {name!r}")


def _check_dim(owner, what, dim):
    if isinstance(dim, int) and not isinstance(dim, bool) and dim >= 1:
        return  # a fixed size
    if not isinstance(dim, str) or not dim.isidentifier():
        raise ClaimDefinitionError(f"{owner}: {what} must name a Dim or be a positive int, got {dim!r}")


def Simplex(name: str, size: str, description: str = "") -> Variable:
    """A probability vector: entries >= 0 summing to exactly 1 (a softmax output)."""
    _check_name(name)
    _check_dim(f"Simplex {name}", "size", size)
    return Variable(name, (size,), domain=SimplexRows("simplex"), description=description)


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
    if isinstance(dom, UnitSphere):
        args.append(f"norm={dom.norm}")
    return f"{name}({', '.join(args)})" if args else name


def variable_kinds(variables, dims) -> dict[str, str]:
    return {var.name: kind_text(var, dims) for var in variables}


#: sampled points tried before a search for a derived variable that leaves the rationals
#: (some hit a vertex, where a sqrt may happen to be rational)
DERIVED_PROBES = 32


def refuse_irrational_derived(check, seed: int = 0) -> None:
    """Raise :class:`IrrationalDerivedValue` before a search whose derived variables leave the
    rationals at a sampled point, so a true claim fails as clearly as a false one, at once."""
    if not any(isinstance(domain_of(v), DerivedValue) for v in check.variables):
        return
    from .sampling import Sampler, exactify

    dims = {d.name: d.lo for d in check.dims}
    with np.errstate(all="ignore"):
        data = Sampler(check).sample(dims, np.random.default_rng(seed), DERIVED_PROBES)
    for i in range(DERIVED_PROBES):
        try:
            exactify(check, data, i, dims)
        except (ValueError, ArithmeticError):  # outside the definition's domain, or not finite: no verdict on it
            continue


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


__all__ = ["Simplex", "Stochastic", "UnitVector", "Ordered", "Orthogonal", "Derived", "Domain", "IrrationalDerivedValue", "domain_of", "refuse_irrational_derived", "kind_text", "membership_errors", "variable_kinds"]
