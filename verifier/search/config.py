"""What a search may spend, and the constants its phases share."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

Progress = Callable[[int, int], None]  # (evaluations so far, budget)

#: |margin| / (|lhs| + |rhs|) below this is beyond what float64 resolves after a chain of
#: roundings: its sign is noise, so the point goes to the arbitrary-precision (deep) phase.
RESOLUTION = 2.0**-40

#: the phase number in a chunk's seed address ``[seed, phase, index]``
PHASES = {"generate": 0, "target": 1, "deep": 2, "refine": 3}

#: the target phase's local searches (see :mod:`.target`)
TARGET_STRATEGIES = ("es", "cmaes")


@dataclass(frozen=True)
class SearchConfig:
    seed: int = 0
    budget: int = 200_000  # float64 evaluations per check
    time_limit: float = 60.0  # seconds per check (a safety cap; budgets are what reproduce)
    dps: int = 50
    batch: int = 2048
    shrink: bool = True
    elites: int = 8
    offspring: int = 64
    rechecks_per_batch: int = 3
    max_rechecks: int = 400  # per check, shared out between chunks by chunk index
    generate_fraction: float = 0.5
    refine_fraction: float = 0.1  # kept for refining the best points to the end (see .refine)
    refine_starts: int = 4
    jobs: int = 1  # worker processes; 0 = one per core.  Never changes the result of a seed.
    deep: bool = True  # search below float64's resolution at dps digits
    deep_points: int = 2  # unresolved points re-evaluated at dps digits per chunk
    deep_starts: int = 2  # arbitrary-precision local searches after the target phase
    deep_steps: int = 100  # evaluations at dps digits per deep local search
    round_chunks: int = 8  # generate chunks per adaptation round
    undefined_rechecks: int = 4  # float64-undefined points re-evaluated at dps digits per batch
    min_defined_fraction: float = 0.1  # below this share of evaluable points the check is an error
    target: str = "cmaes"  # the target phase's local search: "cmaes" or "es" (home-made); see docs/benchmarks.md
    executor: str | None = None  # where one check's chunks run: a runner spec (verifier.runner.make_runner); never changes the result
    prove_first: bool = True  # a small polynomial claim is first given to z3 on its whole search domain: a proof ends the check

    def __post_init__(self):
        if self.budget < 1:
            raise ValueError(f"budget must be positive, got {self.budget}")
        if self.dps < 15:
            raise ValueError(f"dps must be at least 15, got {self.dps}")
        if not self.time_limit > 0:
            raise ValueError(f"time limit must be positive, got {self.time_limit}")
        if self.jobs < 0:
            raise ValueError(f"jobs must be 0 (one per core) or positive, got {self.jobs}")
        if self.target not in TARGET_STRATEGIES:
            raise ValueError(f"target must be one of {', '.join(TARGET_STRATEGIES)}, got {self.target!r}")
        if self.batch < 1 or self.round_chunks < 1:
            raise ValueError("batch and round_chunks must be positive")
        if not 0 <= self.refine_fraction < 1 or self.refine_starts < 0:
            raise ValueError(f"refine_fraction must be in [0, 1) and refine_starts >= 0, got {self.refine_fraction}, {self.refine_starts}")


#: the ``--quick`` preset of ``verify all`` (CI)
QUICK = SearchConfig(budget=40_000, time_limit=5.0)


_ALLOCATOR_TUNED = False


def tune_allocator() -> None:
    """Keep numpy's batch-sized temporaries on the heap (glibc only; once per process).

    A batch of 4096 8x8 matrices is 2 MB; glibc serves blocks that large with fresh
    ``mmap`` pages and returns them on free, so every temporary of a margin costs 512 page
    faults -- more than the arithmetic (measured: 0.45 M vs 1.1 M candidates/s for Lemma
    4.1 at n = d = 8).  Raising the mmap and trim thresholds to 32/64 MB lets freed
    blocks be reused; the heap it keeps is bounded by the largest batch's working set.
    """
    global _ALLOCATOR_TUNED
    if _ALLOCATOR_TUNED:
        return
    _ALLOCATOR_TUNED = True
    import ctypes
    import ctypes.util
    import platform

    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"))
        M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
        libc.mallopt(M_MMAP_THRESHOLD, 32 * 2**20)
        libc.mallopt(M_TRIM_THRESHOLD, 64 * 2**20)
    except (OSError, AttributeError):  # not glibc after all: keep the defaults
        pass
