"""Replay: a stored counterexample certified again, from its exact inputs, against the claim as
the code states it now.

Everything a file states about its point is recomputed: the verdict, and the values of lhs,
rhs and margin it shows a reviewer.  A stored value that differs from its recomputation (at
the file's own precision) is named in :attr:`Replay.moved_values`: the file says something
its inputs do not, which ``verify check`` calls drift even while the point still refutes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping

from .certify import Certificate, certify_plainly, decimal_string
from .evidence import CounterexampleFileError, LoadedCounterexample, load, parse_exact

#: the values a stored file shows next to its inputs, each recomputed on replay
STORED_VALUES = ("lhs", "rhs", "margin")


@dataclass(frozen=True)
class Replay:
    path: str
    loaded: LoadedCounterexample
    certificate: Certificate
    still_refutes: bool
    lhs: str
    rhs: str
    margin: str
    stored: Mapping[str, str]
    #: lhs, rhs and margin recomputed at the precision the file states (``stored`` is compared with these)
    at_stored_dps: Mapping[str, str] | None = None

    @property
    def values_match(self) -> bool:
        return not self.moved_values

    @property
    def moved_values(self) -> tuple[str, ...]:
        """The fields among lhs, rhs, margin whose stored value is not the recomputed one."""
        recomputed = self.at_stored_dps or {"lhs": self.lhs, "rhs": self.rhs, "margin": self.margin}
        return tuple(f for f in STORED_VALUES if not same_number(self.stored[f], recomputed[f]))

    def moved_detail(self) -> str:
        """One clause per moved value: ``lhs stored 1000, recomputed 2``."""
        recomputed = self.at_stored_dps or {"lhs": self.lhs, "rhs": self.rhs, "margin": self.margin}
        return ", ".join(f"{f} stored {self.stored[f]}, recomputed {recomputed[f]}" for f in self.moved_values)

    def require_stated_values(self) -> "Replay":
        """This replay, or a :class:`CounterexampleFileError` naming the first value the file misstates
        (for what pins or shows a file: a lock must not pin, nor a report show, a value its inputs do not give)."""
        if self.moved_values:
            raise CounterexampleFileError(self.path, self.moved_values[0], f"states values its inputs do not give ({self.moved_detail()}): "
                                                                           "correct them, or delete the file to search afresh")
        return self


def same_number(stored: str, recomputed: str) -> bool:
    """Whether two decimal strings name one number (``"2"`` and ``"2.0"`` do; a digit of another script never does)."""
    if stored == recomputed:
        return True
    try:
        return parse_exact(stored) == parse_exact(recomputed)
    except ValueError:
        return False


def replay(path: str | os.PathLike, find_claim, dps: int | None = None) -> Replay:
    """Re-certify a stored counterexample from its exact inputs and recompute the values it states."""
    loaded = load(path, find_claim)
    doc = loaded.document
    dps = dps or doc["dps"]
    cert = certify_plainly(loaded.check, loaded.data, loaded.dims, dps)  # in a worker: a claim's code runs only there (verifier/tasks.py)

    def shown(at: int) -> dict[str, str]:
        values = ((cert.exact_lhs, cert.lhs), (cert.exact_rhs, cert.rhs), (cert.exact_margin, cert.margin))
        return {f: decimal_string(exact if exact is not None else approx, at) for f, (exact, approx) in zip(STORED_VALUES, values)}

    now = shown(dps)
    return Replay(
        path=str(path),
        loaded=loaded,
        certificate=cert,
        still_refutes=cert.violated,
        lhs=now["lhs"],
        rhs=now["rhs"],
        margin=now["margin"],
        stored={f: doc[f] for f in STORED_VALUES},
        at_stored_dps=now if dps == doc["dps"] else shown(doc["dps"]),
    )


__all__ = ["STORED_VALUES", "Replay", "replay", "same_number"]
