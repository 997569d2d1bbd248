"""The Coq-term context, kept under its old names: the graphs live in :mod:`verifier.formula` now.

The claim's own functions build a :class:`~verifier.formula.Term` graph there once, as data
(:class:`~verifier.formula.Formula`); the Coq scripts are written from that data alone.
"""

from __future__ import annotations

from ..formula import FUNCTIONS, FormulaContext, NotExportable, Term, lift

#: the context that builds Coq-ready term graphs from a claim's functions
CoqContext = FormulaContext
COQ_FUNCTIONS = {name: name for name in FUNCTIONS}

__all__ = ["COQ_FUNCTIONS", "CoqContext", "NotExportable", "Term", "lift"]
