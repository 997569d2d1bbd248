"""A stored counterexample as a Coq script whose kernel check is a second, independent proof.

The claim's own functions are run once in :class:`CoqContext` on the exact counterexample,
which yields one graph of Coq real-number expressions for every hypothesis, lhs and rhs.
The script names every shared node (and every ``Rabs``/``Rmax``/``Rmin``/``exp``/...) as a
``Definition`` so terms stay small, then proves a fact about each named node in order:

* a rational node gets ``N = p/q``, proved by rewriting its named parts to their values,
  resolving ``Rabs``/``Rmax``/``Rmin`` by the (rational, hence decidable) sign of their
  arguments, and ``lra``;
* any other node gets ``lo <= N <= hi`` with dyadic bounds, proved by the Interval tactic
  from the bounds of its parts.  The bounds are computed here by the same interval
  evaluation Interval performs (``Rmax`` through ``Rabs``, as Interval sees it), then widened
  far beyond Interval's rounding, so the proof goes through without searching.

The final ``Theorem refutation`` states that every hypothesis holds and the conclusion
fails: ``rhs < lhs`` for a ``<=`` part (``lhs < rhs`` for ``>=``), ``lhs = rhs`` for a strict
part refuted at an equality, ``lhs <> rhs`` for ``==``.  Nothing here is trusted: if a bound
or a value is wrong, ``coqc`` rejects the script.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import sympy
from flint import arb, fmpq

from ..algebraic import is_algebraic_data
from ..contexts import BallContext
from ..evidence import LoadedCounterexample
from .terms import COQ_FUNCTIONS, CoqContext, NotExportable, Term, lift

#: Interval's working precisions in bits, tried in turn until the bounds decide every sign; a
#: node's bounds are widened by 2^(40 - precision) of its size, far above Interval's rounding
INTERVAL_PRECISIONS = (80, 320, 720)
BALL_PRECISION = 1000
CONJUNCTION = " /\\ "

#: loading Interval costs more CPU time than most proofs: only scripts that use it load it
INTERVAL_PREAMBLE = """\
Require Import Interval.Tactic.

(* Interval evaluates Rabs but not Rmax/Rmin: rewrite them through Rabs. *)
Lemma Rmax_via_abs : forall a b, Rmax a b = (a + b + Rabs (a - b)) / 2.
Proof. intros a b. unfold Rmax. destruct (Rle_dec a b); [rewrite Rabs_left1 by lra | rewrite Rabs_pos_eq by lra]; lra. Qed.
Lemma Rmin_via_abs : forall a b, Rmin a b = (a + b - Rabs (a - b)) / 2.
Proof. intros a b. unfold Rmin. destruct (Rle_dec a b); [rewrite Rabs_left1 by lra | rewrite Rabs_pos_eq by lra]; lra. Qed.
"""

PREAMBLE = """\
Require Import Reals Lra.
Open Scope R_scope.

(* Where exp, ln or sqrt is rational at a rational point. *)
Lemma exp_at_zero : forall x, x = 0 -> exp x = 1.
Proof. intros x ->. apply exp_0. Qed.
Lemma ln_at_one : forall x, x = 1 -> ln x = 0.
Proof. intros x ->. apply ln_1. Qed.
Lemma sqrt_at_square : forall x r, 0 <= r -> x = r * r -> sqrt x = r.
Proof. intros x r Hr ->. apply sqrt_square. exact Hr. Qed.
"""


#: an equality with irrational sides: every exp at a rational point m/D is base^m, base = exp(1/D)
REWRITING_PREAMBLE = """\
(* The equality of the two sides, rewritten: every exp at a rational point m/D is base^m. *)
Lemma exp_pow_nat : forall (n : nat) (x : R), exp (INR n * x) = exp x ^ n.
Proof.
  intros n x. induction n as [| n IH].
  - simpl. rewrite Rmult_0_l. apply exp_0.
  - rewrite S_INR, Rmult_plus_distr_r, Rmult_1_l, exp_plus, IH. simpl. ring.
