"""Readings with a bounded extra variable (the minimiser choice t in [0, 1]^d) are decided by
SMT: their box hypothesis ``hi - max(t)`` once ended every such proof in z3's parser error."""

import pytest

from tests.conftest import check_of
from verifier.prove import prove
from verifier.prove.domain import make_proof_box
from verifier.results import Verdict

CASES = [
    ("4.1", "main", "adversarial", {"n": 3, "d": 1}, Verdict.REFUTED),
    ("5.2-step", "main", "adversarial", {"n": 3, "d": 1}, Verdict.REFUTED),
    ("B.4", "proof-bound", "adversarial", {"n": 2, "d": 1}, Verdict.PROVED),
]


@pytest.mark.parametrize("cid,part,reading,dims,verdict", CASES, ids=lambda x: str(x))
def test_bounded_minimiser_readings_are_decided(cid, part, reading, dims, verdict):
    check = check_of(cid, part=part, reading=reading)
    proof = prove(check, make_proof_box(check, dims), time_limit=30)
    result = proof.result
    assert result.verdict is verdict, result.message
    if verdict is Verdict.REFUTED:
        assert result.certified and result.counterexample is not None
