"""SMT for claims with exp in an exact exponential basis: exp(sum c_k x_k) = prod y_k^(q_k c_k).

Where every exponent of a claim is piecewise linear in the claim's variables (sums and rational
multiples, max, min, abs -- the ``If`` terms of :class:`~.z3ctx.Z3Context`) with rational
coefficients, a new unknown ``y_k = exp(x_k / q_k)`` per variable x_k inside exp (q_k the common
denominator of x_k's coefficients) writes each exponential *exactly* as a monomial: exp pushed
through the branches of every ``If`` (exp(max(a, b)) = max(exp a, exp b), exp is increasing),
and ``exp(sum c_k x_k + c) = K_c prod y_k^(q_k c_k)``, negative powers as division.  A constant
exp(c) is the one thing not exact: an unknown K_c between rational bounds of exp(c) (arb).

Comparisons of linear forms translate exactly too: ``L <= R  <=>  exp(L - R) <= 1``, a comparison
of monomials.  So a hypothesis ``|b_i| <= eps`` or a box bound ``x <= 1`` becomes
``y_b <= y_eps`` or ``y_x <= K_1``, and a claim whose variables occur only inside exp and in such
comparisons becomes a semi-algebraic statement in y alone (y > 0): nonlinear real arithmetic,
which z3 decides.  A variable that also occurs outside exp keeps its x, with sound links to its
y: every comparison it appears in holds of x exactly when of y, tangents of exp and of exp(-x)
at the ends of its box and at 0, and chords between them (exp is convex).

Soundness: every true point gives a model (y_k = exp(x_k / q_k), K_c = exp(c)), so ``unsat``
of the negation is a proof.  ``sat`` is only a lead: the model's x (or q log y) goes through the
ordinary certifier and is dropped unless certified.  z3 runs within a resource limit (a budget
of work, not of time: the same answer on any machine).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction

import z3
from flint import arb, ctx as flint_ctx, fmpq

from ..claims import Check
from ..results import CheckResult, Verdict
from .domain import ProofBox
from .result import Proof, ProofDetails, base_fields
from .certificate import ProofCertificate, Reduction
from .smt import certify_point, formulas, parametrisations
from .smt_exp import ExpAbstraction, ExpStrategy
from .strategy import ProofStop
from .z3ctx import model_fraction

#: z3's resource units per negated operand: a budget of work, the same on any machine.  The seeded
#: weighted-perturbation family needs 2,000,000 (tests/quality/test_prove_exp_basis.py); 4,000,000
#: cost 12 s on a claim the basis cannot decide (attention-classics' softmax-lipschitz part 2), 2.3 s at 2,000,000
RESOURCE_LIMIT = 2_500_000
#: leaves of a piecewise linear exponent at most (a sum of two maxima has the product of theirs)
MAX_LEAVES = 256
#: operands of a negated minimum at most (each is its own solver call)
MAX_OPERANDS = 64
#: |c| at most for a rational bound of exp(c) in a formula (z3 reads numbers through their decimal text)
MAX_EXPONENT = 256
#: seconds at most for the exponential basis: nonlinear arithmetic spends its resource units
#: slowly (Lemma D.5 [intended] at n = 2 is decided in 1.4 s idle; a formula the basis cannot
#: decide exhausts its resource limit in 10-14 s idle, D.4 and D.5 at n = 3), so the clock is set
#: where the resource limit, the same on every machine, decides on a machine up to 10 times slower
BASIS_SECONDS = 20.0

_COMPARISONS = {z3.Z3_OP_LE: "<=", z3.Z3_OP_LT: "<", z3.Z3_OP_GE: ">=", z3.Z3_OP_GT: ">", z3.Z3_OP_EQ: "=="}


class NotLinear(Exception):
    """An exponent (or a comparison) is not piecewise linear with rational coefficients."""


@dataclass(frozen=True)
class Leaf:
    """A linear form sum coeffs[name] * x_name + const."""

    coeffs: tuple  # sorted (name, Fraction) pairs, no zero coefficient
    const: Fraction

    def plus(self, other: "Leaf", scale: Fraction = Fraction(1)) -> "Leaf":
        out = dict(self.coeffs)
        for name, c in other.coeffs:
            out[name] = out.get(name, Fraction(0)) + scale * c
        return Leaf(tuple(sorted((k, v) for k, v in out.items() if v)), self.const + scale * other.const)

    def scaled(self, s: Fraction) -> "Leaf":
        return Leaf(tuple((k, s * v) for k, v in self.coeffs if s * v), s * self.const)


@dataclass(frozen=True)
class Branch:
    """If(cond, then, other) of piecewise linear forms; cond is a z3 Boolean in the x variables."""

    cond: z3.BoolRef
    then: "Leaf | Branch"
    other: "Leaf | Branch"


def leaves(tree):
    return [tree] if isinstance(tree, Leaf) else leaves(tree.then) + leaves(tree.other)


def _map(tree, fn):
    return fn(tree) if isinstance(tree, Leaf) else Branch(tree.cond, _map(tree.then, fn), _map(tree.other, fn))


def _combine(a, b, scale: Fraction):
    """a + scale * b, as one tree."""
    if isinstance(b, Leaf):
        return _map(a, lambda leaf: leaf.plus(b, scale))
    if isinstance(a, Leaf):
        return _map(b, lambda leaf: a.plus(leaf, scale))
    if len(leaves(a)) * len(leaves(b)) > MAX_LEAVES:
        raise NotLinear("too many pieces")
    return _map(a, lambda leaf: _map(b, lambda other: leaf.plus(other, scale)))


class Linearizer:
    """Piecewise linear forms of z3 terms in the claim's variables (memoised on the term)."""

    def __init__(self, variables: dict[str, z3.ArithRef]):
        self.variables = variables
        self._memo: dict[int, Leaf | Branch] = {}

    def __call__(self, t):
        key = t.get_id()
        if key not in self._memo:
            self._memo[key] = self._linear(t)
        return self._memo[key]

    def _linear(self, t):
        if z3.is_rational_value(t):
            return Leaf((), Fraction(t.numerator_as_long(), t.denominator_as_long()))
        if z3.is_int_value(t):
            return Leaf((), Fraction(t.as_long()))
        if z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            if str(t) not in self.variables:
                raise NotLinear(f"{t} is not a variable of the claim")
            return Leaf(((str(t), Fraction(1)),), Fraction(0))
        kind = t.decl().kind()
        args = t.children()
        if kind == z3.Z3_OP_ADD:
            out = self(args[0])
            for a in args[1:]:
                out = _combine(out, self(a), Fraction(1))
            return out
        if kind == z3.Z3_OP_SUB:
            out = self(args[0])
            for a in args[1:]:
                out = _combine(out, self(a), Fraction(-1))
            return out
        if kind == z3.Z3_OP_UMINUS:
            return _map(self(args[0]), lambda leaf: leaf.scaled(Fraction(-1)))
        if kind == z3.Z3_OP_MUL:
            parts = [self(a) for a in args]
            constants = [p for p in parts if isinstance(p, Leaf) and not p.coeffs]
            others = [p for p in parts if not (isinstance(p, Leaf) and not p.coeffs)]
            if len(others) > 1:
                raise NotLinear("a product of variables")
            s = math.prod((c.const for c in constants), start=Fraction(1))
            return _map(others[0], lambda leaf: leaf.scaled(s)) if others else Leaf((), s)
        if kind == z3.Z3_OP_DIV:
            num, den = self(args[0]), self(args[1])
            if not (isinstance(den, Leaf) and not den.coeffs and den.const):
                raise NotLinear("a division by a variable")
            return _map(num, lambda leaf: leaf.scaled(1 / den.const))
        if kind == z3.Z3_OP_TO_REAL:
            return self(args[0])
        if kind == z3.Z3_OP_ITE:
            return Branch(args[0], self(args[1]), self(args[2]))
        raise NotLinear(f"{t.decl().name()} in an exponent")


