"""Re-check and certificate: float64 never decides.

A float candidate with a negative margin is only a *suspect*.  Its inputs are taken as the
exact rationals the floats stand for, re-evaluated at ``dps`` significant digits (the
numbers people read), and then proved:

* exactly, in rational arithmetic, when the claim never leaves the rationals;
* otherwise in rigorous ball arithmetic: the violation is certified when the whole ball
  enclosing the margin lies below zero, with the precision escalated while it straddles;
* a strict claim (``<``) fails where both sides are equal, which no enclosure can show:
  that needs a symbolic proof (sympy) that the margin is exactly zero.

Every hypothesis must be certified to hold at the same point, with the same methods.

A violation is evaluated twice, in the context that decided it: a claim that gives two
different values at one exact point (it draws random numbers, say) certifies nothing, and
is an error naming it.  The precision escalates only while the search's time lasts: at its
deadline an enclosure that still straddles zero is left undecided, never signed.
"""

from __future__ import annotations

import dataclasses
import random
import threading
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping

import mpmath
import numpy as np
import sympy

from .errors import VerifierError
from .algebraic import AlgebraicContext, AlgebraicNumber, NotInField, field_of, is_algebraic_data, polynomial_text
from .claims import Check
from .contexts import BallContext, ExactContext, FunctionDomainError, MPContext, NotRational, SymbolicContext, to_fraction
from .runner import OutOfTime, call_within

EXACT = ExactContext()


@dataclass(frozen=True)
class Certificate:
    """What the certifier established at one exact point."""

    status: str  # violated | holds | tight | hypothesis-fails | undecided
    method: str  # exact | interval | none
    lhs: Any = None  # mpmath values at dps, for display
    rhs: Any = None
    margin: Any = None
    detail: str = ""
    exact_margin: Fraction | None = None
    exact_lhs: Fraction | None = None
    exact_rhs: Fraction | None = None
    ball_values: tuple | None = None  # (lhs, rhs, margin) enclosures when balls decided

    @property
    def violated(self) -> bool:
        return self.status == "violated"


class NotDeterministic(VerifierError):
    """A claim evaluated twice at one exact point, in one context, gave two different values."""


