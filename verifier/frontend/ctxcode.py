"""sympy to the source of a claim function ``f(ctx, v)``: the mathematics written once, against ``ctx``.

The printed source is what runs (compiled by :func:`compile_function`) and what
``--save-claim`` writes into a pack module, so the module a user keeps is the claim that was
checked.  Nothing is evaluated in float64 here: every operation is a ``ctx`` call or an
operator on the context's arrays, so the function runs in every context (float64, mpmath,
exact, ball, symbolic, z3, jets).

Shapes: variables carry the batch axis first (``v.a`` has shape ``(batch,)``, ``v.x`` has
``(batch, n)``).  Inside nested reductions each running index owns one axis after the batch
axis, outer first, so the body of ``\\sum_i \\sum_j x_i y_j`` reads ``v.x[:, :, None] *
v.y[:, None, :]`` and each reduction folds the last axis.
"""

from __future__ import annotations

import keyword
from dataclasses import dataclass

import sympy

from ..errors import VerifierError
from ..claims import Values
from .translate import OPAQUE, IndexMax, IndexMin

#: sympy function -> ctx method (one argument)
CTX_FUNCTIONS = {
    sympy.exp: "exp", sympy.log: "log", sympy.Abs: "abs", sympy.tanh: "tanh", sympy.sin: "sin",
    sympy.cos: "cos", sympy.erf: "erf", sympy.LambertW: "lambertw",
}

# precedence of what a printed piece is, for parentheses
_ATOM, _POW, _MUL, _ADD = 4, 3, 2, 1


class NotExpressible(VerifierError, ValueError):
    """The expression uses something no ``ctx`` function gives (names what)."""


@dataclass(frozen=True)
class Index:
    symbol: sympy.Symbol
    size: str  # source of the size: "v.dims['n']" or "3"


