"""Evidence that says what it is: a stored file means one thing to a reviewer and to the tool.

Each test writes its own pack, locks it with the command under test, then edits what a hostile
or careless author would: a stored value, a digit of another script, a key named twice, a
claim id typed in two Unicode forms.  What a user must get: drift (exit 1) where the evidence
no longer says what its inputs give, a one-line error naming the file and the field (exit 2)
where it is no evidence at all, and never a value in a report that replay did not recompute.
"""

import hashlib
import json
import shutil
import textwrap
import unicodedata
from pathlib import Path

import pytest
from verifier.evidence import parse_exact

from .packs_helpers import locked_project, one_line_error, verify

CLAIM = textwrap.dedent("""
    from verifier import Claim, Dim, Part, Vector

    claim = Claim(id={cid!r}, title="sum", paper={paper!r}, statement="sum x <= 0",
                  dims=[Dim("n", 1, 2)], variables=[Vector("x", "n")],
                  parts=[Part("main", lhs=lambda ctx, v: ctx.sum_all(v.x), rhs=lambda ctx, v: 0)])
""")


def write_pack(project: Path, claims: dict[str, tuple[str, str]]) -> None:
    """A package ``evidencepack`` with a module per claim: {module: (claim id, paper)}."""
    pack = project / "evidencepack"
    pack.mkdir(parents=True, exist_ok=True)
    for module, (cid, paper) in claims.items():
        (pack / f"{module}.py").write_text(CLAIM.format(cid=cid, paper=paper), encoding="utf-8")
    (project / "pyproject.toml").write_text('[tool.verifier]\npacks = ["evidencepack"]\n')


@pytest.fixture(scope="module")
def locked_template(tmp_path_factory):
    return locked_project(tmp_path_factory.mktemp("evidence") / "project", "evidencepack", CLAIM.format(cid="s1", paper="evidence-paper"),
                          "--budget", 2000, "--prove-time", 0, "--jobs", 1)


@pytest.fixture
def project(locked_template, tmp_path, monkeypatch):
    dest = tmp_path / "project"
    shutil.copytree(locked_template, dest)
    monkeypatch.chdir(dest)
    return dest


def stored_file(project: Path) -> Path:
    [path] = (project / "counterexamples").rglob("*.json")
    return path


def rehash(project: Path) -> None:
    """What a hostile author does after editing evidence: pin the new bytes in the lock."""
    lock = json.loads((project / "claims.lock").read_text())
    for entry in lock["checks"]:
        for name in entry.get("counterexamples", []):
            entry["sha256"][name] = hashlib.sha256((project / name).read_bytes()).hexdigest()
    (project / "claims.lock").write_text(json.dumps(lock, indent=2))


def edit_stored(project: Path, change) -> Path:
    path = stored_file(project)
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")
    rehash(project)
    return path


# ------------------------------------------------------------------------------ stored values are recomputed
def test_a_stored_value_its_inputs_do_not_give_is_drift_and_never_shown(project):
    true_lhs = json.loads(stored_file(project).read_text())["lhs"]
    assert parse_exact(true_lhs) != 1000
    edit_stored(project, lambda d: d.update(lhs="1000"))

    r = verify("check", "--json", "--jobs", 1)
    assert r.exit_code == 1, r.output
    [item] = [i for i in json.loads(r.stdout) if i["counterexamples"]]
    assert item["status"] == "drift" and "not what its inputs give" in item["change"]
    assert f"lhs stored 1000, recomputed {true_lhs}" in item["detail"]
    assert item["counterexamples"][0]["values_match"] is False

    r = verify("report", "--format", "markdown", "--summary")
    assert r.exit_code == 1 and "1000" not in r.stdout, r.output
    assert "lhs" in r.stderr and "recomputed" in r.stderr

    r = verify("replay", stored_file(project))  # still refutes; the file's word is named as wrong
    assert r.exit_code == 1 and "recomputed" in " ".join(r.stderr.split())