def _exp_bounds(c: Fraction) -> tuple[Fraction, Fraction]:
    """Rational lower and upper bounds of exp(c) (an arb ball at 128 bits)."""
    old = flint_ctx.prec
    flint_ctx.prec = 128
    try:
        ball = arb(fmpq(c.numerator, c.denominator)).exp()
        ends = [ball.lower(), ball.upper()]
    finally:
        flint_ctx.prec = old
    lo, hi = (Fraction(int(m)) * Fraction(2) ** int(e) for m, e in (x.mid().man_exp() for x in ends))
    return lo, hi


class ExpBasis:
    """The translation of one formula: monomials in y for the exponentials, comparisons in y."""

    def __init__(self, variables: dict[str, z3.ArithRef], exponents: list):
        self.variables = variables
        self.linear = Linearizer(variables)
        trees = [self.linear(t) for t in exponents]  # NotLinear propagates: the basis does not apply
        denominators: dict[str, int] = {}
        for tree in trees:
            for leaf in leaves(tree):
                for name, c in leaf.coeffs:
                    denominators[name] = math.lcm(denominators.get(name, 1), c.denominator)
        self.q = denominators
        self.y = {name: z3.Real(f"exp({name}/{q})" if q != 1 else f"exp({name})") for name, q in denominators.items()}
        self.constants: dict[Fraction, z3.ArithRef] = {}
        self._conditions: dict[int, z3.BoolRef] = {}
        self.values = [self.value(tree) for tree in trees]

    # ---------------------------------------------------------------- monomials
    def _monomial(self, leaf: Leaf) -> tuple[z3.ArithRef, z3.ArithRef]:
        """(numerator, denominator) of exp(leaf) as products of y's and K_c."""
        top, bottom = [], []
        for name, c in leaf.coeffs:
            power = c * self.q[name]
            assert power.denominator == 1
            (top if power > 0 else bottom).extend([self.y[name]] * abs(int(power)))
        if leaf.const:
            top.append(self.constant_value(leaf.const))
        product = lambda xs: z3.RealVal(1) if not xs else (xs[0] if len(xs) == 1 else z3.Product(*xs))
        return product(top), product(bottom)

    def constant_value(self, c: Fraction):
        if c not in self.constants:
            self.constants[c] = z3.Real(f"exp({c})")
        return self.constants[c]

    def value(self, tree):
        """exp(tree) in y."""
        if isinstance(tree, Branch):
            return z3.If(self.condition(tree.cond), self.value(tree.then), self.value(tree.other))
        top, bottom = self._monomial(tree)
        return top if z3.is_rational_value(bottom) else top / bottom

    # ---------------------------------------------------------------- comparisons
    def comparison(self, atom) -> z3.BoolRef:
        """The comparison ``L op R`` of linear forms as exp(L - R) op 1, in y; NotLinear if not one."""
        kind = atom.decl().kind()
        if kind not in _COMPARISONS or not z3.is_arith(atom.arg(0)):
            raise NotLinear("not a comparison")
        tree = _combine(self.linear(atom.arg(0)), self.linear(atom.arg(1)), Fraction(-1))
        # a positive multiple of L - R compares the same way: one whose powers of y are integers
        scale = 1
        for leaf in leaves(tree):
            for name, c in leaf.coeffs:
                if name not in self.q:
                    raise NotLinear(f"{name} has no exponential")
                scale = math.lcm(scale, (c * self.q[name]).denominator)
        return self._compare(_map(tree, lambda leaf: leaf.scaled(Fraction(scale))), _COMPARISONS[kind])

    def _compare(self, tree, op):
        if isinstance(tree, Branch):
            return z3.If(self.condition(tree.cond), self._compare(tree.then, op), self._compare(tree.other, op))
        top, bottom = self._monomial(tree)
        return {"<=": top <= bottom, "<": top < bottom, ">=": top >= bottom, ">": top > bottom, "==": top == bottom}[op]

    def condition(self, b):
        """A Boolean in x as one in y where its comparisons translate, else as it is (still exact)."""
        key = b.get_id()
        if key not in self._conditions:
            self._conditions[key] = self._condition(b)
        return self._conditions[key]

    def _condition(self, b):
        if z3.is_and(b) or z3.is_or(b) or z3.is_not(b):
            parts = [self.condition(c) for c in b.children()]
            return z3.And(*parts) if z3.is_and(b) else z3.Or(*parts) if z3.is_or(b) else z3.Not(parts[0])
        try:
            return self.comparison(b)
        except NotLinear:
            return b

    # ---------------------------------------------------------------- facts
    def facts(self, remaining: set[str], spans: dict[str, tuple | None]) -> list:
        """What y and K satisfy: positivity, K_c's rational bounds, and for each variable that keeps
        its x, tangents of exp(x/q) and exp(-x/q) and chords on its box."""
        # every fact below is one exp satisfies, so leaving one out only weakens the formula: those
        # about exp of a number beyond MAX_EXPONENT (e^10000 has 4,343 digits) are left out
        out = [y > 0 for y in self.y.values()]
        for c, k in self.constants.items():
            out.append(k > 0)
            if abs(c) <= MAX_EXPONENT:
                lo, hi = _exp_bounds(c)
                out += [k >= z3.RealVal(lo), k <= z3.RealVal(hi)]
        for name in sorted(remaining & set(self.y)):
            x, y, q = self.variables[name], self.y[name], self.q[name]
            span = spans.get(name)
            points = sorted({Fraction(0)} | (set(span) if span else set()))
            points = [p for p in points if abs(p / q) <= MAX_EXPONENT and (not span or span[0] <= p <= span[1])]
            for p in points:
                lo, _ = _exp_bounds(p / q)
                inv_lo, _ = _exp_bounds(-p / q)
                # exp(s) >= exp(p)(1 + s - p) and exp(-s) >= exp(-p)(1 - (s - p)), s = x/q
                out.append(y >= z3.RealVal(lo) * (1 + (x - z3.RealVal(p)) / q))
                out.append(y * z3.RealVal(inv_lo) * (1 - (x - z3.RealVal(p)) / q) <= 1)
            for u, v in zip(points, points[1:]):
                _, hu = _exp_bounds(u / q)
                _, hv = _exp_bounds(v / q)
                chord = z3.RealVal(hu) + z3.RealVal((hv - hu) / (v - u)) * (x - z3.RealVal(u))
                out.append(z3.Implies(z3.And(x >= z3.RealVal(u), x <= z3.RealVal(v)), y <= chord))
        return out


