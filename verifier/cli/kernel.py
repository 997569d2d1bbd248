"""``--coq``: kernel-check stored counterexamples with coqc (shared by ``replay``, ``check`` and ``report``).

``verify check --coq`` and ``verify report --coq`` judge the files a lock cites by the formula
the lock pins beside each (no claim code runs for it); ``verify replay FILE --coq`` of a file
no lock cites exports the formula from the claim now.
"""

from __future__ import annotations

import functools
import time
from pathlib import Path

import click

from dataclasses import replace

from ..coq import CoqUnavailable, kernel_check_files, kernel_check_locked
from ..coq.runner import REFUTATION_FALSE, coqc_path, kernel_check_locked_proofs
from ..kernel_evidence import PinnedFile, pinned_file
from ..reporters import coq_report
from . import UsageFailure, err_console, registry


def coq_options(fn):
    @click.option("--coq", is_flag=True, help="Also prove each refutation in Coq: write a .v file and kernel-check it "
                  "with coqc (needs: apt-get install coq libcoq-interval).")
    @click.option("--coq-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                  help="With --coq: keep the .v files here (default: a temporary folder, removed afterwards).")
    @functools.wraps(fn)
    def wrapper(*args, **kw):
        return fn(*args, **kw)

    return wrapper


def kernel_checks(paths, coq: bool, coq_dir: Path | None, jobs: int = 1):
    """The kernel checks of ``paths`` (None without --coq), their formulas exported from the claims
    now, reported on stderr; exit 2 where coqc is missing."""
    if not coq:
        return None
    claims = registry()  # here: the click context that names the packs is not visible in the worker threads
    return _reported(lambda: kernel_check_files([str(p) for p in paths], lambda paper, cid: claims.find(paper, cid), coq_dir, jobs),
                     coq_report.print_kernel_checks)


def pinned_files(reg) -> list[PinnedFile]:
    """Every counterexample file the regression replayed, with the formula its lock entry pins."""
    locked = reg.lock.by_key()
    return [pinned_file(reg.lock, locked.get(o.key), listed, r.path) for o in reg.outcomes for listed, r in zip(o.files, o.replays)]


def _reported(run, report):
    """``run()``'s checks, reported on stderr with their time; exit 2 where coqc is missing."""
    start = time.monotonic()
    try:
        checks = run()
    except CoqUnavailable as exc:
        raise UsageFailure(str(exc)) from None
    report(err_console(), checks, time.monotonic() - start)
    return checks


def locked_kernel_checks(reg, coq: bool, coq_dir: Path | None, jobs: int = 1):
    """The kernel checks of every counterexample the lock cites, each from the formula the lock pins
    (None without --coq), reported on stderr; exit 2 where coqc is missing."""
    if not coq:
        return None
    return _reported(lambda: kernel_check_locked(pinned_files(reg), coq_dir, jobs), coq_report.print_kernel_checks)


def locked_proof_checks(lock, coq: bool, coq_dir: Path | None, jobs: int = 1):
    """The kernel checks of every proof the lock records as going through, from its pinned certificate
    (None without --coq), reported on stderr; exit 2 where coqc is missing."""
    if not coq:
        return None
    return _reported(lambda: kernel_check_locked_proofs(lock, coq_dir, jobs), coq_report.print_proof_checks)


def require_coqc(coq: bool) -> None:
    """With --coq, refuse at once (exit 2, the install hint) where coqc is missing: not after a long run."""
    if coq:
        try:
            coqc_path()
        except CoqUnavailable as exc:
            raise UsageFailure(str(exc)) from None


def with_kernel_statuses(lock, coq: bool, coq_dir: Path | None, jobs: int = 1):
    """``verify lock --coq``: the lock with what Coq's kernel made of each proof's certificate recorded."""
    checks = locked_proof_checks(lock, coq, coq_dir, jobs)
    if checks is None:
        return lock
    status = {c.key: c.lock_status for c in checks}
    entries = tuple(replace(e, proof=replace(e.proof, kernel=status[e.key])) if e.key in status else e for e in lock.entries)
    return replace(lock, entries=entries)


def exit_code(checks, code: int, failed_code: int, proofs=None) -> int:
    """``code``, or ``failed_code`` when a cited refutation is anything but kernel-checked, or a proof
    the lock records as kernel-checked no longer is."""
    failed = bool(checks) and any(k.failed for k in checks) or bool(proofs) and any(p.failed for p in proofs)
    return failed_code if failed else code


def replay_exit_code(checks, still_refutes: bool) -> int:
    """A replay's code (1: still refutes, 0: no longer), or 2 when the kernel and the replay disagree:
    a refutation the kernel did not prove, or a file the kernel finds refuting that the replay does not."""
    code = 1 if still_refutes else 0
    if not checks:
        return code
    (k,) = checks
    agrees = k.kernel_checked if still_refutes else k.status == REFUTATION_FALSE
    return code if agrees else 2
