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

from ..evidence import CounterexampleFileError, load
from ..safe_files import write_atomic
from .export import export_counterexample
from .terms import NotExportable

INSTALL_HINT = "coqc not found: install Coq and the Interval library (Debian/Ubuntu: apt-get install coq libcoq-interval)"
DEFAULT_TIMEOUT = 60.0

KERNEL_CHECKED = "kernel-checked"
NOT_EXPORTED = "not-exported"
REJECTED = "rejected"
TIMED_OUT = "timed-out"


class CoqUnavailable(RuntimeError):
    """``coqc`` or the Interval library is not installed (the message says how to install them)."""


@dataclass(frozen=True)
class KernelCheck:
    """The outcome of kernel-checking one stored counterexample."""

    file: str
    status: str  # kernel-checked | not-exported | rejected | timed-out
    reason: str = ""  # why it was not exported, or coqc's error
    seconds: float = 0.0  # coqc's wall time
    script: str = ""  # the .v file written, when one was

    @property
    def kernel_checked(self) -> bool:
        return self.status == KERNEL_CHECKED

    @property
    def failed(self) -> bool:
        """coqc rejected a script or ran out of time: the two proofs disagree, or Coq could not finish."""
        return self.status in (REJECTED, TIMED_OUT)


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


def kernel_check(path: str | os.PathLike, find_claim, out_dir: Path, timeout: float = DEFAULT_TIMEOUT) -> KernelCheck:
    """Export one stored counterexample to ``out_dir/<module>.v`` and run ``coqc`` on it."""
    loaded = load(path, find_claim)
    try:
        script = export_counterexample(loaded)
    except NotExportable as exc:
        return KernelCheck(str(path), NOT_EXPORTED, str(exc))
    target = out_dir / f"{script.module}.v"
    write_atomic(target, script.text)
    status, message, seconds = run_coqc(target, timeout)
    return KernelCheck(str(path), status, message, seconds, str(target))


def kernel_check_scripts(paths, scripts, out_dir: str | os.PathLike | None = None, jobs: int = 1,
                         timeout: float = DEFAULT_TIMEOUT) -> tuple[KernelCheck, ...]:
    """Kernel-check exported scripts (``("script", module, text)`` or ``("not-exported", why)``, one
    per path), ``jobs`` coqc processes at a time, in the order given; the scripts stay in
    ``out_dir`` when one is given, else in a temporary folder removed afterwards."""
    coqc_path()

    def one(path, exported, folder):
        if exported[0] != "script":
            return KernelCheck(str(path), NOT_EXPORTED, exported[1])
        _, module, text = exported
        target = folder / f"{module}.v"
        write_atomic(target, text)
        status, message, seconds = run_coqc(target, timeout)
        return KernelCheck(str(path), status, message, seconds, str(target))

    with tempfile.TemporaryDirectory(prefix="verify-coq-") as tmp:
        folder = Path(out_dir) if out_dir is not None else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            return tuple(pool.map(lambda item: one(item[0], item[1], folder), zip(paths, scripts)))


def kernel_check_files(paths, find_claim, out_dir: str | os.PathLike | None = None, jobs: int = 1,
                       timeout: float = DEFAULT_TIMEOUT) -> tuple[KernelCheck, ...]:
    """Kernel-check every file, ``jobs`` coqc processes at a time, in the order given.

    The scripts stay in ``out_dir`` when one is given (for a reviewer to read); otherwise
    they go to a temporary folder that is removed afterwards.
    """
    coqc_path()
    paths = list(paths)
    for p in paths:  # a missing or corrupt file is a usage error, before any coqc runs
        load(p, find_claim)
    with tempfile.TemporaryDirectory(prefix="verify-coq-") as tmp:
        folder = Path(out_dir) if out_dir is not None else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            return tuple(pool.map(lambda p: kernel_check(p, find_claim, folder, timeout), paths))


__all__ = ["CoqUnavailable", "CounterexampleFileError", "INSTALL_HINT", "KernelCheck", "coqc_path", "kernel_check",
           "kernel_check_files", "kernel_check_scripts", "run_coqc"]
