"""The target phase: a local search from one elite, pushing the search key down."""

from __future__ import annotations

import numpy as np

from ..sampling import batch_fastest


def run_target_chunk(search, chunk, rng) -> None:
    """Batched (1, lambda) evolution strategy from one elite."""
    rel0, point, dims = chunk.start
    x, fx, sigma = point, rel0, 0.3
    lam = search.config.offspring
    stalls = 0
    while search.evaluations < chunk.size and not search.out_of_time():
        cand = {}
        for name, arr in x.items():
            base = np.repeat(arr, lam, axis=0)
            mag = np.abs(base) + 0.1 * (np.mean(np.abs(arr)) + 1e-12)
            step = rng.standard_normal(base.shape) * mag * sigma
            # coordinate moves: half the offspring change one entry only
            if base.ndim > 1 and base[0].size > 1:
                mask = rng.random(base.shape) < (1.0 / base[0].size)
                half = rng.random(lam) < 0.5
                step = np.where(half.reshape((lam,) + (1,) * (base.ndim - 1)), step * mask, step)
            cand[name] = base + step
        redraw_one_variable(search.sampler, cand, dims, rng)
        cand = batch_fastest(search.sampler.project(cand, dims))
        rel = search.evaluate(cand, dims)
        j = int(np.argmin(rel))
        if rel[j] < fx:
            x, fx = {n: a[j : j + 1].copy() for n, a in cand.items()}, float(rel[j])
            sigma = min(sigma * 1.5, 2.0)
        else:
            sigma *= 0.6
        if sigma < 1e-9:
            # Stalled.  Restarts alternate (as BIPOP-CMA-ES does): from the best point with a
            # fresh step size, and from the best of a fresh sample with twice the offspring
            # (IPOP), so one basin cannot hold the chunk's whole budget.  Every point evaluated
            # on the way reaches the elite pool, so a restart never loses the best one seen.
            stalls += 1
            sigma = 0.3
            if stalls % 2 == 0:
                lam = min(2 * lam, 16 * search.config.offspring)
                fresh = batch_fastest(search.sampler.project(search.sampler.sample(dims, rng, lam), dims))
                keys = search.evaluate(fresh, dims)
                j = int(np.argmin(keys))
                if np.isfinite(keys[j]):
                    x, fx = {n: a[j : j + 1].copy() for n, a in fresh.items()}, float(keys[j])


def redraw_one_variable(sampler, cand, dims, rng) -> None:
    """A quarter of the offspring take one variable afresh from the structured sampler.

    Relative steps cannot leave a plateau: Lemma C.2's elites sat at eta = 1e-8, where the
    ratio has reached its limit, while the counterexample needs eta ~ 0.36.  Redrawing eta
    alone (the projection then rescales the variables bounded by it) jumps there and keeps
    the sign pattern the other variables have found.
    """
    lam = len(next(iter(cand.values())))
    fresh = sampler.sample(dims, rng, lam)
    names = list(cand)
    which = rng.integers(len(names), size=lam)
    redraw = rng.random(lam) < 0.25
    for k, name in enumerate(names):
        rows = np.nonzero(redraw & (which == k))[0]
        if len(rows):
            cand[name][rows] = fresh[name][rows]
