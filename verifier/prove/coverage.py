"""Proved means on the statement's domain, or says where (issue 34, item 4).

A proof runs on a bounded box; the statement may range over more: a variable unbounded in the
statement (``x ∈ ℝ``), or cut by a search box (``verify expr`` searches an unbounded variable on
[-10^4, 10^4] and marks those ends ``cut``).  After a proof on a narrower box, in this order:

* **z3 on the statement's domain**: where the claim is real arithmetic, the negated claim on the
  unbounded domain is given to z3 (a few seconds): unsat proves the statement itself; a model
  that the certifier confirms refutes it beyond the box;
* **homogeneity**: when every side and hypothesis is homogeneous in the variables (m(t x) =
  t^k m(x) for t > 0, shown by sympy), the statement's domain is a cone and the box holds a
  neighbourhood of 0 in it, every point of the cone scales into the box: the proof covers it;
* otherwise the proof says that it is narrower and what the statement has beyond it
  (:attr:`~.result.ProofDetails.narrower`), so the panel and the JSON do.
"""

from __future__ import annotations

import dataclasses
import time

import sympy

from ..claims import Check
from ..contexts import SYMBOLIC
from ..results import Verdict
from .domain import ProofBox, ProofBoxError, make_proof_box
from .identity import coordinate_symbols, differences
from .invariance import scaling_degree
from .parametrisation import BoundedDomainError, Parametrisation
from .result import Proof
from .strategy import Budget
from .z3ctx import NotDecidable

#: seconds at most for a strategy on the statement's (unbounded) domain that sets no cap of its own
WIDEN_SECONDS = 5.0


def statement_check(check: Check) -> Check:
    """The check with every ``cut`` end of its variables open again: the statement as written."""
    if not any(v.cut for v in check.claim.variables):
        return check
    variables = tuple(dataclasses.replace(v, lo=None if "lo" in v.cut else v.lo, hi=None if "hi" in v.cut else v.hi, cut=())
                      for v in check.claim.variables)
    return Check(dataclasses.replace(check.claim, variables=variables), check.part, check.reading)


def statement_domain(check: Check, domain: ProofBox) -> tuple[Check, ProofBox] | None:
    """(the statement's check, its domain at the proof's sizes) when that domain is wider than
    ``domain``, else None."""
    wide_check = statement_check(check)
    try:
        wide = make_proof_box(wide_check, dict(domain.dims), None, {}, own_bounds=True)
    except ProofBoxError:
        return None
    if dict(wide.boxes) == dict(domain.boxes):
        return None
    return wide_check, wide


def narrower_text(check: Check, domain: ProofBox, wide_check: Check, wide: ProofBox) -> str:
    """``x ∈ ℝ in the statement, x ∈ [-10000, 10000] proved``: what the proof leaves out."""
    bits = []
    for name, box in domain.boxes.items():
        if wide.boxes.get(name) != box:
            bits.append(f"{_range(wide_check, wide, name)} in the statement, {_range(check, domain, name)} proved")
    return "; ".join(bits)


def _range(check: Check, domain: ProofBox, name: str) -> str:
    """One variable's range as a domain prints it (``x ∈ [-2, 2]^2``, ``a ∈ ℝ``), without the sizes."""
    text = ProofBox(domain.dims, {name: domain.boxes.get(name)}).describe(check)
    return text.split("; ", 1)[1] if domain.dims else text


