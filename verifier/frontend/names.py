"""What the declarations say, as data: the variables and dimensions a statement may name.

Read from ``--var`` and ``--dim`` by :mod:`.declarations`, used by :mod:`.translate` to resolve
names and by :mod:`.build` to write the claim.  A module of its own so that the reader of
declarations (which reads a bound such as ``\\frac{\\pi}{2}`` with the statement's grammar) and
the reader of statements (which needs the declarations) do not import each other.
"""

from __future__ import annotations

import keyword
from dataclasses import dataclass, field
from fractions import Fraction

import sympy

#: where an unbounded side of a declared variable is cut for the search (both signs)
UNBOUNDED_BOX = 10**4
#: the sizes an undeclared dimension takes (Dim's own default)
DEFAULT_DIM = (1, 6)


def python_name(name: str) -> str:
    """A name as the claim's code spells it: ``\\lambda`` and ``lambda`` become ``lambda_``."""
    name = name.lstrip("\\")
    return name + "_" if keyword.iskeyword(name) else name


@dataclass(frozen=True)
class Declared:
    """One declared variable: its kind, its size (vectors), and the bounds of its entries.

    ``lo`` and ``hi`` are the search box's ends, exact rationals.  A bound that is not rational
    (``x < \\pi``) is kept as read in ``lo_exact``/``hi_exact``: the box is cut at a rational
    just outside it and the bound itself becomes a hypothesis, checked in every certificate.
    """

    name: str  # as the statement writes it (alpha, x_1)
    kind: str = "scalar"
    size: str | int | None = None  # a dimension's name or a fixed size (vectors)
    lo: Fraction | None = None
    hi: Fraction | None = None
    lo_strict: bool = False
    hi_strict: bool = False
    spec: str = ""  # the --var text it came from
    boxed: tuple[str, ...] = ()  # the ends cut at UNBOUNDED_BOX ("lo", "hi")
    lo_exact: sympy.Expr | None = None  # an irrational lower bound as read
    hi_exact: sympy.Expr | None = None

    @property
    def py(self) -> str:
        return python_name(self.name)

    @property
    def is_vector(self) -> bool:
        return self.kind != "scalar"

    def bounds_text(self) -> str:
        lo = "(" if self.lo_strict or self.lo is None else "["
        hi = ")" if self.hi_strict or self.hi is None else "]"
        lo_text = "-inf" if self.lo is None else _bound_text(self.lo, self.lo_exact)
        hi_text = "inf" if self.hi is None else _bound_text(self.hi, self.hi_exact)
        return f"{lo}{lo_text}, {hi_text}{hi}"


def _bound_text(q: Fraction, exact) -> str:
    if exact is not None:
        return sympy.sstr(exact)
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


@dataclass(frozen=True)
class DimDecl:
    name: str
    lo: int
    hi: int
    spec: str = ""


@dataclass(frozen=True)
class Declarations:
    variables: tuple[Declared, ...] = ()
    dims: tuple[DimDecl, ...] = ()
    notes: tuple[str, ...] = field(default=())

    def variable(self, name: str) -> Declared | None:
        for var in self.variables:
            if var.name == name or var.py == name:
                return var
        return None

    def dim(self, name: str) -> DimDecl | None:
        return next((d for d in self.dims if d.name == name), None)

    def names(self) -> frozenset[str]:
        """Every name a statement may use, as it writes them (``x_1``, ``alpha``, ``n``)."""
        return frozenset([v.name for v in self.variables] + [d.name for d in self.dims])
