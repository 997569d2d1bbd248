"""A case analysis on abs, max and min that Coq's ``lra`` (or ``nra``) closes leaf by leaf.

A claim built from + - * /, abs, max and min is piecewise polynomial: on each piece, where
every abs, max and min is resolved to one of its arguments, it is a polynomial inequality.
z3 decides such claims by its own case analysis, which leaves nothing a kernel can check.
This module finds a case tree whose every leaf Coq can close with a tactic of its own:

* each abs/max/min node ``t`` is an unknown with the facts that hold everywhere
  (``u <= t``, ``-u <= t`` for ``t = |u|``; ``a <= t``, ``b <= t`` for a max; ``t <= a``,
  ``t <= b`` for a min);
* a leaf is a set of resolved nodes (``0 <= u /\\ t = u``, ...) whose facts, with the box,
  the definedness conditions and the hypotheses, contradict the negated conclusion in linear
  arithmetic, every product of unknowns an atom: then ``lra`` closes it (it reads a product
  as ``lra`` reads a monomial, at least as much as this abstraction sees);
* where the linear abstraction leaves a model in which no abs/max/min is wrong, only
  products are: the leaf is given to ``nra`` when z3 finds it unsatisfiable with the products
  as products.

A claim with exp is handled the same way, each ``t = exp(u)`` an unknown with ``0 < t`` and
``1 + u <= t`` everywhere and with what exp's monotonicity and ``exp(v + w) = exp(v) exp(w)``
say, as splits of their own: for exps (or products of two exps, or 1 = exp(0)) P and Q of
exponent sums p and q, ``(p <= q /\\ P <= Q) \\/ (q < p /\\ Q < P)``.  Each such split is a lemma
Coq proves from ``exp_increasing`` and ``exp_plus`` (:mod:`verifier.coq.proof`); which ones a
proof needs is z3's unsat core with every candidate asserted, and the tree splits only on those.

The tree is found lazily, as a lazy SMT solver does: split on an unresolved node the
abstraction's model gets wrong, outermost first along the paths the resolved nodes leave
open; every case is an assumption of one solver, so a closed case names the decisions it
used, and a split whose first branch closed without its own decision is dropped.  An
equality is proved as two inequalities, each entry of the conclusion on its own.  The tree
is only a hint: the kernel checks every leaf.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

import z3

from .errors import VerifierError
from .formula import FUNCTIONS, PIECEWISE, Formula

#: leaves at most in a tree (a claim needing more is labelled unchecked, naming the count)
MAX_LEAVES = 4096
#: z3's work per case, in its resource units (a budget of work, not of time: the same tree on any machine)
CASE_RLIMIT = 20_000_000
#: exps at most for the product relations (exp(u) against exp(v) exp(w): their number grows as the cube)
MAX_PRODUCT_EXPS = 6
#: the shapes of an exp relation: (exps on the left, exps on the right), none meaning exp(0) = 1
EXP_SHAPES = ((1, 1), (1, 0), (0, 1), (1, 2), (2, 1))


class NoCaseTree(VerifierError):
    """No case tree within the limits (the message says why)."""


@dataclass(frozen=True)
class Split:
    node: int | tuple  # an abs/max/min node, or an exp relation's (left exps, right exps)
    kind: str  # abs | max | min | exp
    branches: tuple  # (first, second): first is ``0 <= u`` / ``b <= a`` (max) / ``a <= b`` (min) / ``p <= q`` (exp)


def tree_to_data(tree) -> list:
    """The tree as JSON data: ``["lra"]``, ``["nra"]``, ``["split", node, first, second]`` or
    ``["exp", [left exps, right exps], first, second]``."""
    if isinstance(tree, Split):
        head = ["exp", [list(tree.node[0]), list(tree.node[1])]] if tree.kind == "exp" else ["split", tree.node]
        return head + [tree_to_data(tree.branches[0]), tree_to_data(tree.branches[1])]
    return [tree]


def _node_index(x, formula: Formula, ops) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and 0 <= x < len(formula.nodes) and formula.nodes[x][0] in ops


def _exp_relation(spec, formula: Formula) -> tuple:
    """An exp relation's (left, right) from data, refused (ValueError) unless it is one of :data:`EXP_SHAPES` of exp nodes."""
    if (not isinstance(spec, list) or len(spec) != 2 or not all(isinstance(side, list) for side in spec)
            or (len(spec[0]), len(spec[1])) not in EXP_SHAPES
            or not all(_node_index(x, formula, ("exp",)) for side in spec for x in side)):
        raise ValueError(f"an exp relation is [left, right], exp nodes of the formula in one of the shapes {list(EXP_SHAPES)}")
    return tuple(spec[0]), tuple(spec[1])


