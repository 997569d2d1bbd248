"""Claims whose two sides are the same function: lhs - rhs simplifies to 0 (sympy).

No enclosure proves an equality of analytic expressions -- every enclosure of lhs - rhs
straddles 0 -- and z3 has no sin, cos or exp.  Algebra does: the claim's own functions run
in the symbolic context on one sympy symbol per coordinate of the domain, the sets written
through their maps (:mod:`.parametrisation`: a unit vector's stereographic chart, a
simplex's free entries, a derived variable's definition), so ``Q^T Q = I`` or ``sum p = 1``
is part of the expression instead of a side condition; and lhs - rhs is rewritten until it
is 0.  The rewritings are tried cheapest first and the one that closes is reported:
cancelling rational functions (lhs - rhs, and first the argument of every exp, log, sin or
cos, so that ``exp(A)`` and ``exp(B)`` with ``A = B`` become one), splitting exp of sums
(a common factor exp(c) then cancels), expanding sin and cos of sums, combining powers of
exp, then sympy's ``simplify``.

The identity holds wherever both sides are defined on the domain's box (a coordinate whose
box is >= 0 is a nonnegative symbol: ``sqrt(x)^2 = x``), whatever the hypotheses (the
certifier, too, leaves a point where a side is undefined out of the claim).  sympy is asked
only after the margin vanished numerically at every one of a few exact points of the domain
(256-bit balls): a claim that is not an identity never waits on ``simplify``.  An
inequality proved this way whose sides differ at larger sizes, or an equality whose sides
are constants here, holds only because of the sizes: the audit says so (:func:`degenerate`).
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import sympy

from ..claims import Check
from ..contexts import BallContext, SymbolicContext
from ..results import CheckResult, Verdict
from .domain import ProofBox
from .parametrisation import Parametrisation
from .certificate import ProofCertificate
from .result import Proof, ProofDetails, base_fields
from .strategy import Budget, ProofStop, Strategy

SYMBOLIC = SymbolicContext()
#: exact points at which the margin must vanish before sympy is asked
SCREEN_POINTS = 4
SCREEN_BITS = 256
#: |margin| below this at SCREEN_BITS counts as 0 for the screen (it decides nothing)
SCREEN_ZERO = 1e-60
#: the rewriting shown is cut to this many characters
SHOWN = 240


@dataclass(frozen=True)
class Rewriting:
    """How lhs - rhs became 0: the difference as sympy first wrote it, and the rewriting that closed it."""

    difference: str
    how: str

    def sentence(self) -> str:
        if self.difference == "0":
            return "lhs and rhs are the same expression (sympy)"
        diff = self.difference if len(self.difference) <= SHOWN else self.difference[:SHOWN] + "\u2026"
        return f"lhs \u2212 rhs = {diff} = 0 by {self.how} (sympy)"


def _trig(e):
    return sympy.expand(sympy.expand_trig(e))


def _exp_powers(e):
    return sympy.expand(sympy.powsimp(sympy.expand_power_exp(sympy.expand(e)), combine="exp"))


def _arguments_cancelled(e):
    """Every function's argument brought to one normal form first (exp(A) and exp(B) with A = B
    as rational functions are then one generator), then the whole cancelled."""
    return sympy.cancel(e.replace(lambda x: x.is_Function and bool(x.args), lambda x: x.func(*(sympy.cancel(a) for a in x.args))))


def _exp_split(e):
    """exp(a + b) written exp(a) exp(b) everywhere, then cancelled: a common factor exp(c) of a
    quotient's terms (softmax(x + c) = softmax(x)) cancels."""
    return sympy.cancel(sympy.expand_power_exp(sympy.expand(e)))


#: (what the reader is told, the rewriting), cheapest first
REWRITINGS = (
    ("cancelling rational functions (in every function's argument too)", _arguments_cancelled),
    ("splitting exp of sums into products, then cancelling", _exp_split),
    ("expanding sin and cos of sums", lambda e: sympy.trigsimp(_trig(e))),
    ("combining powers of exp", _exp_powers),
    ("simplify", sympy.simplify),
)


