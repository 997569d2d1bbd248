"""A proved check as a Coq script: the statement from the pinned formula, the proof from its certificate.

The theorem is :func:`verifier.coq.statement.statement` of the formula the lock pins, on the
proof's domain.  The proof names every node's defining equation (``t_def : t = body``),
adds what holds of every abs, max and min everywhere (``t_rel``), then proves each goal
(every entry of the conclusion; an equality as two inequalities) by the case tree stored
with the certificate (:mod:`.cases`): a ``destruct`` per resolved node, ``lra`` or ``nra``
at each leaf.  The tree is a hint found by our code; Coq checks every step, so a wrong tree,
a wrong formula or a false claim makes ``coqc`` reject the script.
"""

from __future__ import annotations

import re
from fractions import Fraction
from dataclasses import dataclass

import sympy

from ..formula import FUNCTIONS, PIECEWISE, Formula
from ..proof_cases import Split, goals
from .export import literal
from .statement import Statement, header, statement

PROOF_PREAMBLE = """\
Require Import Reals Lra Psatz Field.
Open Scope R_scope.

(* What holds of abs, max, min and exp everywhere, and their two cases. *)
Lemma abs_facts : forall t u, t = Rabs u -> u <= t /\\ - u <= t.
Proof. intros t u ->. split; [apply Rle_abs | rewrite <- Rabs_Ropp; apply Rle_abs]. Qed.
Lemma abs_split : forall t u, t = Rabs u -> (0 <= u /\\ t = u) \\/ (u <= 0 /\\ t = - u).
Proof. intros t u ->. destruct (Rle_or_lt 0 u); [left; split; [lra | apply Rabs_pos_eq; lra] | right; split; [lra | apply Rabs_left1; lra]]. Qed.
Lemma max_facts : forall t a b, t = Rmax a b -> a <= t /\\ b <= t.
Proof. intros t a b ->. split; [apply Rmax_l | apply Rmax_r]. Qed.
Lemma max_split : forall t a b, t = Rmax a b -> (b <= a /\\ t = a) \\/ (a <= b /\\ t = b).
Proof. intros t a b ->. destruct (Rle_or_lt b a); [left; split; [lra | apply Rmax_left; lra] | right; split; [lra | apply Rmax_right; lra]]. Qed.
Lemma min_facts : forall t a b, t = Rmin a b -> t <= a /\\ t <= b.
Proof. intros t a b ->. split; [apply Rmin_l | apply Rmin_r]. Qed.
Lemma min_split : forall t a b, t = Rmin a b -> (a <= b /\\ t = a) \\/ (b <= a /\\ t = b).
Proof. intros t a b ->. destruct (Rle_or_lt a b); [left; split; [lra | apply Rmin_left; lra] | right; split; [lra | apply Rmin_right; lra]]. Qed.
Lemma exp_facts : forall t u, t = exp u -> 0 < t /\\ 1 + u <= t.
Proof. intros t u ->. split; [apply exp_pos | apply exp_ineq1_le]. Qed.
(* exp is increasing and exp (v + w) = exp v * exp w: the exp relations' two cases. *)
Lemma exp_le : forall u v, u <= v -> exp u <= exp v.
Proof. intros u v [H|H]; [left; apply exp_increasing; exact H | right; rewrite H; reflexivity]. Qed.
Lemma exp_11 : forall t u s v, t = exp u -> s = exp v -> (u <= v /\\ t <= s) \\/ (v < u /\\ s < t).
Proof. intros t u s v -> ->. destruct (Rle_or_lt u v) as [H|H]; [left; split; [exact H | apply exp_le; exact H] | right; split; [exact H | apply exp_increasing; exact H]]. Qed.
Lemma exp_10 : forall t u, t = exp u -> (u <= 0 /\\ t <= 1) \\/ (0 < u /\\ 1 < t).
Proof. intros t u H. rewrite <- exp_0. apply exp_11; [exact H | reflexivity]. Qed.
Lemma exp_01 : forall t u, t = exp u -> (0 <= u /\\ 1 <= t) \\/ (u < 0 /\\ t < 1).
Proof. intros t u H. rewrite <- exp_0. apply exp_11; [reflexivity | exact H]. Qed.
Lemma exp_12 : forall t u s v r w, t = exp u -> s = exp v -> r = exp w -> (u <= v + w /\\ t <= s * r) \\/ (v + w < u /\\ s * r < t).
Proof. intros t u s v r w H -> ->. rewrite <- exp_plus. apply exp_11; [exact H | reflexivity]. Qed.
Lemma exp_21 : forall s v r w t u, s = exp v -> r = exp w -> t = exp u -> (v + w <= u /\\ s * r <= t) \\/ (u < v + w /\\ t < s * r).
Proof. intros s v r w t u -> -> H. rewrite <- exp_plus. apply exp_11; [reflexivity | exact H]. Qed.
"""