def cover(check: Check, domain: ProofBox, proof: Proof, deadline: float, dps: int, strategies=()) -> Proof:
    """``proof`` (proved on ``domain``) extended to the statement's domain where an argument does,
    or marked with what it leaves out.  ``strategies``: those to try on the statement's domain
    (each that applies there: z3 and its exponential forms decide unbounded domains, branch and
    bound does not apply to one)."""
    wider = statement_domain(check, domain)
    if wider is None:
        return proof
    wide_check, wide = wider
    if proof.details.method == "identity" and _same_symbols(check, domain, wide_check, wide):
        where = wide.describe(wide_check)  # the rewriting holds wherever both sides are defined, under the same signs
        return Proof(dataclasses.replace(proof.result, message=f"{proof.result.message}; and on the statement's domain ({where})"),
                     dataclasses.replace(proof.details, covers=f"{where} (the same rewriting: the symbols have the same signs)"))
    for strategy in strategies:
        left = deadline - time.monotonic()
        if left < 0.1:
            break
        if strategy.name == "identity" and proof.details.method != "identity":  # sides that differ on the box differ beyond it
            continue
        try:
            if strategy.applies(wide_check, wide) is not None:
                continue
            # the strategy's own cap, where z3's resource limit decides first (the same answer on any machine);
            # no certificate beyond the proof's own: only its verdict is kept
            widened = strategy.attempt(wide_check, wide, Budget(min(left, strategy.seconds or WIDEN_SECONDS), dps, certificates=False))
        except (NotDecidable, BoundedDomainError):
            continue
        if widened is None:
            continue
        if widened.result.verdict is Verdict.PROVED:
            where = wide.describe(wide_check)
            return Proof(dataclasses.replace(proof.result,
                                             message=f"{proof.result.message}; and on the statement's domain ({where}) by {strategy.name}"),
                         dataclasses.replace(proof.details, covers=f"{where} ({strategy.name} on it)"))
        if widened.result.counterexample is not None:
            note = f"proved on {domain.describe(check)}, but false beyond it: "
            return Proof(dataclasses.replace(widened.result, message=note + widened.result.message),
                         dataclasses.replace(widened.details, strategy=strategy.name))
    degree = homogeneous_degree(wide_check, wide, domain)
    if degree is not None:
        where = wide.describe(wide_check)
        return Proof(dataclasses.replace(proof.result, message=(
                         f"{proof.result.message}; every side and hypothesis is homogeneous of degree {degree} and the "
                         f"statement's domain is a cone whose points all scale into the box: proved on {where}")),
                     dataclasses.replace(proof.details, covers=f"{where} (homogeneous of degree {degree}: every point scales into the box)"))
    text = narrower_text(check, domain, wide_check, wide)
    return Proof(proof.result, dataclasses.replace(proof.details, narrower=text,
                                                   notes=proof.details.notes + (f"narrower than the statement: {text}",)))


def _same_symbols(check: Check, domain: ProofBox, wide_check: Check, wide: ProofBox) -> bool:
    """The identity step's symbols (names and signs) are the same on both domains."""
    try:
        mine = coordinate_symbols(Parametrisation(check, domain, smt=True))
        theirs = coordinate_symbols(Parametrisation(wide_check, wide, smt=True))
    except (BoundedDomainError, ValueError):
        return False
    return [(s.name, s.assumptions0) for s in mine] == [(s.name, s.assumptions0) for s in theirs]


def homogeneous_degree(check: Check, wide: ProofBox, box: ProofBox) -> int | None:
    """k when lhs - rhs and every hypothesis is homogeneous (of degree k, and of any degree) in all
    the variables, the statement's domain ``wide`` is a cone and ``box`` holds a neighbourhood of
    its apex, so that every point of the cone scales into ``box``; else None."""
    if check.claim.dims or any(v.domain is not None or v.radius is not None or v.lower or v.upper for v in check.variables):
        return None
    own = {v.name: v for v in check.variables}
    for name, bounds in wide.boxes.items():
        proved = box.boxes.get(name)
        if proved is None:
            return None
        var = own[name]
        lo, hi = bounds if bounds is not None else (None if var.lo is None else var.lo.exact, None if var.hi is None else var.hi.exact)
        if lo not in (None, 0) or hi not in (None, 0):  # not a cone
            return None
        if not ((lo == 0 and proved[0] == 0 and proved[1] > 0) or (hi == 0 and proved[1] == 0 and proved[0] < 0)
                or (lo is None and hi is None and proved[0] < 0 < proved[1])):
            return None
    try:
        param = Parametrisation(check, wide, smt=True)
        symbols = coordinate_symbols(param)
        scale = sympy.Symbol("scale", positive=True)
        plain = param.data(SYMBOLIC, symbols)
        scaled = param.data(SYMBOLIC, [scale * s for s in symbols])
        sides = [(a, b) for a, b in zip(differences(check, SYMBOLIC, plain, wide.dims), differences(check, SYMBOLIC, scaled, wide.dims))]
        hyps = [(a, b) for (a, _), (b, _) in zip(param.hypothesis_margins(SYMBOLIC, plain), param.hypothesis_margins(SYMBOLIC, scaled))]
    except (ArithmeticError, ValueError, TypeError, BoundedDomainError):
        return None
    for a, b in hyps:  # a hypothesis of any degree keeps its sign under scaling
        if scaling_degree(a, b, scale) is None:
            return None
    degrees = set()
    for a, b in sides:
        k = scaling_degree(a, b, scale)
        if k is None:
            return None
        if k != "any":
            degrees.add(k)
    if len(degrees) > 1:
        return None
    return degrees.pop() if degrees else 0


__all__ = ["WIDEN_SECONDS", "cover", "homogeneous_degree", "narrower_text", "statement_check", "statement_domain"]
