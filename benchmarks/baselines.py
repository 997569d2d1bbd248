"""What a user would otherwise reach for, on the same checks and the same margin.

* Hypothesis: ``hypothesis.extra.numpy`` strategies over the claim's variables, ``target()``
  on the relative margin, the property failing on a *certified* violation only;
* ``scipy.optimize.differential_evolution`` minimising the same relative margin, restarted
  over randomly drawn dims until the budget is spent;
* plain uniform random search in the same box.

All three see the domain a user would write: free entries in [-10, 10] (or the variable's
own bounds), ``B = A + eps * U`` with ``U`` in [-1, 1] for ``||B - A|| <= eps``, a bounded
scalar as its bound plus a slack in [0, 10].  Every float64 violation they report goes
through the tool's own :class:`~verifier.certify.Certifier`, exactly as the tool's do.
"""

from __future__ import annotations

import time

import numpy as np

from verifier.certify import Certifier
from verifier.contexts import FloatContext
from verifier.sampling import exactify
from verifier.shrink import point_complexity

FLOAT = FloatContext()
BOX = 10.0


class Certified(Exception):
    """Raised from inside an objective to stop a baseline at its first certified violation."""


class OutOfTime(BaseException):
    """Stops a baseline at the time cap (a BaseException, so Hypothesis does not shrink it)."""


class Margin:
    """The relative margin of a check on float64 batches, and certification of suspects."""

    def __init__(self, check, dps=50):
        self.check = check
        self.certifier = Certifier(dps)

    def rel(self, data, dims):
        ev = self.check.evaluate(FLOAT, data, dims)
        margin = np.asarray(ev.margin, float)
        scale = np.asarray(ev.scale, float)
        ok = np.isfinite(margin) & np.isfinite(scale)
        for h in ev.hypotheses:
            h = np.asarray(h, float)
            ok &= np.isfinite(h) & (h >= -1e-9)
        with np.errstate(all="ignore"):
            rel = np.where(scale > 0, margin / np.where(scale > 0, scale, 1), np.where(margin < 0, -1.0, 0.0))
        rel = np.where(ok, rel, np.inf)
        suspect = ok & ((margin < 0) | (self.check.strict & (margin <= 0)))
        return rel, suspect

    def certify(self, data, i, dims):
        try:
            exact = exactify(self.check, data, int(i), dims)
        except ValueError:
            return None
        cert = self.certifier.certify(self.check, exact, dims)
        return (exact, cert) if cert.violated else None


def entry_bounds(var):
    """The interval a user would give each entry of ``var`` (see the module docstring)."""
    if var.radius is not None:
        return -1.0, 1.0  # the unit-box coordinate U of B = A + eps * U
    if var.lower is not None or var.upper is not None:
        return 0.0, BOX  # the slack above (below) the bound
    a = var.lo if var.lo is not None else (var.hi - BOX if var.hi is not None else -BOX)
    b = var.hi if var.hi is not None else a + (BOX if var.lo is not None else 2 * BOX)
    return float(a), float(b)


class Box:
    """A user's box for one check at fixed dims: a flat vector <-> the check's variables."""

    def __init__(self, check, dims):
        self.check, self.dims = check, dict(dims)
        self.layout, lo, hi = [], [], []
        for var in check.variables:
            shape = var.concrete_shape(dims)
            size = int(np.prod(shape, dtype=int))
            a, b = entry_bounds(var)
            self.layout.append((var, shape, len(lo), size))
            lo += [a] * size
            hi += [b] * size
        self.lo, self.hi = np.array(lo), np.array(hi)

    @property
    def bounds(self):
        return list(zip(self.lo, self.hi))

    def decode(self, X):
        X = np.atleast_2d(X)
        m = X.shape[0]
        data = {}
        for var, shape, start, size in self.layout:
            x = X[:, start : start + size].reshape((m,) + shape)
            if var.radius is not None:
                centre = data[var.near] if var.near else 0.0
                r = np.asarray(data[var.radius]).reshape((m,) + (1,) * len(shape))
                x = centre + r * x
            elif var.lower is not None or var.upper is not None:
                v = self.check.values(data, self.dims)
                with np.errstate(all="ignore"):
                    bound = var.lower(FLOAT, v) if var.lower is not None else var.upper(FLOAT, v)
                x = np.asarray(bound, float) + (x if var.lower is not None else -x)
            data[var.name] = np.asarray(x, float)
        return data

    def sample(self, rng, m):
        return self.decode(rng.uniform(self.lo, self.hi, (m, len(self.lo))))


