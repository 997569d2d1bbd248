"""``verify report --coq``: the report says, per counterexample, whether coqc accepted its proof.

Skips when coqc is absent outside CI; under CI (env CI set) its absence is a failure.
"""

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from verifier.cli import main
from verifier.lock import read as read_lock

from .test_coq import coqc  # noqa: F401  (fixture: skips without coqc, fails under CI)

ROOT = Path(__file__).resolve().parents[2]
CLAIM = "4.1"
EDITED = "counterexamples/alman-song-2025/4.1/reviewer.json"


def _files_of_claim(lock_path: Path) -> list[str]:
    return [f for e in read_lock(lock_path).entries if e.claim == CLAIM for f in e.counterexamples]


def _report(*args):
    return CliRunner().invoke(main, ["report", "--claim", CLAIM, *[str(a) for a in args]])


def _markdown_status(text: str) -> dict[str, str | None]:
    """Each cited file's ``- Coq:`` line, read from the bullet list that follows its replay command."""
    out = {}
    for m in re.finditer(r"^- replay: `verify replay (\S+)`\n(?:- Coq: (.*)\n)?", text, re.M):
        out[m.group(1)] = m.group(2)
    return out


@pytest.mark.parametrize("fmt", ["markdown", "html"])
def test_report_coq_says_every_file_of_the_claim_is_kernel_checked(coqc, monkeypatch, fmt):
    monkeypatch.chdir(ROOT)
    r = _report("--coq", "--format", fmt, "--jobs", 2)
    assert r.exit_code == 0, r.stderr
    files = _files_of_claim(ROOT / "claims.lock")
    assert files
    if fmt == "markdown":
        assert _markdown_status(r.stdout) == {f: _checked(f) for f in files}
    else:
        for f in files:
            assert (f"<dt>replay</dt><dd><code>verify replay {f}</code></dd>"
                    f"<dt>Coq</dt><dd>{_checked(f)}</dd>") in r.stdout
        assert r.stdout.count("kernel-checked by Coq (coqc)") == len(files)


def _checked(file: str) -> str:
    """The report's line for a file coqc accepted: the statement is the formula the lock pins beside it."""
    return f"kernel-checked by Coq (coqc); the statement is the pinned formula {file.removesuffix('.json')}.formula"


def test_report_without_coq_shows_nothing_new_and_runs_no_coqc(monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("PATH", str(tmp_path))  # a coqc run would fail: there is none on this PATH
    r = _report("--format", "markdown")
    assert r.exit_code == 0, r.stderr
    status = _markdown_status(r.stdout)
    assert set(status) == set(_files_of_claim(ROOT / "claims.lock"))
    assert set(status.values()) == {None}
    assert "Coq" not in r.stdout and "Coq" not in r.stderr


def test_report_coq_without_coqc_is_a_one_line_usage_error(monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("PATH", str(tmp_path))
    r = _report("--coq", "--format", "markdown")
    assert r.exit_code == 2
    assert r.stderr.strip().splitlines()[-1].startswith("error: coqc not found: install Coq")
    assert "Traceback" not in r.stderr


@pytest.fixture
def edited_project(tmp_path, monkeypatch):
    """A copy of the project whose reviewer counterexample to 4.1 no longer refutes (eps raised to 5)."""
    shutil.copytree(ROOT / "counterexamples", tmp_path / "counterexamples")
    shutil.copy(ROOT / "claims.lock", tmp_path / "claims.lock")
    path = tmp_path / EDITED
    doc = json.loads(path.read_text())
    doc["vars"]["eps"] = "5"
    path.write_text(json.dumps(doc))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_an_edited_file_is_named_not_a_refutation_in_every_format(coqc, edited_project):
    files = _files_of_claim(edited_project / "claims.lock")
    assert EDITED in files
    md = _report("--coq", "--format", "markdown")
    assert md.exit_code == 1, md.stderr  # the drift of the edited file
    status = _markdown_status(md.stdout)
    assert status.pop(EDITED).startswith("not a refutation: its formula, evaluated exactly at the stored values, ")
    assert status == {f: _checked(f) for f in files if f != EDITED}
    html = _report("--coq", "--format", "html")
    assert html.stdout.count("<dt>Coq</dt><dd>not a refutation: ") == 1
    latex = _report("--coq", "--format", "latex", "-o", edited_project / "report.tex")
    tex = (edited_project / "report.tex").read_text()
    assert latex.exit_code == 1 and tex.count(r"\item Coq: not a refutation: ") == 1
    assert tex.count(r"\item Coq: kernel-checked by Coq (coqc)") == len(files) - 1
    if shutil.which("pdflatex"):
        proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "report.tex"],
                              cwd=edited_project, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stdout[-2000:]