def differences(check: Check, ctx, data, dims) -> list:
    """Every entry of lhs - rhs (the sides broadcast to one shape, the batch entry dropped)."""
    v = check.values(data, dims)
    with ctx.precision():
        lhs = np.asarray(ctx.lift(check.part.lhs(ctx, v)), dtype=object)
        rhs = np.asarray(ctx.lift(check.part.rhs(ctx, v)), dtype=object)
        lhs, rhs = np.broadcast_arrays(lhs, rhs)
        diff = lhs - rhs
    return list(np.ravel(diff[0] if diff.ndim else diff))


def _pieces(param: Parametrisation):
    return list(itertools.product(*(range(n) for n in param.pieces)))


def _values(param: Parametrisation, coordinate_values, piece_choice):
    pieces = iter(piece_choice)
    return [next(pieces) if c.role == "piece" else x for c, x in zip(param.coords, coordinate_values)]


def vanishes_numerically(check: Check, param: Parametrisation, dims, rng) -> bool:
    """lhs = rhs within SCREEN_ZERO at SCREEN_POINTS exact points of the domain (where defined)."""
    ball = BallContext(SCREEN_BITS)
    tried = 0
    for attempt in range(4 * SCREEN_POINTS):
        point = []
        for c, span in zip(param.coords, param.spans):
            lo, hi = span if span is not None else (Fraction(-2), Fraction(2))
            point.append(lo + (hi - lo) * Fraction(int(rng.integers(1, 1024)), 1024))
        for choice in _pieces(param):
            values = [x if isinstance(x, int) else ball.scalar(x) for x in _values(param, point, choice)]
            try:
                with ball.precision():
                    diffs = differences(check, ball, param.data(ball, values), dims)
            except (ArithmeticError, ValueError):  # undefined here: no evidence either way
                continue
            if not all(d.is_finite() and 0 in d and d.rad() < SCREEN_ZERO for d in diffs):
                return False
        tried += 1
        if tried >= SCREEN_POINTS:
            return True
    return False


def identity_rewriting(check: Check, domain: ProofBox) -> Rewriting | None:
    """The rewriting that turns every entry of lhs - rhs into 0 on every chart piece, or None."""
    param = Parametrisation(check, domain, smt=True)
    if not vanishes_numerically(check, param, domain.dims, np.random.default_rng(0)):
        return None
    symbols = coordinate_symbols(param)
    shown, hows = None, []
    for choice in _pieces(param):
        try:
            data = param.data(SYMBOLIC, _values(param, symbols, choice))
            entries = differences(check, SYMBOLIC, data, domain.dims)
        except (ArithmeticError, ValueError, TypeError):
            return None
        for e in entries:
            how = _closing_rewriting(e)
            if how is None:
                return None
            hows.append(how)
            if shown is None or (e != 0 and shown == "0"):
                shown = sympy.sstr(e)
    # the strongest rewriting any entry needed is the one to report
    how = max(hows, key=[name for name, _ in REWRITINGS].index) if hows else REWRITINGS[0][0]
    return Rewriting(shown or "0", how)


def coordinate_symbols(param: Parametrisation) -> list:
    """One real symbol per coordinate, named after it; two coordinates never share a symbol
    (``a_1,1`` and the entry 1 of a variable ``a_1`` would both read ``a_1_1``)."""
    names = [c.label.replace("[", "_").replace("]", "").replace(",", "_") for c in param.coords]
    if len(set(names)) < len(names):
        names = [f"{name}__{k}" for k, name in enumerate(names)]
    return [_symbol(name, span) for name, span in zip(names, param.spans)]


def _symbol(name: str, span):
    """A real symbol with the sign its coordinate's span gives it (``sqrt(x)^2 = x`` on x >= 0)."""
    sign = {}
    if span is not None and span[0] > 0:
        sign = {"positive": True}
    elif span is not None and span[0] >= 0:
        sign = {"nonnegative": True}
    elif span is not None and span[1] < 0:
        sign = {"negative": True}
    elif span is not None and span[1] <= 0:
        sign = {"nonpositive": True}
    return sympy.Symbol(name, real=True, **sign)


