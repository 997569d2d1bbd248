"""Presentation of kernel checks: one line per counterexample on stderr, ``kernel_checked`` in JSON."""

from __future__ import annotations

import json

from rich.console import Console
from rich.text import Text

from ..coq.runner import KERNEL_CHECKED, NOT_EXPORTED, KernelCheck
from ..regression import Regression
from ..replay import Replay
from .check_report import outcome_to_dict
from .replay_report import to_dict as replay_to_dict

_STYLE = {KERNEL_CHECKED: "green", NOT_EXPORTED: "yellow"}


def kernel_check_to_dict(k: KernelCheck) -> dict:
    return {"kernel_checked": k.kernel_checked, "coq_status": k.status, "coq_reason": k.reason or None,
            "coq_seconds": round(k.seconds, 3), "coq_script": k.script or None}


def print_kernel_checks(console: Console, checks: tuple[KernelCheck, ...], seconds: float) -> None:
    for k in checks:
        line = Text.assemble((f"{k.status:<15}", _STYLE.get(k.status, "bold red")), f"{k.seconds:5.1f} s  {k.file}")
        if k.reason:
            line.append(f"  {k.reason}", style="dim")
        console.print(line, soft_wrap=True)
    counts = {s: sum(k.status == s for k in checks) for s in (KERNEL_CHECKED, NOT_EXPORTED)}
    failed = len(checks) - sum(counts.values())
    summary = (f"Coq: {counts[KERNEL_CHECKED]} of {len(checks)} counterexamples kernel-checked, "
               f"{counts[NOT_EXPORTED]} not exported (reason named), {failed} rejected or timed out; {seconds:.1f} s")
    console.print(Text(summary, style="bold red" if failed else "bold green"))


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
