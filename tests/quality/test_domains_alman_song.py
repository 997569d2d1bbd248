"""Lemma D.8 of Alman & Song read with ``Stochastic`` (reading ``any-attention``): the proof
uses only that an attention matrix is row-stochastic, so the statement is checked for every
row-stochastic P.  The module's hand derivation predicts: refuted from a fresh seed, with a
counterexample at d >= 2 whose P lies exactly on the set; with d narrowed to 1, true.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

from lemmas.alman_song.lemma_d_8 import ANY_ATTENTION, claim
from verifier.claims import Dim
from verifier.engine import SearchConfig, run_check


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("part", ["1", "2"])
def test_any_attention_reading_is_refuted_at_d_2_on_the_set(part, seed):
    result = run_check(claim.checks(part=part, reading="any-attention")[0], SearchConfig(seed=seed))
    assert result.verdict.value == "refuted", result.message
    cx = result.counterexample
    assert cx.dims["d"] >= 2 and cx.dims["L"] == cx.dims["H"] == 1
    rows = [[Fraction(x) for x in row] for row in cx.vars["P"]]
    assert all(sum(row) == 1 and min(row) >= 0 for row in rows)
    assert cx.kinds["P"] == f"stochastic(n x n, n={cx.dims['n']})"


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("part", ["1", "2"])
def test_any_attention_reading_holds_for_one_column(part, seed):
    one_column = dataclasses.replace(ANY_ATTENTION, dims=ANY_ATTENTION.dims + (Dim("d", 1, 1),))
    check = dataclasses.replace(claim.checks(part=part, reading="any-attention")[0], reading=one_column)
    result = run_check(check, SearchConfig(seed=seed, budget=30_000))
    assert result.verdict.value == "survived", result.counterexample
    assert result.stats.max_ratio <= 1 + 1e-9
