import json
from fractions import Fraction

import pytest

from lemmas import REGISTRY
from verifier.evidence import CounterexampleFileError, load, parse_exact, read_document
from verifier.safe_files import write_atomic

GOOD = {
    "schema": "claim-verifier/counterexample",
    "schema_version": 1,
    "paper": "alman-song-2025",
    "claim": "4.1",
    "part": "main",
    "reading": "as-printed",
    "dims": {"n": 3, "d": 1},
    "vars": {"A": [["2"], ["0"], ["-2"]], "eps": "1", "B": [["1"], ["1"], ["-3"]]},
    "lhs": "2",
    "rhs": "1",
    "margin": "-1",
    "dps": 50,
    "method": "exact",
}


def find(paper, cid):
    return REGISTRY.find(paper, cid)


def write(tmp_path, doc, name="cx.json"):
    p = tmp_path / name
    p.write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    return p


@pytest.mark.parametrize(
    "text, value",
    [("3/7", Fraction(3, 7)), ("-2", Fraction(-2)), ("0.125", Fraction(1, 8)), ("1e-3", Fraction(1, 1000)), (5, Fraction(5))],
)
def test_parse_exact(text, value):
    assert parse_exact(text) == value


@pytest.mark.parametrize("bad", ["nan", "inf", "-Infinity", "1/0", "abc", True, [1], None])
def test_parse_exact_rejects(bad):
    with pytest.raises(ValueError):
        parse_exact(bad)


def test_good_file_loads(tmp_path):
    loaded = load(write(tmp_path, GOOD), find)
    assert loaded.dims == {"n": 3, "d": 1}
    assert loaded.data["A"].shape == (1, 3, 1)


@pytest.mark.parametrize(
    "edit, field",
    [
        (lambda d: d.pop("vars"), "vars"),
        (lambda d: d.pop("margin"), "margin"),
        (lambda d: d.update(schema_version=99), "schema_version"),
        (lambda d: d.update(schema="other"), "schema"),
        (lambda d: d.update(claim="9.9"), "claim"),
        (lambda d: d.update(part="7"), "part"),
        (lambda d: d.update(reading="nope"), "reading"),
        (lambda d: d["dims"].update(n=0), "dims.n"),
        (lambda d: d["vars"].pop("B"), "vars.B"),
        (lambda d: d["vars"].update(C="1"), "vars.C"),
        (lambda d: d["vars"].update(A=[["1"], ["2"]]), "vars.A"),
        (lambda d: d["vars"].update(eps="NaN"), "vars.eps"),
        (lambda d: d["vars"].update(eps="1/0"), "vars.eps"),
        (lambda d: d["vars"].update(eps=["1"]), "vars.eps"),
        (lambda d: d.update(dps=3), "dps"),
    ],
)
def test_bad_files_name_the_field(tmp_path, edit, field):
    doc = json.loads(json.dumps(GOOD))
    edit(doc)
    with pytest.raises(CounterexampleFileError) as info:
        load(write(tmp_path, doc), find)
    assert info.value.field == field
    assert "cx.json" in str(info.value)


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"schema": NaN}', ""])
def test_unreadable_files(tmp_path, text):
    with pytest.raises(CounterexampleFileError):
        read_document(write(tmp_path, text))


def test_atomic_write_replaces_and_leaves_no_temporaries(tmp_path):
    target = tmp_path / "sub" / "x.json"
    write_atomic(target, "one")
    write_atomic(target, "two")
    assert target.read_text() == "two"
    assert [p.name for p in target.parent.iterdir()] == ["x.json"]


def test_atomic_write_keeps_old_file_when_writing_fails(tmp_path, monkeypatch):
    target = tmp_path / "x.json"
    write_atomic(target, "old")
    import os

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        write_atomic(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]


def test_atomic_write_gives_ordinary_permissions(tmp_path):
    import os
    import stat

    target = tmp_path / "x.json"
    write_atomic(target, "{}")
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask
