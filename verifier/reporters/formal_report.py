"""Presentation of proofs (``verify prove``) and tightened constants (``verify tighten``)."""

from __future__ import annotations

import json
from dataclasses import asdict
from fractions import Fraction
from typing import Iterable

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ..certify import decimal_string
from ..claims import Claim
from ..prove.result import Proof
from ..tighten import TightenResult
from .json_report import result_to_dict
from .json_schema import stamped
from ..results import Verdict
from .text import counterexample_lines, format_value, verdict_text


# ------------------------------------------------------------------------------- proofs
def proof_to_dict(p: Proof) -> dict:
    return stamped("proof", {**result_to_dict(p.result), "proof": asdict(p.details)})


def dumps_proofs(proofs: Iterable[Proof]) -> str:
    return json.dumps([proof_to_dict(p) for p in proofs], indent=2, ensure_ascii=False)


def render_proof(p: Proof, claim: Claim) -> Panel:
    r, d = p.result, p.details
    head = verdict_text(r.verdict)
    if r.counterexample is not None:
        head.append(f"  certified by {r.counterexample.certificate}")
    parts = [head, Text(r.statement, style="italic")]
    if len(claim.readings) > 1:
        parts.append(Text(f"reading '{r.reading}': {r.reading_summary}", style="dim"))
    parts.append(Text(f"domain: {r.domain}"))
    how = f"method: {d.method}, {r.seconds:.2f} s (limit {d.time_limit:g} s)"
    if d.solver:
        how += f"; z3 answered {d.solver}"
    if d.method == "branch-and-bound":
        vol = "n/a" if d.volume_proved is None else f"{100 * d.volume_proved:.4g}%"
        how += f"; {d.boxes_proved} boxes proved of {d.boxes_examined} examined, volume proved {vol}"
    parts.append(Text(how))
    if r.message:
        parts.append(Text(r.message, style="magenta" if r.verdict is Verdict.ERROR else ""))
    parts += [Text(f"note: {n}", style="yellow") for n in d.notes]
    if r.counterexample is not None:
        part = next((x for x in claim.parts if x.name == r.part), None)
        parts.append(counterexample_lines(r.counterexample, (part.lhs_text, part.rhs_text) if part else ("", "")))
    title = f"{r.kind.capitalize()} {r.claim}" + (f" part {r.part}" if len(claim.parts) > 1 else "") + (f" [{r.reading}]" if len(claim.readings) > 1 else "")
    return Panel(Group(*parts), title=Text(title), title_align="left", expand=True)


def print_proofs(console: Console, claim: Claim, proofs: Iterable[Proof]) -> None:
    header = Text()
    header.append(f"{claim.kind.capitalize()} {claim.id}", style="bold")
    header.append(f" \u2014 {claim.title}  ({claim.paper}, {claim.location})")
    console.print(header)
    for p in proofs:
        console.print(render_proof(p, claim))


# ----------------------------------------------------------------------------- tighten
def _num(q: Fraction | None, digits: int = 12) -> str | None:
    return None if q is None else decimal_string(q, digits)


def tighten_to_dict(t: TightenResult) -> dict:
    w = t.witness
    return stamped("tighten", {
        "claim": t.claim,
        "part": t.part,
        "reading": t.reading,
        "statement": t.statement,
        "relation": t.relation,
        "lower_bound": _num(t.lower_bound, 30),
        "lower_bound_exact": None if t.lower_bound is None else str(t.lower_bound),
        "upper_bound": _num(t.upper_bound, 30),
        "upper_bound_exact": None if t.upper_bound is None else str(t.upper_bound),
        "no_constant_suffices": t.no_constant,
        "round_limit_hit": t.round_limit_hit,
        "certified": t.bound is not None or t.no_constant,
        "best_seen": t.best_seen,
        "last_constant": str(t.last_constant),
        "last_verdict": t.last_verdict,
        "last_evaluations": t.last_evaluations,
        "witness": None if w is None else {"dims": w.dims, "vars": w.vars, "ratio": None if w.ratio is None else str(w.ratio), "method": w.method, "lhs": w.lhs, "rhs": w.rhs},
        "rounds": [
            {"constant": str(r.constant), "verdict": r.verdict, "evaluations": r.evaluations, "seconds": r.seconds, "ratio": None if r.ratio is None else str(r.ratio)}
            for r in t.rounds
        ],
        "evaluations": t.evaluations,
        "seconds": round(t.seconds, 4),
        "message": t.message,
    })


def dumps_tighten(results: Iterable[TightenResult]) -> str:
    return json.dumps([tighten_to_dict(t) for t in results], indent=2, ensure_ascii=False)


def summary_sentence(t: TightenResult, kind: str = "claim") -> str:
    """'Lemma 4.1 needs a constant of at least 2 (certified); with 2 no counterexample in N evaluations'."""
    head = f"{kind.capitalize()} {t.claim}" + (f" part {t.part}" if t.part != "main" else "") + f" [{t.reading}]"
    if t.no_constant:
        bound = f"fails for every constant: rhs = 0 at a certified point where the part fails ({t.witness.method})"
    elif t.bound is None:
        bound = "no certified bound on lhs/rhs (no point with rhs > 0 was certified)"
    elif t.upper_bound is not None:
        bound = f"holds with a constant of at most {_num(t.upper_bound)} (certified, {t.witness.method})"
    else:
        bound = f"needs a constant of at least {_num(t.lower_bound)} (certified, {t.witness.method})"
    tail = f"with constant {_num(t.last_constant)} on {t.rhs_text}: {t.last_verdict}"
    if t.last_verdict == "survived":
        tail = f"with constant {_num(t.last_constant)} on {t.rhs_text}, no counterexample in {t.last_evaluations:,} evaluations"
    limit = "; round limit reached while the bound was still moving (raise --rounds)" if t.round_limit_hit else ""
    return f"{head} {bound}; {tail}{limit}"


def print_tighten(console: Console, claim: Claim, results: Iterable[TightenResult]) -> None:
    for t in results:
        console.print(Text(summary_sentence(t, claim.kind), style="bold"))
        console.print(Text(t.statement, style="italic"))
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold")
        table.add_column(overflow="fold")
        if t.best_seen is not None:
            table.add_row("best lhs/rhs seen" if t.upper_bound is None else "smallest lhs/rhs seen", f"{t.best_seen:.12g}")
        for r in t.rounds:
            found = f", certified ratio {_num(r.ratio)}" if r.ratio is not None else ""
            table.add_row(f"constant {_num(r.constant)}", f"{r.verdict} after {r.evaluations:,} evaluations ({r.seconds:.2f} s){found}")
        w = t.witness
        if w is not None:
            table.add_row("witness dims", ", ".join(f"{k} = {v}" for k, v in w.dims.items()) or "-")
            for name, value in w.vars.items():
                table.add_row(name, format_value(value))
            table.add_row(f"lhs  {t.lhs_text}", w.lhs)
            table.add_row(f"rhs  {t.rhs_text}", w.rhs)
        console.print(table)
