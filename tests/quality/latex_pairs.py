"""Expressions as papers print them, each beside its fully explicit form, generated from a seed.

A random expression tree (sums of products of letters, numbers, π and e, powers, fractions,
roots, absolute values, functions with and without parentheses, entries of vectors and sums
over them) is written twice:

* **compact**, as a paper prints it: a coefficient first and letters side by side (``2xy^2``,
  ``ab^2 + bc^2``), one-character exponents without braces (``x^2``, ``e^x``), ``\\frac12``,
  ``\\sin 2x``, ``\\sin^2 x``, ``\\log_2 x``, ``|x|y``, ``e^{x}y``, ``u_1^2`` or ``u^2_1``,
  ``\\sum_i u_iv_i``; a function without parentheses is the last factor of its product, as
  papers write ``y \\sin x`` and not ``\\sin x\\, y``;
* **explicit**: every product ``\\cdot``, every power ``{base}^{exponent}`` with both braced,
  every function's argument in ``\\left( \\right)``, every fraction ``\\frac{..}{..}``.

The compact form is never ambiguous as TeX: a reader of the paper reads it one way, the way
the explicit form spells out.  So a reader that follows TeX reads both to the same
expression, and a difference is a misreading.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction

#: the declared variables: scalars (positive, so logs, roots and x^y are defined) and vectors
SCALARS = "abcxyz"
VECTORS = "uvw"
VARIABLES = ("a, b, c, x, y, z in [1/2, 2]", "u, v, w: vector n in [1/2, 2]")
DIMS = ("n in 2..3",)


@dataclass(frozen=True)
class Pair:
    compact: str
    explicit: str
    vectors: bool  # uses u, v, w (sympy's parser reads no sums or subscripts)


# ------------------------------------------------------------------------------- the tree
# every node renders itself twice: compact(...) and explicit(...)
class Node:
    #: how a node sits in a compact product: "number", "constant", "letter", "group", "function"
    slot = "letter"

    def compact(self) -> str:
        raise NotImplementedError

    def explicit(self) -> str:
        raise NotImplementedError

    def atomic(self) -> bool:
        """True when the compact form is one TeX token (a power may take it as its base unbraced)."""
        return False


@dataclass
class Num(Node):
    q: Fraction
    style: str = "int"  # int | frac12 | frac | decimal
    slot = "number"

    def compact(self):
        q = self.q
        if q.denominator == 1:
            return str(q.numerator)
        if self.style == "frac12" and q.numerator < 10 and q.denominator < 10:
            return rf"\frac{q.numerator}{q.denominator}"
        if self.style == "decimal" and q.denominator in (2, 4, 5, 10):
            return str(float(q))
        return rf"\frac{{{q.numerator}}}{{{q.denominator}}}"

    def explicit(self):
        q = self.q
        return str(q.numerator) if q.denominator == 1 else rf"\frac{{{q.numerator}}}{{{q.denominator}}}"

    def atomic(self):
        return self.q.denominator == 1 and 0 <= self.q.numerator < 10


@dataclass
class Const(Node):
    name: str  # pi | e
    slot = "constant"

    def compact(self):
        return r"\pi" if self.name == "pi" else "e"

    def explicit(self):
        return r"\pi" if self.name == "pi" else "e"

    def atomic(self):
        return True


@dataclass
class Var(Node):
    name: str

    def compact(self):
        return self.name

    def explicit(self):
        return self.name

    def atomic(self):
        return True


@dataclass
class Entry(Node):
    vector: str
    index: str  # "1", "2", "n" or a running index

    def compact(self):
        return f"{self.vector}_{self.index}"

    def explicit(self):
        return f"{self.vector}_{{{self.index}}}"


@dataclass
class Pow(Node):
    base: Node
    exp: Node
    order: str = "sup-sub"  # for an entry: u_1^2 or u^2_1

    def compact(self):
        e = self.exp.compact()
        e = e if self.exp.atomic() and len(e) == 1 else "{" + e + "}"
        if isinstance(self.base, Entry):
            b = self.base
            if self.order == "sub-sup":
                return f"{b.vector}^{e}_{b.index}"
            return f"{b.vector}_{b.index}^{e}"
        if self.base.atomic():
            return f"{self.base.compact()}^{e}"
        return rf"\left({self.base.compact()}\right)^{e}" if not isinstance(self.base, Group) else f"{self.base.compact()}^{e}"

    def explicit(self):
        return f"{{{_wrapped(self.base)}}}^{{{self.exp.explicit()}}}"

    @property
    def slot(self):
        return "number" if isinstance(self.base, Num) else "letter"


@dataclass
class Group(Node):
    """A sum in parentheses, ``(a + b)``, or between bars, ``|x - y|``."""

    body: Node
    bars: bool = False
    slot = "group"

    def compact(self):
        return f"|{self.body.compact()}|" if self.bars else f"({self.body.compact()})"

    def explicit(self):
        return rf"\left|{self.body.explicit()}\right|" if self.bars else rf"\left({self.body.explicit()}\right)"


@dataclass
class Frac(Node):
    num: Node
    den: Node
    style: str = "frac"  # frac | slash
    slot = "group"

    def compact(self):
        if self.style == "slash":
            return f"{_slash_side(self.num)}/{_slash_side(self.den)}"
        n, d = self.num.compact(), self.den.compact()
        if len(n) == 1 and len(d) == 1 and rng_free_letters(n + d):
            return rf"\frac{n}{d}" if n.isdigit() else rf"\frac {n}{d}"
        return rf"\frac{{{n}}}{{{d}}}"

    def explicit(self):
        return rf"\frac{{{self.num.explicit()}}}{{{self.den.explicit()}}}"


def rng_free_letters(text: str) -> bool:
    return all(ch.isalnum() for ch in text)


@dataclass
class Root(Node):
    body: Node
    degree: int = 2
    slot = "group"

    def compact(self):
        b = self.body.compact()
        if self.degree != 2:
            return rf"\sqrt[{self.degree}]{{{b}}}"
        if self.body.atomic() and len(b) == 1:
            return rf"\sqrt{b}" if b.isdigit() else rf"\sqrt {b}"
        return rf"\sqrt{{{b}}}"

    def explicit(self):
        return rf"\sqrt{{{self.body.explicit()}}}" if self.degree == 2 else rf"\sqrt[{self.degree}]{{{self.body.explicit()}}}"


@dataclass
class Func(Node):
    name: str  # sin cos ln exp log2
    arg: Node
    power: int = 1
    parens: bool = False

    @property
    def slot(self):
        return "group" if self.parens else "function"

    def compact(self):
        head = r"\log_2" if self.name == "log2" else "\\" + self.name
        if self.power != 1:
            head += f"^{self.power}" if self.power < 10 else f"^{{{self.power}}}"
        if self.parens:
            return f"{head}({self.arg.compact()})"
        arg = self.arg.compact()
        return f"{head} {arg}"

    def explicit(self):
        head = r"\log_{2}" if self.name == "log2" else "\\" + self.name
        call = rf"{head}\left({self.arg.explicit()}\right)"
        return call if self.power == 1 else f"{{{call}}}^{{{self.power}}}"


@dataclass
class Mul(Node):
    factors: list

    slot = "group"

    def compact(self):
        return _juxtapose(self.factors)

    def explicit(self):
        return r" \cdot ".join(_wrapped(f) for f in self.factors)


@dataclass
class Add(Node):
    terms: list  # (sign, node)

    def compact(self):
        return _join_terms([(s, t.compact()) for s, t in self.terms])

    def explicit(self):
        return _join_terms([(s, _wrapped(t) if isinstance(t, Add) else t.explicit()) for s, t in self.terms])


@dataclass
class Sum(Node):
    index: str
    body: Node
    slot = "function"  # its body runs to the end of the product: the last factor

    def compact(self):
        return rf"\sum_{self.index} {self.body.compact()}"

    def explicit(self):
        return rf"\sum_{{{self.index}=1}}^{{n}} \left({self.body.explicit()}\right)"


def _wrapped(node: Node) -> str:
    """The explicit form, in parentheses when it is a sum or a signed term."""
    text = node.explicit()
    if isinstance(node, (Add, Mul)) or text.startswith("-"):
        return rf"\left({text}\right)"
    return text


def _slash_side(node: Node) -> str:
    text = node.compact()
    return text if node.atomic() or isinstance(node, (Group, Pow)) else f"({text})"


def _join_terms(terms) -> str:
    out = ""
    for k, (sign, text) in enumerate(terms):
        if k == 0:
            out = text if sign > 0 else f"-{text}"
        else:
            out += f" + {text}" if sign > 0 else f" - {text}"
    return out


_ORDER = {"number": 0, "constant": 1, "letter": 2, "group": 3, "function": 4}


def _juxtapose(factors) -> str:
    """A paper's product: the coefficient, constants, letters, groups, then one function or sum."""
    out = ""
    for f in sorted(factors, key=lambda f: _ORDER[f.slot]):
        text = f.compact()
        if out and (text[0].isdigit() or text[0] == "."):  # 2 3 is 23 to TeX: a number after a factor takes \cdot
            out += r" \cdot "
        elif out and text[0].isalpha() and _ends_in_command(out):  # \pi x, not \pix
            out += " "
        out += text
    return out


