"""What a proof attempt returns: the usual check result plus how the proof went."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping

from ..claims import Check
from ..results import CheckResult, Verdict
from .certificate import ProofCertificate


@dataclass(frozen=True)
class ProofDetails:
    method: str  # identity | smt | branch-and-bound: the kind of argument (what a lock records)
    domain: Mapping[str, Any]  # ProofBox.to_dict()
    time_limit: float
    solver: str = ""  # z3's answer: unsat | sat | unknown (reason)
    boxes_proved: int = 0
    boxes_examined: int = 0
    volume_proved: float | None = None  # fraction of the box volume proved
    notes: tuple[str, ...] = ()  # tight faces, reductions used, what remains open
    #: what the proof rests on, for a checker smaller than the prover (None: nothing recorded yet)
    certificate: ProofCertificate | None = None
    #: the strategy whose answer this is (a name of :data:`verifier.prove.STRATEGIES`)
    strategy: str = ""
    #: how the attempt stopped (:class:`~.strategy.ProofStop`; None: not set by the strategy)
    stop: Any = None
    #: every strategy's turn, in order (:class:`~.strategy.StrategyRecord`)
    attempts: tuple = ()
    #: where an inconclusive branch and bound is stuck (:class:`Stuck`)
    stuck: "Stuck | None" = None
    #: set when the domain proved is narrower than the statement's: what the statement has that
    #: the proof does not cover ("x ∈ ℝ, proved on x ∈ [-10000, 10000]")
    narrower: str = ""
    #: set when the proof was carried from the box to the statement's wider domain: that domain and how
    covers: str = ""


@dataclass(frozen=True)
class Stuck:
    """Where a branch and bound that did not finish is stuck: the hull of the boxes it left
    open or undecided (variable -> (lo, hi) as exact strings, in the proof's coordinates), their
    number and share of the volume, and the nearest equality point or set it found (exact
    coordinates as strings, or a sentence naming the set), or None."""

    hull: Mapping[str, tuple[str, str]]
    boxes: int
    volume: float
    nearest: str | None = None

    def sentence(self) -> str:
        where = ", ".join(f"{k} \u2208 [{_shown(lo)}, {_shown(hi)}]" for k, (lo, hi) in self.hull.items())
        out = f"{self.boxes} box(es) undecided, {100 * self.volume:.3g}% of the volume, within {where}"
        if self.nearest:
            out += f"; nearest equality found: {self.nearest}"
        return out

    def to_dict(self) -> dict:
        return {"hull": {k: list(v) for k, v in self.hull.items()}, "boxes": self.boxes, "volume": self.volume,
                "nearest": self.nearest}


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


def _shown(q: str) -> str:
    """An exact bound for a reader: as it is when short, else a decimal."""
    return q if len(q) <= 12 else f"{float(Fraction(q)):.6g}"


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
