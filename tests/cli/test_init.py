"""``verify init``: a fresh claim repository whose lock comes from running its example."""

import json
import os
import re
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from verifier._version import __version__
from verifier.config import tomllib
from verifier.scaffold import DISTRIBUTION, package_name

CHECKOUT = Path(__file__).resolve().parents[2]

from .packs_helpers import verify


@pytest.fixture(scope="module")
def scaffold_template(tmp_path_factory):
    """One `verify init` for the module (it runs the example's lock); each test gets a copy."""
    base = tmp_path_factory.mktemp("scaffold")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(base)
        mp.delenv("PYTHONPATH", raising=False)
        r = verify("init", "paper", "--paper", "smith-2024")
    assert r.exit_code == 0, r.output
    return base / "paper"


@pytest.fixture
def scaffold(scaffold_template, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    shutil.copytree(scaffold_template, tmp_path / "paper", symlinks=True)
    return tmp_path / "paper"


def test_scaffold_files_and_a_lock_from_a_real_run(scaffold):
    package = package_name("smith-2024")
    assert package == "smith_2024_claims"
    for name in ("pyproject.toml", "README.md", "claims.lock", ".github/workflows/claims.yml", f"{package}/__init__.py", f"{package}/example.py"):
        text = (scaffold / name).read_text()
        assert "${" not in text, name
    project = tomllib.loads((scaffold / "pyproject.toml").read_text())
    assert project["project"]["entry-points"]["verifier.packs"] == {"smith-2024": package}
    # exactly this tool, pinned: the distribution this checkout builds, at its version
    assert project["project"]["dependencies"] == [f"{DISTRIBUTION}=={__version__}"]
    assert DISTRIBUTION == tomllib.loads((CHECKOUT / "pyproject.toml").read_text())["project"]["name"]
    for name in ("pyproject.toml", ".github/workflows/claims.yml"):  # how to install it before a release exists
        text = (scaffold / name).read_text()
        assert f"{DISTRIBUTION} @ git+https://" in text and "checkout" in text, name
    readme = (scaffold / "README.md").read_text()
    assert "claim-verifier]" not in readme and "pypi.org/project/claim-verifier" not in readme
    assert re.findall(r"\]\((\S+?)\)", readme) == []  # links to nothing: no release page exists yet
    assert project["tool"]["verifier"]["packs"] == [package]
    assert "verify check" in (scaffold / ".github/workflows/claims.yml").read_text()

    lock = json.loads((scaffold / "claims.lock").read_text())
    assert [(e["paper"], e["claim"], e["part"], e["verdict"]) for e in lock["checks"]] == [
        ("smith-2024", "1", "1", "survived"), ("smith-2024", "1", "2", "refuted")]
    [stored] = lock["checks"][1]["counterexamples"]
    x = [Fraction(v) for v in json.loads((scaffold / stored).read_text())["vars"]["x"]]
    assert sum(abs(v) for v in x) ** 2 > sum(v * v for v in x)  # part 2 really fails there


def test_fresh_scaffold_checks_clean_in_place_and_from_elsewhere(scaffold, monkeypatch):
    monkeypatch.chdir(scaffold)
    assert verify("check", "--jobs", 1).exit_code == 0
    r = verify("list")
    assert r.exit_code == 0 and {line.split("\t")[0] for line in r.stdout.splitlines()} == {"smith_2024_claims"}
    r = verify("lemma", "1", "--part", "2", "--budget", 40000, "--json")
    assert r.exit_code == 1 and json.loads(r.stdout)[0]["verdict"] == "refuted"
    monkeypatch.chdir(scaffold.parent)
    r = verify("check", "--pack", scaffold / "smith_2024_claims", "--lock", scaffold / "claims.lock", "--jobs", 1)
    assert r.exit_code == 0, r.output


def test_pytest_claims_passes_on_the_fresh_scaffold(scaffold):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--claims"], cwd=scaffold,
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0 and "2 passed" in r.stdout, r.stdout + r.stderr


@pytest.mark.slow
def test_the_scaffold_installs_this_verifier_in_a_fresh_venv_and_checks_clean(scaffold, tmp_path):
    """What an author's CI does with a new claim repository, from nothing: a new venv, this
    checkout as the verifier the scaffold pins (no release on the index yet: the comment in its
    pyproject.toml says to install a checkout first), the scaffold, then `verify check`."""
    venv = tmp_path / "venv"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = str(venv / "bin" / "python")

    def run(*args, cwd=scaffold):
        return subprocess.run(list(args), cwd=cwd, env=env, capture_output=True, text=True, timeout=900)

    r = run(python, "-m", "pip", "install", "-q", "-e", str(CHECKOUT))
    assert r.returncode == 0, r.stdout + r.stderr
    r = run(python, "-m", "pip", "install", "-q", "-e", ".")  # the pin is met by the checkout: nothing else to fetch for it
    assert r.returncode == 0, r.stdout + r.stderr
    r = run(python, "-m", "pip", "show", DISTRIBUTION)
    assert f"Version: {__version__}" in r.stdout and str(CHECKOUT) in r.stdout, r.stdout
    r = run(str(venv / "bin" / "verify"), "check", "--jobs", "1")
    assert r.returncode == 0, r.stdout + r.stderr


def test_init_and_the_readme_suggest_the_same_next_step(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = verify("init", "mypaper", "--paper", "smith-2024")
    assert r.exit_code == 0, r.output
    [step] = re.findall(r"next: (.+?);", " ".join(r.stderr.split()))
    readme = (CHECKOUT / "README.md").read_text()
    assert f"verify init mypaper --paper smith-2024 && {step}" in readme, step


def test_non_empty_folder_is_refused_unless_forced(scaffold):
    r = verify("init", scaffold, "--paper", "smith-2024")
    assert r.exit_code == 2 and "is not empty" in r.stderr and "--force" in r.stderr
    (scaffold / "smith_2024_claims" / "example.py").write_text("edited\n")
    assert verify("init", scaffold, "--paper", "smith-2024", "--force").exit_code == 0
    assert "claim = Claim(" in (scaffold / "smith_2024_claims" / "example.py").read_text()


@pytest.mark.parametrize("slug", ["Smith 2024", "2024-smith", "smith--2024", "smith_2024", ""])
def test_bad_slug_is_a_usage_error(tmp_path, slug):
    r = verify("init", tmp_path / "x", "--paper", slug)
    assert r.exit_code == 2 and "a slug is lowercase letters" in r.stderr and "Traceback" not in r.output
    assert not (tmp_path / "x").exists()


def test_target_that_is_a_file(tmp_path):
    (tmp_path / "f").write_text("")
    r = verify("init", tmp_path / "f", "--paper", "smith-2024")
    assert r.exit_code == 2 and "Traceback" not in r.output
