"""Kernel-checking stored counterexamples: write each Coq script, run ``coqc`` on it, in parallel.

``coqc`` runs as a subprocess with a time limit, so threads are enough for parallelism:
each waits on its own process.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ..errors import VerifierError
from ..formula import Formula, NotExportable
from ..kernel_evidence import EXP_IDENTITY, PinnedFile, pinned_proof_file, pinned_refutation, read_proof, sha256_of
from ..evidence import CounterexampleFileError, load
from ..safe_files import write_atomic
from .export import RefutationFalse, export_counterexample, refutation_script
from .proof import case_script, identity_script

INSTALL_HINT = "coqc not found: install Coq and the Interval library (Debian/Ubuntu: apt-get install coq libcoq-interval)"
DEFAULT_TIMEOUT = 60.0

KERNEL_CHECKED = "kernel-checked"
NOT_EXPORTED = "not-exported"
#: the formula, evaluated exactly at the stored point, says the point does not refute it
REFUTATION_FALSE = "refutation-false"
#: the lock pins no formula for the file (or the pinned one cannot be read): nothing to judge it by
NOT_PINNED = "not-pinned"
REJECTED = "rejected"
TIMED_OUT = "timed-out"
#: a proof whose certificate the kernel has no strategy for (the reason named): labelled, never counted as checked
UNCHECKED = "unchecked"
#: coqc's time for one proof (a case analysis of hundreds of leaves takes minutes under load)
PROOF_TIMEOUT = 900.0


class CoqUnavailable(VerifierError, RuntimeError):
    """``coqc`` or the Interval library is not installed (the message says how to install them)."""


@dataclass(frozen=True)
class KernelCheck:
    """The outcome of kernel-checking one stored counterexample."""

    file: str
    status: str  # kernel-checked | not-exported | refutation-false | not-pinned | rejected | timed-out
    reason: str = ""  # why it was not exported, or coqc's error
    seconds: float = 0.0  # coqc's wall time
    script: str = ""  # the .v file written, when one was
    theorem: str = ""  # the statement Coq proved (or was asked to), as Coq text
    formula: str = ""  # the formula file the statement was written from ("" when exported from the claim now)

    @property
    def kernel_checked(self) -> bool:
        return self.status == KERNEL_CHECKED

    @property
    def failed(self) -> bool:
        """Anything but a proof the kernel accepted: a refutation the lock cites must be kernel-checked."""
        return self.status != KERNEL_CHECKED


def coqc_path() -> str:
    """The ``coqc`` executable; raises :class:`CoqUnavailable` with the install hint when missing."""
    path = shutil.which("coqc")
    if path is None:
        raise CoqUnavailable(INSTALL_HINT)
    return path


def run_coqc(script: Path, timeout: float = DEFAULT_TIMEOUT) -> tuple[str, str, float]:
    """``(status, message, seconds)`` of ``coqc`` on ``script``; the compiled files are removed."""
    start = time.monotonic()
    try:
        proc = subprocess.run([coqc_path(), "-q", "-noglob", script.name], cwd=script.parent, capture_output=True,
                              text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return TIMED_OUT, f"coqc did not finish within {timeout:g} s", time.monotonic() - start
    finally:
        for suffix in (".vo", ".vok", ".vos", ".glob"):
            script.with_suffix(suffix).unlink(missing_ok=True)
        script.parent.joinpath(f".{script.stem}.aux").unlink(missing_ok=True)
    seconds = time.monotonic() - start
    if proc.returncode == 0:
        return KERNEL_CHECKED, "", seconds
    message = (proc.stderr or proc.stdout).strip()
    if "Interval" in message and "Cannot find a physical path" in message:
        raise CoqUnavailable(INSTALL_HINT)
    return REJECTED, " ".join(message.split())[:400], seconds


def _run_script(source: str, write, out_dir: Path, timeout: float, formula_file: str = "") -> KernelCheck:
    """Write the script ``write()`` returns and run coqc on it; a refusal becomes the check's status."""
    try:
        script = write()
    except RefutationFalse as exc:
        return KernelCheck(source, REFUTATION_FALSE, str(exc), formula=formula_file)
    except NotExportable as exc:
        return KernelCheck(source, NOT_EXPORTED, str(exc), formula=formula_file)
    target = out_dir / f"{script.module}.v"
    write_atomic(target, script.text)
    status, message, seconds = run_coqc(target, timeout)
    return KernelCheck(source, status, message, seconds, str(target), script.theorem, formula_file)


