"""Kernel-checked refutations: every stored counterexample re-proved by Coq's kernel.

:mod:`.terms` builds Coq expressions from the claim's own functions, :mod:`.export` writes
the script, :mod:`.runner` runs ``coqc``.
"""

from .export import CoqScript, export_counterexample
from .runner import INSTALL_HINT, CoqUnavailable, KernelCheck, kernel_check, kernel_check_files
from .terms import CoqContext, NotExportable

__all__ = ["CoqContext", "CoqScript", "CoqUnavailable", "INSTALL_HINT", "KernelCheck", "NotExportable",
           "export_counterexample", "kernel_check", "kernel_check_files"]
