"""Exact invariances of a claim that shrink the domain of its proof: permutations and shifts.

Many claims are symmetric in an index: permuting the entries of ``a`` and ``b`` together
leaves ``||softm(a + b) - softm(a)||_inf`` unchanged.  Many are also invariant under a
shift: ``softm(a + t 1) = softm(a)``.  Branch and bound does not know either, and covers
with boxes every permutation of the region where the work is, and the whole length of the
line along which the margin does not change.  Both are used here, and only when exact:

* **permutations** of the indices of a dimension (every variable holding it, together):
  when the margin and the hypotheses are invariant under each adjacent transposition
  ``(i, i + 1)`` (these generate every permutation) and so is the domain, the claim is
  proved where one family of coordinates is sorted, ``k_1 <= ... <= k_n``.  A box is closed
  when some ``k_i`` certainly exceeds ``k_{i+1}`` on it (``lo(k_i) >= hi(k_{i+1})``).  What
  is left still covers the sorted region: a strictly sorted point lies only in boxes that
  are kept, and the sorted region (a polytope of full dimension) is the closure of its
  strictly sorted points, so it lies in the finite union of the kept boxes.  No continuity
  of the margin is needed: strict claims are covered too.
* **a shift** of every entry of one vector variable, ``a -> a + t 1``: when the margin and
  the hypotheses do not change, every point has an image with ``a_1 = 0``, so ``a_1`` is
  fixed at 0 and the other entries range over ``[lo - hi, hi - lo]`` -- or, when ``a`` is
  also the sorted family, over ``[0, hi - lo]`` (the shift by the smallest entry), which
  holds exactly the images of the domain.  A point of the reduced domain is mapped back by
  the shift that puts its entries inside ``[lo, hi]``; one that has no such shift is outside
  the claim's domain and is never certified as a counterexample.

Exactness: the margin and the hypotheses are built once in sympy with a symbol per
coordinate, and compared after renaming by *canonical forms*: sums as linear combinations
(like terms collected), products, max and min as multisets of their operands, and
``max(x + c, y + c) = max(x, y) + c`` for terms ``c`` common to every operand.  Equal forms
are the same function; nothing is sampled.  Anything sympy cannot build, or any difference,
means no reduction.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import sympy

from ..contexts import SYMBOLIC
from .problem import BoxProblem

#: coordinates at most: beyond this the sympy expressions cost more than the boxes they save
MAX_COORDINATES = 40


@dataclass(frozen=True)
class Reduction:
    """What the claim's invariances allow: sort ``keys``, fix ``shifted[0]`` at 0."""

    keys: tuple[int, ...] = ()  # coordinates kept sorted (empty: no symmetry used)
    dim: str = ""  # the dimension whose indices permute
    shifted: tuple[int, ...] = ()  # coordinates moved together by a shift (empty: none)
    bounds: tuple[Fraction, Fraction] | None = None  # their interval in the claim's domain
    label: str = ""  # the variable sorted, and the one shifted, for the proof's message
    shift_label: str = ""
    #: the degree k when the claim is homogeneous (m(t x) = t^k m(x), t > 0, hypotheses too) and the
    #: root box holds 0: every box inside ``half`` (the root halved about 0) is the image of boxes
    #: outside it, so only the shell between them is proved
    scaling: int | None = None
    half: tuple | None = None

    def excludes(self, box) -> bool:
        """True when no point of ``box`` has its keys sorted (a permutation of it is proved instead),
        or when ``box`` lies in the half of the root about 0 of a homogeneous claim (its points are
        scaled images of points outside it)."""
        if any(box[k][0] >= box[l][1] for k, l in zip(self.keys, self.keys[1:])):
            return True
        return self.scaled_away(box)

    def scaled_away(self, box) -> bool:
        return self.half is not None and all(a <= lo and hi <= b for (lo, hi), (a, b) in zip(box, self.half))

    def root(self, root) -> list:
        """The reduced root box: the first shifted coordinate at 0, the others their differences from it."""
        out = list(root)
        if self.shifted:
            lo, hi = self.bounds
            sorted_from_it = self.keys[:1] == self.shifted[:1]
            out[self.shifted[0]] = (Fraction(0), Fraction(0))
            for k in self.shifted[1:]:
                out[k] = (Fraction(0), hi - lo) if sorted_from_it else (lo - hi, hi - lo)
        return out

    def representative(self, point):
        """A point of the claim's domain with the same margin as ``point`` of the reduced domain, or None."""
        if not self.shifted:
            return list(point)
        lo, hi = self.bounds
        entries = [point[k] for k in self.shifted]
        t = lo - min(entries)
        if max(entries) + t > hi:
            return None  # spread wider than the domain: the image of no point of it
        out = list(point)
        for k in self.shifted:
            out[k] = point[k] + t
        return out

    def describe(self) -> str:
        bits = []
        if self.keys:
            bits.append(f"permutations of the indices of {self.dim} ({self.label} sorted)")
        if self.shifted:
            bits.append(f"shifts of every entry of {self.shift_label} ({self.shift_label}_1 = 0)")
        if self.half is not None:
            bits.append(f"scaling (homogeneous of degree {self.scaling}: the root box halved about 0 is the image of the rest)")
        return " and ".join(bits) + " (exact: sympy)"


