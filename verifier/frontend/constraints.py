"""Equality constraints solved for you: each ``--where`` with ``=`` becomes a kind of variable.

The search samples free variables and certifies exact points, so an equality must hold by
construction, exactly.  In this order of preference:

* a sum with weights of one sign equal to a constant, over variables whose declared signs
  agree (``a + b + c = 3`` with ``a, b, c >= 0``): a scaled **simplex** ``Simplex(..., total=3)``,
  each variable one weight of it (``x_k = p_k / w_k``, negated for a variable declared ``<= 0``);
* a sum of squares with weights of one sign equal to a constant (``x^2 + y^2 + z^2 = 3``): a
  **sphere** of that radius with its exact rational points (``x_k = p_k / q_k`` where the
  weights are ``c q_k^2``), its absolute value for a variable declared ``>= 0``;
* otherwise a variable the equation holds to degree one is solved for rationally and becomes
  **Derived**: ``a + b + c = 3 -> c = 3 - a - b``, ``abc = 1 -> c = 1/(ab)``,
  ``ab + bc + ca = 3 -> c = (3 - ab)/(a + b)``, the last declared such variable first;
* otherwise a **piecewise-linear** condition (affine forms under ``|.|``, max, min) is solved
  exactly inside the declared box (:mod:`.piecewise`): a box of solutions narrows the
  variables' bounds (``|x - 1| + |x| + |x + 1| = x + 2`` is ``x in [0, 1]``), a union of pieces
  makes the variables the coordinates of a new vector on them (``Pieces``: ``|x + y| + |x - y| = 2``
  is the boundary of a square, four segments).

A constraint none of these fit has no rational parametrisation the front end knows: that is
one line naming the constraint and what to write instead.  The declared bounds of a variable
that becomes a set's coordinate or Derived stay as hypotheses, checked exactly.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from fractions import Fraction

import sympy

from .declarations import Declarations, Declared
from .errors import ExpressionError
from ..kinds.quadric import rational_point
from .piecewise import NotPiecewiseLinear, simplices, solve_piecewise_linear
from .translate import Relation, Scope


@dataclass(frozen=True)
class DerivedSolution:
    """``name = expr``: a declared scalar defined by the others."""

    variable: Declared
    expr: sympy.Expr
    constraint: str


@dataclass(frozen=True)
class SetSolution:
    """Declared scalars made the coordinates of a new vector on a simplex, a sphere or a union of pieces."""

    kind: str  # simplex | sphere | pieces
    name: str  # the new vector variable
    value: Fraction | None  # the simplex's total, the sphere's radius squared
    members: tuple[tuple[Declared, sympy.Expr], ...]  # each scalar as an expression of the vector
    constraint: str
    pieces: tuple[tuple[tuple[Fraction, ...], ...], ...] = ()  # the simplices of a union (each its vertices)
    cut: bool = False  # a piece ends on the default box of an unbounded variable
    quadric: tuple = ()  # (A, b, c, a rational point) of x^T A x + b.x + c = 0

    def factory(self) -> tuple[str, str]:
        """The kind's factory (imported from ``verifier.domains``) and the call that declares the vector."""
        size = len(self.members)
        if self.kind == "quadric":
            a, b, c, p = self.quadric
            rows = ", ".join("[" + ", ".join(_literal(v) for v in row) + "]" for row in a)
            return "Quadric", (f"Quadric({self.name!r}, {size}, [{rows}], [{', '.join(_literal(v) for v in b)}], {_literal(c)}, "
                               f"point=({', '.join(_literal(v) for v in p)}), text={self.constraint!r})")
        if self.kind == "simplex":
            return "Simplex", f"Simplex({self.name!r}, {size}, total={_literal(self.value)})"
        if self.kind == "sphere":
            return "Sphere", f"Sphere({self.name!r}, {size}, radius_squared={_literal(self.value)})"
        pieces = ", ".join("[" + ", ".join("(" + ", ".join(_literal(c) for c in v) + ("," if len(v) == 1 else "") + ")" for v in piece) + "]"
                           for piece in self.pieces)
        return "Pieces", f"Pieces({self.name!r}, {size}, [{pieces}], text={self.constraint!r})"

    def describe(self) -> str:
        """The set, as the claim's notes name it."""
        if self.kind == "simplex":
            return f"the simplex of total {_text(self.value)}"
        if self.kind == "sphere":
            return f"the sphere of radius squared {_text(self.value)}"
        if self.kind == "quadric":
            p = ", ".join(_text(v) for v in self.quadric[3])
            return f"the quadric charted by the lines through its rational point ({p})"
        kinds = sorted({len(p) for p in self.pieces})
        what = " and ".join({1: "points", 2: "segments", 3: "triangles"}.get(k, f"{k - 1}-simplices") for k in kinds)
        cut = ", cut at the default box" if self.cut else ""
        return f"the union of {len(self.pieces)} pieces ({what}{cut}), solved exactly"


