"""HTML: one self-contained file (inline CSS and script, no network), a row per check on top.

Statements are typeset as MathML (converted here from the claim's LaTeX by ``latex2mathml``),
which browsers render natively, so the page needs neither a math library nor JavaScript to be
read; the small script only drives the verdict filter.  Matrices are HTML tables with bracket
borders.  A 50-digit value is shown rounded, with the exact value one click away: a number is
never broken mid-digit.
"""

from __future__ import annotations

from decimal import Context, Decimal, InvalidOperation
from fractions import Fraction
from html import escape

from latex2mathml.converter import convert as latex_to_mathml

from .latex import counterexample_math
from .safe_text import check_math, sanitise_mathml, unsafe_reason
from .report_data import UNPINNED_NOTE, Item, replay_status, Section, found_now, heading, item_label, kernel_status, replay_command, proof_suffix, search_command, search_summary, verdict_label

CSS = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 60em; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; } h3 { font-size: 1.05em; }
table.summary { border-collapse: collapse; width: 100%; }
table.summary th, table.summary td { border: 1px solid #ccc; padding: .3em .6em; text-align: left; vertical-align: top; }
.verdict { font-weight: bold; padding: 0 .4em; border-radius: 3px; }
.v-refuted, .v-ill-posed { background: #fdd; color: #900; } .v-survived { background: #dfd; color: #060; }
.v-proved { background: #dff; color: #066; } .v-inconclusive, .v-surrogate-fails { background: #ffd; color: #660; }
.v-error, .v-not-refuted { background: #fdf; color: #606; }
.drift { background: #fee; border-left: 4px solid #c00; padding: .3em .8em; }
.cx { display: flex; flex-wrap: wrap; gap: 1.5em; align-items: center; margin: .6em 0; }
.var { display: flex; align-items: center; gap: .4em; font-family: ui-monospace, monospace; }
table.matrix { border-collapse: separate; border-left: 2px solid #333; border-right: 2px solid #333; border-radius: 6px; padding: 0 .2em; }
table.matrix td { padding: .1em .5em; text-align: right; font-family: ui-monospace, monospace; }
code, pre { background: #f4f4f4; padding: .1em .3em; } pre { overflow-x: auto; padding: .5em; }
dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .2em 1em; } dt { font-weight: bold; } dd { margin: 0; min-width: 0; }
.num { white-space: nowrap; font-family: ui-monospace, monospace; }
details.num { display: inline-block; max-width: 100%; vertical-align: top; }
details.num > summary { cursor: pointer; }
details.num > code { display: block; overflow-x: auto; white-space: nowrap; }
math[display=block] { margin: .6em 0; overflow-x: auto; }
.back { font-size: .85em; margin-left: .6em; font-weight: normal; }
"""

# Hides the rows and the per-check sections of other verdicts, and a claim whose checks are all hidden.
SCRIPT = """
document.getElementById('filter').addEventListener('change', function (e) {
  var want = e.target.value;
  var hide = function (el) { return want !== 'all' && el.dataset.verdict !== want; };
  document.querySelectorAll('tr.claim-row, section.check').forEach(function (el) { el.hidden = hide(el); });
  document.querySelectorAll('article.claim').forEach(function (a) {
    a.hidden = a.querySelectorAll('section.check:not([hidden])').length === 0;
  });
});
"""

_ROUNDED_DIGITS = 10  # significant digits shown for a long value; the exact one is a click away
_LONG = 16  # characters: longer values are shown rounded


def _verdict(v: str | None) -> str:
    return f'<span class="verdict v-{escape(v or "none")}">{escape(verdict_label(v))}</span>'


def rounded(text: str) -> str | None:
    """``text`` (a decimal or a fraction a/b) at a few significant digits, or None if it is no number."""
    try:
        value = Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        return None
    ctx = Context(prec=_ROUNDED_DIGITS)
    try:
        d = ctx.divide(Decimal(value.numerator), Decimal(value.denominator))
    except InvalidOperation:
        return None
    return f"{d.normalize():g}".replace("-", "\u2212")


def number(value) -> str:
    """A number: as it is when short; else rounded, with the exact value on demand (and as a tooltip)."""
    text = str(value)
    short = rounded(text) if len(text) > _LONG else None
    if short is None:
        return f'<span class="num">{escape(text)}</span>'
    return (f'<details class="num" title="{escape(text)}"><summary>\u2248 {escape(short)}</summary>'
            f"<code>{escape(text)}</code></details>")


def math(latex: str) -> str:
    """Display MathML for a LaTeX formula, sanitised; its source, escaped, when it is outside the
    subset a report typesets (with the reason) or the converter cannot read it."""
    reason = unsafe_reason(latex)
    if reason is None:
        try:
            return sanitise_mathml(latex_to_mathml(check_math(latex), display="block"))
        except Exception:  # the converter raises a variety of its own errors on macros it lacks
            pass
    note = "" if reason is None else f'<p class="untypeset">LaTeX not typeset: {escape(reason)}.</p>'
    return f"{note}<pre>{escape(latex)}</pre>"


def _value(value) -> str:
    if not isinstance(value, list):
        return number(value)
    rows = value if value and isinstance(value[0], list) else [[x] for x in value]
    body = "".join("<tr>" + "".join(f"<td>{number(x)}</td>" for x in row) + "</tr>" for row in rows)
    return f'<table class="matrix">{body}</table>'


def _cells(vars_) -> str:
    return "".join(f'<div class="var"><span>{escape(k)} =</span>{_value(v)}</div>' for k, v in vars_.items())


def _anchor(item: Item) -> str:
    c = item.check
    return escape(f"c-{c.claim.id}-{c.part.name}-{c.reading.name}".replace(" ", "_"))


def _claim_anchor(claim) -> str:
    return escape(f"claim-{claim.id}".replace(" ", "_"))


_BACK = '<a class="back" href="#summary">\u2191 summary</a>'


def _item(item: Item, reg) -> str:
    o = item.outcome
    part = item.check.part
    out = [f'<section class="check" id="{_anchor(item)}" data-verdict="{escape(o.now or "none")}">'
           f"<h3>{escape(item_label(item))}: {_verdict(o.now)}{escape(proof_suffix(item))}{_BACK}</h3>"]
    if item.check.reading.summary:
        out.append(f"<p><em>Reading.</em> {escape(item.check.reading.summary)}</p>")
    if item.latex:
        out.append(math(item.latex))
    elif part.statement:
        out.append(f"<p><em>Statement.</em> {escape(part.statement)}</p>")
    if o.drift:
        out.append(f'<p class="drift"><strong>Drift from the lock</strong> (locked {escape(o.locked or "-")}): {escape(o.change)}. {escape(o.detail)}</p>')
    for path, r in zip(o.files, o.replays):
        kernel = kernel_status(item, r.path)
        coq = "" if kernel is None else f"<dt>Coq</dt><dd>{escape(kernel)}</dd>"
        if path in o.unpinned:
            out.append(f"<p>Counterexample <code>{escape(path)}</code> ({replay_status(r)}): {escape(UNPINNED_NOTE)}</p>"
                       f"<dl><dt>replay</dt><dd><code>{escape(replay_command(path))}</code></dd>{coq}</dl>")
            continue
        doc = r.loaded.document
        dims = ", ".join(f"{k} = {v}" for k, v in doc["dims"].items())
        cells = _cells(doc["vars"])
        out.append(f"<p>Counterexample ({escape(dims)}; {'shrunk; ' if doc.get('shrunk') else ''}"
                   f"certified by {escape(r.certificate.detail or r.certificate.method)}):</p><div class=\"cx\">{cells}</div>")
        out.append("<dl>"
                   f"<dt>lhs <code>{escape(part.lhs_text)}</code></dt><dd>{number(r.lhs)}</dd>"
                   f"<dt>rhs <code>{escape(part.rhs_text)}</code></dt><dd>{number(r.rhs)}</dd>"
                   f"<dt>margin (rhs \u2212 lhs)</dt><dd>{number(r.margin)}</dd>"
                   f"<dt>replay</dt><dd><code>{escape(replay_command(path))}</code></dd>{coq}</dl>")
        out.append(f"<details><summary>LaTeX</summary><pre>{escape(counterexample_math(r))}</pre></details>")
    if o.result is not None:
        out.append(f"<p>{escape(search_summary(item))}.</p>")
        if found_now(item) is not None:
            out.append(f'<div class="cx">{_cells(found_now(item).vars)}</div>')
        out.append(f"<p>Reproduce: <code>{escape(search_command(item, reg))}</code></p>")
    out.append("</section>")
    return "\n".join(out)


def _summary(secs: list[Section]) -> str:
    rows = []
    for sec in secs:
        for item in sec.items:
            o, c = item.outcome, item.check
            rows.append(
                f'<tr class="claim-row" data-claim="{escape(c.claim.id)}" data-verdict="{escape(o.now or "none")}">'
                f'<td><a href="#{_claim_anchor(c.claim)}">{escape(c.claim.kind.capitalize())} {escape(c.claim.id)}</a></td>'
                f"<td>{escape(c.part.name)}</td><td><a href=\"#{_anchor(item)}\">{escape(c.reading.name)}</a></td><td>{_verdict(o.now)}{escape(proof_suffix(item))}</td>"
                f"<td>{'drift: ' + escape(o.change) if o.drift else 'matches the lock'}</td></tr>"
            )
    verdicts = sorted({item.outcome.now or "none" for sec in secs for item in sec.items})
    options = "".join(f'<option value="{escape(v)}">{escape(v)}</option>' for v in verdicts)
    return (f'<p><label>Show <select id="filter"><option value="all">every verdict</option>{options}</select></label></p>'
            '<table class="summary" id="summary"><thead><tr><th>claim</th><th>part</th><th>reading</th><th>verdict</th><th>lock</th></tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>")


def render(secs: list[Section], reg, appendix: str = "") -> str:
    """The page; ``appendix`` is an HTML fragment placed after the claims (the experiments)."""
    s = reg.lock.search
    body = [
        "<h1>Claim verifier report</h1>",
        f"<p>Lock <code>{escape(str(reg.lock.path))}</code>: seed {s.seed}, budget {s.budget:,} float64 evaluations per check, "
        f"re-check at {s.dps} digits. Every counterexample was replayed exactly and every surviving claim searched again "
        "while writing this report.</p>",
        _summary(secs),
    ]
    for sec in secs:
        c = sec.claim
        body.append(f'<article class="claim" id="{_claim_anchor(c)}">')
        body.append(f"<h2>{escape(heading(c))}{_BACK}</h2><p><em>{escape(c.paper)}, {escape(c.location)}.</em> {escape(c.statement)}</p>")
        if c.latex:
            body.append(math(c.latex))
        if c.notes:
            body.append(f"<p><em>Notes on the reading.</em> {escape(c.notes)}</p>")
        body.extend(_item(item, reg) for item in sec.items)
        body.append("</article>")
    if appendix:
        body.append(appendix)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>Claim verifier report</title><style>{CSS}</style></head>\n<body>\n" + "\n".join(body)
            + f"\n<script>{SCRIPT}</script>\n</body></html>\n")
