"""``verify report --format latex`` compiled with pdflatex: no errors, no line running off the page.

Skips when pdflatex is absent outside CI; under CI (env CI set) its absence is a failure, and
.ci/run installs Debian's texlive-latex-base / texlive-latex-recommended.
"""

import os
import re
import shutil
import subprocess

import pytest

from verifier.reporters.latex import escape, tt

from .lock_project import ROOT, run_everything

# Lemma 5.1's counterexamples carry 26-digit fractions and 4x4 matrices; 3.3 and 4.1 have
# statements full of ||, <= and _; D.6's displayed statement is two formulas on one line.
WIDE_CLAIMS = ("3.3", "4.1", "5.1", "D.6")
OVERFULL_LIMIT_PT = 5.0


def _need(tool):
    if shutil.which(tool) is None:
        if os.environ.get("CI"):
            pytest.fail(f"{tool} is missing under CI: .ci/run must install it")
        pytest.skip(f"{tool} is not installed (apt-get install texlive-latex-base texlive-latex-recommended poppler-utils)")


def test_plain_text_keeps_every_character_it_was_given():
    # characters the default text font would print as other glyphs are set as themselves
    assert escape("||A||_1 <= 2 > 0") == r"\ensuremath{|}\ensuremath{|}A\ensuremath{|}\ensuremath{|}\_1 \ensuremath{<}= 2 \ensuremath{>} 0"
    assert escape("--format") == "-{}-format" and escape("a `b`") == r"a {\ttfamily\char96}b{\ttfamily\char96}"
    assert escape("Lemma 4.1 \u2014 \u201cx\u201d") == "Lemma 4.1 --- ``x''"
    assert "\\allowbreak" in tt("counterexamples/x/y.json") and tt("a_b") .startswith(r"\texttt{a{\char95}")


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    _need("pdflatex")
    _need("pdftotext")
    out = tmp_path_factory.mktemp("latex")
    args = ["report", "--format", "latex", "-o", out / "report.tex", "--lock", ROOT / "claims.lock"]
    for cid in WIDE_CLAIMS:
        args += ["--claim", cid]
    r = run_everything(*args)
    assert r.exit_code == 0, r.stderr
    proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "report.tex"],
                          cwd=out, capture_output=True, text=True, timeout=120)
    log = (out / "report.log").read_text(errors="replace")
    assert proc.returncode == 0, log[-3000:]
    text = subprocess.run(["pdftotext", "-layout", "report.pdf", "-"], cwd=out, capture_output=True, text=True, check=True).stdout
    return log, text


def test_report_compiles_without_errors_or_wide_overfull_boxes(compiled):
    log, _ = compiled
    assert not re.search(r"^! ", log, re.M)
    widths = [float(w) for w in re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide\)", log)]
    assert all(w <= OVERFULL_LIMIT_PT for w in widths), widths


def test_the_pdf_shows_statements_and_commands_as_typed(compiled):
    _, text = compiled
    flat = re.sub(r"\s+", " ", text)
    assert "¡" not in flat and "¿" not in flat
    assert "||AB||" in flat and "<=" in flat  # Fact 3.3 as printed
    assert "verify report --format latex" in flat
    # Lemma 5.1 as printed: both 26-digit denominators are there in full
    flat_digits = re.sub(r"\s", "", text)
    assert "38685626227668133590597632" in flat_digits and "773712524553362671" in flat_digits


def test_replay_snippet_of_an_85_digit_value_compiles_within_the_margins(tmp_path):
    """`verify replay --format latex` pasted into a plain amsmath document (Lemma 5.2's eps has 85 digits)."""
    _need("pdflatex")
    r = run_everything("replay", ROOT / "counterexamples/alman-song-2025/5.2/main-as-printed-seed0.json", "--format", "latex")
    assert r.exit_code == 1
    (tmp_path / "snippet.tex").write_text("\\documentclass{article}\n\\usepackage{amsmath}\n\\begin{document}\n"
                                          + r.stdout + "\\end{document}\n")
    proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "snippet.tex"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    log = (tmp_path / "snippet.log").read_text(errors="replace")
    assert proc.returncode == 0, log[-2000:]
    widths = [float(w) for w in re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide\)", log)]
    assert all(w <= OVERFULL_LIMIT_PT for w in widths), widths
