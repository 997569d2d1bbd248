"""What a proof strategy is, what it may spend, and how an attempt at a proof stopped.

A strategy is a small object (Hypothesis's ``ShrinkPass``, sympy's ODE hints): a ``name`` the
command line selects it by, ``applies(check, domain)`` -- None when it can run here, else the
one-line reason it cannot -- and ``attempt(check, domain, budget)``, which returns a
:class:`~.result.Proof` or None.  One convention for the outcome:

* a Proof whose verdict is decisive (proved, refuted, ill-posed; or error: the claim raised)
  ends the proof attempt;
* an inconclusive Proof says how far the strategy got (a share of the volume, z3's reason);
  the next strategy is tried, and the last such Proof is the answer when none decides;
* None: the strategy decided nothing and has nothing to report (its reason is recorded).

Raising is a bug of the strategy (the claim's own exceptions are caught around it and reported
as an error).  :func:`verifier.prove.prove` runs the list in its one order and records, per
strategy, whether it applied, how long it took and how it ended (:class:`StrategyRecord`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum
from typing import Any

from ..errors import VerifierError
from ..claims import Check
from ..results import Verdict
from .certificate import ProofCertificate
from .domain import ProofBox
from .result import Proof


class MethodError(VerifierError, ValueError):
    """The method asked for cannot handle this claim (names why)."""


@dataclass(frozen=True)
class Budget:
    """What one attempt may spend: seconds (a safety cap: strategies bound their own work where
    they can, so a proof is the same on any machine), branch-and-bound boxes, the precision of
    certificates, and where boxes are judged."""

    seconds: float
    dps: int = 50
    max_boxes: int | None = None
    executor: Any = None
    #: points where the claim is nearly an equality (the search's near-ties), each variable -> exact
    #: value (nested lists for arrays): leads for a strategy to verify, never evidence
    near: tuple = ()
    #: certificates beyond what the proof itself needs (a z3 proof's sum-of-squares identity)
    certificates: bool = True


class ProofStop(str, Enum):
    """How an attempt at a proof stopped (the reason in words stays in ``CheckResult.stop_reason``)."""

    PROVED = "proved"
    REFUTED = "refuted"  # a certified counterexample (or an ill-posed definition)
    TIME_LIMIT = "time limit"
    BOX_BUDGET = "box budget"
    BOXES_OPEN = "boxes left open"  # nothing left to split: every undecided box at the smallest width
    SOLVER_UNKNOWN = "solver gave up"
    UNCERTIFIED = "model not certified"  # a solver's model the exact certifier did not confirm
    NOTHING_DECIDED = "nothing decided"  # every strategy that applied returned without a verdict
    CLAIM_RAISED = "the claim raised"

    def __str__(self) -> str:
        return self.value


class Outcome(str, Enum):
    """How one strategy's turn ended."""

    PROVED = "proved"
    REFUTED = "refuted"
    UNDECIDED = "undecided"
    NOT_APPLICABLE = "not applicable"
    NO_TIME = "no time left"
    RAISED = "the claim raised"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class StrategyRecord:
    """One strategy's turn in a proof attempt: how it ended, in how many seconds, and why
    (the reason it did not apply, or how far it got)."""

    name: str
    outcome: Outcome
    seconds: float = 0.0
    reason: str = ""

    def to_dict(self) -> dict:
        return {"name": self.name, "outcome": self.outcome.value, "seconds": round(self.seconds, 4), "reason": self.reason}


class Strategy:
    """A way of proving a check on a domain.  Subclasses set ``name`` and ``summary`` and
    implement :meth:`applies` and :meth:`attempt`.

    ``seconds``: the most this strategy may take of the time left (None: all of it);
    ``share``: the fraction of the time left it may take while a later strategy still applies
    (the last one that applies gets all that is left)."""

    name: str = ""
    summary: str = ""
    seconds: float | None = None
    share: float = 1.0

    def applies(self, check: Check, domain: ProofBox) -> str | None:
        return None

    def attempt(self, check: Check, domain: ProofBox, budget: Budget) -> Proof | None:
        raise NotImplementedError

    def undecided(self, check: Check, domain: ProofBox) -> str:
        """Why an attempt that returned None decided nothing (recorded in its turn)."""
        return "decided nothing within its budget"

    def refusal(self, check: Check, reason: str) -> Exception:
        """The error for a user who asked for this strategy alone where it does not apply."""
        return MethodError(f"{check.label}: {reason}")

    def __repr__(self) -> str:
        return f"<strategy {self.name}>"


def solver_stop(proof: Proof) -> "ProofStop":
    """How a z3 attempt stopped, from its verdict and z3's answer."""
    v = proof.result.verdict
    if v is Verdict.PROVED:
        return ProofStop.PROVED
    if proof.result.counterexample is not None:
        return ProofStop.REFUTED
    if proof.details.solver.startswith("sat"):
        return ProofStop.UNCERTIFIED
    return ProofStop.TIME_LIMIT if "timeout" in proof.details.solver or "canceled" in proof.details.solver else ProofStop.SOLVER_UNKNOWN


def with_stop(proof: Proof, stop: "ProofStop") -> Proof:
    """``proof`` with its stop reason, and a certificate naming the method if it proved without one."""
    details = proof.details
    cert = details.certificate
    if cert is None and proof.result.verdict is Verdict.PROVED:
        cert = ProofCertificate(method=details.method, dims=dict(details.domain.get("dims", {})), domain=dict(details.domain),
                                notes=("z3 found the negated claim unsatisfiable; the formula is not recorded yet",))
    return Proof(proof.result, dataclasses.replace(details, stop=stop, certificate=cert))


def decisive(proof: Proof) -> bool:
    """A proof that ends the attempt: proved, refuted (or ill-posed), or the claim raised."""
    return proof.result.verdict is not Verdict.INCONCLUSIVE


def outcome_of(proof: Proof | None) -> Outcome:
    if proof is None:
        return Outcome.UNDECIDED
    v = proof.result.verdict
    if v is Verdict.PROVED:
        return Outcome.PROVED
    if v is Verdict.ERROR:
        return Outcome.RAISED
    if v is Verdict.INCONCLUSIVE:
        return Outcome.UNDECIDED
    return Outcome.REFUTED


__all__ = ["Budget", "MethodError", "Outcome", "ProofStop", "Strategy", "StrategyRecord", "decisive", "outcome_of", "solver_stop",
           "with_stop"]