#: an identity with exp: every let substituted, exp of a sum or difference split, then field
IDENTITY_PREAMBLE = """\
Require Import Reals Lra Field.
Open Scope R_scope.

Lemma exp_sub : forall a b, exp (a - b) = exp a * / exp b.
Proof. intros a b. unfold Rminus. rewrite exp_plus, exp_Ropp. reflexivity. Qed.
(* A denominator made of exps, sums and products of them is positive. *)
Ltac positive := repeat first [apply Rplus_lt_0_compat | apply Rmult_lt_0_compat | apply Rinv_0_lt_compat | apply exp_pos | lra].
"""

_FACTS = {"abs": "abs_facts _ _", "max": "max_facts _ _ _", "min": "min_facts _ _ _", "exp": "exp_facts _ _"}
_SPLITS = {"abs": "abs_split _ _", "max": "max_split _ _ _", "min": "min_split _ _ _"}


@dataclass(frozen=True)
class ProofScript:
    text: str
    module: str
    theorem: str  # the statement proved, as Coq text


def proof_module(formula: Formula) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", f"proof_{formula.paper}_{formula.claim}_{formula.part}_{formula.reading}")


def case_script(formula: Formula, boxes, trees: list, domain_text: str = "", method: str = "") -> ProofScript:
    """The script proving ``formula`` on ``boxes`` by one case tree per goal (:func:`.cases.goals`, in order)."""
    st = statement(formula, boxes)
    wanted = goals(formula)
    if len(trees) != len(wanted):
        raise ValueError(f"the certificate has {len(trees)} case trees, the formula {len(wanted)} goals")
    lines = header(formula, domain_text, method) + ["", PROOF_PREAMBLE, f"Theorem proved :\n{st.text}.", "Proof.",
                                                      f"  intros {' '.join(st.intro_names)}."]
    for i, name in st.lets:
        lines.append(f"  pose proof (eq_refl {name}) as {name}_def; unfold {name} at 2 in {name}_def; clearbody {name}.")
    for i, name in st.lets:
        op = formula.nodes[i][0]
        if op in _FACTS:
            lines.append(f"  pose proof ({_FACTS[op]} {name}_def) as {name}_rel.")
    lines += _quotients(formula, st)
    done = []
    for k, ((entry, relation), tree) in enumerate(zip(wanted, trees), 1):
        goal = _goal(st, formula, entry, relation)
        lines.append(f"  assert (goal_{k} : {goal}) by ({_tactic(tree, st)}).")
        done.append((entry, relation, f"goal_{k}"))
    lines.append(f"  exact {_conclusion(formula, done)}.")
    lines += ["Qed.", ""]
    return ProofScript("\n".join(lines), proof_module(formula), st.text)


def _quotients(formula: Formula, st: Statement) -> list[str]:
    """Each quotient by a non-constant an unknown ``q`` with ``q * d = n``, as z3 read it when it
    found the case tree (lra and nra see ``n * / d``, which they cannot relate to ``n``): outermost
    first, each ``set`` in every hypothesis, ``d <> 0`` a hypothesis of the statement."""
    lines, names = [], []
    for i in reversed(range(len(formula.nodes))):
        node = formula.nodes[i]
        if node[0] != "/" or formula.nodes[node[2]][0] == "const":
            continue
        num, den = st.texts[node[1]], st.texts[node[2]]
        lines += [f"  set (q{i} := {num} / {den}) in *.",
                  f"  assert (q{i}_mul : q{i} * {den} = {num}) by (unfold q{i}; field; assumption)."]
        if node[1] == node[2]:  # x / x: nra would need a product of three hypotheses to see it is 1
            lines.append(f"  assert (q{i}_one : q{i} = 1) by (unfold q{i}; field; assumption).")
        names.append(f"q{i}")
    return lines + ([f"  clearbody {' '.join(names)}."] if names else [])


