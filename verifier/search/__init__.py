"""The search engine: named phases, each its own module, ending with a stated reason.

    generate -> target -> deep -> (every suspect re-checked and certified) -> shrink

*generate* (:mod:`.generate`) draws structured random batches (see :mod:`verifier.sampling`)
in rounds: after each round the dims where margins were smallest are drawn more often.
*target* (:mod:`.target`) runs a local search from each start the elite pool
(:mod:`.pool`) offers.  *deep* (:mod:`.deep`) searches below float64's resolution at ``dps``
digits from the near-misses.  Every batch goes through the evaluate step
(:mod:`.evaluate`), which escalates what float64 cannot decide; only a certificate makes a
verdict ``refuted``.  The coordinator (:mod:`.coordinator`) splits the work into
seed-addressed chunks (:mod:`.chunks`): a seed gives the same result whatever the number of
jobs.  Nothing here imports click or rich; progress goes through a callback.
"""

from .config import QUICK, RESOLUTION, SearchConfig, tune_allocator
from .coordinator import error_result, exact_strings, make_counterexample, run_check, run_checks

__all__ = ["SearchConfig", "QUICK", "RESOLUTION", "run_check", "run_checks", "make_counterexample",
           "exact_strings", "error_result", "tune_allocator"]
