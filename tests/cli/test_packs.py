"""Claim packs from outside: ``--pack DIR``, ``[tool.verifier]``, installed entry points, bad packs.

Every pack is written into a temporary folder by the test, with no ``PYTHONPATH`` and no
file named ``lemmas`` unless the test is about that name.
"""

import json
import subprocess
import sys
import textwrap

import pytest

from .packs_helpers import pack_constants, verify, violates, write_module_folder, write_package_pack

BUDGET = 40000  # the lock default; smaller budgets can stay at n = 1 for several chunks


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    return tmp_path


@pytest.mark.parametrize("seed", [3, 11])
def test_pack_folder_listed_searched_locked_checked_reported(workdir, seed):
    paper = f"outside-{seed}"
    write_package_pack(workdir, "paperpack", paper, seed)
    _, c = pack_constants(seed)

    r = verify("list", "--pack", "paperpack")
    assert r.exit_code == 0, r.output
    assert "pack paperpack" in r.stderr and "norms 1" in r.stderr and "norms 2" in r.stderr
    assert "alman-song-2025" not in r.stderr  # --pack names the packs a command runs
    listed = json.loads(verify("list", "--pack", "paperpack", "--json").stdout)
    assert {(i["pack"], i["paper"], i["id"]) for i in listed} == {("paperpack", paper, "1"), ("paperpack", paper, "2")}

    r = verify("lemma", "1", "--pack", "paperpack", "--budget", BUDGET, "--seed", seed, "--json")
    assert r.exit_code == 1, r.output
    [item] = json.loads(r.stdout)
    assert item["verdict"] == "refuted" and item["certified"] is True
    assert violates(item["counterexample"]["vars"], c)
    r = verify("lemma", "2", "--pack", "paperpack", "--budget", BUDGET, "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)[0]["verdict"] == "survived"

    r = verify("lock", "--pack", "paperpack", "--budget", BUDGET, "--jobs", 1)
    assert r.exit_code == 0, r.output
    lock = json.loads((workdir / "claims.lock").read_text())
    assert [(e["paper"], e["claim"], e["verdict"]) for e in lock["checks"]] == [(paper, "1", "refuted"), (paper, "2", "survived")]
    [stored] = lock["checks"][0]["counterexamples"]
    assert stored.startswith(f"counterexamples/{paper}/1/")
    assert violates(json.loads((workdir / stored).read_text())["vars"], c)

    assert verify("check", "--pack", "paperpack", "--jobs", 1).exit_code == 0
    assert verify("replay", workdir / stored, "--pack", "paperpack").exit_code == 1  # still refutes
    r = verify("report", "--pack", "paperpack", "--jobs", 1)
    assert r.exit_code == 0, r.output
    assert "Lemma 1 — norms 1" in r.stdout and "REFUTED" in r.stdout and "SURVIVED" in r.stdout
    assert verify("show", f"{paper}:2", "--pack", "paperpack").exit_code == 0
    assert not any(p.name == "lemmas" for p in workdir.rglob("*"))


def test_project_table_sets_packs_lock_and_search_defaults(workdir):
    write_package_pack(workdir, "paperpack", "table-paper", 5)
    (workdir / "pyproject.toml").write_text(textwrap.dedent("""
        [tool.verifier]
        packs = ["paperpack"]
        lock = "evidence/claims.lock"
        budget = 2500
        dps = 20
    """))
    assert verify("lock", "--jobs", 1).exit_code == 0
    search = json.loads((workdir / "evidence/claims.lock").read_text())["search"]
    assert (search["budget"], search["dps"]) == (2500, 20)
    assert verify("check", "--jobs", 1).exit_code == 0
    assert verify("lock", "--jobs", 1, "--budget", 2600).exit_code == 0  # an option wins over the table
    assert json.loads((workdir / "evidence/claims.lock").read_text())["search"]["budget"] == 2600
    r = verify("list")
    assert "pack paperpack" in r.stderr and "alman-song-2025" not in r.stderr


@pytest.mark.parametrize("table, fragment", [
    ("packs = 3", "packs must be a list"),
    ("budget = 'many'", "budget must be an integer"),
    ("dps = 5", "dps must be an integer >= 15"),
    ("seeds = 1", "unknown key 'seeds'"),
])
def test_bad_project_table_is_one_line(workdir, table, fragment):
    (workdir / "pyproject.toml").write_text(f"[tool.verifier]\n{table}\n")
    r = verify("list")
    assert r.exit_code == 2
    assert fragment in r.stderr and "pyproject.toml" in r.stderr and "Traceback" not in r.output
    assert len(r.stderr.strip().splitlines()) == 1


def pytest_in(folder, *args):
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args], cwd=folder,
                          capture_output=True, text=True, timeout=300,
                          env={k: v for k, v in __import__("os").environ.items() if k != "PYTHONPATH"})