def _atoms(terms) -> list:
    """Every arithmetic comparison in ``terms`` (each once)."""
    out, seen, stack = [], set(), list(terms)
    while stack:
        t = stack.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_bool(t) and t.decl().kind() in _COMPARISONS and t.num_args() == 2 and z3.is_arith(t.arg(0)):
            out.append(t)
        stack.extend(t.children())
    return out


def _free_names(terms, stop: set[int]) -> set[str]:
    """Names of the uninterpreted constants in ``terms`` outside the subterms numbered in ``stop``."""
    out, seen, stack = set(), set(), list(terms)
    while stack:
        t = stack.pop()
        if t.get_id() in seen or t.get_id() in stop:
            continue
        seen.add(t.get_id())
        if z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            out.add(str(t))
        stack.extend(t.children())
    return out


def translate(facts: list, goal, ctx: ExpAbstraction, variables: dict[str, z3.ArithRef], spans: dict):
    """(basis, assertions in y): the facts and the goal with every exp a monomial in y, every
    comparison of a variable that lives only inside exp in y, and the links of the others.
    NotLinear when an exponent is not piecewise linear."""
    basis = ExpBasis(variables, [t for t, _ in ctx.terms])
    pairs = [(e, v) for (_, e), v in zip(ctx.terms, basis.values)]
    assertions = [z3.substitute(a, *pairs) if pairs else a for a in facts + [goal]]
    translated = {}
    for atom in _atoms(assertions):
        try:
            translated[atom.get_id()] = (atom, basis.comparison(atom))
        except NotLinear:
            pass
    # the variables that occur outside the comparisons translated keep their x
    remaining = _free_names(assertions, set(translated)) & set(variables)
    swaps, links = [], []
    for atom, in_y in translated.values():
        if _free_names([atom], set()) & remaining:
            links.append(atom == in_y)  # the same truth value at every true point
        else:
            swaps.append((atom, in_y))
    if swaps:
        assertions = [z3.substitute(a, *swaps) for a in assertions]
    return basis, assertions + links + basis.facts(remaining, spans)


