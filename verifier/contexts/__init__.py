"""Numeric contexts: one claim, written once, evaluated in every precision.

A claim's mathematics is a Python function ``f(ctx, v)`` over numpy arrays whose
first axis is a batch axis.  The context decides what the entries are:

* :class:`FloatContext` -- float64 arrays, a whole batch of candidates at once (search);
* :class:`MPContext` -- mpmath numbers at a scoped working precision (re-check);
* :class:`ExactContext` -- python-flint ``fmpq`` rationals (certificate, no transcendentals);
* :class:`BallContext` -- python-flint ``arb`` balls: every result is a rigorous enclosure
  (certificate where ``exp`` appears);
* :class:`SymbolicContext` -- sympy expressions (proof that two sides are *exactly* equal,
  which no enclosure can give).

Object contexts hold batches of size one.  Arithmetic operators act entrywise through
numpy's object arrays, so ``A @ B``, ``X - Y`` and ``(hi + lo) / 2`` mean the same in every
context.  Constants in claim code must be Python ints (or built with :meth:`Context.const`):
a float literal would silently break exactness, so the exact context rejects floats.

Precision is always scoped (``with ctx.precision(...)``), never set globally.

One module per context (``float64``, ``mp``, ``exact``, ``ball``, ``symbolic``) over a shared
base (``base``: the helpers written once; ``objects``: the object arrays and what the object
contexts share), and the function table in one place (``table``).
"""

from __future__ import annotations

import mpmath
import numpy as np
import sympy
from flint import arb, fmpq

from .ball import BallContext
from .base import Context
from .errors import DomainError, FloatLiteralError, FunctionDomainError, NotRational
from .exact import ExactContext
from .float64 import FloatContext
from .mp import MPContext
from .objects import Numbers, _ObjectContext  # noqa: F401  (the base of the z3, Coq, guided contexts)
from .symbolic import SymbolicContext
from .table import FUNCTIONS, REDUCTIONS, Function
from .values import Bound, exact_decimal, to_fraction

FLOAT = FloatContext()
EXACT = ExactContext()
SYMBOLIC = SymbolicContext()

# Lifting a foreign operand depends only on the number type (precision is the ambient,
# scoped one), so an object array built outside a context can still be given its lifting.
_BY_TYPE = ((fmpq, EXACT), (arb, BallContext()), (mpmath.mpf, MPContext()), (sympy.Basic, SYMBOLIC))


def as_numbers(value):
    """An object array of one context's numbers as :class:`Numbers` (anything else unchanged)."""
    if not isinstance(value, np.ndarray) or isinstance(value, Numbers) or value.dtype != object or not value.size:
        return value
    first = value.flat[0]
    for kind, ctx in _BY_TYPE:
        if isinstance(first, kind):
            return ctx.wrap(value)
    return value


__all__ = [
    "FUNCTIONS", "REDUCTIONS", "Function", "Context", "FloatContext", "MPContext", "ExactContext", "BallContext",
    "SymbolicContext", "Numbers", "FLOAT", "EXACT", "SYMBOLIC", "Bound", "FunctionDomainError", "DomainError", "FloatLiteralError",
    "NotRational", "as_numbers", "exact_decimal", "to_fraction",
]
