"""What the proofs of an audit may spend: a light module, so that the command line can show the
defaults without loading the provers."""

from __future__ import annotations

import math
from dataclasses import dataclass

from .limits import MAX_PROVE_BOXES, LimitError, check_int


@dataclass(frozen=True)
class ProofBudget:
    """Work per attempt, and seconds per attempt and for all attempts together; ``per_check = 0`` attempts none.

    ``boxes`` is the budget that decides (branch-and-bound boxes per attempt, counted between
    fixed rounds): an attempt it stops has decided the same volume on any machine, so a lock
    written twice is the same.  The seconds are safety caps, generous by default; an attempt
    they stop says so, and its share of volume depends on the machine.
    """

    per_check: float = 60.0
    total: float = 150.0
    dps: int = 50
    boxes: int | None = 2500
    #: a z3 proof's sum-of-squares identity beside it (up to 3 s more per proof): kept by
    #: ``verify lock`` and ``verify prove``; ``verify lemma``, ``expr`` and ``all`` answer without it
    certificates: bool = True

    def __post_init__(self):
        for name in ("per_check", "total"):
            value = getattr(self, name)
            if not (value >= 0 and math.isfinite(value)):
                raise ValueError(f"proof time {name} must be a finite number of seconds >= 0, got {value!r}")
        if self.boxes is not None:
            try:
                check_int(self.boxes, 1, MAX_PROVE_BOXES)
            except LimitError as exc:
                raise ValueError(f"proof box budget {exc}") from None

    @property
    def enabled(self) -> bool:
        return self.per_check > 0 and self.total > 0


NO_PROOFS = ProofBudget(per_check=0.0, total=0.0)


__all__ = ["NO_PROOFS", "ProofBudget"]
