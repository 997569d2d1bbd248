"""The search engine: named phases, each its own module, ending with a stated reason.

    generate -> target -> refine -> deep -> (every suspect re-checked and certified) -> shrink

*generate* (:mod:`.generate`) draws structured random batches (see :mod:`verifier.sampling`)
in rounds: after each round the dims where margins were smallest are drawn more often.
*target* (:mod:`.target`) runs a local search from each start the elite pool
(:mod:`.pool`) offers, the best point of every dims among them; a maximum over more terms
than coordinates is also descended smoothed (:mod:`.smooth`).  *refine* (:mod:`.refine`)
takes the best points to the bottom of their basins by line searches.  *deep* (:mod:`.deep`)
searches below float64's resolution at ``dps`` digits from the near-misses and from the best
points whose margin float64 cannot resolve.  Every batch goes through the evaluate step
(:mod:`.evaluate`), which escalates what float64 cannot decide; only a certificate makes a
verdict ``refuted``.  The coordinator (:mod:`.coordinator`) splits the work into
seed-addressed chunks (:mod:`.chunks`): a seed gives the same result whatever the number of
jobs.  Nothing here imports click or rich; progress goes through a callback.
"""

from .config import QUICK, RESOLUTION, SearchConfig, tune_allocator

#: the coordinator and what it re-exports, imported on first use: a command that only reads a
#: configuration (the CLI's options) does not load the search
_LAZY = {"run_check": "coordinator", "error_result": "coordinator", "exact_strings": "coordinator", "make_counterexample": "coordinator"}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["SearchConfig", "QUICK", "RESOLUTION", "run_check", "make_counterexample",
           "exact_strings", "error_result", "tune_allocator"]
