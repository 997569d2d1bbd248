"""Reports of someone else's pack run no script and include no file: every format, every field.

The pack (tests/cli/hostile_pack.py) puts HTML, Markdown and LaTeX payloads in every text field;
the Markdown report is rendered by a CommonMark renderer that passes raw HTML through (the
most a Markdown viewer may do), the LaTeX report is compiled with ``-no-shell-escape``.  The
browser half of the attack is tests/browser/test_hostile_reports.py.
"""

import hashlib
import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser

import pytest
from markdown_it import MarkdownIt

from verifier.reporters.safe_text import UnsafeLatex, check_math, md_code, md_text

from .hostile_pack import PAYLOAD_MARKERS, lock_hostile_project, verify, write_hostile_project


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    secret, token = write_hostile_project(root)
    cwd = os.getcwd()
    os.chdir(root / "project")
    try:
        lock_hostile_project(root / "project")
        reports = {}
        for fmt in ("markdown", "html", "latex"):
            r = verify("report", "--format", fmt, "-o", f"report.{fmt}", "--jobs", 1)
            assert r.exit_code == 0, r.output
            reports[fmt] = (root / "project" / f"report.{fmt}").read_text()
        r = verify("report", "--summary")
        assert r.exit_code == 0, r.output
        reports["summary"] = r.stdout
    finally:
        os.chdir(cwd)
    return root / "project", secret, token, reports


