"""Someone else's pack and someone else's lock: the counterexample store is a folder nothing escapes.

Every hostile pack, lock and link is made by the test.  What a user must get each time: a
one-line error naming the id, file or field (exit 2), or drift (exit 1), and nothing written
or read outside the store.
"""

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from verifier.cli import main
from verifier.limits import LimitError, MAX_NAME_CHARS, check_name

from .lock_project import ROOT
from .packs_helpers import one_line_error, verify

STORED_4_1 = ROOT / "counterexamples" / "alman-song-2025" / "4.1"


HOSTILE_CLAIM = textwrap.dedent("""
    from verifier import Claim, Dim, Part, Vector

    claim = Claim(id={cid!r}, title="hostile", paper={paper!r}, statement="sum x <= 0",
                  dims=[Dim("n", 1, 2)], variables=[Vector("x", "n")],
                  parts=[Part({part!r}, lhs=lambda ctx, v: ctx.sum_all(v.x), rhs=lambda ctx, v: 0)])
""")


def hostile_pack(folder: Path, cid="x", paper="hostile-paper", part="main") -> Path:
    pack = folder / "hostilepack"
    pack.mkdir(parents=True, exist_ok=True)
    (pack / "claim.py").write_text(HOSTILE_CLAIM.format(cid=cid, paper=paper, part=part))
    return pack


# ------------------------------------------------------------------------------ names become paths only after validation
@pytest.mark.parametrize("cid, paper, part, needle", [
    ("../../../rt-escaped", "hostile-paper", "main", "path separator"),
    ("/tmp/rt-absolute", "hostile-paper", "main", "path separator"),
    ("..", "hostile-paper", "main", "not a folder name"),
    ("x", "../../outside", "main", "path separator"),
    ("x", "..", "main", "not a folder name"),
    ("a\nb", "hostile-paper", "main", "control character"),
    ("x" * (MAX_NAME_CHARS + 1), "hostile-paper", "main", "longer than the limit"),
    ("x", "hostile-paper", "main\x1b[2J", "control character"),
])
def test_an_id_that_cannot_be_stored_is_a_definition_error_naming_it(tmp_path, monkeypatch, cid, paper, part, needle):
    monkeypatch.chdir(tmp_path)
    pack = hostile_pack(tmp_path, cid, paper, part)
    store = tmp_path / "s1" / "s2" / "store"
    r = verify("lemma", cid, "--pack", pack, "--save", "--store", store, "--budget", 2000)
    one_line_error(r, "hostilepack", needle)
    assert repr(cid)[:40] in r.stderr or repr(paper) in r.stderr or repr(part) in r.stderr
    # nothing was written, inside the store or next to it
    assert not (tmp_path / "s1").exists() and not (tmp_path / "rt-escaped").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hostilepack"]


def test_names_a_pack_may_use():
    for ok in ("4.1", "5.2-step", "D.1", "alman-song-2025", "paper:1"):
        assert check_name(ok, path_component=True) == ok
    assert check_name("explicit-2A/L", path_component=False)  # a reading: it only enters a file name filtered
    for bad in ("", "a/b", "a\\b", ".", "..", "a\x00b", "a\u2028b"):
        with pytest.raises(LimitError):
            check_name(bad, path_component=True)


# ------------------------------------------------------------------------------ links inside the store
def _lemma_4_1(store, *extra):
    return verify("lemma", "4.1", "--reading", "as-printed", "--budget", 3000, "--save", "--store", store, *extra)


