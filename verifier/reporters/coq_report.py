"""Presentation of kernel checks: one line per counterexample on stderr, ``kernel_checked`` in JSON."""

from __future__ import annotations

import json

from rich.console import Console
from rich.text import Text

from ..coq.runner import KERNEL_CHECKED, NOT_EXPORTED, NOT_PINNED, REFUTATION_FALSE, REJECTED, TIMED_OUT, KernelCheck
from ..regression import Regression
from ..store import Replay
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


def replay_json(r: Replay, checks: tuple[KernelCheck, ...]) -> str:
    return json.dumps({**replay_to_dict(r), **kernel_check_to_dict(checks[0])}, indent=2, ensure_ascii=False)


def regression_json(reg: Regression, checks: tuple[KernelCheck, ...]) -> str:
    """The regression's JSON with the kernel check of every listed counterexample file."""
    by_file = {k.file: k for k in checks}
    out = []
    for o in reg.outcomes:
        doc = outcome_to_dict(o)
        for entry, r in zip(doc["counterexamples"], o.replays):
            k = by_file.get(r.path)
            entry.update(kernel_check_to_dict(k) if k else {"kernel_checked": False, "coq_status": "not-run"})
        out.append(doc)
    return json.dumps(out, indent=2, ensure_ascii=False)
