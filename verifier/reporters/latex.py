"""LaTeX: counterexamples typeset as matrices, a standalone document, and a one-file snippet.

Stored values are exact strings ("3/7", "-2", "0.125"); they become ``\\frac{3}{7}`` and
column vectors become ``pmatrix`` columns, so a counterexample reads as it would on paper.
Every plain string goes through :func:`escape` (statements quote the paper in ASCII, with
``||``, ``<`` and backticks that the default font would print as other glyphs); what a
reader should see as mathematics comes from the claim's ``latex`` field.  Long exact numbers
get break points every few digits, and a display wider than the line is scaled to fit, so the
document has no overfull lines (``tests/cli/test_report_latex.py`` compiles it with pdflatex).
"""

from __future__ import annotations

import re
import unicodedata

from ..replay import Replay
from .safe_text import check_math, unsafe_reason
from .report_data import UNPINNED_NOTE, Item, replay_status, Section, found_now, greek, heading, item_label, kernel_status, replay_command, proof_suffix, search_command, search_summary, verdict_label

_SPECIAL = {"\\": r"\ensuremath{\backslash}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
            "~": r"\~{}", "^": r"\^{}",
            # the default (OT1) text font has no < > | ` glyphs: they would print as ¡ ¿ — and a quote
            "<": r"\ensuremath{<}", ">": r"\ensuremath{>}", "|": r"\ensuremath{|}", "`": r"{\ttfamily\char96}",
            # typographic characters a pdflatex without extra packages cannot take as UTF-8
            "\u2014": "---", "\u2013": "--", "\u201c": "``", "\u201d": "''", "\u2018": "`", "\u2019": "'",
            "\u2212": r"\ensuremath{-}", "\u2264": r"\ensuremath{\le}", "\u2265": r"\ensuremath{\ge}",
            "\u2260": r"\ensuremath{\ne}", "\u221e": r"\ensuremath{\infty}", "\u00b7": r"\ensuremath{\cdot}",
            "\u00d7": r"\ensuremath{\times}", "\u2208": r"\ensuremath{\in}", "\u1d40": r"\ensuremath{^{\top}}",
            "\u2016": r"\ensuremath{\|}", "\u211d": r"\ensuremath{\mathbb{R}}", "\u2248": r"\ensuremath{\approx}", "\u2026": r"\ldots{}"}
_GREEK_LETTERS = {"\u03b1": "alpha", "\u03b2": "beta", "\u03b3": "gamma", "\u03b4": "delta", "\u03b5": "epsilon",
                  "\u03b7": "eta", "\u03b8": "theta", "\u03bb": "lambda", "\u03bc": "mu", "\u03c3": "sigma",
                  "\u03c4": "tau", "\u03c6": "phi", "\u03c8": "psi", "\u03c9": "omega", "\u03c1": "rho"}
_DIGIT_GROUP = 8  # a long number may break after every so many digits
#: characters of one line of the document: TeX reads a line into a buffer of fixed size (200,000
#: on TeX Live, less elsewhere), and a claim's statement may be longer than that
MAX_TEX_LINE = 1_000
_TEX_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|.", re.S)


def _escape_char(ch: str) -> str:
    if ch in _SPECIAL:
        return _SPECIAL[ch]
    if ord(ch) < 32 or ch == "\x7f":  # a line break or a control character: a blank line would end a paragraph mid-argument
        return " "
    if ch in _GREEK_LETTERS:
        return rf"\ensuremath{{\{_GREEK_LETTERS[ch]}}}"
    if ord(ch) < 128:
        return ch
    # anything else: its ASCII base letter (é -> e), or a visible placeholder rather than a compile error
    base = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
    return base or "?"


def escape(text: str) -> str:
    """Plain text for LaTeX: every special character quoted, ``--`` kept as two hyphens."""
    # "--" would become an en dash: a command's "--format" must print as typed
    return "".join("{}-" if ch == "-" and text[i - 1:i] == "-" else _escape_char(ch) for i, ch in enumerate(text))


def _tt_char(ch: str) -> str:
    # the typewriter font has every ASCII glyph at its code; only TeX's own specials need \char
    if ch in "\\{}$&#^_%~":
        return rf"{{\char{ord(ch)}}}"
    return ch if 32 <= ord(ch) < 127 else _escape_char(ch)


def tt(text: str) -> str:
    """Code or a file name in typewriter type, allowed to break after ``/``, ``-``, ``_`` and ``.``."""
    body = "".join(_tt_char(ch) + (r"\allowbreak{}" if ch in "/-_." else "") for ch in text)
    return rf"\texttt{{{body}}}"


def wrapped(text: str) -> str:
    """``text`` with no line longer than ``MAX_TEX_LINE``, read by TeX as before.

    A long line is cut at a space (a line's end reads as a space, and TeX skips the spaces that
    begin the next line), else between two tokens with ``%`` (a comment: the line's end reads as
    nothing), never inside a control sequence and never before a space the ``%`` would swallow.
    A comment is cut into comment lines.
    """
    return "\n".join(part for line in text.split("\n") for part in _wrapped_line(line))


