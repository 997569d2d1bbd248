"""The base of every context: the API's helpers, written once against its primitives."""

from __future__ import annotations

import contextlib
from fractions import Fraction
from typing import Any, Iterator

import numpy as np

from .table import FUNCTIONS
from .values import exact_decimal


def _core_axes(x: np.ndarray) -> tuple[int, ...]:
    return tuple(range(1, np.ndim(x)))


class Context:
    """Operations a claim may use, beyond the arithmetic operators."""

    name = "abstract"
    #: True when every result is exact or a rigorous enclosure (usable for certificates).
    rigorous = False

    # -- construction -----------------------------------------------------------------
    def asarray(self, value: Any) -> np.ndarray:
        raise NotImplementedError

    def const(self, value: int | str | Fraction) -> Any:
        """A constant such as ``ctx.const("1/2")`` or ``ctx.const("0.45")`` in this context's number type."""
        with self.precision():
            return self.scalar(exact_decimal(value))

    def scalar(self, value: Fraction) -> Any:
        raise NotImplementedError

    def convert(self, data: dict) -> dict:
        """A candidate's variables (exact rationals or floats) as this context's numbers.

        Converted inside the context's precision: outside it, a rational such as 1/3 or a
        166-bit dyadic would be rounded to the ambient 53 bits before any certificate saw it.
        """
        with self.precision():
            return {k: self.asarray(np.asarray(v, dtype=object)) for k, v in data.items()}

    # -- elementwise (see FUNCTIONS; the smooth ones are made from the table below) ------
    def _function(self, row, x):
        """``row`` of the function table applied to every entry of ``x``."""
        raise NotImplementedError

    def abs(self, x):
        return np.abs(x)

    # -- reductions (axis: an int or a tuple of ints, never the batch axis) ------------
    def sum(self, x, axis, keepdims=False):
        return np.sum(x, axis=axis, keepdims=keepdims)

    # -- helpers written once against the primitives above ----------------------------
    def T(self, x):
        """Transpose of the last two axes."""
        return np.swapaxes(x, -1, -2)

    def ones_like(self, x):
        out = np.empty_like(x)
        out[...] = self.scalar(Fraction(1))
        return out

    def max_all(self, x):
        """Maximum over every non-batch axis."""
        axes = _core_axes(x)
        return self.max(x, axes) if axes else x

    def min_all(self, x):
        axes = _core_axes(x)
        return self.min(x, axes) if axes else x

    def sum_all(self, x):
        axes = _core_axes(x)
        return self.sum(x, axes) if axes else x

    def norm_inf(self, x):
        """Entrywise max norm ``max_{j,l} |x_{j,l}|`` (the paper's ``||.||_inf``)."""
        return self.max_all(self.abs(x))

    def norm_1(self, x):
        """Entrywise l1 norm ``sum_{j,l} |x_{j,l}|`` (the paper's ``||.||_1``)."""
        return self.sum_all(self.abs(x))

    @contextlib.contextmanager
    def precision(self) -> Iterator[None]:
        yield


def _table_method(row):
    def method(self, x):
        return self._function(row, x)

    method.__name__ = method.__qualname__ = row.name
    method.__doc__ = f"``{row.name}`` entry by entry" + (f": {row.summary}." if row.summary else ".")
    return method


# every smooth function of the table is a method of every context: each context says how it
# evaluates a row (``_function``), and a context that needs another formula overrides the name
for _row in FUNCTIONS:
    if _row.arity == 1 and not _row.piecewise and not _row.exponent:
        setattr(Context, _row.name, _table_method(_row))
