"""Derived variables: a variable defined by the earlier ones, ``c = fn(ctx, v)``, checked exactly.

Not a set of its own: its value is computed from the others, in floats for the search and
exactly for a certificate, where it must stay rational (+ - * /): a stored point is exact and
replay re-derives everything from it.  A definition that leaves the rationals at a point the
search must certify raises :class:`IrrationalDerivedValue`, naming the variable.  A proof
computes it from the boxed variables; its bounds stay hypotheses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..errors import VerifierError
from ..claims import ClaimDefinitionError, Hypothesis, Variable
from ..contexts import ExactContext, FloatContext, NotRational
from .base import Kind, ProofMap, hypothesis_texts, require_identifier

FLOAT = FloatContext()


class IrrationalDerivedValue(VerifierError):
    """A derived variable's definition left the rationals at a point the search must certify.

    Not a ValueError or ArithmeticError: those mark one bad candidate, which the search
    skips; this is the claim's definition, and no point of it can be certified.
    """

    def __init__(self, var, text: str, reason: str, advice: str = ""):
        self.variable = var.name
        if advice:  # another kind's value read from the other variables (a ball's centre)
            super().__init__(f"{var.name}: {text} is irrational at the points the search certifies ({reason}); {advice}")
            return
        what = f"{var.name} = {text}" if text else var.name
        super().__init__(
            f"Derived {what} is irrational at the points the search certifies ({reason}); a certificate "
            f"needs every variable exactly: define {var.name} with + - * / only, or parametrise its set "
            "rationally (a point of a sphere: Sphere)")


@dataclass(frozen=True)
class DerivedValue(Kind):
    """A variable defined by the earlier ones: its value is ``fn(ctx, v)``, checked exactly.

    Not a set of its own: :meth:`value` computes it from the others, in floats or exactly.
    """

    name = "derived"
    relative = True
    computed = True
    fn: Callable[[Any, Any], Any] | None = None
    text: str = ""

    def hypotheses(self, var):
        text = f"{var.name} = {self.text}" if self.text else f"{var.name} is its defining expression"
        return [Hypothesis(text, lambda ctx, v, n=var.name, f=self.fn: -ctx.max_all(ctx.abs(v[n] - f(ctx, v))))]

    def proof_relation(self, var):
        return f"{var.name} = {self.text or 'its definition'}"

    def value(self, var, ctx, values, shape):
        """The variable's value from the earlier ones, broadcast to ``shape`` (batch first).

        Exactly (in rationals) it must stay rational: else
        :class:`IrrationalDerivedValue`, naming the variable.
        """
        if not isinstance(ctx, ExactContext):
            with np.errstate(all="ignore"):
                out = np.asarray(self.fn(FLOAT, values), dtype=float)
            return np.broadcast_to(out, shape).copy() if np.shape(out) != tuple(shape) else out
        try:
            with ctx.precision():
                out = np.asarray(self.fn(ctx, values), dtype=object)
        except NotRational as exc:
            raise IrrationalDerivedValue(var, self.text, str(exc)) from None
        return np.broadcast_to(out, shape).copy() if np.ndim(out) < len(shape) else out

    def onto(self, var, ctx, x, values):
        return self.value(var, ctx, values, np.shape(x))

    def sample(self, var, shape, rng, size, values=None):
        return self.value(var, FLOAT, values, (size,) + tuple(shape))

    def on_boundary(self, var, flat):
        at = np.zeros(len(flat), bool)
        for end in (var.lo, var.hi):
            if end is not None:
                at |= np.any(flat == end, axis=1)
        return at

    def proof_map(self, var, shape, box, request):
        return DerivedMap(var, shape, request.check, request.dims)


class DerivedMap(ProofMap):
    """Its definition, evaluated on the variables before it; its bounds stay hypotheses."""

    def __init__(self, var, shape, check, dims):
        super().__init__(var, shape)
        self.check, self.dims = check, dims
        self.built_in = hypothesis_texts(var.domain.hypotheses(var))

    def value(self, ctx, params, piece, data):
        with ctx.precision():
            value = self.var.domain.fn(ctx, self.check.values(data, self.dims))
        return np.asarray(value, dtype=object).reshape((1,) + self.shape)



def Derived(name: str, fn, lo: float | None = None, hi: float | None = None, text: str = "", shape: tuple[str, ...] = (), description: str = "") -> Variable:
    """A variable defined by the earlier ones, ``fn(ctx, v)`` (``c = 3 - a - b``).

    It is shown and stored with a counterexample like any variable; ``lo``/``hi`` and the
    defining equation are hypotheses checked exactly.  ``fn`` must stay rational (+ - * /):
    a stored point is exact, and a search that meets an irrational value (a ``sqrt``)
    stops with :class:`IrrationalDerivedValue`, naming the variable.
    """
    require_identifier(name)
    if not callable(fn):
        raise ClaimDefinitionError(f"Derived {name}: fn must be a function f(ctx, v), got {fn!r}")
    return Variable(name, tuple(shape), lo=lo, hi=hi, domain=DerivedValue(fn, text), description=description)


__all__ = ["Derived", "DerivedValue", "DerivedMap", "IrrationalDerivedValue"]
