"""A check's formula at fixed dimensions, exported once as data: what the kernel and the decider judge.

The claim's own functions run once in :class:`FormulaContext`, on symbolic variables, and
build one graph of real-number expressions for every hypothesis margin, lhs and rhs (the
mathematics of a claim is still written once).  :class:`Formula` is that graph as plain
data -- variables, exact rational constants, the operations -- written to a small JSON
file stored next to the evidence it belongs to and pinned by its sha256 in the lock.  From
then on nothing needs the pack: :meth:`Formula.evaluate_exact` evaluates it at an exact
point (rationals where the value is rational, arb balls elsewhere), :meth:`Formula.decide`
re-checks a stored refutation, and :mod:`verifier.coq` writes the statement Coq proves from
the data alone.  A pack that patches the verifier at import changes nothing the kernel sees.

The file (``schema`` ``ml-claim-verifier/formula``, version 1)::

    {"schema": "ml-claim-verifier/formula", "schema_version": 1,
     "paper": "...", "claim": "...", "part": "...", "reading": "...",
     "statement": "...", "lhs_text": "...", "rhs_text": "...",
     "relation": "<=", "dims": {"n": 2},
     "variables": [{"name": "x", "shape": [2]}, {"name": "eps", "shape": []}],
     "nodes": [["var", "x", [0]], ["const", "1/2"], ["*", 1, 0], ["exp", 2], ...],
     "hypotheses": [{"text": "eps >= 0", "strict": false, "entries": [4]}],
     "lhs": [7], "rhs": [8]}

``nodes`` lists every node once, parts before wholes: a node is ``["var", name, index]``
(an entry of a variable, ``index`` a list of ints), ``["const", "p/q"]`` (an exact
rational), or ``[op, i, ...]`` with ``op`` one of :data:`OPERATIONS` and ``i`` the indices
of earlier nodes.  ``hypotheses`` are the margins that are ``>= 0`` (``> 0`` when strict)
where the check's hypotheses hold, entry by entry; ``lhs`` and ``rhs`` the entries of the
two sides (row-major, equal in number), compared by ``relation`` entry by entry.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Sequence

import numpy as np
import sympy
from flint import arb, fmpq

from .errors import VerifierError
from .contexts import BallContext, ObjectContext, to_fraction

FORMULA_SCHEMA = "ml-claim-verifier/formula"
FORMULA_VERSION = 1

#: the operations of a node and their number of arguments
ARITHMETIC = {"+": 2, "-": 2, "*": 2, "/": 2, "neg": 1}
PIECEWISE = {"abs": 1, "max": 2, "min": 2}
#: unary functions of Coq's Reals library that the Interval tactic evaluates, by their Coq names
FUNCTIONS = ("exp", "ln", "sqrt", "sin", "cos", "tan", "atan")
OPERATIONS = {**ARITHMETIC, **PIECEWISE, **{f: 1 for f in FUNCTIONS}}
RELATIONS = ("<=", "<", ">=", ">", "==")
#: the ctx API's names of the functions, as the claim calls them
_CONTEXT_NAMES = {"exp": "exp", "log": "ln", "sqrt": "sqrt", "sin": "sin", "cos": "cos", "tan": "tan", "atan": "atan"}

#: limits on a formula read from disk (a file is untrusted input)
MAX_NODES = 200_000
MAX_CONSTANT_DIGITS = 4_000


class NotExportable(VerifierError):
    """The formula cannot be written as data (a function Coq's reals lack, a branch in Python, a
    float constant); the message says why."""


class FormulaFileError(VerifierError, ValueError):
    """A stored formula that is malformed; names the field."""

    def __init__(self, where: str, message: str):
        self.where, self.message = where, message
        super().__init__(f"{where}: {message}" if where else message)


# ---------------------------------------------------------------------------- terms
class Term:
    """One node of a real-number expression, shared wherever numpy reuses it.

    ``exact`` is the node's rational value where it has one: at a point, every operation of
    + - * / abs max min on rationals (and exp 0, ln 1, sqrt of a square); on symbolic
    variables, only constant subterms.  ``ref`` is a variable entry's (name, index).
    """

    __slots__ = ("op", "args", "exact", "ref", "__weakref__")

    def __init__(self, op: str, args: tuple = (), exact: Fraction | None = None, ref: tuple | None = None):
        self.op = op  # const | var | id | an OPERATIONS key
        self.args = args
        self.exact = exact
        self.ref = ref

    # -- arithmetic through numpy's object arrays ---------------------------------------
    def __add__(self, other):
        return binary("+", self, other)

    def __radd__(self, other):
        return binary("+", other, self)

    def __sub__(self, other):
        return binary("-", self, other)

    def __rsub__(self, other):
        return binary("-", other, self)

    def __mul__(self, other):
        return binary("*", self, other)

    def __rmul__(self, other):
        return binary("*", other, self)

    def __truediv__(self, other):
        return binary("/", self, other)

    def __rtruediv__(self, other):
        return binary("/", other, self)

    def __neg__(self):
        return Term("neg", (self,), None if self.exact is None else -self.exact)

    def __pos__(self):
        return self

    def __abs__(self):
        return Term("abs", (self,), None if self.exact is None else abs(self.exact))

    def __pow__(self, exponent):
        if isinstance(exponent, Term) and exponent.op == "const" and exponent.exact.denominator == 1:
            exponent = int(exponent.exact)
        if not isinstance(exponent, (int, np.integer)) or isinstance(exponent, bool) or abs(int(exponent)) > 64:
            raise NotExportable(f"not exportable: power with exponent {exponent!r} (only integer exponents up to 64)")
        n = int(exponent)
        out = lift(1)
        for _ in range(abs(n)):
            out = out * self
        return 1 / out if n < 0 else out

    def _refuse(self, *_):
        # a claim that branches on a value would give the kernel a different formula than it states
        raise NotExportable("not exportable: the claim compares values in Python (a branch the formula cannot hold)")

    __lt__ = __le__ = __gt__ = __ge__ = __bool__ = __float__ = _refuse

    def __eq__(self, other):
        return self is other

    __hash__ = object.__hash__

    def __repr__(self):
        return f"Term({self.op}, exact={self.exact})"


def lift(value: Any) -> Term:
    """A term for a claim's constant (an int, a Fraction, an fmpq); floats are refused as inexact."""
    if isinstance(value, Term):
        return value
    if isinstance(value, (float, np.floating)):
        raise NotExportable(f"not exportable: a float constant {value!r} in the claim (write it as an exact rational)")
    try:
        return Term("const", (), to_fraction(value))
    except (TypeError, ValueError):
        raise NotExportable(f"not exportable: a constant of type {type(value).__name__}") from None


