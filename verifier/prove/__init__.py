"""Proofs on bounded domains at fixed dimensions: ``verify prove``.

Three methods, picked by what the claim is built from:

* ``identity`` (:mod:`.identity`) -- a claim whose two sides are the same function (lhs - rhs
  simplifies to 0 in sympy, the sets written through their maps) is proved by the
  rewriting, shown with the proof;
* ``smt`` (:mod:`.smt`) -- claims built only from + - * /, max, min and abs are decided
  exactly by z3: a proof on the stated domain, or an exact model that the ordinary
  certifier turns into a certified counterexample;
* ``branch-and-bound`` (:mod:`.bnb`) -- claims with exp (or log, sqrt) at small fixed
  dimensions on a bounded box: rigorous ball arithmetic with centred forms.

``auto`` tries the identity (only where the margin vanishes at sampled points), then SMT,
and falls back to branch and bound when the claim leaves real arithmetic.  A claim whose
only function outside it is exp gets, in between, SMT in an exact exponential basis where every
exponent is piecewise linear (:mod:`.exp_basis`: y = exp(x/q) per variable, each exp a monomial
in y), then SMT with every exp abstracted (:mod:`.smt_exp`: an unsat abstraction is a proof),
after a few boxes of branch and bound (which settle the easy claims first) and within a fixed
budget of z3's work.  Every attempt
has a time limit; running out gives ``inconclusive``.
"""

from __future__ import annotations

import dataclasses
import time
import traceback

from ..claims import Check
from ..domains import IrrationalDerivedValue
from ..rational_points import refuse_irrational_derived
from ..results import CheckResult, Verdict
from .bnb import BoundedDomainError, BranchAndBound
from .domain import ProofBox, ProofBoxError, make_proof_box, parse_boxes, parse_dims
from .identity import prove_identity
from .result import Proof, ProofDetails, base_fields
from .smt import NotDecidable, prove_smt
from .exp_basis import prove_exp_basis
from .smt_exp import prove_exp_abstracted

#: boxes of branch and bound before the exp abstraction is tried (a few rounds: 15 boxes)
PROBE_BOXES = 8
#: seconds at most for the exp abstraction before branch and bound (z3's resource limit
#: decides first: the same answer on any machine)
ABSTRACTION_SECONDS = 5.0
#: seconds at most for the exponential basis: nonlinear arithmetic spends its resource units
#: slowly (Lemma D.5 [intended] at n = 2 is decided in 1.4 s idle; a formula the basis cannot
#: decide exhausts its resource limit in 10-14 s idle, D.4 and D.5 at n = 3), so the clock is set
#: where the resource limit, the same on every machine, decides on a machine up to 10 times slower
BASIS_SECONDS = 20.0

METHODS = ("auto", "identity", "smt", "branch-and-bound")


class MethodError(ValueError):
    """The method asked for cannot handle this claim (names why)."""


def prove(check: Check, domain: ProofBox, method: str = "auto", time_limit: float = 60.0, dps: int = 50, executor=None,
          max_boxes: int | None = None) -> Proof:
    """Prove ``check`` on ``domain``, or refute it with a certified counterexample, or say why not.

    ``executor`` (default: in-process) runs batches of branch-and-bound boxes; the proof does
    not depend on it -- the same boxes are decided in the same order with any executor.
    ``max_boxes`` bounds the branch and bound's work (checked between its fixed rounds): a
    proof stopped by it has decided the same volume on every machine, unlike one stopped by
    ``time_limit``.
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
    try:
        if method in ("auto", "identity"):
            proof = prove_identity(check, domain, time_limit, dps)
            if proof is not None:
                return proof
            if method == "identity":
                raise MethodError(f"{check.label}: lhs \u2212 rhs does not simplify to 0 on this domain (or the claim is strict)")
        if method in ("auto", "smt"):
            try:
                return prove_smt(check, domain, time_limit, dps)
            except NotDecidable as exc:
                if method == "smt":
                    raise MethodError(f"{check.label}: {exc}; use --method branch-and-bound with a bounded --box") from None
            return _exp_abstraction_then_bnb(check, domain, time_limit, dps, executor, max_boxes, start)
        if not domain.bounded:
            raise _needs_box(check, domain)
        return BranchAndBound(check, domain, time_limit, dps, executor=executor, max_boxes=max_boxes).run()
    except (MethodError, BoundedDomainError):
        raise
    except Exception as exc:  # the claim raised: report it, never crash
        import os

        detail = f"\n{traceback.format_exc()}" if os.environ.get("VERIFY_DEBUG") else ""
        return Proof(
            CheckResult(verdict=Verdict.ERROR, seconds=time.monotonic() - start, domain=domain.describe(check),
                        stop_reason="the claim raised", message=f"{type(exc).__name__}: {exc}{detail}", **base_fields(check, dps)),
            ProofDetails(method=method, domain=domain.to_dict(), time_limit=time_limit),
        )


def _exp_abstraction_then_bnb(check, domain, time_limit, dps, executor, max_boxes, start) -> Proof:
    """A few boxes of branch and bound, then SMT in the exponential basis, then with exp abstracted,
    then branch and bound to the end."""
    probe = None
    if domain.bounded:
        budget = PROBE_BOXES if max_boxes is None else min(PROBE_BOXES, max_boxes)
        first = BranchAndBound(check, domain, time_limit, dps, executor=executor, max_boxes=budget)
        probe = first.run()
        if not first.stopped_by_budget:  # decided, out of time, or nothing left to split
            return probe
    # exact where it applies, then the abstraction
    for attempt, seconds in ((prove_exp_basis, BASIS_SECONDS), (prove_exp_abstracted, ABSTRACTION_SECONDS)):
        left = time_limit - (time.monotonic() - start)
        try:
            decided = attempt(check, domain, min(seconds, max(left, 0.001)), dps)
        except NotDecidable:  # log, sqrt, tanh, ...: no abstraction of those
            break
        if decided is not None:
            return _since(decided, start, time_limit)
    if probe is None:
        raise _needs_box(check, domain)
    left = time_limit - (time.monotonic() - start)
    if left <= 0 or (max_boxes is not None and max_boxes <= budget):
        return _since(probe, start, time_limit)
    return _since(BranchAndBound(check, domain, left, dps, executor=executor, max_boxes=max_boxes).run(), start, time_limit)


def _needs_box(check, domain) -> BoundedDomainError:
    unbounded = [k for k, b in domain.boxes.items() if b is None]
    return BoundedDomainError(
        f"{check.label} needs branch and bound (it uses exp, log or sqrt), which needs a bounded box for "
        f"{', '.join(unbounded)}: give --box NAME=LO:HI or --box LO:HI"
    )


def _since(proof: Proof, start: float, time_limit: float) -> Proof:
    """The proof with its time and limit those of the whole attempt."""
    return Proof(dataclasses.replace(proof.result, seconds=time.monotonic() - start),
                 dataclasses.replace(proof.details, time_limit=time_limit))


__all__ = [
    "prove", "Proof", "ProofDetails", "ProofBox", "ProofBoxError", "MethodError", "BoundedDomainError",
    "make_proof_box", "parse_boxes", "parse_dims", "METHODS",
]
