"""Reports stay documents whatever a pack's LaTeX says: balanced, bounded, wrapped, and inert.

A claim's ``latex`` that passes the whitelist command by command can still end the LaTeX
report (an environment never closed, ``\\left`` without ``\\right``, 300 nested groups, a stray
``\\end``), and a link inside ``\\text{...}`` is live wherever Markdown is rendered before MathJax.
Each claim of the pack below carries one such formula; the reports of its lock must compile
with ``-halt-on-error``, name the reason in the claim's section, and render no link or image.
A seeded family of random formulas checks the whitelist against TeX itself: every formula it
accepts compiles.
"""

import os
import random
import re
import shutil
import subprocess
import textwrap

import pytest
from markdown_it import MarkdownIt

from verifier.reporters.latex import MAX_TEX_LINE, PREAMBLE, escape, wrapped
from verifier.reporters.safe_text import MAX_LATEX_NESTING, UnsafeLatex, check_math, md_math

from .packs_helpers import locked_project, verify

#: claim id -> (its LaTeX, the reason the report gives for not typesetting it)
FORMULAS = {
    "m1": (r"x \le \begin{matrix} a", r"'\begin{matrix}' is never closed"),
    "m2": (r"\left( x \le 1", r"'\left' without its '\right'"),
    "m3": ("{" * 300 + "x" + "}" * 300, f"nested deeper than {MAX_LATEX_NESTING} levels"),
    "m4": (r"x \end{aligned} \le 1", r"'\end{aligned}' closes no '\begin{aligned}'"),
}
LINKS = r"\text{[click](javascript:alert(1))} \le \text{![t](https://example.com/t.png)} + \text{[a](https://example.com)}"
LONG_STATEMENT = " ".join(f"word{i}" for i in range(40_000))  # 280,000 characters and more

CLAIM = textwrap.dedent('''
    claim = Claim(id={cid!r}, title="t", paper="report-paper", statement={statement!r}, latex={latex!r},
                  dims=[Dim("n", 1, 2)], variables=[Vector("x", "n")],
                  parts=[Part("main", lhs=lambda ctx, v: 0, rhs=lambda ctx, v: ctx.sum_all(v.x * v.x))])
''')


def _need(tool):
    if shutil.which(tool) is None:
        if os.environ.get("CI"):
            pytest.fail(f"{tool} is missing under CI: .ci/run must install it")
        pytest.skip(f"{tool} is not installed")


def compile_tex(folder, name, text):
    (folder / f"{name}.tex").write_text(text)
    proc = subprocess.run(["pdflatex", "-no-shell-escape", "-interaction=nonstopmode", "-halt-on-error", f"{name}.tex"],
                          cwd=folder, capture_output=True, text=True, timeout=300)
    log = (folder / f"{name}.log").read_text(errors="replace")
    return proc.returncode, log


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    project = tmp_path_factory.mktemp("structure") / "project"
    claims = {**{cid: (latex, "a statement") for cid, (latex, _) in FORMULAS.items()}, "links": (LINKS, "links"),
              "long": (r"x \le 1", LONG_STATEMENT)}
    source = "from verifier import Claim, Dim, Part, Vector\n"
    for i, (cid, (latex, statement)) in enumerate(claims.items()):
        source += CLAIM.format(cid=cid, statement=statement, latex=latex).replace("claim = ", f"claim_{i} = ")
    source += f"claims = [{', '.join(f'claim_{i}' for i in range(len(claims)))}]\n"
    locked_project(project, "structurepack", source, "--budget", 500, "--prove-time", 0, "--jobs", 1)
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(project)
        out = {}
        for fmt in ("latex", "markdown"):
            r = verify("report", "--format", fmt, "-o", f"report.{fmt}", "--jobs", 1)
            assert r.exit_code == 0, r.output
            out[fmt] = (project / f"report.{fmt}").read_text()
    return project, out


def test_the_latex_report_of_unbalanced_formulas_compiles_and_names_each_reason(reports):
    _need("pdflatex")
    project, out = reports
    code, log = compile_tex(project, "report", out["latex"])
    assert code == 0 and not re.search(r"^! ", log, re.M), log[-3000:]
    for cid, (_, reason) in FORMULAS.items():
        section = out["latex"].split(f"Lemma {cid} ")[1].split(r"\section{")[0]
        assert "LaTeX not typeset: " in section, cid
        flat = " ".join(section.replace("%\n", "").split())
        assert escape(reason) in flat, (cid, reason)