def identity_script(formula: Formula, boxes, domain_text: str = "", method: str = "") -> ProofScript:
    """The script proving an equality with exp by rewriting: each exp's argument expanded to a
    canonical sum of monomials (``field`` proves the expansion), every ``let`` substituted, exp of a
    sum or difference written as a product or quotient of exps (``exp_plus``), then ``field``, each
    denominator nonzero by a hypothesis of the statement or by positivity (exps, sums, products).
    The expansion makes ``exp(beta (x Wq + bq)(x Wk + bk))`` and the same exponent written otherwise
    the same product of atoms on both sides."""
    if formula.relation != "==":
        raise ValueError("the rewriting proves equalities only")
    st = statement(formula, boxes)
    lines = header(formula, domain_text, method) + ["", IDENTITY_PREAMBLE, f"Theorem proved :\n{st.text}.", "Proof.",
                                                      f"  intros {' '.join(st.intro_names)}."]
    canonical = []
    for i, name in st.lets:
        if formula.nodes[i][0] != "exp":
            continue
        arg = formula.nodes[i][1]
        expanded = _expanded(formula, st, arg)
        if expanded is None:
            continue
        unfold = _arithmetic_lets(formula, st, arg)
        how = f"unfold {name}; f_equal; {'unfold ' + ', '.join(unfold) + '; ' if unfold else ''}field"
        lines.append(f"  assert ({name}_eq : {name} = exp {expanded}) by ({how}).")
        canonical.append(name)
    if canonical:
        lines.append(f"  clearbody {' '.join(canonical)}. subst {' '.join(canonical)}.")
    lines += ["  repeat match goal with x := _ : R |- _ => subst x end.",
              "  rewrite ?exp_plus, ?exp_sub, ?exp_Ropp in *.",
              "  repeat split; field; repeat split; first [assumption | apply Rgt_not_eq; positive].",
              "Qed.", ""]
    return ProofScript("\n".join(lines), proof_module(formula), st.text)


def _expanded(formula: Formula, st: Statement, root: int) -> str | None:
    """The node as a canonical sum of monomials in the variables and the atoms (abs, max, min and
    functions, by their let names), Coq text right-nested; None when it divides by a non-constant."""
    symbols: dict[str, sympy.Symbol] = {}

    def symbol(name: str):
        return symbols.setdefault(name, sympy.Symbol(name))

    memo: dict[int, object] = {}
    for i in sorted(_cone(formula, root)):
        node = formula.nodes[i]
        op = node[0]
        if op == "var":
            memo[i] = symbol(st.names[i] if st.names.get(i, "").startswith("v_") else st.texts[i])
        elif op == "const":
            memo[i] = sympy.Rational(node[1].numerator, node[1].denominator)
        elif op in ("+", "-", "*", "neg"):
            a = [memo[j] for j in node[1:]]
            memo[i] = {"+": lambda: a[0] + a[1], "-": lambda: a[0] - a[1], "*": lambda: a[0] * a[1], "neg": lambda: -a[0]}[op]()
        elif op == "/" and formula.nodes[node[2]][0] == "const":
            memo[i] = memo[node[1]] / memo[node[2]]
        elif op in ("/",):
            return None
        else:  # an atom: abs, max, min, a function
            memo[i] = symbol(st.names[i])
    terms = sorted(sympy.Add.make_args(sympy.expand(memo[root])), key=sympy.default_sort_key)
    texts = [_monomial(t) for t in terms if t != 0]
    if not texts:
        return literal(Fraction(0))
    out = texts[-1]
    for t in reversed(texts[:-1]):
        out = f"({t} + {out})"
    return out