def _exact_result(op, a: Fraction, b: Fraction) -> Fraction:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if b == 0:
        raise ZeroDivisionError("division by an exact zero")
    return a / b


def binary(op, x, y) -> Term:
    """``x op y`` for op in + - * /, the value exact where both are (or a factor is an exact zero)."""
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        return NotImplemented  # numpy applies the operation entrywise, then calls back per entry
    x, y = lift(x), lift(y)
    # x + 0, x * 1 and friends: numpy's reductions start from them; the value is the same
    if op in "+-" and y.op == "const" and y.exact == 0:
        return x
    if op == "+" and x.op == "const" and x.exact == 0:
        return y
    if op in "*/" and y.op == "const" and y.exact == 1:
        return x
    if op == "*" and x.op == "const" and x.exact == 1:
        return y
    if op == "/" and y.op == "abs" and y.args[0] is x:  # x / |x|: the sign, 0 at 0 as in Coq's reals (Rinv 0 = 0)
        return Term(op, (x, y), None if x.exact is None else Fraction((x.exact > 0) - (x.exact < 0)))
    exact = None if x.exact is None or y.exact is None else _exact_result(op, x.exact, y.exact)
    if exact is None and (x.exact == 0 and op in "*/" or y.exact == 0 and op == "*"):
        exact = Fraction(0)  # a product with an exact zero is zero whatever the other factor (Coq: 0 / x = 0 too)
    if op == "/" and y.exact == 0:
        raise ZeroDivisionError("division by an exact zero")
    return Term(op, (x, y), exact)


def order(op: str, a, b) -> Term:
    """``max``/``min`` of two terms."""
    a, b = lift(a), lift(b)
    exact = None if a.exact is None or b.exact is None else (max if op == "max" else min)(a.exact, b.exact)
    return Term(op, (a, b), exact)


def rational_value(function: str, q: Fraction | None) -> Fraction | None:
    """The exact value where a function is rational at a rational point: exp(0), ln(1), sqrt(p^2/q^2)."""
    if q is None:
        return None
    if function == "exp" and q == 0 or function == "ln" and q == 1:
        return Fraction(1 - q)
    if function == "sqrt" and q >= 0:
        p, r = math.isqrt(q.numerator), math.isqrt(q.denominator)
        if p * p == q.numerator and r * r == q.denominator:
            return Fraction(p, r)
    return None


def apply_function(name: str, a) -> Term:
    a = lift(a)
    return Term(name, (a,), rational_value(name, a.exact))


def build(op: str, args: Sequence[Term]) -> Term:
    """The term ``op(args)``, built as the claim's own operations build it."""
    if op in ("+", "-", "*", "/"):
        out = binary(op, *args)
    elif op == "neg":
        out = -args[0]
    elif op == "abs":
        out = abs(args[0])
    elif op in ("max", "min"):
        out = order(op, *args)
    else:
        out = apply_function(op, args[0])
    return out


def _sign(a) -> Term:
    t = lift(a)
    return t / abs(t)


