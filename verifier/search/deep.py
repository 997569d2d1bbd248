"""The deep phase: a local search below float64's spacing on exact rationals, evaluated exactly where
the claim stays rational, else at dps digits, until the sign is known.

Its starts are the near-misses (points float64 called violations that dps digits did not) and
the best points of the float search whose relative margin lies below float64's resolution:
there float64 has done all it can -- a float search reaches a smooth extremum to about the
square root of its spacing, and there the margin's rounding errors exceed the margin -- and
only a search at higher precision can tell whether the claim fails nearby.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import scipy.optimize

from ..contexts import ExactContext, to_fraction
from ..sampling import exactify, project
from .evaluate import UNDEFINED_AT_POINT, exact_violation, precise_relative
from .refine import Layout

EXACT = ExactContext()

#: the first zoom: steps of 2^-26 of a coordinate's scale (float64's search leaves a smooth
#: extremum about the square root of its spacing away); each later zoom is 2^-ZOOM finer
FIRST_ZOOM = 26
ZOOM = 16
#: the value told to Powell where the claim is undefined or a hypothesis fails: worse than any
#: margin, and finite (Brent's parabolic steps turn an infinity into NaN)
OUTSIDE = 1e300


class _Spent(Exception):
    """The chunk's evaluations at dps digits (or its time) are used up."""


def run_deep_chunk(search, chunk, rng) -> None:
    """Powell's method (scipy) on the margin at dps digits, zooming in on the best point.

    The point moves by ``z * h`` for a float vector z, ``h`` a binary rational fraction of
    each coordinate's scale; the objective evaluates the exact point (``x + z h``, rounded to
    a binary rational of ``3.33 dps`` bits) exactly or at dps digits, so Powell's float
    arithmetic never rounds the point itself.  When a zoom level converges, the next one
    starts from the best point found with ``h`` 2^-16 smaller, down to what dps digits resolve.
    Every point whose margin is negative at that precision goes to the certificate.
    """
    config = search.config
    _, start, dims = chunk.start
    point = _exact_point(search.check, start, dims)
    if point is None:
        return
    layout = Layout(point)
    x = [to_fraction(q) for q in layout.flat(point)]
    if not x:
        return
    magnitude = [abs(q) + sum(abs(p) for p in x) / len(x) or Fraction(1) for q in x]
    bits = int(3.33 * config.dps)
    deep = _DeepObjective(search, layout, dims, config.deep_steps, bits)
    try:
        deep.value(x)
        zoom = FIRST_ZOOM
        while zoom < bits:
            if deep.best_point is not None:
                x = deep.best_point
            deep.centre(x, [_binary(m * Fraction(1, 2**zoom), bits) for m in magnitude])
            with np.errstate(all="ignore"):  # Brent's steps may overflow between OUTSIDE values
                scipy.optimize.minimize(deep, np.zeros(len(x)), method="Powell", options={"xtol": 1e-4, "ftol": 1e-6})
            zoom += ZOOM
    except _Spent:
        return


class _DeepObjective:
    """The margin at ``x + z h`` (exactly or at dps digits) as a float, for scipy.

    The margin, not the relative margin: near a tie such as ``(x - 1/3)^2 >= 1e-40`` the
    relative margin is 1 to float64's precision for every x but the closest, and Powell
    would see a flat function.  It is counted in units of the start's margin (or, at a tie,
    of what dps digits resolve of the sides), so its values are of order 1 and a change
    of 1e-30 of the sides is a change Powell sees.
    """

    def __init__(self, search, layout, dims, steps, bits):
        self.search, self.layout, self.dims = search, layout, dims
        self.left, self.bits = steps, bits
        self.unit_margin = None
        self.best_value, self.best_point = np.inf, None

    def centre(self, x, unit):
        self.x, self.unit = x, unit

    def __call__(self, z) -> float:
        return self.value([_binary(q + Fraction(float(s)) * u, self.bits) for q, s, u in zip(self.x, z, self.unit)])

    def value(self, flat) -> float:
        """The margin at an exact point in units of the start's (OUTSIDE where it is undefined or outside the hypotheses)."""
        search = self.search
        if self.left <= 0 or search.out_of_time():
            raise _Spent
        self.left -= 1
        cand = self.layout.batch(np.array([_fmpq(q) for q in flat], dtype=object)[None, :])
        try:
            cand = project(EXACT, search.check, cand, self.dims)
            ev, ctx = search.precise_evaluation(cand, self.dims, look=True)
        except UNDEFINED_AT_POINT:
            return OUTSIDE
        search.stats["deep_evaluations"] += 1
        if any(h[0] < 0 for h in ev.hypotheses):
            return OUTSIDE
        rel = precise_relative(ev, ctx)
        if rel is None:
            return OUTSIDE
        cert = search.deep_verdict(cand, self.dims, rel, phase="deep", explored=True,
                                   violated=exact_violation(search.check, ev, ctx))
        if cert is not None and cert.status in ("undecided", "hypothesis-fails"):
            return OUTSIDE
        with ctx.precision():
            margin = ev.margin[0]
            if cert is not None:
                margin = 0 * margin if cert.status != "holds" else abs(margin)  # the sign was noise at dps digits
            if self.unit_margin is None:
                resolution = (abs(ev.lhs[0]) + abs(ev.rhs[0])) * ctx.const(10) ** (5 - self.search.config.dps)
                self.unit_margin = abs(margin) if margin != 0 else (resolution if resolution != 0 else ctx.const(1))
            try:
                value = min(max(float(margin / self.unit_margin), -OUTSIDE), OUTSIDE)
            except (OverflowError, ZeroDivisionError, TypeError):
                return OUTSIDE
        if value < self.best_value:
            self.best_value = value
            self.best_point = [to_fraction(q) for q in self.layout.flat(cand)]
        return value


def _exact_point(check, start, dims):
    """A start as exact rationals in the domain (float points of the search are exactified)."""
    first = next(iter(start.values()), None)
    if first is None:
        return None
    if np.asarray(first).dtype != object:
        try:
            return exactify(check, start, 0, dims)
        except ValueError:
            return None
    return start


def _binary(q: Fraction, bits: int) -> Fraction:
    """``q`` rounded to a binary rational of ``bits`` significant bits.

    Binary rationals keep the certificate's ball arithmetic exact on the point itself (the
    ball precision exceeds ``bits``), so relations such as ``|b| <= eps`` that hold with
    equality are still certified, and steps far below float64's spacing survive.
    """
    if q == 0:
        return q
    shift = bits - (abs(q.numerator).bit_length() - q.denominator.bit_length())
    return Fraction(round(q * 2**shift), 2**shift) if shift > 0 else Fraction(round(q / 2 ** (-shift)) * 2 ** (-shift))


def _fmpq(q: Fraction):
    from flint import fmpq

    return fmpq(q.numerator, q.denominator)
