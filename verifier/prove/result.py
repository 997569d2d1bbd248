"""What a proof attempt returns: the usual check result plus how the proof went."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ..claims import Check
from ..results import CheckResult, Verdict
from .certificate import ProofCertificate


@dataclass(frozen=True)
class ProofDetails:
    method: str  # smt | branch-and-bound
    domain: Mapping[str, Any]  # ProofBox.to_dict()
    time_limit: float
    solver: str = ""  # z3's answer: unsat | sat | unknown (reason)
    boxes_proved: int = 0
    boxes_examined: int = 0
    volume_proved: float | None = None  # fraction of the box volume proved
    notes: tuple[str, ...] = ()  # tight faces, reductions used, what remains open
    #: what the proof rests on, for a checker smaller than the prover (None: nothing recorded yet)
    certificate: ProofCertificate | None = None


@dataclass(frozen=True)
class Proof:
    result: CheckResult
    details: ProofDetails

    @property
    def exit_code(self) -> int:
        v = self.result.verdict
        if v is Verdict.ERROR:
            return 2
        return 1 if v in (Verdict.REFUTED, Verdict.ILL_POSED) else 0


def base_fields(check: Check, dps: int) -> dict:
    """The fields of a CheckResult that describe the check itself."""
    return dict(
        claim=check.claim.id,
        part=check.part.name,
        reading=check.reading.name,
        dps=dps,
        kind=check.claim.kind,
        title=check.claim.title,
        statement=check.part.statement or check.claim.statement,
        reading_summary=check.reading.summary,
        relation=check.part.relation,
        read_as=check.part.read_as,
    )