class CtxPrinter:
    """Prints one sympy expression as the body of ``lambda ctx, v: ...``.

    ``scalars`` and ``vectors`` are the python names of the declared variables, ``dims`` the
    dimension names; a symbol in ``constants`` prints as a number (the constant ``C`` of
    ``--tighten`` set to 1, say).
    """

    def __init__(self, scalars, vectors, dims, helpers: set | None = None):
        self.scalars = set(scalars)
        self.vectors = set(vectors)
        self.dims = set(dims)
        self.helpers = helpers if helpers is not None else set()  # runtime helpers the source uses

    def source(self, expr) -> str:
        return self._print(sympy.sympify(expr), ())[0]

    # ------------------------------------------------------------------------------
    def _print(self, e, idx: tuple[Index, ...]):
        if e.is_Integer:
            return (str(int(e)), _ATOM) if e >= 0 else (str(int(e)), _ADD)
        if e.is_Rational:
            return f'ctx.const("{e.p}/{e.q}")', _ATOM
        if e is sympy.E:
            return "ctx.exp(1)", _ATOM
        if e is sympy.pi:
            return "ctx.pi", _ATOM
        if e.is_Symbol:
            return self._symbol(e, idx), _ATOM
        if isinstance(e, sympy.Indexed):
            return self._indexed(e, idx), _ATOM
        if e.is_Add:
            return self._add(e, idx), _ADD
        if e.is_Mul:
            return self._mul(e, idx)
        if e.is_Pow:
            return self._pow(e, idx)
        if isinstance(e, (sympy.Max, sympy.Min)):
            name = "maximum" if isinstance(e, sympy.Max) else "minimum"
            args = [self._print(a, idx)[0] for a in e.args]
            out = args[-1]
            for a in reversed(args[:-1]):
                out = f"ctx.{name}({a}, {out})"
            return out, _ATOM
        if isinstance(e, (sympy.Sum, sympy.Product, IndexMax, IndexMin)):
            return self._reduction(e, idx), _ATOM
        func = type(e)
        if func in CTX_FUNCTIONS:
            return f"ctx.{CTX_FUNCTIONS[func]}({self._print(e.args[0], idx)[0]})", _ATOM
        if getattr(func, "__name__", None) in OPAQUE:
            return f"ctx.{func.__name__}({self._print(e.args[0], idx)[0]})", _ATOM
        raise NotExpressible(f"{e} ({type(e).__name__})")

    def _symbol(self, s, idx):
        name = s.name
        for k, ix in enumerate(idx):
            if ix.symbol == s:
                self.helpers.add("index_values")
                return f"index_values(ctx, {ix.size}, {k}, {len(idx)})"
        if name in self.scalars:
            return variable_access(name) + _spread(len(idx))
        if name in self.dims:  # a context number: 1/n is then exact (1/3), not Python's float
            return f'ctx.const(v.dims["{name}"])'
        raise NotExpressible(f"the symbol {name}")

    def _indexed(self, e, idx):
        base = e.base.label.name
        (i,) = e.indices
        for k, ix in enumerate(idx):
            if ix.symbol == i:
                axes = ["None"] * len(idx)
                axes[k] = ":"
                return variable_access(base) + ("" if len(idx) == 1 else f"[:, {', '.join(axes)}]")
        if i.is_Integer:
            return f"{variable_access(base)}[:, {int(i) - 1}]" + _spread(len(idx))
        if i.is_Symbol and i.name in self.dims:
            return f"{variable_access(base)}[:, -1]" + _spread(len(idx))
        raise NotExpressible(f"the index {i} of {base}")

    def _add(self, e, idx):
        terms = sorted(e.args, key=_leading_sign)  # positive terms first reads better
        out = ""
        for k, term in enumerate(terms):
            negative = _is_negative(term)
            src, prec = self._print(-term if negative else term, idx)
            if k == 0:
                out = f"-{_wrap(src, prec, _MUL)}" if negative else src
            else:
                out += f" - {_wrap(src, prec, _MUL)}" if negative else f" + {src}"
        return out

    def _mul(self, e, idx):
        if _is_negative(e):
            src, prec = self._print(-e, idx)
            return f"-{_wrap(src, prec, _MUL)}", _ADD
        num, den = [], []
        args = list(e.args)
        for factor in list(args):
            # y log y is read as its continuous extension, 0 at y = 0 (entropy's 0 log 0 = 0)
            if isinstance(factor, sympy.log) and factor.args[0] in args:
                y = factor.args[0]
                args.remove(factor)
                args.remove(y)
                self.helpers.add("xlogy")
                num.append(sympy.Symbol("_xlogy_placeholder"))
                self._xlogy = getattr(self, "_xlogy", {})
                self._xlogy[len(num) - 1] = self._print(y, idx)[0]
        for factor in args:
            if factor.is_Pow and factor.exp.is_Rational and factor.exp < 0:
                den.append(factor.base ** -factor.exp)
            elif factor.is_Rational and factor.q != 1:
                if factor.p != 1:
                    num.append(sympy.Integer(factor.p))
                den.append(sympy.Integer(factor.q))
            else:
                num.append(factor)
        pieces = []
        for k, f in enumerate(num):
            if isinstance(f, sympy.Symbol) and f.name == "_xlogy_placeholder":
                y = self._xlogy.pop(k)
                pieces.append(f"xlogy(ctx, {y}, {y})")
            else:
                pieces.append(_wrap(*self._print(f, idx), _MUL))
        top = " * ".join(pieces) if pieces else "1"
        if not den:
            return top, _MUL
        bottom = [self._print(f, idx) for f in den]
        if len(bottom) == 1:
            below = _wrap(*bottom[0], _POW)
        else:
            below = "(" + " * ".join(_wrap(s, p, _MUL) for s, p in bottom) + ")"
        return f"{top} / {below}", _MUL

    def _pow(self, e, idx):
        base, exp = e.args
        if exp.is_Integer:
            k = int(exp)
            b = _wrap(*self._print(base, idx), _ATOM)
            if k >= 0:
                return f"{b} ** {k}", _POW
            return f"1 / {b} ** {-k}" if k != -1 else f"1 / {b}", _MUL
        if exp.is_Rational:
            b = self._print(base, idx)[0]
            if exp == sympy.Rational(1, 2):
                return f"ctx.sqrt({b})", _ATOM
            if exp == sympy.Rational(-1, 2):
                return f"1 / ctx.sqrt({b})", _MUL
            return f'ctx.power({b}, Fraction({exp.p}, {exp.q}))', _ATOM
        b = self._print(base, idx)[0]
        if exp.free_symbols and all(s.name in self.dims for s in exp.free_symbols):
            # an exponent of dimensions only (x^{1/n}) is a number at each size: ctx.power, exact where it can be
            return f"ctx.power({b}, {_fraction_source(exp)})", _ATOM
        # a symbolic exponent: x^p = exp(p log x), defined for x > 0 (ctx.power takes a number only)
        p = _wrap(*self._print(exp, idx), _MUL)
        return f"ctx.exp({p} * ctx.log({b}))", _ATOM

    def _reduction(self, e, idx):
        if isinstance(e, (sympy.Sum, sympy.Product)):
            # sympy merges nested sums into one with several limits, innermost first
            body = e.function if len(e.limits) == 1 else type(e)(e.function, *e.limits[:-1])
            i, _, size = e.limits[-1]
        else:
            body, i, size = e.args
        size_src = self._size(size)
        if not body.has(i):  # the body does not run over the index: no axis to fold
            src, prec = self._print(body, idx)
            if isinstance(e, sympy.Sum):
                return f"{_wrap(size_src, _MUL, _MUL)} * {_wrap(src, prec, _MUL)}"
            if isinstance(e, sympy.Product):
                return f"{_wrap(src, prec, _POW)} ** {size_src}"
            return src
        inner = idx + (Index(i, size_src),)
        src = self._print(body, inner)[0]
        axis = len(inner)
        if isinstance(e, sympy.Sum):
            return f"ctx.sum({src}, {axis})"
        if isinstance(e, sympy.Product):
            self.helpers.add("product")
            return f"product(ctx, {src}, {axis})"
        return f"ctx.{'max' if isinstance(e, IndexMax) else 'min'}({src}, {axis})"

    def _size(self, size):
        if size.is_Integer:
            return str(int(size))
        if size.is_Symbol and size.name in self.dims:
            return f'v.dims["{size.name}"]'
        raise NotExpressible(f"the range {size}")


