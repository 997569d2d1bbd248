"""Candidate generation that reaches the degenerate and extreme corners of a domain.

Uniform random inputs almost never hit the cases where inequalities break: zeros, equal
rows, rank-one matrices, sign patterns, tiny and huge scales, and the boundary of each
hypothesis (``B`` exactly ``eps`` away from ``A``).  Every candidate therefore picks a
*pattern* per variable; the mix is deliberately heavy on structure.

Everything here is float64 and batched; the exact side of the domain (projection of
rational points back into the domain) lives in :func:`project`.  The constrained kinds
(:mod:`verifier.domains`) are read, not extended: each kind's pattern table is here, its
maps onto the set are the kind's own.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Mapping

import numpy as np

from .claims import Check, Variable
from .configurations import known_configurations, spread_subsets
from .contexts import BallContext, ExactContext, FloatContext, NotRational, to_fraction
from .domains import (DoublyStochasticMatrix, EuclideanSphere, OrderedEntries, OrthogonalMatrix, SimplexRows, UnitSphere, exact_point, is_derived,
                      orthogonal_polar, sinkhorn, sphere_normalise)

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


#: share of a batch drawn from known configurations where a claim has several unit vectors of one size
CONFIGURATION_SHARE = 0.25
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
            if isinstance(var.domain, (UnitSphere, EuclideanSphere)) and getattr(var.domain, "norm", "2") == "2":
                groups.setdefault((var.domain, var.shape), []).append(var.name)
        self.configurations = {names[-1]: (domain, names) for (domain, _), names in groups.items() if len(names) >= MIN_CONFIGURATION}

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
                data[var.name] = self._constrained(var, shape, data, dims, rng, size)
                if var.name in self.configurations:
                    self._configuration(*self.configurations[var.name], data, shape, rng, size)
                continue
            if var.radius is not None:
                u = _grouped(rng, size, shape, RELATION_PATTERNS, _relation_pattern)
                centre = data[var.near] if var.near else 0.0
                radius = _expand(data[var.radius], len(shape))
                x = centre + radius * u
            elif var.lower is not None or var.upper is not None:
                x = self._bounded_scalar(var, data, dims, rng, size)
            elif not shape:
                x = _grouped(rng, size, shape, SCALAR_PATTERNS, _scalar_pattern, var)
            else:
                x = _grouped(rng, size, shape, FREE_PATTERNS, _free_pattern, var)
            data[var.name] = _clip_box(x, var)
        return batch_fastest(data)

    def _constrained(self, var: Variable, shape, data, dims, rng, size):
        """A kind's own samples; a derived variable is computed from the ones before it."""
        if is_derived(var):
            return var.domain.value(var, FLOAT, self.check.values(data, dims), (size,) + tuple(shape))
        return np.clip(sample_domain(var, shape, rng, size), var.lo if var.lo is not None else -np.inf, var.hi if var.hi is not None else np.inf)

    @staticmethod
    def _configuration(domain, names, data, shape, rng, size):
        """A share of the rows: the group's vectors are far-apart points of a known
        configuration in R^d, turned by a Haar-random orthogonal map (half the rows) or a
        signed permutation (the rest, which keeps axis-aligned sets axis-aligned)."""
        d, k = shape[-1], len(names)
        configs = [c for c in known_configurations(d) if len(c) >= k]
        rows = np.nonzero(rng.random(size) < CONFIGURATION_SHARE)[0]
        if not configs or not len(rows):
            return
        which = rng.integers(0, len(configs), len(rows))
        radius = 1.0 if isinstance(domain, UnitSphere) else np.sqrt(float(domain.radius_squared))
        for c, conf in enumerate(configs):
            at = rows[which == c]
            m = len(at)
            if not m:
                continue
            points = conf[spread_subsets(conf, k, rng, m)]  # (m, k, d)
            haar = rng.random(m) < 0.5
            turn = _signed_permutations(rng, m, d)
            turn[haar] = orthogonal_polar(rng.standard_normal((int(np.count_nonzero(haar)), d, d)))
            points = radius * points @ turn
            for j, name in enumerate(names):
                data[name][at] = points[:, j]

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
            x = _onto_set(ctx, var, x, check.values(out, dims))
            if is_derived(var):  # clipping would break its definition; its bounds are hypotheses
                out[var.name] = x
                continue
        if var.radius is not None:
            centre = out[var.near] if var.near else 0
            r = _expand_ctx(out[var.radius], np.ndim(x) - 1)
            x = ctx.minimum(ctx.maximum(x, centre - r), centre + r)
        if var.lower is not None or var.upper is not None:
            v = check.values(out, dims)
            if var.lower is not None:
                x = ctx.maximum(x, _bound(ctx, var.lower, v, "upper"))
            if var.upper is not None:
                x = ctx.minimum(x, _bound(ctx, var.upper, v, "lower"))
        if var.lo is not None:
            x = ctx.maximum(x, var.lo)  # a Bound: the exact value written in exact contexts
        if var.hi is not None:
            x = ctx.minimum(x, var.hi)
        out[var.name] = x
    return out


