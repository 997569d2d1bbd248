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
from .coordinator import error_result, exact_strings, make_counterexample, run_check, run_checks

__all__ = ["SearchConfig", "QUICK", "RESOLUTION", "run_check", "run_checks", "make_counterexample",
           "exact_strings", "error_result", "tune_allocator"]
