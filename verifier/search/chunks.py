"""Seed-addressed chunks of work: what one worker computes, and what it hands back.

Chunk ``c`` of phase ``p`` draws from ``default_rng([seed, p, c])`` and depends only on its
address and on what earlier rounds reported, so a seed gives the same result whatever runs
the chunks.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from ..runner import registered_check
from .config import PHASES
from .deep import run_deep_chunk
from .evaluate import ChunkSearch, Found
from .generate import run_generate_chunk
from .refine import run_refine_chunk
from .target import run_target_chunk

PHASE_RUNNERS = {"generate": run_generate_chunk, "target": run_target_chunk, "refine": run_refine_chunk, "deep": run_deep_chunk}


@dataclass(frozen=True)
class Chunk:
    """The address of one piece of work: its phase, index, float budget and start point."""

    phase: str
    index: int
    size: int
    deadline: float  # time.monotonic() value (shared by forked workers)
    start: tuple | None = None  # (rel, point, dims) for target and deep chunks
    hint: tuple = ()  # dims where earlier rounds found the smallest margins
    rechecks: int | None = None  # certificates this chunk may spend on float suspects
    rejected: frozenset = frozenset()  # float rows earlier rounds found a hypothesis rejects exactly


@dataclass
class ChunkResult:
    evaluations: int = 0
    stats: dict = field(default_factory=dict)
    elites: list = field(default_factory=list)
    best: tuple | None = None  # (rel, margin, point, dims)
    ratio_points: list = field(default_factory=list)
    ties: list = field(default_factory=list)  # (mp rel, exact point, dims) examined at dps digits
    undecided: int = 0
    worst_rejected: float | None = None
    found: tuple | None = None  # (exact point, dims, certificate, phase, evaluations in chunk, seconds in chunk)
    undefined_example: tuple | None = None
    tight_detail: str | None = None
    near_ties: list = field(default_factory=list)  # (rel, float point, dims): for the coordinator to try
    elite_cells: list = field(default_factory=list)  # the basin cell of each of ``elites``
    tie_cells: list = field(default_factory=list)  # the basin cell of each of ``ties``
    rejected: list = field(default_factory=list)  # float rows a hypothesis rejected exactly, new in this chunk
    elite_leaders: list = field(default_factory=list)  # the best entry of each dims seen


def run_chunk_in(search: ChunkSearch, chunk: Chunk) -> ChunkResult:
    search.phase, search.chunk_index = chunk.phase, chunk.index
    if chunk.rechecks is not None:
        search.recheck_allowance = chunk.rechecks
    search.rejected_exactly = set(chunk.rejected)
    rng = np.random.default_rng([search.config.seed, PHASES[chunk.phase], chunk.index])
    found = None
    try:
        PHASE_RUNNERS[chunk.phase](search, chunk, rng)
    except Found as f:
        cert = dataclasses.replace(f.cert, ball_values=None)  # arb balls do not pickle
        found = (f.data, f.dims, cert, f.phase, f.evaluations, f.seconds)
    best = None
    if search.best_point is not None:
        best = (search.best_rel, search.best_margin, search.best_point[0], search.best_point[1])
    return ChunkResult(search.evaluations, dict(search.stats), search.elites.entries, best, search.ratio_points,
                       search.near_misses.best(4), search.undecided, search.worst_rejected, found,
                       search.undefined_example, search.tight_detail, search.near_ties,
                       search.elites.cells(), search.near_misses.cells(4), sorted(search.rejected_exactly - chunk.rejected),
                       list(search.elites.leaders.values()))


def run_chunk(task) -> ChunkResult:
    """A task as an executor runs it: (check or its registered token, config, chunk)."""
    ref, config, chunk = task
    check = registered_check(ref) if isinstance(ref, int) else ref
    return run_chunk_in(ChunkSearch(check, config, deadline=chunk.deadline), chunk)