def _onto_set(ctx, var, x, values):
    """A variable moved onto its set: exactly (one point) in rationals, else a float batch."""
    dom = var.domain
    if is_derived(var):
        return dom.value(var, ctx, values, np.shape(x))
    if isinstance(ctx, ExactContext):
        return dom.onto_set_exact(exact_point(np.asarray(x, dtype=object)[0]))[None]
    return dom.onto_set(np.array(x, dtype=float))


def _bound(ctx, fn, v, side):
    if not isinstance(ctx, ExactContext):
        with np.errstate(all="ignore"):
            return fn(ctx, v)
    try:
        return fn(ctx, v)
    except NotRational:
        ball = BallContext(256)
        bv = v.__class__({k: ball.asarray(x) for k, x in v._data.items()}, v.params, v.dims)
        with ball.precision():
            enclosure = np.asarray(fn(ball, bv), dtype=object)
        return np.frompyfunc(lambda b: arb_endpoint_to_fmpq(b, side), 1, 1)(enclosure)


def arb_endpoint_to_fmpq(b, side):
    """The exact rational value of a ball's lower or upper endpoint."""
    from flint import fmpq

    end = b.upper() if side == "upper" else b.lower()
    man, exp = end.mid().man_exp()
    man, exp = int(man), int(exp)
    return fmpq(man * 2**exp) if exp >= 0 else fmpq(man, 2 ** (-exp))


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


def _grouped(rng, size, shape, patterns, make, *args):
    """Split the batch between patterns, generate each group, then shuffle."""
    names = list(patterns)
    w = np.array([patterns[n] for n in names], dtype=float)
    counts = rng.multinomial(size, w / w.sum())
    parts = [make(name, rng, int(c), shape, *args) for name, c in zip(names, counts) if c]
    out = np.concatenate(parts, axis=0) if parts else np.zeros((0,) + tuple(shape))
    return out[rng.permutation(size)]


#: value arrays of :func:`_pick`, made once per list of values
_PICK_VALUES: dict = {}


def _pick(rng, values, shape):
    """``rng.choice(values, shape)``: the same draws and the same generator state afterwards
    (numpy draws ``integers(0, len(values), shape)`` and indexes), without choice's
    per-call checks of ``values`` -- a sampled batch makes dozens of these calls."""
    key = tuple(values)
    arr = _PICK_VALUES.get(key)
    if arr is None:
        arr = _PICK_VALUES[key] = np.asarray(values, dtype=float)
    return arr[rng.integers(0, len(arr), shape)]


def _log_scale(rng, m, lo=-1.0, hi=1.0):
    return 10.0 ** rng.uniform(lo, hi, m)


def _per(m, shape, s):
    return s.reshape((m,) + (1,) * len(shape))


