"""``verify show`` names each variable's kind; ``verify replay`` refuses, naming the field, a
stored file whose kind is not the claim's, and still replays files written before kinds
were stored."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from verifier.cli import main

from .lock_project import ROOT

PACK = '''
from verifier import Claim, Dim, Part, Stochastic, UnitVector, Vector


def col_norm(ctx, x):
    return ctx.max(ctx.sum(ctx.abs(x), axis=1), axis=1)


claim = Claim("col-norm", "column norm", "||P x||_1 <= ||x||_1", paper="kinds-test",
              variables=(Stochastic("P", "n", "n"), Vector("x", "n"), UnitVector("u", "n", norm="inf")),
              dims=(Dim("n", 2, 3),),
              parts=(Part("main", lambda ctx, v: col_norm(ctx, v.P @ v.x[:, :, None]),
                          lambda ctx, v: col_norm(ctx, v.x[:, :, None])),))
'''


def _write_pack(tmp_path, monkeypatch, name, text):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.fixture
def pack(tmp_path, monkeypatch):
    return _write_pack(tmp_path, monkeypatch, "kinds_pack.py", PACK)


def test_show_prints_each_variables_kind(pack):
    r = CliRunner().invoke(main, ["show", "--pack", pack, "col-norm"])
    assert r.exit_code == 0, r.output
    rows = {line.split("\u2502")[1].strip(): line for line in r.output.splitlines() if line.count("\u2502") >= 4}
    assert "stochastic" in rows["P"] and "real" in rows["x"] and "unit-vector(norm=inf)" in rows["u"]
    r = CliRunner().invoke(main, ["show", "--pack", pack, "col-norm", "--json"])
    kinds = {v["name"]: v["kind"] for v in json.loads(r.stdout)["variables"]}
    assert kinds == {"P": "stochastic", "x": "real", "u": "unit-vector(norm=inf)"}


def test_replay_refuses_an_edited_kind_naming_the_field(pack, tmp_path):
    r = CliRunner().invoke(main, ["lemma", "--pack", pack, "col-norm", "--budget", "20000", "--save", "--store", str(tmp_path / "cx"), "--json"])
    assert r.exit_code == 1, r.stderr
    saved = json.loads(r.stdout)[0]["counterexample"]["file"]
    doc = json.loads(open(saved).read())
    n = doc["dims"]["n"]
    assert doc["kinds"] == {"P": f"stochastic(n x n, n={n})", "x": f"real(n, n={n})", "u": f"unit-vector(n, n={n}, norm=inf)"}
    assert CliRunner().invoke(main, ["replay", "--pack", pack, saved]).exit_code == 1

    doc["kinds"]["P"] = f"real(n x n, n={n})"
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(doc))
    r = CliRunner().invoke(main, ["replay", "--pack", pack, str(edited)])
    assert r.exit_code == 2
    assert "field 'kinds.P'" in r.stderr and "stochastic(n x n" in r.stderr and "Traceback" not in r.output
    assert len(r.stderr.strip().splitlines()) == 1


def test_files_written_before_kinds_were_stored_still_replay(tmp_path):
    doc = json.loads((ROOT / "counterexamples/alman-song-2025/4.1/main-as-printed-seed0.json").read_text())
    doc.pop("kinds", None)
    old = tmp_path / "old.json"
    old.write_text(json.dumps(doc))
    r = CliRunner().invoke(main, ["replay", str(old)])
    assert r.exit_code == 1, r.stderr


def test_replay_shows_the_kinds(pack, tmp_path):
    r = CliRunner().invoke(main, ["lemma", "--pack", pack, "col-norm", "--budget", "20000", "--save", "--store", str(tmp_path / "cx"), "--json"])
    saved = json.loads(r.stdout)[0]["counterexample"]["file"]
    n = json.loads(open(saved).read())["dims"]["n"]
    r = CliRunner().invoke(main, ["replay", "--pack", pack, saved])
    assert r.exit_code == 1 and f"P  stochastic(n x n, n={n})" in r.stderr
    r = CliRunner().invoke(main, ["replay", "--pack", pack, saved, "--json"])
    assert json.loads(r.stdout)["kinds"]["P"] == f"stochastic(n x n, n={n})"


SETS_PACK = '''
from fractions import Fraction

from verifier import Claim, Dim, Part, Simplex, Sphere

# on |x|^2 = 3 the sum x_1 + x_2 + x_3 peaks at 3, at (1, 1, 1): strict, false there only
claim = Claim("sphere-sum", "sphere sum", "x_1 + x_2 + x_3 < 3 on |x|^2 = 3", paper="sets-test",
              variables=(Sphere("x", "n", 3), Simplex("p", "n", "3/2")), dims=(Dim("n", 3, 3),),
              parts=(Part("main", lambda ctx, v: ctx.sum_all(v.x) + ctx.sum_all(v.p) * 0,
                          lambda ctx, v: ctx.const(3), relation="<"),))
'''


@pytest.fixture
def sets_pack(tmp_path, monkeypatch):
    return _write_pack(tmp_path, monkeypatch, "sets_pack.py", SETS_PACK)


def test_a_sphere_and_a_scaled_simplex_show_store_and_replay_their_kinds(sets_pack, tmp_path):
    r = CliRunner().invoke(main, ["show", "--pack", sets_pack, "sphere-sum", "--json"])
    kinds = {v["name"]: v["kind"] for v in json.loads(r.stdout)["variables"]}
    assert kinds == {"x": "sphere(radius_squared=3)", "p": "simplex(total=3/2)"}
    r = CliRunner().invoke(main, ["show", "--pack", sets_pack, "sphere-sum"], env={"COLUMNS": "200"})
    assert "sphere(radius_squared=3)" in r.output and "\u2016x\u2016\u2082\u00b2 = 3 exactly" in r.output
    assert "simplex(total=3/2)" in r.output and "p sums to exactly 3/2" in r.output
    r = CliRunner().invoke(main, ["lemma", "--pack", sets_pack, "sphere-sum", "--budget", "20000", "--save", "--store", str(tmp_path / "cx"), "--json"])
    assert r.exit_code == 1, r.stderr
    saved = json.loads(r.stdout)[0]["counterexample"]["file"]
    doc = json.loads(open(saved).read())
    assert doc["vars"]["x"] == ["1", "1", "1"]
    assert doc["kinds"] == {"x": "sphere(n, n=3, radius_squared=3)", "p": "simplex(n, n=3, total=3/2)"}
    assert CliRunner().invoke(main, ["replay", "--pack", sets_pack, saved]).exit_code == 1

    doc["vars"]["x"] = ["1", "1", "1000000001/1000000000"]  # just off the sphere
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(doc))
    r = CliRunner().invoke(main, ["replay", "--pack", sets_pack, str(edited)])
    assert r.exit_code == 2 and "field 'vars.x'" in r.stderr and "not on the sphere set" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_a_sphere_with_no_rational_point_is_one_line_naming_it(tmp_path, monkeypatch):
    path = _write_pack(tmp_path, monkeypatch, "circle_pack.py", SETS_PACK.replace('Sphere("x", "n", 3)', 'Sphere("x", "m", 3)').replace(
        'dims=(Dim("n", 3, 3),)', 'dims=(Dim("n", 3, 3), Dim("m", 2, 2))'))
    r = CliRunner().invoke(main, ["lemma", "--pack", path, "sphere-sum"])
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert "Sphere x: x_1^2 + x_2^2 = 3 has no rational point" in r.output
