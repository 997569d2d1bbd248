"""Shrink a certified counterexample to one a human can check on paper.

Moves, in order of value to a reader: drop a row/column index of a dimension, then make
entries simpler -- zero, an integer, a fraction with a small denominator, a smaller
magnitude.  A move is kept only if the result is still a *certified* violation, so the
certificate holds at every step, and only if it makes the point strictly simpler:
fewer dimensions first, then fewer digits in total.

Moves act on *coordinates*: a variable built as ``near + radius * U`` is represented by its
unit-box coordinate ``U``, so simplifying ``eps`` carries ``B`` along with it, and ``U``
itself snaps to the corners ``-1, 0, 1`` where the hypothesis is tight.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

import numpy as np
from flint import fmpq

from .algebraic import is_algebraic_data
from .certify import Certificate, Certifier
from .claims import Check
from .contexts import ExactContext, to_fraction
from .rational_points import DENOMINATORS, nearby_simple_points, rounded_in_charts
from .sampling import project

EXACT = ExactContext()
#: denominators a point on a set is rounded to in its chart, smallest first: past the near-tie
#: ladder, up to where a violation region of width 10^-6 still holds one
CHART_DENOMINATORS = tuple(sorted(set(DENOMINATORS) | {1, 11, 13, 15, 25, 40, 50, 64, 128, 200, 256, 500, 1000, 2000, 5000, 10**4,
                                                       2 * 10**4, 5 * 10**4, 10**5, 10**6}))


def complexity(q: Fraction) -> int:
    """Digits a human reads: bit lengths of numerator and denominator."""
    if q == 0:
        return 0
    return abs(q.numerator).bit_length() + (q.denominator.bit_length() - 1) + 1


def point_complexity(data, dims) -> tuple[int, int, int]:
    """Dimensions first, then digits, then magnitudes (so -2 is simpler than -3)."""
    qs = [to_fraction(x) for arr in data.values() for x in np.asarray(arr).ravel()]
    return (sum(dims.values()), sum(map(complexity, qs)), sum(abs(q.numerator) + q.denominator for q in qs))


@dataclass
class ShrinkResult:
    data: dict
    dims: dict
    certificate: Certificate
    attempts: int
    accepted: int


class Shrinker:
    def __init__(self, check: Check, certifier: Certifier, max_attempts: int = 4000, time_limit: float = 20.0):
        self.check = check
        self.certifier = certifier
        self.max_attempts = max_attempts
        self.time_limit = time_limit
        self.attempts = 0
        self.accepted = 0

    def shrink(self, data: Mapping[str, np.ndarray], dims: Mapping[str, int], certificate: Certificate) -> ShrinkResult:
        self._deadline = time.monotonic() + self.time_limit
        if is_algebraic_data(data):  # an exact equality point: its minimal polynomials are as simple as it gets
            return ShrinkResult(dict(data), dict(dims), certificate, 0, 0)
        coords = self._coords({k: np.asarray(v, dtype=object) for k, v in data.items()})
        best = (coords, dict(dims), certificate)
        improved = True
        while improved and not self._out_of_budget():
            improved = False
            for move in (self._drop_indices, self._simple_points, self._global_rounding, self._entry_moves):
                result = move(*best)
                if result is not None:
                    best = result
                    improved = True
        data, dims, cert = self._decode(best[0], best[1]), best[1], best[2]
        if cert is not certificate:
            cert = self.certifier.certify(self.check, data, dims)
        return ShrinkResult(data, dims, cert, self.attempts, self.accepted)

    # -- coordinates ---------------------------------------------------------------------
    def _coords(self, data):
        out = dict(data)
        for var in self.check.variables:
            if var.radius is None:
                continue
            r = _expand(data[var.radius], np.ndim(data[var.name]) - 1)
            centre = data[var.near] if var.near else 0
            diff = data[var.name] - centre
            out[var.name] = np.frompyfunc(lambda d, rr: d / rr if rr != 0 else fmpq(0), 2, 1)(diff, r)
        return out

    def _decode(self, coords, dims):
        data = dict(coords)
        for var in self.check.variables:
            if var.radius is None:
                continue
            r = _expand(data[var.radius], np.ndim(coords[var.name]) - 1)
            centre = data[var.near] if var.near else 0
            data[var.name] = centre + r * coords[var.name]
        return project(EXACT, self.check, data, dims)

    # ----------------------------------------------------------------------------------
    def _out_of_budget(self) -> bool:
        return self.attempts >= self.max_attempts or time.monotonic() > self._deadline

    def _try(self, coords, dims, current_key):
        """Certify a candidate; return (coords, dims, cert) if it is simpler and still violated."""
        if self._out_of_budget():
            return None
        try:
            data = self._decode(coords, dims)
            coords = self._coords(data)  # projection may have moved the point
        except (ZeroDivisionError, ArithmeticError, ValueError):
            return None
        if self._complexity(coords, data, dims) >= current_key:
            return None
        self.attempts += 1
        try:
            # the values shown to readers are computed once, for the final point
            cert = self.certifier.certify(self.check, data, dims, display=False)
        except (ZeroDivisionError, ArithmeticError, ValueError):
            return None
        if not cert.violated:
            return None
        self.accepted += 1
        return coords, dims, cert

    def _key(self, coords, dims):
        return self._complexity(coords, self._decode(coords, dims), dims)

    @staticmethod
    def _complexity(coords, data, dims):
        """What a reader sees (the values) plus how the point is built (the coordinates).

        Values alone would refuse to snap U = 0.99999... to 1 while eps is still ugly (B
        would become as ugly as eps); counting both lets the snap pay for itself and eps
        follow on the next move.
        """
        d, bits, mags = point_complexity(data, dims)
        _, cbits, cmags = point_complexity(coords, dims)
        return (d, bits + cbits, mags + cmags)

    def _drop_indices(self, data, dims, cert):
        key = self._key(data, dims)
        for dim in self.check.dims:
            size = dims[dim.name]
            if size <= dim.lo:
                continue
            for i in range(size):
                new = {}
                for var in self.check.variables:
                    arr = data[var.name]
                    for axis, s in enumerate(var.shape):
                        if s == dim.name:
                            arr = np.delete(arr, i, axis=axis + 1)
                    new[var.name] = arr
                new_dims = dict(dims, **{dim.name: size - 1})
                result = self._try(new, new_dims, key)
                if result is not None:
                    return result
        return None

    def _simple_points(self, data, dims, cert):
        """The point rounded to small denominators where its sets' points are simple, back on the sets.

        Entry moves alone rarely pay on a constrained variable: a simplex row or a unit vector
        projected back after one entry changed is seldom simpler than before.
        """
        if not any(var.domain is not None for var in self.check.variables):
            return None
        key = self._key(data, dims)
        current = self._decode(data, dims)
        onto = lambda d: project(EXACT, self.check, d, dims)  # noqa: E731
        candidates = [self._coords(c) for c in rounded_in_charts(self.check, current, dims, onto, CHART_DENOMINATORS)
                      + nearby_simple_points(self.check, current, dims, onto)]
        # simplest first: the first certified one is the simplest of them all
        ranked = sorted((self._key(c, dims), i) for i, c in enumerate(candidates))
        for cand_key, i in ranked:
            if cand_key >= key:
                break
            result = self._try(candidates[i], dims, key)
            if result is not None:
                return result
        return None

    def _global_rounding(self, data, dims, cert):
        """Round every entry at once: to integers after scaling, or to a common denominator."""
        key = self._key(data, dims)
        for scale in (1, 2, 3, 4, 6, 8, 10, 12, 16, 100):
            for mode in ("scale", "denominator"):
                if mode == "denominator" and scale == 1:
                    continue
                new = {}
                for name, arr in data.items():
                    f = np.frompyfunc(lambda x: _round_global(x, scale, mode), 1, 1)
                    new[name] = f(arr)
                result = self._try(new, dims, key)
                if result is not None:
                    return result
        return None

    def _entry_moves(self, data, dims, cert):
        best = None
        for name in list(data):
            arr = data[name]
            for idx in np.ndindex(arr.shape):
                cur = to_fraction(arr[idx])
                current = best or (data, dims, cert)
                key = self._key(current[0], current[1])
                for cand in _simpler_values(cur):
                    new = dict(current[0])
                    new_arr = np.array(current[0][name], dtype=object, copy=True)
                    new_arr[idx] = fmpq(cand.numerator, cand.denominator)
                    new[name] = new_arr
                    result = self._try(new, dims, key)
                    if result is not None:
                        best = result
                        break
                if self._out_of_budget():
                    return best
        return best


def _expand(x, ndim):
    x = np.asarray(x, dtype=object)
    return x.reshape(x.shape + (1,) * ndim)


def _round_global(x, scale, mode):
    q = to_fraction(x)
    if mode == "scale":
        r = round(q * scale)
    else:
        r = Fraction(round(q * scale), scale)
    return fmpq(Fraction(r).numerator, Fraction(r).denominator)


def _simpler_values(q: Fraction):
    """Candidate replacements for q, simplest first."""
    seen = {q}
    out = []

    def add(c):
        c = Fraction(c)
        if c not in seen and (complexity(c), abs(c.numerator)) < (complexity(q), abs(q.numerator)):
            seen.add(c)
            out.append(c)

    add(0)
    add(round(q))
    add(int(q))  # toward zero
    add(q.numerator // q.denominator)
    add(-((-q.numerator) // q.denominator))
    for den in (2, 3, 4, 5, 8, 10, 16):
        add(Fraction(round(q * den), den))
    for limit in (10, 100, 1000, 10**4, 10**6):
        add(q.limit_denominator(limit))
    if abs(q) > 1:
        sign = 1 if q > 0 else -1
        for k in (1, 2, 3, 4, 5):
            add(sign * k)
        for div in (2, 4, 10, 100):
            add(int(q / div))
    elif 0 < abs(q) < 1:
        # small but nonzero may be what the violation needs (eps below a threshold): try
        # simple small numbers, not only 0 and +-1
        sign = 1 if q > 0 else -1
        for k in range(1, 11):
            add(Fraction(sign, 2**k))
        for k in range(1, 7):
            add(Fraction(sign, 10**k))
    out.sort(key=lambda c: (complexity(c), abs(c.numerator)))
    return out