def tree_from_data(data, formula: Formula):
    """The tree from JSON data, refused (ValueError) unless every split is on an abs/max/min node
    or an exp relation of exp nodes."""
    stack = [data]
    while stack:  # validate iteratively: a hostile file may nest deep
        item = stack.pop()
        if not isinstance(item, list) or not item:
            raise ValueError("a case tree node must be a non-empty list")
        if item[0] == "split":
            if len(item) != 4 or not _node_index(item[1], formula, PIECEWISE):
                raise ValueError("a split names an abs, max or min node of the formula")
            stack += [item[2], item[3]]
        elif item[0] == "exp":
            if len(item) != 4:
                raise ValueError("an exp split has its relation and two branches")
            _exp_relation(item[1], formula)
            stack += [item[2], item[3]]
        elif item not in (["lra"], ["nra"]):
            raise ValueError(f"unknown leaf {item!r}")

    def build(item):
        if item[0] == "split":
            return Split(item[1], formula.nodes[item[1]][0], (build(item[2]), build(item[3])))
        if item[0] == "exp":
            return Split(_exp_relation(item[1], formula), "exp", (build(item[2]), build(item[3])))
        return item[0]

    return build(data)


def leaves(tree) -> int:
    return sum(leaves(b) for b in tree.branches) if isinstance(tree, Split) else 1