def _free_pattern(name, rng, m, shape, var: Variable):
    full = (m,) + tuple(shape)
    if name == "gauss":
        return rng.standard_normal(full) * _per(m, shape, _log_scale(rng, m))
    if name == "small-int":
        return rng.integers(-3, 4, full).astype(float)
    if name == "sparse-int":
        return rng.integers(-3, 4, full) * (rng.random(full) < 0.4)
    if name == "zero":
        return np.zeros(full)
    if name == "equal-rows" and len(shape) == 2:
        row = rng.standard_normal((m, 1, shape[1])) * _per(m, (1, 1), _log_scale(rng, m))
        return np.broadcast_to(row, full).copy()
    if name == "equal-cols" and len(shape) == 2:
        col = rng.standard_normal((m, shape[0], 1)) * _per(m, (1, 1), _log_scale(rng, m))
        return np.broadcast_to(col, full).copy()
    if name == "rank-one" and len(shape) == 2:
        u = rng.integers(-2, 3, (m, shape[0], 1)) if rng.random() < 0.5 else rng.standard_normal((m, shape[0], 1))
        w = rng.standard_normal((m, 1, shape[1]))
        return (u * w).astype(float)
    if name in ("equal-rows", "equal-cols", "rank-one"):  # vectors: constant / one-hot
        if name == "rank-one":  # one-hot over all entries (vectors and higher-order arrays alike)
            out = np.zeros((m, int(np.prod(shape, dtype=int))))
            idx = rng.integers(0, out.shape[1], m)
            out[np.arange(m), idx] = rng.standard_normal(m) * _log_scale(rng, m)
            return out.reshape(full)
        return np.broadcast_to(rng.standard_normal((m,) + (1,) * len(shape)), full).copy()
    if name == "signs":
        return _pick(rng, [-1.0, 1.0], full) * _per(m, shape, _log_scale(rng, m))
    if name == "extreme-scale":
        return rng.standard_normal(full) * _per(m, shape, _log_scale(rng, m, -8, 8))
    if name == "simple-fraction":
        return rng.integers(-6, 7, full) / _pick(rng, [1.0, 2.0, 3.0, 4.0], full)
    if name == "uniform-box":
        lo = var.lo if var.lo is not None else -1.0
        hi = var.hi if var.hi is not None else 1.0
        return rng.uniform(lo, hi, full)
    raise AssertionError(name)


def _relation_pattern(name, rng, m, shape, *_):
    full = (m,) + tuple(shape)
    if name == "boundary":
        return _pick(rng, [-1.0, 1.0], full)
    if name == "uniform":
        return rng.uniform(-1, 1, full)
    if name == "ternary":
        return rng.integers(-1, 2, full).astype(float)
    if name == "one-hot":
        out = np.zeros((m, int(np.prod(shape, dtype=int))))
        if out.shape[1]:
            out[np.arange(m), rng.integers(0, out.shape[1], m)] = _pick(rng, [-1.0, 1.0], m)
        return out.reshape(full)
    if name == "constant":
        return np.broadcast_to(_pick(rng, [-1.0, 1.0], (m,) + (1,) * len(shape)), full).copy()
    if name == "zero":
        return np.zeros(full)
    if name == "mostly-boundary":
        return np.where(rng.random(full) < 0.8, _pick(rng, [-1.0, 1.0], full), rng.uniform(-1, 1, full))
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
        return x * _pick(rng, [-1.0, 1.0], m)

    if name == "log-uniform":
        return signed(10.0 ** rng.uniform(-4, 3, m))
    if name == "small-int":
        return signed(rng.integers(0, 4, m).astype(float))
    if name == "simple-fraction":
        return signed(rng.integers(1, 7, m) / _pick(rng, [2.0, 3.0, 4.0, 8.0], m))
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


__all__ = ["Sampler", "project", "batch_fastest", "exactify", "fractions_of", "Fraction"]