class Elements(HTMLParser):
    """Every element and attribute of a page."""

    def __init__(self, text):
        super().__init__()
        self.tags, self.attributes = [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attributes.extend((tag, k, v or "") for k, v in attrs)


def rendered_markdown(text: str) -> str:
    """What a Markdown viewer shows: CommonMark with raw HTML passed through, and GFM tables."""
    return MarkdownIt("commonmark", {"html": True}).enable("table").render(text)


def assert_inert_html(html: str, own_scripts: int = 0):
    page = Elements(html)
    assert page.tags.count("script") == own_scripts, page.tags
    assert not {"iframe", "img", "svg", "object", "embed", "b"} & set(page.tags), sorted(set(page.tags))
    assert not [a for a in page.attributes if a[1].startswith("on")], [a for a in page.attributes if a[1].startswith("on")]
    links = [v for _, k, v in page.attributes if k in ("href", "src", "xlink:href")]
    assert all(v.startswith("#") for v in links), links


def test_markdown_report_and_summary_render_no_html_of_the_pack(hostile):
    _, secret, token, reports = hostile
    for name in ("markdown", "summary"):
        html = rendered_markdown(reports[name])
        assert_inert_html(html)
        page = Elements(html)
        headings = [t for t in page.tags if t in ("h1", "h2", "h3", "h4", "h5", "h6")]
        # the report's own headings only: "# Claim verifier report", one ## per claim, one ### per check
        assert headings == (["h1", "h2", "h3"] if name == "markdown" else []), headings
        assert "$$\\input" not in reports[name]
    # the summary is one table row per check
    rows = [line for line in reports["summary"].splitlines() if line.startswith("| ")]
    assert len(rows) == 2 and "\n" not in rows[1]


def test_html_report_holds_no_element_of_the_pack(hostile):
    _, _, _, reports = hostile
    assert_inert_html(reports["html"], own_scripts=1)
    assert reports["html"].count("LaTeX not typeset: ") == 1


def test_latex_report_compiles_without_reading_the_secret_or_running_a_shell(hostile, tmp_path):
    for tool in ("pdflatex", "pdftotext"):
        if shutil.which(tool) is None:
            if os.environ.get("CI"):
                pytest.fail(f"{tool} is missing under CI: .ci/run must install it")
            pytest.skip(f"{tool} is not installed")
    _, secret, token, reports = hostile
    (tmp_path / "report.tex").write_text(reports["latex"])
    # past errors too (no -halt-on-error): whatever TeX makes of the pack's LaTeX ends in the PDF
    proc = subprocess.run(["pdflatex", "-no-shell-escape", "-interaction=nonstopmode", "report.tex"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    log = (tmp_path / "report.log").read_text(errors="replace")
    text = subprocess.run(["pdftotext", "report.pdf", "-"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    digits = token.split("-")[1]  # in math mode TeX would set the token's hyphen as a minus sign
    assert digits not in text and digits not in log
    assert f"({secret}" not in log.replace("\n", "")  # TeX logs "(FILE" for every file it opens: it opened no file of the pack's
    assert proc.returncode == 0 and not re.search(r"^! ", log, re.M), log[-3000:]
    assert "LaTeX not typeset" in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.aux", "report.log", "report.pdf", "report.tex"]


@pytest.mark.parametrize("latex, reason", [
    (r"\input{/etc/hostname}", r"'\input'"),
    (r"x \immediate\write18{ls}", r"'\immediate'"),
    (r"\def\x{y}", r"'\def'"),
    (r"^^5cinput{/etc/hostname}", "'^^'"),
    ("x % }", "'%'"),
    (r"\begin{filecontents}{a}", "filecontents"),
    ("x }{", "not opened"),
    (r"\catcode`\@=11", r"'\catcode'"),
])
def test_latex_outside_the_typeset_subset_is_refused_with_the_reason(latex, reason):
    with pytest.raises(UnsafeLatex, match=reason.replace("\\", "\\\\").replace("^", "\\^")):
        check_math(latex)


def test_every_latex_of_the_packs_is_typeset():
    from lemmas import REGISTRY

    for claim in REGISTRY:
        for text in [claim.latex, *(ch.part.latex for ch in claim.checks())]:
            check_math(text)


def test_markdown_escapes_are_one_line_and_literal():
    assert md_text("a\n# b <i> [x](y) $z$ |") == r"a # b &lt;i&gt; [x]\(y) \$z\$ \|"
    assert md_code("a `` b\nc") == "``` a `` b c ```"


# ------------------------------------------------------------------------------ the summary renders only pinned, valid evidence
def _edit_stored(hostile, tmp_path, monkeypatch, **fields):
    """A copy of the hostile project, working in it, whose stored counterexample has ``fields`` changed."""
    project = tmp_path / "copy"
    shutil.copytree(hostile[0], project)
    monkeypatch.chdir(project)
    [path] = list((project / "counterexamples").rglob("*.json"))
    path.write_text(json.dumps({**json.loads(path.read_text()), **fields}))
    return project, path


def test_summary_refuses_a_file_the_lock_does_not_pin(hostile, tmp_path, monkeypatch):
    _edit_stored(hostile, tmp_path, monkeypatch, note="<img src=x onerror=alert(1)>")
    r = verify("report", "--summary")
    assert r.exit_code == 1 and r.stdout == ""
    assert r.stderr.startswith("error: counterexamples/") and "pins" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_summary_names_a_pinned_file_whose_lhs_is_no_number(hostile, tmp_path, monkeypatch):
    project, path = _edit_stored(hostile, tmp_path, monkeypatch, lhs="two")
    lock = json.loads((project / "claims.lock").read_text())
    [listed] = lock["checks"][0]["counterexamples"]
    lock["checks"][0]["sha256"][listed] = hashlib.sha256(path.read_bytes()).hexdigest()  # a lock that pins the edit
    (project / "claims.lock").write_text(json.dumps(lock))
    r = verify("report", "--summary")
    assert r.exit_code == 2, r.output
    assert "field 'lhs'" in r.stderr and "internal error" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_payload_markers_reach_the_reports_only_as_text(hostile):
    """The payloads are there (escaped): nothing of the pack was dropped from what a reviewer reads."""
    _, _, _, reports = hostile
    for name in ("markdown", "html"):
        for marker in PAYLOAD_MARKERS:
            assert marker in reports[name], (name, marker)