class _Encoding:
    """The formula in z3: abs/max/min, functions and products of unknowns as fresh unknowns."""

    def __init__(self, formula: Formula, boxes: Mapping[str, tuple | None]):
        self.formula = formula
        self.ctx = z3.Context()  # a context of its own: the same tree whatever ran before, in this thread or another
        nodes = formula.nodes
        self.terms: list = []
        self.products: list[tuple[int, object]] = []  # (node, the product with real factors)
        self.relax: list = []
        for i, node in enumerate(nodes):
            op = node[0]
            if op == "var":
                t = z3.Real(f"x_{node[1]}_{'_'.join(map(str, node[2]))}", self.ctx)
            elif op == "const":
                t = self.number(node[1])
            else:
                args = [self.terms[a] for a in node[1:]]
                t = self._operation(i, op, args, node)
            self.terms.append(t)
        self.exp_sides: dict[tuple, tuple] = {}  # (exps) -> (sum of exponents, product of exps)
        self.relations = self._exp_relations()
        self.facts = list(self.relax)
        for name, shape in formula.variables:
            box = boxes.get(name)
            if box is None:
                continue
            lo, hi = (Fraction(x) for x in box)
            for i, node in enumerate(nodes):
                if node[0] == "var" and node[1] == name:
                    self.facts += [self.terms[i] >= self.number(lo), self.terms[i] <= self.number(hi)]
        for i, node in enumerate(nodes):
            if node[0] == "/" and nodes[node[2]][0] != "const":
                self.facts.append(self.terms[node[2]] != 0)
            elif node[0] == "ln":
                self.facts.append(self.terms[node[1]] > 0)
            elif node[0] == "sqrt":
                self.facts.append(self.terms[node[1]] >= 0)
        for h in formula.hypotheses:
            for i in h.entries:
                self.facts.append(self.terms[i] > 0 if h.strict else self.terms[i] >= 0)

    def number(self, q: Fraction):
        return z3.RealVal(Fraction(q), self.ctx)

    def _operation(self, i, op, args, node):
        nodes = self.formula.nodes
        if op == "+":
            return args[0] + args[1]
        if op == "-":
            return args[0] - args[1]
        if op == "neg":
            return -args[0]
        if op == "*":
            if z3.is_rational_value(args[0]) or z3.is_rational_value(args[1]):
                return args[0] * args[1]
            atom = z3.Real(f"m_{i}", self.ctx)
            self.products.append((i, atom == args[0] * args[1]))
            return atom
        if op == "/":
            if nodes[node[2]][0] == "const":
                return args[0] / args[1]
            atom = z3.Real(f"q_{i}", self.ctx)
            self.products.append((i, atom * args[1] == args[0]))
            return atom
        atom = z3.Real(f"p_{i}", self.ctx)
        if op == "abs":
            self.relax += [atom >= args[0], atom >= -args[0]]
        elif op == "max":
            self.relax += [atom >= args[0], atom >= args[1]]
        elif op == "min":
            self.relax += [atom <= args[0], atom <= args[1]]
        elif op == "exp":
            self.relax += [atom > 0, atom >= 1 + args[0]]
        elif op not in FUNCTIONS:
            raise NoCaseTree(f"operation {op} has no case analysis")
        return atom

    def _exp_relations(self) -> list[tuple]:
        """Every candidate exp relation (left exps, right exps) of :data:`EXP_SHAPES`, each side's
        sum and product made (a product of two exps an unknown, equal to the product only with
        the products as products)."""
        exps = [i for i, node in enumerate(self.formula.nodes) if node[0] == "exp"]
        out = [((i,), (j,)) for i in exps for j in exps if i != j]
        out += [((i,), ()) for i in exps] + [((), (i,)) for i in exps]
        if len(exps) <= MAX_PRODUCT_EXPS:
            for i in exps:
                others = [j for j in exps if j != i]
                for j, k in itertools.combinations_with_replacement(others, 2):
                    out += [((i,), (j, k)), ((j, k), (i,))]
        for left, right in out:
            for side in (left, right):
                if side not in self.exp_sides:
                    self.exp_sides[side] = self._exp_side(side)
        return out

    def _exp_side(self, side: tuple):
        nodes = self.formula.nodes
        if not side:
            return self.number(Fraction(0)), self.number(Fraction(1))
        exponent = sum((self.terms[nodes[i][1]] for i in side[1:]), self.terms[nodes[side[0]][1]])
        if len(side) == 1:
            return exponent, self.terms[side[0]]
        atom = z3.Real(f"e_{side[0]}_{side[1]}", self.ctx)
        self.products.append((-1, atom == self.terms[side[0]] * self.terms[side[1]]))
        return exponent, atom

    def case(self, i, first: bool):
        """The facts of one branch of a split on node ``i`` (or on the exp relation ``i``)."""
        if isinstance(i, tuple):
            (p, big_p), (q, big_q) = self.exp_sides[i[0]], self.exp_sides[i[1]]
            return [p <= q, big_p <= big_q] if first else [q < p, big_q < big_p]
        op, args, t = self.formula.nodes[i][0], [self.terms[a] for a in self.formula.nodes[i][1:]], self.terms[i]
        if op == "abs":
            return [args[0] >= 0, t == args[0]] if first else [args[0] <= 0, t == -args[0]]
        if op == "max":
            return [args[1] <= args[0], t == args[0]] if first else [args[0] <= args[1], t == args[1]]
        return [args[0] <= args[1], t == args[0]] if first else [args[1] <= args[0], t == args[1]]

    def wrong(self, model, decided: Mapping, roots: list[int], relations=()) -> list:
        """Unresolved abs/max/min nodes whose value in ``model`` is not what the node computes (every
        unresolved one without a model), in the
        order a case analysis should resolve them: outermost first along the paths from ``roots``
        that the resolved nodes leave open (a resolved max leads only into the argument it chose);
        then the undecided ``relations`` (exp relations) that ``model`` satisfies in neither branch."""
        out = self._wrong_nodes(model, decided, roots)
        if model is not None:
            for r in relations:
                if r not in decided and not any(z3.is_true(model.eval(z3.And(self.case(r, first)), model_completion=True))
                                                for first in (True, False)):
                    out.append(r)
        return out

    def _wrong_nodes(self, model, decided: Mapping, roots: list[int]) -> list[int]:
        nodes = self.formula.nodes
        out, seen, queue = [], set(roots), list(roots)
        while queue:
            i = queue.pop(0)
            node = nodes[i]
            if node[0] in ("var", "const"):
                continue
            follow = list(node[1:])
            if node[0] in PIECEWISE:
                if i in decided:
                    first = decided[i]
                    follow = [node[1]] if node[0] == "abs" else [node[1] if first else node[2]]
                elif model is None or self._is_wrong(model, i):
                    out.append(i)
            for a in follow:
                if a not in seen:
                    seen.add(a)
                    queue.append(a)
        return out

    def _is_wrong(self, model, i: int) -> bool:
        node = self.formula.nodes[i]
        value = _value(model, self.terms[i])
        args = [_value(model, self.terms[a]) for a in node[1:]]
        return value != (abs(args[0]) if node[0] == "abs" else (max if node[0] == "max" else min)(*args))