# ------------------------------------------------------------------ constrained kinds
# Pattern weights per kind.  The boundary patterns land exactly on
# a vertex, edge or face of a simplex, a one-hot or repeated row, an axis or diagonal
# direction, a tie, a signed permutation; the interior ones go through a transform of free
# parameters (softmax, normalised Gaussian, cumulative exponentials, QR).  About 60 % of
# the samples land on the boundary, where the extremal cases of these lemmas sit.
SIMPLEX_PATTERNS = {
    "vertex": 1.5,
    "edge": 1.0,
    "face": 1.0,
    "face-centroid": 1.0,
    "softmax": 2.0,
    "dirichlet-sparse": 1.0,
    "simple": 0.7,
}
STOCHASTIC_PATTERNS = {  # whole matrices
    "rows": 3.0,  # each row drawn from SIMPLEX_PATTERNS
    "repeated-row": 1.0,
    "one-hot-rows": 1.0,
    "same-vertex": 0.5,
    "softmax-rows": 1.5,  # every row inside: attention of finite scores
}
SPHERE_PATTERNS = {
    "2": {"axis": 1.5, "diagonal": 1.5, "gauss": 2.5, "near-axis": 1.0, "simple": 0.7},
    "inf": {"vertex": 1.5, "face": 1.5, "axis": 1.0, "gauss": 2.0, "simple": 0.7},
    "1": {"axis": 1.5, "edge": 1.0, "face": 1.0, "diagonal": 1.0, "gauss": 2.5},
}
#: a sphere of any rational radius squared: the unit sphere's patterns scaled, and its exact
#: rational points -- the signed permutations of one of them ((1, 1, 1) for radius squared 3)
#: and the stereographic images of small rationals seen from those
EUCLIDEAN_SPHERE_PATTERNS = {"axis": 1.0, "diagonal": 1.5, "rational-point": 1.0, "small-rational": 1.0,
                             "gauss": 2.5, "near-axis": 1.0, "simple": 0.7}
ORDERED_PATTERNS = {"ties": 2.0, "all-equal": 0.7, "at-bounds": 1.0, "sorted": 2.0,
                    "increments": 1.5, "small-int": 1.0}
ORTHOGONAL_PATTERNS = {"signed-permutation": 1.5, "hadamard": 1.5, "givens": 1.0,
                       "haar": 2.5, "near-permutation": 1.5, "householder": 1.5}
#: doubly stochastic matrices: permutations, block-diagonal ones (uniform blocks, rows and
#: columns permuted), mixtures of two or of several permutations (Birkhoff), the uniform
#: matrix; inside: Sinkhorn's scaling of positive matrices
DOUBLY_STOCHASTIC_PATTERNS = {"permutation": 1.5, "block-diagonal": 1.5, "two-permutations": 1.0,
                              "birkhoff": 1.5, "uniform": 0.3, "sinkhorn": 2.0}


#: per kind of set: the pattern weights of a variable, and one pattern's draw
KIND_SAMPLES = {
    SimplexRows: (lambda var: STOCHASTIC_PATTERNS if len(var.shape) == 2 else SIMPLEX_PATTERNS,
                  lambda name, rng, m, shape, var: _stochastic(name, rng, m, shape) if len(shape) == 2
                  else _scaled(_simplex_rows(name, rng, m, shape[-1]), var.domain.total)),
    UnitSphere: (lambda var: SPHERE_PATTERNS[var.domain.norm],
                 lambda name, rng, m, shape, var: _sphere(name, var.domain.norm, rng, m, shape[-1])),
    EuclideanSphere: (lambda var: EUCLIDEAN_SPHERE_PATTERNS,
                      lambda name, rng, m, shape, var: _euclidean_sphere(name, var.domain, rng, m, shape[-1])),
    OrderedEntries: (lambda var: ORDERED_PATTERNS,
                     lambda name, rng, m, shape, var: _ordered(name, rng, m, shape[-1], var.lo, var.hi)),
    OrthogonalMatrix: (lambda var: ORTHOGONAL_PATTERNS,
                       lambda name, rng, m, shape, var: _orthogonal(name, rng, m, shape[-1])),
    DoublyStochasticMatrix: (lambda var: DOUBLY_STOCHASTIC_PATTERNS,
                             lambda name, rng, m, shape, var: _doubly_stochastic(name, rng, m, shape[-1])),
}


def domain_patterns(var) -> dict:
    """The pattern weights (name -> weight) of a constrained variable."""
    return KIND_SAMPLES[type(var.domain)][0](var)