def _ends_in_command(text: str) -> bool:
    """``\\pi`` then ``x`` must be ``\\pi x``: TeX would read ``\\pix``."""
    k = len(text)
    while k > 0 and text[k - 1].isalpha():
        k -= 1
    return k > 0 and text[k - 1] == "\\"


# --------------------------------------------------------------------------- the generator
class Generator:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.vectors_used = False

    def pair(self) -> Pair:
        self.vectors_used = False
        expr = self.sum(depth=0)
        if not any(ch in SCALARS or ch in VECTORS for ch in expr.explicit().replace("\\left", "").replace("\\right", "")
                   .replace("\\cdot", "").replace("\\pi", "").replace("\\frac", "").replace("\\sqrt", "")):
            expr = Add([(1, expr), (1, self.letter())])  # a claim needs a variable
        return Pair(expr.compact(), expr.explicit(), self.vectors_used)

    # -- pieces --------------------------------------------------------------------------
    def sum(self, depth, running=None) -> Node:
        n = self.rng.choice([1, 1, 2, 2, 3])
        terms = [(1 if k == 0 or self.rng.random() < 0.6 else -1, self.product(depth, running)) for k in range(n)]
        return terms[0][1] if n == 1 and terms[0][0] > 0 else Add(terms)

    def product(self, depth, running=None) -> Node:
        r = self.rng.random()
        if r < 0.12 and depth < 2:
            return Frac(self.product(depth + 1, running), self.product(depth + 1, running))
        if r < 0.18 and depth < 2:
            return Frac(self.slash_side(depth, running), self.slash_side(depth, running), style="slash")
        factors = []
        if self.rng.random() < 0.5:
            factors.append(self.coefficient())
        for _ in range(self.rng.choice([1, 1, 2, 2, 3])):
            factors.append(self.factor(depth, running))
        # one function without parentheses (or one sum), last in its product
        last = [f for f in factors if f.slot == "function" and not getattr(f, "parens", False)]
        for f in last[1:]:
            if isinstance(f, Func):
                f.parens = True
            else:
                factors.remove(f)
        if not factors:
            factors.append(self.letter(running))
        return factors[0] if len(factors) == 1 else Mul(factors)

    def slash_side(self, depth, running):
        choice = self.rng.random()
        if choice < 0.5:
            return self.letter(running)
        if choice < 0.75:
            return Pow(self.letter(running), Num(Fraction(self.rng.randint(2, 4))))
        return Group(self.sum(depth + 1, running))

    def coefficient(self) -> Node:
        r = self.rng.random()
        if r < 0.6:
            return Num(Fraction(self.rng.randint(2, 12)))
        if r < 0.85:
            q = Fraction(self.rng.randint(1, 7), self.rng.randint(2, 9))
            return Num(q if q != 1 else Fraction(1, 2), style="frac12")
        return Num(Fraction(self.rng.choice([1, 3, 5, 7]), self.rng.choice([2, 4, 10])), style="decimal")

    def letter(self, running=None) -> Node:
        if running and self.rng.random() < 0.6:
            return Entry(self.rng.choice(VECTORS), running)
        return Var(self.rng.choice(SCALARS))

    def factor(self, depth, running=None) -> Node:
        kinds = ["letter"] * 6 + ["power"] * 6 + ["epower", "npower", "group", "abs", "root", "pi"] + ["func"] * 4
        if depth < 1 and running is None:
            kinds += ["entry", "entry", "sum"]
        kind = self.rng.choice(kinds if depth < 2 else ["letter", "power", "letter"])
        rng = self.rng
        if kind == "letter":
            return self.letter(running)
        if kind == "entry":
            self.vectors_used = True
            e = Entry(rng.choice(VECTORS), rng.choice(["1", "2", "n"]))
            return Pow(e, Num(Fraction(rng.randint(2, 3))), order=rng.choice(["sup-sub", "sub-sup"])) if rng.random() < 0.5 else e
        if kind == "power":
            base = self.letter(running)
            r = rng.random()
            if r < 0.5:
                exp = Num(Fraction(rng.randint(2, 9)))
            elif r < 0.65:
                exp = Num(Fraction(-rng.randint(1, 3)))
            elif r < 0.75:
                exp = Num(Fraction(rng.randint(10, 14)))
            elif r < 0.9:
                exp = Var(rng.choice(SCALARS))
            else:
                exp = Mul([Num(Fraction(rng.randint(2, 3))), Var(rng.choice(SCALARS))])
            if isinstance(base, Entry):
                return Pow(base, exp, order=rng.choice(["sup-sub", "sub-sup"]))
            return Pow(base, exp)
        if kind == "epower":
            exp = rng.choice([Var(rng.choice(SCALARS)), Mul([Num(Fraction(-1)), Var(rng.choice(SCALARS))]),
                              Pow(Var(rng.choice(SCALARS)), Num(Fraction(2)))])
            if isinstance(exp, Mul):  # e^{-x}
                exp = _Neg(exp.factors[1])
            return Pow(Const("e"), exp)
        if kind == "npower":
            return Pow(Num(Fraction(rng.randint(2, 3))), Var(rng.choice(SCALARS)))
        if kind == "pi":
            return Const("pi")
        if kind == "group":
            g = Group(self.sum(depth + 1, running) if depth < 1 else Add([(1, self.letter(running)), (1, Num(Fraction(1)))]))
            return Pow(g, Num(Fraction(rng.randint(2, 3)))) if rng.random() < 0.4 else g
        if kind == "abs":
            first = self.letter(running)
            second = self.letter(running) if rng.random() < 0.5 else Num(Fraction(1))
            while isinstance(second, (Var, Entry)) and second.compact() == first.compact():
                second = self.letter(running)
            return Group(Add([(1, first), (-1, second)]), bars=True)
        if kind == "root":
            return Root(self.letter(running) if rng.random() < 0.6 else Add([(1, self.letter(running)), (1, Num(Fraction(1)))]),
                        rng.choice([2, 2, 3]))
        if kind == "sum":
            self.vectors_used = True
            body = Mul([Entry(rng.choice(VECTORS), "i"), Entry(rng.choice(VECTORS), "i")]) if rng.random() < 0.5 else \
                Pow(Entry(rng.choice(VECTORS), "i"), Num(Fraction(2)), order=rng.choice(["sup-sub", "sub-sup"]))
            return Sum("i", body)
        return self.function(depth, running)

    def function(self, depth, running) -> Node:
        rng = self.rng
        name = rng.choice(["sin", "cos", "ln", "exp", "log2", "sin", "cos", "ln"])
        style = rng.choice(["letter", "coefficient", "power-arg", "parens", "frac"] * 2 + ["pi"])
        letter = self.letter(running)
        if style == "letter":
            arg = letter
        elif style == "coefficient":
            arg = Mul([Num(Fraction(rng.randint(2, 9))), letter])
        elif style == "power-arg":
            arg = Pow(letter, Num(Fraction(rng.randint(2, 3))))
        elif style == "pi":
            arg = Mul([Const("pi"), letter]) if rng.random() < 0.5 else Mul([Num(Fraction(2)), Const("pi"), letter])
        elif style == "frac":
            arg = Frac(letter, Num(Fraction(rng.randint(2, 5))))
        else:  # a logarithm's argument stays positive on the box
            sign = 1 if name in ("ln", "log2") or rng.random() < 0.5 else -1
            arg = Add([(1, letter), (sign, self.letter(running))])
        power = rng.choice([1, 1, 1, 2, 3])
        return Func(name, arg, power=power, parens=style == "parens")


