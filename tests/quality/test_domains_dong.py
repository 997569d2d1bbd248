"""Dong, Cordonnier & Loukas 2021 on row-stochastic matrices, as the second pack states it
(examples/attention-classics/attention_classics/row_stochastic_norm.py, claim ``dong-P-norm``).

``test_second_pack`` checks the module's verdicts with every other claim of the pack; this
test checks what ``Stochastic`` adds: the ``inf`` reading survives a search that reaches
one-hot and repeated rows, and the ``l1`` reading is refuted at a point whose every row
sums to exactly 1, the all-rows-at-one-token case the module's derivation names.
"""

from __future__ import annotations

import importlib.util
from fractions import Fraction
from pathlib import Path

import pytest

from verifier.engine import SearchConfig, run_check

MODULE = Path(__file__).resolve().parents[2] / "examples" / "attention-classics" / "attention_classics" / "row_stochastic_norm.py"


def _claim():
    spec = importlib.util.spec_from_file_location("row_stochastic_norm", MODULE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.claim


DONG_ROW_STOCHASTIC = _claim()


@pytest.mark.parametrize("seed", range(5))
def test_the_inf_norm_fact_survives_and_the_l1_reading_is_refuted(seed):
    inf = run_check(DONG_ROW_STOCHASTIC.checks(reading="inf")[0], SearchConfig(seed=seed, budget=40_000))
    assert inf.verdict.value == "survived"
    l1 = run_check(DONG_ROW_STOCHASTIC.checks(reading="l1")[0], SearchConfig(seed=seed))
    assert l1.verdict.value == "refuted"
    rows = [[Fraction(x) for x in row] for row in l1.counterexample.vars["P"]]
    assert all(sum(row) == 1 and min(row) >= 0 for row in rows)
    # ||P||_1 > 1 needs a column of P summing past 1: more than one row attends to one token
    assert max(sum(col) for col in zip(*rows)) > 1
