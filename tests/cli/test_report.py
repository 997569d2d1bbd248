"""``verify report`` in every format and ``verify replay --format latex``."""

import re
from html.parser import HTMLParser

from verifier.reporters.latex import escape, tex_number, tex_value, tt

from .lock_project import CHECKS, CLAIMS, ROOT, locked_template, project, run  # noqa: F401  (fixtures)

LEMMA_4_1_FILE = "counterexamples/alman-song-2025/4.1/main-as-printed-seed0.json"


def section(text, start, stop_pattern):
    i = text.index(start)
    m = re.compile(stop_pattern, re.M).search(text, i + len(start))
    return text[i: m.start() if m else len(text)]


def test_tex_numbers_and_matrices():
    assert tex_number("3/7") == r"\frac{3}{7}" and tex_number("-1/2") == r"-\frac{1}{2}"
    assert tex_number("1e-3") == r"1 \cdot 10^{-3}" and tex_number("-2") == "-2"
    assert tex_value([["1", "2"], ["3/4", "0"]]) == r"\begin{pmatrix} 1 & 2 \\ \frac{3}{4} & 0 \end{pmatrix}"
    assert tex_value(["1", "-1"]) == r"\begin{pmatrix} 1 \\ -1 \end{pmatrix}"  # vectors are columns
    assert escape("A_1 & 50% ^") == r"A\_1 \& 50\% \^{}"


def test_markdown_typesets_lemma_4_1_and_its_replay(project):
    r = run("report", "--format", "markdown")
    assert r.exit_code == 0, r.stderr
    md = r.stdout
    assert md.count("\n## ") == len(CLAIMS)
    sec = section(md, "## Lemma 4.1", r"^## ")
    assert "**REFUTED**" in sec and "The statement exactly as printed." in sec
    assert r"A = \begin{pmatrix} 0 \\ 0 \\ -1 \end{pmatrix}" in sec and r"\epsilon = 1" in sec
    assert "- lhs `||Res(A) - Res(B)||_inf` = `1.5`" in sec and "- rhs `eps` = `1`" in sec
    assert f"`verify replay {LEMMA_4_1_FILE}`" in sec
    # a surviving claim: budget, seed and the closest margin reached
    sec = section(md, "## Lemma B.2", r"^## ")
    assert "**SURVIVED**" in sec and "budget 1,000" in sec and "closest margin reached" in sec
    assert "`verify lemma B.2 --part main --reading as-printed --seed 0 --budget 1000`" in sec


def test_markdown_shows_enough_digits_for_an_equality(project):
    md = run("report").stdout
    lemma = section(md, "## Lemma 4.2", r"^## ")
    sec = section(lemma, "### part 3, reading “as-printed”", r"^###")
    assert "<= 0 is a violation" in sec  # the strict reading fails at equality
    lhs = re.search(r"^- lhs .* = `([0-9.]+)`$", sec, re.M).group(1)
    rhs = re.search(r"^- rhs .* = `([0-9.]+)`$", sec, re.M).group(1)
    assert lhs == rhs and lhs.startswith("1.718281828459045235360287471352") and len(lhs) >= 40  # e - 1 at 50 digits


def test_latex_report_is_a_document_with_balanced_braces(project):
    r = run("report", "--format", "latex", "-o", "report.tex")
    assert r.exit_code == 0 and r.stdout == ""
    tex = (project / "report.tex").read_text()
    assert tex.startswith(r"\documentclass") and tex.rstrip().endswith(r"\end{document}")
    body = re.sub(r"\\[{}]", "", tex)
    assert body.count("{") == body.count("}")
    assert tex.count(r"\begin{pmatrix}") == tex.count(r"\end{pmatrix}") >= 4
    assert tt(f"verify replay {LEMMA_4_1_FILE}") in tex
    assert tex.count(r"\section{") == len(CLAIMS)


class _Rows(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.external = [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "tr" and "claim-row" in (a.get("class") or ""):
            self.rows.append(a)
        for key in ("src", "href"):
            if a.get(key) and not a[key].startswith("#"):
                self.external.append(a[key])


def test_html_report_is_self_contained_with_a_row_per_check(project):
    r = run("report", "--format", "html", "-o", "report.html")
    assert r.exit_code == 0, r.stderr
    page = (project / "report.html").read_text()
    parser = _Rows()
    parser.feed(page)
    assert parser.external == []
    assert len(parser.rows) == len(CHECKS)
    assert {row["data-claim"] for row in parser.rows} == set(CLAIMS)
    assert "<script src" not in page and "<link" not in page


def test_report_without_a_lock_is_a_usage_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = run("report", "--format", "html")
    assert r.exit_code == 2 and "verify lock" in r.stderr


def test_report_shows_drift(project):
    path = project / "counterexamples/alman-song-2025/4.1/reviewer.json"
    path.write_text(path.read_text().replace('["1"],\n      ["1"],\n      ["-3"]', '["2"],\n      ["0"],\n      ["-2"]'))
    r = run("report")
    assert r.exit_code == 1
    assert "**Drift from the lock**" in r.stdout and "NO LONGER REFUTES" in r.stdout


def test_replay_latex_snippet():
    r = run("replay", ROOT / LEMMA_4_1_FILE, "--format", "latex")
    assert r.exit_code == 1  # still refutes
    tex = r.stdout
    assert r"\paragraph{Counterexample to Lemma 4.1 (part main, reading as-printed).}" in tex
    assert r"A = \begin{pmatrix} 0 \\ 0 \\ -1 \end{pmatrix}" in tex
    assert "$= 1.5$" in tex and r"\texttt{verify replay" in tex


def test_report_typesets_a_counterexample_the_locked_search_finds_now(project):
    """A lock that says 4.1 survives: the report shows the counterexample the search finds afresh."""
    import json

    lock = project / "claims.lock"
    doc = json.loads(lock.read_text())
    e = next(e for e in doc["checks"] if e["claim"] == "4.1")
    e.update(verdict="survived", counterexamples=[])
    lock.write_text(json.dumps(doc))
    r = run("report", "--format", "markdown")
    assert r.exit_code == 1
    sec = section(r.stdout, "## Lemma 4.1", r"^## ")
    sec = sec.split("### reading \u201cadversarial\u201d")[0]  # the as-printed reading only
    assert "**Drift from the lock**" in sec and "finds a counterexample, certified by exact rational arithmetic" in sec
    assert r"\begin{pmatrix}" in sec and "verify check --save" in sec
    assert "No certified counterexample" not in sec
