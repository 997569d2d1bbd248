"""The target phase: a local search from one elite, pushing the search key down."""

from __future__ import annotations

import numpy as np

from ..sampling import batch_fastest
from .cmaes_calls import ask_population, cma_class, quiet
from .smooth import many_terms, run_smoothed_descent


def run_target_chunk(search, chunk, rng) -> None:
    """A local search from one elite, by the configured strategy.

    For a maximum over more terms than coordinates, every other chunk first descends a
    smoothed maximum (see .smooth); what its levels leave of the chunk goes to the strategy.
    """
    _, point, dims = chunk.start
    if chunk.index % 2 and many_terms(search.check, point, dims, sum(int(np.prod(np.shape(v)[1:], dtype=int)) for v in point.values())):
        run_smoothed_descent(search, chunk, rng)
    if search.config.target == "cmaes":
        return run_cmaes_chunk(search, chunk, rng)
    return run_es_chunk(search, chunk, rng)


def run_es_chunk(search, chunk, rng) -> None:
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


def run_cmaes_chunk(search, chunk, rng) -> None:
    """CMA-ES (the ``cmaes`` package) with IPOP restarts, from one elite.

    Coordinates are scaled per entry as the home-made strategy's steps are (``|x| + 0.1``
    of the point's mean size), and a candidate is projected into the domain before it is
    evaluated; CMA-ES is told the key of the projected point.  Keys that are not finite (no
    trustworthy value) are told as worse than any finite one.  On a stall (the library's
    own stopping rules) it restarts from the best of a fresh sample with twice the
    population.  Every point evaluated reaches the elite pool, so the best one seen is kept
    whatever the last restart returns.
    """
    from threadpoolctl import threadpool_limits

    # the covariance's eigendecomposition is a small matrix (tens of coordinates): BLAS
    # threads only contend for the shared cores (6x slower measured on a busy machine)
    with threadpool_limits(limits=1, user_api="blas"):
        _cmaes_with_restarts(search, chunk, rng)


def _cmaes_with_restarts(search, chunk, rng) -> None:
    CMA = cma_class()
    _, point, dims = chunk.start
    names = list(point)
    shapes = {n: np.shape(point[n])[1:] for n in names}
    sizes = [int(np.prod(shapes[n], dtype=int)) for n in names]
    popsize = search.config.offspring
    start = point
    while search.evaluations < chunk.size and not search.out_of_time():
        x0 = np.concatenate([np.ravel(start[n][0]) for n in names]).astype(float)
        if not len(x0):
            return
        scale = np.abs(x0) + 0.1 * (np.mean(np.abs(x0)) + 1e-12)
        seed = int(rng.integers(2**31))
        try:
            with quiet():
                opt = CMA(mean=np.zeros(len(x0)), sigma=0.3, population_size=max(popsize, 2), seed=seed)
        except ValueError:  # one coordinate: cmaes needs two
            return run_es_chunk(search, chunk, rng)
        while search.evaluations < chunk.size and not search.out_of_time() and not _should_stop(opt):
            with quiet():
                zs = ask_population(opt)
            flat = x0 + zs * scale
            cand, at = {}, 0
            for n, size in zip(names, sizes):
                cand[n] = flat[:, at : at + size].reshape((len(flat),) + shapes[n])
                at += size
            cand = batch_fastest(search.sampler.project(cand, dims))
            keys = np.asarray(search.evaluate(cand, dims), dtype=float)
            finite = np.isfinite(keys)
            worst = (np.max(keys[finite]) if finite.any() else 0.0) + 1.0
            with quiet():
                opt.tell(list(zip(zs, np.where(finite, keys, worst))))
        popsize = min(2 * popsize, 16 * search.config.offspring)
        fresh = batch_fastest(search.sampler.project(search.sampler.sample(dims, rng, popsize), dims))
        keys = search.evaluate(fresh, dims)
        j = int(np.argmin(keys))
        start = {n: a[j : j + 1].copy() for n, a in fresh.items()}


def _should_stop(opt) -> bool:
    with quiet():  # an infinite condition number (a zero eigenvalue) is a reason to stop, not a warning
        return opt.should_stop()

