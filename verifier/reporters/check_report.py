"""Presentation of ``verify lock`` and ``verify check``: the drift table and the JSON result list."""

from __future__ import annotations

import json
import math
from typing import Iterable

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..regression import LockRow, Outcome, Regression
from ..results import Verdict
from .json_report import result_to_dict
from .json_schema import stamped
from .proof_text import audit_verdict
from .text import STYLE


def _verdict(v: str | None) -> Text:
    if v is None:
        return Text("-", style="dim")
    try:
        label, style = STYLE[Verdict(v)]
    except ValueError:
        return Text(v, style="yellow")
    return Text(label, style=style)


def evidence(o: Outcome) -> str:
    """One line on what backs the verdict now: replayed files, or the fixed-seed search."""
    if o.replays:
        return "; ".join(f"{f}: {'refutes' if r.still_refutes else 'no longer refutes'} ({r.certificate.method})" for f, r in zip(o.files, o.replays))
    if o.result is not None:
        s = o.result.stats
        margin = "n/a" if s.best_margin is None or not math.isfinite(s.best_margin) else f"{s.best_margin:.3g}"
        proof = o.result.proof
        proved = f"; {audit_verdict(o.now or '', proof)}" if proof is not None else ""
        return f"seed {o.result.seed}, {s.evaluations:,} evaluations, closest margin {margin}{proved}"
    return ""


def print_regression(console: Console, reg: Regression) -> None:
    drifted = reg.drifted
    if drifted:
        table = Table(title=f"drift from {reg.lock.path}", title_style="bold red")
        for col in ("claim", "part", "reading", "locked", "now", "what changed"):
            table.add_column(col, overflow="fold")
        for o in drifted:
            what = Text(o.change, style="bold")
            if o.detail:
                what.append(f"\n{o.detail}", style="")
            table.add_row(o.claim, o.part, o.reading, _verdict(o.locked), _verdict(o.now), what)
        console.print(table)
        for o in drifted:  # one unbroken line each, for grep and for CI logs narrower than the table
            console.print(Text(f"drift: {o.claim} part {o.part} [{o.reading}]: {o.change}" + (f": {o.detail}" if o.detail else "")),
                          soft_wrap=True)
    notes = [o for o in reg.outcomes if not o.drift and o.detail]
    for o in notes:
        console.print(Text(f"note: {o.claim} part {o.part} [{o.reading}]: {o.detail}", style="yellow"))
    for line in reg.strays:
        console.print(Text(f"note: {line}", style="yellow"), soft_wrap=True)
    n = len(reg.outcomes)
    replayed = sum(len(o.replays) for o in reg.outcomes)
    searched = sum(o.result is not None for o in reg.outcomes)
    proofs = sum(o.result is not None and o.result.proof is not None for o in reg.outcomes)
    summary = (f"{n} checks: {n - len(drifted)} match the lock, {len(drifted)} drifted "
               f"({replayed} stored counterexamples replayed, {searched} fixed-seed searches, {proofs} proofs, "
               f"seed {reg.lock.search.seed}, budget {reg.lock.search.budget:,}; {reg.seconds:.1f} s)")
    console.print(Text(summary, style="bold red" if drifted else "bold green"))
    if drifted:
        console.print("if the change is intended, record it with `verify lock` and commit claims.lock")


def outcome_to_dict(o: Outcome) -> dict:
    return stamped("check-outcome", {
        "paper": o.paper,
        "claim": o.claim,
        "part": o.part,
        "reading": o.reading,
        "locked": o.locked,
        "now": o.now,
        "status": "drift" if o.drift else "match",
        "change": o.change or None,
        "detail": o.detail or None,
        "counterexamples": [
            {"file": f, "still_refutes": r.still_refutes, "method": r.certificate.method, "lhs": r.lhs, "rhs": r.rhs, "margin": r.margin,
             "values_match": r.values_match}
            for f, r in zip(o.files, o.replays)
        ],
        "search": result_to_dict(o.result) if o.result is not None else None,
        "seconds": round(o.seconds, 4),
    })


def dumps_regression(reg: Regression) -> str:
    return json.dumps([outcome_to_dict(o) for o in reg.outcomes], indent=2, ensure_ascii=False)


def print_lock_rows(console: Console, rows: Iterable[LockRow], path) -> None:
    table = Table(title=f"{path}")
    for col in ("claim", "part", "reading", "verdict", "evidence"):
        table.add_column(col, overflow="fold")
    rows = list(rows)
    for row in rows:
        e = row.entry
        if row.replays:
            how = "stored: " + ", ".join(e.counterexamples)
        elif row.saved:
            how = f"found by the search, saved: {row.saved}"
        elif row.save_error:
            how = f"found by the search, NOT SAVED: {row.save_error}"
        else:
            s = row.result.stats
            how = f"{s.evaluations:,} evaluations" + (f"; {row.result.message}" if row.result.message else "")
        if e.proof is not None:
            how += "\n" + audit_verdict(e.verdict, e.proof)
        if row.stale:
            how += "\nnot listed (no longer refutes): " + ", ".join(row.stale)
        table.add_row(e.claim, e.part, e.reading, _verdict(e.verdict), how)
    console.print(table)