def sample_domain(var, shape, rng, size) -> np.ndarray:
    """Float samples of a constrained (non-derived) variable, batch first."""
    return _grouped(rng, size, shape, domain_patterns(var), KIND_SAMPLES[type(var.domain)][1], var)


def _support(rng, m, k, size):
    """m boolean masks of length k with ``size[i]`` entries set."""
    order = np.argsort(rng.random((m, k)), axis=1)
    return order < np.asarray(size).reshape(m, 1)


def _simplex_rows(name, rng, m, k):
    if k == 0:
        return np.zeros((m, 0))
    if name == "vertex":
        out = np.zeros((m, k))
        out[np.arange(m), rng.integers(0, k, m)] = 1.0
        return out
    if name == "edge":
        t = np.where(rng.random(m) < 0.5, rng.choice([1 / 2, 1 / 3, 2 / 3, 1 / 4, 3 / 4], m), rng.random(m))
        out = np.zeros((m, k))
        i = rng.integers(0, k, m)
        j = (i + rng.integers(1, max(k, 2), m)) % k
        out[np.arange(m), i] += t
        out[np.arange(m), j] += 1 - t
        return out
    if name in ("face", "face-centroid"):
        hi = k if name == "face-centroid" else max(k - 1, 1)
        mask = _support(rng, m, k, rng.integers(1, hi + 1, m))
        w = rng.exponential(1.0, (m, k)) if name == "face" else np.ones((m, k))
        w = w * mask
        return w / w.sum(axis=1, keepdims=True)
    if name == "softmax":
        z = rng.standard_normal((m, k)) * _log_scale(rng, m, -1, 1.5)[:, None]
        z = np.exp(z - z.max(axis=1, keepdims=True))
        return z / z.sum(axis=1, keepdims=True)
    if name == "dirichlet-sparse":
        w = rng.gamma(0.2, 1.0, (m, k)) + 1e-300
        return w / w.sum(axis=1, keepdims=True)
    if name == "simple":
        w = rng.integers(0, 4, (m, k)).astype(float)
        w[w.sum(axis=1) == 0] = 1.0
        return w / w.sum(axis=1, keepdims=True)
    raise AssertionError(name)


def _stochastic(name, rng, m, shape):
    r, k = shape
    if name == "rows":
        return _grouped(rng, m * r, (k,), SIMPLEX_PATTERNS, lambda n, g, c, s: _simplex_rows(n, g, c, k)).reshape(m, r, k)
    if name == "repeated-row":
        row = _grouped(rng, m, (k,), SIMPLEX_PATTERNS, lambda n, g, c, s: _simplex_rows(n, g, c, k))
        return np.repeat(row[:, None, :], r, axis=1)
    if name == "one-hot-rows":
        return _simplex_rows("vertex", rng, m * r, k).reshape(m, r, k)
    if name == "same-vertex":
        return np.repeat(_simplex_rows("vertex", rng, m, k)[:, None, :], r, axis=1)
    if name == "softmax-rows":
        return _simplex_rows("softmax", rng, m * r, k).reshape(m, r, k)
    raise AssertionError(name)


def _signs(rng, m, n):
    return rng.choice([-1.0, 1.0], (m, n))


def _sphere(name, norm, rng, m, n):
    if n == 0:
        return np.zeros((m, 0))
    if name == "axis":
        out = np.zeros((m, n))
        out[np.arange(m), rng.integers(0, n, m)] = rng.choice([-1.0, 1.0], m)
        return out
    if name == "vertex":  # max norm: every entry +-1
        return _signs(rng, m, n)
    if name == "face":  # max norm: one entry +-1, the rest inside; l1: a signed face of the cross-polytope
        if norm == "inf":
            out = rng.uniform(-1, 1, (m, n))
            out[np.arange(m), rng.integers(0, n, m)] = rng.choice([-1.0, 1.0], m)
            return out
        return _simplex_rows("face", rng, m, n) * _signs(rng, m, n)
    if name == "edge":
        return _simplex_rows("edge", rng, m, n) * _signs(rng, m, n)
    if name == "diagonal":
        mask = _support(rng, m, n, rng.integers(1, n + 1, m)) if rng.random() < 0.5 else np.ones((m, n), dtype=bool)
        x = _signs(rng, m, n) * mask
    elif name == "near-axis":
        x = np.zeros((m, n))
        x[np.arange(m), rng.integers(0, n, m)] = 1.0
        x = x + rng.standard_normal((m, n)) * _log_scale(rng, m, -4, -1)[:, None]
    elif name == "simple":
        x = rng.integers(-3, 4, (m, n)).astype(float)
    elif name == "gauss":
        x = rng.standard_normal((m, n))
    else:
        raise AssertionError(name)
    return sphere_normalise(x, norm)


