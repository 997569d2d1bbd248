"""First-order enclosures over a box: value, value at the centre, gradient (all balls).

A :class:`Jet` is what a quantity is over a box ``X = c + [-r, r]``: a ball ``v`` enclosing
every value it takes on ``X``, a ball ``c`` enclosing its value at the centre, and balls
``g`` enclosing its partial derivatives anywhere in ``X`` (for max, min and abs, the hull of
the one-sided ones: Clarke's generalised gradient, for which the mean-value theorem still
holds).  The *centred form* ``c + sum_i g_i [-r_i, r_i]`` encloses the quantity too and
shrinks quadratically with the box, where plain interval arithmetic shrinks linearly and
suffers from dependency (``f(a + b) - f(a)`` with ``a`` an interval).  Branches of abs, max
and min are decided on the intersection of both enclosures.

Two exact rewrites remove the dependency that plain intervals suffer in the pack's claims,
each checked only by identity of the objects involved (a Jet remembers how it was made):
``exp(z_i) / sum_j exp(z_j)`` is also enclosed as ``1 / (1 + sum_{j != i} exp(z_j - z_i))``
with a common shift cancelled (softmax), and ``exp(x) - exp(y)`` as ``exp(y) expm1(x - y)``
with common terms of x and y cancelled; the two enclosures of the same number are
intersected.  Products of wide balls are taken by interval endpoints (a midpoint-radius
product loses the sign of two wide positive balls).

The claim's own functions run on Jets through :class:`JetContext`, so the mathematics is
still written once.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from flint import arb, fmpq
from flint import ctx as flint_ctx

from ..contexts import BallContext, FunctionDomainError, to_fraction
from ..contexts.table import BY_NAME, Scalars

ZERO = arb(0)
POWER = BY_NAME["power"]


def _ball(q) -> arb:
    if isinstance(q, arb):
        return q
    q = Fraction(q)
    return arb(fmpq(q.numerator, q.denominator))


def interval_ball(lo: Fraction, hi: Fraction) -> arb:
    """A ball containing the whole interval [lo, hi], with an end at 0 exactly there.

    A ball's radius is rounded up, so the union of -2 and 0 reaches 2e-9 past 0 and a box
    [-2, 0] could never show a hypothesis ``x > 0`` false on it; the nonnegative part of a
    ball has its lower end at 0 exactly.
    """
    if lo == 0 < hi:
        half = _ball(Fraction(hi) / 2)
        return arb(half, half).nonnegative_part()
    if lo < 0 == hi:
        return -interval_ball(Fraction(0), -Fraction(lo))
    return _ball(lo).union(_ball(hi))


class NeedsChoice(Exception):
    """An undecided branch was met and a choice for it is allowed."""


class Frame:
    """What the Jets of one evaluation share: the box's half-widths and a memo.

    The memo makes identical computations return the *same* object (hash-consing), and
    ``x - x`` of one object is exactly zero.  So ``f(a + 0) - f(a)`` evaluated over a box
    is exactly 0 instead of an interval as wide as ``f`` varies on it -- the dependency
    that otherwise ruins enclosures of perturbation bounds.
    """

    __slots__ = ("radii", "memo")

    def __init__(self, radii):
        self.radii = tuple(radii)
        self.memo: dict = {}

    def cached(self, key, make, *keep):
        hit = self.memo.get(key)
        if hit is not None:
            return hit[0]
        out = make()
        self.memo[key] = (out,) + keep  # the operands stay alive, so their ids stay unique
        return out


def _key(x):
    return ("id", id(x)) if isinstance(x, (Jet, arb)) else ("q", Fraction(x) if not isinstance(x, fmpq) else Fraction(int(x.p), int(x.q)))


class Jet:
    # ``origin`` remembers how a value was made, for the quotient rewrite in :func:`_div`:
    # ("sum", terms), ("sub", x, y) or ("exp", z)
    __slots__ = ("v", "c", "g", "f", "origin", "factors")

    def __init__(self, v, c, g, f, origin=None):
        self.v, self.c, self.g, self.f = v, c, g, f  # g: tuple of balls or None (a constant)
        self.origin = origin
        #: (base, coefficient) pairs with self = coefficient * base exactly, for the
        #: distributive rewrite in :func:`_add`
        self.factors = ()
        if g is not None:
            # every intermediate keeps the tighter of its two enclosures, so the derivative
            # formulas downstream use it too
            self.v = self.enclosure()

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def const(cls, x, f):
        b = _ball(x)
        return cls(b, b, None, f)

    def lifted(self, other):
        if isinstance(other, Jet):
            return other
        return Jet.const(other if isinstance(other, arb) else Fraction(other) if not isinstance(other, fmpq) else Fraction(int(other.p), int(other.q)), self.f)

    def is_zero(self) -> bool:
        """Exactly the zero function on the box."""
        return self.v == 0 and self.c == 0 and (self.g is None or all(x == 0 for x in self.g))

    # -- enclosures -----------------------------------------------------------------------
    def centred(self) -> arb:
        if self.g is None:
            return self.c
        out = self.c
        for gi, ri in zip(self.g, self.f.radii):
            if ri is not None:
                out = out + gi * ri
        return out

    def enclosure(self) -> arb:
        """The tighter of the plain and the centred enclosure (their intersection)."""
        a, b = self.v, self.centred()
        if not b.is_finite():  # an unknown gradient (a function undefined on part of the box) gives no centred form
            return a
        if not a.is_finite():
            return b
        try:
            out = a.intersection(b)
        except ValueError:  # disjoint cannot happen for correct enclosures; keep the plain one
            return a
        # a ball's radius is rounded up, so the intersection of [0, t] with a ball reaching
        # below 0 can dip below 0 by an ulp; a square or an abs must stay >= 0 to prove x^2 >= 0,
        # and a coordinate on [-t, 0] <= 0 to show a hypothesis x > 0 false there
        if a >= 0:
            return out.nonnegative_part()
        return -(-out).nonnegative_part() if a <= 0 else out

    def mid(self):
        return self.v.mid()

    # -- arithmetic -----------------------------------------------------------------------
    def _binary(self, name, o, swap, compute):
        if isinstance(o, np.ndarray):  # an array of Jets (``9 * ctx.sqrt(2)``): numpy applies the operation entry by entry
            return NotImplemented
        key = (name, ("id", id(self)), _key(o), swap)
        return self.f.cached(key, lambda: compute(*((self.lifted(o), self) if swap else (self, self.lifted(o)))), self, o)

    def __add__(self, o):
        if isinstance(o, np.ndarray):
            return NotImplemented
        if (o.is_zero() if isinstance(o, Jet) else o == 0):
            return self
        if self.is_zero() and isinstance(o, Jet):
            return o
        return self._binary("add", o, False, _add)

    def __radd__(self, o):
        return self.__add__(o)

    def __neg__(self):
        return self.f.cached(("neg", id(self)), self._negated, self)

    def _negated(self):
        out = Jet(-self.v, -self.c, None if self.g is None else tuple(-x for x in self.g), self.f)
        out.factors = tuple((base, -coef) for base, coef in self.factors)
        return out

    def __sub__(self, o):
        if o is self:
            return self.f.cached(("zero",), lambda: Jet.const(0, self.f))
        if isinstance(o, np.ndarray):
            return NotImplemented
        if (o.is_zero() if isinstance(o, Jet) else o == 0):
            return self
        return self._binary("sub", o, False, _sub)

    def __rsub__(self, o):
        return self._binary("sub", o, True, lambda a, b: _add(a, -b))

    def __mul__(self, o):
        return self._binary("mul", o, False, _mul)

    def __rmul__(self, o):
        return self._binary("mul", o, True, _mul)

    def __truediv__(self, o):
        return self._binary("div", o, False, _div)

    def __rtruediv__(self, o):
        return self._binary("div", o, True, _div)

    def __pow__(self, k):
        if not isinstance(k, int) or k < 1:
            raise TypeError("only positive integer powers")
        out = self
        for _ in range(k - 1):
            out = out * self
        if k > 1 and out.origin is None:
            out.origin = ("power", self, k)  # for (b^k)^p = b^(k p): see JetContext._power_of_power
        return out

    def apply(self, name, f, df_box):
        """Jet of f(self): f at the value and the centre, chain rule with f' enclosed on the box."""
        return self.f.cached(
            (name, id(self)),
            lambda: Jet(f(self.enclosure()), f(self.c), None if self.g is None else tuple(_times(df_box(self.enclosure()), x) for x in self.g), self.f,
                        ("exp", self) if name == "exp" else None),
            self,
        )

    def __abs__(self):
        e = self.enclosure()
        if e >= 0:
            return self
        if e <= 0:
            return -self
        g = None if self.g is None else tuple(x.union(-x) for x in self.g)
        # arb's abs keeps the radius around |midpoint|, which dips below 0 on a ball about 0
        top = max(abs(e.lower()), abs(e.upper()))
        return Jet(arb(0).union(top).nonnegative_part(), abs(self.c), g, self.f)

    def __repr__(self):
        return f"Jet({self.v}, centre {self.c})"


