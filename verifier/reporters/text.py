"""Human-readable terminal output (rich).  Written to stderr by the CLI."""

from __future__ import annotations

from typing import Iterable, Mapping

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ..claims import RELATIONS, Claim
from ..domains import kind_text
from ..results import CheckResult, Counterexample, ProofStatus, StopReason, Verdict
from .numbers import fmt
from .proof_text import proof_phrase, proof_sentence, shown_verdict
from .reading import reading_text

STYLE = {
    Verdict.REFUTED: ("REFUTED", "bold red"),
    Verdict.SURVIVED: ("SURVIVED", "bold green"),
    Verdict.INCONCLUSIVE: ("INCONCLUSIVE", "bold yellow"),
    Verdict.ERROR: ("ERROR", "bold magenta"),
    Verdict.PROVED: ("PROVED", "bold cyan"),
    Verdict.ILL_POSED: ("ILL-POSED", "bold red"),
    Verdict.SURROGATE_FAILS: ("SURROGATE FAILS", "bold yellow"),
}


def verdict_text(v: Verdict) -> Text:
    label, style = STYLE[v]
    return Text(label, style=style)


def format_value(value) -> str:
    """Nested lists of exact strings as a compact matrix, column vectors transposed."""
    if not isinstance(value, list):
        return str(value)
    if value and isinstance(value[0], list) and value[0] and isinstance(value[0][0], list):
        # three or more axes (layer, head, ...): one labelled block per leading index
        return "\n".join(f"[{', '.join(map(str, idx))}]\n" + format_value(m) for idx, m in _matrices(value))
    if value and isinstance(value[0], list):
        if all(len(row) == 1 for row in value):
            return "(" + ", ".join(row[0] for row in value) + ")\u1d40"
        width = max(len(x) for row in value for x in row)
        lines = ["[" + "  ".join(x.rjust(width) for x in row) + "]" for row in value]
        return "\n".join(lines)
    return "(" + ", ".join(value) + ")"


def _matrices(value, idx=()):
    """(index path, matrix) for every trailing 2-d block of a nested list."""
    if value and isinstance(value[0], list) and value[0] and isinstance(value[0][0], list):
        for i, block in enumerate(value):
            yield from _matrices(block, idx + (i,))
    else:
        yield idx, value


MARGIN_TEXT = {"==": "\u2212|lhs \u2212 rhs|", ">=": "lhs \u2212 rhs", ">": "lhs \u2212 rhs"}


def counterexample_lines(cx: Counterexample, check_texts=("lhs", "rhs"), relation="<=") -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column(overflow="fold")
    table.add_row("dims", ", ".join(f"{k} = {v}" for k, v in cx.dims.items()) or "-")
    for name, value in cx.vars.items():
        table.add_row(name, format_value(value))
    for name, value in cx.derived.items():
        table.add_row(Text(name, style="bold italic"), format_value(value))
    # Text, not a markup string: a side's text is the author's (``\\sqrt[n]{x}`` would lose its ``[n]``)
    table.add_row(Text(f"lhs  {check_texts[0]}"), cx.lhs)
    table.add_row(Text(f"rhs  {check_texts[1]}"), cx.rhs)
    how = MARGIN_TEXT.get(relation, "rhs \u2212 lhs")
    table.add_row("margin", f"{cx.margin}  ({how}; < 0 is a violation)")
    return table


def _fmt(x, digits=6):
    return fmt(x, digits)


