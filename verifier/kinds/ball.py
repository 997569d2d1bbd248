"""Balls: ``||x - c|| <= r`` in the Euclidean or the max norm, about a centre and of a radius
that may be numbers, other variables or expressions of them (``||a||_2 <= sigma``).

A relative kind: the centre and the radius are read from the earlier variables, in every
context (floats for the search, exactly for a certificate, Jets for a proof).  Samples
``x = c + r u`` with ``u`` drawn on the unit ball: its centre, its boundary (axes, diagonals,
normalised Gaussians, rational points of the sphere; vertices and faces of the cube for the
max norm), just inside it and uniformly inside.  Onto the ball exactly: a point outside is
moved to the boundary along its direction -- clipped entry by entry for the max norm, through
the unit sphere's rational points (stereographic) for the Euclidean one -- so a certificate
holds a point exactly on the ball; a radius that leaves the rationals (``sqrt(s)``) is
replaced by the lower end of its ball enclosure, which keeps the point inside.  Proofs:
``x = c + r t y`` with ``t`` in [0, 1] and ``y`` on the unit sphere's two stereographic charts
(Euclidean), ``x = c + r u`` with ``u`` in [-1, 1]^n (max norm), so the ball's boundary is a
face of the box; SMT states the ball by its membership (a polynomial inequality).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

import numpy as np
from flint import fmpq

from ..claims import ClaimDefinitionError, Hypothesis, Variable
from ..contexts import ExactContext, FloatContext, NotRational, exact_decimal
from ..draws import grouped, log_scale, pick, signs
from .base import (SHARE, UNIT, Coordinate, Kind, ProofMap, exact_bound, exact_point, hypothesis_texts, positive_rational, q, require_dim,
                   require_identifier, stereographic_point)
from .derived import IrrationalDerivedValue
from .sphere import UnitSphere, unit_sphere_samples

FLOAT = FloatContext()
BALL_NORMS = {2: "2", "2": "2", "inf": "inf", float("inf"): "inf"}

#: patterns of the unit ball's point ``u`` in ``x = c + r u``: its centre, its boundary, just
#: inside it, and inside
BALL_PATTERNS = {
    "2": {"centre": 0.5, "axis": 1.0, "diagonal": 1.0, "boundary": 2.0, "rational-boundary": 1.0, "near-boundary": 1.0,
          "inside": 1.5, "part-way": 0.7},
    "inf": {"centre": 0.5, "vertex": 1.5, "face": 1.5, "axis": 1.0, "ternary": 1.0, "near-boundary": 1.0, "inside": 1.5,
            "part-way": 0.7},
}


@dataclass(frozen=True)
class BallSet(Kind):
    """``||x - c|| <= r`` in the norm ``norm`` ("2" or "inf").

    ``center`` is None (the origin), a tuple of exact numbers, a variable's name, or a function ``f(ctx, v)``; ``radius`` a
    positive rational, a scalar variable's name, or a function ``f(ctx, v)``.  The texts name
    them in messages and stored files.
    """

    name = "ball"
    relative = True
    norm: str = "2"
    center: tuple[Fraction, ...] | str | Callable[[Any, Any], Any] | None = None
    radius: Fraction | str | Callable[[Any, Any], Any] = Fraction(1)
    center_text: str = "0"
    radius_text: str = "1"

    # -- the centre and the radius in any context ---------------------------------------
    def centre_of(self, ctx, v):
        """The centre, shaped to broadcast against the variable (batch first)."""
        if self.center is None:
            return 0
        if isinstance(self.center, tuple):  # a constant point, exactly as written
            return ctx.asarray(np.array([list(self.center)], dtype=object))
        return v[self.center] if isinstance(self.center, str) else self.center(ctx, v)

    def radius_of(self, ctx, v):
        """The radius, one per batch row."""
        if isinstance(self.radius, Fraction):
            return ctx.const(self.radius)
        return v[self.radius] if isinstance(self.radius, str) else self.radius(ctx, v)

    @property
    def fixed_radius(self) -> bool:
        return isinstance(self.radius, Fraction)

    # -- the set --------------------------------------------------------------------------
    def _distance_text(self, var):
        inner = f"{var.name} \u2212 {self.center_text}" if self.center is not None else var.name
        return f"\u2016{inner}\u2016" + ("\u2082" if self.norm == "2" else "\u221e")

    def hypotheses(self, var):
        out = []
        if not self.fixed_radius:
            out.append(Hypothesis(f"{self.radius_text} \u2265 0 (the radius of {var.name}'s ball)",
                                  lambda ctx, v: self.radius_of(ctx, v)))
        if self.norm == "2":
            def inside(ctx, v, n=var.name):
                d = v[n] - self.centre_of(ctx, v)
                r = self.radius_of(ctx, v)
                return r * r - ctx.sum_all(d * d)
            text = f"{self._distance_text(var)}\u00b2 \u2264 ({self.radius_text})\u00b2"
        else:
            def inside(ctx, v, n=var.name):
                return self.radius_of(ctx, v) - ctx.norm_inf(v[n] - self.centre_of(ctx, v))
            text = f"{self._distance_text(var)} \u2264 {self.radius_text}"
        out.append(Hypothesis(text, inside))
        return out

    def describe(self):
        return [f"norm={self.norm}", f"center={self.center_text}", f"radius={self.radius_text}"]

    def depends_on(self):
        return tuple(x for x in (self.center, self.radius) if isinstance(x, str))

    def proof_relation(self, var):
        return f"{var.name}: every value with {self._distance_text(var)} \u2264 {self.radius_text}"

    # -- onto the set ---------------------------------------------------------------------
    def onto(self, var, ctx, x, values):
        if isinstance(ctx, ExactContext):
            return self._onto_exact(var, ctx, x, values)
        x = np.array(x, dtype=float)
        with np.errstate(all="ignore"):
            c = np.broadcast_to(np.asarray(self.centre_of(FLOAT, values), dtype=float), x.shape)
            r = _rows(np.asarray(self.radius_of(FLOAT, values), dtype=float), x)
            d = np.where(np.isfinite(x), x - c, 0.0)
            size = np.max(np.abs(d), axis=-1, keepdims=True) if self.norm == "inf" else np.sqrt(np.sum(d * d, axis=-1, keepdims=True))
            scale = np.where(size > r, np.maximum(r, 0.0) / np.where(size > 0, size, 1.0), 1.0)
        return c + d * scale

    def _onto_exact(self, var, ctx, x, values):
        point = exact_point(np.asarray(x, dtype=object)[0])
        try:
            with ctx.precision():
                c = np.broadcast_to(np.asarray(self.centre_of(ctx, values), dtype=object), (1,) + point.shape)[0]
        except NotRational as exc:
            raise IrrationalDerivedValue(var, f"a point of the ball about {self.center_text}", str(exc),
                                         advice=f"a certificate needs the centre exactly: give {var.name}'s ball a rational centre "
                                                "(+ - * / of the other variables)") from None
        c = exact_point(c)
        with ctx.precision():
            r = np.ravel(np.asarray(exact_bound(ctx, self.radius_of, values, "lower"), dtype=object))[0]
        r = q(r)
        if r < 0:
            raise ValueError(f"the radius of {var.name}'s ball is negative here: the ball is empty")
        d = point - c
        if self.norm == "inf":
            return (c + np.array([min(max(v, -r), r) for v in d], dtype=object))[None]
        if sum((v * v for v in d), fmpq(0)) <= r * r:
            return point[None]
        if r == 0:
            return c[None]
        return (c + r * UnitSphere("2").onto_set_exact(d))[None]

    # -- samples --------------------------------------------------------------------------
    def patterns(self, var):
        return BALL_PATTERNS[self.norm]

    def draw(self, pattern, rng, m, shape, var):
        return unit_ball_samples(pattern, self.norm, rng, m, shape[-1])

    def sample(self, var, shape, rng, size, values=None):
        u = grouped(rng, size, shape, self.patterns(var), self.draw, var)  # points of the unit ball
        with np.errstate(all="ignore"):
            c = np.asarray(self.centre_of(FLOAT, values), dtype=float)
            r = np.asarray(self.radius_of(FLOAT, values), dtype=float)
            x = c + _rows(np.broadcast_to(r, (size,)), u) * u
        return np.clip(x, var.lo if var.lo is not None else -np.inf, var.hi if var.hi is not None else np.inf)

    # -- proofs ---------------------------------------------------------------------------
    def proof_map(self, var, shape, box, request):
        return None if request.smt else BallMap(var, shape, request.check, request.dims)


def _rows(r, like):
    """One number per batch row, shaped to broadcast against ``like`` (batch first)."""
    r = np.asarray(r)
    return r.reshape(r.shape + (1,) * (np.ndim(like) - np.ndim(r)))


def unit_ball_samples(name, norm, rng, m, n):
    """m points of the unit ball of a norm in R^n drawn by one pattern."""
    if n == 0:
        return np.zeros((m, 0))
    if name == "centre":
        return np.zeros((m, n))
    if name in ("axis", "diagonal", "vertex", "face"):
        return unit_sphere_samples(name, norm, rng, m, n)
    if name == "boundary":
        return unit_sphere_samples("gauss", norm, rng, m, n)
    if name == "rational-boundary":  # the sphere's rational points of small height: stereographic images of small rationals
        t = rng.integers(-3, 4, (m, n - 1)) / pick(rng, [1.0, 2.0, 3.0, 4.0], (m, 1))
        big = np.sum(t * t, axis=1, keepdims=True)
        out = np.concatenate([2 * t, 1 - big], axis=1) / (1 + big)
        return out * signs(rng, m, 1)
    if name == "ternary":
        return rng.integers(-1, 2, (m, n)).astype(float)
    if name == "near-boundary":
        return unit_sphere_samples("gauss", norm, rng, m, n) * (1 - log_scale(rng, m, -9, -2))[:, None]
    if name == "part-way":
        return unit_sphere_samples("gauss", norm, rng, m, n) * pick(rng, [1 / 2, 1 / 3, 2 / 3, 1 / 4, 3 / 4], (m, 1))
    if name == "inside":
        if norm == "inf":
            return rng.uniform(-1, 1, (m, n))
        return unit_sphere_samples("gauss", norm, rng, m, n) * rng.random((m, 1)) ** (1 / n)
    raise AssertionError(name)


class BallMap(ProofMap):
    """``x = c + r t y``, ``t`` in [0, 1] and ``y`` on the unit sphere's two stereographic charts
    (Euclidean); ``x = c + r u``, ``u`` in [-1, 1]^n (max norm): every image in the ball, its
    boundary a face of the box.  The radius's sign stays a hypothesis."""

    def __init__(self, var, shape, check, dims):
        super().__init__(var, shape)
        self.check, self.dims = check, dims
        (self.n,) = shape
        dom = var.domain
        self.built_in = hypothesis_texts(dom.hypotheses(var)[-1:])  # membership; the radius's sign is the claim's to show
        self.euclidean = dom.norm == "2" and self.n > 1
        self.pieces = 2 if self.euclidean else 1

    def coordinates(self):
        name = self.var.name
        if not self.euclidean:
            return [(Coordinate(name, (i,), False, "chart"), UNIT) for i in range(self.n)]
        return [(Coordinate(name, (i,), False, "chart"), UNIT) for i in range(self.n - 1)] + [(Coordinate(name, (), False, "radial"), SHARE)]

    def value(self, ctx, params, piece, data):
        dom = self.var.domain
        with ctx.precision():
            v = self.check.values(data, self.dims)
            c = np.asarray(dom.centre_of(ctx, v), dtype=object)
            r = np.ravel(np.asarray(dom.radius_of(ctx, v), dtype=object))[0]
            if self.euclidean:
                t = params[-1]
                u = [t * y for y in stereographic_point(ctx, list(params[:-1]), piece)]
            else:
                u = list(params)
            arr = np.empty((1, self.n), dtype=object)
            for i, ui in enumerate(u):
                arr[0, i] = r * ui
        return arr + c


