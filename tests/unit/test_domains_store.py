"""Stored counterexamples on constrained kinds: a point edited off its set is rejected by name."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from verifier import Claim, Dim, Part, Stochastic, Vector
from verifier.cli import main
from verifier.engine import SearchConfig, run_check
from verifier.packside import memory_pack
from verifier.registry import Registry
from verifier.evidence import CounterexampleFileError, load
from verifier.store import CounterexampleStore


def _col_norm(ctx, x):
    return ctx.max(ctx.sum(ctx.abs(x), axis=1), axis=1)


# ||P x||_1 <= ||x||_1 with the column-sum norm: false, P's columns need not sum to 1
CLAIM = Claim("col-norm", "column norm", "||P x||_1 <= ||x||_1", paper="domains-test",
              variables=(Stochastic("P", "n", "n"), Vector("x", "n")), dims=(Dim("n", 2, 3),),
              parts=(Part("main", lambda ctx, v: _col_norm(ctx, v.P @ v.x[:, :, None]), lambda ctx, v: _col_norm(ctx, v.x[:, :, None])),))


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    result = run_check(CLAIM.checks()[0], SearchConfig(seed=0, budget=20_000))
    assert result.verdict.value == "refuted"
    return CounterexampleStore(tmp_path_factory.mktemp("cx")).save(result.counterexample)


def _find(paper, cid):
    return Registry([CLAIM]).find(paper, cid)


def _edited(stored, tmp_path, edit):
    doc = json.loads(stored.read_text())
    edit(doc["vars"])
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(doc))
    return path


def test_the_found_point_loads_and_lies_on_the_set(stored):
    loaded = load(stored, _find)
    assert all(sum(row) == 1 for row in loaded.data["P"][0])


@pytest.mark.parametrize("how", ["sum above 1", "negative entry"])
def test_replay_rejects_a_point_off_the_set_naming_the_field(stored, tmp_path, monkeypatch, how):
    def edit(v):
        from fractions import Fraction

        row = [Fraction(x) for x in v["P"][0]]
        if how == "sum above 1":
            row[0] += Fraction(1, 10**30)  # a row summing to 1 + 10^-30
        else:
            row[0], row[1] = row[0] + row[1] + 1, Fraction(-1)
        v["P"][0] = [str(x) for x in row]

    path = _edited(stored, tmp_path, edit)
    with pytest.raises(CounterexampleFileError) as info:
        load(path, _find)
    assert info.value.field == "vars.P"
    memory_pack("stochastic", [CLAIM])
    r = CliRunner().invoke(main, ["replay", str(path), "--pack", "stochastic"])
    assert r.exit_code == 2
    assert "vars.P" in r.output and "not on the stochastic set" in r.output and "Traceback" not in r.output
    assert len(r.output.strip().splitlines()) == 1


def _rewritten(stored, tmp_path, edit):
    doc = json.loads(stored.read_text())
    edit(doc)
    path = tmp_path / "rewritten.json"
    path.write_text(json.dumps(doc))
    return path


def test_a_stored_file_states_each_variables_kind(stored):
    doc = json.loads(stored.read_text())
    n = doc["dims"]["n"]
    assert doc["kinds"] == {"P": f"stochastic(n x n, n={n})", "x": f"real(n, n={n})"}


@pytest.mark.parametrize("edit, field, words", [
    (lambda d: d["kinds"].update(P="real(n x n, n=2)"), "kinds.P", "the claim states 'stochastic"),
    (lambda d: d["kinds"].pop("x"), "kinds.x", "missing"),
    (lambda d: d["kinds"].update(Q="simplex(n, n=2)"), "kinds.Q", "not a variable of this claim"),
    (lambda d: d.update(kinds=["stochastic"]), "kinds", "must be an object"),
])
def test_a_stored_kind_that_is_not_the_claims_is_refused_by_field(stored, tmp_path, edit, field, words):
    path = _rewritten(stored, tmp_path, edit)
    with pytest.raises(CounterexampleFileError) as info:
        load(path, _find)
    assert info.value.field == field and words in info.value.message


def test_a_file_written_before_kinds_were_stored_still_loads(stored, tmp_path):
    path = _rewritten(stored, tmp_path, lambda d: d.pop("kinds"))
    assert load(path, _find).check.claim is CLAIM
    # and saving the same evidence again finds that file instead of writing a second one
    store = CounterexampleStore(tmp_path / "store")
    first = store.save(run_check(CLAIM.checks()[0], SearchConfig(seed=0, budget=20_000)).counterexample)
    first.write_text(path.read_text())
    again = store.save(run_check(CLAIM.checks()[0], SearchConfig(seed=0, budget=20_000)).counterexample)
    assert again == first and "kinds" not in json.loads(first.read_text())