class FormulaContext(ObjectContext):
    """Builds :class:`Term` graphs: the claim's own functions on symbolic variables (or on an exact point)."""

    name = "formula"
    rigorous = True

    def scalar(self, value):
        return lift(Fraction(value))

    def lift_value(self, v):
        return lift(v)

    def symbols(self, variables: Mapping[str, tuple[int, ...]]) -> dict:
        """Every variable as an object array (batch axis first) of symbolic entries."""
        out = {}
        for name, shape in variables.items():
            terms = np.empty((1,) + tuple(shape), dtype=object)
            for idx in np.ndindex(*shape):
                terms[(0,) + idx] = Term("var", (), None, (name, tuple(idx)))
            out[name] = terms
        return out

    def convert(self, data: dict) -> dict:
        """A point's variables (batch axis first) as entries that know their exact values."""
        out = {}
        for name, arr in data.items():
            arr = np.asarray(arr, dtype=object)
            terms = np.empty(arr.shape, dtype=object)
            for idx in np.ndindex(*arr.shape):
                terms[idx] = Term("var", (), to_fraction(arr[idx]), (name, tuple(idx[1:])))
            out[name] = terms
        return out

    @staticmethod
    def max2(a, b):
        return order("max", a, b)

    @staticmethod
    def min2(a, b):
        return order("min", a, b)

    def abs(self, x):
        return self._elementwise(lambda a: abs(lift(a)), x)

    def _named(self, name):
        coq = _CONTEXT_NAMES[name]
        return lambda x: self._elementwise(lambda a: apply_function(coq, a), x)

    def exp(self, x):
        return self._named("exp")(x)

    def log(self, x):
        return self._named("log")(x)

    def sqrt(self, x):
        return self._named("sqrt")(x)

    def sin(self, x):
        return self._named("sin")(x)

    def cos(self, x):
        return self._named("cos")(x)

    def tan(self, x):
        return self._named("tan")(x)

    def atan(self, x):
        return self._named("atan")(x)

    def sign(self, x):
        # x / |x| is the sign in Coq's reals, at 0 too (Rinv 0 = 0, RIneq.Rinv_0): the formula is
        # the claim's, and its value is known wherever x's is
        return self._elementwise(_sign, x)

    def constant_value(self, name):
        # ctx.pi: Coq's reals have PI, but no node writes it yet; the exporter names what it lacks
        raise NotExportable(f"not exportable to Coq: the constant {name}")

    # the functions below are written through the ones above, so the formula is the same
    def tanh(self, x):
        e = self.exp(2 * x)
        return (e - 1) / (e + 1)

    def sigmoid(self, x):
        return 1 / (1 + self.exp(-x))

    def softplus(self, x):
        return self.log(1 + self.exp(x))

    def log1p(self, x):
        return self.log(1 + x)

    def expm1(self, x):
        return self.exp(x) - 1

    def power(self, x, y):
        return np.frompyfunc(lambda a, b: lift(a) ** b, 2, 1)(x, y)

    def erf(self, x, *args, **kw):
        return self._not_exportable("erf")(x)

    def lambertw(self, x, *args, **kw):
        return self._not_exportable("lambertw")(x)

    def _not_exportable(self, fn):
        def raise_(*_args, **_kw):
            raise NotExportable(f"not exportable: {fn} (no counterpart in Coq's reals or Interval)")

        return raise_


def _entries(value) -> list[Term]:
    arr = np.asarray(value, dtype=object)
    if arr.ndim == 0:
        return [lift(arr[()])]
    return [lift(x) for x in arr.reshape(arr.shape[0], -1)[0]]


# ---------------------------------------------------------------------------- the data
@dataclass(frozen=True)
class FormulaHypothesis:
    text: str
    strict: bool
    entries: tuple[int, ...]  # node indices