def _closing_rewriting(e) -> str | None:
    if e == 0:
        return REWRITINGS[0][0]
    for name, rewrite in REWRITINGS:
        try:
            with np.errstate(all="ignore"):
                if rewrite(e) == 0:
                    return name
        except (TypeError, ValueError, RecursionError, NotImplementedError):
            continue
    return None


def _sides_constant(check: Check, domain: ProofBox) -> bool:
    """Both sides are constants at these sizes (softmax of one entry is 1): they depend on no coordinate."""
    param = Parametrisation(check, domain, smt=True)
    symbols = coordinate_symbols(param)
    v = None
    try:
        for choice in _pieces(param):
            v = check.values(param.data(SYMBOLIC, _values(param, symbols, choice)), domain.dims)
            with SYMBOLIC.precision():
                for side in (check.part.lhs(SYMBOLIC, v), check.part.rhs(SYMBOLIC, v)):
                    for e in np.ravel(np.asarray(SYMBOLIC.lift(side), dtype=object)):
                        if isinstance(e, sympy.Basic) and _arguments_cancelled(sympy.powsimp(e)).free_symbols:
                            return False
    except (ArithmeticError, ValueError, TypeError):
        return False
    return True


def degenerate(check: Check, domain: ProofBox, larger: ProofBox | None) -> bool:
    """Whether a claim proved by its identity on ``domain`` holds there only because of the sizes.

    An inequality whose sides coincide here but not at the next larger sizes (``larger``;
    None: there are none) compares nothing here; so does an equality whose two sides are
    constants here (eq. (9) at d = 1: a softmax of one entry is 1 on both sides) but not there.
    """
    if check.part.relation != "==":
        if larger is None:
            return True
        return not vanishes_numerically(check, Parametrisation(check, larger, smt=True), larger.dims, np.random.default_rng(0))
    return _sides_constant(check, domain) and (larger is None or not _sides_constant(check, larger))


def prove_identity(check: Check, domain: ProofBox, time_limit: float = 60.0, dps: int = 50) -> Proof | None:
    """PROVED with the rewriting shown when lhs - rhs is identically 0, else None (another method decides).

    A strict claim whose sides coincide is false at every point: left to the methods that
    certify a counterexample.
    """
    if check.strict:
        return None
    start = time.monotonic()
    rewriting = identity_rewriting(check, domain)
    if rewriting is None:
        return None
    kind = "an identity" if check.part.relation == "==" else "its two sides are the same function here"
    return Proof(
        CheckResult(verdict=Verdict.PROVED, method="identity", seconds=time.monotonic() - start, domain=domain.describe(check),
                    stop_reason=f"lhs \u2212 rhs simplifies to 0: {kind}",
                    message=f"proved (identity): {rewriting.sentence()}", **base_fields(check, dps)),
        ProofDetails(method="identity", domain=domain.to_dict(), time_limit=time_limit, stop=ProofStop.PROVED,
                     certificate=ProofCertificate(method="identity", dims=dict(domain.dims), domain=domain.to_dict(),
                                                  identity=f"{rewriting.difference} = 0 by {rewriting.how}")),
    )


class Identity(Strategy):
    """lhs - rhs rewritten to 0 by sympy, the sets written through their maps."""

    name = "identity"
    summary = "lhs \u2212 rhs simplifies to 0 (sympy): an identity, or an inequality whose sides are the same function"

    def applies(self, check: Check, domain: ProofBox) -> str | None:
        if check.strict:
            return "the claim is strict: sides that coincide would make it false, which a counterexample shows"
        return None

    def attempt(self, check: Check, domain: ProofBox, budget: Budget) -> Proof | None:
        return prove_identity(check, domain, budget.seconds, budget.dps)

    def undecided(self, check: Check, domain: ProofBox) -> str:
        return "lhs \u2212 rhs does not vanish at sampled points, or sympy does not simplify it to 0"


__all__ = ["Identity", "Rewriting", "coordinate_symbols", "degenerate", "differences", "identity_rewriting", "prove_identity", "vanishes_numerically"]
