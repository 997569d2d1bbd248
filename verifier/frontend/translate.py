"""A parse tree to sympy, every name resolved against the declarations, every ambiguity refused.

Scalars become real sympy symbols, a vector ``x`` an ``IndexedBase`` read as ``x[i]`` (``x_i``
inside ``\\sum_i``, ``x_1``, ``x_n``), a dimension an integer symbol, ``\\pi`` and ``e`` sympy's
π and E.  ``\\sum`` and ``\\prod`` become sympy's ``Sum`` and ``Product``; ``\\max_i`` and
``\\min_i`` the unevaluated functions :class:`IndexMax` and :class:`IndexMin`; a norm its sum
or maximum.  Functions of the ``ctx`` table that sympy lacks (``sigmoid``, ``softplus``,
``log1p``, ``expm1``) are sympy functions of those names, opaque to sympy and read back by name.

What TeX leaves to the reader is read as a mathematician reads it, and refused where
readers differ (each refusal names the readings and how to write each):

* a function without parentheses takes a coefficient and one factor: ``\\sin 2x`` is
  sin(2x), ``\\sin x^2`` is sin(x²), ``\\sin^2 x`` is (sin x)², ``\\log_2 x``, ``\\sin 2\\pi x``;
  ``\\sin x \\cos y`` is a product of two functions; ``\\log x y`` is refused (log(xy) or
  (log x)·y), as is ``\\ln(x)^2`` (ln(x²) or (ln x)²; Python's ``log(x)**2`` is the square)
  and ``\\sin^{-1} x`` (arcsin or 1/sin);
* ``a/bc`` is refused (a/(bc) or (a/b)·c), as is ``a/b/c``; ``a/b \\cdot c`` is (a/b)·c;
* a number after a factor (``x 2``, ``(a+b)2``) is refused: the number goes first.

Every number the statement computes is sized before it is computed (:mod:`.sizes`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy
from lark import Token, Tree

from .errors import ExpressionError, shorten
from .grammar import NAMED_FUNCTIONS, Run, Vocabulary, parse
from .names import Declarations, Declared, python_name
from .sizes import MAX_EXPONENT, MAX_NUMBER_BITS, MAX_RANGE, number_bits, power_bits

#: the ``ctx`` functions sympy has no class for: opaque sympy functions of the same name
OPAQUE = {name: sympy.Function(name) for name in ("sigmoid", "softplus", "log1p", "expm1")}
SYMPY_FUNCTIONS = {
    "exp": sympy.exp, "log": sympy.log, "sqrt": sympy.sqrt, "abs": sympy.Abs, "tanh": sympy.tanh,
    "sin": sympy.sin, "cos": sympy.cos, "erf": sympy.erf, "lambertw": sympy.LambertW, **OPAQUE,
}
#: parse-tree rules of a function: applying it to what follows ends a function's argument
_FUNCTION_LIKE = {"call", "call_neg", "bigop", "reduce_maxmin"}
_POWERS = {"sup", "subscript", "subsup", "supsub", "pypow"}


class IndexMax(sympy.Function):
    """``max_i body`` over ``i = 1..size``: args (body, index, size)."""

    nargs = 3


class IndexMin(sympy.Function):
    """``min_i body`` over ``i = 1..size``: args (body, index, size)."""

    nargs = 3


@dataclass
class Relation:
    """One ``lhs REL rhs`` of a chain, with the text it was read from."""

    lhs: sympy.Expr
    relation: str  # <= < >= > == !=
    rhs: sympy.Expr
    text: str
    lhs_text: str = ""
    rhs_text: str = ""


@dataclass
class Translation:
    relations: list[Relation]
    used: set[str] = field(default_factory=set)  # declared names (python spelling) the text uses


class Scope:
    """What a name can mean: declared variables, dimensions, free symbols (``--tighten C``)."""

    def __init__(self, decl: Declarations, free: tuple[str, ...] = ()):
        self.decl = decl
        self.free = set(free)
        self.scalars = {v.name: v for v in decl.variables if not v.is_vector}
        self.vectors = {v.name: v for v in decl.variables if v.is_vector}
        self.dims = {d.name: d for d in decl.dims}

    def symbol(self, name: str) -> sympy.Symbol:
        return sympy.Symbol(python_name(name), real=True)

    def base(self, var: Declared) -> sympy.IndexedBase:
        return sympy.IndexedBase(var.py, real=True)

    def dim_symbol(self, name: str) -> sympy.Symbol:
        return sympy.Symbol(name, integer=True, positive=True)

    def size_expr(self, var: Declared):
        return sympy.Integer(var.size) if isinstance(var.size, int) else self.dim_symbol(var.size)

    def known(self, name: str) -> bool:
        return name in self.scalars or name in self.vectors or name in self.dims or name in self.free

    def vocabulary(self) -> Vocabulary:
        return Vocabulary(self.decl.names() | frozenset(self.free))


def read(text: str, scope: Scope, source: str = "statement") -> Translation:
    """The relations of a chain (``0 < x \\le y`` gives two), as sympy."""
    try:
        parsed = parse(text, scope.vocabulary())
        return _Translator(text, scope, parsed.runs).chain(parsed.tree.children[0])
    except ExpressionError as exc:
        raise ExpressionError(exc.message, exc.text, exc.column, source) from None
    except RecursionError:  # pragma: no cover - nesting is bounded before translation
        raise ExpressionError("nested too deeply to read", text, None, source) from None


def exact_number(text: str) -> sympy.Expr:
    """The exact value of a constant expression (a bound: ``1/2``, ``\\frac{1}{3}``, ``\\frac{\\pi}{2}``)."""
    parsed = parse(text)
    chain = parsed.tree.children[0]
    if len(chain.children) != 1:
        raise ExpressionError("a bound is a number, not a relation", text, None)
    value = _Translator(text, Scope(Declarations()), parsed.runs).expr(chain.children[0])
    if not value.is_number:
        raise ExpressionError("a bound must be a number", text, None)
    if not value.is_real or not value.is_finite:
        raise ExpressionError("a bound must be a finite real number", text, None)
    return value


def _is(node, *rules) -> bool:
    return isinstance(node, Tree) and node.data in rules


class _Translator:
    def __init__(self, text: str, scope: Scope, runs: dict[int, Run]):
        self.text = text
        self.scope = scope
        self.runs = runs
        self.used: set[str] = set()
        self.indices: dict[str, sympy.Symbol] = {}  # index name -> its symbol, while inside its reduction
        self.index_sizes: dict[str, list] = {}  # index name -> [(size expr, vector name, column)]
        self.implicit: list[tuple[sympy.Symbol, list]] = []  # norms: bare vectors take this index

    def error(self, message, node=None, column=None):
        if column is None and node is not None:
            column = _column(node)
        raise ExpressionError(message, self.text, column)

    def shown(self, node) -> str:
        """The text a node was read from, as typed (cut when long)."""
        return shorten(self.whole(node), 40)

    def whole(self, node) -> str:
        start, end = _start(node), _end(node)
        return self.text[start:end].strip() if start is not None and end is not None else ""

    # -- relations ---------------------------------------------------------------------
    def chain(self, node) -> Translation:
        items = node.children
        exprs = [self.expr(items[k]) for k in range(0, len(items), 2)]
        out = []
        for k in range(1, len(items), 2):
            left, rel, right = items[k - 1], items[k], items[k + 1]
            out.append(Relation(exprs[k // 2], rel.value, exprs[k // 2 + 1], self._span(left, right),
                                self.whole(left), self.whole(right)))
        return Translation(out, self.used)

    def _span(self, left, right) -> str:
        start, end = _start(left), _end(right)
        return self.text if start is None or end is None else self.text[start:end].strip()

    # -- expressions -------------------------------------------------------------------
    def expr(self, node):
        if isinstance(node, Token):
            return self.token(node)
        method = getattr(self, "t_" + node.data, None)
        if method is None:  # pragma: no cover - every rule of the grammar has a method
            self.error(f"cannot read {node.data}", node)
        return method(node)

    def token(self, tok):
        if tok.type == "NUMBER":
            return sympy.Rational(tok.value)
        if tok.type == "NAME":
            return self.name(tok.value, tok.column)
        if tok.type == "CONST":
            return sympy.pi
        self.error(f"unexpected {shorten(tok.value)!r}", column=tok.column)

    # chains are read left to right without recursion: a sum of many terms is long, not deep
    def t_plus(self, n):
        return self._sum(n)

    t_minus = t_plus

    def _sum(self, n):
        terms = []
        while _is(n, "plus", "minus"):
            terms.append((n.data, n.children[2]))
            n = n.children[0]
        value = self.expr(n)
        for op, node in reversed(terms):
            term = self.expr(node)
            self.sized(value, term, node)
            value = value + term if op == "plus" else value - term
        return value

    def t_mul(self, n):
        operands = []
        while _is(n, "mul", "div"):
            operands.append((n.data, n.children[2]))
            n = n.children[0]
        operands.reverse()
        value = self.expr(n)
        previous = None
        for op, node in operands:
            if op == "div":
                self._one_denominator(node, previous == "div")
            operand = self.expr(node)
            self.sized(value, operand, node)
            value = value * operand if op == "mul" else self._divide(value, operand, node)
            previous = op
        return value

    t_div = t_mul

    def _one_denominator(self, node, after_division):
        """``a/bc`` and ``a/b/c``: readers differ, so the text must say which."""
        inner = node
        while _is(inner, "neg", "pos"):
            inner = inner.children[1]
        if _is(inner, "imul"):
            factors = self._factors(inner)
            right, first = self.shown(inner), self.shown(factors[0])
            rest = " ".join(self.shown(f) for f in factors[1:])
            self.error(f"/{right} reads two ways, as a quotient by {right} and as a quotient by {first} times {rest}: "
                       f"write \\frac{{..}}{{{right}}} for the first, \\frac{{..}}{{{first}}} {rest} for the second", node)
        if after_division:
            self.error("a/b/c reads two ways, (a/b)/c and a/(b/c): write \\frac{a}{bc} or \\frac{ac}{b}", node)

    def _divide(self, value, operand, node):
        if operand == 0:
            self.error(f"division by zero: {self.shown(node)} is 0", node)
        return value / operand

    def t_imul(self, n):
        return self._product(self._factors(n))

    def _product(self, factors):
        value = None
        for k, node in enumerate(factors):
            if k and _is(node, "number"):
                self.error(f"a number after a factor ({self.shown(factors[k - 1])} {self.shown(node)}): TeX sets them side by side; "
                           f"write the number first, or \\cdot between them", node)
            factor = self.expr(node)
            if value is None:
                value = factor
            else:
                self.sized(value, factor, node)
                value = value * factor
        return value

    def t_neg(self, n):
        return -self.expr(n.children[1])

    def t_pos(self, n):
        return self.expr(n.children[1])

    def t_number(self, n):
        return sympy.Rational(n.children[0].value)

    def t_name(self, n):
        tok = n.children[0]
        return self.name(tok.value, tok.column)

    def t_const(self, n):
        return sympy.pi

    def t_infty(self, n):
        self.error("\\infty is read only as a norm's subscript (\\|x\\|_\\infty); a bound at infinity goes in --var", n)

    def t_paren(self, n):
        return self.expr(n.children[1])

    def t_group(self, n):
        return self.expr(n.children[1])

    def t_frac(self, n):
        return self._divide(self.expr(n.children[1]), self.expr(n.children[2]), n.children[2])

    def t_sqrt(self, n):
        _, _, degree, _, arg = n.children
        body = self.expr(arg)
        if degree is None:
            return sympy.sqrt(body)
        k = self.expr(degree)
        dims = {self.scope.dim_symbol(d) for d in self.scope.dims}
        if k.is_Integer and 2 <= k <= MAX_EXPONENT:
            return self.power(body, sympy.Rational(1, int(k)), n)
        if k.free_symbols and k.free_symbols <= dims:
            return body ** (1 / k)
        self.error(f"the degree of a root is an integer from 2 to {MAX_EXPONENT:,} or a dimension (\\sqrt[n]{{x}})", degree)

    def t_abs(self, n):
        return sympy.Abs(self.expr(n.children[1]))

    def t_maxmin(self, n):
        op = n.children[0].value
        args = [self.expr(a) for a in n.children[2].children if not isinstance(a, Token)]
        return (sympy.Max if op == "max" else sympy.Min)(*args)

    # -- numbers, sized before they are computed ------------------------------------------
    def sized(self, a, b, node):
        """Two exact numbers about to be combined: their result must stay a number we can write."""
        if a.is_Rational and b.is_Rational and number_bits(a) + number_bits(b) > MAX_NUMBER_BITS:
            self.error(f"{self.shown(node)} makes a number of more than {MAX_NUMBER_BITS:,} bits", node)

    def power(self, base, exponent, node):
        if base.is_number and exponent.is_number:
            if base.is_Rational and exponent.is_Rational:
                if base == 0 and exponent < 0:
                    self.error(f"{self.shown(node)} divides by zero", node)
                bits = power_bits(base, exponent)
                if bits > MAX_NUMBER_BITS:
                    size = f"about {bits:,.0f}" if bits < 1e15 else "more than 10^15"
                    self.error(f"{self.shown(node)} is a number of {size} bits; "
                               f"a number the statement computes has at most {MAX_NUMBER_BITS:,}", node)
            elif exponent.is_Rational and abs(exponent) > MAX_EXPONENT:
                self.error(f"{self.shown(node)}: an exponent of a constant is at most {MAX_EXPONENT:,} here", node)
        elif exponent.is_Rational and (abs(exponent.p) > MAX_EXPONENT or exponent.q > MAX_EXPONENT):
            self.error(f"{self.shown(node)}: an exponent of a variable is a number up to {MAX_EXPONENT:,} "
                       "(with a denominator up to as much)", node)
        return base ** exponent

    # -- powers and subscripts -------------------------------------------------------------
    def t_sup(self, n):
        base, _, exponent = n.children
        return self.power(self.expr(base), self.expr(exponent), n)

    def t_pypow(self, n):
        base, _, exponent = n.children
        return self.power(self.expr(base), self.expr(exponent), n)

    def t_subscript(self, n):
        base, _, sub = n.children
        return self.subscripted(base, sub)

    def t_subsup(self, n):
        base, _, sub, _, exponent = n.children
        return self.power(self.subscripted(base, sub), self.expr(exponent), n)

    def t_supsub(self, n):
        base, _, exponent, _, sub = n.children
        return self.power(self.subscripted(base, sub), self.expr(exponent), n)

    def subscripted(self, base, sub):
        if _is(base, "norm"):
            return self._norm(base, sub)
        if not _is(base, "name"):
            self.error(f"a subscript on {self.shown(base)} means nothing here: a subscript indexes a vector (x_i) or names a variable (x_1)", sub)
        name_tok = base.children[0]
        sub_text = self._sub_text(sub)
        name = name_tok.value
        whole = f"{name}_{sub_text}"
        if whole in self.scope.scalars:
            return self._scalar(whole)
        var = self.scope.vectors.get(name)
        if var is None:
            if name in self.scope.scalars:
                self.error(f"{name} is a scalar, so {name}_{sub_text} means nothing; declare {whole} or make {name} a vector", name_tok)
            self.error(f"{whole} is used but not declared (--var '{whole} ...' or --var '{name}: vector n')", name_tok)
        if not (sub_text.isdigit() or sub_text.isidentifier()):
            self.error("an index is a number, a letter or a dimension (x_1, x_i, x_n); index arithmetic such as x_{i+1} is not supported", sub)
        self.used.add(var.py)
        base_symbol = self.scope.base(var)
        size = self.scope.size_expr(var)
        if sub_text in self.indices:
            self.index_sizes[sub_text].append((size, var.name, name_tok.column))
            return base_symbol[self.indices[sub_text]]
        if sub_text.isdigit():
            k = int(sub_text)
            smallest = var.size if isinstance(var.size, int) else self.scope.dims[var.size].lo
            if not 1 <= k <= smallest:
                self.error(f"{var.name}_{shorten(sub_text)} needs {var.name} to have at least {shorten(sub_text)} entries (its size can be {smallest})", name_tok)
            return base_symbol[k]
        if sub_text == var.size:
            self.used.add(sub_text)
            return base_symbol[size]
        self.error(f"the index {sub_text} of {var.name}_{sub_text} is not a running index (\\sum_{sub_text}), a number or {var.name}'s dimension", name_tok)

    def _sub_text(self, sub) -> str:
        """A subscript as written: ``1``, ``i``, ``n``, ``{12}``, ``{max}`` (the text inside the braces)."""
        if _is(sub, "number", "name"):
            return sub.children[0].value
        if _is(sub, "group"):
            return "".join(self.whole(sub.children[1]).split())
        self.error("an index is a number, a letter or a dimension (x_1, x_i, x_n)", sub)

    def t_norm(self, n):
        return self._norm(n, None)

    def _norm(self, n, sub):
        body_node = n.children[1]
        p = "2"
        if sub is not None:
            infinite = _is(sub, "infty") or (_is(sub, "group") and _is(sub.children[1], "infty"))
            p = "oo" if infinite else self._sub_text(sub)
            if p not in ("1", "2", "oo"):
                self.error("a norm is \\|x\\|_1, \\|x\\|_2 or \\|x\\|_\\infty", sub)
        index = sympy.Symbol(f"_k{len(self.implicit)}", integer=True, positive=True)
        sizes: list = []
        self.implicit.append((index, sizes))
        try:
            body = self.expr(body_node)
        finally:
            self.implicit.pop()
        if not sizes:  # a norm of a scalar is its absolute value
            return sympy.Abs(body)
        size = self._one_size(sizes, "the norm's vectors", n)
        if p == "1":
            return sympy.Sum(sympy.Abs(body), (index, 1, size))
        if p == "oo":
            return IndexMax(sympy.Abs(body), index, size)
        return sympy.sqrt(sympy.Sum(body ** 2, (index, 1, size)))

    # -- functions ---------------------------------------------------------------------------
    def t_call(self, n):
        func, scripts, body = n.children
        return self._call(n, func, scripts, body, negate=False)

    def t_call_neg(self, n):
        func, scripts, _, body = n.children
        return self._call(n, func, scripts, body, negate=True)

    def _call(self, n, func, scripts, body, negate):
        """A function and what follows it: its argument, and the factors after it, if any."""
        name = func.value
        base, power = self._fscripts(scripts, func)
        factors = self._factors(body)
        first = factors[0]
        if not negate and _is(first, "sup") and _is(first.children[0], "paren"):
            f, paren, exponent = self.shown(func), self.shown(first.children[0]), self.shown(first.children[2])
            inner = paren[1:-1] if paren.startswith("(") else paren
            self.error(f"{f}{paren}^{exponent} reads two ways, as the power of {f}{paren} and as {f} of ({inner})^{exponent}: "
                       f"write {f}^{exponent}{paren} for the first, {f}({inner}^{{{exponent}}}) for the second "
                       f"(in Python syntax {func}(...)**{exponent} is the first)", first)
        if not negate and (_is(first, "paren") or (_is(first, "pypow") and _is(first.children[0], "paren"))):
            argument, rest = [first], factors[1:]  # f(x) y: the parentheses hold the argument
        else:
            argument, rest = self._bare_argument(func, factors)
        value = self._product(argument) if not _is(argument[0], "pypow") else self.expr(argument[0].children[0])
        if negate:
            value = -value
        result = SYMPY_FUNCTIONS[name](value)
        if base is not None:
            if name != "log":
                self.error(f"only \\log takes a base (\\log_2 x); {name} does not", func)
            result = result / sympy.log(base)
        if power is not None:
            result = self.power(result, power, scripts)
        if _is(argument[0], "pypow"):  # log(x)**2: Python's power of the call
            result = self.power(result, self.expr(argument[0].children[2]), argument[0])
        if rest:
            result = result * self._product(rest)
        return result

    def _fscripts(self, scripts, func):
        base = power = None
        kids = scripts.children
        for k in range(0, len(kids), 2):
            tok, arg = kids[k], kids[k + 1]
            if tok is None:
                continue
            if tok.type == "LOWSCRIPT":
                base = self.expr(arg)
            else:
                power = self.expr(arg)
                if not (power.is_Integer and power > 0):
                    shown = self.shown(arg)
                    self.error(f"{self.shown(func)}^{shown} reads two ways (an inverse function, or a power of the function): "
                               f"write ({self.shown(func)} x)^{{{shown}}} for the power", arg)
        return base, power

    def _bare_argument(self, func, factors):
        """``\\sin 2\\pi x``: constants, then one factor; a further factor must be a function's."""
        k = 0
        while k < len(factors) and self._constant_factor(factors[k]):
            k += 1
        if k < len(factors) and not _is(factors[k], *_FUNCTION_LIKE):
            k += 1
        elif k < len(factors):  # \log \log n: the inner function takes the rest
            if k:
                f, head, inner = self.shown(func), " ".join(self.shown(a) for a in factors[:k]), self.shown(factors[k])
                self.error(f"{f} {head} {inner} reads two ways, as {f}({head} {inner}) and as ({f} {head})\u00b7{inner}: "
                           f"write {f}({head} {inner}) or {f}({head}) {inner}", factors[k])
            return factors, []
        argument, rest = factors[:k], factors[k:]
        if not argument:
            self.error(f"{self.shown(func)} has no argument", func)
        if rest and not _is(rest[0], *_FUNCTION_LIKE):
            f, arg, after = self.shown(func), " ".join(self.shown(a) for a in argument), self.shown(rest[0])
            self.error(f"{f} {arg} {after} reads two ways, as {f}({arg} {after}) and as ({f} {arg})\u00b7{after}: "
                       f"write {f}({arg} {after}) for the first, {after} {f} {arg} for the second", rest[0])
        return argument, rest

    def _constant_factor(self, node) -> bool:
        """A number, π or e (or a fraction or power of them): a coefficient inside a function's argument."""
        if _is(node, "number", "const"):
            return True
        if _is(node, "name"):
            return node.children[0].value == "e" and not self.scope.known("e")
        if _is(node, "frac", "sup", "sqrt"):
            return all(self._constant_factor(k) or _is(k, "group") and self._constant_group(k)
                       for k in node.children if isinstance(k, Tree))
        return False

    def _constant_group(self, node) -> bool:
        stack = [node]
        while stack:
            k = stack.pop()
            if isinstance(k, Token):
                if k.type == "NAME" and not (k.value == "e" and not self.scope.known("e")):
                    return False
            elif k is not None:
                if _is(k, "bigop", "reduce_maxmin", "norm"):
                    return False
                stack.extend(k.children)
        return True

    @staticmethod
    def _factors(node) -> list:
        out = []
        while _is(node, "imul"):
            out.append(node.children[1])
            node = node.children[0]
        out.append(node)
        out.reverse()
        return out

    # -- reductions --------------------------------------------------------------------
    def t_bigop(self, n):
        op, limits, body = n.children
        name, start, stop = self._limits(limits, op)
        return self._reduce(op.value, name, start, stop, body, op)

    def t_reduce_maxmin(self, n):
        op, _, lower, body = n.children
        name, start, stop = self._lower(lower), None, None
        if isinstance(name, tuple):
            name, start = name
        return self._reduce(op.value, name, start, stop, body, op)

    def _limits(self, limits, op):
        low, up = None, None
        kids = [k for k in limits.children if k is not None and not isinstance(k, Token)]
        for k in kids:
            if k.data == "lower":
                low = self._lower(k)
            elif k.data == "upper":
                up = k
        if low is None:
            self.error(f"\\{op.value} needs its index: \\{op.value}_{{i=1}}^{{n}}", op)
        name, start = low if isinstance(low, tuple) else (low, None)
        stop = None
        if up is not None:
            kid = [c for c in up.children if c is not None and not (isinstance(c, Token) and c.type in ("LBRACE", "RBRACE"))][0]
            stop = self.expr(kid)
        return name, start, stop

    def _lower(self, node):
        kids = node.children
        if len(kids) == 1:
            return kids[0].value
        if len(kids) == 3:
            return kids[1].value
        name, rel, start = kids[1].value, kids[2], kids[3]
        if rel.value != "==":
            self.error("an index is written i=1", rel)
        return name, self.expr(start)

    def _reduce(self, op, name, start, stop, body_node, where):
        if self.scope.known(name) or name in self.indices:
            self.error(f"the index {name} is already a name in use; pick another letter", where)
        if start is not None and start != 1:
            self.error(f"an index runs from 1 (got {start}): the sum is over the whole vector", where)
        index = sympy.Symbol(name, integer=True, positive=True)
        self.indices[name] = index
        self.index_sizes[name] = []
        try:
            body = self.expr(body_node)
        finally:
            del self.indices[name]
            sizes = self.index_sizes.pop(name)
        if not sizes:
            if stop is None:
                self.error(f"the index {name} indexes no vector: give its range (\\{op}_{{{name}=1}}^{{n}})", where)
            if stop.is_number and not (stop.is_Integer and 1 <= stop <= MAX_RANGE):
                self.error(f"the range of \\{op} is a whole number from 1 to {MAX_RANGE:,} or a dimension, got {shorten(str(stop))}", where)
            size = stop
        else:
            size = self._one_size(sizes, f"the vectors indexed by {name}", where)
            if stop is not None and sympy.simplify(stop - size) != 0:
                self.error(f"the index {name} runs to {stop}, but the vectors it indexes have size {size}: "
                           "a sum runs over the whole vector", where)
        if op == "sum":
            return sympy.Sum(body, (index, 1, size))
        if op == "prod":
            return sympy.Product(body, (index, 1, size))
        return (IndexMax if op == "max" else IndexMin)(body, index, size)

    def _one_size(self, sizes, what, where):
        distinct = {str(s): s for s, _, _ in sizes}
        if len(distinct) > 1:
            names = ", ".join(f"{v} ({s})" for s, v, _ in sizes)
            self.error(f"{what} have different sizes: {names}", where)
        return next(iter(distinct.values()))

    # -- names -------------------------------------------------------------------------
    def name(self, name: str, column: int):
        value = self._whole_name(name)
        if value is not None:
            return value
        self.error(f"{name} is used but not declared (--var){self._run_hint(column)}", column=column)

    def _run_hint(self, column) -> str:
        """How the run of letters holding an undeclared name was split, and what else it may have meant."""
        run = self.runs.get(column)
        if run is None or len(run.pieces) < 2:
            return ""
        hint = (f": {run.text} is read as {'·'.join(run.pieces)}, a product of one-letter names; "
                f"to make {run.text} one name, declare it (--var '{run.text} ...')")
        if run.text in NAMED_FUNCTIONS or run.text in ("max", "min"):
            hint += f"; the function is \\{run.text} x or {run.text}(x)"
        elif run.text == "pi":
            hint += "; the constant is \\pi"
        return hint

    def _whole_name(self, name):
        scope = self.scope
        if name in self.indices:
            return self.indices[name]
        if name in scope.scalars:
            return self._scalar(name)
        if name in scope.vectors:
            return self._bare_vector(scope.vectors[name])
        if name in scope.dims:
            self.used.add(name)
            return scope.dim_symbol(name)
        if name in scope.free:
            self.used.add(name)
            return sympy.Symbol(name, real=True)
        if name == "e":
            return sympy.E
        return None

    def _scalar(self, name):
        var = self.scope.scalars[name]
        self.used.add(var.py)
        return self.scope.symbol(var.name)

    def _bare_vector(self, var):
        if not self.implicit:
            self.error(f"{var.name} is a vector: index it ({var.name}_i inside \\sum_i, {var.name}_1) or take its norm \\|{var.name}\\|")
        index, sizes = self.implicit[-1]
        sizes.append((self.scope.size_expr(var), var.name, None))
        self.used.add(var.py)
        return self.scope.base(var)[index]


def _column(node):
    if isinstance(node, Token):
        return node.column
    meta = getattr(node, "meta", None)
    if meta is not None and not getattr(meta, "empty", True):
        return meta.column
    return None


def _start(node):
    if isinstance(node, Token):
        return node.start_pos
    meta = getattr(node, "meta", None)
    return None if meta is None or meta.empty else meta.start_pos


def _end(node):
    if isinstance(node, Token):
        return node.end_pos
    meta = getattr(node, "meta", None)
    return None if meta is None or meta.empty else meta.end_pos
