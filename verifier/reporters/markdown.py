"""Markdown with LaTeX math: a section per claim that pastes into an OpenReview comment as it is."""

from __future__ import annotations

from .latex import counterexample_math, tex_assignments
from .report_data import Item, Section, found_now, heading, item_label, replay_command, search_command, search_summary, verdict_label


def _code(text: str) -> str:
    tick = "``" if "`" in text else "`"
    return f"{tick}{text}{tick}"


def _item(item: Item, reg) -> list[str]:
    o = item.outcome
    part = item.check.part
    out = [f"### {item_label(item)}: **{verdict_label(o.now)}**", ""]
    if item.check.reading.summary:
        out += [f"*Reading.* {item.check.reading.summary}", ""]
    if item.latex:
        out += ["$$", item.latex, "$$", ""]
    elif part.statement:
        out += [f"*Statement.* {part.statement}", ""]
    if o.drift:
        out += [f"> **Drift from the lock** (locked {o.locked or '-'}): {o.change}. {o.detail}", ""]
    for path, r in zip(o.files, o.replays):
        doc = r.loaded.document
        shrunk = "shrunk; " if doc.get("shrunk") else ""
        out += [f"Counterexample ({shrunk}{'still refutes' if r.still_refutes else 'NO LONGER REFUTES'}, certified by {r.certificate.detail or r.certificate.method}):", ""]
        out += ["$$", counterexample_math(r), "$$", ""]
        out += [
            f"- lhs {_code(part.lhs_text)} = `{r.lhs}`",
            f"- rhs {_code(part.rhs_text)} = `{r.rhs}`",
            f"- margin (rhs \u2212 lhs; {'<= 0' if item.check.strict else '< 0'} is a violation) = `{r.margin}`",
            f"- replay: `{replay_command(path)}`",
            "",
        ]
    if o.result is not None:
        out += [search_summary(item) + ".", ""]
        cx = found_now(item)
        if cx is not None:
            out += ["$$", tex_assignments(cx.vars, cx.dims), "$$", ""]
        out += [f"Reproduce: `{search_command(item, reg)}`", ""]
    return out


def render(secs: list[Section], reg) -> str:
    s = reg.lock.search
    out = [
        "# Claim verifier report",
        "",
        f"Lock `{reg.lock.path}`: seed {s.seed}, budget {s.budget:,} float64 evaluations per check, re-check at {s.dps} digits. "
        f"Every counterexample below was replayed exactly and every surviving claim searched again while writing this report.",
        "",
    ]
    for sec in secs:
        c = sec.claim
        out += [f"## {heading(c)}", "", f"*{c.paper}, {c.location}.* {c.statement}", ""]
        if c.latex:
            out += ["$$", c.latex, "$$", ""]
        if c.notes:
            out += [f"*Notes on the reading.* {c.notes}", ""]
        for item in sec.items:
            out += _item(item, reg)
    return "\n".join(out).rstrip() + "\n"