def find_reduction(problem: BoxProblem) -> Reduction | None:
    """The permutation symmetry and the shift invariance of the claim on its domain, if any."""
    check = problem.check
    if len(problem.roots) != 1 or len(problem.coords) > MAX_COORDINATES:
        return None
    if any(v.domain is not None for v in check.variables):  # sets, charts, derived values: not plain boxes
        return None
    try:
        expressions = _expressions(problem)
        shift = _shift(problem, expressions)
        symmetry = _symmetry(problem, expressions, prefer=shift[1] if shift else None)
        scaling = _scaling(problem, expressions) if shift is None else None
    except Exception:  # noqa: BLE001 -- whatever sympy cannot build, no invariance is claimed from it
        return None
    if shift is None and symmetry is None and scaling is None:
        return None
    out = Reduction()
    if symmetry is not None:
        dim, keys = symmetry
        out = Reduction(keys=keys, dim=dim, label=problem.coords[keys[0]].var)
    if shift is not None:
        coords, name = shift
        out = Reduction(out.keys, out.dim, coords, problem.root[coords[0]], out.label, name)
    if scaling is not None:
        half = tuple((lo / 2, hi / 2) for lo, hi in problem.root)
        out = Reduction(out.keys, out.dim, out.shifted, out.bounds, out.label, out.shift_label, scaling, half)
    return out


#: operations at most in the margins and hypotheses whose homogeneity sympy is asked about
MAX_SCALING_OPS = 400


def _scaling(problem: BoxProblem, expressions) -> int | None:
    """k when every margin entry is homogeneous of degree k >= 1 and every hypothesis of some degree
    in all the coordinates, each coordinate ranging over an interval that holds 0 (a non-strict claim:
    m(0) = 0 holds it at the apex)."""
    if problem.check.strict or any(c.unit or c.role != "entry" for c in problem.coords):
        return None
    if any(not (lo <= 0 <= hi) for lo, hi in problem.root) or not any(problem.active):
        return None
    symbols, hypotheses, margins = expressions
    functions = set().union(*(sympy.sympify(e).atoms(sympy.Function) for e in (*hypotheses, *margins)))
    if any(not isinstance(f, (sympy.Abs, sympy.Max, sympy.Min, sympy.sign)) for f in functions):
        return None  # exp, ln, ...: homogeneous of no degree, and sympy's simplify of the ratio can run for minutes
    if sum(sympy.count_ops(e) for e in (*hypotheses, *margins)) > MAX_SCALING_OPS:
        return None  # simplify's time grows fast with the expression: no scaling claimed rather than none found in time
    scale = sympy.Symbol("scale", positive=True)
    moved = {s: scale * s for s in symbols}
    for h in hypotheses:
        if scaling_degree(h, h.xreplace(moved), scale) is None:
            return None
    degrees = {scaling_degree(m, m.xreplace(moved), scale) for m in margins}
    degrees.discard("any")
    if len(degrees) != 1 or None in degrees:
        return None
    k = degrees.pop()
    return k if k >= 1 else None


