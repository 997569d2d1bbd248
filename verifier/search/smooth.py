"""A smoothed maximum for the target phase: log-sum-exp with a falling temperature.

A claim about the largest of many terms -- the largest pairwise cosine of 24 vectors, 276
terms over 96 coordinates -- is decided at a configuration where many terms are largest
together.  Ranked by the raw maximum, a local search sees one term at a time: moving the
pair that is largest now makes another pair largest, and the rank says nothing of the
others (measured: largest cosine 0.60 reached where 0.50 was needed).  The log-sum-exp
``m + T log sum_k exp((x_k - m) / T)`` counts every term within about T of the largest, so
the search pushes them down together; as T falls it approaches the maximum itself.

Only the local search's objective changes: every point is still evaluated, recorded and
certified with the claim's own maximum, so the elite pool, the statistics and any
counterexample are those of the claim as written.
"""

from __future__ import annotations

import numpy as np
import scipy.optimize

from ..contexts.float64 import FloatContext, _float_args
from ..sampling import batch_fastest
from .refine import Layout

#: the temperature, relative to the largest |term| of each maximum, at a descent's start and end
FIRST_TEMPERATURE, LAST_TEMPERATURE = 0.1, 1e-4
#: temperatures a descent goes through (geometrically), each with its share of the chunk
LEVELS = 8


class SmoothedMaxContext(FloatContext):
    """float64 in which every max (and min) over an axis is a log-sum-exp at a temperature.

    The temperature is relative to the size of the terms (``temperature * max_k |x_k|`` for
    each row), so it means the same for cosines and for norms of any scale.  ``widest``
    records the most terms one maximum has reduced.
    """

    def __init__(self, temperature: float = FIRST_TEMPERATURE):
        self.temperature = temperature
        self.widest = 0

    def max(self, x, axis, keepdims=False):
        return self._soft(_float_args(x), axis, keepdims, 1.0)

    def min(self, x, axis, keepdims=False):
        return self._soft(_float_args(x), axis, keepdims, -1.0)

    def _soft(self, x, axis, keepdims, sign):
        axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
        self.widest = max(self.widest, int(np.prod([x.shape[a] for a in axes], dtype=int)))
        y = sign * x
        with np.errstate(all="ignore"):
            top = np.max(y, axis=axes, keepdims=True)
            width = self.temperature * np.max(np.abs(y), axis=axes, keepdims=True) + 1e-300
            soft = top + width * np.log(np.sum(np.exp((y - top) / width), axis=axes, keepdims=True))
            soft = np.where(np.isfinite(soft), soft, top)
        soft = sign * soft
        return soft if keepdims else np.squeeze(soft, axis=axes)


def many_terms(check, point: dict, dims, coordinates: int) -> bool:
    """Does the claim take a maximum over more terms than the point has coordinates?

    Then at its extremes many terms are largest together (a max over pairs of vectors, over
    the entries of a product), and ranking by a smoothed maximum helps; a maximum over fewer
    terms (a norm of the inputs, a softmax's shift) is left as it is.
    """
    ctx = SmoothedMaxContext()
    try:
        with ctx.precision():
            check.evaluate(ctx, point, dims, with_hypotheses=False)
    except (ArithmeticError, ValueError, TypeError):
        return False
    return ctx.widest > coordinates


def smoothed_keys(check, cand: dict, dims, keys: np.ndarray, temperature: float) -> np.ndarray:
    """The relative margin of each candidate with every maximum smoothed; ``inf`` where the
    claim's own key is not finite (no trustworthy value, or outside the hypotheses)."""
    ctx = SmoothedMaxContext(temperature)
    try:
        with ctx.precision():
            ev = check.evaluate(ctx, cand, dims, with_hypotheses=False)
            margin = np.broadcast_to(np.asarray(ev.margin, dtype=float), keys.shape)
            scale = np.broadcast_to(np.asarray(ev.scale, dtype=float), keys.shape)
            rel = np.where(scale > 0, margin / np.where(scale > 0, scale, 1.0), np.where(margin < 0, -1.0, 0.0))
    except (ArithmeticError, ValueError, TypeError):
        return keys
    return np.where(np.isfinite(keys) & np.isfinite(rel), rel, np.inf)


def run_smoothed_descent(search, chunk, rng) -> None:
    """Quasi-Newton descent (L-BFGS, scipy) on the smoothed key, the temperature falling level by level.

    The smoothed key is differentiable where the claim's terms are, so its gradient -- by
    forward differences, all of them in one batch of ``n + 1`` points -- points the way down
    for every term at once.  Each batch is evaluated with the claim's own maximum first, so
    every point reaches the elite pool (and the certificate) as the claim states it.
    """
    _, point, dims = chunk.start
    layout = Layout(point)
    x = layout.flat(point).astype(float)
    n = len(x)
    if not n or not np.all(np.isfinite(x)):
        return
    steps = 1e-7 * (np.abs(x) + np.mean(np.abs(x)) + 1e-12)
    temperatures = np.geomspace(FIRST_TEMPERATURE, LAST_TEMPERATURE, LEVELS)

    def value_and_gradient(z, temperature):
        if search.evaluations >= chunk.size or search.out_of_time():
            raise _Spent
        rows = np.vstack([z, z + np.diag(steps)])
        cand = batch_fastest(search.sampler.project(layout.batch(rows), dims))
        keys = smoothed_keys(search.check, cand, dims, np.asarray(search.evaluate(cand, dims), dtype=float), temperature)
        if not np.isfinite(keys[0]):
            return 1e300, np.zeros(n)
        grad = np.where(np.isfinite(keys[1:]), (keys[1:] - keys[0]) / steps, 0.0)
        return float(keys[0]), grad

    for level, temperature in enumerate(temperatures):
        # each level its share of what is left: a level run to convergence would leave none to the cooler ones
        share = (chunk.size - search.evaluations) / (LEVELS - level) / (n + 1)
        try:
            with np.errstate(all="ignore"):
                x = scipy.optimize.minimize(value_and_gradient, x, args=(temperature,), jac=True, method="L-BFGS-B",
                                            options={"maxfun": max(int(share), 2)}).x
        except _Spent:
            return


class _Spent(Exception):
    """The chunk's budget (or time) is used up."""
