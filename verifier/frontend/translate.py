"""A parse tree to sympy, every name resolved against the declarations.

Scalars become real sympy symbols, a vector ``x`` an ``IndexedBase`` read as ``x[i]`` (``x_i``
inside ``\\sum_i``, ``x_1``, ``x_n``), a dimension an integer symbol.  ``\\sum`` and ``\\prod``
become sympy's ``Sum`` and ``Product``; ``\\max_i`` and ``\\min_i`` the unevaluated functions
:class:`IndexMax` and :class:`IndexMin`; a norm its sum or maximum.  Functions of the ``ctx``
table that sympy lacks (``sigmoid``, ``softplus``, ``log1p``, ``expm1``) are sympy functions
of those names, opaque to sympy and read back by name.

A name typed as a run of letters that is not declared (``abc``) is a product of declared
names (``a*b*c``); what is left is an error at its column: a variable used but not declared.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import sympy
from lark import Token, Tree

from .declarations import Declarations, Declared, python_name
from .errors import ExpressionError
from .grammar import parse

#: the ``ctx`` functions sympy has no class for: opaque sympy functions of the same name
OPAQUE = {name: sympy.Function(name) for name in ("sigmoid", "softplus", "log1p", "expm1")}
SYMPY_FUNCTIONS = {
    "exp": sympy.exp, "log": sympy.log, "sqrt": sympy.sqrt, "abs": sympy.Abs, "tanh": sympy.tanh,
    "sin": sympy.sin, "cos": sympy.cos, "erf": sympy.erf, "lambertw": sympy.LambertW, **OPAQUE,
}


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


def read(text: str, scope: Scope, source: str = "statement") -> Translation:
    """The relations of a chain (``0 < x \\le y`` gives two), as sympy."""
    try:
        tree = parse(text)
        return _Translator(text, scope).chain(tree.children[0])
    except ExpressionError as exc:
        raise ExpressionError(exc.message, exc.text, exc.column, source) from None


def constant_value(text: str) -> Fraction | None:
    """The exact value of a constant expression (a bound: ``1/2``, ``\\frac{1}{3}``), None if irrational."""
    tree = parse(text)
    chain = tree.children[0]
    if len(chain.children) != 1:
        raise ExpressionError("a bound is a number, not a relation", text, None)
    expr = _Translator(text, Scope(Declarations())).expr(chain.children[0])
    expr = sympy.nsimplify(expr) if expr.is_number else expr
    if not expr.is_number:
        raise ExpressionError("a bound must be a number", text, None)
    return Fraction(int(expr.p), int(expr.q)) if expr.is_Rational else None


class _Translator:
    def __init__(self, text: str, scope: Scope):
        self.text = text
        self.scope = scope
        self.used: set[str] = set()
        self.indices: dict[str, sympy.Symbol] = {}  # index name -> its symbol, while inside its reduction
        self.index_sizes: dict[str, list] = {}  # index name -> [(size expr, vector name, column)]
        self.implicit: list[tuple[sympy.Symbol, list]] = []  # norms: bare vectors take this index

    def error(self, message, node=None, column=None):
        if column is None and node is not None:
            column = _column(node)
        raise ExpressionError(message, self.text, column)

    # -- relations ---------------------------------------------------------------------
    def chain(self, node) -> Translation:
        items = node.children
        exprs = [self.expr(items[k]) for k in range(0, len(items), 2)]
        rels = [items[k] for k in range(1, len(items), 2)]
        out = []
        for k, rel in enumerate(rels):
            left, right = items[2 * k], items[2 * k + 2]
            out.append(Relation(exprs[k], rel.value, exprs[k + 1], self._span(left, right), self._span(left, left), self._span(right, right)))
        return Translation(out, self.used)

    def _span(self, left, right) -> str:
        start, end = _start(left), _end(right)
        if start is None or end is None:
            return self.text
        return self.text[start:end].strip()

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
        self.error(f"unexpected {tok.value!r}", column=tok.column)

    def t_add(self, n):
        return self.expr(n.children[0]) + self.expr(n.children[2])

    def t_sub(self, n):
        return self.expr(n.children[0]) - self.expr(n.children[2])

    def t_mul(self, n):
        return self.expr(n.children[0]) * self.expr(n.children[2])

    def t_imul(self, n):
        return self.expr(n.children[0]) * self.expr(n.children[1])

    def t_div(self, n):
        return self.expr(n.children[0]) / self.expr(n.children[2])

    def t_neg(self, n):
        return -self.expr(n.children[1])

    def t_pos(self, n):
        return self.expr(n.children[1])

    def t_pow(self, n):
        return self.expr(n.children[0]) ** self.expr(n.children[2])

    def t_number(self, n):
        return sympy.Rational(n.children[0].value)

    def t_name(self, n):
        tok = n.children[0]
        return self.name(tok.value, tok.column)

    def t_paren(self, n):
        return self.expr(n.children[1])

    def t_group(self, n):
        return self.expr(n.children[1])

    def t_arg(self, n):
        kids = n.children
        return self.expr(kids[1]) if len(kids) == 3 else self.token(kids[0])

    def t_frac(self, n):
        return self.expr(n.children[1]) / self.expr(n.children[2])

    def t_sqrt(self, n):
        _, _, degree, _, arg = n.children
        body = self.expr(arg)
        if degree is None:
            return sympy.sqrt(body)
        k = self.expr(degree)
        dims = {self.scope.dim_symbol(d) for d in self.scope.dims}
        if k.is_Integer and k >= 2:
            return body ** sympy.Rational(1, int(k))
        if k.free_symbols and k.free_symbols <= dims:
            return body ** (1 / k)
        self.error("the degree of a root is an integer >= 2 or a dimension (\\sqrt[n]{x})", degree)

    def t_abs(self, n):
        return sympy.Abs(self.expr(n.children[1]))

    def t_maxmin(self, n):
        op = n.children[0].value
        args = [self.expr(a) for a in n.children[2].children if not isinstance(a, Token)]
        return (sympy.Max if op == "max" else sympy.Min)(*args)

    def t_call(self, n):
        func, _, base, _, power, *rest = n.children
        name = func.value
        if len(rest) == 3:  # ( args )
            args = [self.expr(a) for a in rest[1].children if not isinstance(a, Token)]
        else:
            args = [self.expr(rest[0])]
        if len(args) != 1:
            self.error(f"{name} takes one argument, got {len(args)}", func)
        value = SYMPY_FUNCTIONS[name](args[0])
        if base is not None:
            if name != "log":
                self.error(f"only \\log takes a base (\\log_2 x); {name} does not", func)
            value = value / sympy.log(self.sub_value(base))
        if power is not None:
            value = value ** self.expr(power.children[0] if len(power.children) == 1 else power.children[1])
        return value

    def sub_value(self, node):
        kids = node.children
        return self.expr(kids[1]) if len(kids) == 3 else self.token(kids[0])

    def t_norm(self, n):
        _, body_node, _, _, sub = n.children
        p = "2"
        if sub is not None:
            tok = [t for t in sub.children if isinstance(t, Token) and t.type in ("NUMBER", "INFTY")][0]
            p = tok.value
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
    def t_subscripted(self, n):
        name_tok, _, sub = n.children
        sub_kids = sub.children
        if len(sub_kids) == 3:
            inner = sub_kids[1]
            if isinstance(inner, Tree) and inner.data in ("name", "number"):
                sub_text = inner.children[0].value
            elif isinstance(inner, Token):
                sub_text = inner.value
            else:
                self.error("an index is a number, a letter or a dimension (x_1, x_i, x_n); index arithmetic such as x_{i+1} is not supported", sub)
        else:
            sub_text = sub_kids[0].value
        name = name_tok.value
        whole = f"{name}_{sub_text}"
        if whole in self.scope.scalars:
            return self._scalar(whole)
        # a run of letters before the subscript: the last letter carries it (ab_1 = a * b_1)
        prefix, last = self._split_prefix(name, name_tok.column)
        var = self.scope.vectors.get(last)
        if var is None:
            if last in self.scope.scalars:
                self.error(f"{last} is a scalar, so {last}_{sub_text} means nothing; declare {whole} or make {last} a vector", name_tok)
            self.error(f"{whole} is used but not declared (--var '{whole} ...' or --var '{last}: vector n')", name_tok)
        self.used.add(var.py)
        base = self.scope.base(var)
        size = self.scope.size_expr(var)
        if sub_text in self.indices:
            self.index_sizes[sub_text].append((size, var.name, name_tok.column))
            value = base[self.indices[sub_text]]
        elif sub_text.isdigit():
            k = int(sub_text)
            smallest = var.size if isinstance(var.size, int) else self.scope.dims[var.size].lo
            if not 1 <= k <= smallest:
                self.error(f"{var.name}_{k} needs {var.name} to have at least {k} entries (its size can be {smallest})", name_tok)
            value = base[k]
        elif sub_text == var.size:
            self.used.add(sub_text)
            value = base[size]
        else:
            self.error(f"the index {sub_text} of {var.name}_{sub_text} is not a running index (\\sum_{sub_text}), a number or {var.name}'s dimension", name_tok)
        return prefix * value

    def _split_prefix(self, name, column):
        """``ab`` before a subscript: the product of ``a`` and the name that carries the subscript."""
        for cut in range(len(name)):
            last = name[cut:]
            if last in self.scope.vectors or last in self.scope.scalars or cut == len(name) - 1:
                break
        prefix = self.name(name[:cut], column) if cut else sympy.Integer(1)
        return prefix, last

    def name(self, name: str, column: int):
        value = self._whole_name(name)
        if value is not None:
            return value
        parts = self._split(name)
        if parts is None:
            if name == "pi":
                self.error("\\pi is not a number every context can hold exactly (there is no ctx constant for it)", column=column)
            # nothing of the run a declared name: the whole run; else the first letter that starts none
            k = self._first_unknown(name)
            if all(part == "e" for part in self._split(name[:k]) or []):  # "eps": a name, not e * p * s
                k = 0
            shown = name if k == 0 else name[k]
            self.error(f"{shown} is used but not declared (--var)", column=column + k)
        value = sympy.Integer(1)
        for part in parts:
            value = value * self._whole_name(part)
        return value

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

    def _split(self, name):
        """``abc`` as declared names (longest first), or None."""
        if not name:
            return []
        for j in range(len(name), 0, -1):
            head = name[:j]
            if self._whole_name_known(head):
                rest = self._split(name[j:])
                if rest is not None:
                    return [head] + rest
        return None

    def _whole_name_known(self, name):
        s = self.scope
        return name in self.indices or name in s.scalars or name in s.vectors or name in s.dims or name in s.free or name == "e"

    def _first_unknown(self, name):
        k = 0
        while k < len(name):
            for j in range(len(name), k, -1):
                if self._whole_name_known(name[k:j]):
                    k = j
                    break
            else:
                return k
        return 0


def _column(node):
    if isinstance(node, Token):
        return node.column
    meta = getattr(node, "meta", None)
    if meta is not None and not getattr(meta, "empty", True):
        return meta.column
    for child in getattr(node, "children", ()):
        if child is not None:
            col = _column(child)
            if col is not None:
                return col
    return None


def _start(node):
    if isinstance(node, Token):
        return node.start_pos
    for child in node.children:
        if child is not None:
            s = _start(child)
            if s is not None:
                return s
    return None


def _end(node):
    if isinstance(node, Token):
        return node.end_pos
    for child in reversed(node.children):
        if child is not None:
            e = _end(child)
            if e is not None:
                return e
    return None