def _extremum(term, largest: bool):
    """(p, q) when ``term`` is max(p, q) (``largest``) or min(p, q) as an ``If``; |t| is max(t, -t)."""
    if not z3.is_app_of(term, z3.Z3_OP_ITE):
        return None
    cond, then, other = term.children()
    if not (z3.is_le(cond) or z3.is_lt(cond) or z3.is_ge(cond) or z3.is_gt(cond)):
        return None
    left, right = cond.children()
    then_when_smaller = z3.is_le(cond) or z3.is_lt(cond)  # If(l <= r, l, r) is min(l, r)
    if largest and z3.is_rational_value(right) and right.as_fraction() == 0 and then.eq(left) \
            and z3.eq(z3.simplify(-left), z3.simplify(other)) and not then_when_smaller:
        return left, other  # If(t >= 0, t, -t) = max(t, -t)
    if then.eq(left) and other.eq(right) and then_when_smaller != largest:
        return then, other
    if then.eq(right) and other.eq(left) and then_when_smaller == largest:
        return then, other
    return None


def extreme_operands(term, largest: bool = False) -> list:
    """Terms whose minimum (maximum, ``largest``) is ``term``: min(p, q) - max(r, s) is the
    minimum of p - r, p - s, q - r, q - s.  A negated minimum (< 0) holds where one operand's
    does, so each operand is decided on its own -- a smaller formula."""
    pair = _extremum(term, largest)
    if pair is not None:
        return extreme_operands(pair[0], largest) + extreme_operands(pair[1], largest)
    if z3.is_app_of(term, z3.Z3_OP_SUB) and term.num_args() == 2:
        left, right = extreme_operands(term.arg(0), largest), extreme_operands(term.arg(1), not largest)
        if 1 < len(left) * len(right) <= MAX_OPERANDS:
            return [a - b for a in left for b in right]
    if z3.is_app_of(term, z3.Z3_OP_MUL) and term.num_args() == 2 and z3.is_rational_value(term.arg(0)):
        factor = term.arg(0).as_fraction()
        inner = extreme_operands(term.arg(1), largest if factor > 0 else not largest) if factor else [term.arg(1)]
        if len(inner) > 1:
            return [term.arg(0) * t for t in inner]
    return [term]


