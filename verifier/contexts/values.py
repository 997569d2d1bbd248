"""The exact value of a number in claim code: a bound as the author wrote it, an int, a Fraction.

Every context starts from these values: the float search from the nearest float, the
others from the exact rational.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
from flint import fmpq


class Bound(float):
    """A domain endpoint: the nearest float in the float search, the exact value elsewhere.

    ``Fraction(bound)`` and every exact context see the value the author wrote (``"0.1"``
    or ``1e-9`` mean 1/10 and 1/10^9).  A value no float holds is rounded *outward*
    (``side=-1`` for a lower end, ``+1`` for an upper end): the float search clips just
    outside, within a rounding of the float hypotheses' tolerance, and the exact
    projection then clips onto the decimal itself, so a claim false only at the endpoint
    is reached.
    """

    exact: Fraction

    def __new__(cls, value: Any, side: int = 0) -> "Bound":
        exact = exact_decimal(value)
        nearest = float(exact)
        if side and Fraction(nearest) != exact and (Fraction(nearest) > exact) == (side < 0):
            nearest = float(np.nextafter(nearest, side * np.inf))
        out = super().__new__(cls, nearest)
        out.exact = exact
        return out

    def __repr__(self) -> str:
        shortest = repr(float(self.exact))
        return shortest if Fraction(shortest) == self.exact else f"'{self.exact}'"

    __str__ = __repr__

    @property
    def plain(self) -> int | float | str:
        """For JSON: an int or a float when one holds the value exactly, else ``"1/10"``."""
        if self.exact.denominator == 1:
            return int(self.exact)
        return float(self.exact) if Fraction(float(self.exact)) == self.exact else str(self.exact)

    def as_integer_ratio(self) -> tuple[int, int]:
        return self.exact.numerator, self.exact.denominator

    def __reduce__(self):
        return (_bound_from, (self.exact, float(self)))


def _bound_from(exact: Fraction, nearest: float) -> "Bound":
    out = float.__new__(Bound, nearest)
    out.exact = exact
    return out


def exact_decimal(value: Any) -> Fraction:
    """The exact value an author means: a float by its shortest repr (``1e-9`` is 1/10^9)."""
    if isinstance(value, Bound):
        return value.exact
    if isinstance(value, (float, np.floating)):
        if not np.isfinite(value):
            raise ValueError(f"non-finite number {value!r}")
        return Fraction(repr(float(value)))
    if isinstance(value, (str, Decimal)):
        try:
            return Fraction(value)
        except (ValueError, ZeroDivisionError, ArithmeticError):
            raise ValueError(f"not a number: {value!r} (write a decimal like '0.1' or a ratio like '1/3')") from None
    return to_fraction(value)


def to_fraction(value: Any) -> Fraction:
    """Exact rational value of an int, Fraction, fmpq, Bound or finite float."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, (int, np.integer)):
        return Fraction(int(value))
    if isinstance(value, fmpq):
        return Fraction(int(value.p), int(value.q))
    if isinstance(value, Bound):
        return value.exact
    if isinstance(value, (float, np.floating)):
        if not np.isfinite(value):
            raise ValueError(f"non-finite number {value!r}")
        return Fraction(float(value))
    if isinstance(value, Decimal):
        return Fraction(value)
    raise TypeError(f"cannot take the exact value of {type(value).__name__}")


def integral_value(p: Any) -> int | None:
    """``p`` as an int when it is an integer (``2``, ``Fraction(4, 2)``, ``2.0``), else None."""
    try:
        q = exact_decimal(p)
    except (TypeError, ValueError):
        return None
    return int(q) if q.denominator == 1 else None
