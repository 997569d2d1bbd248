"""Real algebraic numbers and exact arithmetic in a number field.

A strict claim can be false at one irrational point only (``x + 1/(2x) > sqrt 2`` at
``x = 1/sqrt 2``), where no rational point and no enclosure can show it: both sides are
*exactly* equal there.  This module holds such a point exactly and evaluates the claim's own
functions at it, exactly:

* :class:`AlgebraicNumber` -- the unique root of an irreducible integer polynomial in an
  isolating interval with rational ends, written for a reader as ``sqrt(2)/2 = root of
  2*x**2 - 1 in [7/10, 5/7]`` (the closed form first, derived from the exact data);
* :class:`NumberField` -- ``Q(theta)`` for one such generator; an element is a rational
  polynomial in ``theta`` reduced modulo its minimal polynomial, so an element is zero
  exactly when that polynomial is, and otherwise its sign is decided by narrowing
  ``theta``'s interval until a ball excludes zero (which it must: a nonzero element of the
  field does not vanish at ``theta``);
* :class:`AlgebraicContext` -- the ``ctx`` of the claims over a field: + - * /, integer
  powers, abs, max, min and sqrt; a square root outside the field, or any transcendental
  function, raises :class:`NotInField`.

A numeric value becomes an algebraic number by *recognition* (mpmath's PSLQ finds a small
integer relation), and nothing recognised is trusted: every identity is then checked in
exact arithmetic (a recognised square root squares back to its radicand in the field; a
coordinate is a root of its polynomial and lies in its interval by exact signs).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import mpmath
import numpy as np
import sympy
from flint import arb, ctx as flint_ctx, fmpq, fmpq_poly, fmpz_poly

from .errors import VerifierError
from .contexts import FunctionDomainError, NotRational, to_fraction
from .contexts.objects import ObjectContext

#: bits of theta's interval kept after each narrowing for a sign (more are added on demand)
START_BITS = 64
#: bits at most spent on one sign: a nonzero element of a field of small height is decided far
#: below; reaching it means the element's coefficients are astronomically large
MAX_SIGN_BITS = 1 << 16
#: the largest degree of a field (or a recognised number) this module works in
MAX_DEGREE = 16


class NotInField(NotRational):
    """A value the number field does not hold (a square root outside it, a transcendental function)."""


class AlgebraicFormatError(VerifierError, ValueError):
    """A stored algebraic value that cannot be read, or whose data do not define one number."""


# ------------------------------------------------------------------------- numbers
@dataclass(frozen=True)
class AlgebraicNumber:
    """The unique real root of ``poly`` in ``[lo, hi]``.

    ``poly``: integer coefficients, lowest degree first, irreducible over Q, primitive, with a
    positive leading coefficient, degree >= 2 (a rational is a ``Fraction``).  ``lo < hi``
    rationals with exactly one root of ``poly`` between them.  Built by :meth:`from_root` or
    :meth:`parse`, which establish all of that exactly.
    """

    poly: tuple[int, ...]
    lo: Fraction
    hi: Fraction

    # -- construction ---------------------------------------------------------------
    @classmethod
    def from_root(cls, poly, approx) -> "AlgebraicNumber | Fraction | None":
        """The root of ``poly`` (integer coefficients, lowest first) nearest ``approx``
        (an mpf, a float or a Fraction), as an exact number: a Fraction when it is rational, an
        AlgebraicNumber otherwise, None when no real root lies within 2^-20 (relative) of it."""
        p = fmpz_poly([int(c) for c in poly])
        if p.degree() < 1:
            return None
        approx = mpmath.mpf(approx) if not isinstance(approx, Fraction) else mpmath.mpf(approx.numerator) / approx.denominator
        best = None
        for factor, _ in p.factor()[1]:
            for root in _real_roots(factor):
                distance = abs(_mid(root) - approx)
                if best is None or distance < best[0]:
                    best = (distance, factor, root)
        if best is None or best[0] > mpmath.mpf(2) ** -20 * (1 + abs(approx)):
            return None
        _, factor, root = best
        if factor.degree() == 1:
            b, a = (int(c) for c in factor.coeffs())
            return Fraction(-b, a)
        others = [_ball_ends(r) for r in _real_roots(factor) if not (r.lower() == root.lower() and r.upper() == root.upper())]
        lo, hi = _decimal_interval(_ball_ends(root), others)
        return cls(_normalised(factor), lo, hi)

    @classmethod
    def parse(cls, text: str) -> "AlgebraicNumber":
        """Read ``"<closed form> = root of <polynomial in x> in [<lo>, <hi>]"`` and check it
        exactly: an irreducible polynomial, exactly one root in the interval, and the closed
        form the one this module derives from them (so a file edited by hand says so)."""
        if not isinstance(text, str) or len(text) > 10_000:
            raise AlgebraicFormatError("an algebraic value is a string of at most 10,000 characters")
        m = re.fullmatch(r"\s*(?P<human>.+?)\s*=\s*root of\s+(?P<poly>[-+*x0-9 ]+?)\s+in\s+\[\s*(?P<lo>[-+0-9/]+)\s*,\s*(?P<hi>[-+0-9/]+)\s*\]\s*", text)
        if m is None:
            raise AlgebraicFormatError(f"not an algebraic value {text!r}: expected '<closed form> = root of <polynomial in x> in [<lo>, <hi>]'")
        coeffs = parse_polynomial(m.group("poly"))
        try:
            lo, hi = Fraction(m.group("lo")), Fraction(m.group("hi"))
        except (ValueError, ZeroDivisionError):
            raise AlgebraicFormatError(f"the interval of {text!r} has ends that are not rationals") from None
        if not lo < hi:
            raise AlgebraicFormatError(f"the interval [{lo}, {hi}] is empty or a point")
        if len(coeffs) - 1 < 2 or len(coeffs) - 1 > MAX_DEGREE:
            raise AlgebraicFormatError(f"the polynomial must have a degree from 2 to {MAX_DEGREE} (a rational is written as one)")
        p = fmpz_poly(coeffs)
        factors = p.factor()[1]
        if len(factors) != 1 or factors[0][1] != 1:
            raise AlgebraicFormatError(f"the polynomial {polynomial_text(coeffs)} is not irreducible over the rationals")
        if tuple(coeffs) != _normalised(p):
            raise AlgebraicFormatError(f"the polynomial {polynomial_text(coeffs)} is not primitive with a positive leading coefficient")
        roots = sympy.Poly(list(reversed(coeffs)), sympy.Symbol("x")).count_roots(sympy.Rational(lo.numerator, lo.denominator),
                                                                                 sympy.Rational(hi.numerator, hi.denominator))
        if roots != 1:
            raise AlgebraicFormatError(f"{polynomial_text(coeffs)} has {roots} roots in [{lo}, {hi}], not exactly one")
        number = cls(tuple(coeffs), lo, hi)
        if number.human != m.group("human"):
            raise AlgebraicFormatError(f"the closed form {m.group('human')!r} is not that root: it is {number.human}")
        return number

    # -- exact facts --------------------------------------------------------------------
    @property
    def degree(self) -> int:
        return len(self.poly) - 1

    @cached_property
    def _fmpz(self) -> fmpz_poly:
        return fmpz_poly(list(self.poly))

    def sign_at(self, q: Fraction) -> int:
        """The sign of the polynomial at the rational ``q``, exactly."""
        value = self._fmpz(fmpq(q.numerator, q.denominator))
        return (value > 0) - (value < 0)

    def narrowed(self, bits: int) -> tuple[Fraction, Fraction]:
        """An interval of width at most 2^-bits around the root, by exact bisection."""
        lo, hi = self.lo, self.hi
        s_lo = self.sign_at(lo) if lo != self.hi else 0
        width = Fraction(1, 1 << bits)
        while hi - lo > width:
            mid = (lo + hi) / 2
            s = self.sign_at(mid)
            if s == 0:  # cannot happen for an irreducible polynomial of degree >= 2
                return mid, mid
            if s == s_lo:
                lo = mid
            else:
                hi = mid
        return lo, hi

    def ball(self, bits: int) -> arb:
        """A ball containing the root, of radius at most 2^-bits (at the ambient precision)."""
        lo, hi = self.narrowed(bits)
        return _ball(lo, hi)

    def mpf(self, dps: int) -> mpmath.mpf:
        lo, hi = self.narrowed(int(dps * 3.33) + 8)
        with mpmath.workdps(dps + 5):
            return (mpmath.mpf(lo.numerator) / lo.denominator + mpmath.mpf(hi.numerator) / hi.denominator) / 2

    def __float__(self) -> float:
        lo, hi = self.narrowed(60)
        return float((lo + hi) / 2)

    # -- forms for readers and for sympy --------------------------------------------
    @cached_property
    def sympy(self) -> sympy.Expr:
        """The number as a sympy expression: radicals for degree 2 (and where sympy's roots give
        them), else ``CRootOf``.  Checked: the expression is a root of the polynomial in the interval."""
        x = sympy.Symbol("x")
        poly = sympy.Poly(list(reversed(self.poly)), x)
        index = self._real_index()
        if self.degree == 2:
            c, b, a = (sympy.Integer(k) for k in self.poly)
            disc = b * b - 4 * a * c
            sign = 1 if index == 1 else -1
            expr = sympy.radsimp((-b + sign * sympy.sqrt(disc)) / (2 * a))
        else:
            expr = sympy.CRootOf(poly, index)
            radicals = [r for r in sympy.roots(poly, x, filter="R").keys() if r.is_real]
            for r in radicals:
                if not r.has(sympy.I) and sympy.Poly(list(reversed(self.poly)), x).eval(r).equals(0) and self._inside(r):
                    expr = r
                    break
        return expr

    def _inside(self, expr) -> bool:
        lo = sympy.Rational(self.lo.numerator, self.lo.denominator)
        hi = sympy.Rational(self.hi.numerator, self.hi.denominator)
        return bool((expr - lo).is_nonnegative) and bool((hi - expr).is_nonnegative)

    def _real_index(self) -> int:
        """How many real roots of the polynomial lie below this one (sympy's CRootOf index)."""
        x = sympy.Symbol("x")
        return sympy.Poly(list(reversed(self.poly)), x).count_roots(None, sympy.Rational(self.lo.numerator, self.lo.denominator))

    @property
    def human(self) -> str:
        return sympy.sstr(self.sympy)

    def __str__(self) -> str:
        return f"{self.human} = root of {polynomial_text(self.poly)} in [{self.lo}, {self.hi}]"


def polynomial_text(coeffs) -> str:
    """``2*x**2 - 1`` from ``(-1, 0, 2)`` (lowest degree first)."""
    terms = []
    for k in range(len(coeffs) - 1, -1, -1):
        c = int(coeffs[k])
        if c == 0:
            continue
        mag = abs(c)
        body = str(mag) if k == 0 else ("" if mag == 1 else f"{mag}*") + ("x" if k == 1 else f"x**{k}")
        terms.append(("-" if c < 0 else "+", body))
    if not terms:
        return "0"
    first_sign, first = terms[0]
    out = ("-" if first_sign == "-" else "") + first
    for sign, body in terms[1:]:
        out += f" {sign} {body}"
    return out


def parse_polynomial(text: str) -> list[int]:
    """Integer coefficients, lowest degree first, of a polynomial in ``x`` written as
    :func:`polynomial_text` writes it (terms ``c*x**k``, ``x**k``, ``c*x``, ``x``, ``c``)."""
    compact = text.replace(" ", "")
    if not compact or len(compact) > 5000:
        raise AlgebraicFormatError(f"not a polynomial: {text!r}")
    coeffs: dict[int, int] = {}
    for m in re.finditer(r"([+-]?)([^+-]+)", compact):
        sign, body = -1 if m.group(1) == "-" else 1, m.group(2)
        term = re.fullmatch(r"(?:(\d+)\*?)?(x(?:\*\*(\d+))?)?", body)
        if term is None or (term.group(1) is None and term.group(2) is None):
            raise AlgebraicFormatError(f"not a term of a polynomial in x: {body!r}")
        c = int(term.group(1)) if term.group(1) is not None else 1
        k = 0 if term.group(2) is None else (int(term.group(3)) if term.group(3) else 1)
        if k > MAX_DEGREE:
            raise AlgebraicFormatError(f"degree {k} is above the limit of {MAX_DEGREE}")
        coeffs[k] = coeffs.get(k, 0) + sign * c
    if "".join(m.group(0) for m in re.finditer(r"([+-]?)([^+-]+)", compact)) != compact:
        raise AlgebraicFormatError(f"not a polynomial: {text!r}")
    degree = max((k for k, c in coeffs.items() if c), default=0)
    return [coeffs.get(k, 0) for k in range(degree + 1)]


def _normalised(p: fmpz_poly) -> tuple[int, ...]:
    coeffs = [int(c) for c in p.coeffs()]
    g = 0
    for c in coeffs:
        g = math.gcd(g, c)
    sign = -1 if coeffs[-1] < 0 else 1
    return tuple(sign * c // g for c in coeffs)


def _real_roots(p: fmpz_poly) -> list:
    """The real roots of a squarefree integer polynomial, as isolating balls (arb)."""
    with _precision(128):
        return [r.real for r, _ in p.complex_roots() if r.imag == 0]


def _mid(ball: arb) -> mpmath.mpf:
    m, e = ball.mid().man_exp()
    return mpmath.ldexp(mpmath.mpf(int(m)), int(e))


def _ball_ends(ball: arb) -> tuple[Fraction, Fraction]:
    m, e = ball.mid().man_exp()
    r, f = ball.rad().man_exp()
    mid = Fraction(int(m)) * Fraction(2) ** int(e)
    rad = Fraction(int(r)) * Fraction(2) ** int(f)
    return mid - rad, mid + rad


def _decimal_interval(ends, others) -> tuple[Fraction, Fraction]:
    """The shortest decimal interval ``[k/10^d, (k+1)/10^d]`` around the root ball ``ends`` (lo,
    hi) that meets no other root's ball: an isolating interval a reader can take in."""
    lo, hi = ends
    for digits in range(1, 200):
        den = 10**digits
        a = Fraction(math.floor(lo * den), den)
        b = Fraction(math.ceil(hi * den), den)
        if a == lo:
            a -= Fraction(1, den)
        if b == hi:
            b += Fraction(1, den)
        if all(o_hi < a or o_lo > b for o_lo, o_hi in others):
            return a, b
    return lo, hi


def _ball(lo: Fraction, hi: Fraction) -> arb:
    mid, rad = (lo + hi) / 2, (hi - lo) / 2
    return arb(fmpq(mid.numerator, mid.denominator), arb(fmpq(rad.numerator, rad.denominator)).upper())


class _precision:
    def __init__(self, bits):
        self.bits = bits

    def __enter__(self):
        self.old = flint_ctx.prec
        flint_ctx.prec = max(self.bits, self.old)

    def __exit__(self, *exc):
        flint_ctx.prec = self.old


# ------------------------------------------------------------------------- recognition
def recognise(value, max_degree: int = 4, max_coefficient: int = 10**6):
    """An exact number equal to the mpf ``value`` up to its precision, found by PSLQ: a Fraction,
    an AlgebraicNumber, or None.  Only a guess: whatever uses it must check it exactly."""
    dps = mpmath.mp.dps
    for degree in range(1, max_degree + 1):
        try:
            found = mpmath.findpoly(value, degree, maxcoeff=max_coefficient, maxsteps=20000)
        except (ValueError, ZeroDivisionError):
            found = None
        if found:
            # the relation must hold well below the digits it was found with
            residual = abs(mpmath.polyval([mpmath.mpf(c) for c in found], value))
            if residual > mpmath.mpf(10) ** (-(dps * 3) // 4) * max(abs(c) for c in found):
                continue
            return AlgebraicNumber.from_root(list(reversed([int(c) for c in found])), value)
    return None


# ------------------------------------------------------------------------- fields
class NumberField:
    """``Q(theta)`` for an :class:`AlgebraicNumber` ``theta`` (or Q itself, ``theta=None``)."""

    def __init__(self, generator: AlgebraicNumber | None):
        self.generator = generator
        self.modulus = fmpq_poly(list(generator.poly)) if generator is not None else fmpq_poly([0, 1])
        self.degree = generator.degree if generator is not None else 1
        self._bits = START_BITS

    def __repr__(self) -> str:
        return f"NumberField({self.generator})" if self.generator is not None else "NumberField(Q)"

    def element(self, poly) -> "FieldElement":
        if not isinstance(poly, fmpq_poly):
            poly = fmpq_poly(poly)
        return FieldElement(self, poly % self.modulus if self.generator is not None else fmpq_poly([poly(0)]))

    def rational(self, q) -> "FieldElement":
        q = to_fraction(q) if not isinstance(q, fmpq) else q
        if isinstance(q, Fraction):
            q = fmpq(q.numerator, q.denominator)
        return FieldElement(self, fmpq_poly([q]))

    @property
    def theta(self) -> "FieldElement":
        if self.generator is None:
            raise NotInField("the rationals have no generator")
        return self.element([0, 1])

    def ball(self, elem: "FieldElement", bits: int | None = None) -> arb:
        """An enclosure of the element, with theta's interval narrowed to ``bits``."""
        bits = bits or self._bits
        poly = elem.poly
        if self.generator is None or poly.degree() < 1:
            c = poly(0) if poly.degree() >= 0 else fmpq(0)
            return arb(c)
        with _precision(bits + 32):
            theta = self.generator.ball(bits)
            out = arb(0)
            for c in reversed(poly.coeffs()):  # Horner in ball arithmetic
                out = out * theta + arb(c)
            return out

    def sign(self, elem: "FieldElement") -> int:
        """The exact sign: 0 when the reduced polynomial is 0, else narrowed until decided."""
        if elem.poly.is_zero():
            return 0
        bits = self._bits
        while bits <= MAX_SIGN_BITS:
            b = self.ball(elem, bits)
            if b > 0:
                return 1
            if b < 0:
                return -1
            bits *= 2
        raise ArithmeticError("the sign of a nonzero field element was not decided within the precision limit")

    def embed(self, number) -> "FieldElement":
        """``number`` (a Fraction, fmpq, int or AlgebraicNumber) as an element of this field,
        checked exactly; :class:`NotInField` when it is not in it."""
        if not isinstance(number, AlgebraicNumber):
            return self.rational(number)
        if self.generator is not None and number == self.generator:
            return self.theta
        if self.generator is None or self.degree % number.degree:
            raise NotInField(f"{number.human} is not in {self}")
        with mpmath.workdps(30 * self.degree + 30):
            value = number.mpf(mpmath.mp.dps)
            elem = self._relation(value)
        if elem is None or not self._is_root(elem, number):
            raise NotInField(f"{number.human} is not in {self}")
        return elem

    def _relation(self, value) -> "FieldElement | None":
        """The element ``sum c_i theta^i`` equal to ``value`` by PSLQ, or None (unchecked)."""
        theta = self.generator.mpf(mpmath.mp.dps)
        basis = [value] + [theta**i for i in range(self.degree)]
        rel = mpmath.pslq(basis, maxcoeff=10**12, maxsteps=100000)
        if rel is None or rel[0] == 0:
            return None
        coeffs = [Fraction(-int(c), int(rel[0])) for c in rel[1:]]
        return self.element([fmpq(c.numerator, c.denominator) for c in coeffs])

    def _is_root(self, elem: "FieldElement", number: AlgebraicNumber) -> bool:
        """Is ``elem`` the root of ``number``'s polynomial in its interval?  Exactly."""
        value = self.rational(0)
        for c in reversed(number.poly):
            value = value * elem + c
        if not value.is_zero():
            return False
        return elem >= number.lo and elem <= number.hi

    def sqrt(self, elem: "FieldElement") -> "FieldElement":
        """The square root in the field, checked exactly (it squares back, and is >= 0)."""
        s = self.sign(elem)
        if s < 0:
            raise FunctionDomainError(f"sqrt is undefined at {elem}")
        if s == 0:
            return self.rational(0)
        if self.generator is None:
            q = elem.poly(0)
            num, den = int(q.p), int(q.q)
            rn, rd = math.isqrt(num), math.isqrt(den)
            if rn * rn == num and rd * rd == den:
                return self.rational(Fraction(rn, rd))
            raise NotInField(f"sqrt({q}) is not rational")
        with mpmath.workdps(30 * self.degree + 30):
            b = self.ball(elem, int(mpmath.mp.prec) + 16)
            value = mpmath.sqrt(_mid(b))
            root = self._relation(value)
        if root is not None and root * root == elem and root.sign() >= 0:
            return root
        raise NotInField(f"the square root of {elem} is not in {self}")


class FieldElement:
    """An element of a :class:`NumberField`: a rational polynomial in theta, reduced."""

    __slots__ = ("field", "poly")

    def __init__(self, field: NumberField, poly: fmpq_poly):
        self.field, self.poly = field, poly

    def _other(self, o) -> "FieldElement":
        if isinstance(o, FieldElement):
            if o.field is not self.field:
                raise ValueError("elements of two different number fields")
            return o
        if isinstance(o, (int, Fraction, fmpq)) and not isinstance(o, bool):
            return self.field.rational(o)
        raise TypeError(f"cannot combine a field element with {type(o).__name__}")

    def _wrap(self, poly) -> "FieldElement":
        if self.field.generator is not None and poly.degree() >= self.field.degree:
            poly = poly % self.field.modulus
        return FieldElement(self.field, poly)

    def __add__(self, o):
        try:
            return FieldElement(self.field, self.poly + self._other(o).poly)
        except TypeError:
            return NotImplemented

    __radd__ = __add__

    def __sub__(self, o):
        try:
            return FieldElement(self.field, self.poly - self._other(o).poly)
        except TypeError:
            return NotImplemented

    def __rsub__(self, o):
        try:
            return FieldElement(self.field, self._other(o).poly - self.poly)
        except TypeError:
            return NotImplemented

    def __mul__(self, o):
        try:
            return self._wrap(self.poly * self._other(o).poly)
        except TypeError:
            return NotImplemented

    __rmul__ = __mul__

    def inverse(self) -> "FieldElement":
        if self.poly.is_zero():
            raise ZeroDivisionError("division by zero in a number field")
        if self.field.generator is None:
            return self.field.rational(1 / self.poly(0))
        g, s, _ = self.poly.xgcd(self.field.modulus)  # s * poly + t * modulus = g, a nonzero constant
        return self._wrap(s * fmpq_poly([1 / g(0)]))

    def __truediv__(self, o):
        try:
            return self * self._other(o).inverse()
        except TypeError:
            return NotImplemented

    def __rtruediv__(self, o):
        try:
            return self._other(o) * self.inverse()
        except TypeError:
            return NotImplemented

    def __neg__(self):
        return FieldElement(self.field, -self.poly)

    def __pos__(self):
        return self

    def __pow__(self, k):
        if isinstance(k, Fraction) and k.denominator == 1:
            k = int(k)
        if not isinstance(k, int) or isinstance(k, bool):
            raise NotInField(f"power with exponent {k!r} in a number field")
        if k < 0:
            return self.inverse() ** (-k)
        out, base = self.field.rational(1), self
        while k:
            if k & 1:
                out = out * base
            base = base * base
            k >>= 1
        return out

    def sign(self) -> int:
        return self.field.sign(self)

    def is_zero(self) -> bool:
        return self.poly.is_zero()

    def __abs__(self):
        return -self if self.sign() < 0 else self

    def _cmp(self, o) -> int:
        return (self - self._other(o)).sign()

    def __eq__(self, o):
        try:
            return (self - self._other(o)).is_zero()
        except (TypeError, ValueError):
            return NotImplemented

    def __ne__(self, o):
        eq = self.__eq__(o)
        return eq if eq is NotImplemented else not eq

    __hash__ = None

    def __lt__(self, o):
        return self._cmp(o) < 0

    def __le__(self, o):
        return self._cmp(o) <= 0

    def __gt__(self, o):
        return self._cmp(o) > 0

    def __ge__(self, o):
        return self._cmp(o) >= 0

    def __bool__(self):
        return not self.is_zero()

    def rational(self) -> Fraction | None:
        """The element as a Fraction when it is rational, else None."""
        if self.poly.degree() >= 1:
            return None
        c = self.poly(0) if self.poly.degree() == 0 else fmpq(0)
        return Fraction(int(c.p), int(c.q))

    def sympy(self) -> sympy.Expr:
        """The element as sympy writes it, in the generator's closed form (simplified)."""
        if self.field.generator is None:
            return sympy.Rational(str(self.rational()))
        theta = self.field.generator.sympy
        expr = sum((sympy.Rational(int(c.p), int(c.q)) * theta**i for i, c in enumerate(self.poly.coeffs())), sympy.Integer(0))
        return sympy.radsimp(sympy.expand(expr))

    def mpf(self, dps: int) -> mpmath.mpf:
        with mpmath.workdps(dps + 10):
            return _mid(self.field.ball(self, int(dps * 3.33) + 20))

    def __float__(self) -> float:
        return float(self.mpf(20))

    def __repr__(self) -> str:
        return f"FieldElement({self.poly.str('theta') if hasattr(self.poly, 'str') else self.poly} in {self.field})"


class AlgebraicContext(ObjectContext):
    """The claims' ``ctx`` over a number field: exact, + - * /, integer powers, abs, max, min, sqrt."""

    name = "algebraic"
    rigorous = True
    native = (FieldElement,)
    unavailable_error = NotInField
    column = None  # no function of the table: exp, log, tanh, ... of a field element leave the field

    def __init__(self, field: NumberField):
        self.field = field

    def scalar(self, value):
        return self.field.rational(Fraction(value))

    def lift_value(self, v):
        if isinstance(v, FieldElement):
            return v
        if isinstance(v, AlgebraicNumber):
            return self.field.embed(v)
        if type(v) is float:
            raise NotInField("a float is not an exact number")
        return self.field.rational(to_fraction(v) if not isinstance(v, fmpq) else v)

    def sqrt(self, x):
        return self._apply(self.field.sqrt, x, reuse=False)

    def _power_int(self, a, k):
        return a**k

    def _power_real(self, a, q: Fraction):
        if q.denominator == 2:
            return self.field.sqrt(a) ** q.numerator
        raise NotInField(f"power {q} in a number field")

    def power2(self, a, p):
        q = p.rational() if isinstance(p, FieldElement) else to_fraction(p)
        if q is None:
            raise NotInField("a power with an irrational exponent")
        if q.denominator == 1:
            return a ** int(q)
        return self._power_real(a, q)

    def constant_value(self, name):
        raise NotInField(f"{name} is transcendental")


def field_of(numbers) -> NumberField:
    """A field holding every number of ``numbers`` (Fractions and AlgebraicNumbers): generated
    by the one of highest degree, each other embedded into it (checked exactly).  Raises
    :class:`NotInField` when one is not in that field (no compositum is formed)."""
    algebraic = [n for n in numbers if isinstance(n, AlgebraicNumber)]
    if not algebraic:
        return NumberField(None)
    generator = max(algebraic, key=lambda n: (n.degree, -len(str(n.poly))))
    field = NumberField(generator)
    for n in algebraic:
        field.embed(n)
    return field


def is_algebraic_data(data) -> bool:
    """Does a point (name -> object arrays) hold an irrational algebraic entry?"""
    return any(isinstance(x, AlgebraicNumber) for arr in data.values() for x in np.asarray(arr, dtype=object).ravel())


__all__ = ["AlgebraicContext", "AlgebraicFormatError", "AlgebraicNumber", "FieldElement", "NotInField", "NumberField",
           "field_of", "is_algebraic_data", "parse_polynomial", "polynomial_text", "recognise"]
