"""``--var`` and ``--dim``: what the statement's names are and where they range.

Forms (one option each, repeatable)::

    --var 'a,b,c > 0'            scalars with a bound (> >= < <=)
    --var 'x in [0, 4]'          a closed, open or half-open interval; \\in and the Unicode sign too
    --var '0 < x <= 1'           the same as a chain
    --var 'x'                    a real scalar, unbounded
    --var 'v: vector n in [-1, 1]'   a vector of dimension n (or of a fixed size: vector 3)
    --var 'p: simplex n'         entries >= 0 summing to 1
    --var 'u: unit vector n'     Euclidean norm exactly 1
    --dim 'n in 1..8'            the sizes a dimension takes (also 'n in [1, 8]', 'n = 3')

An unbounded side of a scalar or a vector is searched on ``[-UNBOUNDED_BOX, UNBOUNDED_BOX]``;
the claim's notes say so.  Bounds are exact numbers (``1/2``, ``\\frac{1}{3}``, ``0.1``).
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass, field
from fractions import Fraction

from .errors import ExpressionError

#: where an unbounded side of a declared variable is cut for the search (both signs)
UNBOUNDED_BOX = 10**4
#: the sizes an undeclared dimension takes (Dim's own default)
DEFAULT_DIM = (1, 6)

KINDS = ("scalar", "vector", "simplex", "unit-vector")
_IN = r"(?:\\in|\u2208|\bin\b)"
_NAMES = r"[\\A-Za-z][\\A-Za-z0-9_]*(?:\s*,\s*[\\A-Za-z][\\A-Za-z0-9_]*)*"
_REL = {"<": "<", "<=": "<=", "\\le": "<=", "\\leq": "<=", "\u2264": "<=", ">": ">", ">=": ">=", "\\ge": ">=",
        "\\geq": ">=", "\u2265": ">="}
_REL_RE = r"(<=|>=|\\leq?|\\geq?|[<>\u2264\u2265])"


def python_name(name: str) -> str:
    """A name as the claim's code spells it: ``\\lambda`` and ``lambda`` become ``lambda_``."""
    name = name.lstrip("\\")
    return name + "_" if keyword.iskeyword(name) else name


@dataclass(frozen=True)
class Declared:
    """One declared variable: its kind, its size (vectors), and the bounds of its entries."""

    name: str  # as the statement writes it (alpha, x_1)
    kind: str = "scalar"
    size: str | int | None = None  # a dimension's name or a fixed size (vectors)
    lo: Fraction | None = None
    hi: Fraction | None = None
    lo_strict: bool = False
    hi_strict: bool = False
    spec: str = ""  # the --var text it came from
    boxed: tuple[str, ...] = ()  # the ends cut at UNBOUNDED_BOX ("lo", "hi")

    @property
    def py(self) -> str:
        return python_name(self.name)

    @property
    def is_vector(self) -> bool:
        return self.kind != "scalar"

    def bounds_text(self) -> str:
        lo = "(" if self.lo_strict or self.lo is None else "["
        hi = ")" if self.hi_strict or self.hi is None else "]"
        return f"{lo}{'-inf' if self.lo is None else _frac(self.lo)}, {'inf' if self.hi is None else _frac(self.hi)}{hi}"


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