class Certifier:
    """Decides the sign of a check's margin at an exact rational point.

    ``deadline`` (a ``time.monotonic()`` value, None: none): past it the precision is not
    escalated and no symbolic proof is started; one that runs is stopped there.
    ``confirm``: which certificates are evaluated a second time -- ``"violations"`` (a search:
    only what it would report), or ``"always"`` (a replay: a stored point that "no longer
    refutes" must not be a coin that fell the other way either).
    """

    def __init__(self, dps: int = 50, max_escalations: int = 3, symbolic_max_entries: int = 64, deadline: float | None = None,
                 confirm: str = "violations"):
        if confirm not in ("violations", "always"):
            raise ValueError(f"confirm must be 'violations' or 'always', got {confirm!r}")
        self.confirm = confirm
        if dps < 15:
            raise ValueError(f"dps must be at least 15, got {dps}")
        self.dps = dps
        self.max_escalations = max_escalations
        self.symbolic_max_entries = symbolic_max_entries
        self.deadline = deadline

    def _out_of_time(self) -> bool:
        return self.deadline is not None and time.monotonic() > self.deadline

    # ------------------------------------------------------------------------------
    def certify(self, check: Check, data: Mapping[str, np.ndarray], dims: Mapping[str, int], display: bool | str = True) -> Certificate:
        """``display=False`` skips the dps-digit values shown to readers (the status is the same);
        ``display="violations"`` gives them to a violation only (a caller that keeps nothing else).

        The values shown come from what decided: the exact rationals rounded to dps digits,
        or the middles of the enclosures (which know their own accuracy, where plain
        mpmath can lose digits to cancellation).  Only a point neither decided with values
        (a hypothesis that fails, a tie, an undecided enclosure) is evaluated again at dps
        digits for the reader.
        """
        if display not in (True, False, "violations"):
            raise ValueError(f"display must be True, False or 'violations', got {display!r}")
        if is_algebraic_data(data):  # an irrational point: exact arithmetic in the field it generates
            return self._algebraic(check, data, dims)
        try:
            cert, decisive = self._exact(check, data, dims)
        except NotRational:
            cert, decisive = self._ball(check, data, dims)
        if decisive is not None and (cert.violated or self.confirm == "always"):
            self._same_again(check, data, dims, *decisive)
        if not display or (display == "violations" and not cert.violated):
            shown = (None, None, None)
        elif cert.ball_values is not None:
            shown = tuple(_ball_mid(b, self.dps) for b in cert.ball_values)
        elif None not in (cert.exact_lhs, cert.exact_rhs, cert.exact_margin):
            shown = tuple(_rounded(q, self.dps) for q in (cert.exact_lhs, cert.exact_rhs, cert.exact_margin))
        else:
            shown = self._evaluated(check, data, dims)
        return dataclasses.replace(cert, lhs=shown[0], rhs=shown[1], margin=shown[2])

    def _evaluated(self, check, data, dims) -> tuple:
        """(lhs, rhs, margin) evaluated at dps digits, or Nones where the claim is undefined."""
        mp = MPContext(self.dps)
        try:
            with mp.precision():
                ev = check.evaluate(mp, mp.convert(data), dims, with_hypotheses=False)
            return ev.lhs[0], ev.rhs[0], ev.margin[0]
        except (ZeroDivisionError, ValueError, OverflowError, FunctionDomainError):
            return None, None, None

    # ------------------------------------------------------------------------------
    def _exact(self, check, data, dims) -> tuple[Certificate, tuple | None]:
        """The certificate in rational arithmetic, and the evaluation that decided it (context,
        evaluation, how) when one did."""
        try:
            ev = check.evaluate(EXACT, EXACT.convert(data), dims)
        except ZeroDivisionError as exc:
            return Certificate("hypothesis-fails", "exact", detail=f"division by zero ({exc})"), None
        except FunctionDomainError as exc:
            return Certificate("hypothesis-fails", "exact", detail=f"outside a function's domain ({exc})"), None
        decisive = (EXACT, ev, "in exact rational arithmetic")
        for hyp, h in zip(check.hypotheses, ev.hypotheses):
            h = h[0]
            if h < 0 or (hyp.strict and h == 0):
                return Certificate("hypothesis-fails", "exact", detail=f"hypothesis fails exactly: {hyp.text}"), decisive
        m = ev.margin[0]
        m_frac, lhs, rhs = to_fraction(m), _frac_or_none(ev.lhs[0]), _frac_or_none(ev.rhs[0])
        if m < 0 or (check.strict and m == 0):
            how = "equal" if m == 0 else "margin < 0"
            return Certificate("violated", "exact", detail=f"exact rational arithmetic: {how}", exact_margin=m_frac, exact_lhs=lhs, exact_rhs=rhs), decisive
        status = "tight" if m == 0 else "holds"
        return Certificate(status, "exact", detail="exact rational arithmetic", exact_margin=m_frac, exact_lhs=lhs, exact_rhs=rhs), decisive

    def _algebraic(self, check, data, dims) -> Certificate:
        """The certificate at a point with irrational algebraic entries, in exact arithmetic in
        the number field they generate; an equality is also shown by sympy simplifying lhs - rhs
        at the point's closed forms to 0 (named in the detail; the field's arithmetic decides)."""
        numbers = [x for arr in data.values() for x in np.asarray(arr, dtype=object).ravel()]
        try:
            field = field_of([to_fraction(x) if not isinstance(x, AlgebraicNumber) else x for x in numbers])
        except NotInField as exc:
            return Certificate("undecided", "none", detail=f"the point's coordinates lie in no single number field this tool forms ({exc})")
        ctx = AlgebraicContext(field)
        try:
            ev = check.evaluate(ctx, ctx.convert(data), dims)
            again = check.evaluate(ctx, ctx.convert(data), dims)  # the same twice, or the claim is not a function
        except ZeroDivisionError as exc:
            return Certificate("hypothesis-fails", "algebraic", detail=f"division by zero ({exc})")
        except FunctionDomainError as exc:
            return Certificate("hypothesis-fails", "algebraic", detail=f"outside a function's domain ({exc})")
        except NotRational as exc:
            return Certificate("undecided", "none", detail=f"the claim leaves the number field of the point: {exc}")
        for hyp, h in zip(check.hypotheses, ev.hypotheses):
            s = h[0].sign()
            if s < 0 or (hyp.strict and s == 0):
                return Certificate("hypothesis-fails", "algebraic", detail=f"hypothesis fails exactly: {hyp.text}")
        m, lhs, rhs = ev.margin[0], ev.lhs[0], ev.rhs[0]
        if not (again.margin[0] == m and again.lhs[0] == lhs and again.rhs[0] == rhs):
            raise NotDeterministic(f"claim {check.label} is not deterministic: evaluated twice at the same algebraic point, its sides differ")
        shown = dict(lhs=lhs.mpf(self.dps), rhs=rhs.mpf(self.dps), margin=m.mpf(self.dps),
                     exact_lhs=lhs.rational(), exact_rhs=rhs.rational(), exact_margin=m.rational())
        where = f"in {_field_text(field)}"
        s = m.sign()
        if s < 0:
            return Certificate("violated", "algebraic", detail=f"exact algebraic arithmetic {where}: margin < 0", **shown)
        if s == 0:
            proof = self._sympy_equality(check, data, dims)
            detail = f"exact algebraic arithmetic {where}: both sides are equal; {proof}"
            if check.strict:
                return Certificate("violated", "algebraic", detail=detail, **shown)
            return Certificate("tight", "algebraic", detail=detail, **shown)
        return Certificate("holds", "algebraic", detail=f"exact algebraic arithmetic {where}", **shown)

    def _sympy_equality(self, check, data, dims) -> str:
        """One clause: what sympy's simplification of lhs - rhs at the point's closed forms gives."""
        sym = SymbolicContext()
        closed = {k: np.frompyfunc(lambda x: x.sympy if isinstance(x, AlgebraicNumber) else sympy.Rational(str(to_fraction(x))), 1, 1)(
            np.asarray(v, dtype=object)) for k, v in data.items()}
        try:
            ev = check.evaluate(sym, closed, dims, with_hypotheses=False)
            difference = call_within(self.deadline, sympy.simplify, ev.lhs[0] - ev.rhs[0])
        except (Exception, OutOfTime):
            return "sympy could not simplify lhs \u2212 rhs at the point"
        if difference == 0:
            return f"sympy: lhs = {sympy.sstr(ev.lhs[0])}, rhs = {sympy.sstr(ev.rhs[0])}, lhs \u2212 rhs simplifies to 0"
        return f"sympy's simplification of lhs \u2212 rhs stopped at {sympy.sstr(difference)}"

    def _exact_hypotheses(self, check, data, dims) -> list:
        """Each hypothesis margin as an exact rational where it is one, else None.

        A hypothesis that holds with equality (theta sitting on its bound balance(E), say)
        can never be certified by a ball around a non-dyadic rational; exactly, it can.
        """
        v = check.values(EXACT.convert(data), dims)
        out = []
        for hyp in check.hypotheses:
            try:
                with EXACT.precision():
                    out.append(np.asarray(hyp.margin(EXACT, v), dtype=object).reshape(-1)[0])
            except (NotRational, ZeroDivisionError, FunctionDomainError):
                out.append(None)
        return out

    def _ball(self, check, data, dims) -> tuple[Certificate, tuple | None]:
        """The certificate in ball arithmetic (or a symbolic proof of equality), and the
        evaluation that decided it (context, evaluation, how) when one did."""
        prec = int(self.dps * 3.33) + 32
        last = decisive = None
        stopped = ""
        exact_hyps = self._exact_hypotheses(check, data, dims)
        for hyp, h in zip(check.hypotheses, exact_hyps):
            if h is not None and (h < 0 or (hyp.strict and h == 0)):
                return Certificate("hypothesis-fails", "exact", detail=f"hypothesis fails exactly: {hyp.text}"), None
        for escalation in range(self.max_escalations + 1):
            if escalation and self._out_of_time():
                stopped = "; the time limit stopped the escalation"
                break
            ball = BallContext(prec)
            try:
                ev = check.evaluate(ball, ball.convert(data), dims)
            except ZeroDivisionError as exc:
                return Certificate("hypothesis-fails", "interval", detail=f"division by zero ({exc})"), None
            except FunctionDomainError as exc:
                return Certificate("hypothesis-fails", "interval", detail=f"outside a function's domain ({exc})"), None
            decisive = (ball, ev, f"in ball arithmetic at {prec} bits")
            hyp_state = "hold"
            for hyp, h, exact_h in zip(check.hypotheses, ev.hypotheses, exact_hyps):
                h = h[0]
                if exact_h is not None:
                    continue  # decided exactly above
                if not h.is_finite():
                    hyp_state = "undecided"
                elif h.upper() < 0 or (hyp.strict and h.upper() <= 0):
                    return Certificate("hypothesis-fails", "interval", detail=f"hypothesis fails: {hyp.text}"), decisive
                elif not (h.lower() > 0 or (not hyp.strict and h.lower() >= 0)):
                    hyp_state = "undecided"
            m = ev.margin[0]
            last = m
            if hyp_state == "hold" and m.is_finite():
                shown = dict(exact_margin=None, ball_values=(ev.lhs[0], ev.rhs[0], m))
                if m.upper() < 0:
                    return Certificate("violated", "interval", detail=f"ball arithmetic at {prec} bits: margin in {_ball_text(m)} < 0", **shown), decisive
                if m.lower() > 0 or (not check.strict and m.lower() >= 0):
                    return Certificate("holds", "interval", detail=f"ball arithmetic at {prec} bits", **shown), decisive
            prec *= 2
        if hyp_state != "hold":
            return Certificate("undecided", "none", detail="a hypothesis could not be certified at this point"), decisive
        # The enclosure straddles zero at every precision: the point is (numerically) an
        # equality case.  A strict claim fails there only if the margin is exactly zero.
        if check.strict and not stopped and self._symbolically_zero(check, data, dims):
            return Certificate("violated", "exact", detail="both sides are exactly equal (symbolic proof)", exact_margin=Fraction(0)), decisive
        return Certificate("tight", "none", detail=f"margin within {_ball_text(last)} at {prec // 2} bits{stopped}"), decisive

    def _symbolically_zero(self, check, data, dims) -> bool:
        """Is the margin exactly zero (sympy)?  No answer by the deadline is no proof: sympy's
        simplification of exp(10^8) ran for minutes, computing log 2 to millions of digits."""
        if sum(np.size(x) for x in data.values()) > self.symbolic_max_entries or self._out_of_time():
            return False
        sym = SymbolicContext()
        try:
            ev = check.evaluate(sym, sym.convert(data), dims, with_hypotheses=False)
            return call_within(self.deadline, sympy.simplify, ev.margin[0]) == 0
        except (Exception, OutOfTime):  # sympy may fail on large expressions; then no proof
            return False

    def _same_again(self, check, data, dims, ctx, first, how: str) -> None:
        """Evaluate a violation a second time in the context that decided it; two different
        values at one point mean the claim's functions are not functions of their inputs.  A
        claim that draws from Python's or numpy's global random generator says so even when
        its two draws happen to agree (a coin's two tosses do half the time)."""
        # only a process with one thread: a Dask worker's own threads draw from random too
        drawn = _global_random_state() if threading.active_count() == 1 else None
        again = check.evaluate(ctx, ctx.convert(data), dims)
        if drawn is not None and _global_random_state() != drawn:
            raise NotDeterministic(f"claim {check.label} is not deterministic: evaluated {how}, it drew random numbers (from Python's random module or numpy's global "
                                   "generator): its value at a point is not a function of the point")
        pairs = [("lhs", first.lhs, again.lhs), ("rhs", first.rhs, again.rhs)]
        pairs += [(f"hypothesis {h.text!r}", a, b) for h, a, b in zip(check.hypotheses, first.hypotheses, again.hypotheses)]
        for name, a, b in pairs:
            if not _identical(a[0], b[0]):
                raise NotDeterministic(f"claim {check.label} is not deterministic: evaluated twice at the same exact point {how}, its {name} was "
                                       f"{_value_text(a[0])}, then {_value_text(b[0])}")