# ----------------------------------------------------------------------------------- factory
def Ball(name: str, size: str | int, center: Any = None, radius: Any = 1, norm: Any = 2, center_text: str = "", radius_text: str = "",
         description: str = "") -> Variable:
    """A vector with ``||x - center|| <= radius`` in the Euclidean (``norm=2``) or max (``norm="inf"``) norm.

    ``center``: None (the origin), a point of exact numbers (``(1, "1/2")``: a Fraction, an int,
    a string, a float by its shortest repr), the name of a vector variable of the same size
    declared before, or a function ``f(ctx, v)``; ``radius``: a positive exact rational, the name of a
    scalar variable declared before, or a function ``f(ctx, v)`` (``lambda ctx, v: ctx.sqrt(v.s)``).
    ``center_text``/``radius_text`` name the functions in messages (``"2 mu"``).
    """
    require_identifier(name)
    require_dim(f"Ball {name}", "size", size)
    owner = f"Ball {name}"
    if norm not in BALL_NORMS:
        raise ClaimDefinitionError(f"{owner}: norm must be 2 or 'inf', got {norm!r}")
    if isinstance(center, (list, tuple)):
        center = tuple(_exact(owner, "center", c) for c in center)
        if isinstance(size, int) and len(center) != size:
            raise ClaimDefinitionError(f"{owner}: center has {len(center)} entries, the ball's size is {size}")
    elif center is not None and not callable(center) and not (isinstance(center, str) and center.isidentifier()):
        raise ClaimDefinitionError(f"{owner}: center must be None, a point, a variable's name or a function f(ctx, v), got {center!r}")
    if isinstance(radius, str) and radius.isidentifier():
        text = radius_text or radius
    elif callable(radius):
        text = radius_text or "its radius"
    else:
        radius = positive_rational(owner, "radius", radius)
        text = radius_text or str(radius)
    if isinstance(center, tuple):
        ctext = center_text or "(" + ", ".join(str(c) for c in center) + ")"
    else:
        ctext = center_text or (center if isinstance(center, str) else "its centre" if center is not None else "0")
    return Variable(name, (size,), domain=BallSet(BALL_NORMS[norm], center, radius, ctext, text), description=description)


def _exact(owner, what, value) -> Fraction:
    try:
        if isinstance(value, bool):
            raise TypeError
        return exact_decimal(value)
    except (TypeError, ValueError):
        raise ClaimDefinitionError(f"{owner}: {what} must hold exact numbers (an int, '3/2', a Fraction), got {value!r}") from None


__all__ = ["Ball", "BallSet", "BallMap", "BALL_PATTERNS", "unit_ball_samples"]
