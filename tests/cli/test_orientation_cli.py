"""`verify lemma --json` and `verify replay --json` show the claim's own lhs for >= parts.

The claims are built in the test (drawn from a seed, see tests/quality/orientation_claims.py)
and reach the CLI as a pack held in memory (``--pack orientation``).
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from verifier.cli import main
from verifier.packside import memory_pack
from verifier.evidence import parse_exact

from tests.quality.orientation_claims import RELATIONS, exp_claim, polynomial_claim
from tests.quality.test_orientation import assert_shown


@pytest.fixture
def claims():
    made = [make(rel, seed=11 + i) for i, rel in enumerate(RELATIONS) for make in (polynomial_claim, exp_claim)]
    memory_pack("orientation", made)
    return {c.id: c for c in made}


@pytest.mark.parametrize("relation", [">=", ">", "<="])
def test_lemma_json_and_replay_show_the_claims_lhs(claims, relation, tmp_path):
    for cid in (f"poly{RELATIONS.index(relation)}", f"exp{RELATIONS.index(relation)}"):
        claim = claims[cid]
        store = tmp_path / cid
        r = CliRunner().invoke(main, ["lemma", cid, "--json", "--budget", "4000", "--seed", "2", "--save", "--store", str(store), "--pack", "orientation"])
        assert r.exit_code == 1, r.output
        cx = json.loads(r.stdout)[0]["counterexample"]
        x = parse_exact(cx["vars"]["x"])
        assert_shown(claim, x, cx["lhs"], cx["rhs"], 50)
        (path,) = list(store.rglob("*.json"))
        r = CliRunner().invoke(main, ["replay", str(path), "--json", "--pack", "orientation"])
        assert r.exit_code == 1, r.output
        again = json.loads(r.stdout)
        assert_shown(claim, x, again["lhs"], again["rhs"], 50)
