"""How a stored counterexample writes an irrational algebraic coordinate, and reads it back.

A value is a string, like every exact value in a stored file, so every reader and report
shows it as it is: ``"sqrt(2)/2 = root of 2*x**2 - 1 in [7/10, 4/5]"`` -- the closed form for
a reader, then the data that define the number exactly (an irreducible integer polynomial and
an interval with rational ends holding exactly one of its roots).  Reading checks all of it
exactly (:meth:`verifier.algebraic.AlgebraicNumber.parse`): a file edited by hand into a
polynomial that factors, an interval with two roots or none, or a closed form that is not
that root is refused with the reason.
"""

from __future__ import annotations

import sympy

from .algebraic import AlgebraicFormatError, AlgebraicNumber

#: what marks a stored value as algebraic (a rational never contains it)
MARK = "= root of "


def is_algebraic_text(value) -> bool:
    return isinstance(value, str) and MARK in value


def parse_algebraic(value: str) -> AlgebraicNumber:
    """The algebraic number a stored string names; ``ValueError`` (an
    :class:`~verifier.algebraic.AlgebraicFormatError`) saying why when it names none."""
    return AlgebraicNumber.parse(value)


def algebraic_text(number: AlgebraicNumber) -> str:
    return str(number)


def display_parts(value: str) -> tuple[str, str]:
    """For a report: (the closed form, ``"root of 2*x**2 - 1 in [7/10, 4/5]"``) of a stored
    algebraic value, split as written (nothing checked: replay checks).  A math display shows
    the first (:func:`closed_form_latex`), the second as text beside it."""
    closed, _, definition = value.partition(" " + MARK)
    return closed.strip(), ("root of " + definition.strip()) if definition else ""


def closed_form_latex(value: str) -> str:
    """The closed form of a stored algebraic value in LaTeX (``\\frac{\\sqrt{2}}{2}``), read back
    exactly first; the plain text where it does not read."""
    try:
        return sympy.latex(parse_algebraic(value).sympy)
    except ValueError:
        return display_parts(value)[0]


__all__ = ["AlgebraicFormatError", "MARK", "algebraic_text", "closed_form_latex", "display_parts", "is_algebraic_text", "parse_algebraic"]