def _wrapped_line(line: str):
    if len(line) <= MAX_TEX_LINE:
        yield line
        return
    comment = next((m.start() for m in _TEX_TOKEN.finditer(line) if m.group() == "%"), None)
    if comment is not None:
        code, note = line[:comment], line[comment + 1:]
        if code.strip():
            yield from _wrapped_code(code + "%")
        for at in range(0, len(note), MAX_TEX_LINE - 1):
            yield "%" + note[at:at + MAX_TEX_LINE - 1]
        return
    yield from _wrapped_code(line)


def _wrapped_code(line: str):
    cut_before = False
    while len(line) > MAX_TEX_LINE:
        starts = [(m.start(), m.group()) for m in _TEX_TOKEN.finditer(line, 0, MAX_TEX_LINE - 1)]
        spaces = [at for at, token in starts if token == " " and line[:at].strip()]
        if spaces:
            head, rest = line[:spaces[-1]], line[spaces[-1] + 1:]
        else:
            at = next((at for at, token in reversed(starts) if at > 0 and token != " "), None)
            if at is None:
                break
            head, rest = line[:at] + "%", line[at:]
        yield head
        line, cut_before = rest.lstrip(" "), True
    if line or not cut_before:  # a line left empty by a cut would end the paragraph
        yield line


def breakable_digits(digits: str) -> str:
    """A run of digits with a permitted line break every few digits (inline math only)."""
    if len(digits) <= 2 * _DIGIT_GROUP:
        return digits
    groups = [digits[i:i + _DIGIT_GROUP] for i in range(0, len(digits), _DIGIT_GROUP)]
    return r"\allowbreak ".join(groups)


def inline_number(value) -> str:
    """A number for running text: long digit runs may break across lines; fractions stay on the line as a/b."""
    text = str(value).strip()
    m = re.fullmatch(r"([+-]?[\d.]+)[eE]([+-]?\d+)", text)
    mantissa, power = (m.group(1), rf" \cdot 10^{{{int(m.group(2))}}}") if m else (text, "")
    return re.sub(r"\d+", lambda d: breakable_digits(d.group(0)), mantissa) + power


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


def tex_dims(dims: dict) -> str:
    return r",\ ".join(f"{tex_name(k)} = {v}" for k, v in dims.items())


def tex_assignments(vars_: dict, dims: dict) -> str:
    """``n = 3,\\ d = 1:\\quad A = (...),\\quad \\epsilon = 1`` -- the whole counterexample on one line."""
    head = tex_dims(dims)
    body = r",\quad ".join(f"{tex_name(k)} = {tex_value(v)}" for k, v in vars_.items())
    return f"{head}:\\quad {body}" if head else body


def violation_rule(check) -> str:
    """A strict claim fails at equality already."""
    return "\\le 0" if check.strict else "< 0"


def counterexample_math(r: Replay) -> str:
    doc = r.loaded.document
    return tex_assignments(doc["vars"], doc["dims"])


_LONG_SCALAR = 24  # characters; longer exact scalars are set in running text, where they can break


def counterexample_block(vars_: dict, dims: dict) -> list[str]:
    """The counterexample for the document: one line per variable, none wider than the text.

    Matrices are displays scaled down when wider than the line (``\\fitdisplay``, defined in
    the preamble); a long exact scalar is set as ``a/b`` in running text with break points.
    """
    out = []
    if dims:
        out.append(rf"\noindent At ${tex_dims(dims)}$:\par")
    for k, v in vars_.items():
        if not isinstance(v, list) and len(str(v)) > _LONG_SCALAR:
            out.append(rf"\noindent\hspace*{{2em}}${tex_name(k)} = {inline_number(v)}$\par")
        else:
            out.append(rf"\fitdisplay{{{tex_name(k)} = {tex_value(v)}}}")
    return out


def _value_items(check, lhs, rhs, margin) -> list[str]:
    return [
        rf"  \item lhs {tt(check.part.lhs_text)} $= {inline_number(lhs)}$",
        rf"  \item rhs {tt(check.part.rhs_text)} $= {inline_number(rhs)}$",
        rf"  \item margin (rhs $-$ lhs; ${violation_rule(check)}$ is a violation) $= {inline_number(margin)}$",
    ]


