"""``--var`` and ``--dim``: what the statement's names are and where they range.

Forms (one option each, repeatable)::

    --var 'a,b,c > 0'            scalars with a bound (> >= < <=)
    --var 'x in [0, 4]'          a closed, open or half-open interval; \\in and the Unicode sign too
    --var '0 < x <= 1'           the same as a chain
    --var '0 < x < \\pi'          a bound may be any real constant: π, e, \\sqrt{2}, \\ln 2
    --var 'x'                    a real scalar, unbounded
    --var 'x \\in \\mathbb{R}_{>0}'  the reals and their halves: \\mathbb{R}, \\mathbb{R}_{\\ge 0}, \\mathbb{R}_{<0}, \\mathbb{R}_{++}
    --var 'v \\in \\mathbb{R}^n'    a vector of dimension n (\\mathbb{R}^3: of size 3; \\mathbb{R}^n_{>0}: entries > 0)
    --var 'v: vector n in [-1, 1]'   a vector of dimension n (or of a fixed size: vector 3)
    --var 'p: simplex n'         entries >= 0 summing to 1
    --var 'u: unit vector n'     Euclidean norm exactly 1
    --dim 'n in 1..8'            the sizes a dimension takes (also 'n in [1, 8]', 'n = 3')

An unbounded side of a scalar or a vector is searched on ``[-UNBOUNDED_BOX, UNBOUNDED_BOX]``;
the claim's notes say so.  Bounds are exact numbers (``1/2``, ``\\frac{1}{3}``, ``0.1``, ``\\pi``):
a rational bound is the search box's end; an irrational one (``x < \\pi``) cuts the box at a
rational just outside it and is itself a hypothesis of the claim, decided exactly (in ball
arithmetic, or by sympy) in every certificate.
"""

from __future__ import annotations

import keyword
import re
from fractions import Fraction
from math import floor

import numpy as np
import sympy
from flint import arb

from ..contexts import BallContext
from .ctxcode import CtxPrinter
from .errors import ExpressionError
from .names import DEFAULT_DIM, UNBOUNDED_BOX, Declarations, Declared, DimDecl, python_name
from .translate import exact_number

__all__ = ["DEFAULT_DIM", "UNBOUNDED_BOX", "Declarations", "Declared", "DimDecl", "parse_declarations", "python_name"]

KINDS = ("scalar", "vector", "simplex", "unit-vector")
_IN = r"(?:\\in|\u2208|\bin\b)"
_NAMES = r"[\\A-Za-z][\\A-Za-z0-9_]*(?:\s*,\s*[\\A-Za-z][\\A-Za-z0-9_]*)*"
_REL = {"<": "<", "<=": "<=", "\\le": "<=", "\\leq": "<=", "\u2264": "<=", ">": ">", ">=": ">=", "\\ge": ">=",
        "\\geq": ">=", "\u2265": ">="}
_REL_RE = r"(<=|>=|\\leq?|\\geq?|[<>\u2264\u2265])"
#: the reals as papers write them: \mathbb{R}, \mathbb R, ℝ
_REALS = r"(?:\\mathbb\s*\{\s*R\s*\}|\\mathbb\s+R|\u211d)"
_OTHER_SETS = r"(?:\\mathbb\s*\{?\s*([NZQC])\s*\}?|[\u2115\u2124\u211a\u2102])"
#: how far outside an irrational bound the box is cut (relative): close, with a short rational
_OUTSIDE = Fraction(1, 2**40)


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
    return Declared(var.name, var.kind, var.size, lo, hi, var.lo_strict, var.hi_strict, var.spec, tuple(boxed),
                    var.lo_exact, var.hi_exact)


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
        bounds = {**_one_bound(">" if _REL[rel1] == "<" else ">=", lo_text, spec),
                  **_one_bound("<" if _REL[rel2] == "<" else "<=", hi_text, spec)}
        return [_checked(Declared(n, spec=spec, **bounds)) for n in _names(names, spec)]
    m = re.fullmatch(rf"({_NAMES})\s*{_IN}\s*(.+)", text)
    if m:
        names, where = _names(m.group(1), spec), m.group(2).strip()
        if re.match(_REALS, where) or re.match(_OTHER_SETS, where):
            kind, size, bounds = _reals(where, spec)
            return [_checked(Declared(n, kind, size, spec=spec, **bounds)) for n in names]
        return [_checked(Declared(n, spec=spec, **_interval(where, spec))) for n in names]
    m = re.fullmatch(rf"({_NAMES})\s*{_REL_RE}\s*(.+)", text)
    if m:
        names, rel, bound = m.groups()
        return [_checked(Declared(n, spec=spec, **_one_bound(_REL[rel], bound, spec))) for n in _names(names, spec)]
    m = re.fullmatch(_NAMES, text)
    if m:
        return [Declared(n, spec=spec) for n in _names(text, spec)]
    _fail(spec, "cannot read this declaration; forms: 'a,b,c > 0', 'x in [0, 4]', 'x \\in \\mathbb{R}_{>0}', "
                "'v \\in \\mathbb{R}^n', 'v: vector n in [-1, 1]', 'p: simplex n', 'u: unit vector n'")