def _scaled(x, total):
    return x if total == 1 else x * float(total)


def _euclidean_sphere(name, dom, rng, m, n):
    if n == 0:
        return np.zeros((m, 0))
    if name not in ("rational-point", "small-rational"):
        return _scaled(_sphere(name, "2", rng, m, n), np.sqrt(float(dom.radius_squared)))
    p = np.sort(np.abs(np.array(dom.rational_point(n), dtype=float)))[::-1]
    perm = np.argsort(rng.random((m, n)), axis=1)
    pole = np.zeros((m, n))
    pole[np.arange(m)[:, None], perm] = p  # p's largest entry at perm[:, 0]
    pole *= _signs(rng, m, n)
    if name == "rational-point":
        return pole
    # the line from the pole through a point meets x_j = 0 (j where the pole is largest) at
    # t; small rational t give rational points of small height
    t = rng.integers(-3, 4, (m, n)) / _pick(rng, [1.0, 2.0, 3.0, 4.0], (m, 1))
    t[np.arange(m), perm[:, 0]] = 0.0
    d = t - pole
    lam = 2 * (float(dom.radius_squared) - np.sum(pole * t, axis=1)) / np.sum(d * d, axis=1)
    return pole + lam[:, None] * d


def _ordered(name, rng, m, n, lo, hi):
    if lo is not None and hi is not None:
        draw = lambda shape: rng.uniform(lo, hi, shape)  # noqa: E731
    else:
        base = lo if lo is not None else (hi if hi is not None else 0.0)
        sign = 1.0 if lo is not None else (-1.0 if hi is not None else 0.0)

        def draw(shape):
            g = rng.standard_normal(shape) * _log_scale(rng, shape[0], -1, 1)[:, None]
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


def _hadamard(n):
    """A Hadamard-like orthogonal matrix: Sylvester blocks of the largest powers of 2 in n."""
    out = np.zeros((n, n))
    i = 0
    while i < n:
        size = 1 << ((n - i).bit_length() - 1)
        h = np.array([[1.0]])
        while h.shape[0] < size:
            h = np.block([[h, h], [h, -h]])
        out[i : i + size, i : i + size] = h / np.sqrt(size)
        i += size
    return out


def _signed_permutations(rng, m, n):
    """Permutation matrices with each row's one entry given a random sign (the same draws, in
    the same order, as a permutation and then its signs)."""
    perm = _permutations(rng, m, n)
    return np.where(perm != 0, perm * _signs(rng, m, n)[:, :, None], 0.0)  # no -0.0 off the permutation


