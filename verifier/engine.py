"""The search engine's public names, kept where callers first found them (see :mod:`verifier.search`;
many checks side by side: :func:`verifier.audit.run_checks`)."""

from .search import QUICK, RESOLUTION, SearchConfig, make_counterexample, run_check, tune_allocator

__all__ = ["SearchConfig", "QUICK", "RESOLUTION", "run_check", "make_counterexample", "tune_allocator"]