@dataclass(frozen=True)
class Formula:
    """A check's formula at fixed dims as data (see the module docstring for the file)."""

    paper: str
    claim: str
    part: str
    reading: str
    relation: str
    dims: Mapping[str, int]
    variables: tuple[tuple[str, tuple[int, ...]], ...]
    nodes: tuple[tuple, ...]  # ("var", name, index) | ("const", Fraction) | (op, i, ...)
    hypotheses: tuple[FormulaHypothesis, ...]
    lhs: tuple[int, ...]
    rhs: tuple[int, ...]
    statement: str = ""
    lhs_text: str = "lhs"
    rhs_text: str = "rhs"

    @property
    def strict(self) -> bool:
        return self.relation in ("<", ">")

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.claim, self.part, self.reading)

    # -- to and from terms -----------------------------------------------------------------
    @classmethod
    def from_terms(cls, description: Mapping[str, Any], variables, hypotheses, lhs: list[Term], rhs: list[Term]) -> "Formula":
        """The data of a term graph, every node once (structurally equal nodes merged), parts before wholes."""
        nodes: list[tuple] = []
        index: dict[int, int] = {}
        merged: dict[tuple, int] = {}

        def visit(root: Term) -> int:
            stack = [(root, False)]
            while stack:
                t, expanded = stack.pop()
                if id(t) in index:
                    continue
                if t.op == "id":
                    if expanded:
                        index[id(t)] = index[id(t.args[0])]
                    else:
                        stack += [(t, True), (t.args[0], False)]
                    continue
                if not expanded and t.args:
                    stack.append((t, True))
                    stack.extend((a, False) for a in reversed(t.args))
                    continue
                if t.op == "const":
                    node = ("const", t.exact)
                elif t.op == "var":
                    node = ("var", t.ref[0], tuple(t.ref[1]))
                else:
                    node = (t.op, *(index[id(a)] for a in t.args))
                if node not in merged:
                    merged[node] = len(nodes)
                    nodes.append(node)
                index[id(t)] = merged[node]
            return index[id(root)]

        hyps = tuple(FormulaHypothesis(h.text, bool(h.strict), tuple(visit(t) for t in terms)) for h, terms in hypotheses)
        lhs_ids, rhs_ids = tuple(visit(t) for t in lhs), tuple(visit(t) for t in rhs)
        return cls(paper=description.get("paper", ""), claim=description["claim"], part=description["part"],
                   reading=description["reading"], relation=description["relation"], dims=dict(description["dims"]),
                   variables=tuple((n, tuple(s)) for n, s in variables), nodes=tuple(nodes), hypotheses=hyps,
                   lhs=lhs_ids, rhs=rhs_ids, statement=description.get("statement", ""),
                   lhs_text=description.get("lhs_text", "lhs"), rhs_text=description.get("rhs_text", "rhs"))

    def terms(self, point: Mapping[str, Any] | None = None) -> "FormulaTerms":
        """The graph as :class:`Term` objects: symbolic variables, or at an exact ``point`` (then
        every node knows its rational value where it has one).  A division by an exact zero at the
        point raises ``ZeroDivisionError``."""
        values = None if point is None else self._point(point)
        built: list[Term] = []
        for node in self.nodes:
            op = node[0]
            if op == "const":
                built.append(Term("const", (), node[1]))
            elif op == "var":
                exact = None if values is None else values[node[1]][node[2]]
                built.append(Term("var", (), exact, (node[1], node[2])))
            else:
                built.append(build(op, [built[i] for i in node[1:]]))
        hyps = tuple((h, tuple(built[i] for i in h.entries)) for h in self.hypotheses)
        return FormulaTerms(self, hyps, tuple(built[i] for i in self.lhs), tuple(built[i] for i in self.rhs), built)

    def _point(self, point: Mapping[str, Any]) -> dict:
        """``point`` as {name: {index: Fraction}}, every variable of the formula with its shape."""
        out = {}
        for name, shape in self.variables:
            if name not in point:
                raise ValueError(f"the point has no value for variable {name!r}")
            arr = np.asarray(point[name], dtype=object)
            if arr.shape == (1,) + shape:  # a batch axis of one, as stored counterexamples are loaded
                arr = arr.reshape(shape)
            if arr.shape != shape:
                raise ValueError(f"variable {name!r} has shape {list(arr.shape)}, the formula {list(shape)}")
            out[name] = {idx: to_fraction(arr[idx]) for idx in np.ndindex(*shape)}
        extra = set(point) - {n for n, _ in self.variables}
        if extra:
            raise ValueError(f"the point has a variable the formula does not: {sorted(extra)[0]!r}")
        return out

    # -- evaluation ------------------------------------------------------------------------
    def evaluate_exact(self, point: Mapping[str, Any], prec: int = 256) -> "FormulaValues":
        """Every hypothesis margin, lhs and rhs entry at ``point``: an exact ``fmpq`` where the value is
        rational, else an ``arb`` ball at ``prec`` bits (``None`` where the point is outside a
        function's domain or divides by zero)."""
        try:
            ft = self.terms(point)
        except ZeroDivisionError:
            return FormulaValues((), (), (), undefined="the formula divides by an exact zero at this point")
        with BallContext(prec).precision():
            cache: dict = {}

            def value(t: Term):
                if t.exact is not None:
                    return fmpq(t.exact.numerator, t.exact.denominator)
                ball = tight_ball(t, cache)
                return ball if ball.is_finite() else None

            return FormulaValues(tuple((h, tuple(value(t) for t in ts)) for h, ts in ft.hypotheses),
                                 tuple(value(t) for t in ft.lhs), tuple(value(t) for t in ft.rhs))

    def decide(self, point: Mapping[str, Any], precisions: Sequence[int] = (256, 1024, 4096)) -> "Decision":
        """Whether ``point`` refutes the formula, from the data alone: ``refutes`` (every hypothesis
        certainly holds and the conclusion certainly fails at an entry), ``holds`` (a hypothesis
        certainly fails, or the conclusion certainly holds at every entry: the refutation is false),
        or ``undecided`` (balls too wide at every precision tried), with the reason."""
        try:
            ft = self.terms(point)
        except ZeroDivisionError:
            return Decision(HOLDS, "the formula divides by an exact zero at this point (outside the claim)")
        last = Decision(UNDECIDED, "no precision tried")
        for prec in precisions:
            with BallContext(prec).precision():
                last = ft.decide()
            if last.status != UNDECIDED:
                return last
        return last

    # -- the file ----------------------------------------------------------------------------
    def to_document(self) -> dict:
        return {
            "schema": FORMULA_SCHEMA, "schema_version": FORMULA_VERSION,
            "paper": self.paper, "claim": self.claim, "part": self.part, "reading": self.reading,
            "statement": self.statement, "lhs_text": self.lhs_text, "rhs_text": self.rhs_text,
            "relation": self.relation, "dims": dict(self.dims),
            "variables": [{"name": n, "shape": list(s)} for n, s in self.variables],
            "nodes": [_node_document(n) for n in self.nodes],
            "hypotheses": [{"text": h.text, "strict": h.strict, "entries": list(h.entries)} for h in self.hypotheses],
            "lhs": list(self.lhs), "rhs": list(self.rhs),
        }

    def to_json(self) -> str:
        """The file's text: one node per line, so a diff of two formulas shows the nodes that moved."""
        doc = self.to_document()
        nodes = doc.pop("nodes")
        head = json.dumps(doc, ensure_ascii=False, indent=1)[:-2]
        lines = ",\n".join("  " + json.dumps(n, ensure_ascii=False, separators=(",", ":")) for n in nodes)
        return f'{head},\n "nodes": [\n{lines}\n ]\n}}\n'

    @classmethod
    def from_json(cls, text: str) -> "Formula":
        try:
            doc = json.loads(text, object_pairs_hook=refuse_duplicate_keys, parse_constant=_refuse_constant)
        except ValueError as exc:
            raise FormulaFileError("", f"not JSON: {exc}") from None
        return cls.from_document(doc)

    @classmethod
    def from_document(cls, doc: Any) -> "Formula":
        if not isinstance(doc, dict):
            raise FormulaFileError("", "must be a JSON object")
        if doc.get("schema") != FORMULA_SCHEMA:
            raise FormulaFileError("schema", f"expected {FORMULA_SCHEMA!r}, got {doc.get('schema')!r}")
        if doc.get("schema_version") != FORMULA_VERSION:
            raise FormulaFileError("schema_version", f"this tool reads version {FORMULA_VERSION}, the file has {doc.get('schema_version')!r}")
        for key in ("paper", "claim", "part", "reading", "statement", "lhs_text", "rhs_text"):
            if not isinstance(doc.get(key, ""), str):
                raise FormulaFileError(key, "must be a string")
        if doc.get("relation") not in RELATIONS:
            raise FormulaFileError("relation", f"must be one of {', '.join(RELATIONS)}")
        dims = doc.get("dims")
        if not isinstance(dims, dict) or not all(isinstance(k, str) and _is_count(v, 1) for k, v in dims.items()):
            raise FormulaFileError("dims", "must map each dimension to a positive integer")
        variables = _variables(doc.get("variables"))
        nodes = _nodes(doc.get("nodes"), dict(variables))
        count = len(nodes)
        hyps = []
        raw_hyps = doc.get("hypotheses")
        if not isinstance(raw_hyps, list):
            raise FormulaFileError("hypotheses", "must be a list")
        for k, h in enumerate(raw_hyps):
            where = f"hypotheses[{k}]"
            if not isinstance(h, dict) or not isinstance(h.get("text"), str) or not isinstance(h.get("strict"), bool):
                raise FormulaFileError(where, "must be an object with text (a string), strict (true or false) and entries")
            hyps.append(FormulaHypothesis(h["text"], h["strict"], _indices(h.get("entries"), count, f"{where}.entries")))
        lhs, rhs = _indices(doc.get("lhs"), count, "lhs"), _indices(doc.get("rhs"), count, "rhs")
        if not lhs or len(lhs) != len(rhs):
            raise FormulaFileError("rhs", f"lhs and rhs must list the same positive number of entries ({len(lhs)} and {len(rhs)})")
        return cls(paper=doc.get("paper", ""), claim=doc.get("claim", ""), part=doc.get("part", ""), reading=doc.get("reading", ""),
                   relation=doc["relation"], dims=dict(dims), variables=variables, nodes=nodes, hypotheses=tuple(hyps),
                   lhs=lhs, rhs=rhs, statement=doc.get("statement", ""), lhs_text=doc.get("lhs_text", "lhs"),
                   rhs_text=doc.get("rhs_text", "rhs"))