def scaling_degree(plain, scaled, scale):
    """k with ``scaled = scale^k plain`` (sympy shows it), "any" for plain = 0, else None."""
    plain, scaled = sympy.sympify(plain), sympy.sympify(scaled)
    if plain == 0:
        return "any" if scaled == 0 else None
    try:
        ratio = sympy.simplify(scaled / plain)
    except (TypeError, ValueError, RecursionError, NotImplementedError):
        return None
    if ratio.free_symbols - {scale}:
        return None
    k = None
    if ratio == 1:
        k = 0
    elif ratio == scale:
        k = 1
    elif ratio.is_Pow and ratio.base == scale and ratio.exp.is_Integer:
        k = int(ratio.exp)
    if k is None:
        return None
    try:
        return k if sympy.simplify(scaled - scale**k * plain) == 0 else None
    except (TypeError, ValueError, RecursionError, NotImplementedError):
        return None


# ---------------------------------------------------------------------------------- search
def _expressions(problem: BoxProblem):
    symbols = [sympy.Symbol(f"x{k}", real=True) for k in range(len(problem.coords))]
    with SYMBOLIC.precision():
        hypotheses, margins = problem.evaluate(SYMBOLIC, problem.data(SYMBOLIC, symbols))
    return symbols, [sympy.sympify(h) for h in hypotheses], [sympy.sympify(m) for m in margins]


def _symmetry(problem: BoxProblem, expressions, prefer: str | None):
    dims = problem.domain.dims
    for d in problem.check.claim.dims:
        size = dims.get(d.name, 0)
        if size < 2:
            continue
        keys = _keys(problem, d.name, prefer)
        if keys is None:
            continue
        perms = [_transposition(problem, d.name, i) for i in range(size - 1)]
        if all(p is not None and _permutation_invariant(problem, expressions, p) for p in perms):
            return d.name, keys
    return None


def _transposition(problem: BoxProblem, dim: str, i: int) -> list[int] | None:
    """The coordinate permutation swapping indices i and i + 1 of ``dim`` in every variable."""
    swapped = {i: i + 1, i + 1: i}
    shapes = {v.name: v.shape for v in problem.check.variables}
    where = {(c.var, c.index, c.unit, c.role): k for k, c in enumerate(problem.coords)}
    perm = []
    for c in problem.coords:
        index = tuple(swapped.get(x, x) if name == dim else x for name, x in zip(shapes[c.var], c.index))
        target = where.get((c.var, index, c.unit, c.role))
        if target is None:
            return None
        perm.append(target)
    return perm


def _permutation_invariant(problem: BoxProblem, expressions, perm) -> bool:
    # the domain first: a coordinate must move to one with the same interval
    if any(problem.root[k] != problem.root[perm[k]] for k in range(len(perm))):
        return False
    symbols, hypotheses, margins = expressions
    forms = _CanonicalForms()
    renamed = {symbols[k]: {forms.symbol(symbols[perm[k]]): Fraction(1)} for k in range(len(perm))}
    same = lambda exprs: sorted(forms.of(e) for e in exprs) == sorted(forms.of(e, renamed) for e in exprs)
    return same(margins) and same(hypotheses)


def _keys(problem: BoxProblem, dim: str, prefer: str | None) -> tuple[int, ...] | None:
    """One active coordinate per index of ``dim``, from a variable holding ``dim`` once (its other
    axes at 0): the shifted variable first, then boxed variables before relation-bound ones."""
    size = problem.domain.dims[dim]
    variables = sorted(problem.check.variables, key=lambda v: v.name != prefer)
    for unit in (False, True):
        for var in variables:
            if var.shape.count(dim) != 1:
                continue
            axis = var.shape.index(dim)
            keys = []
            for i in range(size):
                index = tuple(i if a == axis else 0 for a in range(len(var.shape)))
                k = next((k for k, c in enumerate(problem.coords)
                          if c.var == var.name and c.index == index and c.unit == unit and c.role == "entry"), None)
                if k is None or not problem.active[k]:
                    break
                keys.append(k)
            else:
                return tuple(keys)
    return None


def _shift(problem: BoxProblem, expressions):
    """(coordinates, variable) of the first boxed vector whose entries can all move by one t."""
    symbols, hypotheses, margins = expressions
    for var in problem.check.variables:
        if len(var.shape) != 1 or var.radius is not None:
            continue
        coords = tuple(k for k, c in enumerate(problem.coords) if c.var == var.name and c.role == "entry" and not c.unit)
        if len(coords) < 2 or len({problem.root[k] for k in coords}) != 1 or not problem.active[coords[0]]:
            continue
        forms = _CanonicalForms()
        t = forms.symbol(sympy.Symbol("shift", real=True))
        moved = {symbols[k]: {forms.symbol(symbols[k]): Fraction(1), t: Fraction(1)} for k in coords}
        if all(forms.of(e) == forms.of(e, moved) for e in margins + hypotheses):
            return coords, var.name
    return None


