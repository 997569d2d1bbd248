"""``--save`` keeps evidence put: an existing different file is never replaced without --force,
saving the same evidence again writes nothing, and no timing goes into a stored file."""

import json
import shutil

from click.testing import CliRunner

from verifier.cli import main

from .lock_project import ROOT

LOCKED = "counterexamples/alman-song-2025/4.1/main-as-printed-seed0.json"


def _lemma(store, *extra):
    args = ["lemma", "4.1", "--reading", "as-printed", "--budget", "3000", "--save", "--store", str(store), "--json", *extra]
    return CliRunner().invoke(main, args)


def _saved(r):
    assert r.exit_code == 1, r.stderr
    return json.loads(r.stdout)[0]["counterexample"]["file"]


def test_save_never_replaces_the_file_the_lock_cites(tmp_path):
    store = tmp_path / "counterexamples"
    shutil.copytree(ROOT / "counterexamples", store)
    locked = store / LOCKED.removeprefix("counterexamples/")
    # the file as a lock cites it, but holding another counterexample than this search finds
    doc = json.loads(locked.read_text())
    doc["vars"]["A"], doc["vars"]["B"] = [["0"], ["0"], ["1"]], [["-1"], ["1"], ["0"]]
    locked.write_text(json.dumps(doc, indent=2))
    before = locked.read_bytes()

    path = _saved(_lemma(store, "--seed", "0"))
    assert locked.read_bytes() == before
    assert path.endswith("main-as-printed-seed0-2.json"), path
    assert "seconds" not in json.loads(open(path).read())["found_by"]
    # the same search again writes nothing new: it finds its own file
    assert _saved(_lemma(store, "--seed", "0")) == path
    assert sorted(p.name for p in locked.parent.glob("main-as-printed-seed0*.json")) == [
        "main-as-printed-seed0-2.json", "main-as-printed-seed0.json"]


def test_force_replaces_and_force_without_save_is_a_usage_error(tmp_path):
    store = tmp_path / "counterexamples"
    shutil.copytree(ROOT / "counterexamples", store)
    locked = store / LOCKED.removeprefix("counterexamples/")
    locked.write_text(locked.read_text().replace('"seed": 0', '"seed": 0, "note": "edited by hand"'))
    assert _saved(_lemma(store, "--seed", "0", "--force")) == str(locked)
    assert "edited by hand" not in locked.read_text()
    r = CliRunner().invoke(main, ["lemma", "4.1", "--force"])
    assert r.exit_code == 2 and "--force" in r.stderr


def test_saving_twice_gives_the_same_bytes(tmp_path):
    store = tmp_path / "cx"
    a = _saved(_lemma(store, "--seed", "1"))
    first = open(a, "rb").read()
    b = _saved(_lemma(store, "--seed", "1"))
    assert a == b and open(b, "rb").read() == first
    assert sorted(p.name for p in (store / "alman-song-2025" / "4.1").iterdir()) == ["main-as-printed-seed1.json"]


def test_an_edited_value_is_replayed_as_written_and_a_malformed_one_is_exit_2(tmp_path):
    """The README's rule: an edited file that is still well formed is replayed as it stands
    (exit 0, "NO LONGER REFUTES", the stored values shown as differing); a malformed one is exit 2."""
    path = tmp_path / "cx.json"
    doc = json.loads((ROOT / LOCKED).read_text())
    doc["vars"]["eps"] = "2"
    path.write_text(json.dumps(doc))
    r = CliRunner().invoke(main, ["replay", str(path)])
    assert r.exit_code == 0 and "NO LONGER REFUTES" in r.stderr and "stored values differ" in r.stderr
    doc["vars"]["eps"] = "two"
    path.write_text(json.dumps(doc))
    r = CliRunner().invoke(main, ["replay", str(path)])
    assert r.exit_code == 2 and "eps" in r.stderr and "Traceback" not in r.stderr
