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
  ``ab + bc + ca = 3 -> c = (3 - ab)/(a + b)``, the last declared such variable first.

A constraint none of these fit has no rational parametrisation the front end knows: that is
one line naming the constraint.  The declared bounds of a variable that becomes a set's
coordinate or Derived stay as hypotheses, checked exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import sympy

from .declarations import Declarations, Declared
from .errors import ExpressionError
from .translate import Relation, Scope


@dataclass(frozen=True)
class DerivedSolution:
    """``name = expr``: a declared scalar defined by the others."""

    variable: Declared
    expr: sympy.Expr
    constraint: str


@dataclass(frozen=True)
class SetSolution:
    """Declared scalars made the coordinates of a new vector on a simplex or a sphere."""

    kind: str  # simplex | sphere
    name: str  # the new vector variable
    value: Fraction  # the simplex's total, the sphere's radius squared
    members: tuple[tuple[Declared, sympy.Expr], ...]  # each scalar as an expression of the vector
    constraint: str


Solution = DerivedSolution | SetSolution


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
        solution = (_as_set(f, scalars, spec, source, decl) if free == scalars else None) or _as_derived(f, free, spec, source)
        out.append(solution)
        if isinstance(solution, DerivedSolution):
            solved[solution.variable.py] = solution.expr
            taken.add(solution.variable.py)
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


def _as_set(f, scalars, spec, source, decl) -> SetSolution | None:
    if len(scalars) < 2:
        return None
    syms = [sympy.Symbol(v.py, real=True) for v in scalars]
    num, den = sympy.fraction(f)
    if not den.is_number:
        return None
    try:
        poly = sympy.Poly(sympy.expand(num), *syms)
    except sympy.PolynomialError:
        return None
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
            raise ExpressionError(f"no rational parametrisation: the weights {weights[0]} and {w} of the squares differ by a "
                                  "factor that is not the square of a rational, so the ellipsoid is not a scaled sphere", spec, None, source)
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


def _as_derived(f, candidates, spec, source) -> DerivedSolution:
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
        raise ExpressionError("no rational parametrisation: no variable appears in it to the first power with a rational "
                              "solution, and it is not a sum or a sum of squares equal to a constant over variables of one "
                              "sign", spec, None, source)
    options.sort(key=lambda o: (o[0], o[1]))
    _, _, var, expr = options[0]
    return DerivedSolution(var, expr, spec)


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