def _node_document(node: tuple) -> list:
    if node[0] == "const":
        return ["const", str(node[1])]
    if node[0] == "var":
        return ["var", node[1], list(node[2])]
    return list(node)


def _is_count(v, lo: int) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and lo <= v


def refuse_duplicate_keys(pairs):
    """``object_pairs_hook`` for json.loads: a key twice in one object is refused (the last would win silently)."""
    out = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"duplicate key {k!r}")
        out[k] = v
    return out


def _refuse_constant(name):
    raise ValueError(f"non-finite number {name}")


_RATIONAL = re.compile(r"-?[0-9]{1,%d}(/[0-9]{1,%d})?" % (MAX_CONSTANT_DIGITS, MAX_CONSTANT_DIGITS))  # ASCII digits only


def _variables(raw) -> tuple[tuple[str, tuple[int, ...]], ...]:
    if not isinstance(raw, list):
        raise FormulaFileError("variables", "must be a list")
    out, seen = [], set()
    for k, v in enumerate(raw):
        if (not isinstance(v, dict) or not isinstance(v.get("name"), str) or not v["name"].isidentifier()
                or not isinstance(v.get("shape"), list) or not all(_is_count(s, 1) for s in v["shape"])):
            raise FormulaFileError(f"variables[{k}]", "must be {\"name\": an identifier, \"shape\": a list of positive integers}")
        if v["name"] in seen:
            raise FormulaFileError(f"variables[{k}]", f"variable {v['name']!r} is listed twice")
        seen.add(v["name"])
        out.append((v["name"], tuple(v["shape"])))
    return tuple(out)