def _zeros(a, b):
    return a.g or (ZERO,) * len(b.g)


def _sub(a, b):
    out = _add(a, -b)
    xa, xb = _exponent(a), _exponent(b)
    if xa is not None and xb is not None and out.g is not None:
        # exp(x) - exp(y) = exp(y) expm1(x - y): the sign is that of x - y, which the
        # cancellation of common terms often fixes where the plain difference straddles 0
        gap = _linear_gap(xa, xb)
        growth = gap.apply("expm1", arb.expm1, arb.exp)
        out = _meet(out, b * growth)
        out.factors = ((b, growth),)
    out.origin = ("sub", a, b)
    return out


def _linear_gap(x, y):
    """x - y, with y dropped from x's terms when x = y + rest (so exp(a + b) - exp(a) sees b)."""
    terms = _terms(x)
    if len(terms) > 1 and any(t is y for t in terms):
        rest = [t for t in terms if t is not y]
        out = rest[0]
        for t in rest[1:]:
            out = out + t
        return out
    return x - y


def _terms(x):
    return x.origin[1] if x.origin is not None and x.origin[0] == "sum" else (x,)


def _add(a, b):
    if a.g is None and b.g is None:
        return Jet(a.v + b.v, a.c + b.c, None, a.f)
    out = Jet(a.v + b.v, a.c + b.c, tuple(_plus(x, y) for x, y in zip(_zeros(a, b), _zeros(b, a))), a.f, ("sum", _terms(a) + _terms(b)))
    common = _common_base(a, b)
    if common is not None:
        # c B + d B = (c + d) B: when B is wide (exp(a) over a long a-interval) and
        # c + d small (a second-order margin), only the factored form sees the sign
        origin = out.origin
        out = _meet(out, common)
        out.origin = origin
    return out