def _orthogonal(name, rng, m, n):
    if n == 0:
        return np.zeros((m, 0, 0))
    if name == "signed-permutation":
        return _signed_permutations(rng, m, n)
    if name == "hadamard":
        return _signed_permutations(rng, m, n) @ _hadamard(n) @ _signed_permutations(rng, m, n)
    if name == "givens":
        theta = np.where(rng.random(m) < 0.5, rng.choice([np.pi / 4, np.pi / 6, np.pi / 3, np.arctan2(3, 4)], m), rng.uniform(0, 2 * np.pi, m))
        g = np.repeat(np.eye(n)[None], m, axis=0)
        if n >= 2:
            i = rng.integers(0, n, m)
            j = (i + rng.integers(1, n, m)) % n
            idx = np.arange(m)
            c, s = np.cos(theta), np.sin(theta)
            g[idx, i, i], g[idx, j, j], g[idx, i, j], g[idx, j, i] = c, c, -s, s
        return _signed_permutations(rng, m, n) @ g
    if name == "haar":
        return orthogonal_polar(rng.standard_normal((m, n, n)))
    if name == "near-permutation":
        a = rng.standard_normal((m, n, n)) * _log_scale(rng, m, -3, -0.5)[:, None, None]
        return _signed_permutations(rng, m, n) @ orthogonal_polar(np.eye(n) + a - np.swapaxes(a, 1, 2))
    if name == "householder":
        # reflections I - 2 s s^T / |s|^2 in small integer directions s (rational: the
        # reflections I - (2/3) s s^T of a sign vector, say), half of them times a signed permutation
        s = rng.integers(-2, 3, (m, n)).astype(float)
        s[~np.any(s != 0, axis=1), 0] = 1.0
        h = np.eye(n) - 2 * s[:, :, None] * s[:, None, :] / np.sum(s * s, axis=1)[:, None, None]
        turn = rng.random(m) < 0.5
        h[turn] = _signed_permutations(rng, int(np.count_nonzero(turn)), n) @ h[turn]
        return h
    raise AssertionError(name)


def _permutations(rng, m, n):
    out = np.zeros((m, n, n))
    out[np.arange(m)[:, None], np.arange(n)[None], np.argsort(rng.random((m, n)), axis=1)] = 1.0
    return out


def _doubly_stochastic(name, rng, m, n):
    if n == 0:
        return np.zeros((m, 0, 0))
    if name == "permutation":
        return _permutations(rng, m, n)
    if name == "uniform":
        return np.full((m, n, n), 1.0 / n)
    if name == "block-diagonal":
        # consecutive indices share a block where no cut falls between them; each block
        # uniform, then rows and columns permuted
        label = np.cumsum(np.concatenate([np.zeros((m, 1), bool), rng.random((m, n - 1)) < 0.5], axis=1), axis=1)
        same = label[:, :, None] == label[:, None, :]
        blocks = same / same.sum(axis=2, keepdims=True)
        return _permutations(rng, m, n) @ blocks @ _permutations(rng, m, n)
    if name == "two-permutations":
        t = np.where(rng.random(m) < 0.5, _pick(rng, [1 / 2, 1 / 3, 2 / 3, 1 / 4, 3 / 4], m), rng.random(m))[:, None, None]
        return t * _permutations(rng, m, n) + (1 - t) * _permutations(rng, m, n)
    if name == "birkhoff":
        k = int(rng.integers(2, n + 2))
        w = np.where(rng.random((m, 1)) < 0.5, rng.integers(1, 4, (m, k)), rng.exponential(1.0, (m, k)))
        w = w / w.sum(axis=1, keepdims=True)
        return sum(w[:, i, None, None] * _permutations(rng, m, n) for i in range(k))
    if name == "sinkhorn":
        # scales up to 10^0.5: Sinkhorn converges slowly on matrices far from positive
        z = rng.standard_normal((m, n, n)) * _log_scale(rng, m, -1, 0.5)[:, None, None]
        return sinkhorn(np.exp(z - z.max(axis=(1, 2), keepdims=True)))
    raise AssertionError(name)


def on_boundary(var, x) -> np.ndarray:
    """Per sample: does the float point sit on the set's boundary (or a special direction)?

    Simplex rows: some entry exactly 0.  Euclidean unit vectors: an axis or a diagonal
    direction (every nonzero entry of equal magnitude); max and l1 unit vectors: a
    lower-dimensional face of the cube or cross-polytope.
    Ordered: a tie or an entry at a bound.  Orthogonal: a zero entry (signed permutations,
    Givens rotations, block structure) or every entry of equal magnitude (Hadamard-like).  For measurement, not for the search.
    """
    x = np.asarray(x, dtype=float)
    return var.domain.on_boundary(var, x.reshape(x.shape[0], -1))