def _nodes(raw, shapes: dict) -> tuple[tuple, ...]:
    if not isinstance(raw, list) or len(raw) > MAX_NODES:
        raise FormulaFileError("nodes", f"must be a list of at most {MAX_NODES:,} nodes")
    out = []
    for k, n in enumerate(raw):
        where = f"nodes[{k}]"
        if not isinstance(n, list) or not n or not isinstance(n[0], str):
            raise FormulaFileError(where, "must be a list starting with an operation")
        op = n[0]
        if op == "const":
            if len(n) != 2 or not isinstance(n[1], str) or not _RATIONAL.fullmatch(n[1]):
                raise FormulaFileError(where, "a constant is [\"const\", \"p/q\"] with p, q integers in ASCII digits")
            value = Fraction(n[1])  # a zero denominator raises below
            out.append(("const", value))
        elif op == "var":
            if (len(n) != 3 or n[1] not in shapes or not isinstance(n[2], list) or len(n[2]) != len(shapes[n[1]])
                    or not all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < s for i, s in zip(n[2], shapes[n[1]]))):
                raise FormulaFileError(where, "a variable entry is [\"var\", name, index] with a listed name and an index inside its shape")
            out.append(("var", n[1], tuple(n[2])))
        elif op in OPERATIONS:
            if len(n) != 1 + OPERATIONS[op] or not all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < k for i in n[1:]):
                raise FormulaFileError(where, f"{op} takes {OPERATIONS[op]} argument(s), each the index of an earlier node")
            out.append(tuple(n))
        else:
            raise FormulaFileError(where, f"unknown operation {op!r}")
    return tuple(out)


def _indices(raw, count: int, where: str) -> tuple[int, ...]:
    if not isinstance(raw, list) or not all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < count for i in raw):
        raise FormulaFileError(where, f"must be a list of node indices (0 to {count - 1})")
    return tuple(raw)


# ---------------------------------------------------------------------------- export
def export_formula(check, dims: Mapping[str, int]) -> Formula:
    """The formula of ``check`` at ``dims``: its own functions run once on symbolic variables.

    Raises :class:`NotExportable` naming why (a function Coq's reals lack, a comparison in
    Python, a float constant, sides of different sizes)."""
    ctx = FormulaContext()
    shapes = {var.name: var.concrete_shape(dims) for var in check.variables}
    v = check.values(ctx.symbols(shapes), dims)
    try:
        with ctx.precision():
            hypotheses = [(h, _entries(h.margin(ctx, v))) for h in check.hypotheses]
            lhs, rhs = _entries(check.part.lhs(ctx, v)), _entries(check.part.rhs(ctx, v))
    except NotExportable:
        raise
    except ZeroDivisionError:
        raise NotExportable("not exportable: the claim divides by an exact zero") from None
    except (NotImplementedError, AttributeError, ArithmeticError, TypeError) as exc:
        # a function other contexts offer and the formula lacks is named, never approximated
        raise NotExportable(f"not exportable: a function the formula context lacks ({exc or type(exc).__name__})") from None
    if len(lhs) != len(rhs):
        lhs, rhs = (lhs * len(rhs), rhs) if len(lhs) == 1 else (lhs, rhs * len(lhs))
    if len(lhs) != len(rhs):
        raise NotExportable(f"not exportable: lhs has {len(lhs)} entries, rhs {len(rhs)}")
    claim, part = check.claim, check.part
    description = dict(paper=claim.paper, claim=claim.id, part=part.name, reading=check.reading.name, relation=part.relation,
                       dims=dict(dims), statement=part.statement or claim.statement, lhs_text=part.lhs_text, rhs_text=part.rhs_text)
    return Formula.from_terms(description, shapes.items(), hypotheses, lhs, rhs)


# ---------------------------------------------------------------------------- balls and decisions
REFUTES = "refutes"
HOLDS = "holds"
UNDECIDED = "undecided"


@dataclass(frozen=True)
class Decision:
    """What the formula says of a point: ``status`` (refutes | holds | undecided), the failing
    ``entry`` and how the conclusion fails (``kind``: lt = rhs < lhs, gt = lhs < rhs, eq, ne)."""

    status: str
    detail: str = ""
    entry: int | None = None
    kind: str = ""


@dataclass(frozen=True)
class FormulaValues:
    hypotheses: tuple
    lhs: tuple
    rhs: tuple
    undefined: str = ""


def arb_of(q: Fraction) -> arb:
    return arb(fmpq(q.numerator, q.denominator))


def apply_ball(op: str, args: list[arb]) -> arb:
    """``op`` on balls; max and min as Interval sees them (through abs)."""
    if op == "+":
        return args[0] + args[1]
    if op == "-":
        return args[0] - args[1]
    if op == "*":
        return args[0] * args[1]
    if op == "/":
        return args[0] / args[1]
    if op == "neg":
        return -args[0]
    if op == "abs":
        return abs(args[0])
    if op == "id":
        return args[0]
    if op in ("max", "min"):
        a, b = args
        spread = abs(a - b)
        return (a + b + spread) / 2 if op == "max" else (a + b - spread) / 2
    fn = {"exp": arb.exp, "ln": arb.log, "sqrt": arb.sqrt, "sin": arb.sin, "cos": arb.cos, "tan": arb.tan, "atan": arb.atan}
    return fn[op](args[0])