def certify_plainly(check: Check, data, dims, dps: int, confirm: str = "always") -> Certificate:
    """A certificate without its enclosures (arb balls are not plain data; the values shown are
    computed from them here): what a worker sends back of a replay."""
    return dataclasses.replace(Certifier(dps, confirm=confirm).certify(check, data, dims), ball_values=None)


def _field_text(field) -> str:
    g = field.generator
    return "Q" if g is None else f"Q({g.human}), {g.human} the root of {polynomial_text(g.poly)} in [{g.lo}, {g.hi}]"


def _global_random_state() -> tuple:
    """Where Python's and numpy's global generators are; any draw moves them."""
    name, keys, pos, *_ = np.random.get_state()
    return random.getstate(), keys.tobytes(), pos


def _identical(a, b) -> bool:
    """The same value: equal rationals, or balls with the same midpoint and radius (entry by entry)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a, dtype=object), np.asarray(b, dtype=object)
        return a.shape == b.shape and all(_identical(x, y) for x, y in zip(a.ravel(), b.ravel()))
    if hasattr(a, "mid") and hasattr(b, "mid"):
        return bool(a.mid() == b.mid() and a.rad() == b.rad())
    try:
        return bool(a == b)
    except Exception:  # values of different kinds
        return False


def _value_text(x) -> str:
    text = _ball_text(x) if hasattr(x, "mid") else str(x)
    return text if len(text) <= 40 else text[:37] + "..."


def _rounded(q: Fraction, dps: int):
    """An exact rational to dps significant digits (correctly rounded)."""
    with mpmath.workdps(dps):
        return mpmath.mpf(q.numerator) / q.denominator


def _ball_mid(b, dps):
    with mpmath.workdps(dps + 10):
        if not hasattr(b, "mid"):  # a side written as a plain constant (``rhs = 1``) stays a Python number
            q = to_fraction(b)
            return mpmath.mpf(q.numerator) / q.denominator
        return mpmath.mpf(b.mid().str(dps + 10, radius=False))


def _frac_or_none(x):
    try:
        return to_fraction(x)
    except TypeError:
        return None


def _ball_text(b) -> str:
    try:
        return b.str(5, radius=True)
    except Exception:
        return str(b)


def decimal_string(value: Any, dps: int) -> str:
    """A number as a decimal string: exact when it terminates within dps digits."""
    if value is None:
        return "nan"
    if isinstance(value, Fraction) or not isinstance(value, mpmath.mpf):
        try:
            f = to_fraction(value)
        except (TypeError, ValueError):
            f = None
        if f is not None:
            exact = _terminating_decimal(f, dps)
            if exact is not None:
                return exact
            with mpmath.workdps(dps):
                return mpmath.nstr(mpmath.mpf(f.numerator) / f.denominator, dps)
    with mpmath.workdps(dps):
        return mpmath.nstr(mpmath.mpf(value), dps)


def _terminating_decimal(f: Fraction, dps: int) -> str | None:
    den = q = f.denominator
    twos = (q & -q).bit_length() - 1  # the power of 2 in q, without a loop over it
    q >>= twos
    fives = 0
    while q % 5 == 0:
        q //= 5
        fives += 1
    if q != 1:
        return None
    k = max(twos, fives)
    digits = str(abs(f.numerator) * (10**k // den))  # den divides 10^k: f * 10^k exactly
    if len(digits.lstrip("0")) > dps:
        return None
    sign = "-" if f < 0 else ""
    if k == 0:
        return sign + digits
    digits = digits.rjust(k + 1, "0")
    return sign + digits[:-k] + "." + digits[-k:]


__all__ = ["Certificate", "Certifier", "NotDeterministic", "certify_plainly", "decimal_string"]