@dataclass(frozen=True)
class BoxSolution:
    """Declared scalars whose solution set is a box: each keeps its name, with narrower bounds."""

    variables: tuple[Declared, ...]  # the narrowed declarations (a fixed one has lo == hi)
    constraint: str
    cut: bool = False  # the box ends on the default box of an unbounded variable

    def describe(self) -> str:
        bits = [f"{v.name} = {_text(v.lo)}" if v.lo == v.hi else f"{v.name} \u2208 [{_text(v.lo)}, {_text(v.hi)}]" for v in self.variables]
        return ", ".join(bits) + (" (cut at the default box)" if self.cut else "")


Solution = DerivedSolution | SetSolution | BoxSolution


def _literal(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f'"{q.numerator}/{q.denominator}"'


def _text(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def solve_equalities(equalities: list[tuple[Relation, str]], decl: Declarations, scope: Scope) -> list[Solution]:
    """Each equality solved in turn; a later one sees the earlier solutions substituted."""
    solved: dict[str, sympy.Expr] = {}  # python name -> its expression
    taken: set[str] = set()
    out: list[Solution] = []
    for relation, spec in equalities:
        source = f"--where {spec!r}"
        f = sympy.together(sympy.expand(relation.lhs - relation.rhs))
        if f.has(sympy.Indexed) or f.has(sympy.Sum) or f.has(sympy.Product):
            raise ExpressionError("an equality on vectors is not solved here: declare the set instead "
                                  "('p: simplex n' for a sum equal to 1, 'u: unit vector n' for a sum of squares equal to 1)", spec, None, source)
        f = f.subs({scope.symbol(n): e for n, e in solved.items()})
        if f.is_number:
            raise ExpressionError("this constraint holds or fails whatever the variables" if f == 0 else
                                  "this constraint contradicts the earlier ones (no variable is left in it)", spec, None, source)
        scalars = [v for v in decl.variables if not v.is_vector and scope.symbol(v.name) in f.free_symbols]
        unknown = [s for s in f.free_symbols if s.name not in {v.py for v in scalars}]
        if unknown:
            raise ExpressionError(f"{unknown[0]} cannot be solved for (only declared scalars can)", spec, None, source)
        if any(v.py in taken for v in scalars):
            free = [v for v in scalars if v.py not in taken]
        else:
            free = scalars
        solution = ((_as_set(f, scalars, spec, source, decl) if free == scalars else None) or _as_derived(f, free, spec)
                    or (_as_piecewise_linear(f, scalars, spec, source, decl) if free == scalars else None)
                    or (_as_algebraic(f, scalars, spec, source, decl) if free == scalars else None))
        if solution is None:
            raise ExpressionError(_refusal(f, free, scalars), spec, None, source)
        out.append(solution)
        if isinstance(solution, DerivedSolution):
            solved[solution.variable.py] = solution.expr
            taken.add(solution.variable.py)
        elif isinstance(solution, BoxSolution):
            taken.update(v.py for v in solution.variables)  # bounded anew; a later constraint on them would need them free
        else:
            for var, expr in solution.members:
                solved[var.py] = expr
                taken.add(var.py)
    return out


def _sign(var: Declared) -> int | None:
    """+1 for a variable declared >= 0, -1 for one declared <= 0, None otherwise (the default box is no sign)."""
    if var.lo is not None and "lo" not in var.boxed and var.lo >= 0:
        return 1
    if var.hi is not None and "hi" not in var.boxed and var.hi <= 0:
        return -1
    return None


def _polynomial(f, scalars):
    """(symbols, f's numerator as a polynomial in them) where f's denominator is a number, else None."""
    syms = [sympy.Symbol(v.py, real=True) for v in scalars]
    num, den = sympy.fraction(sympy.together(f))
    if not den.is_number:
        return None
    try:
        return syms, sympy.Poly(sympy.expand(num), *syms)
    except sympy.PolynomialError:
        return None


def _as_set(f, scalars, spec, source, decl) -> SetSolution | None:
    if len(scalars) < 2 or (found := _polynomial(f, scalars)) is None:
        return None
    syms, poly = found
    monomials = poly.as_dict()
    constant = -monomials.pop((0,) * len(syms), sympy.Integer(0))
    linear = all(sum(m) == 1 for m in monomials)
    squares = all(sum(m) == 2 and max(m) == 2 for m in monomials)
    if len(monomials) != len(syms) or not (linear or squares):
        return None
    weights = []
    for k in range(len(syms)):
        m = tuple((2 if squares else 1) if j == k else 0 for j in range(len(syms)))
        weights.append(monomials[m])
    if not all(w.is_Rational for w in weights) or not constant.is_Rational:
        return None
    return _simplex(scalars, weights, constant, spec, source, decl) if linear else _sphere(scalars, weights, constant, spec, source, decl)


def _set_name(scalars, decl) -> str:
    names = [v.py for v in scalars]
    name = "".join(names) if all(len(n) == 1 for n in names) else "_".join(names)
    taken = {v.py for v in decl.variables} | {d.name for d in decl.dims}
    base, k = name, 2
    while name in taken:
        name, k = f"{base}{k}", k + 1
    return name


def _simplex(scalars, weights, total, spec, source, decl) -> SetSolution | None:
    signs = [_sign(v) for v in scalars]
    if None in signs:
        return None  # a sum over variables of unknown sign: Derived
    oriented = [w * s for w, s in zip(weights, signs)]
    if not (all(w > 0 for w in oriented) or all(w < 0 for w in oriented)):
        return None
    sigma = 1 if oriented[0] > 0 else -1
    names = ", ".join(v.name for v in scalars)
    if sigma * total < 0:
        raise ExpressionError(f"contradicts the declared signs of {names}: no point satisfies it", spec, None, source)
    if total == 0:
        raise ExpressionError(f"with the declared signs of {names} it forces every one of them to 0: nothing is left to check", spec, None, source)
    name = _set_name(scalars, decl)
    base = sympy.IndexedBase(name, real=True)
    members = tuple((v, s * base[k + 1] / abs(w)) for k, (v, w, s) in enumerate(zip(scalars, weights, signs)))
    return SetSolution("simplex", name, Fraction(int((sigma * total).p), int((sigma * total).q)), members, spec)


def _sphere(scalars, weights, radius_squared, spec, source, decl) -> SetSolution | None:
    if not (all(w > 0 for w in weights) or all(w < 0 for w in weights)):
        return None  # x^2 - y^2 = 1 is a hyperbola, not a sphere
    if weights[0] < 0:
        weights, radius_squared = [-w for w in weights], -radius_squared
    names = ", ".join(v.name for v in scalars)
    if radius_squared < 0:
        raise ExpressionError(f"a sum of squares cannot be negative: no real {names} satisfy it", spec, None, source)
    if radius_squared == 0:
        raise ExpressionError(f"it forces {names} to 0: nothing is left to check", spec, None, source)
    scales = []
    for w in weights:
        q = sympy.sqrt(w / weights[0])
        if not q.is_Rational:
            return None  # an ellipsoid, not a scaled sphere: a quadric
        scales.append(q)
    value = radius_squared / weights[0]
    name = _set_name(scalars, decl)
    base = sympy.IndexedBase(name, real=True)
    members = []
    for k, (v, q) in enumerate(zip(scalars, scales)):
        coordinate = base[k + 1]
        sign = _sign(v)
        if sign is not None:  # a variable of one sign takes the coordinate's absolute value: the sphere folds onto its orthant
            coordinate = sign * sympy.Abs(coordinate)
        members.append((v, coordinate / q))
    return SetSolution("sphere", name, Fraction(int(value.p), int(value.q)), tuple(members), spec)


def _as_derived(f, candidates, spec) -> DerivedSolution | None:
    num, _ = sympy.fraction(sympy.together(f))
    num = sympy.expand(num)
    options = []
    for position, var in enumerate(candidates):
        x = sympy.Symbol(var.py, real=True)
        try:
            poly = sympy.Poly(num, x)
        except sympy.PolynomialError:
            continue
        if poly.degree() != 1:
            continue
        slope, intercept = poly.all_coeffs()
        if _irrational(slope) or _irrational(intercept):
            continue
        expr = sympy.factor_terms(sympy.cancel(-intercept / slope))
        options.append((0 if slope.is_number else 1, -position, var, expr))
    if not options:
        return None
    options.sort(key=lambda o: (o[0], o[1]))
    _, _, var, expr = options[0]
    return DerivedSolution(var, expr, spec)


def _as_piecewise_linear(f, scalars, spec, source, decl) -> BoxSolution | SetSolution | None:
    """The exact solution set of a piecewise-linear condition inside the declared box (None: not one)."""
    if not f.has(sympy.Abs, sympy.Max, sympy.Min):
        return None
    syms = [sympy.Symbol(v.py, real=True) for v in scalars]
    num, den = sympy.fraction(sympy.together(f))
    expr = f if not den.is_number else sympy.expand(num) / den
    box = [(v.lo, v.hi) for v in scalars]
    try:
        pieces = solve_piecewise_linear(expr, syms, box)
    except NotPiecewiseLinear:
        return None
    names = ", ".join(v.name for v in scalars)
    if not pieces:
        raise ExpressionError(f"no point of the declared box has it: no {names} satisfy it", spec, None, source)
    ends = {(k, side) for k, v in enumerate(scalars) for side in v.boxed}
    cut = any((k, "lo") in ends and p.bounds()[k][0] == scalars[k].lo or (k, "hi") in ends and p.bounds()[k][1] == scalars[k].hi
              for p in pieces for k in range(len(scalars)))
    if len(pieces) == 1 and pieces[0].is_box():
        narrowed = tuple(dataclasses.replace(v, lo=lo, hi=hi, lo_strict=v.lo_strict and lo == v.lo, hi_strict=v.hi_strict and hi == v.hi,
                                             boxed=tuple(side for side in v.boxed if (lo, hi)[side == "hi"] == (v.lo, v.hi)[side == "hi"]))
                         for v, (lo, hi) in zip(scalars, pieces[0].bounds()))
        return BoxSolution(narrowed, spec, cut)
    name = _set_name(scalars, decl)
    base = sympy.IndexedBase(name, real=True)
    members = tuple((v, base[k + 1]) for k, v in enumerate(scalars))
    cells = tuple(simplex for piece in pieces for simplex in simplices(piece))
    return SetSolution("pieces", name, None, members, spec, cells, cut)


def _as_algebraic(f, scalars, spec, source, decl) -> SetSolution | BoxSolution | None:
    """A polynomial condition with a rational parametrisation: affine factors (a union of hyperplane
    pieces of the box), the rational roots of one variable, or a quadric through a rational point."""
    if (found := _polynomial(f, scalars)) is None:
        return None
    syms, poly = found
    if not all(c.is_Rational for c in poly.coeffs()) or poly.total_degree() < 2:
        return None
    factors = [g for g, _ in sympy.factor_list(poly.as_expr(), *syms)[1]]
    if all(sympy.Poly(g, *syms).total_degree() == 1 for g in factors):
        return _as_hyperplanes(factors, syms, scalars, spec, source, decl)
    if poly.total_degree() == 2 and len(scalars) >= 2:
        return _as_quadric(poly, syms, scalars, spec, source, decl)
    return None


def _as_hyperplanes(factors, syms, scalars, spec, source, decl):
    """f = product of affine factors: the union of their zero sets in the box, as pieces (the roots of
    one variable, the lines of x^2 = y^2)."""
    expr = sympy.Min(*[sympy.Abs(g) for g in factors]) if len(factors) > 1 else sympy.Abs(factors[0])
    return _as_piecewise_linear(expr, scalars, spec, source, decl)


def _as_quadric(poly, syms, scalars, spec, source, decl) -> SetSolution:
    n = len(syms)
    terms = poly.as_dict()

    def coeff(powers):
        c = terms.get(tuple(powers), 0)
        return Fraction(int(sympy.Rational(c).p), int(sympy.Rational(c).q))

    unit = [[int(i == k) for i in range(n)] for k in range(n)]
    a = [[coeff([2 * u for u in unit[i]]) if i == j else coeff([x + y for x, y in zip(unit[i], unit[j])]) / 2 for j in range(n)] for i in range(n)]
    b = [coeff(unit[i]) for i in range(n)]
    c = coeff([0] * n)
    point = rational_point(a, b, c)
    names = ", ".join(v.name for v in scalars)
    if point is None:
        raise ExpressionError(f"no rational parametrisation found: a quadric in {names} with no rational point of small height "
                              "(it may have none: x^2 + y^2 = 3 has none), so no point of it can be certified exactly; state the "
                              "set through a parameter of your own (--var 't in [a, b]', --where 'x = <a rational function of t>')",
                              spec, None, source)
    name = _set_name(scalars, decl)
    base = sympy.IndexedBase(name, real=True)
    members = tuple((v, base[k + 1]) for k, v in enumerate(scalars))
    return SetSolution("quadric", name, None, members, spec, quadric=(tuple(map(tuple, a)), tuple(b), c, point))


def _refusal(f, free, scalars) -> str:
    """Why a constraint has no rational parametrisation here, and what to write instead."""
    names = ", ".join(v.name for v in free)
    if len(free) == 1 and not f.has(sympy.Abs, sympy.Max, sympy.Min):
        return (f"no rational parametrisation: its solutions in {names} are not all rational, so no point of it can be certified "
                "exactly; state the claim at a rational value nearby, or through a parameter of your own (--var 't in [a, b]' and "
                "--where '<variable> = <a rational function of t>')")
    if f.has(sympy.Abs, sympy.Max, sympy.Min):
        return ("no rational parametrisation: |.|, max or min of something other than rational affine forms of the "
                f"declared scalars ({names}), or more than 4 of them; split it into cases with bounds (--var) of their own, "
                "or declare the set yourself (Pieces, in a pack)")
    return ("no rational parametrisation: no variable appears in it to the first power with a rational solution, it is not "
            "a sum or a sum of squares equal to a constant over variables of one sign, not piecewise linear, and not a product of "
            "affine factors or a quadric through a rational point; state the "
            "set through a parameter of your own (--var 't in [a, b]' and --where 'x = <a rational function of t>' for each "
            "variable), or state the claim without the equality")


def _irrational(expr) -> bool:
    """True when solving would leave + - * / (a root, exp, log): the value must stay rational."""
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.Pow) and not node.exp.is_Integer:
            return True
        if isinstance(node, sympy.Function) and not isinstance(node, (sympy.Abs, sympy.Max, sympy.Min)):
            return True
        if node.is_Atom and node.is_number and not node.is_Rational:  # e, pi
            return True
    return False
