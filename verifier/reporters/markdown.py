"""Markdown with LaTeX math: a section per claim that pastes into an OpenReview comment as it is."""

from __future__ import annotations

import math

from ..evidence import parse_exact
from ..replay import Replay
from .latex import counterexample_math, tex_assignments
from ..results import ProofStatus
from .numbers import fmt
from .proof_text import audit_verdict
from .report_data import (UNPINNED_NOTE, Item, replay_status, Section, SummaryRow, found_now, heading, item_label, kernel_status, replay_command, proof_suffix,
                          search_command, search_summary, verdict_label)
from .safe_text import md_code, md_math, md_text, unsafe_reason

SUMMARY_COMMAND = "verify report --format markdown --summary"
_INPUTS_WIDTH = 150  # characters of a counterexample's inputs shown in the table; the file has them all


def _math_block(latex: str) -> list[str]:
    """A claim's formula as a ``$$`` block, or its source as code with the reason when it is not typeset."""
    reason = unsafe_reason(latex)
    if reason is not None:
        return [f"*LaTeX not typeset: {md_text(reason)}.* {md_code(latex)}", ""]
    return ["$$", md_math(latex), "$$", ""]


def _item(item: Item, reg) -> list[str]:
    o = item.outcome
    part = item.check.part
    out = [f"### {md_text(item_label(item))}: **{verdict_label(o.now)}**{md_text(proof_suffix(item))}", ""]
    if item.check.reading.summary:
        out += [f"*Reading.* {md_text(item.check.reading.summary)}", ""]
    if item.latex:
        out += _math_block(item.latex)
    elif part.statement:
        out += [f"*Statement.* {md_text(part.statement)}", ""]
    if o.drift:
        out += [f"> **Drift from the lock** (locked {md_text(o.locked or '-')}): {md_text(o.change)}. {md_text(o.detail)}", ""]
    for path, r in zip(o.files, o.replays):
        kernel = kernel_status(item, r.path)
        coq = [] if kernel is None else [f"- Coq: {md_text(kernel)}"]
        if path in o.unpinned:
            out += [f"Counterexample {md_code(path)} ({replay_status(r)}): {md_text(UNPINNED_NOTE)}", "",
                    f"- replay: {md_code(replay_command(path))}", *coq, ""]
            continue
        doc = r.loaded.document
        shrunk = "shrunk; " if doc.get("shrunk") else ""
        certificate = md_text(r.certificate.detail or r.certificate.method)
        out += [f"Counterexample ({shrunk}{replay_status(r)}, certified by {certificate}):", ""]
        out += ["$$", counterexample_math(r), "$$", ""]
        out += [
            f"- lhs {md_code(part.lhs_text)} = `{r.lhs}`",
            f"- rhs {md_code(part.rhs_text)} = `{r.rhs}`",
            f"- margin (rhs \u2212 lhs; {'<= 0' if item.check.strict else '< 0'} is a violation) = `{r.margin}`",
            f"- replay: {md_code(replay_command(path))}",
            *coq,
            "",
        ]
    if o.result is not None:
        out += [md_text(search_summary(item)) + ".", ""]
        cx = found_now(item)
        if cx is not None:
            out += ["$$", tex_assignments(cx.vars, cx.dims), "$$", ""]
        out += [f"Reproduce: {md_code(search_command(item, reg))}", ""]
    return out


def render(secs: list[Section], reg) -> str:
    s = reg.lock.search
    out = [
        "# Claim verifier report",
        "",
        f"Lock {md_code(reg.lock.path)}: seed {s.seed}, budget {s.budget:,} float64 evaluations per check, re-check at {s.dps} digits. "
        f"Every counterexample below was replayed exactly and every surviving claim searched again while writing this report.",
        "",
    ]
    for sec in secs:
        c = sec.claim
        out += [f"## {md_text(heading(c))}", "", f"*{md_text(c.paper)}, {md_text(c.location)}.* {md_text(c.statement)}", ""]
        if c.latex:
            out += _math_block(c.latex)
        if c.notes:
            out += [f"*Notes on the reading.* {md_text(c.notes)}", ""]
        for item in sec.items:
            out += _item(item, reg)
    return "\n".join(out).rstrip() + "\n"


def inline_value(value) -> str:
    """A stored value on one line: ``(0, 1)`` a vector, ``(0, 1)ᵀ`` a column, ``[0 1; 2 3]`` a matrix."""
    if not isinstance(value, list):
        return str(value)
    if value and all(isinstance(row, list) for row in value):
        if all(not isinstance(x, list) for row in value for x in row):
            if all(len(row) == 1 for row in value):
                return "(" + ", ".join(row[0] for row in value) + ")\u1d40"
            return "[" + "; ".join(" ".join(row) for row in value) + "]"
        return "[" + "; ".join(inline_value(block) for block in value) + "]"
    return "(" + ", ".join(inline_value(x) for x in value) + ")"


def _inputs(r: Replay) -> str:
    """The replayed inputs, then lhs and rhs as the replay recomputed them."""
    doc = r.loaded.document
    dims = ", ".join(f"{k}={v}" for k, v in doc["dims"].items())
    body = "; ".join(f"{k} = {inline_value(v)}" for k, v in doc["vars"].items())
    text = f"{dims}: {body}" if dims else body
    if len(text) > _INPUTS_WIDTH:
        text = text[:_INPUTS_WIDTH] + "\u2026"
    return f"{text} \u2014 {fmt(_float(r.lhs), 8)} vs {fmt(_float(r.rhs), 8)}"


def _float(exact: str) -> float:
    """A recomputed decimal string as a float, infinite beyond float's range."""
    value = parse_exact(exact)
    try:
        return float(value)
    except OverflowError:
        return math.copysign(math.inf, value)


def _cell(text: str) -> str:
    return md_text(text)


def summary_table(rows: list[SummaryRow]) -> str:
    """The audit table of the README: a row per locked check, generated so it cannot drift from the lock."""
    out = [
        f"<!-- generated by `{SUMMARY_COMMAND}`; do not edit by hand -->",
        "| claim | part | reading | verdict | certificate | smallest stored counterexample: inputs \u2014 lhs vs rhs |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        e, c = row.entry, row.claim
        cx = _inputs(row.counterexample) if row.counterexample is not None else ""
        method = e.method if e.method != "none" else "-"
        if e.proof is not None and e.proof.status == ProofStatus.PROVED.value:
            method = e.proof.method
        verdict = e.verdict if e.proof is None else audit_verdict(e.verdict, e.proof)
        out.append(f"| {_cell(c.kind.capitalize())} {_cell(c.id)} | {_cell(e.part)} | {_cell(e.reading)} | {_cell(verdict)} | {_cell(method)} | {_cell(cx)} |")
    return "\n".join(out) + "\n"