def _dims_draw(check, rng):
    return {d.name: int(rng.integers(d.lo, d.hi + 1)) for d in check.dims}


def size_of(exact, dims):
    """(dims total, digits): the size a reader sees, by the shrinker's own measure."""
    total_dims, digits, _ = point_complexity(exact, dims)
    return total_dims, digits


# ----------------------------------------------------------------------------------------
def uniform_random(check, seed, budget, cap, batch=2048):
    margin, rng, t0, evals = Margin(check), np.random.default_rng(seed), time.perf_counter(), 0
    while evals < budget and time.perf_counter() - t0 < cap:
        dims = _dims_draw(check, rng)
        data = Box(check, dims).sample(rng, min(batch, budget - evals))
        rel, suspect = margin.rel(data, dims)
        evals += len(rel)
        idx = np.nonzero(suspect)[0]
        for i in idx[np.argsort(rel[idx])][:3]:
            hit = margin.certify(data, i, dims)
            if hit:
                return dict(ok=True, seconds=time.perf_counter() - t0, evaluations=evals, size=size_of(*_with_dims(hit, dims)))
    return dict(ok=False, seconds=time.perf_counter() - t0, evaluations=evals)


def _with_dims(hit, dims):
    return hit[0], dims


def differential_evolution(check, seed, budget, cap, maxiter=100):
    from scipy.optimize import differential_evolution as de

    margin, rng, t0 = Margin(check), np.random.default_rng(seed), time.perf_counter()
    state = dict(evals=0)

    while state["evals"] < budget and time.perf_counter() - t0 < cap:
        dims = _dims_draw(check, rng)
        box = Box(check, dims)

        def f(x):
            if time.perf_counter() - t0 > cap:
                raise OutOfTime
            data = box.decode(x)
            rel, suspect = margin.rel(data, dims)
            state["evals"] += 1
            if suspect[0]:
                hit = margin.certify(data, 0, dims)
                if hit:
                    raise Certified(hit[0], dims)
            return float(min(rel[0], 1e3))

        try:
            de(f, box.bounds, seed=int(rng.integers(2**31)), maxiter=maxiter, tol=0, polish=True)
        except Certified as c:
            exact, dims = c.args
            return dict(ok=True, seconds=time.perf_counter() - t0, evaluations=state["evals"], size=size_of(exact, dims))
        except OutOfTime:
            break
    return dict(ok=False, seconds=time.perf_counter() - t0, evaluations=state["evals"])


def hypothesis_search(check, seed, max_examples, cap):
    """Hypothesis as a user would write it; the property fails on certified violations only."""
    from hypothesis import HealthCheck, given, settings, target
    from hypothesis import seed as hseed
    from hypothesis import strategies as st
    from hypothesis.extra.numpy import arrays

    margin = Margin(check)
    elements = {var.name: st.floats(*entry_bounds(var)) for var in check.variables}

    @st.composite
    def candidates(draw):
        dims = {d.name: draw(st.integers(d.lo, d.hi)) for d in check.dims}
        box = Box(check, dims)
        parts = []
        for var, shape, _, size in box.layout:
            parts.append(draw(arrays(np.float64, (size,), elements=elements[var.name])))
        return dims, box.decode(np.concatenate(parts)[None, :] if parts else np.zeros((1, 0)))

    t0 = time.perf_counter()
    log = dict(first=None, last=None, examples=0)

    @settings(max_examples=max_examples, deadline=None, database=None, suppress_health_check=list(HealthCheck), derandomize=False)
    @hseed(seed)
    @given(candidates())
    def prop(c):
        if time.perf_counter() - t0 > cap:
            raise OutOfTime
        dims, data = c
        log["examples"] += 1
        rel, suspect = margin.rel(data, dims)
        if np.isfinite(rel[0]):
            target(float(-rel[0]), label="-relative margin")
        if suspect[0]:
            hit = margin.certify(data, 0, dims)
            if hit:
                if log["first"] is None:
                    log["first"] = time.perf_counter() - t0
                log["last"] = (hit[0], dims)
                raise AssertionError("certified violation")

    try:
        prop()
    except AssertionError:
        pass
    except OutOfTime:
        pass
    total = time.perf_counter() - t0
    if log["first"] is None:
        return dict(ok=False, seconds=total, evaluations=log["examples"])
    return dict(ok=True, seconds=log["first"], seconds_with_shrink=total, evaluations=log["examples"], size=size_of(*log["last"]))