def test_the_summary_shows_recomputed_values(project):
    doc = json.loads(stored_file(project).read_text())
    r = verify("report", "--format", "markdown", "--summary")
    assert r.exit_code == 0, r.output
    lhs, rhs = (float(parse_exact(doc[f])) for f in ("lhs", "rhs"))
    assert f"{lhs:.8g} vs {rhs:.8g}" in r.stdout


def test_a_value_written_another_way_is_the_same_value(project):
    """"2" and "2.0" and "4/2" name one number: a reformatted file is not drift (the hash is what pins bytes)."""
    def as_fraction(d):
        q = parse_exact(d["margin"])
        d["margin"] = f"{q.numerator * 3}/{q.denominator * 3}"

    edit_stored(project, as_fraction)
    assert verify("check", "--jobs", 1).exit_code == 0


# ------------------------------------------------------------------------------ numbers are ASCII
@pytest.mark.parametrize("field, value", [("vars.x", "\u09ea"), ("vars.x", "\uff11"), ("vars.x", "1_0"), ("lhs", "\u0663"),
                                          ("margin", "-\u09ea")])
def test_a_digit_of_another_script_is_refused_naming_file_and_field(project, field, value):
    def put(d):
        if field == "vars.x":
            d["vars"]["x"] = [value] * len(d["vars"]["x"])
        else:
            d[field] = value

    path = edit_stored(project, put)
    r = verify("replay", path)
    one_line_error(r, path.name, f"field '{field}'", "ASCII")
    r = verify("check", "--json", "--jobs", 1)
    assert r.exit_code == 2 and "ASCII" in r.stdout and "Traceback" not in r.output


# ------------------------------------------------------------------------------ no key twice
def test_a_key_twice_in_a_stored_file_is_refused(project):
    path = stored_file(project)
    text = path.read_text()
    path.write_text(text.replace('"lhs": ', '"lhs": "1000",\n  "lhs": ', 1))
    rehash(project)
    one_line_error(verify("replay", path), path.name, "field 'lhs'", "named twice")
    nested = text.replace('"vars": {', '"vars": {\n    "x": ["7"],', 1)
    path.write_text(nested)
    one_line_error(verify("replay", path), path.name, "field 'vars.x'", "named twice")


def test_a_key_twice_in_the_lock_is_refused(project):
    lock = project / "claims.lock"
    text = lock.read_text()
    lock.write_text(text.replace('"verdict": "refuted"', '"verdict": "survived", "verdict": "refuted"', 1))
    one_line_error(verify("check", "--jobs", 1), "claims.lock", "verdict", "named twice")
    lock.write_text(text.replace('"seed": 0', '"seed": 0, "seed": 1', 1))
    one_line_error(verify("check", "--jobs", 1), "claims.lock", "field 'search.seed'", "named twice")


# ------------------------------------------------------------------------------ ids name one folder on every file system
@pytest.mark.parametrize("first, second", [
    (("\u00e91.1", "evidence-paper"), ("e\u03011.1", "evidence-paper")),  # é1.1 composed (NFC) and decomposed (NFD)
    (("Ab.1", "evidence-paper"), ("aB.1", "evidence-paper")),  # differing only in case
    (("1.1", "Evidence-Paper"), ("1.1", "evidence-paper")),  # papers differing only in case
])
def test_two_claims_that_would_share_a_folder_do_not_both_load(tmp_path, monkeypatch, first, second):
    write_pack(tmp_path, {"one": first, "two": second})
    monkeypatch.chdir(tmp_path)
    r = verify("list")
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert "two" in r.stderr and ("folder" in r.stderr or "also defined" in r.stderr), r.stderr


def test_a_decomposed_id_is_stored_under_its_composed_folder(tmp_path, monkeypatch):
    nfd = "e\u03011.1"
    write_pack(tmp_path, {"one": (nfd, "evidence-paper")})
    monkeypatch.chdir(tmp_path)
    r = verify("lemma", "evidence-paper:" + nfd, "--budget", 2000, "--save", "--prove-time", 0)
    assert r.exit_code == 1, r.output
    [folder] = (tmp_path / "counterexamples" / "evidence-paper").iterdir()
    assert folder.name == unicodedata.normalize("NFC", nfd) != nfd
