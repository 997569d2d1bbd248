"""SMT for claims with exp: every ``exp(t)`` an unknown positive number with exp's relations.

z3 has no exp, so a claim with it is outside :mod:`.smt`.  An *abstraction* puts it back:
each distinct ``exp(t)`` becomes a fresh real ``E_t`` constrained only by facts that the
true exp satisfies --

* ``E_t > 0`` and ``E_t >= 1 + t`` (exp lies above its tangent at 0);
* order: ``t <= s  <=>  E_t <= E_s``, also against ``exp(0) = 1``;
* products: ``t <= s + r  <=>  E_t <= E_s E_r`` and ``s + r <= t  <=>  E_s E_r <= E_t``
  (exp(s + r) = exp(s) exp(r), and exp is increasing) -- this is what sees that
  ``exp(a + b) <= exp(a) exp(eps)`` when ``b <= eps``;
* for a number t, rational bounds of exp(t) from a ball enclosure (arb).

Every true point of the claim gives a model of the abstraction (put ``E_t = exp(t)``), so
``unsat`` of the abstracted negation means no point violates the claim: a proof.  ``sat`` is
*not* a counterexample (the model's E values need not be exponentials): its values of the
claim's own variables go through the ordinary certifier, and are dropped unless certified.
"""

from __future__ import annotations

import itertools
import time
from fractions import Fraction

import z3
from flint import arb, fmpq

from ..claims import Check
from ..results import CheckResult, Verdict
from .domain import ProofBox
from .result import Proof, ProofDetails, base_fields
from .certificate import ProofCertificate, Reduction
from .smt import from_model, formulas, parametrisations
from .smt import z3_reason
from .strategy import Budget, ProofStop, Strategy
from .z3ctx import NotDecidable, Z3Context

#: distinct exponentials at most for the product relations (their number grows as the cube)
MAX_PRODUCT_TERMS = 6
#: z3's resource units per negated operand (about 0.3 s on one core): a budget of work, not of
#: time, so that the same claim gets the same answer on any machine (``verify lock`` relies on it)
RESOURCE_LIMIT = 1_000_000
#: seconds at most for the abstraction (z3's resource limit decides first: the same answer on any machine)
ABSTRACTION_SECONDS = 5.0


class ExpAbstraction(Z3Context):
    """z3 terms with each exp(t) a fresh unknown; :meth:`facts` says what exp satisfies."""

    name = "z3-exp-abstracted"

    def __init__(self):
        self.terms: list[tuple] = []  # (t, E_t) per distinct exponent
        self._index: dict[int, int] = {}

    def exp(self, x):
        return self._apply(self._exp_one, x, reuse=False)

    def _exp_one(self, t):
        t = self.lift_value(t)
        t = z3.simplify(t) if z3.is_expr(t) else t
        key = t.get_id()
        k = self._index.get(key)
        if k is None:
            k = self._index[key] = len(self.terms)
            self.terms.append((t, z3.Real(f"exp!{k}")))
        return self.terms[k][1]

    def facts(self, used=None) -> list:
        """What exp satisfies, for the exponentials numbered in ``used`` (default: all)."""
        terms = [x for k, x in enumerate(self.terms) if used is None or k in used]
        out = []
        for t, e in terms:
            out += [e > 0, e >= 1 + t]
            if z3.is_rational_value(t):
                out += _numeric_bounds(t, e)
        one = (z3.RealVal(0), z3.RealVal(1))
        for (t, e), (s, f) in itertools.combinations(terms + [one], 2):
            out.append((t <= s) == (e <= f))
        if len(terms) <= MAX_PRODUCT_TERMS:
            for i, (t, e) in enumerate(terms):
                others = [x for j, x in enumerate(terms) if j != i]
                for (s, f), (r, g) in itertools.combinations_with_replacement(others, 2):
                    out.append((t <= s + r) == (e <= f * g))
                    out.append((s + r <= t) == (f * g <= e))
        return out

    def used(self, assertions) -> set[int]:
        """The exponentials that ``assertions`` mention, directly or through another's exponent."""
        names = {str(e): k for k, (_, e) in enumerate(self.terms)}
        out, seen, stack = set(), set(), list(assertions)
        while stack:
            a = stack.pop()
            if a.get_id() in seen:
                continue
            seen.add(a.get_id())
            k = names.get(str(a)) if z3.is_const(a) else None
            if k is not None and k not in out:
                out.add(k)
                stack.append(self.terms[k][0])
            stack.extend(a.children())
        return out


def _numeric_bounds(t, e) -> list:
    q = Fraction(t.numerator_as_long(), t.denominator_as_long())
    if abs(q) > 256:  # e^10000 has 4,343 digits: a bound z3 reads through its decimal text; leaving it out only weakens
        return []
    ball = arb(fmpq(q.numerator, q.denominator)).exp()
    lo, hi = ball.lower().mid().man_exp(), ball.upper().mid().man_exp()
    as_q = lambda me: Fraction(int(me[0])) * Fraction(2) ** int(me[1])
    return [e >= z3.RealVal(as_q(lo)), e <= z3.RealVal(as_q(hi))]


