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

import importlib

import numpy as np

from .errors import DomainError, FloatLiteralError, FunctionDomainError, NotRational
from .values import Bound, exact_decimal, to_fraction

#: each context and the function table, imported on first use: a claim can be stated, and
#: described to the process that decides, without loading sympy, scipy or mpmath
_LAZY = {
    "BallContext": "ball", "Context": "base", "ExactContext": "exact", "FloatContext": "float64", "MPContext": "mp",
    "Numbers": "objects", "ObjectContext": "objects", "SymbolicContext": "symbolic", "FUNCTIONS": "table",
    "REDUCTIONS": "table", "Function": "table",
}
#: the shared instances, made on first use
_INSTANCES = {"FLOAT": "FloatContext", "EXACT": "ExactContext", "SYMBOLIC": "SymbolicContext"}


def __getattr__(name):
    if name in _LAZY:
        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    elif name in _INSTANCES:
        value = __getattr__(_INSTANCES[name])()
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def _by_type() -> tuple:
    # Lifting a foreign operand depends only on the number type (precision is the ambient,
    # scoped one), so an object array built outside a context can still be given its lifting.
    import mpmath
    import sympy
    from flint import arb, fmpq

    return ((fmpq, __getattr__("EXACT")), (arb, __getattr__("BallContext")()), (mpmath.mpf, __getattr__("MPContext")()),
            (sympy.Basic, __getattr__("SYMBOLIC")))


_BY_TYPE: tuple | None = None


def as_numbers(value):
    """An object array of one context's numbers as :class:`Numbers` (anything else unchanged)."""
    global _BY_TYPE
    if not isinstance(value, np.ndarray) or value.dtype != object or not value.size:
        return value
    Numbers = __getattr__("Numbers")
    if isinstance(value, Numbers):
        return value
    if _BY_TYPE is None:
        _BY_TYPE = _by_type()
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