def variable_access(name: str) -> str:
    """How claim code reads a variable: ``v.x``, or ``v["dims"]`` for a name that ``v`` itself uses
    (its ``dims`` and ``params``): the name a user declares never meets an internal one."""
    if name.isidentifier() and not keyword.iskeyword(name) and not hasattr(Values, name):
        return f"v.{name}"
    return f"v[{name!r}]"


def _fraction_source(e) -> str:
    """A number made of rationals and dimensions, as exact Python (``Fraction(1, v.dims["n"])``)."""
    if e.is_Integer:
        return str(int(e))
    if e.is_Rational:
        return f"Fraction({e.p}, {e.q})"
    if e.is_Symbol:
        return f'Fraction(v.dims["{e.name}"])'
    if e.is_Add:
        return "(" + " + ".join(_fraction_source(a) for a in e.args) + ")"
    if e.is_Mul:
        return "(" + " * ".join(_fraction_source(a) for a in e.args) + ")"
    if e.is_Pow and e.exp.is_Integer:
        return f"({_fraction_source(e.base)}) ** {int(e.exp)}"
    raise NotExpressible(f"the exponent {e}")


def _spread(depth: int) -> str:
    return "" if depth == 0 else "[:, " + ", ".join(["None"] * depth) + "]"


def _wrap(src, prec, need):
    return f"({src})" if prec < need else src


def _is_negative(term) -> bool:
    coeff = term.as_coeff_Mul()[0]
    return bool(coeff.is_Number and coeff < 0)


def _leading_sign(term) -> int:
    return 1 if _is_negative(term) else 0
