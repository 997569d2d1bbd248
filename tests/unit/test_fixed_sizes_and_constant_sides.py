"""A fixed-size variable takes an int size (no dummy Dim); a side may be a plain constant in any part.

Both go through the whole path: search, certificate, shrinker, stored file and replay, show,
``verify prove`` (z3 and branch and bound) and ``verify tighten``.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from verifier import Claim, ClaimDefinitionError, Dim, Matrix, Part, ProofDomain, Scalar, Vector
from verifier.domains import Simplex, kind_text
from verifier.engine import SearchConfig, run_check
from verifier.proof_audit import ProofBudget, attempt
from verifier.results import Verdict
from verifier.replay import replay
from verifier.store import CounterexampleStore
from verifier.tighten import tighten

CONFIG = SearchConfig(seed=0, budget=4000)


def _pairs_claim():
    # sum_i x_i y_i <= 1 over x in [-1, 1]^2 and y = W z with W 2 x n: false (x = y = (1, 1))
    return Claim(
        id="fixed", title="fixed sizes", statement="<x, W z> <= 1", dims=[Dim("n", 1, 2)],
        variables=[Vector("x", 2, lo=-1, hi=1), Matrix("W", 2, "n", lo=-1, hi=1), Vector("z", "n", lo=-1, hi=1)],
        parts=[Part("main", lhs=lambda ctx, v: ctx.sum(v.x * (v.W @ v.z[:, :, None])[:, :, 0], 1), rhs=lambda ctx, v: 1)],
    )


def test_a_fixed_size_shows_no_dimension_and_survives_the_whole_path(tmp_path):
    claim = _pairs_claim()
    assert [d.name for d in claim.dims] == ["n"] and claim.variables[0].shape == (2,)
    result = run_check(claim.checks()[0], CONFIG)
    assert result.verdict is Verdict.REFUTED
    cx = result.counterexample
    assert set(cx.dims) == {"n"} and len(cx.vars["x"]) == 2 and len(cx.vars["W"]) == 2
    assert kind_text(claim.variables[0], cx.dims) == "real(2)"
    assert kind_text(claim.variables[1], cx.dims) == f"real(2 x n, n={cx.dims['n']})"
    path = CounterexampleStore(tmp_path).save(cx)
    document = json.loads(path.read_text())
    assert document["kinds"]["x"] == "real(2)"
    again = replay(path, lambda paper, cid: claim)
    assert again.still_refutes


def test_kinds_take_fixed_sizes():
    claim = Claim(id="simplex3", title="t", statement="sum p_i^2 <= 9/10", dims=[], variables=[Simplex("p", 3)],
                  parts=[Part("main", lhs=lambda ctx, v: ctx.sum(v.p * v.p, 1), rhs=lambda ctx, v: Fraction(9, 10))])
    result = run_check(claim.checks()[0], CONFIG)
    assert result.verdict is Verdict.REFUTED and sorted(result.counterexample.vars["p"]) == ["0", "0", "1"]
    assert result.counterexample.dims == {}


@pytest.mark.parametrize("size", [0, -1, True, 2.0, "2x"])
def test_a_bad_size_is_refused_by_name(size):
    with pytest.raises(ClaimDefinitionError, match="size"):
        Vector("x", size)


def test_a_fixed_size_is_proved_on():
    claim = Claim(id="norm", title="t", statement="|x_1| + |x_2| >= max |x_i|", dims=[], variables=[Vector("x", 2)],
                  parts=[Part("main", relation=">=", lhs=lambda ctx, v: ctx.sum(ctx.abs(v.x), 1), rhs=lambda ctx, v: ctx.max(ctx.abs(v.x), 1))],
                  prove_on=ProofDomain(box=None))
    proof, _ = attempt(claim.checks()[0], ProofBudget(per_check=20))
    assert proof.status.value == "proved" and "x ∈ ℝ^2" in proof.domain


@pytest.mark.parametrize("relation, lhs, rhs, verdict", [
    ("<=", lambda ctx, v: v.a * v.a, lambda ctx, v: Fraction(9, 10), "refuted"),
    ("<", lambda ctx, v: v.a * v.a, lambda ctx, v: 1, "refuted"),
    (">=", lambda ctx, v: Fraction(1, 2), lambda ctx, v: ctx.max(v.x, 1), "refuted"),
    ("==", lambda ctx, v: Fraction(1, 2), lambda ctx, v: ctx.exp(v.a), "refuted"),
    ("<=", lambda ctx, v: ctx.sum(v.x * v.x, 1), lambda ctx, v: 3, "survived"),
    (">=", lambda ctx, v: ctx.const("1/2"), lambda ctx, v: v.a * v.a - 1, "survived"),
])
def test_a_constant_side_in_a_part_that_is_not_elementwise(relation, lhs, rhs, verdict):
    claim = Claim(id="const", title="t", statement="s", dims=[Dim("n", 1, 3)],
                  variables=[Scalar("a", lo=-1, hi=1), Vector("x", "n", lo=-1, hi=1)],
                  parts=[Part("main", relation=relation, lhs=lhs, rhs=rhs)], prove_on=ProofDomain(dims={"n": 2}))
    check = claim.checks()[0]
    result = run_check(check, CONFIG)
    assert result.verdict.value == verdict
    if verdict == "survived" and relation == "<=":
        proof, _ = attempt(check, ProofBudget(per_check=20))
        assert proof.status.value == "proved"


def test_tighten_scales_a_constant_right_hand_side():
    claim = Claim(id="const", title="t", statement="a^2 <= 9/10", dims=[], variables=[Scalar("a", lo=-1, hi=1)],
                  parts=[Part("main", lhs=lambda ctx, v: v.a * v.a, rhs=lambda ctx, v: Fraction(9, 10))])
    result = tighten(claim.checks()[0], SearchConfig(seed=0, budget=2000), 2)
    assert result.lower_bound == Fraction(10, 9)