def kernel_check_refutation(source: str, formula: Formula, point, out_dir: Path, timeout: float = DEFAULT_TIMEOUT,
                            formula_file: str = "") -> KernelCheck:
    """Kernel-check that ``point`` refutes ``formula``: data in, no claim code."""
    return _run_script(source, lambda: refutation_script(formula, point, source), out_dir, timeout, formula_file)


def kernel_check(path: str | os.PathLike, find_claim, out_dir: Path, timeout: float = DEFAULT_TIMEOUT) -> KernelCheck:
    """Export one stored counterexample's formula from its claim now, write ``out_dir/<module>.v``
    and run ``coqc`` on it (a file no lock cites: ``verify replay FILE --coq``)."""
    loaded = load(path, find_claim)
    return _run_script(str(path), lambda: export_counterexample(loaded), out_dir, timeout)


def kernel_check_pinned(source: str, counterexample: Path, formula_path: Path | None, sha256: str | None, out_dir: Path,
                        timeout: float = DEFAULT_TIMEOUT) -> KernelCheck:
    """Kernel-check a counterexample the lock cites, from the formula the lock pins beside it."""
    if formula_path is None or sha256 is None:
        return KernelCheck(source, NOT_PINNED, "the lock pins no formula for this file: run `verify lock` to export and pin it")
    try:
        pinned = pinned_refutation(counterexample, formula_path, sha256)
    except CounterexampleFileError as exc:
        return KernelCheck(source, NOT_PINNED, str(exc), formula=str(formula_path))
    return kernel_check_refutation(source, pinned.formula, pinned.point, out_dir, timeout, str(formula_path))


def _folder(out_dir, tmp) -> Path:
    folder = Path(out_dir) if out_dir is not None else Path(tmp)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def kernel_check_files(paths, find_claim, out_dir: str | os.PathLike | None = None, jobs: int = 1,
                       timeout: float = DEFAULT_TIMEOUT) -> tuple[KernelCheck, ...]:
    """Kernel-check every file, its formula exported from the claim now, ``jobs`` coqc processes at
    a time, in the order given.

    The scripts stay in ``out_dir`` when one is given (for a reviewer to read); otherwise
    they go to a temporary folder that is removed afterwards.
    """
    coqc_path()
    paths = list(paths)
    for p in paths:  # a missing or corrupt file is a usage error, before any coqc runs
        load(p, find_claim)
    with tempfile.TemporaryDirectory(prefix="verify-coq-") as tmp:
        folder = _folder(out_dir, tmp)
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            return tuple(pool.map(lambda p: kernel_check(p, find_claim, folder, timeout), paths))


def kernel_check_exported(items, out_dir: str | os.PathLike | None = None, jobs: int = 1,
                          timeout: float = DEFAULT_TIMEOUT) -> tuple[KernelCheck, ...]:
    """Kernel-check each ``(source, formula, point, why)``: the point against the formula exported
    from the claim now (by a worker of its pack), or, where ``formula`` is None, not exported
    because of ``why``; data in, no claim code here."""
    coqc_path()
    items = list(items)
    with tempfile.TemporaryDirectory(prefix="verify-coq-") as tmp:
        folder = _folder(out_dir, tmp)

        def one(item):
            source, formula, point, why = item
            if formula is None:
                return KernelCheck(source, NOT_EXPORTED, why)
            return kernel_check_refutation(source, formula, point, folder, timeout)

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            return tuple(pool.map(one, items))


def kernel_check_locked(files, out_dir: str | os.PathLike | None = None, jobs: int = 1,
                        timeout: float = DEFAULT_TIMEOUT) -> tuple[KernelCheck, ...]:
    """Kernel-check every :class:`PinnedFile` from its pinned formula, in the order given: nothing
    here imports or runs a pack."""
    coqc_path()
    files = list(files)
    with tempfile.TemporaryDirectory(prefix="verify-coq-") as tmp:
        folder = _folder(out_dir, tmp)
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            return tuple(pool.map(lambda f: kernel_check_pinned(f.source, f.counterexample, f.formula, f.sha256, folder, timeout),
                                  files))