def prove_exp_basis(check: Check, domain: ProofBox, time_limit: float, dps: int = 50) -> Proof | None:
    """A proof, or a certified counterexample, in the exponential basis; None when it decides
    nothing or does not apply (no exp, or an exponent not piecewise linear).  Raises
    NotDecidable where a function other than exp leaves real arithmetic."""
    start = time.monotonic()
    deadline = start + time_limit
    ctx = ExpAbstraction()
    param = parametrisations(check, domain)[-1]
    base = base_fields(check, dps)
    details = dict(method="smt", domain=domain.to_dict(), time_limit=time_limit)
    refuted, substitutions = [], {}  # SMT-LIB of every formula found unsatisfiable; y_k = exp(x_k / q_k)
    for values, _, assertions in formulas(check, domain, param, ctx):
        if not ctx.terms:
            return None
        variables = {str(v): v for v in values if not isinstance(v, int)}
        spans = {str(v): s for v, s in zip(values, param.spans) if not isinstance(v, int)}
        *facts, negated = assertions
        margin, strict = negated.arg(0), z3.is_le(negated)
        for operand in extreme_operands(margin):
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                basis, formula = translate(facts, operand <= 0 if strict else operand < 0, ctx, variables, spans)
            except NotLinear:
                return None
            solver = z3.Solver()
            solver.set("timeout", max(1, int(left * 1000)))
            solver.set("rlimit", RESOURCE_LIMIT)
            solver.add(*formula)
            answer = solver.check()
            if answer == z3.unsat:
                refuted.append(solver.to_smt2())
                substitutions.update({str(basis.y[name]): f"exp({name}/{basis.q[name]})" for name in basis.y})
            if answer == z3.sat:
                point = _point(values, basis, solver.model())
                proof = certify_point(check, domain, param, point, start, base, details, dps)
                return proof if proof.result.counterexample is not None else None
            if answer != z3.unsat:
                return None
    return Proof(
        CheckResult(verdict=Verdict.PROVED, method="smt", seconds=time.monotonic() - start, domain=domain.describe(check),
                    stop_reason="z3: the negated claim is unsatisfiable in the exponential basis",
                    message=(f"proved by SMT in an exponential basis: with y = exp(x/q) per variable inside exp, each of the "
                             f"{len(ctx.terms)} exp(t) is exactly a monomial in y, and z3 finds the negated claim unsatisfiable"),
                    **base),
        ProofDetails(solver="unsat (exponential basis)", stop=ProofStop.PROVED, certificate=ProofCertificate(
            method="smt", dims=dict(domain.dims), domain=domain.to_dict(),
            reductions=(Reduction("substitution", "each variable x inside exp is written through y = exp(x/q), so every exp "
                                  "is exactly a monomial in y (a constant exp(c) an unknown between rational bounds); a "
                                  "counterexample to the claim is a model of one formula below", {"y": substitutions}),),
            smt="\n".join(refuted), notes=("each SMT-LIB formula is unsatisfiable; their disjunction is the negated claim",)),
            **details),
    )