def test_save_does_not_write_through_a_symlinked_claim_folder(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    store = tmp_path / "store"
    (store / "alman-song-2025").mkdir(parents=True)
    (store / "alman-song-2025" / "4.1").symlink_to(outside, target_is_directory=True)
    r = _lemma_4_1(store, "--json")
    one_line_error(r, str(store / "alman-song-2025" / "4.1"), "symbolic link")
    assert list(outside.iterdir()) == []
    # the certified counterexample is not lost: it is in the JSON, marked as not stored
    [item] = json.loads(r.stdout)
    assert item["verdict"] == "refuted" and item["counterexample"]["file"] is None
    assert "symbolic link" in item["counterexample"]["not_saved"]


def test_save_does_not_replace_a_symlinked_file(tmp_path):
    target = tmp_path / "elsewhere.json"
    target.write_text("precious")
    folder = tmp_path / "store" / "alman-song-2025" / "4.1"
    folder.mkdir(parents=True)
    (folder / "main-as-printed-seed0.json").symlink_to(target)
    r = _lemma_4_1(tmp_path / "store", "--force")
    one_line_error(r, "main-as-printed-seed0.json", "symbolic link")
    assert target.read_text() == "precious" and (folder / "main-as-printed-seed0.json").is_symlink()


@pytest.fixture
def locked_4_1(tmp_path, monkeypatch):
    """A project whose store holds the pack's evidence for 4.1, locked at a budget of 1 (the
    search alone finds nothing: only the stored files refute)."""
    project = tmp_path / "project"
    (project / "counterexamples" / "alman-song-2025").mkdir(parents=True)
    shutil.copytree(STORED_4_1, project / "counterexamples" / "alman-song-2025" / "4.1")
    monkeypatch.chdir(project)
    r = verify("lock", "--claim", "4.1", "--budget", 1, "--prove-time", 0, "--jobs", 1)
    assert r.exit_code == 0, r.output
    assert verify("check", "--claim", "4.1", "--jobs", 1).exit_code == 0
    return project


def test_check_does_not_read_through_a_symlinked_claim_folder(locked_4_1, tmp_path):
    folder = locked_4_1 / "counterexamples" / "alman-song-2025" / "4.1"
    moved = tmp_path / "moved-4.1"
    shutil.move(folder, moved)
    folder.symlink_to(moved, target_is_directory=True)
    r = verify("check", "--claim", "4.1", "--jobs", 1)
    assert r.exit_code == 2, r.output
    assert "symbolic link" in r.stderr and "Traceback" not in r.stderr


def _edit_lock(project, change):
    doc = json.loads((project / "claims.lock").read_text())
    e = next(e for e in doc["checks"] if (e["claim"], e["part"], e["reading"]) == ("4.1", "main", "as-printed"))
    change(e)
    (project / "claims.lock").write_text(json.dumps(doc, indent=2))


@pytest.mark.parametrize("where", ["absolute", "dotdot"])
def test_a_lock_path_outside_the_project_is_refused(locked_4_1, tmp_path, where):
    outside = tmp_path / "elsewhere" / "cx.json"
    outside.parent.mkdir()
    shutil.copy(STORED_4_1 / "reviewer.json", outside)
    listed = str(outside) if where == "absolute" else os.path.relpath(outside, locked_4_1)

    def point_outside(e):  # the file and its hash, as a hostile lock would state them
        e["sha256"].pop(e["counterexamples"][0])
        e["counterexamples"][0] = listed
        e["sha256"][listed] = hashlib.sha256(outside.read_bytes()).hexdigest()

    _edit_lock(locked_4_1, point_outside)
    r = verify("check", "--claim", "4.1", "--jobs", 1)
    one_line_error(r, "claims.lock", "counterexamples[0]")


def test_a_lock_that_drops_a_refuting_file_and_calls_the_check_survived_is_drift(locked_4_1):
    def drop(e):
        e.update(verdict="survived", method="none", counterexamples=[], sha256={})

    _edit_lock(locked_4_1, drop)
    r = verify("check", "--claim", "4.1", "--jobs", 1, "--json")
    assert r.exit_code == 1, r.output
    [item] = [i for i in json.loads(r.stdout) if i["reading"] == "as-printed"]
    assert item["status"] == "drift" and item["now"] == "refuted"
    assert "the lock does not list" in item["change"]
    for name in ("reviewer.json", "main-as-printed-seed0.json"):
        assert name in item["detail"]


def test_a_file_no_check_owns_is_a_note(locked_4_1):
    stray = locked_4_1 / "counterexamples" / "other-paper" / "9.9" / "x.json"
    stray.parent.mkdir(parents=True)
    doc = json.loads((STORED_4_1 / "reviewer.json").read_text())
    stray.write_text(json.dumps({**doc, "paper": "other-paper", "claim": "9.9"}))
    r = verify("check", "--jobs", 1, "--lock", "claims.lock", "--pack", ROOT / "lemmas")
    assert "x.json: not listed in claims.lock" in " ".join(r.stderr.split())


# ------------------------------------------------------------------------------ saving at once, saving on a full disk
def _subprocess_verify(args, cwd, limit_bytes=None):
    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails with EFBIG instead of killing the process
        if limit_bytes is not None:
            import resource

            resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))

    # the verifier of this tree (not whichever one is installed), with the pack it ships
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "COLUMNS": "200", "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "verifier", *map(str, args)], cwd=cwd, env=env, preexec_fn=limit,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_four_saves_at_once_each_keep_their_file(tmp_path):
    store = tmp_path / "store"
    runs = [_subprocess_verify(["lemma", "4.1", "--reading", "as-printed", "--budget", 3000, "--save", "--store", store, "--json",
                                "--dps", dps], tmp_path) for dps in (20, 30, 40, 50)]
    saved = []
    for dps, p in zip((20, 30, 40, 50), runs):
        out, err = p.communicate(timeout=300)
        assert p.returncode == 1, err
        path = json.loads(out)[0]["counterexample"]["file"]
        assert json.loads(Path(path).read_text())["dps"] == dps, (path, err)
        saved.append(path)
    assert len(set(saved)) == 4
    assert len(list((store / "alman-song-2025" / "4.1").glob("*.json"))) == 4


