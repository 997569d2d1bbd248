"""How every format words a check's proof: ``proved on D``, ``survived (proof: inconclusive, 88.1 % of volume on D)``."""

from __future__ import annotations

from ..results import ProofAttempt, ProofStatus


def percent(volume: float | None) -> str:
    return "" if volume is None else f"{volume:g} % of volume"


def proof_phrase(status: str, domain: str = "", volume: float | None = None) -> str:
    """``proved on D``, ``proof: inconclusive, 88.1 % of volume on D``, ``proof: error``, ..."""
    if status == ProofStatus.PROVED.value:
        return f"proved on {domain}" if domain else "proved"
    if status == ProofStatus.REFUTED.value:
        return f"refuted by the proof on {domain}"
    detail = f", {percent(volume)}" if status == ProofStatus.INCONCLUSIVE.value and volume is not None else ""
    where = f" on {domain}" if domain and detail else ""  # a share means nothing without the domain it is a share of
    return f"proof: {status}{detail}{where}"


def audit_verdict(verdict: str, status: str | None, domain: str = "", volume: float | None = None) -> str:
    """The verdict as the audit table states it, from plain values (a lock entry or a fresh result)."""
    if status is None:
        return verdict
    if status == ProofStatus.PROVED.value:
        return proof_phrase(status, domain, volume)
    return f"{verdict} ({proof_phrase(status, domain, volume)})"


def result_verdict(verdict: str, proof: ProofAttempt | None) -> str:
    if proof is None:
        return verdict
    return audit_verdict(verdict, proof.status.value, proof.domain, proof.volume_percent)


def proof_sentence(proof: ProofAttempt) -> str:
    """One sentence for a report: what was tried, where, how it ended."""
    where = f" on {proof.domain}" if proof.domain else ""
    if not proof.method:
        how = ""
    elif proof.time_limit:
        how = f" ({proof.method}, {proof.seconds:.1f} s of {proof.time_limit:g} s)"
    else:  # not run now: the lock's record (verify check and report do not rerun a proof that did not go through)
        how = f" ({proof.method}, as locked)"
    if proof.status is ProofStatus.PROVED:
        return f"Proved{where}{how}"
    if proof.status is ProofStatus.INCONCLUSIVE:
        share = f": {percent(proof.volume_percent)} decided" if proof.volume_percent is not None else ""
        return f"Proof inconclusive{where}{how}{share}"
    if proof.status is ProofStatus.REFUTED:
        return f"Refuted by the proof{where}{how}: {proof.message}"
    if proof.status is ProofStatus.NOT_ATTEMPTED:
        return f"Proof not attempted{where}: {proof.message}"
    return f"Proof failed{where}: {proof.message}"