def replay_snippet(r: Replay, in_document: bool = False, kernel: str | None = None) -> str:
    """The one-counterexample LaTeX of ``verify replay FILE --format latex`` (needs only amsmath).

    ``in_document``: for the report, whose preamble defines the line-fitting display;
    ``kernel``: what Coq made of the file, when the report ran with --coq.
    """
    check = r.loaded.check
    claim = check.claim
    doc = r.loaded.document
    status = "refutes" if r.still_refutes else "no longer refutes"
    lines = [
        f"% {replay_command(r.path)}  ({status})",
        rf"\paragraph{{Counterexample to {escape(claim.kind.capitalize())} {escape(claim.id)} "
        rf"(part {escape(check.part.name)}, reading {escape(check.reading.name)}).}}",
        # ragged right: a line of one long number or path has no space to stretch, so justifying it fails
        r"\begingroup\raggedright",
        escape(check.part.statement or claim.statement) + r"\par",
    ]
    if in_document:
        lines += counterexample_block(doc["vars"], doc["dims"])
    else:
        # a display cannot break a line: long exact scalars go below it, in running text
        long = {k for k, v in doc["vars"].items() if not isinstance(v, list) and len(str(v)) > _LONG_SCALAR}
        rows = [f"{tex_name(k)} = {tex_value(v)}" for k, v in doc["vars"].items() if k not in long]
        if doc["dims"]:
            rows.insert(0, tex_dims(doc["dims"]))
        lines += [r"\begin{gather*}", "  " + " \\\\\n  ".join(rows), r"\end{gather*}"]
        lines += [rf"\noindent${tex_name(k)} = {inline_number(doc['vars'][k])}$\par" for k in doc["vars"] if k in long]
    lines += [r"\begin{itemize}", *_value_items(check, r.lhs, r.rhs, r.margin),
              rf"  \item certificate: {escape(r.certificate.detail or r.certificate.status)}",
              *([] if kernel is None else [rf"  \item Coq: {escape(kernel)}"]),
              r"\end{itemize}",
              rf"Replay: {tt(replay_command(r.path))}\par", r"\endgroup"]
    return wrapped("\n".join(lines)) + "\n"


def _statement_display(latex: str) -> str:
    """A claim's formula, typeset when it is within the whitelisted subset; else its source as text, with the reason."""
    reason = unsafe_reason(latex)
    if reason is None:
        return rf"\fitdisplay{{{check_math(latex)}}}"
    return rf"\emph{{LaTeX not typeset: {escape(reason)}.}} {tt(latex)}\par"


def _item(item: Item, reg) -> list[str]:
    o = item.outcome
    out = [rf"\subsection*{{{escape(item_label(item))}: {verdict_label(o.now)}{escape(proof_suffix(item))}}}"]
    if item.check.reading.summary:
        out.append(rf"\emph{{Reading.}} {escape(item.check.reading.summary)}\par")
    if item.latex:
        out.append(_statement_display(item.latex))
    elif item.check.part.statement:
        out.append(escape(item.check.part.statement) + r"\par")
    if o.drift:
        out.append(rf"\textbf{{Drift from the lock}} (locked {escape(o.locked or '-')}): {escape(o.change)}. {escape(o.detail)}\par")
    for path, r in zip(o.files, o.replays):
        if path in o.unpinned:
            kernel = kernel_status(item, r.path)
            out += [rf"Counterexample {tt(path)} ({replay_status(r)}): {escape(UNPINNED_NOTE)}\par", r"\begin{itemize}",
                    rf"  \item replay: {tt(replay_command(path))}", *([] if kernel is None else [rf"  \item Coq: {escape(kernel)}"]),
                    r"\end{itemize}"]
            continue
        out.append(replay_snippet(r, in_document=True, kernel=kernel_status(item, r.path)))
    if o.result is not None:
        out.append(escape(search_summary(item)) + r".\par")
        cx = found_now(item)
        if cx is not None:
            out.extend(counterexample_block(cx.vars, cx.dims))
        out.append(rf"Reproduce: {tt(search_command(item, reg))}\par")
    return out


PREAMBLE = r"""\documentclass{article}
\usepackage{amsmath,amssymb,graphicx}
\usepackage[margin=2cm]{geometry}
% a display wider than the line is scaled to the line, never cut at the margin
\newsavebox\fitbox
\newcommand\fitdisplay[1]{\par\smallskip\noindent\sbox\fitbox{$\displaystyle #1$}%
  \ifdim\wd\fitbox>\linewidth\resizebox{\linewidth}{!}{\usebox\fitbox}\else\makebox[\linewidth]{\usebox\fitbox}\fi\par\smallskip}
\sloppy
\emergencystretch=3em
"""


def render(secs: list[Section], reg) -> str:
    s = reg.lock.search
    out = [
        PREAMBLE.rstrip(),
        r"\begin{document}",
        r"\section*{Claim verifier report}",
        rf"Lock {tt(str(reg.lock.path))}: seed {s.seed}, budget {s.budget:,} float64 evaluations per check, "
        rf"re-check at {s.dps} digits. Regenerate with {tt('verify report --format latex')}.\par",
    ]
    for sec in secs:
        c = sec.claim
        out.append(rf"\section{{{escape(heading(c))}}}")
        out.append(rf"\emph{{{escape(c.paper)}, {escape(c.location)}.}} {escape(c.statement)}\par")
        if c.latex:
            out.append(_statement_display(c.latex))
        if c.notes:
            out.append(rf"\emph{{Notes on the reading.}} {escape(c.notes)}\par")
        for item in sec.items:
            out.extend(_item(item, reg))
    out.append(r"\end{document}")
    return wrapped("\n".join(out)) + "\n"