def test_pytest_claims_runs_a_pack_by_path_and_by_table(workdir):
    write_package_pack(workdir, "paperpack", "pytest-paper", 7)
    assert verify("lock", "--pack", "paperpack", "--budget", BUDGET, "--jobs", 1).exit_code == 0
    r = pytest_in(workdir, "--claims", "--pack", "paperpack", "-vv")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 passed" in r.stdout and "claims.lock::1 part main [as-printed] PASSED" in r.stdout
    (workdir / "pyproject.toml").write_text('[tool.verifier]\npacks = ["paperpack"]\n')
    r = pytest_in(workdir, "--claims")
    assert r.returncode == 0 and "2 passed" in r.stdout, r.stdout + r.stderr
    r = pytest_in(workdir, "--claims", "--pack", "nowhere")
    assert r.returncode == 4 and "pack nowhere" in r.stderr and "no such file or directory" in r.stderr


def test_a_folder_named_lemmas_neither_hides_nor_is_hidden(workdir):
    """The user's own ``lemmas/`` (a folder of modules) next to the built-in pack, which is also in a package named lemmas."""
    write_module_folder(workdir, "lemmas", "alman-song-2025-replica", 2)
    r = verify("list", "--pack", "lemmas", "--pack", "alman-song-2025")
    assert r.exit_code == 0, r.output
    assert "pack lemmas" in r.stderr and "pack alman-song-2025" in r.stderr
    assert verify("show", "1", "--pack", "lemmas").exit_code == 0
    assert verify("show", "4.1", "--pack", "lemmas", "--pack", "alman-song-2025").exit_code == 0
    import lemmas.alman_song  # the installed package is untouched by the folder of the same name

    assert "alman_song" in lemmas.alman_song.__name__


def test_a_py_file_is_a_pack(workdir):
    n_max, c = pack_constants(4)
    from .packs_helpers import HELPERS, IMPORTS, claim_source

    (workdir / "one_claim.py").write_text(IMPORTS + HELPERS + f"\nclaim = {claim_source('9', 'file-paper', n_max, c)}\n")
    r = verify("lemma", "9", "--pack", "one_claim.py", "--budget", BUDGET, "--json")
    assert r.exit_code == 1 and violates(json.loads(r.stdout)[0]["counterexample"]["vars"], c)


def test_ambiguous_short_id_lists_the_qualified_ids(workdir):
    write_package_pack(workdir, "first", "first-paper", 1)
    write_package_pack(workdir, "second", "second-paper", 2)
    r = verify("show", "1", "--pack", "first", "--pack", "second")
    assert r.exit_code == 2
    assert "first-paper:1" in r.stderr and "second-paper:1" in r.stderr and "Traceback" not in r.output
    assert verify("show", "second-paper:1", "--pack", "first", "--pack", "second").exit_code == 0
    assert verify("show", "second:1", "--pack", "first", "--pack", "second").exit_code == 0  # the pack's name as prefix
    r = verify("show", "third-paper:1", "--pack", "first", "--pack", "second")
    assert r.exit_code == 2 and "papers: first-paper, second-paper" in r.stderr
    r = verify("list", "--pack", "first", "--pack", "second")
    assert r.stderr.index("pack first") < r.stderr.index("pack second")


BAD_MODULES = {
    "import": ("broken.py", "import no_such_module_anywhere\n", "bad.broken: ModuleNotFoundError: No module named 'no_such_module_anywhere' (broken.py, line 1)"),
    "syntax": ("broken.py", "claim = (\n", "bad.broken: SyntaxError"),
    "malformed claim": ("broken.py", "from verifier import Claim, Dim, Part, Vector\n"
                        "claim = Claim(id='5', title='t', statement='s', dims=[Dim('n', 1, 2)], variables=[Vector('x', 'm')],\n"
                        "              parts=[Part('main', lhs=lambda ctx, v: v.x, rhs=lambda ctx, v: v.x)])\n",
                        "bad.broken: ClaimDefinitionError: claim 5: variable x uses unknown dim 'm' (broken.py, line 2)"),
}


@pytest.mark.parametrize("case", sorted(BAD_MODULES))
def test_bad_module_is_one_line_and_the_other_packs_still_list(workdir, case):
    write_package_pack(workdir, "good", "good-paper", 3)
    write_package_pack(workdir, "bad", "bad-paper", 4)
    name, source, message = BAD_MODULES[case]
    (workdir / "bad" / name).write_text(source)
    r = verify("list", "--pack", "good", "--pack", "bad")
    assert r.exit_code == 2
    assert f"error: pack bad: {message}" in r.stderr and "Traceback" not in r.output
    assert "pack good" in r.stderr and "norms 1" in r.stderr  # the rest still listed
    r = verify("lemma", "1", "--pack", "good", "--pack", "bad", "--budget", 100)
    assert r.exit_code == 2 and f"pack bad: {message}" in r.stderr and "Traceback" not in r.output
    assert verify("all", "--pack", "good", "--pack", "bad", "--budget", 100).exit_code == 2


