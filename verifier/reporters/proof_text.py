"""How every format words a check's proof: ``proved, kernel-checked on D``, ``proved (z3) on D``,
``survived (proof: inconclusive, 88.1 % of volume on D)``.

A proof's record is a fresh :class:`~verifier.results.ProofAttempt` or a lock's
:class:`~verifier.lock.LockedProof`; both carry the status, the domain, the method, the share
of volume, the larger sizes also proved and whether both sides were the same function there,
and every phrase reads them the same way.  A proof is named by what it rests on: ``proved,
kernel-checked`` when Coq's kernel re-proved its certificate (``verify lock --coq`` records
it), ``proved (unchecked: why)`` when the kernel could not, and otherwise by the engine whose
word it is -- ``proved (z3)``, ``proved (arb)`` (branch and bound in ball arithmetic),
``proved (identity)`` (sympy's rewriting).
"""

from __future__ import annotations

from ..results import CheckResult, ProofAttempt, ProofStatus, Verdict


def percent(volume: float | None) -> str:
    return "" if volume is None else f"{volume:g} % of volume"


#: the engine whose word a proof is, by its method, until a kernel re-checks it
ENGINES = {"smt": "z3", "branch-and-bound": "arb", "identity": "identity"}
KERNEL_CHECKED = "checked"


def proved_head(method: str = "", kernel: str = "", identical_sides: bool = False) -> str:
    """``proved, kernel-checked``, ``proved (unchecked: why)``, ``proved (z3)``, ``proved (arb)``, ``proved (identity)``."""
    if identical_sides:
        return "proved"
    if kernel == KERNEL_CHECKED:
        return "proved, kernel-checked"
    if kernel:
        return f"proved ({kernel})"
    engine = ENGINES.get(method, method)
    return f"proved ({engine})" if engine else "proved"


def _proved_phrase(domain: str, method: str = "", also=(), identical_sides: bool = False, kernel: str = "") -> str:
    """``proved (identity) on D``, ``proved, kernel-checked on D (also n = 3, n = 4)``, or the warning that both sides coincide there."""
    head = proved_head(method, kernel, identical_sides)
    out = f"{head} on {domain}" if domain else head
    if identical_sides:
        out += ", where both sides are the same function (nothing is compared there)"
    if also:
        out += f" (also at {'; '.join(also)})"
    return out


def proof_phrase(status, domain: str = "", volume: float | None = None) -> str:
    """``proved on D``, ``proof: inconclusive, 88.1 % of volume on D``, ``proof: error``, ...

    ``status`` is a status value or a proof record (then ``domain`` and ``volume`` come from it).
    """
    proof = status if hasattr(status, "status") else None
    if proof is not None:
        status, domain, volume = str(proof.status), proof.domain, proof.volume_percent
    if status == ProofStatus.PROVED.value:
        if proof is None:
            return f"proved on {domain}" if domain else "proved"
        return _proved_phrase(domain, proof.method, getattr(proof, "also", ()), getattr(proof, "identical_sides", False),
                              getattr(proof, "kernel", ""))
    if status == ProofStatus.REFUTED.value:
        return f"refuted by the proof on {domain}"
    detail = f", {percent(volume)}" if status == ProofStatus.INCONCLUSIVE.value and volume is not None else ""
    where = f" on {domain}" if domain and detail else ""  # a share means nothing without the domain it is a share of
    return f"proof: {status}{detail}{where}"


def audit_verdict(verdict: str, status, domain: str = "", volume: float | None = None) -> str:
    """The verdict as the audit table states it, from a proof record (a lock entry's or a fresh
    result's) or from plain values."""
    if status is None:
        return verdict
    if str(getattr(status, "status", status)) == ProofStatus.PROVED.value:
        return proof_phrase(status, domain, volume)
    return f"{verdict} ({proof_phrase(status, domain, volume)})"


def result_verdict(verdict: str, proof: ProofAttempt | None) -> str:
    if proof is None:
        return verdict
    return audit_verdict(verdict, proof)


def shown_verdict(r: CheckResult) -> Verdict:
    """The verdict a row shows: PROVED when the check's proof went through, else the search's.

    Rows and the summary line count the same thing: a check whose search was inconclusive
    (a tie) but whose proof went through is a proved check in both.
    """
    if r.proof is not None and r.proof.status is ProofStatus.PROVED:
        return Verdict.PROVED
    return r.verdict


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
        text = _proved_phrase(proof.domain, proof.method, proof.also, proof.identical_sides, getattr(proof, "kernel", ""))
        detail = f": {proof.message.removeprefix('proved (identity): ')}" if proof.method == "identity" and proof.message else ""
        narrower, covers = getattr(proof, "narrower", ""), getattr(proof, "covers", "")
        tail = f"; narrower than the statement: {narrower}" if narrower else f"; and on the statement's domain: {covers}" if covers else ""
        return text[0].upper() + text[1:] + how + detail + tail
    if proof.status is ProofStatus.INCONCLUSIVE:
        share = f": {percent(proof.volume_percent)} decided" if proof.volume_percent is not None else ""
        stuck = getattr(proof, "stuck", "")
        return f"Proof inconclusive{where}{how}{share}" + (f"; stuck: {stuck}" if stuck else "")
    if proof.status is ProofStatus.REFUTED:
        return f"Refuted by the proof{where}{how}: {proof.message}"
    if proof.status is ProofStatus.NOT_ATTEMPTED:
        return f"Proof not attempted{where}: {proof.message}"
    return f"Proof failed{where}: {proof.message}"