def _common_base(a, b):
    """a + b as (c + d) B when a = c B and b = d B, or B' = exp(x + y), B = exp(y), B' = exp(x) B."""
    for base, coef in a.factors:
        if base.g is None:
            continue
        for other_base, other in b.factors:
            if other_base is base:
                return (coef + other) * base
            ratio = _exp_ratio(base, other_base) if other_base.g is not None else None
            if ratio is not None:
                return (coef * ratio + other) * other_base
            ratio = _exp_ratio(other_base, base) if other_base.g is not None else None
            if ratio is not None:
                return (coef + other * ratio) * base
    return None


def _exp_ratio(big, small):
    """exp(rest) when big = exp(small's exponent + rest) (terms matched by identity), else None."""
    x, y = _exponent(big), _exponent(small)
    if x is None or y is None:
        return None
    terms = _terms(x)
    if len(terms) < 2 or not any(t is y for t in terms):
        return None
    return _linear_gap(x, y).apply("exp", arb.exp, arb.exp)


def _nonpositive(x: arb) -> arb:
    """x cut to <= 0, its upper end exactly 0 where it reached past it (a ball known to be <= 0)."""
    return x if x <= 0 or not x.is_finite() else -(-x).nonnegative_part()


def _plus(x: arb, y: arb) -> arb:
    """x + y, exact when either is exactly 0 (a ball sum rounds its radius up, and a slope that is
    exactly <= 0 would reach past 0 by an ulp)."""
    if y.is_zero():
        return x
    if x.is_zero():
        return y
    return x + y


def _times(x: arb, y: arb) -> arb:
    """x * y by interval endpoints: a ball product loses positivity on wide positive balls."""
    if x.rad() == 0 or y.rad() == 0:
        exact, other = (x, y) if x.rad() == 0 else (y, x)
        # a ball times 1 would round its radius up, moving an end at 0 past it (an unknown
        # slope, nan, stays unknown: times 0 too)
        if exact == 1 and other.is_finite():
            return other
        if exact == -1 and other.is_finite():
            return -other
        out = x * y
    else:
        xl, xu, yl, yu = x.lower(), x.upper(), y.lower(), y.upper()
        out = xl * yl
        for p in (xl * yu, xu * yl, xu * yu):
            out = out.union(p)
    # the sign the factors fix survives the rounding of the radius
    if out >= 0 or out <= 0 or not out.is_finite():
        return out
    if (x >= 0 and y >= 0) or (x <= 0 and y <= 0):
        return out.nonnegative_part()
    if (x >= 0 and y <= 0) or (x <= 0 and y >= 0):
        return _nonpositive(out)
    return out


def _square(x: arb) -> arb:
    """x * x of one ball: never negative (a product of two balls forgets they are the same)."""
    if 0 in x:
        top = max(abs(x.lower()), abs(x.upper()))
        return arb(0).union(top * top).nonnegative_part()
    return _times(x, x)


def _mul(a, b):
    value = _square(a.v) if a is b else _times(a.v, b.v)
    if a.g is None and b.g is None:
        return Jet(value, a.c * b.c, None, a.f)
    out = Jet(value, a.c * b.c, tuple(_plus(_times(b.v, x), _times(a.v, y)) for x, y in zip(_zeros(a, b), _zeros(b, a))), a.f)
    out.factors = ((b, a), (a, b))
    return out


