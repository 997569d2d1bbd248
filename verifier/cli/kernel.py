"""``--coq``: kernel-check stored counterexamples with coqc (shared by ``replay``, ``check`` and ``report``).

``verify check --coq`` and ``verify report --coq`` judge the files a lock cites by the formula
the lock pins beside each (no claim code runs for it); ``verify replay FILE --coq`` of a file
no lock cites has the formula exported from the claim now, by a worker of its pack.  The Coq
script is written here, from data.
"""

from __future__ import annotations

import functools
import time
from pathlib import Path

import click

from dataclasses import replace

from .common import UsageFailure, err_console, pack_runner, registry


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
    from ..coq.runner import kernel_check_exported
    from ..reporters import coq_report

    require_coqc(coq)
    items = [_exported(p) for p in paths]
    return _reported(lambda: kernel_check_exported(items, coq_dir, jobs), coq_report.print_kernel_checks)


def _exported(path) -> tuple:
    """(source, the claim's formula now, the stored point, why not) of one stored file: the formula
    exported by a worker of its claim's pack, the point read here."""
    from .. import remote
    from ..audit import Audit, AuditOptions
    from ..formula import NotExportable
    from ..kernel_evidence import point_of

    document, claim = remote.file_claim(path, registry())
    check = next(ch for ch in claim.checks() if (ch.part.name, ch.reading.name) == (document["part"], document["reading"]))
    try:
        formula = Audit(AuditOptions(), pack_runner()).formula(check, document["dims"])
    except NotExportable as exc:
        return str(path), None, None, str(exc)
    return str(path), formula, point_of(document, formula, path), ""


def pinned_files(reg) -> list:
    """Every counterexample file the regression replayed, with the formula its lock entry pins."""
    from ..kernel_evidence import pinned_file

    locked = reg.lock.by_key()
    return [pinned_file(reg.lock, locked.get(o.key), listed, r.path) for o in reg.outcomes for listed, r in zip(o.files, o.replays)]


def _reported(run, report):
    """``run()``'s checks, reported on stderr with their time; exit 2 where coqc is missing."""
    from ..coq import CoqUnavailable

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
    from ..coq import kernel_check_locked
    from ..reporters import coq_report

    return _reported(lambda: kernel_check_locked(pinned_files(reg), coq_dir, jobs), coq_report.print_kernel_checks)


def locked_proof_checks(lock, coq: bool, coq_dir: Path | None, jobs: int = 1):
    """The kernel checks of every proof the lock records as going through, from its pinned certificate
    (None without --coq), reported on stderr; exit 2 where coqc is missing."""
    if not coq:
        return None
    from ..coq.runner import kernel_check_locked_proofs
    from ..reporters import coq_report

    return _reported(lambda: kernel_check_locked_proofs(lock, coq_dir, jobs), coq_report.print_proof_checks)


def require_coqc(coq: bool) -> None:
    """With --coq, refuse at once (exit 2, the install hint) where coqc is missing: not after a long run."""
    if coq:
        from ..coq import CoqUnavailable
        from ..coq.runner import coqc_path

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
    from ..coq.runner import REFUTATION_FALSE

    code = 1 if still_refutes else 0
    if not checks:
        return code
    (k,) = checks
    agrees = k.kernel_checked if still_refutes else k.status == REFUTATION_FALSE
    return code if agrees else 2
