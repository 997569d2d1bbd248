"""A claim's variables read through their kinds: the kind's text and exact membership."""

from __future__ import annotations

import numpy as np

from ..claims import Variable
from .base import Kind


def domain_of(var: Variable) -> Kind | None:
    """The kind of set the variable lies on (None: a box, or a relation to another variable)."""
    return getattr(var, "domain", None)


def is_derived(var: Variable) -> bool:
    """Is the variable computed from the others rather than free on a set?"""
    dom = domain_of(var)
    return dom is not None and dom.computed


def kind_text(var: Variable, dims=None) -> str:
    """The variable's kind as a stored file and ``verify show`` state it.

    ``stochastic(n x m, n=2, m=3)`` with dims (a stored file), ``stochastic`` without (next to
    the shape); ``real`` for a variable of no kind (its box, ball or bound functions are the
    claim's, not a set's); ``derived(3 - a - b)`` for a derived variable.
    """
    dom = domain_of(var)
    if dom is not None and dom.computed:
        return f"derived({dom.text})" if dom.text else "derived"
    name = "real" if dom is None else dom.name
    args = []
    if dims is not None and var.shape:
        args = [var.shape_text] + [f"{s}={dims[s]}" for s in dict.fromkeys(var.shape) if isinstance(s, str)]
    if dom is not None:
        args += dom.describe()
    return f"{name}({', '.join(args)})" if args else name


def variable_kinds(variables, dims) -> dict[str, str]:
    return {var.name: kind_text(var, dims) for var in variables}


def membership_errors(check, data, dims, ctx) -> tuple[str, str] | None:
    """The first variable of an exact point that is off its set: (name, reason), or None."""
    values = check.values(data, dims)
    for var in check.variables:
        dom = domain_of(var)
        for hyp in dom.hypotheses(var) if dom is not None else ():
            try:
                with ctx.precision():
                    margin = np.asarray(hyp.margin(ctx, values), dtype=object).ravel()[0]
            except ArithmeticError:  # leaves the rationals (or divides by 0): the certificate decides
                continue
            if margin < 0:
                return var.name, f"not on the {dom.name} set: '{hyp.text}' fails"
    return None


__all__ = ["domain_of", "is_derived", "kind_text", "variable_kinds", "membership_errors"]