def _div(a, b):
    if not b.v.is_finite() or 0 in b.v:
        raise ZeroDivisionError("denominator may vanish on the box")
    inv = 1 / b.v
    q = _times(a.v, inv)
    if a.g is None and b.g is None:
        return Jet(q, a.c / b.c, None, a.f)
    out = Jet(q, a.c / b.c, tuple((x - q * y) * inv for x, y in zip(_zeros(a, b), _zeros(b, a))), a.f)
    share = _share(a, b)
    return out if share is None else _meet(out, share)


def _exponent(x):
    return x.origin[1] if x.origin is not None and x.origin[0] == "exp" else None


def _exponent_gap(zj, zi):
    """zj - zi, cancelling a common subtrahend: (x - m) - (y - m) = x - y (a softmax's shift)."""
    if zj.origin is not None and zi.origin is not None and zj.origin[0] == zi.origin[0] == "sub" and zj.origin[2] is zi.origin[2]:
        return zj.origin[1] - zi.origin[1]
    return zj - zi


def _share(a, b):
    """exp(z_i) / sum_j exp(z_j) rewritten as 1 / (1 + sum_{j != i} exp(z_j - z_i)).

    The same number, but each z appears once, so the enclosure has no dependency between
    numerator and denominator (and lies in [0, 1]).  None when the quotient is not of this form.
    """
    terms = _terms(b)
    if len(terms) < 2 or not any(t is a for t in terms):
        return None
    zi = _exponent(a)
    if zi is None or any(_exponent(t) is None for t in terms):
        return None
    rest, gaps = None, []
    for t in terms:
        if t is a:
            continue
        gap = _exponent_gap(_exponent(t), zi)
        gaps.append((t, gap))
        e = gap.apply("exp", arb.exp, arb.exp)
        rest = e if rest is None else rest + e
    denom = 1 + rest
    inv = 1 / denom.v
    g = None if denom.g is None else tuple(-x * inv * inv for x in denom.g)
    if g is not None:
        g = _meet_tuple(g, _share_gradient(inv, terms, gaps))
    return Jet(inv, 1 / denom.c, g, a.f)


def _share_value(t, terms) -> arb:
    """The enclosure of exp(z_t) / sum_j exp(z_j), as :func:`_share` computes it."""
    zt = _exponent(t)
    total = arb(1)
    for u in terms:
        if u is not t:
            total = total + _exponent_gap(_exponent(u), zt).apply("exp", arb.exp, arb.exp).v
    return 1 / total


def _share_gradient(share, terms, gaps):
    """The gradient of s_i = 1 / (1 + sum_j exp(d_j)) as -sum_j s_i s_j grad d_j.

    The same derivative as -exp(d_j) / D^2 grad d_j, but from the shares, each enclosed
    without dependency: over a wide box exp(d_j) and D^2 vary together, s_i s_j far less.
    """
    out = None
    for t, gap in gaps:
        if gap.g is None:
            continue
        weight = -_times(share, _share_value(t, terms))
        term = tuple(_times(weight, x) for x in gap.g)
        out = term if out is None else tuple(p + q for p, q in zip(out, term))
    return out


def _meet_tuple(g, h):
    if h is None:
        return g
    out = []
    for p, q in zip(g, h):
        try:
            out.append(p.intersection(q))
        except ValueError:
            out.append(p)
    return tuple(out)


def _meet(x, y):
    """Two enclosures of the same function: keep what both allow."""
    def both(p, q):
        try:
            return p.intersection(q)
        except ValueError:
            return p
    g = x.g if y.g is None else y.g if x.g is None else tuple(both(p, q) for p, q in zip(x.g, y.g))
    return Jet(both(x.v, y.v), both(x.c, y.c), g, x.f)


def _pair(a, b):
    return (a, a.lifted(b)) if isinstance(a, Jet) else (b.lifted(a), b)


def _hull_grad(a: Jet, b: Jet):
    if a.g is None and b.g is None:
        return None
    ga = a.g or (ZERO,) * len(b.g)
    gb = b.g or (ZERO,) * len(ga)
    return tuple(x.union(y) for x, y in zip(ga, gb))