def test_a_file_size_limit_during_save_names_the_file_and_keeps_the_counterexample(tmp_path):
    store = tmp_path / "store"
    p = _subprocess_verify(["lemma", "4.1", "--reading", "as-printed", "--budget", 3000, "--save", "--store", store, "--json"],
                           tmp_path, limit_bytes=300)
    out, err = p.communicate(timeout=300)
    assert p.returncode == 2, err
    assert "Traceback" not in err and "internal error" not in err
    assert "main-as-printed-seed0.json" in err and "File too large" in err
    [item] = json.loads(out)
    assert item["verdict"] == "refuted" and item["counterexample"]["vars"]["A"]
    assert "File too large" in item["counterexample"]["not_saved"]
    assert not list(store.rglob("*.json"))  # no half-written file either
    # on the terminal too
    p = _subprocess_verify(["lemma", "4.1", "--reading", "as-printed", "--budget", 3000, "--save", "--store", store], tmp_path, 300)
    _, err = p.communicate(timeout=300)
    assert p.returncode == 2 and "REFUTED" in err and "NOT SAVED" in err and "File too large" in err


def test_a_file_size_limit_during_lock_names_the_file_and_shows_the_counterexample(tmp_path):
    p = _subprocess_verify(["lock", "--claim", "4.1", "--budget", 3000, "--prove-time", 0, "--jobs", 1], tmp_path, limit_bytes=300)
    _, err = p.communicate(timeout=300)
    assert p.returncode == 2, err
    assert "Traceback" not in err and "internal error" not in err
    assert "File too large" in err and "main-as-printed-seed0.json" in err and "not writing claims.lock" in err
    assert "REFUTED" in err  # the counterexample found is shown
    assert not (tmp_path / "claims.lock").exists()
    # the lockfile itself, once the evidence is stored
    shutil.copytree(STORED_4_1, tmp_path / "counterexamples" / "alman-song-2025" / "4.1", dirs_exist_ok=True)
    p = _subprocess_verify(["lock", "--claim", "4.1", "--budget", 1, "--prove-time", 0, "--jobs", 1], tmp_path, limit_bytes=300)
    _, err = p.communicate(timeout=300)
    assert p.returncode == 2 and err.strip().splitlines()[-1] == "error: cannot write claims.lock: File too large", err


# ------------------------------------------------------------------------------ output paths
def test_output_paths_under_a_file_are_named_before_the_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "FILE").write_text("not a folder")
    r = verify("check", "--junit", "FILE/x.xml", "--lock", ROOT / "claims.lock")
    one_line_error(r, "--junit FILE/x.xml", "FILE is a file, not a folder")
    r = verify("report", "-o", "FILE/out.md", "--lock", ROOT / "claims.lock")
    one_line_error(r, "-o FILE/out.md", "FILE is a file, not a folder")
    (tmp_path / "adir").mkdir()
    r = verify("report", "--summary", "-o", "adir/", "--lock", ROOT / "claims.lock")
    assert r.exit_code == 2 and "Traceback" not in r.stderr
    assert (tmp_path / "FILE").read_text() == "not a folder"