def test_two_claims_with_one_id_in_a_pack(workdir):
    write_package_pack(workdir, "dup", "dup-paper", 3)
    (workdir / "dup" / "again.py").write_text((workdir / "dup" / "more" / "second.py").read_text().replace("..norms", ".norms"))
    r = verify("list", "--pack", "dup")
    assert r.exit_code == 2
    assert "error: pack dup: dup.more.second: claim id '2' is also defined in dup.again" in r.stderr
    assert "norms 2" in r.stderr  # the first definition is kept and listed


@pytest.mark.parametrize("make, fragment", [
    (lambda d: None, "pack nowhere: "),
    (lambda d: (d / "nowhere").write_text("x"), "not a Python file (.py) or a folder"),
    (lambda d: (d / "nowhere").mkdir(), "no claims found"),
])
def test_unusable_pack_path_is_one_line(workdir, make, fragment):
    make(workdir)
    r = verify("lemma", "1", "--pack", "nowhere")
    assert r.exit_code == 2 and fragment in r.stderr and "Traceback" not in r.output
    assert len(r.stderr.strip().splitlines()) == 1


def test_installed_pack_is_found_through_the_entry_point(workdir, monkeypatch):
    """An installed distribution (a dist-info with the entry point, on sys.path as pip leaves it)."""
    site = workdir / "site"
    write_package_pack(site, "outside_pack_claims", "installed-paper", 6)
    info = site / "outside_pack_claims-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: outside-pack-claims\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[verifier.packs]\ninstalled-paper = outside_pack_claims\n")
    monkeypatch.syspath_prepend(str(site))
    project = workdir / "project"
    project.mkdir()
    monkeypatch.chdir(project)

    r = verify("list")
    assert r.exit_code == 0, r.output
    assert "pack alman-song-2025" in r.stderr and "pack installed-paper" in r.stderr
    _, c = pack_constants(6)
    r = verify("lemma", "installed-paper:1", "--budget", BUDGET, "--json")
    assert r.exit_code == 1 and violates(json.loads(r.stdout)[0]["counterexample"]["vars"], c)
    (project / "pyproject.toml").write_text('[tool.verifier]\npacks = ["installed-paper"]\n')
    assert verify("lock", "--budget", BUDGET, "--jobs", 1).exit_code == 0
    assert verify("check", "--jobs", 1).exit_code == 0
    assert verify("report", "--jobs", 1).exit_code == 0


def test_one_lock_refuses_two_papers_sharing_an_id(workdir):
    write_package_pack(workdir, "first", "first-paper", 1)
    write_package_pack(workdir, "second", "second-paper", 2)
    r = verify("lock", "--pack", "first", "--pack", "second", "--budget", 100)
    assert r.exit_code == 2 and "claim id '1' is in papers first-paper and second-paper" in r.stderr
    assert not (workdir / "claims.lock").exists()
    assert verify("lock", "--pack", "first", "--lock", "first.lock", "--budget", BUDGET, "--jobs", 1).exit_code == 0
    assert verify("lock", "--pack", "second", "--lock", "second.lock", "--budget", BUDGET, "--jobs", 1).exit_code == 0
    assert verify("check", "--pack", "second", "--lock", "second.lock", "--jobs", 1).exit_code == 0
    r = pytest_in(workdir, "--claims", "--pack", "first", "--pack", "second", "--claims-lock", "first.lock")
    assert r.returncode == 4 and "is in papers first-paper and second-paper" in r.stderr


def test_replay_finds_the_claim_in_the_paper_the_file_names(workdir):
    write_package_pack(workdir, "first", "first-paper", 0)  # c = 7/4
    write_package_pack(workdir, "second", "second-paper", 3)  # c = 5/4: replayed against the other, rhs would differ
    r = verify("lemma", "second-paper:1", "--pack", "first", "--pack", "second", "--budget", BUDGET, "--save")
    assert r.exit_code == 1, r.output
    [stored] = (workdir / "counterexamples" / "second-paper" / "1").glob("*.json")
    r = verify("replay", stored, "--pack", "first", "--pack", "second", "--json")
    assert r.exit_code == 1 and json.loads(r.stdout)["values_match"] is True
    # the same id in first-paper is a different claim: with only that pack the file names no known claim
    r = verify("replay", stored, "--pack", "first")
    assert r.exit_code == 2 and "Traceback" not in r.output
