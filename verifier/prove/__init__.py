"""Proofs on bounded domains at fixed dimensions: ``verify prove``.

A proof is tried by *strategies* (:mod:`.strategy`), each an object that says whether it
applies to a claim and then attempts it.  :data:`STRATEGIES` is their order, written once here;
``--method NAME`` runs only those of that name, ``auto`` all of them in this order:

* ``identity`` (:mod:`.identity`) -- lhs - rhs simplifies to 0 in sympy (the sets written
  through their maps): proved by the rewriting, shown with the proof;
* ``smt`` -- claims built only from + - * /, max, min and abs are decided exactly by z3
  (:mod:`.smt`): a proof, or an exact model that the ordinary certifier turns into a
  certified counterexample;
* ``sum-of-squares`` (:mod:`.sos`) -- a polynomial claim written as a sum of squares with
  rational coefficients (an SDP, rounded and checked exactly), hypotheses through
  Positivstellensatz multipliers: what z3 times out on, with a certificate any ring checks;
* ``touching-point`` (:mod:`.refute_at_touch`) -- a strict claim refuted where both sides are
  exactly equal (a rational or algebraic point, checked in its number field);
* ``probe`` -- a few boxes of branch and bound, which settle the easy claims with exp before
  the z3 strategies below spend seconds;
* ``exp-basis`` (:mod:`.exp_basis`) -- z3 on the claim written exactly in y = exp(x/q), where
  exp is the only function outside real arithmetic and every exponent is piecewise linear;
* ``exp-abstraction`` (:mod:`.smt_exp`) -- z3 with every exp(t) an unknown obeying exp's
  order, product and tangent facts;
* ``branch-and-bound`` (:mod:`.bnb`) -- rigorous ball arithmetic on a bounded box: enclosures,
  monotonicity, invariances, and the arguments that close a box touching the claim's
  equality points (:mod:`.touching`).

A strategy that does not apply says why in one line; every turn is recorded in the proof's
details (:class:`~.strategy.StrategyRecord`), and how the whole attempt stopped is a
:class:`~.strategy.ProofStop`.  Every attempt has a time limit; running out gives
``inconclusive`` with how far it got.
"""

from __future__ import annotations

import dataclasses
import os
import time
import traceback

from ..claims import Check
from ..domains import IrrationalDerivedValue
from ..rational_points import refuse_irrational_derived
from ..results import CheckResult, Verdict
from .bnb import BoundedDomainError, BranchAndBoundStrategy
from .coverage import cover
from .domain import ProofBox, ProofBoxError, make_proof_box, parse_boxes, parse_dims
from .exp_basis import BASIS_SECONDS, ExpBasisStrategy
from .identity import Identity
from .refute_at_touch import TouchingPointRefutation
from .result import Proof, ProofDetails, base_fields
from .smt_exp import ABSTRACTION_SECONDS, ExpAbstractionStrategy
from .sos import SumOfSquares
from .smt import Smt
from .strategy import (Budget, MethodError, Outcome, ProofStop, Strategy, StrategyRecord, decisive,
                       outcome_of)

#: boxes of branch and bound before the z3 strategies for exp are tried (a round or two: 15 boxes)
PROBE_BOXES = 8

#: The order in which ``auto`` tries the strategies, cheapest and most exact first.  Adding a
#: prover is one class and one line here.
STRATEGIES: tuple[Strategy, ...] = (
    Identity(),
    Smt(),
    SumOfSquares(),
    TouchingPointRefutation(),
    BranchAndBoundStrategy("probe", boxes=PROBE_BOXES,
                           summary=f"branch and bound for its first {PROBE_BOXES} boxes (a round or two): easy claims "
                                   "settle before the z3 strategies for exp spend seconds"),
    ExpBasisStrategy(),
    ExpAbstractionStrategy(),
    BranchAndBoundStrategy(),
)

#: the strategies that may carry a proof on a box to the statement's unbounded domain (sympy's and z3's)
WIDENING: tuple[Strategy, ...] = tuple(s for s in STRATEGIES if s.name in ("identity", "smt", "exp-basis", "exp-abstraction"))

#: what ``--method`` accepts: ``auto`` (the whole list) or one strategy's name
METHODS: tuple[str, ...] = ("auto",) + tuple(dict.fromkeys(s.name for s in STRATEGIES))