def test_a_statement_longer_than_texs_buffer_is_wrapped(reports):
    project, out = reports
    assert max(len(line) for line in out["latex"].splitlines()) <= MAX_TEX_LINE
    assert "word39999" in out["latex"]
    _need("pdflatex")  # compiled in the test above; here the wrapping is read back as TeX reads it
    unwrapped = out["latex"].replace("%\n", "")
    assert " ".join(f"word{i}" for i in range(40_000)) in " ".join(unwrapped.split())


def tex_reads(text: str) -> str:
    """The characters TeX reads from ``text``, as far as lines go: a comment and its line's end
    are nothing, another line's end is a space, spaces that begin a line are skipped."""
    out = []
    for line in text.split("\n"):
        tokens = re.findall(r"\\[A-Za-z]+|\\.|.", line, re.S)
        cut = tokens.index("%") if "%" in tokens else None
        kept = "".join(tokens[:cut]).lstrip(" ")
        out.append(kept if cut is not None else kept + " ")
    return re.sub(r" +", " ", "".join(out))


def test_wrapping_keeps_what_tex_reads():
    rng = random.Random(7)
    pieces = ["word", " ", r"\ensuremath{\le}", r"\char96", "x" * 1500, "  ", r"\ ", "%", r"\%", "{}", "\\\\", "\n"]
    for _ in range(60):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 400)))
        out = wrapped(text)
        assert max(len(line) for line in out.split("\n")) <= MAX_TEX_LINE
        assert tex_reads(out) == tex_reads(text)
        assert out.count("\n\n") == text.count("\n\n")  # no paragraph made or lost


def test_links_in_markdown_math_are_inert(reports):
    _, out = reports
    html = MarkdownIt("commonmark", {"html": True, "linkify": False}).enable("table").render(out["markdown"])
    assert "<a " not in html and "<img" not in html, re.findall(r"<(?:a|img) [^>]*>", html)
    blocks = re.findall(r"^\$\$\n(.*?)\n\$\$$", out["markdown"], re.S | re.M)
    assert any("click" in b for b in blocks)
    assert not any("](" in b or "![" in b or "://" in b for b in blocks), blocks


def test_md_math_keeps_the_formula():
    assert md_math(r"[0, 1] \cup (2, 3)") == r"[0, 1] \cup (2, 3)"
    assert md_math(r"\text{[a](b)}") == r"\text{[a]{}(b)}"


# ------------------------------------------------------------------------------ the whitelist against TeX itself
ALPHABET = ["x", "1", "+", "=", "<", "'", "(", ")", "[", "]", "|", ".", ",", "!", "~", "-", ":", '"', "{", "}", "{", "}",
            "^", "_", "&", r"\\", r"\frac", r"\sqrt", r"\sqrt[3]", r"\left(", r"\right)", r"\left.", r"\right|", r"\middle|",
            r"\begin{matrix}", r"\end{matrix}", r"\begin{aligned}", r"\end{aligned}", r"\begin{cases}", r"\end{cases}",
            r"\begin{array}{cc}", r"\end{array}", r"\begin{gathered}", r"\end{gathered}", r"\text{", r"\text", r"\mbox{",
            r"\alpha", r"\sum", r"\int", r"\lim", r"\limits", r"\big(", r"\Big", r"\,", r"\;", r"\ ", r"\{", r"\}", r"\|", r"\_",
            r"\&", r"\le", r"\ldots", r"\mathbb", r"\mathbb{R}", r"\operatorname", r"\overset", r"\underbrace", r"\hat", r"\binom",
            r"\not", r"\top", r"\infty", r"\mapsto", r"\langle", r"\displaystyle", r"\quad", r"\pmod", r"\bmod", r"\colon",
            r"\log", r"\max", r"\in", r"\notin", r"\neq", r"\iff"]


def test_every_formula_the_whitelist_accepts_compiles(tmp_path):
    """Seeded random formulas over the whitelist's commands and TeX's special characters: each one
    accepted is set in the report's own display, and the document compiles with -halt-on-error."""
    _need("pdflatex")
    rng = random.Random(20261128)
    accepted, refused = set(), 0
    for _ in range(6000):
        formula = " ".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 12)))
        try:
            accepted.add(check_math(formula))
        except UnsafeLatex:
            refused += 1
    assert len(accepted) > 300 and refused > 3000  # both sides of the whitelist are exercised
    body = "\n".join(rf"\fitdisplay{{{f}}}" for f in sorted(accepted))
    code, log = compile_tex(tmp_path, "accepted", f"{PREAMBLE}\\begin{{document}}\n{body}\n\\end{{document}}\n")
    error = log[log.find("\n! "):][:600] if "\n! " in log else ""
    assert code == 0 and not error, error