class ExpBasisStrategy(ExpStrategy):
    """z3 on the claim written exactly in a basis y = exp(x/q), where every exponent is piecewise linear."""

    name = "exp-basis"
    summary = "z3 in an exact exponential basis y = exp(x/q), where every exponent is piecewise linear"
    seconds = BASIS_SECONDS
    prove = staticmethod(prove_exp_basis)

    def undecided(self, check: Check, domain: ProofBox) -> str:
        return "an exponent is not piecewise linear, or z3 did not decide the basis within its resource limit"


def _point(values, basis: ExpBasis, model) -> list:
    """The model's coordinates: x where it keeps one, else q log y (rounded: the certifier decides)."""
    out = []
    for v in values:
        if isinstance(v, int):
            out.append(v)
            continue
        name = str(v)
        decl = [d for d in model.decls() if d.name() == name]
        if decl or name not in basis.y:
            q = model_fraction(model, v)
        else:
            y = float(model_fraction(model, basis.y[name]))
            q = Fraction(basis.q[name] * math.log(y)).limit_denominator(10**12) if y > 0 else Fraction(0)
        out.append(fmpq(q.numerator, q.denominator))
    return out


__all__ = ["BASIS_SECONDS", "ExpBasis", "ExpBasisStrategy", "Linearizer", "NotLinear", "prove_exp_basis", "translate"]