def _checked(var: Declared) -> Declared:
    if var.lo is None or var.hi is None:
        return var
    if var.lo_exact is None and var.hi_exact is None:
        empty = var.lo > var.hi or (var.lo == var.hi and (var.lo_strict or var.hi_strict))
    else:  # an irrational end: sympy decides the sign of the gap (it is never 0 against a rational)
        lo = var.lo_exact if var.lo_exact is not None else sympy.Rational(var.lo.numerator, var.lo.denominator)
        hi = var.hi_exact if var.hi_exact is not None else sympy.Rational(var.hi.numerator, var.hi.denominator)
        gap = hi - lo
        empty = bool(gap.is_negative) or (bool(gap.is_zero) and (var.lo_strict or var.hi_strict))
    if empty:
        _fail(var.spec, f"the interval of {var.name} is empty")
    return var


def _one_bound(rel, text, spec) -> dict:
    """``x > lo`` or ``x <= hi``: the box's end, its strictness, and the bound as read when irrational."""
    lower = rel in (">", ">=")
    box, exact = _number(text, spec, "lo" if lower else "hi")
    if lower:
        return dict(lo=box, lo_strict=rel == ">", lo_exact=exact)
    return dict(hi=box, hi_strict=rel == "<", hi_exact=exact)


def _reals(where, spec) -> tuple[str, str | int | None, dict]:
    r"""``\mathbb{R}``, ``\mathbb{R}_{>0}``, ``\mathbb{R}^n``, ``\mathbb{R}^3_{\ge 0}``: (kind, size, bounds)."""
    other = re.match(_OTHER_SETS, where)
    if other:
        _fail(spec, f"{where.strip()}: integer, rational and complex variables are not read; verify expr checks real "
                    "variables (\\mathbb{R}, an interval, a vector)")
    rest = re.sub(r"^" + _REALS, "", where).strip()
    size, sign = None, None
    while rest:
        m = re.match(r"\^\s*(?:\{\s*([A-Za-z][A-Za-z0-9_]*|\d+)\s*\}|([A-Za-z]|\d+))", rest)
        if m and size is None:
            size = m.group(1) or m.group(2)
            rest = rest[m.end():].strip()
            continue
        m = re.match(r"_\s*(?:\{([^{}]*)\}|(\S))", rest)
        if m and sign is None:
            sign = (m.group(1) if m.group(1) is not None else m.group(2)).strip()
            rest = rest[m.end():].strip()
            continue
        if rest.startswith("^") and re.match(r"\^\s*\{[^}]*(\\times|\u00d7|,)", rest):
            _fail(spec, f"{where.strip()}: matrices are not read by verify expr; write a pack module (docs/authoring.md)")
        if rest.startswith("^") and re.match(r"\^\s*\{?\s*\+", rest):
            sign, rest = "+", ""
            continue
        _fail(spec, f"cannot read {where.strip()!r}: write \\mathbb{{R}}, \\mathbb{{R}}_{{>0}}, \\mathbb{{R}}_{{\\ge 0}}, "
                    "\\mathbb{R}^n or \\mathbb{R}^n_{>0}")
    bounds = {}
    if sign is not None:
        if sign in ("+", "-"):
            word = "positive" if sign == "+" else "negative"
            rel = ">" if sign == "+" else "<"
            _fail(spec, f"\\mathbb{{R}}_{sign} reads two ways (the {word} reals with or without 0): write "
                        f"\\mathbb{{R}}_{{{rel}0}} or \\mathbb{{R}}_{{{rel}= 0}}")
        if sign in ("++", "--"):
            sign = ">0" if sign == "++" else "<0"
        m = re.fullmatch(rf"\s*{_REL_RE}\s*(.+)", sign)
        if not m:
            _fail(spec, f"cannot read the subscript {sign!r} of \\mathbb{{R}}: write _{{>0}}, _{{\\ge 0}}, _{{<0}} or _{{\\le 0}}")
        bounds = _one_bound(_REL[m.group(1)], m.group(2), spec)
    if size is None:
        return "scalar", None, bounds
    size = int(size) if size.isdigit() else size
    if isinstance(size, int) and not 1 <= size <= 100:
        _fail(spec, f"a size must be between 1 and 100, got {size}")
    if isinstance(size, str) and (not size.isidentifier() or keyword.iskeyword(size)):
        _fail(spec, f"{size!r} cannot name a dimension")
    return "vector", size, bounds


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
            bounds = _one_bound(_REL[m.group(1)], m.group(2), spec)
    return [_checked(Declared(n, kind, size, spec=spec, **bounds)) for n in names]


