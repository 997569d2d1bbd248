"""A part whose side is a plain Python int (Lemma C.2 part 3: ``rhs = 1``) certified by ball
arithmetic: the certificate's display used to call ``.mid()`` on the int and the check ended
in ERROR on seeds 1-3 (found by the benchmark).  Fresh searches, no stored files."""

from fractions import Fraction

import pytest

from lemmas import REGISTRY
from verifier.engine import SearchConfig, run_check
from verifier.results import Verdict


@pytest.mark.parametrize("seed", [1, 2])
def test_c2_part3_refuted_with_an_int_rhs(seed):
    check = next(c for c in REGISTRY.get("C.2").checks() if c.part.name == "3")
    result = run_check(check, SearchConfig(seed=seed, budget=40_000, time_limit=30.0))
    assert result.verdict is Verdict.REFUTED, result.verdict
    cx = result.counterexample
    assert Fraction(cx.rhs) == 1
    assert Fraction(cx.margin) < 0