def tight_ball(t: Term, cache: dict) -> arb:
    """An enclosure of ``t`` at the ambient precision (max/min from endpoints)."""
    key = id(t)
    out = cache.get(key)
    if out is None:
        stack = [t]
        while stack:  # iteratively, so a deep graph does not exhaust Python's recursion
            u = stack[-1]
            if id(u) in cache:
                stack.pop()
                continue
            missing = [a for a in u.args if id(a) not in cache and a.exact is None]
            if u.exact is None and missing:
                stack.extend(missing)
                continue
            stack.pop()
            if u.exact is not None:
                cache[id(u)] = arb_of(u.exact)
                continue
            args = [cache[id(a)] if id(a) in cache else arb_of(a.exact) for a in u.args]
            if u.op in ("max", "min"):
                cache[id(u)] = (BallContext.max2 if u.op == "max" else BallContext.min2)(*args)
            elif u.op == "sqrt" and args[0].lower() < 0 <= args[0].upper():
                cache[id(u)] = arb("nan")  # straddles sqrt's edge: undefined for all we know
            else:
                cache[id(u)] = apply_ball(u.op, args)
        out = cache[key]
    return out


def certainly_below(lhs: Term, rhs: Term, cache: dict) -> bool:
    """Whether ``lhs < rhs`` is certain (exactly, or by disjoint enclosures)."""
    if lhs.exact is not None and rhs.exact is not None:
        return lhs.exact < rhs.exact
    gap = tight_ball(rhs, cache) - tight_ball(lhs, cache)
    return bool(gap.is_finite() and gap.lower() > 0)


def _certainly_at_least(t: Term, strict: bool, cache: dict) -> bool | None:
    """True when ``t >= 0`` (``> 0``) certainly, False when it certainly fails, None when unknown."""
    if t.exact is not None:
        return t.exact > 0 or (not strict and t.exact == 0)
    ball = tight_ball(t, cache)
    if not ball.is_finite():
        return None
    if ball.lower() > 0:
        return True
    if ball.upper() < 0 or (strict and ball.upper() <= 0):
        return False
    return None


@dataclass(frozen=True)
class FormulaTerms:
    """A formula's graph as terms (symbolic or at a point)."""

    formula: Formula
    hypotheses: tuple  # ((FormulaHypothesis, (Term, ...)), ...)
    lhs: tuple
    rhs: tuple
    nodes: list

    def decide(self) -> Decision:
        """:meth:`Formula.decide` at the ambient ball precision."""
        cache: dict = {}
        unsure = []
        for k, (h, terms) in enumerate(self.hypotheses, 1):
            for t in terms:
                holds = _certainly_at_least(t, h.strict, cache)
                if holds is False:
                    return Decision(HOLDS, f"hypothesis {k} ({h.text}) fails at this point: the point is outside the claim")
                if holds is None:
                    unsure.append(f"hypothesis {k} ({h.text})")
        kind, entry, why = failing_entry(self.formula.relation, list(self.lhs), list(self.rhs), cache)
        if kind == HOLDS:
            return Decision(HOLDS, why)
        if kind == UNDECIDED:
            return Decision(UNDECIDED, why)
        if unsure:
            return Decision(UNDECIDED, f"{', '.join(unsure)} not certainly satisfied at this precision")
        return Decision(REFUTES, why, entry, kind)


def failing_entry(relation: str, lhs: list[Term], rhs: list[Term], cache: dict) -> tuple[str, int | None, str]:
    """How the conclusion fails and where: (lt | gt | eq | ne, entry, how), or (holds | undecided, None, why)."""
    entries = range(len(lhs))
    if relation in ("<=", "<"):
        for i in entries:
            if certainly_below(rhs[i], lhs[i], cache):
                return "lt", i, f"entry {i}: rhs < lhs"
        holds = all(certainly_below(lhs[i], rhs[i], cache) or (not relation == "<" and _same_value(lhs[i], rhs[i]))
                    for i in entries)
    elif relation in (">=", ">"):
        for i in entries:
            if certainly_below(lhs[i], rhs[i], cache):
                return "gt", i, f"entry {i}: lhs < rhs"
        holds = all(certainly_below(rhs[i], lhs[i], cache) or (not relation == ">" and _same_value(lhs[i], rhs[i]))
                    for i in entries)
    else:
        for i in entries:
            if certainly_below(lhs[i], rhs[i], cache) or certainly_below(rhs[i], lhs[i], cache):
                return "ne", i, f"entry {i}: lhs <> rhs"
        if all(_same_value(lhs[i], rhs[i]) or equal_by_rewriting(lhs[i], rhs[i], cache) for i in entries):
            return HOLDS, None, "lhs = rhs at every entry: the conclusion holds at this point"
        return UNDECIDED, None, "the enclosures do not separate lhs and rhs at this point"
    if holds:
        return HOLDS, None, "the conclusion holds at every entry at this point"
    if relation in ("<", ">"):
        why = ""
        for i in entries:
            if _same_value(lhs[i], rhs[i]):
                return "eq", i, f"entry {i}: lhs = rhs (exactly)"
        for i in entries:
            try:
                if equal_by_rewriting(lhs[i], rhs[i], cache):
                    return "eq", i, f"entry {i}: lhs = rhs (rewriting)"
            except NotExportable as exc:
                why = f": {exc}"
        return UNDECIDED, None, (f"a strict claim whose sides the enclosures do not separate; the equality is not shown "
                                 f"by rewriting{why}")
    return UNDECIDED, None, "the enclosures do not separate lhs and rhs at this point"