def render_result(r: CheckResult, claim: Claim | None = None, saved: Mapping[tuple, str] | None = None,
                  unsaved: Mapping[tuple, str] | None = None) -> Panel:
    parts = []
    head = Text()
    head.append_text(verdict_text(r.verdict))
    if r.verdict is Verdict.REFUTED:
        head.append(f"  certified by {r.counterexample.certificate}" if r.counterexample else "")
    parts.append(head)
    if r.statement:
        parts.append(Text(r.statement, style="italic"))
    if r.read_as:  # what was checked, beside what was typed: a misreading shows here
        parts.append(Text(f"read as: {reading_text(r.read_as)}"))
    if r.reading_summary and claim is not None and len(claim.readings) > 1:
        parts.append(Text(f"reading '{r.reading}': {r.reading_summary}", style="dim"))
    part = None
    if claim is not None:
        part = next((p for p in claim.parts if p.name == r.part), None)
    texts = (part.lhs_text, part.rhs_text) if part else ("", "")
    cx = r.counterexample
    if cx is not None:
        how = f"found in the {cx.found_by.phase} phase after {cx.found_by.evaluations:,} evaluations ({cx.found_by.seconds:.2f} s)" if cx.found_by else ""
        parts.append(Text(f"{how}{'; shrunk' if cx.shrunk else ''}; seed {r.seed}; values at {cx.dps} digits", style="dim"))
        parts.append(counterexample_lines(cx, texts, r.relation))
        path = (saved or {}).get((r.claim, r.part, r.reading))
        why_not = (unsaved or {}).get((r.claim, r.part, r.reading))
        if path:
            parts.append(Text(f"saved: {path}\nreplay: verify replay {path}", style="cyan"))
        elif why_not:
            parts.append(Text(f"NOT SAVED: {why_not}", style="bold red"))
        else:
            parts.append(Text("keep it: add --save, then replay with `verify replay FILE`", style="dim"))
    elif r.stop is StopReason.PROVED_FIRST:
        parts.append(Text(f"{r.stop_reason}; seed {r.seed}"))
    elif r.verdict in (Verdict.SURVIVED, Verdict.INCONCLUSIVE):
        s = r.stats
        lines = [
            f"no certified counterexample in {s.evaluations:,} evaluations ({r.seconds:.2f} s, seed {r.seed}, {r.stop_reason})",
            f"closest margin reached: {_fmt(s.best_margin)} (relative {_fmt(s.best_relative_margin)}); "
            f"largest {r.ratio_name}: {_fmt(s.max_ratio)}",
        ]
        if s.float_violations:
            lines.append(
                f"float64 flagged {s.float_violations:,} violations; {s.rechecked} re-checked at {r.dps} digits: "
                f"{s.rejected_by_recheck} not violations ({s.tight_points} equalities, {s.tight_undecided} of them undecided)"
            )
        if r.message:
            lines.append(r.message)
        parts.append(Text("\n".join(lines)))
    elif r.verdict is Verdict.ERROR:
        parts.append(Text(r.message, style="magenta"))
    elif r.message:
        parts.append(Text(r.message))
    if r.domain:
        parts.append(Text(f"domain: {r.domain}"))
    if r.proof is not None:
        style = "bold cyan" if r.proof.status is ProofStatus.PROVED else ""
        parts.append(Text(proof_sentence(r.proof), style=style))
    title = f"{r.kind.capitalize()} {r.claim}"
    if claim is not None and len(claim.parts) > 1:
        title += f" part {r.part}"
    if claim is not None and len(claim.readings) > 1:
        title += f" [{r.reading}]"
    return Panel(Group(*parts), title=Text(title), title_align="left", expand=True)


def print_results(console: Console, claim: Claim | None, results: Iterable[CheckResult], saved=None, unsaved=None) -> None:
    results = list(results)
    if claim is not None:
        header = Text()
        header.append(f"{claim.kind.capitalize()} {claim.id}", style="bold")
        header.append(f" \u2014 {claim.title}  ({claim.paper}, {claim.location})")
        console.print(header)
        console.print(Text(claim.statement))
        if claim.notes:
            console.print(Text(f"notes: {claim.notes}", style="dim"))
    for r in results:
        console.print(render_result(r, claim, saved, unsaved))