def prove_exp_abstracted(check: Check, domain: ProofBox, time_limit: float, dps: int = 50) -> Proof | None:
    """A proof, or a certified counterexample, from the abstraction; None when it decides nothing.

    A margin that is a minimum (an elementwise part: every entry must hold) is negated one
    operand at a time, each with the relations of only the exponentials it mentions: the
    relations grow as the cube of their number, and entry i rarely needs entry j's.
    Raises NotDecidable when the claim uses a function other than exp outside real
    arithmetic (log, sqrt, tanh, ...), as :func:`.smt.formula` does.
    """
    start = time.monotonic()
    deadline = start + time_limit
    ctx = ExpAbstraction()
    param = parametrisations(check, domain)[-1]
    base = base_fields(check, dps)
    details = dict(method="smt", domain=domain.to_dict(), time_limit=time_limit)
    refuted = []  # SMT-LIB of every formula z3 found unsatisfiable: together, the proof
    for values, data, assertions in formulas(check, domain, param, ctx):
        if not ctx.terms:
            return None  # nothing abstracted: the exact SMT has already had its say
        *facts, negated = assertions
        margin, strict = negated.arg(0), z3.is_le(negated)
        for operand in _min_operands(margin):
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            goal = operand <= 0 if strict else operand < 0
            solver = z3.Solver()
            solver.set("timeout", max(1, int(left * 1000)))
            solver.set("rlimit", RESOURCE_LIMIT)
            solver.add(*facts, goal, *ctx.facts(ctx.used(facts + [goal])))
            answer = solver.check()
            if answer == z3.unsat:
                refuted.append(solver.to_smt2())
            if answer == z3.sat:
                proof = from_model(check, domain, param, values, data, solver.model(), start, base, details, dps)
                return proof if proof.result.counterexample is not None else None  # certified, or dropped
            if answer != z3.unsat:
                return None
    return Proof(
        CheckResult(verdict=Verdict.PROVED, method="smt", seconds=time.monotonic() - start, domain=domain.describe(check),
                    stop_reason="z3: the negated claim is unsatisfiable with every exp abstracted",
                    message=(f"proved by SMT with exp abstracted: z3 finds the negated claim unsatisfiable with each of "
                             f"the {len(ctx.terms)} exp(t) an unknown obeying exp's order, product and tangent relations"), **base),
        ProofDetails(solver="unsat (exp abstracted)", stop=ProofStop.PROVED, certificate=ProofCertificate(
            method="smt", dims=dict(domain.dims), domain=domain.to_dict(),
            reductions=(Reduction("substitution", "every exp(t) is an unknown E_t obeying only facts true of exp (E_t > 0, "
                                  "E_t >= 1 + t, order, products, rational bounds at numbers): a counterexample to the claim "
                                  "is a model of every formula below",
                                  {"exponents": [str(t) for t, _ in ctx.terms], "unknowns": [str(e) for _, e in ctx.terms]}),),
            smt="\n".join(refuted), notes=("each SMT-LIB formula is unsatisfiable; their disjunction is the negated claim",)),
            **details),
    )


def _min_operands(term) -> list:
    """The operands of a minimum, nested: ``If(p <= q, p, q)`` or ``If(p >= q, q, p)`` (strict or
    not) is min(p, q), and min(...) < 0 iff one of its operands is."""
    if z3.is_app_of(term, z3.Z3_OP_ITE):
        cond, then, other = term.children()
        if z3.is_le(cond) or z3.is_lt(cond) or z3.is_ge(cond) or z3.is_gt(cond):
            smaller, larger = cond.children() if (z3.is_le(cond) or z3.is_lt(cond)) else reversed(cond.children())
            if smaller.eq(then) and larger.eq(other):
                return _min_operands(then) + _min_operands(other)
    return [term]


def exp_reason(check: Check, domain: ProofBox) -> str | None:
    """None when every function of the claim outside real arithmetic is exp (and there is one),
    else why the exponential strategies do not apply."""
    ctx = ExpAbstraction()
    reason = z3_reason(check, domain, ctx)
    if reason is not None:
        return reason
    return None if ctx.terms else "no exp in the claim (the plain SMT strategy decides it)"


class ExpStrategy(Strategy):
    """A z3 strategy for claims whose one function outside real arithmetic is exp: ``prove`` is its
    prover (check, domain, seconds, dps) -> Proof | None."""

    prove = None

    def applies(self, check: Check, domain: ProofBox) -> str | None:
        return exp_reason(check, domain)

    def attempt(self, check: Check, domain: ProofBox, budget: Budget) -> Proof | None:
        try:
            return type(self).prove(check, domain, budget.seconds, budget.dps)
        except NotDecidable:
            return None


class ExpAbstractionStrategy(ExpStrategy):
    """z3 with every exp(t) an unknown obeying exp's order, product and tangent relations."""

    name = "exp-abstraction"
    summary = "z3 with every exp(t) an unknown that obeys exp's order, product and tangent facts (unsat is a proof)"
    seconds = ABSTRACTION_SECONDS
    prove = staticmethod(prove_exp_abstracted)

    def undecided(self, check: Check, domain: ProofBox) -> str:
        return "z3 did not find the abstraction unsatisfiable within its resource limit, and no model was certified"


__all__ = ["ABSTRACTION_SECONDS", "ExpAbstraction", "ExpAbstractionStrategy", "ExpStrategy", "exp_reason", "prove_exp_abstracted"]
