"""Presentation of a replayed counterexample."""

from __future__ import annotations

import json

from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ..domains import variable_kinds
from ..replay import Replay
from .json_schema import stamped
from .text import format_value


def to_dict(r: Replay) -> dict:
    doc = r.loaded.document
    return stamped("replay", {
        "file": r.path,
        "claim": doc["claim"],
        "part": doc["part"],
        "reading": doc["reading"],
        "still_refutes": r.still_refutes,
        "verdict": "refuted" if r.still_refutes else "no longer refutes",
        "status": r.certificate.status,
        "method": r.certificate.method if r.still_refutes else "none",
        "certificate": r.certificate.detail,
        "lhs": r.lhs,
        "rhs": r.rhs,
        "margin": r.margin,
        "stored": dict(r.stored),
        "values_match": r.values_match,
        "moved_values": list(r.moved_values),
        "vars": doc["vars"],
        "kinds": variable_kinds(r.loaded.check.variables, r.loaded.dims),
        "dims": doc["dims"],
    })


def to_json(r: Replay) -> str:
    return json.dumps(to_dict(r), indent=2, ensure_ascii=False)


def print_replay(console: Console, r: Replay) -> None:
    doc = r.loaded.document
    check = r.loaded.check
    verdict = Text("STILL REFUTES", style="bold red") if r.still_refutes else Text("NO LONGER REFUTES", style="bold yellow")
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column(overflow="fold")
    table.add_row("claim", f"{check.claim.kind.capitalize()} {check.claim.id}, part {check.part.name}, reading {check.reading.name}")
    table.add_row("statement", check.part.statement or check.claim.statement)
    kinds = variable_kinds(check.variables, r.loaded.dims)
    for name, value in doc["vars"].items():
        kind = kinds.get(name, "real")
        table.add_row(name if kind.startswith("real") else f"{name}  {kind}", format_value(value))
    table.add_row(f"lhs  {check.part.lhs_text}", r.lhs)
    table.add_row(f"rhs  {check.part.rhs_text}", r.rhs)
    table.add_row("margin", r.margin)
    table.add_row("certificate", r.certificate.detail or r.certificate.status)
    if not r.values_match:
        table.add_row("note", Text(f"stored values differ from what its inputs give: {r.moved_detail()}", style="bold yellow"))
    console.print(Panel(table, title=Text.assemble(verdict, f"  {r.path}"), title_align="left"))