class JetContext(BallContext):
    """Claims evaluated on Jets over one box; ``radii`` are the box's half-widths (None: a point).

    A branch of max, min or abs that the enclosures cannot decide is either *chosen* -- the
    ``choices`` say which side, and the evaluation is then of one smooth piece of the
    function, valid on the part of the box where that side is the true one -- or, beyond
    ``max_choices`` undecided branches, enclosed by the hull of both sides.  Choosing keeps
    exact cancellations that hulls lose (the max subtracted inside a softmax cancels out,
    but a hull of its two gradients does not).  ``needs_choice`` reports that an undecided
    branch was met after the given choices ran out.
    """

    name = "jet"

    def __init__(self, radii, prec: int = 128, choices=(), max_choices: int = 0):
        super().__init__(prec)
        self.frame = Frame(radii)
        #: gradients of a - b for each max/min left undecided (hulled): the coordinates that
        #: would decide it, for the choice of where to split
        self.undecided: list[tuple] = []
        self.choices = tuple(choices)
        self.max_choices = max_choices
        self.used = 0
        self.needs_choice = False
        self._assumption_source = self._assumptions = None

    @property
    def scalars(self) -> Scalars:
        """The ball functions of one number (derivatives and domain edges are balls, not Jets)."""
        return _BALLS.scalars

    def function_of(self, row):
        # the ball forms depend on nothing but the ambient precision, which this context sets:
        # made once per process, not once per box
        return _BALLS.function_of(row)

    def scalar(self, value):
        return Jet.const(Fraction(value), self.frame)

    def lift_value(self, v):
        if isinstance(v, Jet):
            return v
        return Jet.const(v if isinstance(v, arb) else to_fraction(v), self.frame)

    def coordinate(self, i: int, lo: Fraction, hi: Fraction) -> Jet:
        """Coordinate i of the box: gradient e_i."""
        g = [ZERO] * len(self.frame.radii)
        if self.frame.radii[i] is not None:
            g[i] = arb(1)
        mid = (Fraction(lo) + Fraction(hi)) / 2
        # the exact ends ride along: a ball's radius is rounded up, so [1/2, 1] reaches past 1 and
        # log x <= 0 there could not be seen from the ball alone
        return Jet(interval_ball(lo, hi), _ball(mid), tuple(g), self.frame, ("coordinate", i, Fraction(lo), Fraction(hi)))

    def release(self) -> list:
        """Let go of what this context holds once a box is evaluated; returns ``undecided``.

        A context sits in reference cycles (its array class names it, its cached ufuncs are
        its bound methods), so without this the memo of every Jet of the box would wait for
        the cyclic garbage collector: a quarter of the time of a proof went to full
        collections.  The Jets already made keep their frame.
        """
        undecided = self.undecided
        self.__dict__.clear()
        return undecided

    def _choose(self):
        """0 or 1 for the next undecided branch, or None for the hull."""
        if self.used < len(self.choices):
            self.used += 1
            return self.choices[self.used - 1]
        if len(self.choices) < self.max_choices:
            self.needs_choice = True
            raise NeedsChoice()  # the evaluation restarts with one more choice: stop it early
        return None

    def _extreme(self, a, b, larger):
        a, b = _pair(a, b)
        return self.frame.cached(("max" if larger else "min", id(a), id(b)), lambda: self._extreme_new(a, b, larger), a, b)

    def _extreme_new(self, a, b, larger):
        ea, eb = a.enclosure(), b.enclosure()
        if (ea >= eb) if larger else (ea <= eb):
            return a
        if (eb >= ea) if larger else (eb <= ea):
            return b
        pick = self._choose()
        if pick is not None:
            return (a, b)[pick]
        hull = BallContext.max2 if larger else BallContext.min2
        if a.g is not None and b.g is not None:
            self.undecided.append(tuple(x - y for x, y in zip(a.g, b.g)))
        # a minimum remembers its operands: a hypothesis min(x) > 0 implies each x_i > 0
        return Jet(hull(a.v, b.v), hull(a.c, b.c), _hull_grad(a, b), a.f, None if larger else ("min", a, b))

    def max2(self, a, b):
        return self._extreme(a, b, True)

    def min2(self, a, b):
        return self._extreme(a, b, False)

    def _abs1(self, x):
        return self.frame.cached(("abs", id(x)), lambda: self._abs_new(x), x)

    def _abs_new(self, x):
        e = x.enclosure()
        if e >= 0:
            return x
        if e <= 0:
            return -x
        pick = self._choose()
        if pick is not None:
            return (x, -x)[pick]
        return abs(x)

    def abs(self, x):
        return self._elementwise(self._abs1, x)

    def sign1(self, x):
        return self.frame.cached(("sign", id(x)), lambda: self._sign_new(x), x)

    def _sign_new(self, x):
        """A constant where the box decides the sign; else the hull of the signs it holds, with
        no gradient (sign jumps at 0: no branch of it is valid on a closed part of the box)."""
        x = self.lift_value(x)
        e = x.enclosure()
        if e > 0 or e < 0 or e.is_zero():
            return Jet.const(BallContext.sign1(e), self.frame)
        if x.g is not None:
            self.undecided.append(tuple(x.g))  # the coordinates that would decide it: where to split
        # cut to the signs the box holds: a ball's radius is rounded up, and [-1 - ulp, 1 + ulp]
        # would keep |sign(x)| <= 1 from closing any box around x = 0
        hull = _clamp(BallContext.sign1(e), (0 if e >= 0 else -1, 0 if e <= 0 else 1))
        centre = _clamp(BallContext.sign1(x.c), (-1, 1))
        return Jet(hull, centre, None if x.g is None else tuple(arb.nan() for _ in x.g), self.frame)

    def sign(self, x):
        return self._elementwise(self.sign1, x)

    # -- the function table: value from the ball form, gradient by the chain rule ----------
    def _function(self, row, x):
        # not kept on the context: a function that holds the context would make a reference
        # cycle, and every box's context (with all its Jets) would wait for the cyclic
        # garbage collector instead of going when the box is judged
        return self._apply(lambda j: self.frame.cached((row.name, id(j)), lambda: self._new_jet(row, j), j), x, reuse=False)

    def _new_jet(self, row, j):
        if row.name == "sqrt" and j.origin is not None and j.origin[0] == "power":  # sqrt(s^2) = s for s >= 0
            return self._power_real(j, Fraction(1, 2))
        form = self.function_of(row)  # the ball form: raises FunctionDomainError where the whole box is outside the domain
        e = j.enclosure()
        if row.domain is not None and not self._inside(row.domain, e):
            return self._partly_defined(row, j, e)
        value = form(e)
        if row.increasing and e.rad() > 0:
            # an increasing function lies between its values at the ends, which arb's enclosure
            # of a wide ball does not always see (none at all for sqrt of a ball reaching 0)
            ends = row.ball(e.lower()).union(row.ball(e.upper()))
            value = _both(value, ends) if value.is_finite() else ends
        g = None
        if j.g is not None:
            slope = _clamp(row.derivative(self.scalars, e), row.slopes)
            g = tuple(_times(slope, x) for x in j.g)
        return Jet(_clamp(value, row.values), _clamp(form(j.c), row.values), g, self.frame, ("exp", j) if row.name == "exp" else None)

    def _inside(self, domain, e) -> bool:
        edge = domain.value(self.scalars)
        return bool(e > edge) if domain.strict else bool(e >= edge)

    def _partly_defined(self, row, j, e):
        """f where its argument reaches past the edge of its domain on part of the box.

        The hypotheses must exclude that part (else :class:`PartlyDefined`, and the box is
        split where the argument crosses the edge).  The value is then enclosed on the part
        inside the domain, from the ends (the functions with a domain edge are increasing);
        the gradient is unknown, since the mean-value theorem needs the function on the
        whole box.
        """
        domain = row.domain
        edge = domain.value(self.scalars)
        if self._outside(domain, e):
            raise PartlyDefined(f"{row.name} is undefined on the whole box", j.g)
        self._require(j, edge, domain.strict, row.name)
        value = _clamp(row.ball(edge).union(row.ball(e.upper())) if row.increasing else arb.nan(), row.values)
        centre = _clamp(self.function_of(row)(j.c), row.values) if self._inside(domain, j.c) else value
        return Jet(value, centre, None if j.g is None else tuple(arb.nan() for _ in j.g), self.frame)

    # -- power: x^p with p a number or a variable ------------------------------------------
    def _power_int(self, a, k):
        a = self.lift_value(a)
        if k >= 1:
            return a**k
        if k == 0:
            return Jet.const(1, self.frame)
        return 1 / a ** (-k)

    def power2(self, a, p):
        a, p = self.lift_value(a), self.lift_value(p)
        return self.frame.cached(("power", id(a), id(p)), lambda: self._new_power(a, p), a, p)

    def _new_power(self, a, p):
        ea, ep = a.enclosure(), p.enclosure()
        if p.g is None and ep.is_exact() and ep.is_integer():  # a constant integer exponent: exact products
            return self._power_int(a, int(ep.unique_fmpz()))
        form = self.function_of(POWER)  # raises FunctionDomainError where the whole box is outside (a < 0, or a <= 0 with p <= 0)
        positive = bool(ep > 0)
        inside = bool(ea > 0) or (positive and bool(ea >= 0))
        if bool(ea < 0) or (not positive and bool(ea <= 0)):
            raise PartlyDefined("power with a non-integer exponent is undefined on the whole box", a.g)
        if not inside:
            self._require(a, ZERO, not positive, "power with a non-integer exponent")
        top = ea.upper()
        if inside and bool(ea > 0):
            value = form(ea, ep)
        elif positive:  # x^p on [0, t] with p > 0 lies in [0, max t^p]
            value = arb(0).union(top**ep if not top.is_zero() else arb(0))
        else:
            value = arb.nan()
        centre = form(a.c, p.c) if (bool(a.c > 0) or (positive and bool(a.c >= 0))) else value
        g = None
        if a.g is not None or p.g is not None:
            if inside and bool(ea > 0):
                dx, dp = _power_slopes(ea, ep, value, exact_range(a))
            elif positive:
                dx, dp = _power_slopes_from_zero(top, ep, exact_range(a), exact_range(p))
            else:
                dx = dp = arb.nan()
            g = tuple(_plus(_times(dx, x), _times(dp, y)) for x, y in zip(_zeros(a, p), _zeros(p, a)))
        return Jet(value, centre, g, self.frame)

    def _power_real(self, a, q: Fraction):
        """a^q for a rational q; (b^k)^q = b^(k q) for b >= 0 when a was built as b^k (x = s^2 makes
        sqrt(x) = s, smooth at 0 where sqrt is not)."""
        a = self.lift_value(a)
        if a.origin is not None and a.origin[0] == "power" and a.origin[1].enclosure() >= 0:
            base, exponent = a.origin[1], q * a.origin[2]
            if exponent.denominator == 1:
                return self._power_int(base, int(exponent))
            return self.power2(base, Jet.const(exponent, self.frame))
        return self.power2(a, Jet.const(q, self.frame))

    # -- what the hypotheses say about the box ---------------------------------------------
    def assume(self, hypotheses) -> None:
        """``hypotheses(ctx)`` gives [(margin Jet, strict)] of the claim's hypotheses evaluated in
        ``ctx``, this context (so the same computation is the same object); called when first
        needed.  It takes the context rather than holding it: no reference cycle."""
        self._assumption_source, self._assumptions = hypotheses, None

    def _hypotheses(self):
        if self._assumptions is None:
            source, self._assumption_source, self._assumptions = self._assumption_source, None, []
            if source is not None:
                try:  # a hypothesis that itself needs one gets none (the list is empty meanwhile)
                    self._assumptions = [(h if isinstance(h, Jet) else self.lift_value(h), strict) for h, strict in source(self)]
                except (ArithmeticError, ValueError):
                    self._assumptions = []
        return self._assumptions

    def _require(self, j, edge, strict, name):
        """Raise :class:`PartlyDefined` unless the hypotheses imply ``j > edge`` (``>=``) on the box."""
        if not (self._implied(j, strict) if edge == 0 else self._bounded_by_hypothesis(j, edge, strict)):
            raise PartlyDefined(f"{name} is undefined on part of the box, and no hypothesis excludes that part", j.g)

    def _bounded_by_hypothesis(self, j, edge, strict) -> bool:
        """``j - h >= edge`` on the box for a hypothesis ``h >= 0`` (``h > 0``), ``h`` its margin or a
        minimum taken over it.  A radicand that is the margin of a hypothesis gives ``j - h = 0``
        exactly, since the same computation is the same Jet."""
        for h, h_strict in self._hypotheses():
            for low in _lower_parts(h):
                gap = (j - low).enclosure() - edge
                if bool(gap >= 0) and (not strict or h_strict or bool(gap > 0)):
                    return True
        return False

    def _implied(self, j, strict, depth: int = 4) -> bool:
        """``j > 0`` (``>= 0``) wherever the hypotheses hold on the box: by its enclosure, by a
        hypothesis, or as a sum or product of parts that are (a x + b y with x, y > 0)."""
        e = j.enclosure()
        if bool(e > 0) if strict else bool(e >= 0):
            return True
        if self._bounded_by_hypothesis(j, ZERO, strict):
            return True
        if depth == 0:
            return False
        if j.origin is not None and j.origin[0] == "sum":
            terms = j.origin[1]
            return (all(self._implied(t, False, depth - 1) for t in terms)
                    and (not strict or any(self._implied(t, True, depth - 1) for t in terms)))
        return any(self._implied(base, strict, depth - 1) and self._implied(coef, strict, depth - 1) for base, coef in j.factors)


