"""The function table reaches every context: sort and top-k (a network of max and min) in
every context, z3 and the jets included; power with a variable exponent in the search."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from verifier import Claim, Part, Scalar, Vector
from verifier.claims import Dim
from verifier.contexts import BallContext, ExactContext, FloatContext, MPContext, SymbolicContext
from verifier.engine import SearchConfig, run_check
from verifier.prove import make_proof_box, prove
from verifier.prove.z3ctx import Z3Context

CONTEXTS = [FloatContext(), MPContext(40), ExactContext(), BallContext(160), SymbolicContext()]


def _values(ctx, rows):
    if ctx.name == "float64":
        return np.array([[float(v) for v in row] for row in rows])
    return ctx.convert({"x": rows})["x"]


def _floats(arr):
    out = []
    for v in np.ravel(arr):
        out.append(float(v.mid()) if hasattr(v, "mid") else float(v))
    return out


@pytest.mark.parametrize("ctx", CONTEXTS, ids=lambda c: c.name)
def test_sort_and_top_k_agree_with_numpy(ctx):
    rng = np.random.default_rng(0)
    for n in (1, 2, 5, 8):
        row = [Fraction(int(k), 4) for k in rng.integers(-12, 12, n)]
        with ctx.precision():
            x = _values(ctx, [row])
            assert _floats(ctx.sort(x, 1)) == sorted(float(v) for v in row)
            assert _floats(ctx.sort(x, -1, descending=True)) == sorted((float(v) for v in row), reverse=True)
            k = min(3, n)
            assert _floats(ctx.top_k(x, k)) == sorted((float(v) for v in row), reverse=True)[:k]


def test_sort_along_an_inner_axis_of_a_matrix():
    ctx = ExactContext()
    x = ctx.convert({"x": [[[3, 1], [1, 2], [2, 0]]]})["x"]
    assert [[int(v) for v in r] for r in ctx.sort(x, 1)[0]] == [[1, 0], [2, 1], [3, 2]]
    assert [[int(v) for v in r] for r in ctx.top_k(x, 1, axis=2)[0]] == [[3], [2], [2]]


@pytest.mark.parametrize("bad", [dict(axis=0), dict(axis=3), dict(k=0), dict(k=4), dict(k=True)])
def test_sort_and_top_k_refuse_the_batch_axis_and_bad_k_in_one_line(bad):
    ctx = ExactContext()
    x = ctx.convert({"x": [[1, 2, 3]]})["x"]
    with pytest.raises(ValueError, match="top_k|axis"):
        ctx.top_k(x, bad.get("k", 1), axis=bad.get("axis", -1))


def _first_sorted(rhs, relation):
    return Claim(id="sorted", kind="property", paper="t", location="-", title="sorted", statement="sorted",
                 dims=[Dim("n", 3, 3)], variables=[Vector("x", "n", lo=-2, hi=2)],
                 parts=[Part("main", lhs=lambda c, v: c.sort(v.x, 1)[:, 0], rhs=rhs, relation=relation)])


def test_z3_proves_what_sort_means_and_refutes_what_it_does_not():
    for claim, verdict in ((_first_sorted(lambda c, v: c.min_all(v.x), "=="), "proved"),  # the first is the least
                           (_first_sorted(lambda c, v: v.x[:, 0], ">="), "refuted")):  # ... not x_1
        check = claim.checks()[0]
        proof = prove(check, make_proof_box(check, {"n": 3}), method="smt", time_limit=30)
        assert proof.result.verdict.value == verdict, proof.result.message


def test_branch_and_bound_proves_through_sort_with_exp():
    """The jets sort too: sum of the two largest exp(x_i) is at most the sum of all (n = 3)."""
    claim = Claim(id="topk", kind="property", paper="t", location="-", title="topk", statement="topk",
                  dims=[Dim("n", 3, 3)], variables=[Vector("x", "n", lo=-1, hi=1)],
                  parts=[Part("main", lhs=lambda c, v: c.sum(c.top_k(c.exp(v.x), 2), 1),
                              rhs=lambda c, v: c.sum(c.exp(v.x), 1))])
    check = claim.checks()[0]
    proof = prove(check, make_proof_box(check, {"n": 3}), time_limit=60, max_boxes=2000)
    assert proof.result.verdict.value == "proved", proof.result.message


def test_z3_context_sorts_with_if_terms():
    z = Z3Context()
    x = z.symbols("x", (3,))
    assert "If(" in str(z.sort(x, 1)[0, 0])


def test_a_variable_exponent_is_searched_in_every_context():
    """power(x, p) with p a variable ended the claim as error (the exact context took p's exact value)."""
    claim = Claim(id="bernoulli", kind="property", paper="t", location="-", title="Bernoulli", statement="x^p <= 1 + p (x - 1)",
                  dims=[], variables=[Scalar("x", lo="1/2", hi=2), Scalar("p", lo=0, hi=1)],
                  parts=[Part("main", lhs=lambda c, v: c.power(v.x, v.p), rhs=lambda c, v: 1 + v.p * (v.x - 1))])
    result = run_check(claim.checks()[0], SearchConfig(seed=0, budget=4000))
    assert result.verdict.value in ("survived", "inconclusive"), result.message
    false = Claim(id="bernoulli-wrong", kind="property", paper="t", location="-", title="wrong", statement="x^p >= x",
                  dims=[], variables=[Scalar("x", lo="1/2", hi=2), Scalar("p", lo=0, hi=1)],
                  parts=[Part("main", lhs=lambda c, v: c.power(v.x, v.p), rhs=lambda c, v: v.x, relation=">=")])
    result = run_check(false.checks()[0], SearchConfig(seed=0, budget=4000))
    assert result.verdict.value == "refuted", result.message
    assert result.counterexample is not None


def test_ball_forms_refuse_anything_but_a_ball():
    """arb's functions called unbound read any object as a ball: a Jet handed to arb.tanh made FLINT
    abort the process (``Unable to allocate memory``).  The table's ball forms are the ball's own
    methods, and the ball context refuses anything else before arb sees it."""
    from verifier.contexts.table import FUNCTIONS as ROWS
    from verifier.prove.jets import Frame, Jet

    jet = Jet.const(Fraction(1, 3), Frame([None]))
    ball = BallContext(64)
    for row in ROWS:
        if row.ball is None or row.exponent:
            continue
        with pytest.raises(AttributeError):
            row.ball(jet)
        with ball.precision(), pytest.raises(TypeError, match="needs a ball"):
            ball.function_of(row)(jet)