def _interval(text, spec) -> dict:
    text = text.strip()
    m = re.fullmatch(r"([\[(])(.+),(.+)([\])])", text)
    if not m:
        _fail(spec, f"an interval is written [lo, hi], (lo, hi], [lo, hi) or (lo, hi); got {text!r}")
    open_lo, lo_text, hi_text, close_hi = m.groups()
    out = {}
    if not re.fullmatch(r"\s*-\s*(\\infty|inf|oo)\s*", lo_text):
        out.update(_one_bound(">" if open_lo == "(" else ">=", lo_text, spec))
    if not re.fullmatch(r"\s*\+?\s*(\\infty|inf|oo)\s*", hi_text):
        out.update(_one_bound("<" if close_hi == ")" else "<=", hi_text, spec))
    return out


def _number(text, spec, side) -> tuple[Fraction, sympy.Expr | None]:
    """A bound read by the statement's own grammar (``1/2``, ``\\frac{1}{3}``, ``-0.25``, ``\\pi``):
    (the box's end, the bound itself when it is irrational)."""
    try:
        value = exact_number(text.strip())
    except ExpressionError as exc:
        raise ExpressionError(f"bound {text.strip()!r}: {exc.message}", spec, None, f"--var {spec!r}") from None
    if value.is_Rational:
        return Fraction(int(value.p), int(value.q)), None
    return _rational_outside(value, side), value


def _rational_outside(value: sympy.Expr, side: str) -> Fraction:
    """The simplest rational within a relative 2^-40 outside an irrational bound: above it for
    an upper bound, below for a lower one, beyond a rigorous enclosure (the bound's ctx code
    evaluated in ball arithmetic, as every certificate evaluates it)."""
    source = CtxPrinter((), (), ()).source(value)
    function = eval(compile(f"lambda ctx, v: {source}", "<bound>", "eval"), {"Fraction": Fraction})  # noqa: S307 - printed by the front end
    balls = BallContext(128)
    with balls.precision():
        ball = np.asarray(function(balls, None), dtype=object).reshape(-1)[0]
        ball = ball if isinstance(ball, arb) else arb(ball)
        man, exp = (ball.upper() if side == "hi" else ball.lower()).man_exp()
    edge = Fraction(int(man)) * Fraction(2) ** int(exp)
    width = _OUTSIDE * max(1, abs(edge))
    return _simplest_between(edge, edge + width) if side == "hi" else _simplest_between(edge - width, edge)


def _simplest_between(lo: Fraction, hi: Fraction) -> Fraction:
    """The rational of smallest denominator in [lo, hi] (continued fractions, lo <= hi)."""
    if lo <= 0 <= hi:
        return Fraction(0)
    if hi < 0:
        return -_simplest_between(-hi, -lo)
    whole = floor(lo)
    if whole == lo or whole + 1 <= hi:
        return Fraction(whole if whole == lo else whole + 1)
    return whole + 1 / _simplest_between(1 / (hi - whole), 1 / (lo - whole))


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
