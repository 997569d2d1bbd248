"""The equality set of a claim near a point, exactly: where lhs = rhs, and what it is.

The search meets a tight claim's equality points only approximately (float64 gets within
1e-18 of ``x = 1/sqrt 2`` and no closer).  From such a near-tie:

1. **refine**: the touching point is a critical point of the margin (a minimum where it is
   0), so Newton's method on the margin's gradient, at high precision, pins it to 60 digits
   (a minimum of a margin that vanishes to second order is found by its gradient, not its
   value: the value only locates it to half the digits);
2. **recognise** each coordinate (PSLQ: :func:`verifier.algebraic.recognise`) as a rational
   or a real algebraic number of small degree;
3. **verify exactly**: the claim's own functions evaluated in the number field the
   coordinates generate (:class:`verifier.algebraic.AlgebraicContext`) give lhs - rhs = 0
   exactly and every hypothesis holding -- or the point is dropped.  Float agreement never
   decides.

From an exact equality point, :func:`equality_sets` asks which sets through it are equality
sets: the scaling ray (a homogeneous claim), a diagonal (entries that coincide, ``a = b = c``)
and the set where two variables of one shape are equal (``P = Q``), each shown by sympy
simplifying the margin on the whole set to 0.

Public API (for the certifier, the search's near-ties and the prover's touching points):
:func:`exact_equality_points`, :func:`equality_sets`, :func:`try_algebraic_near_tie`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Mapping

import mpmath
import numpy as np
import sympy
from flint import fmpq

from .algebraic import AlgebraicContext, AlgebraicNumber, FieldElement, NotInField, NumberField, field_of, recognise
from .contexts import FLOAT, FunctionDomainError, MPContext, NotRational, SymbolicContext, to_fraction
from .domains import domain_of, is_derived
from .runner import OutOfTime, call_within

#: digits the touching point is refined to before it is recognised
REFINE_DPS = 60
#: degree up to which a coordinate is recognised
MAX_RECOGNISED_DEGREE = 4
#: Newton steps at most
MAX_NEWTON_STEPS = 40
#: coordinates at most (the gradient's Jacobian is taken numerically: n^2 evaluations a step)
MAX_COORDINATES = 6
#: seconds sympy may spend showing that a margin vanishes on a whole set
SET_SECONDS = 5.0
#: seconds Newton's method may spend on one near-tie (a search pays this per near-tie it tries)
REFINE_SECONDS = 2.0


@dataclass(frozen=True)
class EqualityPoint:
    """A point where lhs = rhs exactly and every hypothesis holds.

    ``data``: name -> object array with a batch axis of 1, entries ``fmpq`` or
    :class:`~verifier.algebraic.AlgebraicNumber`.  ``field``: the number field the entries
    generate; ``lhs``, ``rhs``: both sides there, exactly (equal).
    """

    data: Mapping[str, np.ndarray]
    dims: Mapping[str, int]
    field: NumberField
    lhs: FieldElement
    rhs: FieldElement

    def coordinates(self) -> dict[str, list]:
        """name -> flat list of its entries (Fraction or AlgebraicNumber)."""
        return {k: [_plain(x) for x in _row(v).ravel()] for k, v in self.data.items()}

    def describe(self) -> str:
        parts = []
        for k, values in self.coordinates().items():
            shown = [v.human if isinstance(v, AlgebraicNumber) else str(v) for v in values]
            parts.append(f"{k} = {shown[0] if len(shown) == 1 else '(' + ', '.join(shown) + ')'}")
        return ", ".join(parts)


@dataclass(frozen=True)
class EqualitySet:
    """A set through an equality point on which lhs = rhs identically (sympy's simplification to 0).

    ``kind``: ``ray`` (t * point, t > 0), ``diagonal`` (the entries named in ``data["entries"]``
    equal to one parameter t), ``equal-variables`` (the variables in ``data["variables"]`` equal).
    """

    kind: str
    statement: str
    data: Mapping[str, Any] = field(default_factory=dict)


def _row(a) -> np.ndarray:
    """The first row of a batch as an object array (0-d for a scalar)."""
    return np.asarray(np.asarray(a, dtype=object)[0], dtype=object)


def _plain(x):
    if isinstance(x, fmpq):
        return Fraction(int(x.p), int(x.q))
    return x


def plain_coordinates(check) -> list | None:
    """The variables a touching point is refined in: every one plain (a box or unbounded, no set,
    no relation, not derived); None when some variable is not (its set has its own charts)."""
    out = []
    for var in check.variables:
        if is_derived(var) or var.radius is not None or domain_of(var) is not None or var.lower is not None or var.upper is not None:
            return None
        out.append(var)
    return out


# ------------------------------------------------------------------------- refinement
def refine_touching_point(check, data, dims, dps: int = REFINE_DPS, seconds: float = REFINE_SECONDS) -> dict | None:
    """The critical point of the margin near ``data`` (a point with a batch axis of 1, floats
    or rationals), at ``dps`` digits: name -> array of mpf, or None when Newton does not
    converge there, the margin is not nearly 0 there, or the variables are not plain."""
    variables = plain_coordinates(check)
    if variables is None:
        return None
    shapes = {v.name: _row(data[v.name]).shape for v in variables}
    start = [mpmath.mpf(float(to_fraction(x))) if not isinstance(x, mpmath.mpf) else x
             for v in variables for x in _row(data[v.name]).ravel()]
    n = len(start)
    if not n or n > MAX_COORDINATES:
        return None

    def unpack(xs):
        out, k = {}, 0
        for v in variables:
            size = int(np.prod(shapes[v.name], dtype=int))
            arr = np.empty((1,) + shapes[v.name], dtype=object)
            arr.reshape(-1)[:] = list(xs[k:k + size])
            out[v.name] = arr
            k += size
        return out

    def margin(*xs):
        mp = MPContext(max(mpmath.mp.dps, dps))  # at the working precision mpmath.diff raised it to
        with mp.precision():
            ev = check.evaluate(mp, mp.convert(unpack(list(xs))), dims, with_hypotheses=False)
            return ev.margin[0]

    deadline = time.monotonic() + seconds

    def refined(fixed: dict) -> list | None:
        """Newton on the coordinates not in ``fixed`` (index -> exact value), the others held."""
        free = [i for i in range(n) if i not in fixed]

        def full(ys):
            it = iter(ys)
            return [fixed[i] if i in fixed else next(it) for i in range(n)]

        def gradient(*ys):
            xs = full(ys)
            return [mpmath.diff(margin, xs, tuple(1 if j == i else 0 for j in range(n))) for i in free]

        ys = _newton(gradient, [mpmath.mpf(start[i]) for i in free], len(free), deadline) if free else []
        if ys is None:
            return None
        x = full(ys)
        value, scale = abs(margin(*x)), 1 + sum(abs(t) for t in x)
        if value > mpmath.mpf(10) ** (-(dps * 3) // 4) * scale:
            return None
        if max(abs(a - b) for a, b in zip(x, start)) > mpmath.mpf(10) ** -4 * scale:
            return None
        return x

    try:
        with mpmath.workdps(dps + 20):
            x = refined({})
            # the equality set may be a curve or a ray (its Hessian singular): hold one coordinate
            # at a nearby simple rational, which such a set usually crosses, and solve for the rest
            for j in range(n) if x is None and n > 1 else ():
                q = Fraction(float(start[j])).limit_denominator(10)
                x = refined({j: mpmath.mpf(q.numerator) / q.denominator})
                if x is not None:
                    break
            return None if x is None else unpack(x)
    except (ZeroDivisionError, ValueError, ArithmeticError, OverflowError, TypeError):
        return None


def _newton(gradient, x, n, deadline):
    """Newton's method on the gradient, its Jacobian (the Hessian) by differences; None unless
    it converges by ``deadline`` (a ``time.monotonic()`` value)."""
    tol = mpmath.mpf(10) ** (-(mpmath.mp.dps - 15))
    for _ in range(MAX_NEWTON_STEPS):
        if time.monotonic() > deadline:
            return None
        g = mpmath.matrix(gradient(*x))
        if mpmath.norm(g) == 0:
            return x
        h = mpmath.mpf(10) ** (-(mpmath.mp.dps // 3))
        jac = mpmath.matrix(n, n)
        for j in range(n):
            up = list(x)
            down = list(x)
            up[j] += h
            down[j] -= h
            col = (mpmath.matrix(gradient(*up)) - mpmath.matrix(gradient(*down))) / (2 * h)
            for i in range(n):
                jac[i, j] = col[i]
        try:
            step = mpmath.lu_solve(jac, g)
        except ZeroDivisionError:
            return None
        x = [a - b for a, b in zip(x, step)]
        if mpmath.norm(step) <= tol * (1 + mpmath.norm(mpmath.matrix(x))):
            return x
    return None


# ------------------------------------------------------------------------- exact points
def exact_point(check, refined, dims) -> EqualityPoint | None:
    """The refined point recognised coordinate by coordinate and verified exactly: an
    :class:`EqualityPoint` where lhs = rhs exactly and every hypothesis holds, else None."""
    with mpmath.workdps(REFINE_DPS):
        data, numbers = {}, []
        for name, arr in refined.items():
            flat = []
            for x in _row(arr).ravel():
                exact = recognise(mpmath.mpf(x), MAX_RECOGNISED_DEGREE)
                if exact is None:
                    return None
                flat.append(exact)
                numbers.append(exact)
            out = np.empty(len(flat), dtype=object)
            out[:] = [fmpq(q.numerator, q.denominator) if isinstance(q, Fraction) else q for q in flat]
            data[name] = out.reshape(_row(arr).shape)[None]
    return verified_equality(check, data, dims, numbers)


def verified_equality(check, data, dims, numbers=None) -> EqualityPoint | None:
    """``data`` as an :class:`EqualityPoint` when lhs = rhs exactly there and every hypothesis holds."""
    numbers = numbers if numbers is not None else [x for a in data.values() for x in np.asarray(a, dtype=object).ravel()]
    try:
        fld = field_of([_plain(x) for x in numbers])
        ctx = AlgebraicContext(fld)
        ev = check.evaluate(ctx, ctx.convert(data), dims)
    except (NotInField, NotRational, ZeroDivisionError, FunctionDomainError, ArithmeticError):
        return None
    for hyp, h in zip(check.hypotheses, ev.hypotheses):
        s = h[0].sign()
        if s < 0 or (hyp.strict and s == 0):
            return None
    if not ev.margin[0].is_zero() or not (ev.lhs[0] - ev.rhs[0]).is_zero():
        return None
    return EqualityPoint(data, dict(dims), fld, ev.lhs[0], ev.rhs[0])


def exact_equality_points(check, data, dims) -> list[EqualityPoint]:
    """The exact equality points near ``data`` (a point with a batch axis of 1: floats,
    rationals or mpfs): at most one today, the touching point Newton converges to, verified
    exactly.  Empty when there is none or it is not algebraic of small degree."""
    refined = refine_touching_point(check, data, dims)
    if refined is None:
        return []
    point = exact_point(check, refined, dims)
    return [] if point is None else [point]


# ------------------------------------------------------------------------- sets
def equality_sets(check, point: EqualityPoint, deadline: float | None = None) -> list[EqualitySet]:
    """The sets through ``point`` on which lhs = rhs identically: its scaling ray, the diagonals
    of its equal entries, and the set where two of its variables of one shape are equal.
    Each is shown by sympy simplifying the margin there to 0 (an exact identity)."""
    sym = SymbolicContext()
    coords = {k: [_sympy_of(x) for x in v] for k, v in point.coordinates().items()}
    shapes = {k: _row(v).shape for k, v in point.data.items()}
    t = sympy.Symbol("t", positive=True)
    out = []

    def vanishes(values) -> bool:
        data = {k: _sym_array(v, shapes[k]) for k, v in values.items()}
        try:
            ev = check.evaluate(sym, data, point.dims, with_hypotheses=False)
            return call_within(deadline, lambda: sympy.simplify(ev.lhs[0] - ev.rhs[0]) == 0)
        except (Exception, OutOfTime):
            return False

    if any(x != 0 for v in coords.values() for x in v) and vanishes({k: [t * x for x in v] for k, v in coords.items()}):
        out.append(EqualitySet("ray", f"lhs = rhs on the ray t\u00b7({point.describe()}), t > 0", {"point": _texts(coords)}))
    groups: dict = {}
    for k, v in coords.items():
        for i, x in enumerate(v):
            groups.setdefault(sympy.nsimplify(x), []).append((k, i))
    for value, entries in groups.items():
        if len(entries) < 2:
            continue
        moved = {k: list(v) for k, v in coords.items()}
        for k, i in entries:
            moved[k][i] = t
        if vanishes(moved):
            names = ", ".join(f"{k}[{i}]" if len(coords[k]) > 1 else k for k, i in entries)
            out.append(EqualitySet("diagonal", f"lhs = rhs wherever {names} are equal to one t > 0 (the others fixed)",
                                   {"entries": [[k, i] for k, i in entries]}))
    names = list(coords)
    for a_i, a in enumerate(names):
        for b in names[a_i + 1:]:
            if shapes[a] != shapes[b] or coords[a] != coords[b]:
                continue
            free = [sympy.Symbol(f"{a}_{i}") for i in range(len(coords[a]))]
            moved = dict(coords)
            moved[a] = moved[b] = free
            if vanishes(moved):
                out.append(EqualitySet("equal-variables", f"lhs = rhs wherever {a} = {b}", {"variables": [a, b]}))
    return out


def _sympy_of(x):
    if isinstance(x, AlgebraicNumber):
        return x.sympy
    return sympy.Rational(x.numerator, x.denominator)


def _sym_array(values, shape):
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    return arr.reshape(shape)[None]


def _texts(coords):
    return {k: [sympy.sstr(x) for x in v] for k, v in coords.items()}


# ------------------------------------------------------------------------- the search's hook
#: relative margins (float64) below which a near-tie is worth refining: an equality point is
#: met at 1e-16 and below, a search still descending toward one passes 1e-6 to 1e-12 first
TOUCHING = 1e-13


def _touching(check, row, dims) -> bool:
    try:
        with np.errstate(all="ignore"):
            ev = check.evaluate(FLOAT, {k: np.asarray(v, dtype=float) for k, v in row.items()}, dims, with_hypotheses=False)
            margin, scale = float(np.asarray(ev.margin)[0]), float(np.asarray(ev.scale)[0])
    except (ValueError, ArithmeticError, TypeError):
        return False
    return bool(np.isfinite(margin) and abs(margin) <= TOUCHING * max(scale, 1e-300))


def try_algebraic_near_tie(check, certifier, data, index, dims):
    """For a strict claim: certify the exact equality point near row ``index`` of a float
    batch, where both sides are equal and the strict claim fails.  The first violated
    (point, certificate), or None.  Non-strict claims hold at an equality point: None."""
    if not check.strict or plain_coordinates(check) is None:
        return None
    row = {k: np.asarray(v)[index:index + 1] for k, v in data.items()}
    if not _touching(check, row, dims):
        return None
    for point in exact_equality_points(check, row, dims):
        cert = certifier.certify(check, point.data, dims, display="violations")
        if cert.violated:
            return point.data, cert
    return None


__all__ = ["EqualityPoint", "EqualitySet", "equality_sets", "exact_equality_points", "exact_point", "plain_coordinates",
           "refine_touching_point", "try_algebraic_near_tie", "verified_equality"]
