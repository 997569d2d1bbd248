"""LaTeX: counterexamples typeset as matrices, a standalone document, and a one-file snippet.

Stored values are exact strings ("3/7", "-2", "0.125"); they become ``\\frac{3}{7}`` and
column vectors become ``pmatrix`` columns, so a counterexample reads as it would on paper.
"""

from __future__ import annotations

import re

from ..store import Replay
from .report_data import Item, Section, found_now, greek, heading, item_label, replay_command, search_command, search_summary, verdict_label

_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
            "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def escape(text: str) -> str:
    return "".join(_SPECIAL.get(ch, ch) for ch in text)


def tex_name(name: str) -> str:
    g = greek(name)
    if g:
        return "\\" + g
    if len(name) == 1:
        return name
    m = re.fullmatch(r"([A-Za-z]+)_?(\d+)", name)
    if m:
        return f"{tex_name(m.group(1))}_{{{m.group(2)}}}"
    return rf"\mathit{{{escape(name)}}}"


def tex_number(value) -> str:
    text = str(value).strip()
    m = re.fullmatch(r"([+-]?)(\d+)\s*/\s*(\d+)", text)
    if m:
        sign = "-" if m.group(1) == "-" else ""
        return rf"{sign}\frac{{{m.group(2)}}}{{{m.group(3)}}}"
    m = re.fullmatch(r"([+-]?[\d.]+)[eE]([+-]?\d+)", text)
    if m:
        return rf"{m.group(1)} \cdot 10^{{{int(m.group(2))}}}"
    return text


def tex_value(value) -> str:
    """A scalar, a vector (as a column) or a matrix, as LaTeX math."""
    if not isinstance(value, list):
        return tex_number(value)
    if value and isinstance(value[0], list):
        rows = [" & ".join(tex_number(x) for x in row) for row in value]
    else:
        rows = [tex_number(x) for x in value]
    return r"\begin{pmatrix} " + r" \\ ".join(rows) + r" \end{pmatrix}"


def tex_assignments(vars_: dict, dims: dict) -> str:
    """``n = 3,\\ d = 1:\\quad A = (...),\\quad \\epsilon = 1`` -- the whole counterexample."""
    head = r",\ ".join(f"{tex_name(k)} = {v}" for k, v in dims.items())
    body = r",\quad ".join(f"{tex_name(k)} = {tex_value(v)}" for k, v in vars_.items())
    return f"{head}:\\quad {body}" if head else body


def violation_rule(check) -> str:
    """A strict claim fails at equality already."""
    return "\\le 0" if check.strict else "< 0"


def counterexample_math(r: Replay) -> str:
    doc = r.loaded.document
    return tex_assignments(doc["vars"], doc["dims"])


def replay_snippet(r: Replay) -> str:
    """The one-counterexample LaTeX of ``verify replay FILE --format latex``."""
    check = r.loaded.check
    claim = check.claim
    status = "refutes" if r.still_refutes else "no longer refutes"
    lines = [
        f"% {replay_command(r.path)}  ({status})",
        rf"\paragraph{{Counterexample to {escape(claim.kind.capitalize())} {escape(claim.id)} "
        rf"(part {escape(check.part.name)}, reading {escape(check.reading.name)}).}}",
        escape(check.part.statement or claim.statement),
        r"\[",
        "  " + counterexample_math(r),
        r"\]",
        r"\begin{itemize}",
        rf"  \item lhs \texttt{{{escape(check.part.lhs_text)}}} $= {r.lhs}$",
        rf"  \item rhs \texttt{{{escape(check.part.rhs_text)}}} $= {r.rhs}$",
        rf"  \item margin (rhs $-$ lhs; ${violation_rule(check)}$ is a violation) $= {r.margin}$",
        rf"  \item certificate: {escape(r.certificate.detail or r.certificate.status)}",
        r"\end{itemize}",
        rf"Replay: \texttt{{{escape(replay_command(r.path))}}}",
    ]
    return "\n".join(lines) + "\n"


def _item(item: Item, reg) -> list[str]:
    o = item.outcome
    out = [rf"\subsection*{{{escape(item_label(item))}: {verdict_label(o.now)}}}"]
    if item.check.reading.summary:
        out.append(rf"\emph{{Reading.}} {escape(item.check.reading.summary)}\par")
    if item.latex:
        out.append(rf"\[ {item.latex} \]")
    elif item.check.part.statement:
        out.append(escape(item.check.part.statement) + r"\par")
    if o.drift:
        out.append(rf"\textbf{{Drift from the lock}} (locked {escape(o.locked or '-')}): {escape(o.change)}. {escape(o.detail)}\par")
    for r in o.replays:
        out.append(replay_snippet(r))
    if o.result is not None:
        out.append(escape(search_summary(item)) + r".\par")
        if found_now(item) is not None:
            out.append(rf"\[ {tex_assignments(found_now(item).vars, found_now(item).dims)} \]")
        out.append(rf"Reproduce: \texttt{{{escape(search_command(item, reg))}}}\par")
    return out


def render(secs: list[Section], reg) -> str:
    out = [
        r"\documentclass{article}",
        r"\usepackage{amsmath,amssymb}",
        r"\usepackage[margin=2cm]{geometry}",
        r"\begin{document}",
        r"\section*{Claim verifier report}",
        escape(f"Lock {reg.lock.path}: seed {reg.lock.search.seed}, budget {reg.lock.search.budget:,} float64 evaluations per check, "
               f"re-check at {reg.lock.search.dps} digits. Regenerate with `verify report --format latex`.") + r"\par",
    ]
    for sec in secs:
        c = sec.claim
        out.append(rf"\section{{{escape(heading(c))}}}")
        out.append(rf"\emph{{{escape(c.paper)}, {escape(c.location)}.}} {escape(c.statement)}\par")
        if c.latex:
            out.append(rf"\[ {c.latex} \]")
        if c.notes:
            out.append(rf"\emph{{Notes on the reading.}} {escape(c.notes)}\par")
        for item in sec.items:
            out.extend(_item(item, reg))
    out.append(r"\end{document}")
    return "\n".join(out) + "\n"
