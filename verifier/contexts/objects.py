"""Contexts whose entries are Python number objects: the arrays that hold them and the shared base."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .base import Context
from .errors import FloatLiteralError, FunctionDomainError, NotRational
from .table import BY_NAME, Scalars, power_int
from .values import Bound, integral_value, exact_decimal, to_fraction


class Numbers(np.ndarray):
    """An object array of one context's numbers that lifts foreign operands on the way in.

    ``x - Fraction(1, 3)`` or ``np.maximum(x, 0)`` would otherwise hand an ``arb`` a
    Fraction (which it refuses) or compare a ball with a Python int (which gives an int
    back): every ufunc, operator and reduction first turns ints, Fractions and fmpqs into
    the context's own numbers, so all contexts accept what numpy accepts.
    """

    context: "ObjectContext | None" = None

    def __array_finalize__(self, obj):
        # a view of a plain array keeps the class's None (a getattr with a default would
        # raise and catch inside for every view numpy makes)
        if type(obj) is Numbers:
            self.context = obj.context

    def __reduce__(self):
        # pickled (to a worker process) as a plain object array; Values wraps it again
        return self.view(np.ndarray).__reduce__()

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        ctx = self.context
        if ctx is None:  # a view numpy made without finalising: plain object arithmetic
            plain = [x.view(np.ndarray) if isinstance(x, Numbers) else x for x in inputs]
            return getattr(ufunc, method)(*plain, **kwargs)
        if method == "__call__" and not kwargs:
            # this runs for every operation at high precision: operands of this class are
            # viewed in place, the context's own numbers and cached constants pass as they are
            if len(inputs) == 2:
                a, b = inputs
                if ufunc is np.power and isinstance(b, (int, np.integer, Fraction, np.ndarray)):
                    # ``x ** 2`` keeps its int exponent; ``x ** Fraction(1, 2)`` is a root; ``x ** y`` is power(x, y)
                    return ctx.power(a, b if not isinstance(b, np.ndarray) or b.dtype == object else ctx.lift(b))
                result = ufunc(a.view(np.ndarray) if isinstance(a, Numbers) else ctx.lift(a),
                               b.view(np.ndarray) if isinstance(b, Numbers) else ctx.lift(b))
            else:
                result = ufunc(*[x.view(np.ndarray) if isinstance(x, Numbers) else ctx.lift(x) for x in inputs])
        else:
            args = [x.view(np.ndarray) if isinstance(x, Numbers) else ctx.lift(x) for x in inputs]
            if kwargs.get("out") is not None:
                kwargs["out"] = tuple(o.view(np.ndarray) if isinstance(o, Numbers) else o for o in kwargs["out"])
            result = getattr(ufunc, method)(*args, **kwargs)
        if type(result) is np.ndarray and result.dtype == object:
            return result.view(type(self) if type(self) is not Numbers else ctx._numbers)
        if method == "__call__" and ufunc in _ARITHMETIC:
            return _zero_d(result, type(self) if type(self) is not Numbers else ctx._numbers)
        return ctx.wrap(result)


#: ufuncs whose result is a number of the context (comparisons give truth values, left as they are)
_ARITHMETIC = {np.add, np.subtract, np.multiply, np.true_divide, np.negative, np.positive, np.absolute, np.power, np.matmul}


def _zero_d(number, cls):
    """Arithmetic on 0-d arrays (``2 * ctx.pi``, ``ctx.const("1/2") - 1``) gives numpy a bare number;
    it stays a 0-d array of the context, so that it meets the next operand as an array does (a
    prover's Jet does not know numpy arrays: ``Jet - array`` would fail where ``array - array`` works)."""
    if isinstance(number, np.ndarray):
        return number.view(cls) if number.dtype == object else number
    out = np.empty((), dtype=object)
    out[()] = number
    return out.view(cls)


def _context_operator(ufunc, fallback, reflected=False):
    """``a - b`` with ``b`` of the context's own class or a plain int or Fraction, straight to
    numpy's object loop (the same operation as through :meth:`Numbers.__array_ufunc__`).

    numpy's ``__array_ufunc__`` dispatch costs about 1 us an operation, half of an exact
    ``-`` on a small matrix, and claim code is mostly such operations.
    """

    def operator(self, other):
        cls = type(self)
        if type(other) is cls:
            other = other.view(np.ndarray)
        elif type(other) is int or type(other) is Fraction:
            other = cls.context.lift(other)
        else:
            return fallback(self, other)
        mine = self.view(np.ndarray)
        result = ufunc(other, mine) if reflected else ufunc(mine, other)
        if type(result) is np.ndarray and result.dtype == object:
            return result.view(cls)
        if ufunc in _ARITHMETIC:
            return _zero_d(result, cls)
        return cls.context.wrap(result)

    return operator


def _context_unary(ufunc):
    """``-a`` or ``abs(a)`` straight to numpy's object loop, as :func:`_context_operator` does for two operands."""

    def operator(self):
        result = ufunc(self.view(np.ndarray))
        if type(result) is np.ndarray and result.dtype == object:
            return result.view(type(self))
        return _zero_d(result, type(self))

    return operator


def _context_power(self, other):
    # an int or Fraction exponent goes to the context's power, as the dispatch sends it
    if type(other) is int or type(other) is Fraction:
        return type(self).context.power(self, other)
    return np.ndarray.__pow__(self, other)


_CONTEXT_OPERATORS = {
    **{f"__{r}{name}__": _context_operator(ufunc, getattr(np.ndarray, f"__{r}{name}__"), reflected=bool(r))
       for name, ufunc in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("truediv", np.true_divide),
                           ("matmul", np.matmul))
       for r in ("", "r")},
    # a reflected comparison is the mirrored one on the array (``2 < x`` is ``x > 2``)
    **{f"__{name}__": _context_operator(ufunc, getattr(np.ndarray, f"__{name}__"))
       for name, ufunc in (("lt", np.less), ("le", np.less_equal), ("gt", np.greater), ("ge", np.greater_equal),
                           ("eq", np.equal), ("ne", np.not_equal))},
    **{f"__{name}__": _context_unary(ufunc)
       for name, ufunc in (("neg", np.negative), ("pos", np.positive), ("abs", np.absolute))},
    "__pow__": _context_power,
}


