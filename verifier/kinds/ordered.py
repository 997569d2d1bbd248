"""Ordered vectors: ``x_1 <= x_2 <= ... <= x_n`` with entries in ``[lo, hi]``.

Onto the set: sort (exactly or in floats).  Samples: ties, all entries equal, entries at
``lo``/``hi``, sorted uniform draws, cumulative exponentials, sorted small integers.  Proofs:
``x_n = lo + (hi - lo) s_n``, ``x_k = lo + (x_{k+1} - lo) s_k`` over ``[0, 1]^n`` for branch
and bound (it needs both bounds), every entry a symbol with ``x_{k+1} - x_k >= 0`` for SMT.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..claims import Hypothesis, Variable
from ..draws import log_scale
from .base import SHARE, Bounds, Constraint, Coordinate, Entries, Kind, NoChart, ProofMap, bound_texts, hypothesis_texts, require_dim, require_identifier

ORDERED_PATTERNS = {"ties": 2.0, "all-equal": 0.7, "at-bounds": 1.0, "sorted": 2.0,
                    "increments": 1.5, "small-int": 1.0}


@dataclass(frozen=True)
class OrderedEntries(Kind):
    """``x_1 <= x_2 <= ... <= x_n``; onto the set: sort."""

    name = "ordered"

    def hypotheses(self, var):
        def gap(ctx, v, n=var.name):
            x = v[n]
            if np.shape(x)[-1] < 2:
                return ctx.const(0)
            return ctx.min_all(x[..., 1:] - x[..., :-1])

        return [Hypothesis(f"{var.name}\u2081 \u2264 {var.name}\u2082 \u2264 \u2026 (ordered)", gap)]

    def onto_set(self, x):
        return np.sort(x, axis=-1)

    def onto_set_exact(self, point):
        return np.array(sorted(point), dtype=object)

    # -- samples ----------------------------------------------------------------------------
    def patterns(self, var):
        return ORDERED_PATTERNS

    def draw(self, pattern, rng, m, shape, var):
        return ordered_samples(pattern, rng, m, shape[-1], var.lo, var.hi)

    def on_boundary(self, var, flat):
        tie = np.any(np.diff(flat, axis=1) == 0, axis=1)
        for end in (var.lo, var.hi):
            if end is not None:
                tie |= np.any(flat == end, axis=1)
        return tie

    # -- proofs -----------------------------------------------------------------------------
    def proof_map(self, var, shape, box, request):
        if request.smt:
            return OrderedSymbols(var, shape, box)
        if box is None:
            raise NoChart(f"branch and bound needs a bounded box for {var.name}: give --box {var.name}=LO:HI (or --box LO:HI)")
        return OrderedChart(var, shape, box)


def ordered_samples(name, rng, m, n, lo, hi):
    """m ordered vectors of length n in [lo, hi] drawn by one pattern."""
    if lo is not None and hi is not None:
        draw = lambda shape: rng.uniform(lo, hi, shape)  # noqa: E731
    else:
        base = lo if lo is not None else (hi if hi is not None else 0.0)
        sign = 1.0 if lo is not None else (-1.0 if hi is not None else 0.0)

        def draw(shape):
            g = rng.standard_normal(shape) * log_scale(rng, shape[0], -1, 1)[:, None]
            return base + (np.abs(g) * sign if sign else g)

    if name == "sorted":
        x = draw((m, n))
    elif name == "ties":
        x = draw((m, n))
        x = np.sort(x, axis=1)
        tie = rng.random((m, n)) < 0.5
        tie[:, 0] = False
        for j in range(1, n):
            x[:, j] = np.where(tie[:, j], x[:, j - 1], x[:, j])
    elif name == "all-equal":
        x = np.repeat(draw((m, 1)), n, axis=1)
    elif name == "at-bounds":
        x = draw((m, n))
        ends = [e for e in (lo, hi) if e is not None] or [0.0]
        pick = rng.random((m, n)) < 0.5
        x = np.where(pick, rng.choice(ends, (m, n)), x)
    elif name == "increments":
        start = draw((m, 1))
        x = start + np.concatenate([np.zeros((m, 1)), np.cumsum(np.exp(rng.standard_normal((m, max(n - 1, 0))) - 1), axis=1)], axis=1)
    elif name == "small-int":
        x = rng.integers(-3, 4, (m, n)).astype(float)
    else:
        raise AssertionError(name)
    x = np.clip(x, lo if lo is not None else -np.inf, hi if hi is not None else np.inf)
    return np.sort(x, axis=1)


class OrderedChart(ProofMap):
    """``x_n = lo + (hi - lo) s_n``, ``x_k = lo + (x_{k+1} - lo) s_k``: onto the ordered vectors in [lo, hi]."""

    def __init__(self, var, shape, box: Bounds):
        super().__init__(var, shape)
        self.lo, self.hi = box
        self.built_in = hypothesis_texts(var.domain.hypotheses(var)) | bound_texts(var)

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


class OrderedSymbols(Entries):
    """SMT: every entry a symbol, and ``x_{k+1} - x_k >= 0`` one by one (linear, without case splits)."""

    def __init__(self, var, shape, span):
        super().__init__(var, shape, span, hypothesis_texts(var.domain.hypotheses(var)))
        self.constraints = (Constraint(f"{var.name} ordered", lambda ctx, v, n=var.name: v[n][..., 1:] - v[n][..., :-1]),)



def Ordered(name: str, size: str, lo: float | None = None, hi: float | None = None, description: str = "") -> Variable:
    """A vector with ``x_1 <= x_2 <= ... <= x_n`` and entries in ``[lo, hi]``."""
    require_identifier(name)
    require_dim(f"Ordered {name}", "size", size)
    return Variable(name, (size,), lo=lo, hi=hi, domain=OrderedEntries(), description=description)


__all__ = ["Ordered", "OrderedEntries", "ORDERED_PATTERNS", "ordered_samples", "OrderedChart", "OrderedSymbols"]
