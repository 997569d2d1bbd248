"""``--coq``: kernel-check stored counterexamples with coqc (shared by ``replay`` and ``check``)."""

from __future__ import annotations

import functools
import time
from pathlib import Path

import click

from ..coq import CoqUnavailable, kernel_check_files
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
    """The kernel checks of ``paths`` (None without --coq), reported on stderr; exit 2 where coqc is missing."""
    if not coq:
        return None
    start = time.monotonic()
    claims = registry()  # here: the click context that names the packs is not visible in the worker threads
    try:
        checks = kernel_check_files([str(p) for p in paths], lambda paper, cid: claims.find(paper, cid), coq_dir, jobs)
    except CoqUnavailable as exc:
        raise UsageFailure(str(exc)) from None
    coq_report.print_kernel_checks(err_console(), checks, time.monotonic() - start)
    return checks


def exit_code(checks, code: int, failed_code: int) -> int:
    """``code``, or ``failed_code`` when coqc rejected a script or ran out of time."""
    return failed_code if checks and any(k.failed for k in checks) else code