def _same_value(a: Term, b: Term) -> bool:
    return a is b or (a.exact is not None and a.exact == b.exact)


# ---------------------------------------------------------------------- equality by rewriting
def exp_unit(terms) -> int:
    """D with every exp of a rational argument q written exp(1/D)^(qD): the lcm of the denominators."""
    out = 1
    for t in terms:
        if t.op == "exp" and t.exact is None and t.args[0].exact is not None:
            out = math.lcm(out, t.args[0].exact.denominator)
    return out


class Atomiser:
    """A term as a rational function of *atoms*: ``exp(1/D)`` (every exp of a rational point is a
    power of it) and each other function at a rational point (``ln 2``, ``sqrt 3``: opaque).
    Abs, max and min of irrational values are resolved by their arguments' certain signs."""

    def __init__(self, unit: int, cache: dict):
        self.unit, self.cache = unit, cache
        self.base = sympy.Symbol("base", positive=True)
        self.atoms: dict = {}
        self.memo: dict = {}

    def sign(self, t: Term) -> int:
        if t.exact is not None:
            return (t.exact > 0) - (t.exact < 0)
        ball = tight_ball(t, self.cache)
        if ball > 0:
            return 1
        if ball < 0:
            return -1
        raise NotExportable(f"the sign of an argument of abs/max/min is not certain ({ball})")

    def chosen(self, t: Term) -> Term:
        """What abs/max/min of irrational values is here: the argument or its negation, or one side."""
        if t.op == "abs":
            return t.args[0] if self.sign(t.args[0]) > 0 else Term("neg", t.args)
        a, b = t.args
        larger = self.sign(Term("-", (a, b))) > 0
        return a if larger == (t.op == "max") else b

    def sympy(self, t: Term):
        key = id(t)
        if key in self.memo:
            return self.memo[key]
        if t.exact is not None:
            out = sympy.Rational(t.exact.numerator, t.exact.denominator)
        elif t.op in PIECEWISE:
            out = self.sympy(self.chosen(t))
        elif t.op in ARITHMETIC or t.op == "id":
            args = [self.sympy(a) for a in t.args]
            out = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": lambda a, b: a / b,
                   "neg": lambda a: -a, "id": lambda a: a}[t.op](*args)
        elif t.args and t.args[0].exact is not None:
            q = t.args[0].exact
            if t.op == "exp":
                out = self.base ** int(q * self.unit)
            else:
                out = self.atoms.setdefault((t.op, q), sympy.Symbol(f"atom{len(self.atoms)}", real=True))
        else:
            raise NotExportable(f"{t.op} of an irrational argument")
        self.memo[key] = out
        return out


def equal_by_rewriting(lhs: Term, rhs: Term, cache: dict) -> bool:
    """Whether lhs = rhs as rational functions of the atoms (``exp(1/D)``, ``ln 2``, ...): then
    Coq's ``field`` proves it once every node is rewritten to that form."""
    if lhs.exact is not None and rhs.exact is not None:
        return lhs.exact == rhs.exact
    atomiser = Atomiser(exp_unit(topological([lhs, rhs])[0]), cache)
    return sympy.cancel(atomiser.sympy(lhs) - atomiser.sympy(rhs)) == 0


def topological(roots: Sequence[Term]) -> tuple[list[Term], dict[int, int]]:
    """Every node below ``roots``, parts before wholes, and how many times each is used."""
    out: list[Term] = []
    uses: dict[int, int] = {}
    seen: set[int] = set()
    for root in roots:
        stack = [(root, False)]
        while stack:
            t, expanded = stack.pop()
            if expanded:
                out.append(t)
                continue
            if id(t) in seen:
                continue
            seen.add(id(t))
            stack.append((t, True))
            for a in t.args:
                uses[id(a)] = uses.get(id(a), 0) + 1
                stack.append((a, False))
    return out, uses


__all__ = ["ARITHMETIC", "Atomiser", "Decision", "FORMULA_SCHEMA", "FORMULA_VERSION", "FUNCTIONS", "Formula", "FormulaContext",
           "FormulaFileError", "FormulaHypothesis", "FormulaTerms", "FormulaValues", "HOLDS", "NotExportable", "OPERATIONS",
           "PIECEWISE", "REFUTES", "Term", "UNDECIDED", "apply_ball", "arb_of", "build", "certainly_below", "equal_by_rewriting",
           "exp_unit", "export_formula", "failing_entry", "lift", "rational_value", "refuse_duplicate_keys", "tight_ball", "topological"]
