"""The search engine's public names, kept where callers first found them (see :mod:`verifier.search`)."""

from .search import QUICK, RESOLUTION, SearchConfig, make_counterexample, run_check, run_checks, tune_allocator

__all__ = ["SearchConfig", "QUICK", "RESOLUTION", "run_check", "run_checks", "make_counterexample", "tune_allocator"]