def kernel_check_proof(source: str, path: Path | None, sha256: str | None, out_dir: Path,
                       timeout: float = PROOF_TIMEOUT) -> KernelCheck:
    """Re-prove a locked proof in Coq from the certificate the lock pins (no claim code runs)."""
    if path is None or sha256 is None:
        return KernelCheck(source, NOT_PINNED, "the lock pins no certificate for this proof: run `verify lock` to write and pin it")
    try:
        now = sha256_of(path)
        if now != sha256:
            return KernelCheck(source, NOT_PINNED, f"edited since the lock (locked sha256 {sha256}, now {now})", formula=str(path))
        evidence = read_proof(path)
    except CounterexampleFileError as exc:
        return KernelCheck(source, NOT_PINNED, str(exc), formula=str(path))
    why = evidence.unchecked_why
    if why is not None:
        return KernelCheck(source, UNCHECKED, why, formula=str(path))
    if evidence.kernel["strategy"] == EXP_IDENTITY:
        script = identity_script(evidence.formula, evidence.boxes, evidence.domain_text, evidence.method)
    else:
        script = case_script(evidence.formula, evidence.boxes, evidence.trees(), evidence.domain_text, evidence.method)
    target = out_dir / f"{script.module}.v"
    write_atomic(target, script.text)
    status, message, seconds = run_coqc(target, timeout)
    return KernelCheck(source, status, message, seconds, str(target), script.theorem, str(path))


@dataclass(frozen=True)
class LockedProofCheck:
    """The kernel check of one proof the lock records as going through."""

    key: tuple[str, str, str]
    locked: str  # what the lock says the kernel made of it ("checked", "unchecked: ...", "" when never run)
    check: KernelCheck

    @property
    def lock_status(self) -> str:
        """What ``verify lock --coq`` records: ``checked``, or ``unchecked: <why>``."""
        k = self.check
        if k.kernel_checked:
            return "checked"
        error = k.reason[k.reason.find("Error:"):] if "Error:" in k.reason else k.reason
        why = {REJECTED: f"Coq rejected the certificate ({error})", TIMED_OUT: k.reason}.get(k.status, k.reason)
        return f"unchecked: {why}"

    @property
    def failed(self) -> bool:
        """A proof the lock records as kernel-checked that no longer is (its certificate rejected, edited,
        gone or timed out).  One the lock records as unchecked stays labelled so; one locked before the
        kernel checked proofs has no certificate yet (``verify lock --coq`` writes and checks it)."""
        return self.locked == "checked" and not self.check.kernel_checked


def kernel_check_locked_proofs(lock, out_dir: str | os.PathLike | None = None, jobs: int = 1,
                               timeout: float = PROOF_TIMEOUT) -> tuple[LockedProofCheck, ...]:
    """Re-prove in Coq every proof the lock records as going through, from its pinned certificate."""
    coqc_path()
    tasks = []
    for e in lock.entries:
        if e.proof is None or e.proof.status != "proved":
            continue
        pinned = pinned_proof_file(lock, e)
        path, listed, digest = pinned if pinned is not None else (None, f"{e.claim} part {e.part} [{e.reading}]", None)
        tasks.append((e, listed, path, digest))
    with tempfile.TemporaryDirectory(prefix="verify-coq-") as tmp:
        folder = _folder(out_dir, tmp)
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            checks = pool.map(lambda t: kernel_check_proof(t[1], t[2], t[3], folder, timeout), tasks)
            return tuple(LockedProofCheck(t[0].key, t[0].proof.kernel, k) for t, k in zip(tasks, checks))


__all__ = ["CoqUnavailable", "LockedProofCheck", "PROOF_TIMEOUT", "UNCHECKED", "kernel_check_locked_proofs", "kernel_check_proof", "CounterexampleFileError", "INSTALL_HINT", "KERNEL_CHECKED", "KernelCheck", "NOT_EXPORTED",
           "NOT_PINNED", "PinnedFile", "REFUTATION_FALSE", "REJECTED", "TIMED_OUT", "coqc_path", "kernel_check",
           "kernel_check_exported", "kernel_check_files", "kernel_check_locked", "kernel_check_pinned", "kernel_check_refutation", "run_coqc"]
