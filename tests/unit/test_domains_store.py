"""Stored counterexamples on constrained kinds: a point edited off its set is rejected by name."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from verifier import Claim, Dim, Part, Stochastic, Vector
from verifier.cli import main
from verifier.engine import SearchConfig, run_check
from verifier.registry import Registry
from verifier.store import CounterexampleFileError, CounterexampleStore, load


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
    monkeypatch.setattr("verifier.cli.claims.registry", lambda: Registry([CLAIM]))
    r = CliRunner().invoke(main, ["replay", str(path)])
    assert r.exit_code == 2
    assert "vars.P" in r.output and "not on the stochastic set" in r.output and "Traceback" not in r.output
    assert len(r.output.strip().splitlines()) == 1
