"""Kernel-checked refutations: every stored counterexample re-proved by Coq's kernel.

:mod:`verifier.formula` holds the claim's formula as data; :mod:`.export` writes the script
from that data and the counterexample's values alone, :mod:`.runner` runs ``coqc``.
"""

from .export import CoqScript, Namer, RefutationFalse, export_counterexample, refutation_script
from .runner import (INSTALL_HINT, CoqUnavailable, KernelCheck, kernel_check, kernel_check_files,
                     kernel_check_locked, kernel_check_refutation)
from .terms import CoqContext, NotExportable

__all__ = ["CoqContext", "CoqScript", "CoqUnavailable", "INSTALL_HINT", "KernelCheck", "Namer", "NotExportable",
           "RefutationFalse", "export_counterexample", "kernel_check", "kernel_check_files", "kernel_check_locked",
           "kernel_check_refutation", "refutation_script"]