def exact_range(j: Jet) -> tuple[Fraction, Fraction] | None:
    """The exact interval of a coordinate's Jet, or of an exact constant; None for anything else."""
    if j.origin is not None and j.origin[0] == "coordinate":
        return j.origin[2], j.origin[3]
    if j.g is None and j.v.is_exact():
        man, exp = j.v.mid().man_exp()
        q = Fraction(int(man)) * Fraction(2) ** int(exp)
        return q, q
    return None


def _power_slopes(ea: arb, ep: arb, value: arb, exact=None):
    """(d/dx, d/dp) of x^p for x in ea > 0, p in ep: p x^(p-1) and x^p log x, each kept to the sign
    it certainly has (log x <= 0 for x <= 1: at x = 1 a ball's rounding must not make it positive).
    ``exact``: x's exact interval where known."""
    dx, _ = POWER.derivative(_BALLS.scalars, ea, ep)
    log = ea.lower().log().union(ea.upper().log())  # log is increasing: its values at the ends
    dp = _times(value, log)
    lo, hi = exact if exact is not None else (None, None)
    if ea.upper() <= 1 or (hi is not None and hi <= 1):
        dp = _nonpositive(dp)
    elif (ea.lower() >= 1 or (lo is not None and lo >= 1)) and dp.is_finite() and not dp >= 0:
        dp = dp.nonnegative_part()
    if ep >= 0 and dx.is_finite() and not dx >= 0:
        dx = dx.nonnegative_part()
    elif ep <= 0:
        dx = _nonpositive(dx)
    return dx, dp


