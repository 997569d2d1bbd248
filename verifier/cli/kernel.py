"""``--coq``: kernel-check stored counterexamples with coqc (shared by ``replay`` and ``check``)."""

from __future__ import annotations

import functools
import time
from pathlib import Path

import click

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
    """The kernel checks of ``paths`` (None without --coq), reported on stderr; exit 2 where coqc is missing."""
    if not coq:
        return None
    from .. import remote
    from ..coq import CoqUnavailable
    from ..coq.runner import coqc_path, kernel_check_scripts
    from ..reporters import coq_report

    start = time.monotonic()
    runner, catalog = pack_runner(), registry()
    try:
        coqc_path()  # missing, it is said before any export
        # the claim's code states each counterexample in Coq in a worker of its pack; coqc runs here
        scripts = [remote.export_coq(p, runner, catalog) for p in paths]
        checks = kernel_check_scripts([str(p) for p in paths], scripts, coq_dir, jobs)
    except CoqUnavailable as exc:
        raise UsageFailure(str(exc)) from None
    coq_report.print_kernel_checks(err_console(), checks, time.monotonic() - start)
    return checks


def exit_code(checks, code: int, failed_code: int) -> int:
    """``code``, or ``failed_code`` when coqc rejected a script or ran out of time."""
    return failed_code if checks and any(k.failed for k in checks) else code
