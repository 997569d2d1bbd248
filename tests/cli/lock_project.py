"""A throwaway project (stored counterexamples + a lock made by ``verify lock``) for the CI commands.

The lock is written once per session with a small budget by the command under test, then
copied for each test, so a test may edit or break its copy freely.
"""

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from lemmas import REGISTRY
from verifier.cli import main

ROOT = Path(__file__).resolve().parents[2]
BUDGET = 1000
# The claims these tests were written against; claims added to the pack later are left out
# (``--claim``), so the tests stay fast and their expectations stay true as the pack grows.
CLAIMS = ("3.3", "4.1", "4.2", "B.2")
CHECKS = [ch.key for c in REGISTRY if c.id in CLAIMS for ch in c.checks()]
SELECT = [a for c in CLAIMS for a in ("--claim", c)]
K_SELECT = " or ".join(CLAIMS)  # the same selection as a pytest -k expression


def run(*args):
    """``verify ARGS``; lock, check and report get the ``--claim`` selection above."""
    args = [str(a) for a in args]
    if args and args[0] in ("lock", "check", "report"):
        args += SELECT
    return CliRunner().invoke(main, args)


def run_everything(*args):
    """``verify ARGS`` on the whole registry."""
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="session")
def locked_template(tmp_path_factory):
    base = tmp_path_factory.mktemp("template")
    shutil.copytree(ROOT / "counterexamples", base / "counterexamples")
    r = run("lock", "--lock", base / "claims.lock", "--store", base / "counterexamples", "--budget", BUDGET)
    assert r.exit_code == 0, r.stderr
    return base


@pytest.fixture
def project(locked_template, tmp_path, monkeypatch):
    """A copy of the template as the working directory (so the default paths apply)."""
    dest = tmp_path / "paper"
    shutil.copytree(locked_template, dest)
    monkeypatch.chdir(dest)
    return dest


def lock_doc(project: Path) -> dict:
    return json.loads((project / "claims.lock").read_text())


def snapshot(folder: Path) -> dict:
    """Every file's bytes and mtime: proof that a command wrote nothing."""
    return {p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.rglob("*")) if p.is_file()}
