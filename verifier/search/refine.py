"""The refine phase: each of the best points, refined to the end by line searches in float64.

The target phase's local searches stop by their own rules (CMA-ES's stopping criteria, a step
size that shrank below a threshold) and restart from fresh samples, so the best point of a
run is often left a few steps short of the bottom of its basin: a ratio of 0.9999999 where
the claim fails past 1 + 1e-8, or the right basin of a rugged range, 0.5 from the violation.
Here each of the best points is moved by exact line searches until a sweep gains nothing.

A line search is one batch: the point moved along a direction by every step of a ladder,
``+-2^-k`` of the coordinate's scale for k = 0 .. 46, so steps are tried in absolute units from
the coordinate's own size down to 1e-14 of it, whatever the size of its value.  A sweep
searches along every coordinate, then along the way the sweep moved the point (Powell's
direction: the floor of a curved valley, an alignment and a scale that must move together).
A sweep that gains nothing is followed by sweeps along random directions, until the chunk's
budget is spent.
"""

from __future__ import annotations

import numpy as np

from ..sampling import batch_fastest

#: step sizes in units of a coordinate's scale: 1 down to 2^-46 (1.4e-14), both signs
LADDER = np.concatenate([2.0 ** -np.arange(47), -(2.0 ** -np.arange(47))])
#: Powell directions kept besides the coordinates (the most recent moves)
MOVES_KEPT = 2


class Layout:
    """A point's variables as one flat vector and back (the batch axis first)."""

    def __init__(self, point: dict):
        self.names = list(point)
        self.shapes = {n: np.shape(point[n])[1:] for n in self.names}
        self.sizes = [int(np.prod(self.shapes[n], dtype=int)) for n in self.names]

    def flat(self, point: dict, row: int = 0) -> np.ndarray:
        parts = [np.ravel(np.asarray(point[n][row])) for n in self.names]
        return np.concatenate(parts) if parts else np.zeros(0)

    def rows(self, batch: dict) -> np.ndarray:
        """Every row of a float batch as one flat vector."""
        count = len(next(iter(batch.values())))
        return np.concatenate([np.asarray(batch[n], dtype=float).reshape(count, -1) for n in self.names], axis=1)

    def batch(self, rows: np.ndarray) -> dict:
        out, at = {}, 0
        for n, size in zip(self.names, self.sizes):
            out[n] = rows[:, at : at + size].reshape((len(rows),) + self.shapes[n])
            at += size
        return out


def run_refine_chunk(search, chunk, rng) -> None:
    """Line searches from one of the best points, until the chunk's budget is spent."""
    _, point, dims = chunk.start
    layout = Layout(point)
    x = layout.flat(point).astype(float)
    if not len(x) or not np.all(np.isfinite(x)):
        return
    fx = _keys(search, layout, x[None, :], dims)[1][0]
    scale = np.abs(x) + np.mean(np.abs(x))
    scale[scale == 0] = 1.0  # the origin: steps in the claim's own units
    directions = [np.eye(len(x))[i] * scale[i] for i in range(len(x))]
    moves: list[np.ndarray] = []
    while search.evaluations < chunk.size and not search.out_of_time():
        start, before = x.copy(), fx
        for direction in directions + moves:
            if search.evaluations >= chunk.size or search.out_of_time():
                return
            rows, keys = _keys(search, layout, x + LADDER[:, None] * direction, dims)
            j = int(np.argmin(keys))
            if keys[j] < fx:
                x, fx = rows[j], float(keys[j])
        if fx < before:
            moves = (moves + [x - start])[-MOVES_KEPT:]
        else:
            # no line through the point leads down along these directions: the next sweep
            # tries as many others, drawn at random (the rest of the chunk's budget is spent
            # looking, as every phase spends its own)
            directions = list(_orthonormal(rng, len(x)) * scale)


def _orthonormal(rng, n: int) -> np.ndarray:
    """n random orthonormal directions (rows)."""
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    return q.T


def _keys(search, layout: Layout, rows: np.ndarray, dims) -> tuple[np.ndarray, np.ndarray]:
    """The candidates moved into the domain (as flat rows) and their search keys."""
    cand = batch_fastest(search.sampler.project(layout.batch(rows), dims))
    keys = np.asarray(search.evaluate(cand, dims), dtype=float)
    return layout.rows(cand), keys
