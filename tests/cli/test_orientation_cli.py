"""`verify lemma --json` and `verify replay --json` show the claim's own lhs for >= parts.

Outside packs cannot be loaded by the CLI yet, so the test hands the CLI a registry of
claims built in the test (drawn from a seed, see tests/quality/orientation_claims.py).
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import verifier.cli
import verifier.cli.claims
from verifier.cli import main
from verifier.registry import Registry
from verifier.store import parse_exact

from tests.quality.orientation_claims import RELATIONS, exp_claim, polynomial_claim
from tests.quality.test_orientation import assert_shown


@pytest.fixture
def claims(monkeypatch):
    made = [make(rel, seed=11 + i) for i, rel in enumerate(RELATIONS) for make in (polynomial_claim, exp_claim)]
    registry = Registry(made)
    monkeypatch.setattr(verifier.cli, "registry", lambda: registry)
    monkeypatch.setattr(verifier.cli.claims, "registry", lambda: registry)
    return {c.id: c for c in made}


@pytest.mark.parametrize("relation", [">=", ">", "<="])
def test_lemma_json_and_replay_show_the_claims_lhs(claims, relation, tmp_path):
    for cid in (f"poly{RELATIONS.index(relation)}", f"exp{RELATIONS.index(relation)}"):
        claim = claims[cid]
        store = tmp_path / cid
        r = CliRunner().invoke(main, ["lemma", cid, "--json", "--budget", "4000", "--seed", "2", "--save", "--store", str(store)])
        assert r.exit_code == 1, r.output
        cx = json.loads(r.stdout)[0]["counterexample"]
        x = parse_exact(cx["vars"]["x"])
        assert_shown(claim, x, cx["lhs"], cx["rhs"], 50)
        (path,) = list(store.rglob("*.json"))
        r = CliRunner().invoke(main, ["replay", str(path), "--json"])
        assert r.exit_code == 1, r.output
        again = json.loads(r.stdout)
        assert_shown(claim, x, again["lhs"], again["rhs"], 50)
