"""The statement a proof proves, as Coq text written from the pinned formula and the proof's domain alone.

    Theorem proved : forall (v_x_0 v_x_1 v_eps : R),
      let t1 := Rabs (v_x_0 - v_eps) in ... let claim_lhs := ... in let claim_rhs := ... in
      IZR (-5) <= v_x_0 <= IZR 5 -> ...          (the domain's box)
      t4 <> 0 -> 0 < t7 -> ...                     (where the formula is defined)
      0 <= hypothesis_1 -> ...                     (the check's hypotheses)
      claim_lhs <= claim_rhs.                      (the conclusion, at every entry)

Every node that is shared, piecewise (abs, max, min), a function (exp, ln, ...) or a root
(hypothesis margin, lhs, rhs) is a ``let``, so the statement reads node by node as the
formula file does, and a proof can name each node's defining equation.  A point where a
denominator vanishes, or ln or sqrt leaves its domain, is outside the claim (the certifier
and the provers read it so too): the statement says "where defined".
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

from ..formula import FUNCTIONS, PIECEWISE, Formula
from .export import RESERVED, Namer, comment, literal, variable_name


@dataclass(frozen=True)
class Statement:
    """A formula's statement in Coq: the theorem's text and the names a proof refers to."""

    text: str  # "forall ..., ... -> conclusion" (no "Theorem" keyword, no final dot)
    variables: tuple[str, ...]  # Coq names of the variables, in order
    lets: tuple[tuple[int, str], ...]  # (node index, Coq name) of every let, in order
    boxes: tuple[str, ...]  # names of the box hypotheses, in order
    defined: tuple[tuple[str, str, int], ...]  # (name, kind: nonzero | positive | nonnegative, node) of the definedness hypotheses
    hypotheses: tuple[tuple[str, int, bool], ...]  # (name, node, strict) of the check's hypotheses
    names: Mapping[int, str]  # node index -> Coq name (variables and lets)
    texts: Mapping[int, str]  # node index -> Coq text (its name where it has one)
    conclusion: tuple[str, ...]  # one Coq proposition per entry

    @property
    def intro_names(self) -> list[str]:
        """What ``intros`` names, in order: the variables, the lets, then every hypothesis."""
        return [*self.variables, *(n for _, n in self.lets), *self.boxes, *(n for n, _, _ in self.defined),
                *(n for n, _, _ in self.hypotheses)]


def statement(formula: Formula, boxes: Mapping[str, tuple[Fraction, Fraction] | None], namer: Namer | None = None) -> Statement:
    """The statement of ``formula`` on ``boxes`` (variable -> (lo, hi), or None: unbounded)."""
    namer = namer or Namer(RESERVED - {"claim_lhs", "claim_rhs"})
    nodes = formula.nodes
    uses = [0] * len(nodes)
    for node in nodes:
        if node[0] not in ("var", "const"):
            for i in node[1:]:
                uses[i] += 1
    roots: dict[int, str] = {}
    for k, h in enumerate(formula.hypotheses, 1):
        for j, i in enumerate(h.entries):
            roots.setdefault(i, namer.fresh(f"hypothesis_{k}" if len(h.entries) == 1 else f"hypothesis_{k}_{j}"))
    single = len(formula.lhs) == 1
    lhs_names, rhs_names = [], []
    for j, (a, b) in enumerate(zip(formula.lhs, formula.rhs)):
        for side, i, out in (("lhs", a, lhs_names), ("rhs", b, rhs_names)):
            if i not in roots:
                roots[i] = namer.fresh(f"claim_{side}" if single else f"claim_{side}_{j}")
            out.append(roots[i])
    names: dict[int, str] = {}
    variables = []
    for i, node in enumerate(nodes):
        if node[0] == "var":
            names[i] = namer.fresh(variable_name((node[1], node[2])))
    by_ref = {(n[1], n[2]): i for i, n in enumerate(nodes) if n[0] == "var"}
    for name, shape in formula.variables:  # the binders in the formula's order, every entry (used or not)
        for idx in _indices(shape):
            i = by_ref.get((name, idx))
            variables.append(names[i] if i is not None else namer.fresh(variable_name((name, idx))))
    binder = {(name, idx): coq for (name, idx), coq in zip(((n, idx) for n, shape in formula.variables for idx in _indices(shape)), variables)}
    texts: dict[int, str] = {}
    bodies: dict[str, str] = {}
    lets: list[tuple[int, str]] = []
    counter = 0
    for i, node in enumerate(nodes):
        op = node[0]
        if op == "var" and i not in roots:
            texts[i] = names[i]
            continue
        if op == "var":
            text = names[i]
        elif op == "const":
            text = literal(node[1])
        else:
            text = _op_text(op, [texts[a] for a in node[1:]])
        if i in roots or (op != "const" and (uses[i] > 1 or op in PIECEWISE or op in FUNCTIONS)):
            if i in roots:
                name = roots[i]
            else:
                counter += 1
                name = namer.fresh(f"t{counter}")
            names[i] = name
            lets.append((i, name))
            texts[i] = name
            bodies[name] = text
        else:
            texts[i] = text
    box_lines, box_names = [], []
    for name, shape in formula.variables:
        box = boxes.get(name)
        if box is None:
            continue
        lo, hi = (Fraction(x) for x in box)
        for idx in _indices(shape):
            coq = binder[name, idx]  # the variable itself, even where a hypothesis's let names it too
            box_names.append(namer.fresh(f"box_{coq}"))
            box_lines.append(f"{literal(lo)} <= {coq} <= {literal(hi)}")
    defined = []
    defined_lines = []
    for i, node in enumerate(nodes):
        op = node[0]
        if op == "/" and nodes[node[2]][0] != "const":
            kind, arg = "nonzero", node[2]
        elif op == "ln":
            kind, arg = "positive", node[1]
        elif op == "sqrt":
            kind, arg = "nonnegative", node[1]
        else:
            continue
        if nodes[arg][0] == "const" or (kind, arg) in {(k, a) for _, k, a in defined}:
            continue
        name = namer.fresh(f"defined_{len(defined) + 1}")
        defined.append((name, kind, arg))
        defined_lines.append({"nonzero": f"{texts[arg]} <> 0", "positive": f"0 < {texts[arg]}",
                              "nonnegative": f"0 <= {texts[arg]}"}[kind])
    hyps, hyp_lines = [], []
    for k, h in enumerate(formula.hypotheses, 1):
        for j, i in enumerate(h.entries):
            name = namer.fresh(f"holds_{k}" if len(h.entries) == 1 else f"holds_{k}_{j}")
            hyps.append((name, i, h.strict))
            hyp_lines.append(f"{'0 <' if h.strict else '0 <='} {texts[i]}")
    relation = formula.relation
    conclusion = tuple({"<=": f"{a} <= {b}", "<": f"{a} < {b}", ">=": f"{b} <= {a}", ">": f"{b} < {a}", "==": f"{a} = {b}"}[relation]
                       for a, b in zip(lhs_names, rhs_names))
    lines = [f"forall {' '.join(variables)} : R,"] if variables else []
    lines += [f"  let {name} := {bodies[name]} in" for _, name in lets]
    lines += [f"  {line} ->" for line in box_lines + defined_lines + hyp_lines]
    lines.append("  " + " /\\ ".join(conclusion))
    return Statement("\n".join(lines), tuple(variables), tuple(lets), tuple(box_names), tuple(defined), tuple(hyps), names, texts,
                     conclusion)


def _indices(shape) -> list[tuple[int, ...]]:
    return list(itertools.product(*(range(s) for s in shape)))


def _op_text(op: str, args: list[str]) -> str:
    if op == "neg":
        return f"(- {args[0]})"
    if op in ("+", "-", "*", "/"):
        return f"({args[0]} {op} {args[1]})"
    if op == "abs":
        return f"(Rabs {args[0]})"
    if op in ("max", "min"):
        return f"(R{op} {args[0]} {args[1]})"
    return f"({op} {args[0]})"


def header(formula: Formula, domain_text: str, method: str) -> list[str]:
    """The comment lines that say what the theorem is about (claim text escaped for a Coq comment)."""
    lines = [f"Claim {formula.claim} ({formula.paper}), part {formula.part}, reading {formula.reading}",
             f"Statement: {formula.statement}",
             f"lhs = {formula.lhs_text}; rhs = {formula.rhs_text}; relation {formula.relation}",
             f"dims: {', '.join(f'{k} = {n}' for k, n in formula.dims.items())}; domain: {domain_text}",
             *(f"hypothesis {k}: {h.text}" for k, h in enumerate(formula.hypotheses, 1)),
             f"Proved by {method}; this script re-proves it from the formula pinned in the lock alone."]
    return [f"(* {comment(line)} *)" for line in lines]


__all__ = ["Statement", "header", "statement"]