@dataclass
class _Neg(Node):
    """``-x`` as an exponent: ``e^{-x}``."""

    body: Node

    def compact(self):
        return f"-{self.body.compact()}"

    def explicit(self):
        return f"-{self.body.explicit()}"


def pairs(seed: int, count: int) -> list[Pair]:
    gen = Generator(seed)
    return [gen.pair() for _ in range(count)]


# ------------------------------------------------------------------------- the comparison
def random_point(rng: random.Random) -> dict:
    """Exact values in the declared box [1/2, 2]: every scalar, and three entries per vector."""
    def value():
        return Fraction(rng.randint(5, 20), rng.choice([10, 10, 7, 9]))

    point = {name: value() for name in SCALARS}
    point.update({(name, k): value() for name in VECTORS for k in (1, 2, 3)})
    return point


def evaluate(expr, point, digits: int = 40):
    """The value of a reading (sympy) at a point, with n = 3; None where it is not a finite real."""
    import sympy

    expr = expr.xreplace({s: sympy.Integer(3) for s in expr.free_symbols if getattr(s, "name", "") == "n"}).doit()
    values = {}
    for atom in expr.atoms(sympy.Indexed):
        values[atom] = sympy.Rational(point[(str(atom.base), int(atom.indices[0]))])
    for atom in expr.free_symbols:
        name = str(atom)
        if name in point:
            values[atom] = sympy.Rational(point[name])
        elif name == "e":  # sympy's own parser reads e as a letter
            values[atom] = sympy.E
    value = sympy.N(expr.xreplace(values), digits)
    if not value.is_number or not value.is_real or not value.is_finite:
        return None
    return value


def agree(left, right, rng: random.Random, points: int = 3) -> bool:
    """True when two readings have the same value at random exact points (to 30 digits)."""
    compared = 0
    for _ in range(points * 3):
        point = random_point(rng)
        a, b = evaluate(left, point), evaluate(right, point)
        if a is None or b is None:
            continue
        if abs(a - b) > 1e-30 * max(1, abs(a)):
            return False
        compared += 1
        if compared == points:
            break
    return compared > 0


def classify(pair: Pair, scope, rng: random.Random) -> str:
    """right | refused | misread (| explicit-unread: the generator's fault) for one pair."""
    from verifier.frontend import ExpressionError
    from verifier.frontend.translate import read

    try:
        compact = read(f"{pair.compact} = 0", scope).relations[0].lhs
    except ExpressionError:
        return "refused"
    try:
        explicit = read(f"{pair.explicit} = 0", scope).relations[0].lhs
    except ExpressionError:
        return "explicit-unread"
    return "right" if agree(compact, explicit, rng) else "misread"


def scope():
    """The scope every pair is read in (the declarations of VARIABLES and DIMS)."""
    from verifier.frontend.declarations import parse_declarations
    from verifier.frontend.translate import Scope

    return Scope(parse_declarations(VARIABLES, DIMS))