def _value(model, term) -> Fraction:
    v = model.eval(term, model_completion=True)
    if z3.is_rational_value(v):
        return Fraction(v.numerator_as_long(), v.denominator_as_long())
    return Fraction(v.approx(30).as_fraction())


def _fails(relation: str, lhs, rhs):
    return {"<=": lhs > rhs, "<": lhs >= rhs, ">=": lhs < rhs, ">": lhs <= rhs, "==": lhs != rhs}[relation]


def goals(formula: Formula) -> list[tuple[int, str]]:
    """What a proof proves one by one: (entry, relation) for every entry, an equality as two inequalities."""
    out = []
    for j in range(len(formula.lhs)):
        out += [(j, "<="), (j, ">=")] if formula.relation == "==" else [(j, formula.relation)]
    return out


def case_tree(formula: Formula, boxes: Mapping[str, tuple | None], goal: tuple[int, str], max_leaves: int = MAX_LEAVES):
    """A case tree for one goal of ``formula`` (:func:`goals`) on ``boxes`` whose leaves
    ``lra``/``nra`` close; raises :class:`NoCaseTree` naming why there is none (a case z3
    cannot close, too many cases)."""
    enc = _Encoding(formula, boxes)
    entry, relation = goal
    negated = _fails(relation, enc.terms[formula.lhs[entry]], enc.terms[formula.rhs[entry]])
    roots = [formula.lhs[entry], formula.rhs[entry]] + [i for h in formula.hypotheses for i in h.entries]
    relations = _needed_relations(enc, negated)
    solver = z3.Solver(ctx=enc.ctx)
    solver.set("rlimit", CASE_RLIMIT)
    solver.add(*enc.facts, negated)
    # every case (and the products as products) is an assumption, so a closed case names the
    # decisions it used (its unsat core): a split whose first branch closes without its decision
    # was not needed, and the branch's tree serves alone
    literals: dict[tuple, object] = {}

    def literal(i, first: bool):
        key = (i, first)
        if key not in literals:
            name = f"case_{i}" if isinstance(i, int) else f"case_exp_{'_'.join(map(str, i[0]))}_vs_{'_'.join(map(str, i[1]))}"
            literals[key] = z3.Bool(f"{name}_{int(first)}", enc.ctx)
            solver.add(z3.Implies(literals[key], z3.And(enc.case(i, first))))
        return literals[key]

    products = z3.Bool("products", enc.ctx)
    solver.add(z3.Implies(products, z3.And([p for _, p in enc.products] or [z3.BoolVal(True, enc.ctx)])))
    count = [0]

    def closed(leaf: str) -> tuple[str, set]:
        count[0] += 1
        if count[0] > max_leaves:
            raise NoCaseTree(f"more than {max_leaves} cases")
        core = {str(c) for c in solver.unsat_core()}
        return leaf, {key for key, lit in literals.items() if str(lit) in core}

    def grow(decided: dict[int, bool]):
        assumptions = [literal(i, first) for i, first in decided.items()]
        answer = solver.check(*assumptions)
        if answer == z3.unsat:
            return closed("lra")
        if answer == z3.unknown:
            raise NoCaseTree(f"z3 could not decide a case ({solver.reason_unknown()})")
        wrong = enc.wrong(solver.model(), decided, roots, relations)
        if not wrong and enc.products:
            # only products are wrong: resolve every abs/max/min still open first, so that nra (and z3)
            # face a polynomial, not a piecewise one
            wrong = enc.wrong(None, decided, roots)
        if not wrong and enc.products:
            answer = solver.check(*assumptions, products)
            if answer == z3.unsat:
                return closed("nra")
            if answer == z3.unknown:
                raise NoCaseTree(f"z3 could not decide a case ({solver.reason_unknown()})")
            wrong = enc.wrong(solver.model(), decided, roots, relations)
        if not wrong:
            raise NoCaseTree("a case is satisfiable with every abs, max and min resolved" + (" and every exp relation it needs decided" if relations else ""))
        i = wrong[0]
        first, used_first = grow({**decided, i: True})
        if (i, True) not in used_first:
            return first, used_first
        second, used_second = grow({**decided, i: False})
        if (i, False) not in used_second:
            return second, used_second
        kind = "exp" if isinstance(i, tuple) else formula.nodes[i][0]
        return Split(i, kind, (first, second)), (used_first | used_second) - {(i, True), (i, False)}

    return grow({})[0]