def _monomial(term) -> str:
    coeff, rest = term.as_coeff_Mul()
    factors = []
    for base, power in sorted(rest.as_powers_dict().items(), key=lambda bp: str(bp[0])):
        if base != 1:
            factors += [str(base)] * int(power)
    q = Fraction(int(sympy.fraction(abs(coeff))[0]), int(sympy.fraction(abs(coeff))[1]))
    parts = ([] if q == 1 and factors else [literal(q)]) + factors
    body = parts[-1]
    for f in reversed(parts[:-1]):
        body = f"({f} * {body})"
    return f"(- {body})" if coeff < 0 else body


def _cone(formula: Formula, root: int) -> set[int]:
    """The nodes of ``root``'s expression down to its atoms (abs, max, min, functions and variables)."""
    out, stack = set(), [root]
    while stack:
        i = stack.pop()
        if i in out:
            continue
        out.add(i)
        node = formula.nodes[i]
        if node[0] in ("+", "-", "*", "/", "neg"):
            stack.extend(node[1:])
    return out


def _arithmetic_lets(formula: Formula, st: Statement, root: int) -> list[str]:
    """The lets inside ``root``'s expression that ``ring`` must see through (outermost first)."""
    names = dict(st.lets)
    cone = _cone(formula, root)
    return [names[i] for i in sorted(cone, reverse=True)
            if i in names and formula.nodes[i][0] not in PIECEWISE and formula.nodes[i][0] not in FUNCTIONS]


def _goal(st: Statement, formula: Formula, entry: int, relation: str) -> str:
    lhs, rhs = st.texts[formula.lhs[entry]], st.texts[formula.rhs[entry]]
    return {"<=": f"{lhs} <= {rhs}", "<": f"{lhs} < {rhs}", ">=": f"{rhs} <= {lhs}", ">": f"{rhs} < {lhs}"}[relation]


def _conclusion(formula: Formula, done) -> str:
    """The proof term of the conclusion from the goals: an equality from its two inequalities."""
    by_entry: dict[int, list[str]] = {}
    for entry, _, name in done:
        by_entry.setdefault(entry, []).append(name)
    terms = [f"(Rle_antisym _ _ {names[0]} {names[1]})" if formula.relation == "==" else names[0] for _, names in sorted(by_entry.items())]
    out = terms[-1]
    for t in reversed(terms[:-1]):
        out = f"(conj {t} {out})"
    return out


def _tactic(tree, st: Statement, resolved: tuple[str, ...] = (), depth: int = 0) -> str:
    """The tactic of a case tree: a destruct per split, lra or nra at each leaf.  Before nra, what
    holds of a node everywhere (``t_rel``) is cleared where the branch resolved the node: its case
    says more, and nra's products of hypotheses grow with their square.  An exp relation's cases
    are named by their depth in the tree (one per path)."""
    if not isinstance(tree, Split):
        if tree == "nra" and resolved:
            return f"(clear {' '.join(n + '_rel' for n in resolved)}; nra)"
        return tree
    if tree.kind == "exp":
        left, right = tree.node
        lemma = f"exp_{len(left)}{len(right)}"
        defs = " ".join(f"{st.names[i]}_def" for i in left + right)
        blanks = " ".join("_ _" for _ in left + right)
        pattern = f"[[exp{depth}_le exp{depth}_is]|[exp{depth}_le exp{depth}_is]]"
        first, second = (_tactic(b, st, resolved, depth + 1) for b in tree.branches)
        return f"destruct ({lemma} {blanks} {defs}) as {pattern}; [{first} | {second}]"
    name = st.names[tree.node]
    pattern = f"[[{name}_case {name}_is]|[{name}_case {name}_is]]"
    first, second = (_tactic(b, st, resolved + (name,), depth + 1) for b in tree.branches)
    return f"destruct ({_SPLITS[tree.kind]} {name}_def) as {pattern}; [{first} | {second}]"


__all__ = ["IDENTITY_PREAMBLE", "PROOF_PREAMBLE", "ProofScript", "case_script", "identity_script", "proof_module"]
