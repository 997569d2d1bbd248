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


def _sort_axis(x, axis, what: str) -> int:
    """``axis`` of ``x`` as a non-negative int, refusing the batch axis."""
    ndim = np.ndim(x)
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)) or not -ndim <= axis < ndim:
        raise ValueError(f"{what}: axis {axis!r} is not an axis of an array with {ndim} axes")
    axis = int(axis) % ndim
    if axis == 0:
        raise ValueError(f"{what}: axis 0 is the batch axis; sort along an axis of the variable")
    return axis


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

    @property
    def pi(self) -> Any:
        """π in this context's numbers: float64's nearest double, mpmath's or a ball's at the
        context's precision, sympy's exact symbol.  The exact context has no rational π and
        raises :class:`NotRational` (a certificate then decides in balls, or by sympy)."""
        return self._named_constant("pi")

    def _named_constant(self, name: str) -> Any:
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

    def sign(self, x):
        """-1, 0 or 1 entry by entry, as the entry is negative, zero or positive."""
        return np.sign(x)

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

    def sort(self, x, axis=-1, descending=False):
        """``x`` sorted along ``axis`` (never the batch axis), ascending unless ``descending``.

        An odd-even transposition network of ``minimum`` and ``maximum``: n rounds, each
        comparing neighbours at once (even pairs, then odd), so every context sorts with the
        two functions it already has -- exactly, in balls (enclosures), in z3 (If terms) and
        in the prover's jets -- with no new mathematics per context.
        """
        x = np.asarray(x) if not isinstance(x, np.ndarray) else x
        axis = _sort_axis(x, axis, "sort")
        out = np.array(np.moveaxis(x, axis, -1), dtype=x.dtype)
        n = out.shape[-1]
        for step in range(n):
            first = step % 2
            a, b = out[..., first:n - 1:2], out[..., first + 1:n:2]
            if a.shape[-1]:
                low, high = self.minimum(a, b), self.maximum(a, b)
                out[..., first:n - 1:2], out[..., first + 1:n:2] = low, high
        if descending:
            out = out[..., ::-1]
        return self.wrap(np.moveaxis(out, -1, axis))

    def top_k(self, x, k, axis=-1):
        """The ``k`` largest entries of ``x`` along ``axis``, largest first (``sort``'s network)."""
        x = np.asarray(x) if not isinstance(x, np.ndarray) else x
        axis = _sort_axis(x, axis, "top_k")
        n = x.shape[axis]
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= n:
            raise ValueError(f"top_k: k = {k!r} must be an int from 1 to {n} (the length of axis {axis})")
        ranked = self.sort(x, axis, descending=True)
        return self.wrap(np.take(ranked, range(int(k)), axis=axis))

    def wrap(self, result):
        """A result as this context's array (object contexts: their ``Numbers``)."""
        return result

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