# ------------------------------------------------------------------------- canonical forms
class _CanonicalForms:
    """Expressions as interned integers: equal integers, the same function.

    Every expression is first a linear combination ``{node: coefficient}`` (the key None
    holds the constant) of interned nodes.  Identities used, all exact: commutativity and
    associativity of + and *, collecting like terms, ``c (x + y) = c x + c y`` for a number
    c, ``|x| = |-x|``, ``|c |x|| = c |x|`` for c > 0, and ``max(x + c, y + c) = max(x, y) + c`` (likewise min) for terms
    common to every operand.  ``renamed`` maps a symbol to the linear combination it stands for.
    """

    def __init__(self):
        self.ids: dict = {}
        self.absolute: set[int] = set()  # the nodes that are an absolute value

    def _intern(self, key) -> int:
        return self.ids.setdefault(key, len(self.ids))

    def symbol(self, s) -> int:
        return self._intern(("symbol", s.name))

    def of(self, expr, renamed=None) -> int:
        return self._node(self._linear(expr, renamed or {}, {}))

    def _node(self, linear: dict) -> int:
        items = [(k, v) for k, v in linear.items() if v != 0]
        if len(items) == 1 and items[0][0] is not None and items[0][1] == 1:
            return items[0][0]
        return self._intern(("sum", tuple(sorted(items, key=lambda kv: (-1 if kv[0] is None else kv[0], kv[1])))))

    def _linear(self, e, renamed, memo) -> dict:
        hit = memo.get(e)
        if hit is not None:
            return hit
        if e.is_Rational:
            out = {None: Fraction(int(e.p), int(e.q))}
        elif e.is_Symbol:
            out = dict(renamed.get(e) or {self.symbol(e): Fraction(1)})
        elif isinstance(e, sympy.Add):
            out = {}
            for a in e.args:
                for k, v in self._linear(a, renamed, memo).items():
                    out[k] = out.get(k, 0) + v
        elif isinstance(e, sympy.Mul):
            coefficient, others = Fraction(1), []
            for a in e.args:
                if a.is_Rational:
                    coefficient *= Fraction(int(a.p), int(a.q))
                else:
                    others.append(a)
            if not others:
                out = {None: coefficient}
            elif len(others) == 1:
                out = {k: coefficient * v for k, v in self._linear(others[0], renamed, memo).items()}
            else:
                ids = sorted(self._node(self._linear(a, renamed, memo)) for a in others)
                out = {self._intern(("Mul", tuple(ids))): coefficient}
        elif isinstance(e, (sympy.Max, sympy.Min)):
            parts = [self._linear(a, renamed, memo) for a in e.args]
            common = {k: v for k, v in parts[0].items() if v != 0 and all(p.get(k) == v for p in parts[1:])}
            rest = sorted(self._node({k: v for k, v in p.items() if k not in common}) for p in parts)
            out = dict(common)
            out[self._intern((type(e).__name__, tuple(rest)))] = Fraction(1)
        elif isinstance(e, sympy.Abs):
            inner = self._linear(e.args[0], renamed, memo)
            (node, c), = inner.items() if len(inner) == 1 else ((None, 0),)
            if node is not None and c > 0 and node in self.absolute:
                out = inner  # ||y|| = |y|, and |c |y|| = c |y| for c > 0
            else:
                # |x| = |-x|: of the argument and its negative, the one with the smaller id stands for both
                sign = min(self._node(inner), self._node({k: -v for k, v in inner.items()}))
                node = self._intern(("Abs", (sign,)))
                self.absolute.add(node)
                out = {node: Fraction(1)}
        elif not e.args:
            out = {self._intern(("atom", sympy.srepr(e))): Fraction(1)}
        else:
            ids = tuple(self._node(self._linear(a, renamed, memo)) for a in e.args)
            out = {self._intern((type(e).__name__, ids)): Fraction(1)}
        memo[e] = out
        return out


__all__ = ["Reduction", "find_reduction"]
