"""Presentation of kernel checks: one line per counterexample on stderr, ``kernel_checked`` in JSON."""

from __future__ import annotations

import json

from rich.console import Console
from rich.text import Text

from ..coq.runner import (KERNEL_CHECKED, NOT_EXPORTED, NOT_PINNED, REFUTATION_FALSE, REJECTED, TIMED_OUT, UNCHECKED, KernelCheck,
                          LockedProofCheck)
from ..regression import Regression
from ..replay import Replay
from .check_report import outcome_to_dict
from .replay_report import to_dict as replay_to_dict

_STYLE = {KERNEL_CHECKED: "green"}
#: every other outcome, worst first: each fails a check that cites the file
_NOT_CHECKED = (REFUTATION_FALSE, REJECTED, TIMED_OUT, NOT_PINNED, NOT_EXPORTED)


def kernel_phrase(k: KernelCheck) -> str:
    """What Coq made of a counterexample file, in words every report format uses."""
    if k.status == KERNEL_CHECKED:
        return "kernel-checked by Coq (coqc)" + (f"; the statement is the pinned formula {k.formula}" if k.formula else "")
    return {
        REFUTATION_FALSE: "not a refutation: its formula, evaluated exactly at the stored values, ",
        NOT_EXPORTED: "not exported: ",
        NOT_PINNED: "not kernel-checked: ",
        REJECTED: "Coq rejected the proof: ",
        TIMED_OUT: "Coq did not finish: ",
    }.get(k.status, f"{k.status}: ") + (k.reason.removeprefix("the refutation is false: ") if k.status == REFUTATION_FALSE else k.reason)


def kernel_check_to_dict(k: KernelCheck) -> dict:
    return {"kernel_checked": k.kernel_checked, "coq_status": k.status, "coq_reason": k.reason or None,
            "coq_seconds": round(k.seconds, 3), "coq_script": k.script or None, "coq_theorem": k.theorem or None,
            "coq_formula": k.formula or None}


def print_kernel_checks(console: Console, checks: tuple[KernelCheck, ...], seconds: float) -> None:
    for k in checks:
        line = Text.assemble((f"{k.status:<15}", _STYLE.get(k.status, "bold red")), f"{k.seconds:5.1f} s  {k.file}")
        if k.reason:
            line.append(f"  {k.reason}", style="dim")
        console.print(line, soft_wrap=True)
    checked = sum(k.kernel_checked for k in checks)
    others = [(s, sum(k.status == s for k in checks)) for s in _NOT_CHECKED]
    named = ", ".join(f"{n} {s}" for s, n in others if n)
    summary = f"Coq: {checked} of {len(checks)} counterexamples kernel-checked" + (f"; not kernel-checked: {named}" if named else "")
    console.print(Text(f"{summary}; {seconds:.1f} s", style="bold red" if checked < len(checks) else "bold green"))


def print_proof_checks(console: Console, checks: tuple[LockedProofCheck, ...], seconds: float) -> None:
    """One line per locked proof: what Coq made of its certificate, and whether that moved from the lock."""
    for c in checks:
        k = c.check
        line = Text.assemble((f"{k.status:<15}", _STYLE.get(k.status, "yellow" if k.status == UNCHECKED and not c.failed else "bold red")),
                             f"{k.seconds:5.1f} s  proof of {c.key[0]} part {c.key[1]} [{c.key[2]}]")
        if k.reason:
            line.append(f"  {k.reason}", style="dim")
        if c.failed:
            line.append(f"  (locked: {c.locked or 'not run'})", style="bold red")
        console.print(line, soft_wrap=True)
    checked = sum(c.check.kernel_checked for c in checks)
    failed = sum(c.failed for c in checks)
    summary = f"Coq: {checked} of {len(checks)} proofs kernel-checked"
    if len(checks) - checked:
        summary += f", {len(checks) - checked} labelled unchecked (reason named)"
    if failed:
        summary += f"; {failed} no longer as locked"
    console.print(Text(f"{summary}; {seconds:.1f} s", style="bold red" if failed else "bold green"))


def proof_check_to_dict(c: LockedProofCheck) -> dict:
    return {"kernel_checked": c.check.kernel_checked, "coq_status": c.check.status, "coq_reason": c.check.reason or None,
            "coq_seconds": round(c.check.seconds, 3), "coq_script": c.check.script or None, "coq_theorem": c.check.theorem or None,
            "certificate": c.check.formula or None, "locked_kernel": c.locked or None, "failed": c.failed}


def replay_json(r: Replay, checks: tuple[KernelCheck, ...]) -> str:
    return json.dumps({**replay_to_dict(r), **kernel_check_to_dict(checks[0])}, indent=2, ensure_ascii=False)


def regression_json(reg: Regression, checks: tuple[KernelCheck, ...], proofs: tuple[LockedProofCheck, ...] = ()) -> str:
    """The regression's JSON with the kernel check of every listed counterexample file and of every locked proof."""
    by_file = {k.file: k for k in checks}
    by_key = {c.key: c for c in proofs or ()}
    out = []
    for o in reg.outcomes:
        doc = outcome_to_dict(o)
        for entry, r in zip(doc["counterexamples"], o.replays):
            k = by_file.get(r.path)
            entry.update(kernel_check_to_dict(k) if k else {"kernel_checked": False, "coq_status": "not-run"})
        if o.key in by_key:
            doc["proof_kernel"] = proof_check_to_dict(by_key[o.key])
        out.append(doc)
    return json.dumps(out, indent=2, ensure_ascii=False)