def _power_slopes_from_zero(top: arb, ep: arb, exact_x=None, exact_p=None):
    """(d/dx, d/dp) of x^p enclosed for x in [0, top], p in ep > 0 (where the box reaches x = 0).

    d/dx = p x^(p-1) is bounded only for p >= 1: x^(p-1) lies in [0, max(1, top)^(p-1)] (0^0 = 1, the
    slope of x^1).  d/dp = x^p log x is bounded for p > 0: on (0, 1] it is least at x = e^(-1/p),
    -1/(e p), and it is 0 at 0 and 1; beyond 1 it grows, to top^p log top.
    """
    lo_p, hi_p = ep.lower(), ep.upper()
    if exact_p is not None:  # the exponent's exact ends (a ball's lower end of [1, 2] lies below 1)
        lo_p, hi_p = _ball(exact_p[0]), _ball(exact_p[1])
    if exact_x is not None:
        top = _ball(exact_x[1])
    if lo_p >= 1:
        # x^(p-1) <= top^(p-1): at most top^(lo_p - 1) when top <= 1, top^(hi_p - 1) beyond
        reach = (top ** (lo_p - 1) if lo_p > 1 else arb(1)) if top <= 1 else top ** (hi_p - 1)
        dx = _times(ep, arb(0).union(reach.upper()).nonnegative_part()).nonnegative_part()
    else:
        dx = arb.nan()
    low = -1 / (arb.const_e() * lo_p)
    if top <= 1:
        return dx, _nonpositive(low.lower().union(arb(0)))
    return dx, low.lower().union(((top ** hi_p) * top.log()).upper())