def prove(check: Check, domain: ProofBox, method: str = "auto", time_limit: float = 60.0, dps: int = 50, executor=None,
          max_boxes: int | None = None, near: tuple = (), certificates: bool = True) -> Proof:
    """Prove ``check`` on ``domain``, or refute it with a certified counterexample, or say why not.

    ``method``: ``auto`` or the name of one strategy (a strategy asked for alone that does not
    apply raises its refusal: :class:`MethodError`, or :class:`BoundedDomainError` for
    branch and bound without a bounded box).  ``executor`` (default: in-process) runs batches
    of branch-and-bound boxes; the proof does not depend on it.  ``max_boxes`` bounds the
    branch and bound's work (checked between its fixed rounds): a proof stopped by it has
    decided the same volume on every machine, unlike one stopped by ``time_limit``.  ``near``:
    points where the claim is nearly an equality (the search's near-ties, variable -> exact value),
    which strategies may verify and anchor an argument at (:class:`~.strategy.Budget`).
    ``certificates``: False leaves out what no step of the proof needs (a z3 proof's
    sum-of-squares identity, seconds more), for an answer at once.
    """
    if max_boxes is not None and max_boxes < 1:
        raise MethodError(f"box budget must be at least 1, got {max_boxes}")
    if method not in METHODS:
        raise MethodError(f"unknown method {method!r}; methods: {', '.join(METHODS)}")
    if time_limit <= 0:
        raise MethodError(f"time limit must be positive, got {time_limit}")
    start = time.monotonic()
    try:
        refuse_irrational_derived(check)
    except IrrationalDerivedValue as exc:  # neither z3 nor the charts of branch and bound can hold it exactly
        raise MethodError(f"{check.label}: {exc}") from None
    chosen = STRATEGIES if method == "auto" else tuple(s for s in STRATEGIES if s.name == method)
    records: list[StrategyRecord] = []
    try:
        reasons = [s.applies(check, domain) for s in chosen]
        if method != "auto" and all(r is not None for r in reasons):
            raise chosen[0].refusal(check, reasons[0])
        answer = _run(check, domain, chosen, reasons, records, start, time_limit, dps, executor, max_boxes, near, certificates)
        if answer is not None and answer.result.verdict is Verdict.PROVED:
            answer = cover(check, domain, answer, start + time_limit, dps, WIDENING)
    except (MethodError, BoundedDomainError):
        raise
    except Exception as exc:  # the claim raised: report it, never crash
        detail = f"\n{traceback.format_exc()}" if os.environ.get("VERIFY_DEBUG") else ""
        if records and records[-1].outcome is Outcome.RAISED and not records[-1].reason:  # the turn it raised in
            records[-1] = dataclasses.replace(records[-1], reason=f"{type(exc).__name__}: {exc}")
        return Proof(
            CheckResult(verdict=Verdict.ERROR, seconds=time.monotonic() - start, domain=domain.describe(check),
                        stop_reason="the claim raised", message=f"{type(exc).__name__}: {exc}{detail}", **base_fields(check, dps)),
            ProofDetails(method=method, domain=domain.to_dict(), time_limit=time_limit, stop=ProofStop.CLAIM_RAISED,
                         attempts=tuple(records)),
        )
    if answer is None:
        refused = [(s, r) for s, r in zip(chosen, reasons) if r is not None]
        if refused:  # nothing decided, and the strategy that could have says why it could not run
            raise refused[-1][0].refusal(check, refused[-1][1])
        answer = _nothing_decided(check, domain, method, records, dps)
    details = answer.details
    return Proof(dataclasses.replace(answer.result, seconds=time.monotonic() - start),
                 dataclasses.replace(details, time_limit=time_limit, attempts=tuple(records),
                                     stop=details.stop if details.stop is not None else _stop_of(answer)))


def _run(check, domain, chosen, reasons, records, start, time_limit, dps, executor, max_boxes, near=(), certificates=True) -> Proof | None:
    """Each strategy that applies in turn, until one decides: the decisive proof, else the last
    inconclusive one, else None.  ``records`` receives every turn."""
    last = None
    for k, (strategy, reason) in enumerate(zip(chosen, reasons)):
        if reason is not None:
            records.append(StrategyRecord(strategy.name, Outcome.NOT_APPLICABLE, 0.0, reason))
            continue
        left = time_limit - (time.monotonic() - start)
        later = any(r is None for r in reasons[k + 1:])
        seconds = min(left * (strategy.share if later else 1.0), strategy.seconds if strategy.seconds is not None else left)
        if seconds <= 0:
            records.append(StrategyRecord(strategy.name, Outcome.NO_TIME, 0.0, "the time limit was spent before its turn"))
            continue
        began = time.monotonic()
        records.append(StrategyRecord(strategy.name, Outcome.RAISED))  # replaced below unless the claim raises
        proof = strategy.attempt(check, domain, Budget(seconds, dps, max_boxes, executor, tuple(near), certificates))
        why = strategy.undecided(check, domain) if proof is None else proof.result.stop_reason
        records[-1] = StrategyRecord(strategy.name, outcome_of(proof), time.monotonic() - began, why)
        if proof is not None:
            last = dataclasses.replace(proof, details=dataclasses.replace(proof.details, strategy=strategy.name))
            if decisive(last):
                return last
    return last


def _stop_of(proof: Proof) -> ProofStop:
    v = proof.result.verdict
    if v is Verdict.PROVED:
        return ProofStop.PROVED
    if v is Verdict.ERROR:
        return ProofStop.CLAIM_RAISED
    return ProofStop.NOTHING_DECIDED if v is Verdict.INCONCLUSIVE else ProofStop.REFUTED


def _nothing_decided(check: Check, domain: ProofBox, method: str, records, dps: int) -> Proof:
    """Every strategy that applied returned without a verdict: inconclusive, with their reasons."""
    why = "; ".join(f"{r.name}: {r.reason}" for r in records if r.outcome is not Outcome.NOT_APPLICABLE) or "no strategy ran"
    return Proof(
        CheckResult(verdict=Verdict.INCONCLUSIVE, method="none", domain=domain.describe(check), stop_reason="no strategy decided",
                    message=f"no proof and no counterexample ({why})", **base_fields(check, dps)),
        ProofDetails(method=method, domain=domain.to_dict(), time_limit=0.0, stop=ProofStop.NOTHING_DECIDED),
    )


__all__ = [
    "ABSTRACTION_SECONDS", "BASIS_SECONDS", "METHODS", "PROBE_BOXES", "STRATEGIES", "Budget", "BoundedDomainError", "ProofBox",
    "ProofBoxError", "MethodError", "Outcome", "Proof", "ProofDetails", "ProofStop", "Strategy", "StrategyRecord", "make_proof_box",
    "parse_boxes", "parse_dims", "prove",
]