Qed.
Definition base : R := exp {unit}.
"""


@dataclass(frozen=True)
class CoqScript:
    """A Coq script proving that a stored counterexample refutes its claim."""

    text: str
    module: str  # a Coq module name for the file (``<module>.v``)
    named_terms: int
    uses_interval: bool


def module_name(loaded: LoadedCounterexample) -> str:
    doc = loaded.document
    raw = f"cx_{doc['paper']}_{doc['claim']}_{loaded.path.rsplit('/', 1)[-1].removesuffix('.json')}"
    return re.sub(r"[^A-Za-z0-9_]", "_", raw)


def export_counterexample(loaded: LoadedCounterexample) -> CoqScript:
    """The Coq script for ``loaded``; raises :class:`NotExportable` naming why it cannot be written."""
    check = loaded.check
    if is_algebraic_data(loaded.data):  # exact-branch change: the Coq statement of such a point is described in docs/coq.md
        raise NotExportable("not exportable to Coq yet: the point has irrational algebraic coordinates (certified by exact "
                            "arithmetic in their number field)")
    ctx = CoqContext()
    v = check.values(ctx.convert(loaded.data), loaded.dims)
    try:
        hypotheses = [(h, _entries(h.margin(ctx, v))) for h in check.hypotheses]
        lhs, rhs = _entries(check.part.lhs(ctx, v)), _entries(check.part.rhs(ctx, v))
    except (NotImplementedError, AttributeError) as exc:
        # a function other contexts offer and Coq's reals lack is named, never approximated
        raise NotExportable(f"not exportable to Coq: a function the Coq context lacks ({exc or 'unnamed'})") from None
    except ZeroDivisionError:
        raise NotExportable("not exportable to Coq: the claim divides by an exact zero at this point") from None
    if len(lhs) != len(rhs):
        lhs, rhs = (lhs * len(rhs), rhs) if len(lhs) == 1 else (lhs, rhs * len(lhs))
    if len(lhs) != len(rhs):
        raise NotExportable(f"not exportable to Coq: lhs has {len(lhs)} entries, rhs {len(rhs)}")
    with BallContext(BALL_PRECISION).precision():
        kind, index = _failing_entry(check.part.relation, lhs, rhs)
        for precision in INTERVAL_PRECISIONS:
            try:
                return _Script(loaded, hypotheses, kind, lhs[index], rhs[index], index if len(lhs) > 1 else None,
                               precision).render()
            except _Undecided as exc:
                undecided = exc
        raise undecided


class _Undecided(NotExportable):
    """The bounds at this precision leave a sign open; a higher precision may decide it."""


def _entries(value) -> list[Term]:
    arr = np.asarray(value, dtype=object)
    if arr.ndim == 0:
        return [lift(arr[()])]
    return [lift(x) for x in arr.reshape(arr.shape[0], -1)[0]]


# ---------------------------------------------------------------------------- balls
def _tight_ball(t: Term, cache: dict) -> arb:
    """An enclosure of ``t`` (max/min from endpoints), only to pick the entry that fails."""
    key = id(t)
    if key not in cache:
        if t.exact is not None:
            cache[key] = _arb(t.exact)
        elif t.op in ("max", "min"):
            a, b = (_tight_ball(x, cache) for x in t.args)
            cache[key] = (BallContext._max2 if t.op == "max" else BallContext._min2)(a, b)
        else:
            cache[key] = _apply(t.op, [_tight_ball(x, cache) for x in t.args])
    return cache[key]


def _arb(q: Fraction) -> arb:
    return arb(fmpq(q.numerator, q.denominator))


def _apply(op: str, args: list[arb]) -> arb:
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
    if op in ("max", "min"):  # as Interval sees them after the preamble's rewriting
        a, b = args
        spread = abs(a - b)
        return (a + b + spread) / 2 if op == "max" else (a + b - spread) / 2
    fn = {"exp": arb.exp, "ln": arb.log, "sqrt": arb.sqrt, "sin": arb.sin, "cos": arb.cos, "tan": arb.tan, "atan": arb.atan}
    return fn[op](args[0])


def _exact_endpoint(x: arb) -> Fraction:
    man, exp = x.man_exp()
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def _below(lhs: Term, rhs: Term, cache: dict) -> bool:
    """Whether ``lhs < rhs`` is certain (exactly, or by disjoint enclosures)."""
    if lhs.exact is not None and rhs.exact is not None:
        return lhs.exact < rhs.exact
    return bool((_tight_ball(rhs, cache) - _tight_ball(lhs, cache)).lower() > 0)


def _failing_entry(relation: str, lhs: list[Term], rhs: list[Term]) -> tuple[str, int]:
    """How the conclusion fails (``lt``: rhs < lhs; ``gt``: lhs < rhs; ``eq``; ``ne``) and where."""
    cache: dict = {}
    entries = range(len(lhs))
    if relation in ("<=", "<"):
        strict_fail = [i for i in entries if _below(rhs[i], lhs[i], cache)]
        if strict_fail:
            return "lt", strict_fail[0]
    elif relation in (">=", ">"):
        strict_fail = [i for i in entries if _below(lhs[i], rhs[i], cache)]
        if strict_fail:
            return "gt", strict_fail[0]
    else:
        unequal = [i for i in entries if _below(lhs[i], rhs[i], cache) or _below(rhs[i], lhs[i], cache)]
        if unequal:
            return "ne", unequal[0]
        raise NotExportable("not exportable to Coq: no entry of lhs and rhs is certainly different")
    if relation in ("<", ">"):
        equal = [i for i in entries if lhs[i].exact is not None and lhs[i].exact == rhs[i].exact]
        if equal:
            return "eq", equal[0]
        why = ""
        for i in entries:
            try:
                if equal_by_rewriting(lhs[i], rhs[i], cache):
                    return "eq", i
            except NotExportable as exc:
                why = f": {exc}"
        raise NotExportable("not exportable to Coq: a strict claim refuted where lhs = rhs with irrational sides "
                            f"(the equality needs symbolic rewriting the exporter does not have{why})")
    raise NotExportable("not exportable to Coq: the enclosures do not separate lhs and rhs at this point")


# ---------------------------------------------------------------------- equality by rewriting
#: an irrational equality is rewritten only while its text stays this short
MAX_REWRITTEN = 20_000
_ARITHMETIC = ("+", "-", "*", "/", "neg", "id")


def _exp_unit(terms) -> int:
    """D with every exp of a rational argument q written exp(1/D)^(qD): the lcm of the denominators."""
    out = 1
    for t in terms:
        if t.op == "exp" and t.exact is None and t.args[0].exact is not None:
            out = math.lcm(out, t.args[0].exact.denominator)
    return out


class _Atomiser:
    """A term as a rational function of *atoms*: ``exp(1/D)`` (every exp of a rational point is a
    power of it) and each other function at a rational point (``ln 2``, ``sqrt 3``: opaque).
    Abs, max and min of irrational values are resolved by their arguments' certain signs.
    Gives the sympy expression (to decide the equality) and the Coq text (to prove it by ``field``)."""

    def __init__(self, unit: int, cache: dict):
        self.unit, self.cache = unit, cache
        self.base = sympy.Symbol("base", positive=True)
        self.atoms: dict = {}
        self.memo: dict = {}

    def sign(self, t: Term) -> int:
        if t.exact is not None:
            return (t.exact > 0) - (t.exact < 0)
        ball = _tight_ball(t, self.cache)
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
        elif t.op in ("abs", "max", "min"):
            out = self.sympy(self.chosen(t))
        elif t.op in _ARITHMETIC:
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
    atomiser = _Atomiser(_exp_unit(_topological([("l", lhs), ("r", rhs)])[0]), cache)
    return sympy.cancel(atomiser.sympy(lhs) - atomiser.sympy(rhs)) == 0


# ---------------------------------------------------------------------------- the script
def _literal(q: Fraction) -> str:
    num = f"IZR ({q.numerator})" if q.numerator < 0 else f"IZR {q.numerator}"
    return f"({num})" if q.denominator == 1 else f"({num} / IZR {q.denominator})"


def _comment(text: str) -> str:
    # a Coq comment nests on (* and lexes string quotes; neither may come from claim text
    return text.replace("(*", "( *").replace("*)", "* )").replace('"', "'")


def _widen(ball: arb, precision: int) -> tuple[Fraction, Fraction]:
    lo, hi = _exact_endpoint(ball.lower()), _exact_endpoint(ball.upper())
    size = max(Fraction(1), abs(lo), abs(hi))
    slack = size / 2 ** (precision - 40)
    grid = Fraction(2) ** (math.ceil(math.log2(size)) - (precision - 30))
    return math.floor((lo - slack) / grid) * grid, math.ceil((hi + slack) / grid) * grid


class _Script:
    def __init__(self, loaded, hypotheses, kind, lhs: Term, rhs: Term, entry, precision: int):
        self.loaded, self.kind, self.entry, self.precision = loaded, kind, entry, precision
        self.roots: list[tuple[str, Term]] = []
        self.hypotheses = []
        for k, (hyp, terms) in enumerate(hypotheses, 1):
            for j, t in enumerate(terms):
                name = f"hypothesis_{k}" if len(terms) == 1 else f"hypothesis_{k}_{j}"
                root = Term("id", (t,), t.exact)
                self.roots.append((name, root))
                self.hypotheses.append((name, root, hyp))
        self.lhs, self.rhs = Term("id", (lhs,), lhs.exact), Term("id", (rhs,), rhs.exact)
        self.roots += [("claim_lhs", self.lhs), ("claim_rhs", self.rhs)]
        order, self.uses = _topological(self.roots)
        # the counterexample's values first, in the file's order: leaves need nothing before them
        leaves = [t for t in order if t.op == "var"]
        self.order = leaves + [t for t in order if t.op != "var"]
        self.names: dict[int, str] = {id(t): n for n, t in self.roots}
        # an equality with irrational sides is proved by rewriting every node of lhs and rhs to a
        # rational function of the atoms (exp(1/D), ln 2, ...): each function, abs, max and min
        # (and each argument whose sign decides one) is named, so it gets its equation
        self.rewrite = kind == "eq" and (lhs.exact is None or rhs.exact is None)
        self.atomiser = None
        forced: set[int] = set()
        if self.rewrite:
            sides = _topological([("claim_lhs", self.lhs), ("claim_rhs", self.rhs)])[0]
            self.rewritten = {id(t) for t in sides}
            self.atomiser = _Atomiser(_exp_unit(sides), {})
            self.unit = self.atomiser.unit
            for t in sides:
                if t.exact is None and t.op not in _ARITHMETIC:
                    forced.add(id(t))
                    if t.op in ("abs", "max", "min"):
                        forced.update(id(a) for a in t.args if a.exact is None)
        counter = 0
        for t in self.order:
            if id(t) in self.names or t.op == "const":
                continue
            if t.op == "var":
                self.names[id(t)] = t.label
            elif self.uses[id(t)] > 1 or (t.exact is not None and t.op not in ("+", "-", "*", "/", "neg")) or id(t) in forced:
                counter += 1
                self.names[id(t)] = f"t{counter}"
        self.bounds: dict[int, tuple[Fraction, Fraction]] = {}
        self.uses_interval = False
        self.atomised: dict[int, str] = {}

    # -- expressions ------------------------------------------------------------------
    def _text(self, t: Term, refs: list, top: bool = False) -> str:
        if not top and id(t) in self.names:
            if t not in refs:
                refs.append(t)
            return self.names[id(t)]
        if t.op in ("const", "var"):
            return _literal(t.exact)
        args = [self._text(a, refs) for a in t.args]
        if t.op == "id":
            return args[0]
        if t.op == "neg":
            return f"(- {args[0]})"
        if t.op in ("+", "-", "*", "/"):
            return f"({args[0]} {t.op} {args[1]})"
        if t.op == "abs":
            return f"(Rabs {args[0]})"
        if t.op in ("max", "min"):
            return f"(R{t.op} {args[0]} {args[1]})"
        if t.op in COQ_FUNCTIONS.values():
            return f"({t.op} {args[0]})"
        raise NotExportable(f"not exportable to Coq: operation {t.op}")

    def _enclosure(self, t: Term, top: bool = False) -> arb:
        """What Interval computes for ``t`` from the bounds of its named parts."""
        if not top and id(t) in self.names:
            if t.exact is not None:
                return _arb(t.exact)
            lo, hi = self.bounds[id(t)]
            return _arb(lo).union(_arb(hi))
        if t.op in ("const", "var"):
            return _arb(t.exact)
        return _apply(t.op, [self._enclosure(a) for a in t.args])

    # -- facts ------------------------------------------------------------------------
    def _fact(self, t: Term) -> list[str]:
        name = self.names[id(t)]
        refs: list[Term] = []
        body = self._text(t, refs, top=True)
        out = [f"Definition {name} : R := {body}."]
        if t.op == "var":
            out.append(f"Lemma {name}_val : {name} = {_literal(t.exact)}. Proof. reflexivity. Qed.")
            return out
        exact_refs = [self.names[id(r)] + "_val" for r in refs if r.exact is not None]
        rewrite = f" rewrite {', '.join(exact_refs)}." if exact_refs else ""
        if t.exact is not None:
            out.append(f"Lemma {name}_val : {name} = {_literal(t.exact)}.")
            out.append(f"Proof. unfold {name}.{rewrite}{self._resolve(t)} lra. Qed.")
            return out
        ball = self._enclosure(t, top=True)
        if not ball.is_finite():
            raise NotExportable(f"not exportable to Coq: no finite enclosure of {body[:80]}")
        lo, hi = self.bounds[id(t)] = _widen(ball, self.precision)
        self.uses_interval = True
        poses = "".join(f" pose proof {self.names[id(r)]}_bnd." for r in refs if r.exact is None)
        minmax = " rewrite ?Rmax_via_abs, ?Rmin_via_abs." if "Rmax" in body or "Rmin" in body else ""
        out.append(f"Lemma {name}_bnd : {_literal(lo)} <= {name} <= {_literal(hi)}.")
        out.append(f"Proof.{poses} unfold {name}.{rewrite}{minmax} interval with (i_prec {self.precision}). Qed.")
        if self.rewrite and id(t) in self.rewritten:
            out += self._equation(t, refs)
        return out

    # -- an equality with irrational sides ---------------------------------------------
    def _atomised_text(self, t: Term) -> str:
        """``t`` as Coq text over the atoms: ``base ^ m`` for exp(m/D), ``ln q`` ..., abs/max/min resolved."""
        key = id(t)
        if key in self.atomised:
            return self.atomised[key]
        if t.exact is not None:
            out = _literal(t.exact)
        elif t.op in ("abs", "max", "min"):
            out = self._atomised_text(self.atomiser.chosen(t))
        elif t.op in _ARITHMETIC:
            args = [self._atomised_text(a) for a in t.args]
            out = args[0] if t.op == "id" else f"(- {args[0]})" if t.op == "neg" else f"({args[0]} {t.op} {args[1]})"
        elif t.op == "exp":
            m = int(t.args[0].exact * self.unit)
            out = f"(base ^ {m})" if m > 0 else f"(/ base ^ {-m})"
        else:
            out = f"({t.op} {_literal(t.args[0].exact)})"
        if len(out) > MAX_REWRITTEN:
            raise NotExportable("not exportable to Coq: the equality's rewritten sides are too long")
        self.atomised[key] = out
        return out

    def _facts_of(self, args) -> str:
        """A tactic putting what is known of each argument (its value or bounds) into the context, then lra."""
        facts = [f"pose proof {self.names[id(a)]}_{'val' if a.exact is not None else 'bnd'}" for a in args if id(a) in self.names]
        return "; ".join(facts + ["lra"])

    def _resolution(self, t: Term) -> str:
        """The rewriting that removes this node's Rabs/Rmax/Rmin, by a sign Interval's bounds make certain."""
        def lo_hi(a):
            return (a.exact, a.exact) if a.exact is not None else self.bounds[id(a)]

        if t.op == "abs":
            lo, hi = lo_hi(t.args[0])
            if not (lo > 0 or hi < 0):
                raise _Undecided("not exportable to Coq: the sign of an abs argument is not certain at this precision")
            lemma = "Rabs_pos_eq" if lo > 0 else "Rabs_left1"
            return f" rewrite {lemma} by ({self._facts_of(t.args)})."
        (a_lo, a_hi), (b_lo, b_hi) = lo_hi(t.args[0]), lo_hi(t.args[1])
        if a_lo >= b_hi:
            first = True
        elif b_lo >= a_hi:
            first = False
        else:
            raise _Undecided(f"not exportable to Coq: the branch of {t.op} is not certain at this precision")
        lemma = {("max", True): "Rmax_left", ("max", False): "Rmax_right", ("min", True): "Rmin_right", ("min", False): "Rmin_left"}[t.op, first]
        return f" rewrite {lemma} by ({self._facts_of(t.args)})."

    def _rewrites(self, refs) -> str:
        names = [self.names[id(r)] + ("_val" if r.exact is not None else "_eq") for r in refs]
        return f" rewrite {', '.join(names)}." if names else ""

    def _closing(self) -> str:
        """Proves ``E = F`` for two rational functions of the atoms, their denominators nonzero by Interval."""
        sign = f"unfold base; interval with (i_prec {self.precision})"
        return (f" first [reflexivity | field; repeat split; first [apply Rgt_not_eq; {sign} | apply Rlt_not_eq; {sign}]].")

    def _equation(self, t: Term, refs) -> list[str]:
        name = self.names[id(t)]
        target = self._atomised_text(t)
        exact_refs = [r for r in refs if r.exact is not None]
        if t.op in ("abs", "max", "min"):
            proof = f" unfold {name}.{self._resolution(t)}{self._rewrites(refs)}{self._closing()}"
        elif t.op == "exp":
            m = int(t.args[0].exact * self.unit)
            to_power = " rewrite <- exp_pow_nat." if m > 0 else " rewrite <- exp_pow_nat, <- exp_Ropp."
            proof = (f" unfold {name}.{self._rewrites(exact_refs)} unfold base.{to_power} apply f_equal."
                     f" replace (INR {abs(m)}%nat) with (IZR {abs(m)}) by (simpl; lra). lra.")
        elif t.op not in _ARITHMETIC:
            proof = f" unfold {name}.{self._rewrites(exact_refs)} apply f_equal. lra."
        else:
            proof = f" unfold {name}.{self._rewrites(refs)}{self._closing()}"
        return [f"Lemma {name}_eq : {name} = {target}.", f"Proof.{proof} Qed."]

    @staticmethod
    def _resolve(t: Term) -> str:
        """The rewriting that removes a rational node's Rabs/Rmax/Rmin, by the sign Python knows exactly."""
        if t.op == "abs":
            return " rewrite Rabs_pos_eq by lra." if t.args[0].exact >= 0 else " rewrite Rabs_left1 by lra."
        if t.op == "max":
            return " rewrite Rmax_left by lra." if t.args[0].exact >= t.args[1].exact else " rewrite Rmax_right by lra."
        if t.op == "min":
            return " rewrite Rmin_left by lra." if t.args[0].exact <= t.args[1].exact else " rewrite Rmin_right by lra."
        if t.op == "exp":
            return " rewrite exp_at_zero by lra."
        if t.op == "ln":
            return " rewrite ln_at_one by lra."
        if t.op == "sqrt":
            return f" rewrite (sqrt_at_square _ {_literal(t.exact)}) by lra."
        return ""

    def _known(self, *terms: Term) -> str:
        """Tactics putting the values or bounds of named roots into the context."""
        out = []
        for t in terms:
            name = self.names[id(t)]
            out.append(f" rewrite {name}_val." if t.exact is not None else f" pose proof {name}_bnd.")
        return "".join(out)

    def _check_sign(self, name: str, t: Term, strict: bool, what: str) -> None:
        if t.exact is not None:
            ok = t.exact > 0 or (not strict and t.exact == 0)
        else:
            lo = self.bounds[id(t)][0]
            ok = lo > 0 or (not strict and lo == 0)
        if not ok:
            raise _Undecided(f"not exportable to Coq: {what} ({name}) is not certainly {'> 0' if strict else '>= 0'} here")

    def render(self) -> CoqScript:
        facts = [fact for t in self.order if id(t) in self.names for fact in self._fact(t)]
        body = [f"(* {_comment(line)} *)" for line in self._header()]
        body += ["", PREAMBLE] + ([INTERVAL_PREAMBLE] if self.uses_interval else [])
        if self.rewrite:
            body.append(REWRITING_PREAMBLE.format(unit=_literal(Fraction(1, self.unit))))
        body.append("(* The counterexample's values and every named node of the claim's formulas. *)")
        body += facts
        statements, proofs = [], []
        for name, root, hyp in self.hypotheses:
            self._check_sign(name, root, hyp.strict, f"hypothesis '{hyp.text}'")
            stmt = f"{'0 <' if hyp.strict else '0 <='} {name}"
            statements.append(stmt)
            proofs.append(f"Lemma {name}_holds : {stmt}.\nProof.{self._known(root)} lra. Qed.  (* {_comment(hyp.text)} *)")
        conclusion = {"lt": "claim_rhs < claim_lhs", "gt": "claim_lhs < claim_rhs",
                      "eq": "claim_lhs = claim_rhs", "ne": "claim_lhs <> claim_rhs"}[self.kind]
        self._check_conclusion()
        statements.append(conclusion)
        if self.rewrite:
            proofs.append(f"Lemma conclusion_fails : {conclusion}.\nProof.{self._rewrites([self.lhs, self.rhs])}{self._closing()} Qed.")
        else:
            proofs.append(f"Lemma conclusion_fails : {conclusion}.\nProof.{self._known(self.lhs, self.rhs)} lra. Qed.")
        body += ["", "(* The hypotheses hold and the conclusion fails. *)"] + proofs
        witnesses = [f"{name}_holds" for name, _, _ in self.hypotheses] + ["conclusion_fails"]
        proof_term = witnesses[-1]
        for w in reversed(witnesses[:-1]):
            proof_term = f"(conj {w} {proof_term})"
        body += ["", f"Theorem refutation : {CONJUNCTION.join(statements)}.", f"Proof. exact {proof_term}. Qed.", ""]
        return CoqScript("\n".join(body), module_name(self.loaded), sum(1 for t in self.order if id(t) in self.names),
                         self.uses_interval)

    def _check_conclusion(self) -> None:
        lhs, rhs = self.lhs, self.rhs
        if self.kind == "eq":
            return  # both exact and equal, chosen so
        if lhs.exact is not None and rhs.exact is not None:
            return  # chosen by the exact comparison
        lo_l, hi_l = self.bounds.get(id(lhs), (lhs.exact, lhs.exact))
        lo_r, hi_r = self.bounds.get(id(rhs), (rhs.exact, rhs.exact))
        separated = {"lt": hi_r < lo_l, "gt": hi_l < lo_r, "ne": hi_r < lo_l or hi_l < lo_r}[self.kind]
        if not separated:
            raise _Undecided("not exportable to Coq: Interval's enclosures of lhs and rhs overlap (a dependency loss "
                                "the certifier's tighter max/min avoided)")

    def _header(self) -> list[str]:
        doc, check = self.loaded.document, self.loaded.check
        lines = [
            f"Counterexample {self.loaded.path}",
            f"{check.claim.kind.capitalize()} {check.claim.id} ({doc['paper']}), part {check.part.name}, reading {check.reading.name}",
            f"Statement: {check.part.statement or check.claim.statement}",
            f"lhs = {check.part.lhs_text}; rhs = {check.part.rhs_text}; relation {check.part.relation}"
            + (f"; failing entry {self.entry} (row-major)" if self.entry is not None else ""),
            f"dims: {', '.join(f'{k} = {n}' for k, n in self.loaded.dims.items())}",
        ]
        lines += [f"hypothesis_{k}: {h.text}" for k, h in enumerate(check.hypotheses, 1)]
        lines.append("Generated by ml-claim-verifier; checked by coqc, it is a proof independent of the verifier.")
        return lines


def _topological(roots: list[tuple[str, Term]]) -> tuple[list[Term], dict[int, int]]:
    """Every node below ``roots``, parts before wholes, and how many times each is used."""
    order: list[Term] = []
    uses: dict[int, int] = {}
    seen: set[int] = set()
    for _, root in roots:
        stack = [(root, False)]
        while stack:
            t, expanded = stack.pop()
            if expanded:
                order.append(t)
                continue
            if id(t) in seen:
                continue
            seen.add(id(t))
            stack.append((t, True))
            for a in t.args:
                uses[id(a)] = uses.get(id(a), 0) + 1
                stack.append((a, False))
    return order, uses