def print_claim(console: Console, claim: Claim) -> None:
    console.print(Text(f"{claim.kind.capitalize()} {claim.id} \u2014 {claim.title}", style="bold"))
    console.print(f"paper: {claim.paper}, {claim.location}")
    console.print(Text(claim.statement))
    if claim.latex:
        console.print(Text(f"LaTeX: {claim.latex}", style="dim"))
    if claim.notes:
        console.print(Text(f"notes: {claim.notes}"))
    table = Table(title="variables", show_lines=False)
    for col in ("name", "shape", "kind", "domain"):
        table.add_column(col)
    extra = {}
    for r in claim.readings:
        for v in r.extra_variables:
            extra.setdefault((v.name, v.shape), (v, []))[1].append(r.name)
    rows = [(v, "") for v in claim.variables] + [(v, f" [{', '.join(names)}]") for v, names in extra.values()]
    for v, scope in rows:
        dom = []
        if v.radius:
            dom.append(f"|{v.name} \u2212 {v.near}| \u2264 {v.radius}" if v.near else f"|{v.name}| \u2264 {v.radius}")
        if v.lo is not None:
            dom.append(f"\u2265 {v.lo:g}")
        if v.hi is not None:
            dom.append(f"\u2264 {v.hi:g}")
        if v.lower_text:
            dom.append(f"\u2265 {v.lower_text}")
        if v.upper_text:
            dom.append(f"\u2264 {v.upper_text}")
        if v.domain is not None:
            dom.extend(h.text for h in v.domain.hypotheses(v))
        table.add_row(Text(v.name + scope), v.shape_text or "scalar", kind_text(v), ", ".join(dom) or "real")
    console.print(table)
    console.print("dims: " + ", ".join(f"{d.name} in {d.lo}..{d.hi}" for d in claim.dims))
    for h in claim.hypotheses:
        console.print(f"hypothesis: {h.text}")
    for p in claim.parts:
        console.print(Text(f"part {p.name}: {p.statement or p.lhs_text + ' ' + RELATIONS[p.relation] + ' ' + p.rhs_text}"))
        if p.read_as:
            console.print(Text(f"  read as: {reading_text(p.read_as)}"))
        for h in p.hypotheses:
            console.print(Text(f"  under: {h.text}"))
    for r in claim.readings:
        scope = f" (parts {', '.join(r.parts)})" if r.parts else ""
        console.print(f"reading {r.name}{scope}: {r.summary}")
    if claim.derivation:
        console.print(Text(claim.derivation, style="dim"))


def print_claim_list(console: Console, claims: Iterable[Claim], pack: str = "") -> None:
    """A table on a terminal; elsewhere one tab-separated line per claim (pack first), for grep and cut."""
    if not console.is_terminal:
        for c in claims:
            console.file.write("\t".join((pack, c.id, c.kind, c.title, ", ".join(p.name for p in c.parts),
                                          ", ".join(r.name for r in c.readings))) + "\n")
        return
    table = Table(title=f"pack {pack}" if pack else "claims")
    for col in ("id", "kind", "title", "parts", "readings"):
        table.add_column(col)
    for c in claims:
        table.add_row(c.id, c.kind, c.title, ", ".join(p.name for p in c.parts), ", ".join(r.name for r in c.readings))
    console.print(table)


def _g(x, digits=8) -> str:
    return fmt(x, digits)


def _number(text: str):
    import mpmath

    try:
        return mpmath.mpf(text)
    except (TypeError, ValueError):
        return None


def check_name(r: CheckResult) -> str:
    """'5.1 [midrange]', '3.3 (2)', 'eq8 end [adversarial]': part 'main' and reading 'as-printed' go unsaid."""
    name = r.claim
    if r.part != "main":
        name += f" ({r.part})" if len(r.part) <= 2 else f" {r.part}"
    if r.reading != "as-printed":
        name += f" [{r.reading}]"
    return name


