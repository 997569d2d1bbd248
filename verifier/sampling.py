"""Candidate generation that reaches the degenerate and extreme corners of a domain.

Uniform random inputs almost never hit the cases where inequalities break: zeros, equal
rows, rank-one matrices, sign patterns, tiny and huge scales, and the boundary of each
hypothesis (``B`` exactly ``eps`` away from ``A``).  Every candidate therefore picks a
*pattern* per variable; the mix is deliberately heavy on structure.

Everything here is float64 and batched; the exact side of the domain (projection of
rational points back into the domain) lives in :func:`project`.  The constrained kinds
(:mod:`verifier.kinds`) are read, not extended: each kind draws its own samples from its own
pattern table and moves points onto its set itself; the sampler only orders the variables.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Mapping

import numpy as np

from .claims import Check, Variable
from .contexts import ExactContext, FloatContext, to_fraction
from .draws import grouped, log_scale, per_sample, pick
from .kinds.base import arb_endpoint_to_fmpq, exact_bound

FLOAT = FloatContext()

# pattern name -> weight, for free (unrelated) array entries
FREE_PATTERNS = {
    "gauss": 3.0,
    "small-int": 2.0,
    "sparse-int": 1.5,
    "zero": 0.3,
    "equal-rows": 1.0,
    "equal-cols": 0.7,
    "rank-one": 1.0,
    "signs": 1.0,
    "extreme-scale": 1.0,
    "simple-fraction": 0.8,
    "uniform-box": 1.0,
}

# patterns of the unit-box coordinate U in ``v = near + radius * U``
RELATION_PATTERNS = {
    "boundary": 3.0,  # every entry at +-1: the hypothesis is tight everywhere
    "uniform": 2.0,
    "ternary": 2.0,  # entries in {-1, 0, 1}
    "one-hot": 1.0,
    "constant": 0.7,  # the same shift on every entry
    "zero": 0.2,
    "mostly-boundary": 1.0,
}

SCALAR_PATTERNS = {
    "log-uniform": 3.0,
    "small-int": 1.5,
    "simple-fraction": 1.0,
    "at-lo": 0.6,
    "at-hi": 0.6,
    "uniform-box": 1.5,
    "extreme": 0.7,
}

BOUND_PATTERNS = {  # scalar with a lower/upper bound function
    "at-bound": 3.0,
    "near-bound": 2.0,
    "between": 2.0,
    "far": 1.0,
}


#: unit vectors of one size that make a group drawn together
MIN_CONFIGURATION = 3


class Sampler:
    """Draws batches of float64 candidates for one check."""

    def __init__(self, check: Check):
        self.check = check
        self.variables = check.variables
        self.dims = check.dims
        # unit vectors of one size (and sphere radius) are also drawn together, as a known
        # configuration (:mod:`verifier.configurations`); a group is drawn when its last member is
        groups: dict = {}
        for var in self.variables:
            if var.domain is not None and var.domain.draws_together:
                groups.setdefault((var.domain, var.shape), []).append(var.name)
        self.groups = {names[-1]: (domain, names) for (domain, _), names in groups.items() if len(names) >= MIN_CONFIGURATION}

    # -- dimensions --------------------------------------------------------------------
    def pick_dims(self, rng: np.random.Generator) -> dict[str, int]:
        out = {}
        for d in self.dims:
            u = rng.random()
            if u < 0.45:
                out[d.name] = int(rng.integers(d.lo, min(d.lo + 2, d.hi) + 1))
            elif u < 0.85:
                out[d.name] = int(rng.integers(d.lo, d.hi + 1))
            else:
                out[d.name] = d.hi if rng.random() < 0.5 else d.lo
        return out

    # -- values --------------------------------------------------------------------------
    def sample(self, dims: Mapping[str, int], rng: np.random.Generator, size: int) -> dict[str, np.ndarray]:
        data: dict[str, np.ndarray] = {}
        for var in self.variables:
            shape = var.concrete_shape(dims)
            if var.domain is not None:
                values = self.check.values(data, dims) if var.domain.relative else None
                data[var.name] = var.domain.sample(var, shape, rng, size, values)
                if var.name in self.groups:
                    domain, names = self.groups[var.name]
                    domain.draw_together(names, data, shape, rng, size)
                continue
            if var.radius is not None:
                u = grouped(rng, size, shape, RELATION_PATTERNS, _relation_pattern)
                centre = data[var.near] if var.near else 0.0
                radius = _expand(data[var.radius], len(shape))
                x = centre + radius * u
            elif var.lower is not None or var.upper is not None:
                x = self._bounded_scalar(var, data, dims, rng, size)
            elif not shape:
                x = grouped(rng, size, shape, SCALAR_PATTERNS, _scalar_pattern, var)
            else:
                x = grouped(rng, size, shape, FREE_PATTERNS, _free_pattern, var)
            data[var.name] = _clip_box(x, var)
        return batch_fastest(data)

    def _bounded_scalar(self, var: Variable, data, dims, rng, size):
        v = self.check.values(data, dims)
        with np.errstate(all="ignore"):
            lower = np.asarray(var.lower(FLOAT, v), dtype=float) if var.lower else None
            upper = np.asarray(var.upper(FLOAT, v), dtype=float) if var.upper else None
        lower = np.broadcast_to(lower, (size,)) if lower is not None else None
        upper = np.broadcast_to(upper, (size,)) if upper is not None else None
        names = list(BOUND_PATTERNS)
        w = np.array([BOUND_PATTERNS[n] for n in names])
        pick = rng.choice(len(names), size=size, p=w / w.sum())
        scale = 10.0 ** rng.uniform(-6, 1, size)
        if lower is not None and upper is not None:
            width = upper - lower
            options = [
                np.where(rng.random(size) < 0.5, lower, upper),
                np.where(rng.random(size) < 0.5, lower + width * scale.clip(max=1), upper - width * scale.clip(max=1)),
                lower + width * rng.random(size),
                lower + width * rng.random(size),
            ]
        elif lower is not None:
            mag = np.abs(lower) + 1e-300
            options = [lower, lower + mag * scale, lower + mag * rng.exponential(1, size), lower + 10.0 ** rng.uniform(-3, 3, size)]
        else:
            mag = np.abs(upper) + 1e-300
            options = [upper, upper - mag * scale, upper - mag * rng.exponential(1, size), upper - 10.0 ** rng.uniform(-3, 3, size)]
        return np.choose(pick, options)

    def project(self, data: dict[str, np.ndarray], dims) -> dict[str, np.ndarray]:
        """Clip float candidates back into the domain (used by local search)."""
        return project(FLOAT, self.check, data, dims)


def batch_fastest(data: dict) -> dict:
    """Lay every float array out with the batch axis varying fastest in memory.

    A claim's operations run over the batch for each matrix entry; numpy picks its inner
    loop along the contiguous axis, so this turns inner loops of n or d entries (slow: a
    (batch, 1, d) array broadcast against (batch, n, d) runs at a quarter of numpy's speed)
    into loops over the whole batch.  Values, and therefore results, are unchanged;
    Lemma 4.1 at n = d = 8 evaluates 2.4x faster.
    """
    return {k: np.asfortranarray(v) if np.ndim(v) > 1 and getattr(v, "dtype", None) != object else v for k, v in data.items()}


def project(ctx, check: Check, data: dict, dims) -> dict:
    """Move a candidate into the domain by clipping, in declaration order.

    Written once against ``ctx``: float64 for local search, exact rationals when a
    float candidate is turned into a rational one (where float rounding may have put
    ``B`` a hair outside ``||B - A|| <= eps``).  Bound functions that leave the rationals
    are enclosed in ball arithmetic and the rigorous side of the ball is used.
    """
    out = dict(data)
    v = None
    for var in check.variables:
        x = out[var.name]
        if var.domain is not None:
            x = var.domain.onto(var, ctx, x, check.values(out, dims))
            if var.domain.computed:  # clipping would break its definition; its bounds are hypotheses
                out[var.name] = x
                continue
        if var.radius is not None:
            centre = out[var.near] if var.near else 0
            r = _expand_ctx(out[var.radius], np.ndim(x) - 1)
            x = ctx.minimum(ctx.maximum(x, centre - r), centre + r)
        if var.lower is not None or var.upper is not None:
            v = check.values(out, dims)
            if var.lower is not None:
                x = ctx.maximum(x, exact_bound(ctx, var.lower, v, "upper"))
            if var.upper is not None:
                x = ctx.minimum(x, exact_bound(ctx, var.upper, v, "lower"))
        if var.lo is not None:
            x = ctx.maximum(x, var.lo)  # a Bound: the exact value written in exact contexts
        if var.hi is not None:
            x = ctx.minimum(x, var.hi)
        out[var.name] = x
    return out


def _expand(x, ndim):
    x = np.asarray(x, dtype=float)
    return x.reshape(x.shape + (1,) * ndim)


def _expand_ctx(x, ndim):
    x = np.asarray(x)
    return x.reshape(x.shape + (1,) * ndim)


def _clip_box(x, var: Variable):
    if var.lo is not None or var.hi is not None:
        x = np.clip(x, var.lo if var.lo is not None else -np.inf, var.hi if var.hi is not None else np.inf)
    return np.asarray(x, dtype=float)


def _free_pattern(name, rng, m, shape, var: Variable):
    full = (m,) + tuple(shape)
    if name == "gauss":
        return rng.standard_normal(full) * per_sample(m, shape, log_scale(rng, m))
    if name == "small-int":
        return rng.integers(-3, 4, full).astype(float)
    if name == "sparse-int":
        return rng.integers(-3, 4, full) * (rng.random(full) < 0.4)
    if name == "zero":
        return np.zeros(full)
    if name == "equal-rows" and len(shape) == 2:
        row = rng.standard_normal((m, 1, shape[1])) * per_sample(m, (1, 1), log_scale(rng, m))
        return np.broadcast_to(row, full).copy()
    if name == "equal-cols" and len(shape) == 2:
        col = rng.standard_normal((m, shape[0], 1)) * per_sample(m, (1, 1), log_scale(rng, m))
        return np.broadcast_to(col, full).copy()
    if name == "rank-one" and len(shape) == 2:
        u = rng.integers(-2, 3, (m, shape[0], 1)) if rng.random() < 0.5 else rng.standard_normal((m, shape[0], 1))
        w = rng.standard_normal((m, 1, shape[1]))
        return (u * w).astype(float)
    if name in ("equal-rows", "equal-cols", "rank-one"):  # vectors: constant / one-hot
        if name == "rank-one":  # one-hot over all entries (vectors and higher-order arrays alike)
            out = np.zeros((m, int(np.prod(shape, dtype=int))))
            idx = rng.integers(0, out.shape[1], m)
            out[np.arange(m), idx] = rng.standard_normal(m) * log_scale(rng, m)
            return out.reshape(full)
        return np.broadcast_to(rng.standard_normal((m,) + (1,) * len(shape)), full).copy()
    if name == "signs":
        return pick(rng, [-1.0, 1.0], full) * per_sample(m, shape, log_scale(rng, m))
    if name == "extreme-scale":
        return rng.standard_normal(full) * per_sample(m, shape, log_scale(rng, m, -8, 8))
    if name == "simple-fraction":
        return rng.integers(-6, 7, full) / pick(rng, [1.0, 2.0, 3.0, 4.0], full)
    if name == "uniform-box":
        lo = var.lo if var.lo is not None else -1.0
        hi = var.hi if var.hi is not None else 1.0
        return rng.uniform(lo, hi, full)
    raise AssertionError(name)


def _relation_pattern(name, rng, m, shape, *_):
    full = (m,) + tuple(shape)
    if name == "boundary":
        return pick(rng, [-1.0, 1.0], full)
    if name == "uniform":
        return rng.uniform(-1, 1, full)
    if name == "ternary":
        return rng.integers(-1, 2, full).astype(float)
    if name == "one-hot":
        out = np.zeros((m, int(np.prod(shape, dtype=int))))
        if out.shape[1]:
            out[np.arange(m), rng.integers(0, out.shape[1], m)] = pick(rng, [-1.0, 1.0], m)
        return out.reshape(full)
    if name == "constant":
        return np.broadcast_to(pick(rng, [-1.0, 1.0], (m,) + (1,) * len(shape)), full).copy()
    if name == "zero":
        return np.zeros(full)
    if name == "mostly-boundary":
        return np.where(rng.random(full) < 0.8, pick(rng, [-1.0, 1.0], full), rng.uniform(-1, 1, full))
    raise AssertionError(name)


def _scalar_pattern(name, rng, m, shape, var: Variable):
    lo = var.lo if var.lo is not None else None
    hi = var.hi if var.hi is not None else None
    sign = 1.0 if (lo is not None and lo >= 0) else None

    def signed(x):
        if sign is not None:
            return np.abs(x) + (lo or 0.0)
        if hi is not None and hi <= 0:
            return hi - np.abs(x)
        return x * pick(rng, [-1.0, 1.0], m)

    if name == "log-uniform":
        return signed(10.0 ** rng.uniform(-4, 3, m))
    if name == "small-int":
        return signed(rng.integers(0, 4, m).astype(float))
    if name == "simple-fraction":
        return signed(rng.integers(1, 7, m) / pick(rng, [2.0, 3.0, 4.0, 8.0], m))
    if name == "at-lo":
        return np.full(m, lo) if lo is not None else signed(10.0 ** rng.uniform(-8, -4, m))
    if name == "at-hi":
        return np.full(m, hi) if hi is not None else signed(10.0 ** rng.uniform(3, 8, m))
    if name == "uniform-box":
        a = lo if lo is not None else (-10.0 if hi is None or hi > -10 else hi - 10)
        b = hi if hi is not None else a + 20.0
        return rng.uniform(a, b, m)
    if name == "extreme":
        return signed(10.0 ** rng.uniform(-12, 12, m))
    raise AssertionError(name)


def exactify(check: Check, data: Mapping[str, np.ndarray], index: int, dims) -> dict[str, np.ndarray]:
    """The exact rational point behind float candidate ``index``, projected into the domain.

    Raises ValueError on a non-finite entry.
    """
    ctx = ExactContext()
    exact = {}
    for name, arr in data.items():
        x = np.asarray(arr[index : index + 1], dtype=float)
        if not np.all(np.isfinite(x)):
            raise ValueError(f"non-finite entry in {name}")
        exact[name] = ctx.asarray(x.astype(object))
    return project(ctx, check, exact, dims)


def fractions_of(arr: np.ndarray) -> np.ndarray:
    """Exact Fractions of an object array of rationals."""
    return np.frompyfunc(to_fraction, 1, 1)(arr)


def on_boundary(var, x) -> np.ndarray:
    """Per sample: does the float point sit on the set's boundary (or a special direction)?

    Each kind says where its boundary lies (a zero entry of a simplex row, an axis or diagonal
    direction of a sphere, a tie of an ordered vector, ...).  For measurement, not for the search.
    """
    x = np.asarray(x, dtype=float)
    return var.domain.on_boundary(var, x.reshape(x.shape[0], -1))


__all__ = ["Sampler", "project", "batch_fastest", "exactify", "fractions_of", "on_boundary", "arb_endpoint_to_fmpq", "Fraction"]