def _numbers_class(ctx) -> type:
    """The array class of one context: :class:`Numbers` with the context as a class attribute.

    A class attribute is not copied into every view numpy makes (a slice, a transpose, a
    ufunc's result), so these views cost no Python call.
    """
    return type(f"{type(ctx).__name__}Numbers", (Numbers,),
                {"context": ctx, "__array_finalize__": np.ndarray.__array_finalize__, "__module__": __name__,
                 **_CONTEXT_OPERATORS})


#: one array class per standard context and precision: their lifting depends on the
#: ambient, scoped precision alone, so contexts of one class and precision share it
_NUMBERS_CLASSES: dict = {}


#: lifted ints and Fractions kept per (context class, precision), so that ``x * 2`` or
#: ``1 - x`` converts its constant once and not at every evaluation; the numbers are immutable
_LIFTED: dict = {}
_LIFTED_MAX = 4096


def _constant_key(value) -> tuple:
    # a Fraction's own hash costs a modular inverse in Python; its two ints hash at C speed
    if type(value) is Fraction:
        return (Fraction, value.numerator, value.denominator)
    return (type(value), value)


POWER = BY_NAME["power"]

_ORDER_UFUNCS = {"max2": np.maximum, "min2": np.minimum}


class ObjectContext(Context):
    """Contexts whose entries are Python number objects (batch size one)."""

    #: the context's own number types, left as they are by :meth:`lift`
    native: tuple[type, ...] = ()

    # -- operands ------------------------------------------------------------------------
    def _make_numbers(self) -> type:
        key = self._numbers_key()
        if key is None:
            return _numbers_class(self)
        return _NUMBERS_CLASSES.get(key) or _NUMBERS_CLASSES.setdefault(key, _numbers_class(self))

    def _numbers_key(self):
        """What this context's lifting depends on, when contexts may share an array class (None: never)."""
        return None

    def wrap(self, result):
        if isinstance(result, np.ndarray) and result.dtype == object:
            return result.view(self._numbers)
        if isinstance(result, tuple):
            return tuple(self.wrap(r) for r in result)
        return result

    def lift(self, x):
        """An operand as an array (or number) of this context's numbers."""
        if isinstance(x, Numbers):
            return x.view(np.ndarray)
        if type(x) is int or type(x) is Fraction:
            return self._lift_constant(x)
        if isinstance(x, self.native):
            return x
        if isinstance(x, np.ndarray):
            if x.dtype != object:
                x = x.astype(object)
            return np.frompyfunc(self._lift_one, 1, 1)(x) if x.ndim else np.asarray(self._lift_one(x[()]), dtype=object)
        if isinstance(x, (list, tuple)):
            return self.lift(np.asarray(x, dtype=object))
        return self._lift_one(x)

    def _lift_one(self, v):
        if isinstance(v, self.native):
            return v
        if isinstance(v, (float, np.floating)) and not isinstance(v, Bound):
            raise FloatLiteralError(
                f"float literal {float(v)!r} in claim code: its binary value is not the decimal written; "
                f"use ctx.const('{float(v)!r}') or Fraction({_ratio_text(v)})"
            )
        return self.lift_value(v)

    #: the precision lifted constants depend on (None: no cache, each lift converts anew)
    def _lift_precision(self):
        return None

    def _lift_constant(self, v):
        prec = self._lift_precision()
        if prec is None:
            return self._lift_one(v)
        key = (type(self), prec) + _constant_key(v)
        out = _LIFTED.get(key)
        if out is None:
            if len(_LIFTED) >= _LIFTED_MAX:
                _LIFTED.clear()
            out = _LIFTED[key] = self._lift_one(v)
        return out

    def _apply(self, fn, *args, reuse=True):
        arrays = [a.view(np.ndarray) if isinstance(a, Numbers) else self.lift(a) for a in args]
        if isinstance(fn, np.ufunc):
            out = fn(*arrays)
        else:
            out = self._ufunc(fn, len(arrays))(*arrays) if reuse else np.frompyfunc(fn, len(arrays), 1)(*arrays)
        return self.wrap(out if type(out) is np.ndarray else np.asarray(out, dtype=object))

    def _ufunc(self, fn, nin):
        """``np.frompyfunc(fn, nin, 1)``, made once per function and context (``fn``: it or its name)."""
        try:
            return self.__dict__["_ufuncs"][fn, nin]
        except KeyError:
            cache = self.__dict__.setdefault("_ufuncs", {})
        if fn in _ORDER_UFUNCS and getattr(type(self), fn) is getattr(ObjectContext, fn):
            # numpy's maximum on objects is ``a if a >= b else b`` (minimum: ``<=``) in C: the
            # same number, ties and nans included, without a Python call per pair
            out = _ORDER_UFUNCS[fn]
        else:
            out = np.frompyfunc(getattr(self, fn) if isinstance(fn, str) else fn, nin, 1)
        cache[fn, nin] = out
        return out

    def const(self, value):
        """A 0-d array, so that ``ctx.const("1/2") + Fraction(1, 3)`` lifts like any operand."""
        prec = self._const_precision()
        if prec is None or type(value) not in (int, str, Fraction):
            return self.wrap(np.asarray(super().const(value), dtype=object))
        key = (type(self), "const", prec) + _constant_key(value)
        number = _LIFTED.get(key)
        if number is None:
            if len(_LIFTED) >= _LIFTED_MAX:
                _LIFTED.clear()
            number = _LIFTED[key] = super().const(value)
        return self.wrap(np.asarray(number, dtype=object))  # a new array each time: claim code may change it in place

    #: the precision ``const`` works at, when its results may be kept (None: never kept)
    def _const_precision(self):
        return None

    def _elementwise(self, fn, x):
        return self._apply(fn, x)

    # -- the API -------------------------------------------------------------------------
    def asarray(self, value):
        arr = np.asarray(value, dtype=object)
        out = self._ufunc("lift_value", 1)(arr) if arr.ndim else np.asarray(self.lift_value(arr[()]), dtype=object)
        return self.wrap(out)

    def lift_value(self, v):
        return self.scalar(to_fraction(v))

    def max2(self, a, b):
        return a if a >= b else b

    def min2(self, a, b):
        return a if a <= b else b

    def _reduce(self, fn, x, axis, keepdims):
        out = x.view(np.ndarray) if isinstance(x, Numbers) else self.lift(x)
        ufunc = self._ufunc(fn, 2)
        ndim = out.ndim if type(out) is np.ndarray else np.ndim(out)
        if isinstance(axis, int):
            out = ufunc.reduce(out, axis=axis % ndim, keepdims=keepdims)
        else:
            for a in sorted((a % ndim for a in axis), reverse=True):
                out = ufunc.reduce(out, axis=a, keepdims=keepdims)
        if type(out) is np.ndarray and out.dtype == object:
            return out.view(self._numbers)
        return self.wrap(out)

    def abs(self, x):
        return self._apply(np.absolute, x)  # numpy's absolute on objects is ``abs``, without a Python call

    def sign(self, x):
        return self._apply("sign1", x)

    def sign1(self, a):
        """The sign of one number the context compares exactly (rationals, mpmath)."""
        return self.scalar(Fraction((a > 0) - (a < 0)))

    def maximum(self, x, y):
        return self._apply("max2", x, y)

    def minimum(self, x, y):
        return self._apply("min2", x, y)

    def max(self, x, axis, keepdims=False):
        return self._reduce("max2", x, axis, keepdims)

    def min(self, x, axis, keepdims=False):
        return self._reduce("min2", x, axis, keepdims)

    def sum(self, x, axis, keepdims=False):
        return self.wrap(np.sum(self.lift(x), axis=axis, keepdims=keepdims))

    def power(self, x, p):
        if isinstance(p, np.ndarray):  # a variable exponent: entry by entry
            return self._apply("power2", x, p)
        k = integral_value(p)
        if k is not None:
            return self._apply(lambda a: self._power_int(a, k), x, reuse=False)
        q = exact_decimal(p)
        return self._apply(lambda a: self._power_real(a, q), x, reuse=False)

    def _power_int(self, a, k):
        return power_int(a, k)

    def _power_real(self, a, q: Fraction):
        return self.power2(a, self.scalar(q))

    def power2(self, a, p):
        return self.function_of(POWER)(a, p)

    #: what a context without a function raises (the SMT context: "not decidable")
    unavailable_error: type[ArithmeticError] = NotRational
    #: which column of the function table holds this context's forms (None: none of them)
    column: str | None = None

    def __getattr__(self, name):
        if name == "_numbers":  # made on first use, then an instance attribute (no call per operation)
            cls = self.__dict__["_numbers"] = self._make_numbers()
            return cls
        raise AttributeError(name)

    # -- the function table ----------------------------------------------------------------
    def _function(self, row, x):
        return self._apply(self.function_of(row), x)

    def function_of(self, row):
        """This context's form of ``row`` on one number, domain checked (made once per row)."""
        ones = self.__dict__.setdefault("_ones", {})
        fn = ones.get(row.name)
        if fn is None:
            fn = ones[row.name] = self._make_one(row)
        return fn

    def _make_one(self, row):
        form = getattr(row, self.column) if self.column else None
        if form is None:  # a context that lacks a function's form says so when the function is used
            def unavailable(*_):
                raise self.unavailable_error(f"{row.name} is not available in the {self.name} context")

            return unavailable
        if row.domain is None:
            return form
        outside, name = self._outside_test(row.domain), row.name

        def checked(a):
            if outside(a):
                raise FunctionDomainError(f"{name} is undefined at {a}")
            return form(a)

        return checked

    def _outside_test(self, domain):
        """``a -> True`` when ``a`` is certainly outside ``domain`` (made once per row)."""
        return lambda a: self._outside(domain, a)

    def _outside(self, domain, a) -> bool:
        """True when ``a`` is certainly outside ``domain`` (an :class:`~.table.Above`)."""
        raise NotImplementedError

    @property
    def scalars(self) -> Scalars:
        """This context's functions of one number, by name: what derivatives are written in."""
        out = self.__dict__.get("_scalars")
        if out is None:
            out = self.__dict__["_scalars"] = Scalars(self.function_of, self.constant_value, self.scalar)
        return out

    def constant_value(self, name: str):
        raise self.unavailable_error(f"{name} is irrational: the {self.name} context has no exact form of it")

    def _named_constant(self, name: str):
        """A 0-d array of the constant (so that ``ctx.pi * Fraction(1, 3)`` lifts like any operand)."""
        with self.precision():
            number = self.lift_value(self.constant_value(name))
        return self.wrap(np.asarray(number, dtype=object))


def _ratio_text(v) -> str:
    q = Fraction(repr(float(v)))
    return f"{q.numerator}, {q.denominator}"