def evidence(r: CheckResult, sep: str = "\n") -> str:
    """Two short parts joined by ``sep``: the counterexample's sides and ratio, or how close the search came."""
    cx, s = r.counterexample, r.stats
    if cx is not None:
        lhs, rhs = _number(cx.lhs), _number(cx.rhs)
        if lhs is None or rhs is None:
            return f"lhs {cx.lhs}{sep}rhs {cx.rhs}"
        line = f"{_g(lhs)} vs {_g(rhs)}"
        if r.relation == "==":
            return f"{line}{sep}|lhs \u2212 rhs| {_g(abs(lhs - rhs), 4)}"
        num, den = (lhs, rhs) if r.relation in ("<=", "<") else (rhs, lhs)
        ratio = "\u221e" if den == 0 and num > 0 else ("n/a" if den == 0 else _g(num / den, 6))
        which = "lhs/rhs" if r.relation in ("<=", "<") else "rhs/lhs"
        return f"{line}{sep}{which} {ratio}"
    if r.verdict is Verdict.ERROR:
        return r.message.splitlines()[0] if r.message else "error"
    lines = [f"margin \u2265 {_g(s.best_margin, 3)}" if s.best_margin is not None else "margin n/a"]
    if s.max_ratio is not None:
        lines.append(f"max {r.ratio_name} {_g(s.max_ratio, 6)}")
    return sep.join(lines)


def print_summary_counts(console: Console, results: Iterable[CheckResult]) -> None:
    results = list(results)
    counts: dict[str, int] = {}
    for r in results:  # as the rows show them: a check whose proof went through is proved
        label = STYLE[shown_verdict(r)][0]
        counts[label] = counts.get(label, 0) + 1
    total = sum(r.seconds for r in results)
    proofs = [r.proof for r in results if r.proof is not None]
    proved = sum(p.status is ProofStatus.PROVED for p in proofs)
    partly = sum(p.status is ProofStatus.INCONCLUSIVE for p in proofs)
    proof_text = (f"; of {len(proofs)} proofs tried on the stated domains, {proved} proved, {partly} inconclusive"
                  f" ({sum(p.seconds for p in proofs):.1f} s)") if proofs else ""
    console.print(f"{len(results)} checks: " + ", ".join(f"{n} {v.lower()}" for v, n in counts.items()) + f"; {total:.1f} s{proof_text}",
                  soft_wrap=True)


# The streamed audit (``verify all``): one line per check, fixed columns, the long evidence last.
_ROW_WIDTHS = (("check", 24), ("verdict", 15), ("method", 9), ("evals", 6), ("time", 7))


def summary_header() -> str:
    return "  ".join(name.ljust(w) if name not in ("evals", "time") else name.rjust(w) for name, w in _ROW_WIDTHS) + "  lhs vs rhs / closest"


def summary_row(r: CheckResult) -> Text:
    """One check as one line: a pipe or CI log gets it whole; a terminal may crop the end."""
    (_, w_check), (_, w_verdict), (_, w_method), (_, w_evals), (_, w_time) = _ROW_WIDTHS
    label, style = STYLE[shown_verdict(r)]
    proof = r.proof
    method = "-" if r.method == "none" else r.method
    if proof is not None and proof.status is ProofStatus.PROVED:
        method = _SHORT_METHOD.get(proof.method, proof.method)
    row = Text(check_name(r).ljust(w_check) + "  ")
    row.append(label.ljust(w_verdict), style=style)
    row.append("  " + method.ljust(w_method) + "  " + _count(r.stats.evaluations).rjust(w_evals)
               + "  " + f"{r.seconds + (proof.seconds if proof else 0):.1f}s".rjust(w_time) + "  " + _proof_note(r) + evidence(r, "; "))
    return row


_SHORT_METHOD = {"branch-and-bound": "b&b"}


def _proof_note(r: CheckResult) -> str:
    """What the proof adds before the search's evidence, in the row of ``verify all``."""
    p = r.proof
    if p is None or p.status is ProofStatus.REFUTED:
        return ""
    if p.status is ProofStatus.PROVED:
        return proof_phrase(p).removeprefix("proved (identity) ").removeprefix("proved ") + "; "
    return proof_phrase(p) + "; "


def _count(n: int) -> str:
    return f"{n / 1000:.0f}k" if n >= 10_000 else str(n)
