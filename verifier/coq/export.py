"""A stored counterexample as a Coq script whose kernel check is a second, independent proof.

The script is written from two pieces of data and nothing else: the claim's formula at the
counterexample's dims (:class:`verifier.formula.Formula`, exported once and pinned in the
lock) and the counterexample's exact values.  No claim code runs here, so a pack that
patches the verifier at import cannot change what the kernel sees.

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

Every name the script defines comes from :class:`Namer`, which never gives out a name twice
(with its ``_val``/``_bnd``/``_eq``/``_holds`` lemmas): a vector ``a`` beside a scalar ``a_0``,
or ``x`` beside ``x_val``, get distinct names.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction

from flint import arb

from ..contexts import BallContext
from ..algebraic import is_algebraic_data
from ..formula import (ARITHMETIC, FUNCTIONS, HOLDS, PIECEWISE, UNDECIDED, Atomiser, Formula, FormulaTerms, NotExportable,
                       Term, arb_of, apply_ball, exp_unit, export_formula, topological)

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
    theorem: str = ""  # the statement proved, as Coq text


class RefutationFalse(NotExportable):
    """The formula, evaluated exactly at the stored point, says the point does not refute it."""


def module_name(formula: Formula, source: str) -> str:
    """A Coq module name for the script of ``source`` (a counterexample file)."""
    stem = source.rsplit("/", 1)[-1].removesuffix(".json")
    raw = f"cx_{formula.paper}_{formula.claim}_{stem}"
    return re.sub(r"[^A-Za-z0-9_]", "_", raw)


def refutation_script(formula: Formula, point, source: str = "") -> CoqScript:
    """The Coq script proving that ``point`` refutes ``formula``, from the data alone.

    Raises :class:`RefutationFalse` when the formula says the point does not refute it (a
    hypothesis fails, or the conclusion holds), and :class:`NotExportable` naming why
    otherwise (the enclosures do not decide, an equality the rewriting cannot show)."""
    if is_algebraic_data(point):  # the Coq statement such a point needs is described in docs/prove.md
        raise NotExportable("not exportable to Coq yet: the point has irrational algebraic coordinates (certified by exact "
                            "arithmetic in their number field)")
    try:
        terms = formula.terms(point)
    except ZeroDivisionError:
        raise RefutationFalse("the formula divides by an exact zero at this point: the point is outside the claim") from None
    with BallContext(BALL_PRECISION).precision():
        decision = terms.decide()
        if decision.status == HOLDS:
            raise RefutationFalse(f"the refutation is false: {decision.detail}")
        if decision.status == UNDECIDED:
            raise NotExportable(f"not exportable to Coq: {decision.detail}")
        entry = decision.entry
        for precision in INTERVAL_PRECISIONS:
            try:
                return _Script(terms, source, decision.kind, entry, precision).render()
            except _Undecided as exc:
                undecided = exc
        raise undecided


def export_counterexample(loaded) -> CoqScript:
    """The Coq script of a loaded counterexample, its formula exported from the claim now (for a file
    with no pinned formula: ``verify replay FILE --coq`` of a file no lock cites)."""
    from_claim = export_formula(loaded.check, loaded.dims)
    return refutation_script(from_claim, loaded.data, loaded.path)


class _Undecided(NotExportable):
    """The bounds at this precision leave a sign open; a higher precision may decide it."""


# ---------------------------------------------------------------------------- names
#: names the scripts define themselves, or take from Coq's libraries
RESERVED = frozenset({
    "claim_lhs", "claim_rhs", "base", "refutation", "conclusion_fails", "exp_pow_nat", "Rmax_via_abs", "Rmin_via_abs",
    "exp_at_zero", "ln_at_one", "sqrt_at_square", "statement", "proved", "R", "exp", "ln", "sqrt", "sin", "cos", "tan",
    "atan", "Rabs", "Rmax", "Rmin", "IZR", "INR",
})
#: the lemmas a named node may get, as suffixes of its name
LEMMA_SUFFIXES = ("", "_val", "_bnd", "_eq", "_holds", "_def", "_rel", "_case", "_is")


class Namer:
    """Coq names that never clash: each name is given once, with every lemma name derived from it.

    A Python identifier may hold letters Coq reads otherwise (or not at all): anything outside
    ``[A-Za-z0-9_]`` becomes ``_u<hex>_``; a name taken (or one of its lemmas' names) gets the
    next free ``_<k>`` suffix."""

    def __init__(self, reserved=RESERVED):
        self.taken: set[str] = set(reserved)

    def fresh(self, wanted: str) -> str:
        base = re.sub(r"[^A-Za-z0-9_]", lambda m: f"_u{ord(m.group()):x}_", wanted)
        if not base or not (base[0].isalpha()):
            base = "n_" + base
        name, k = base, 1
        while any(name + s in self.taken for s in LEMMA_SUFFIXES):
            k += 1
            name = f"{base}_{k}"
        self.taken.update(name + s for s in LEMMA_SUFFIXES)
        return name


def variable_name(ref: tuple) -> str:
    """The wanted Coq name of a variable entry: ``v_x``, ``v_A_0_1``."""
    name, index = ref
    return "_".join(["v_" + name] + [str(i) for i in index])


def literal(q: Fraction) -> str:
    num = f"IZR ({q.numerator})" if q.numerator < 0 else f"IZR {q.numerator}"
    return f"({num})" if q.denominator == 1 else f"({num} / IZR {q.denominator})"


def comment(text: str) -> str:
    # a Coq comment nests on (* and lexes string quotes; neither may come from claim text
    return text.replace("(*", "( *").replace("*)", "* )").replace('"', "'")


def _widen(ball: arb, precision: int) -> tuple[Fraction, Fraction]:
    lo, hi = _exact_endpoint(ball.lower()), _exact_endpoint(ball.upper())
    size = max(Fraction(1), abs(lo), abs(hi))
    slack = size / 2 ** (precision - 40)
    grid = Fraction(2) ** (math.ceil(math.log2(size)) - (precision - 30))
    return math.floor((lo - slack) / grid) * grid, math.ceil((hi + slack) / grid) * grid


def _exact_endpoint(x: arb) -> Fraction:
    man, exp = x.man_exp()
    return Fraction(int(man)) * Fraction(2) ** int(exp)


#: an irrational equality is rewritten only while its text stays this short
MAX_REWRITTEN = 20_000
_ARITHMETIC = tuple(ARITHMETIC) + ("id",)


class _Script:
    def __init__(self, terms: FormulaTerms, source: str, kind: str, entry: int, precision: int):
        self.formula, self.source = terms.formula, source
        self.kind, self.precision = kind, precision
        self.entry = entry if len(terms.lhs) > 1 else None
        lhs, rhs = terms.lhs[entry], terms.rhs[entry]
        namer = Namer()
        self.roots: list[tuple[str, Term]] = []
        self.hypotheses = []
        for k, (hyp, entries) in enumerate(terms.hypotheses, 1):
            for j, t in enumerate(entries):
                name = namer.fresh(f"hypothesis_{k}" if len(entries) == 1 else f"hypothesis_{k}_{j}")
                root = Term("id", (t,), t.exact)
                self.roots.append((name, root))
                self.hypotheses.append((name, root, hyp))
        self.lhs, self.rhs = Term("id", (lhs,), lhs.exact), Term("id", (rhs,), rhs.exact)
        self.roots += [("claim_lhs", self.lhs), ("claim_rhs", self.rhs)]
        order, self.uses = topological([t for _, t in self.roots])
        # the counterexample's values first, in the formula's order: leaves need nothing before them
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
            sides = topological([self.lhs, self.rhs])[0]
            self.rewritten = {id(t) for t in sides}
            self.atomiser = Atomiser(exp_unit(sides), {})
            self.unit = self.atomiser.unit
            for t in sides:
                if t.exact is None and t.op not in _ARITHMETIC:
                    forced.add(id(t))
                    if t.op in PIECEWISE:
                        forced.update(id(a) for a in t.args if a.exact is None)
        for t in sorted(leaves, key=lambda t: (self.formula.variables.index(_variable_of(self.formula, t.ref[0])), t.ref[1])):
            self.names[id(t)] = namer.fresh(variable_name(t.ref))
        counter = 0
        for t in self.order:
            if id(t) in self.names or t.op == "const":
                continue
            if self.uses[id(t)] > 1 or (t.exact is not None and t.op not in ("+", "-", "*", "/", "neg")) or id(t) in forced:
                counter += 1
                self.names[id(t)] = namer.fresh(f"t{counter}")
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
            return literal(t.exact)
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
        if t.op in FUNCTIONS:
            return f"({t.op} {args[0]})"
        raise NotExportable(f"not exportable to Coq: operation {t.op}")

    def _enclosure(self, t: Term, top: bool = False) -> arb:
        """What Interval computes for ``t`` from the bounds of its named parts."""
        if not top and id(t) in self.names:
            if t.exact is not None:
                return arb_of(t.exact)
            lo, hi = self.bounds[id(t)]
            return arb_of(lo).union(arb_of(hi))
        if t.op in ("const", "var"):
            return arb_of(t.exact)
        return apply_ball(t.op, [self._enclosure(a) for a in t.args])

    # -- facts ------------------------------------------------------------------------
    def _fact(self, t: Term) -> list[str]:
        name = self.names[id(t)]
        refs: list[Term] = []
        body = self._text(t, refs, top=True)
        out = [f"Definition {name} : R := {body}."]
        if t.op == "var":
            out.append(f"Lemma {name}_val : {name} = {literal(t.exact)}. Proof. reflexivity. Qed.")
            return out
        exact_refs = [self.names[id(r)] + "_val" for r in refs if r.exact is not None]
        rewrite = f" rewrite {', '.join(exact_refs)}." if exact_refs else ""
        if t.exact is not None:
            out.append(f"Lemma {name}_val : {name} = {literal(t.exact)}.")
            out.append(f"Proof. unfold {name}.{rewrite}{self._resolve(t)} lra. Qed.")
            return out
        ball = self._enclosure(t, top=True)
        if not ball.is_finite():
            raise NotExportable(f"not exportable to Coq: no finite enclosure of {body[:80]}")
        lo, hi = self.bounds[id(t)] = _widen(ball, self.precision)
        self.uses_interval = True
        poses = "".join(f" pose proof {self.names[id(r)]}_bnd." for r in refs if r.exact is None)
        minmax = " rewrite ?Rmax_via_abs, ?Rmin_via_abs." if "Rmax" in body or "Rmin" in body else ""
        out.append(f"Lemma {name}_bnd : {literal(lo)} <= {name} <= {literal(hi)}.")
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
            out = literal(t.exact)
        elif t.op in ("abs", "max", "min"):
            out = self._atomised_text(self.atomiser.chosen(t))
        elif t.op in _ARITHMETIC:
            args = [self._atomised_text(a) for a in t.args]
            out = args[0] if t.op == "id" else f"(- {args[0]})" if t.op == "neg" else f"({args[0]} {t.op} {args[1]})"
        elif t.op == "exp":
            m = int(t.args[0].exact * self.unit)
            out = f"(base ^ {m})" if m > 0 else f"(/ base ^ {-m})"
        else:
            out = f"({t.op} {literal(t.args[0].exact)})"
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
            return f" rewrite (sqrt_at_square _ {literal(t.exact)}) by lra."
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
        body = [f"(* {comment(line)} *)" for line in self._header()]
        body += ["", PREAMBLE] + ([INTERVAL_PREAMBLE] if self.uses_interval else [])
        if self.rewrite:
            body.append(REWRITING_PREAMBLE.format(unit=literal(Fraction(1, self.unit))))
        body.append("(* The counterexample's values and every named node of the claim's formulas. *)")
        body += facts
        statements, proofs = [], []
        for name, root, hyp in self.hypotheses:
            self._check_sign(name, root, hyp.strict, f"hypothesis '{hyp.text}'")
            stmt = f"{'0 <' if hyp.strict else '0 <='} {name}"
            statements.append(stmt)
            proofs.append(f"Lemma {name}_holds : {stmt}.\nProof.{self._known(root)} lra. Qed.  (* {comment(hyp.text)} *)")
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
        return CoqScript("\n".join(body), module_name(self.formula, self.source), sum(1 for t in self.order if id(t) in self.names),
                         self.uses_interval, CONJUNCTION.join(statements))

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
        f = self.formula
        lines = [
            f"Counterexample {self.source}" if self.source else "Counterexample",
            f"Claim {f.claim} ({f.paper}), part {f.part}, reading {f.reading}",
            f"Statement: {f.statement}",
            f"lhs = {f.lhs_text}; rhs = {f.rhs_text}; relation {f.relation}"
            + (f"; failing entry {self.entry} (row-major)" if self.entry is not None else ""),
            f"dims: {', '.join(f'{k} = {n}' for k, n in f.dims.items())}",
        ]
        lines += [f"hypothesis_{k}: {h.text}" for k, h in enumerate(f.hypotheses, 1)]
        lines.append("Written from the formula pinned in the lock and the counterexample's values; checked by coqc, "
                     "it is a proof independent of the verifier and of the claim's code.")
        return lines


def _variable_of(formula: Formula, name: str):
    return next(v for v in formula.variables if v[0] == name)


