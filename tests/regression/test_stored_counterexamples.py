"""Every stored counterexample still refutes its claim, exactly as stored."""

from pathlib import Path

import pytest

from lemmas import REGISTRY
from verifier.replay import replay
from verifier.store import CounterexampleStore

ROOT = Path(__file__).resolve().parents[2] / "counterexamples"
FILES = CounterexampleStore(ROOT).files()


def find(paper, cid):
    return REGISTRY.find(paper, cid)


def test_there_is_stored_evidence():
    assert len(FILES) >= 4


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_replays_as_refuted_with_the_stored_values(path):
    r = replay(path, find)
    assert r.still_refutes, r.certificate
    assert r.certificate.method in ("exact", "interval")
    assert r.values_match, (r.lhs, r.rhs, r.margin, r.stored)


def test_reviewer_case_is_exact():
    r = replay(ROOT / "alman-song-2025" / "4.1" / "reviewer.json", find)
    assert r.still_refutes and r.certificate.method == "exact"
    assert (r.lhs, r.rhs, r.margin) == ("2", "1", "-1")