def _needed_relations(enc: _Encoding, negated) -> list[tuple]:
    """The exp relations a proof of the goal needs: z3's unsat core with every candidate asserted
    (each as its two branches' disjunction), abs, max and min exact and the products as
    products; [] without exps.
    Raises :class:`NoCaseTree` when they do not imply the goal, or z3 cannot tell."""
    if not enc.relations:  # no exp: nothing made in z3's context (the tree of a polynomial claim stays as it was)
        return []
    candidates = _decided_relations(enc)
    if not candidates:
        return []
    solver = z3.Solver(ctx=enc.ctx)
    solver.set("rlimit", CASE_RLIMIT)
    solver.add(*enc.facts, negated, *[p for _, p in enc.products])
    for i, node in enumerate(enc.formula.nodes):  # abs, max and min exactly: each is one of its two cases
        if node[0] in PIECEWISE:
            solver.add(z3.Or(z3.And(enc.case(i, True)), z3.And(enc.case(i, False))))
    tracked = [z3.Bool(f"relation_{k}", enc.ctx) for k in range(len(candidates))]
    for lit, r in zip(tracked, candidates):
        solver.add(z3.Implies(lit, z3.Or(z3.And(enc.case(r, True)), z3.And(enc.case(r, False)))))
    answer = solver.check(*tracked)
    if answer == z3.sat:
        raise NoCaseTree("exp's order, product and tangent relations do not imply the goal")
    if answer == z3.unknown:
        raise NoCaseTree(f"z3 could not decide the goal with exp's relations ({solver.reason_unknown()})")
    core = {str(c) for c in solver.unsat_core()}
    return [r for lit, r in zip(tracked, candidates) if str(lit) in core]


def _decided_relations(enc: _Encoding) -> list[tuple]:
    """The candidate exp relations whose exponents' order the box, the hypotheses and what holds
    of abs, max and min everywhere decide in linear arithmetic (one branch of the split is then
    closed by ``lra`` at once): the ones that say something on every point of the domain.  A
    relation whose exponents' order is open would need a split of its own; none is offered."""
    solver = z3.Solver(ctx=enc.ctx)
    solver.set("rlimit", CASE_RLIMIT)
    solver.add(*enc.facts)
    out = []
    for r in enc.relations:
        (p, _), (q, _) = enc.exp_sides[r[0]], enc.exp_sides[r[1]]
        if solver.check(q < p) == z3.unsat or solver.check(p <= q) == z3.unsat:
            out.append(r)
    return out


__all__ = ["EXP_SHAPES", "MAX_LEAVES", "MAX_PRODUCT_EXPS", "NoCaseTree", "Split", "case_tree", "goals", "leaves", "tree_from_data", "tree_to_data"]