def _lower_parts(h):
    """h, and for h = min(a, b) (left undecided) the parts a and b, each >= h."""
    out, stack = [], [h]
    while stack:
        x = stack.pop()
        out.append(x)
        if x.origin is not None and x.origin[0] == "min":
            stack += [x.origin[1], x.origin[2]]
    return out


def _both(a: arb, b: arb) -> arb:
    """Two enclosures of one number: their intersection (the first, should they not meet)."""
    try:
        return a.intersection(b)
    except ValueError:
        return a


#: the ball forms the jets use, shared by every JetContext (one per box)
_BALLS = BallContext()


def _bound(q) -> arb:
    """A bound of the table as a ball at the ambient precision (kept per precision)."""
    key = (q, flint_ctx.prec)
    out = _BOUNDS.get(key)
    if out is None:
        out = _BOUNDS[key] = _ball(q)
    return out


_BOUNDS: dict = {}


def _clamp(x: arb, bounds) -> arb:
    """``x`` cut to ``[lo, hi]`` (a bound None: open that side), bounds the true value always obeys
    (tanh in [-1, 1], its slope in [0, 1]): arb's enclosure of a wide ball often is not."""
    lo, hi = bounds
    if lo is None and hi is None:
        return x
    if not x.is_finite():
        return interval_ball(Fraction(lo), Fraction(hi)) if lo is not None and hi is not None else x
    if hi is not None:
        top = _bound(hi)
        if x.upper() > top:
            x = top - (top - x).nonnegative_part()
    if lo is not None:
        bottom = _bound(lo)
        if x.lower() < bottom:
            x = (x - bottom).nonnegative_part() + bottom
    return x


class PartlyDefined(FunctionDomainError):
    """A function's argument crosses the edge of its domain on the box, and no hypothesis
    excludes the part outside.  ``guide``: the argument's gradient (where to split)."""

    def __init__(self, message, guide=None):
        super().__init__(message)
        self.guides = (guide,) if guide is not None else ()


#: products of balls by their ends, keeping the sign the factors fix (for other enclosures than Jets)
interval_product = _times
interval_square = _square

__all__ = ["Jet", "JetContext", "PartlyDefined", "exact_range", "interval_ball", "interval_product", "interval_square"]