def _frac(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def parse_declarations(var_specs, dim_specs) -> Declarations:
    dims: list[DimDecl] = []
    for spec in dim_specs:
        dims.extend(_parse_dim(spec))
    variables: list[Declared] = []
    for spec in var_specs:
        variables.extend(_parse_var(spec))
    seen = {}
    for var in variables:
        if var.py in seen:
            raise ExpressionError(f"{var.name} is declared twice (also in --var {seen[var.py]!r})", var.spec, None, f"--var {var.spec!r}")
        seen[var.py] = var.spec
    named_dims = {d.name for d in dims}
    for d in dims:
        if d.name in seen:
            raise ExpressionError(f"{d.name} is both a dimension and a variable", d.spec, None, f"--dim {d.spec!r}")
    notes = []
    for var in variables:
        if isinstance(var.size, str) and var.size not in named_dims:
            dims.append(DimDecl(var.size, *DEFAULT_DIM, spec=""))
            named_dims.add(var.size)
            notes.append(f"dimension {var.size} was not given by --dim: sizes {DEFAULT_DIM[0]}..{DEFAULT_DIM[1]}")
    return Declarations(tuple(_boxed(v) for v in variables), tuple(dims), tuple(notes))


def _boxed(var: Declared) -> Declared:
    """Unbounded ends cut at the documented box (simplexes and unit vectors are bounded already)."""
    if var.kind in ("simplex", "unit-vector"):
        return var
    boxed = []
    lo, hi = var.lo, var.hi
    if lo is None:
        lo, boxed = Fraction(-UNBOUNDED_BOX), boxed + ["lo"]
    if hi is None:
        hi, boxed = Fraction(UNBOUNDED_BOX), boxed + ["hi"]
    return Declared(var.name, var.kind, var.size, lo, hi, var.lo_strict, var.hi_strict, var.spec, tuple(boxed))


def _fail(spec, message, option="--var"):
    raise ExpressionError(message, spec, None, f"{option} {spec!r}")


def _names(text, spec):
    names = [n.strip() for n in text.split(",")]
    for n in names:
        if not re.fullmatch(r"\\?[A-Za-z][A-Za-z0-9_]*", n):
            _fail(spec, f"{n!r} is not a variable name")
    return [n.lstrip("\\") for n in names]


def _parse_var(spec: str) -> list[Declared]:
    text = spec.strip()
    m = re.fullmatch(rf"({_NAMES})\s*:\s*(.+)", text)
    if m:
        return _parse_kind(spec, _names(m.group(1), spec), m.group(2).strip())
    m = re.fullmatch(rf"(.+?)\s*{_REL_RE}\s*({_NAMES})\s*{_REL_RE}\s*(.+)", text)
    if m and not re.search(_IN, text):  # 0 < x <= 1
        lo_text, rel1, names, rel2, hi_text = m.groups()
        if _REL[rel1][0] != "<" or _REL[rel2][0] != "<":
            _fail(spec, "a chain of bounds reads lo < x <= hi (with < or <=)")
        lo, hi = _number(lo_text, spec), _number(hi_text, spec)
        return [_checked(Declared(n, lo=lo, hi=hi, lo_strict=_REL[rel1] == "<", hi_strict=_REL[rel2] == "<", spec=spec)) for n in _names(names, spec)]
    m = re.fullmatch(rf"({_NAMES})\s*{_IN}\s*(.+)", text)
    if m:
        return [_checked(Declared(n, spec=spec, **_interval(m.group(2), spec))) for n in _names(m.group(1), spec)]
    m = re.fullmatch(rf"({_NAMES})\s*{_REL_RE}\s*(.+)", text)
    if m:
        names, rel, bound = m.groups()
        return [_checked(Declared(n, spec=spec, **_one_bound(_REL[rel], _number(bound, spec)))) for n in _names(names, spec)]
    m = re.fullmatch(_NAMES, text)
    if m:
        return [Declared(n, spec=spec) for n in _names(text, spec)]
    _fail(spec, "cannot read this declaration; forms: 'a,b,c > 0', 'x in [0, 4]', 'v: vector n in [-1, 1]', 'p: simplex n', 'u: unit vector n'")


def _checked(var: Declared) -> Declared:
    if var.lo is not None and var.hi is not None and (var.lo > var.hi or (var.lo == var.hi and (var.lo_strict or var.hi_strict))):
        _fail(var.spec, f"the interval of {var.name} is empty")
    return var


def _one_bound(rel, value):
    if rel in (">", ">="):
        return dict(lo=value, lo_strict=rel == ">")
    return dict(hi=value, hi_strict=rel == "<")


def _parse_kind(spec, names, rest) -> list[Declared]:
    m = re.fullmatch(r"(vector|simplex|unit\s+vector)\s+([A-Za-z][A-Za-z0-9_]*|\d+)(.*)", rest)
    if not m:
        _fail(spec, "after ':' write 'vector n', 'simplex n' or 'unit vector n' (n a dimension or a size)")
    kind, size, tail = m.group(1), m.group(2), m.group(3).strip()
    kind = "unit-vector" if kind.startswith("unit") else kind
    size = int(size) if size.isdigit() else size
    if isinstance(size, int) and not 1 <= size <= 100:
        _fail(spec, f"a size must be between 1 and 100, got {size}")
    bounds = {}
    if tail:
        if kind != "vector":
            _fail(spec, f"a {kind} takes no bounds (its set bounds it)")
        m = re.fullmatch(rf"{_IN}\s*(.+)", tail)
        if m:
            bounds = _interval(m.group(1), spec)
        else:
            m = re.fullmatch(rf"{_REL_RE}\s*(.+)", tail)
            if not m:
                _fail(spec, f"cannot read the bounds {tail!r}: write 'in [lo, hi]' or '> 0'")
            bounds = _one_bound(_REL[m.group(1)], _number(m.group(2), spec))
    return [_checked(Declared(n, kind, size, spec=spec, **bounds)) for n in names]


def _interval(text, spec) -> dict:
    text = text.strip()
    m = re.fullmatch(r"([\[(])(.+),(.+)([\])])", text)
    if not m:
        _fail(spec, f"an interval is written [lo, hi], (lo, hi], [lo, hi) or (lo, hi); got {text!r}")
    open_lo, lo_text, hi_text, close_hi = m.groups()
    lo = None if re.fullmatch(r"\s*-\s*(\\infty|inf|oo)\s*", lo_text) else _number(lo_text, spec)
    hi = None if re.fullmatch(r"\s*\+?\s*(\\infty|inf|oo)\s*", hi_text) else _number(hi_text, spec)
    return dict(lo=lo, hi=hi, lo_strict=open_lo == "(" and lo is not None, hi_strict=close_hi == ")" and hi is not None)


def _number(text, spec) -> Fraction:
    """An exact rational bound, read by the statement's own grammar (``1/2``, ``\\frac{1}{3}``, ``-0.25``)."""
    from .translate import constant_value

    try:
        value = constant_value(text.strip())
    except ExpressionError as exc:
        raise ExpressionError(f"bound {text.strip()!r}: {exc.message}", spec, None, f"--var {spec!r}") from None
    if value is None:
        _fail(spec, f"bound {text.strip()!r} is not an exact rational number")
    return value


def _parse_dim(spec: str) -> list[DimDecl]:
    text = spec.strip()
    m = re.fullmatch(rf"({_NAMES})\s*(?:{_IN}\s*(?:(\d+)\s*\.\.\s*(\d+)|\[\s*(\d+)\s*,\s*(\d+)\s*\])|=\s*(\d+))", text)
    if not m:
        _fail(spec, "write a dimension as 'n in 1..8', 'n in [1, 8]' or 'n = 3'", "--dim")
    names = _names(m.group(1), spec)
    if m.group(6):
        lo = hi = int(m.group(6))
    else:
        lo, hi = int(m.group(2) or m.group(4)), int(m.group(3) or m.group(5))
    if not 1 <= lo <= hi <= 100:
        _fail(spec, f"sizes must satisfy 1 <= lo <= hi <= 100, got {lo}..{hi}", "--dim")
    for n in names:
        if not n.isidentifier() or keyword.iskeyword(n):
            _fail(spec, f"{n!r} cannot name a dimension", "--dim")
    return [DimDecl(n, lo, hi, spec) for n in names]
