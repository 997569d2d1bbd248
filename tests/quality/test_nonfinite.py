"""Issue 16, part 1: a point that could not be evaluated is not evidence.

float64 overflows where arbitrary precision does not; a point undefined at every precision
tried is counted and shown; a check that could hardly be evaluated never survives.
"""

import numpy as np
import pytest

from verifier import Claim, Part, Scalar
from verifier.engine import SearchConfig, run_check
from verifier.results import RunResult, Verdict
from verifier.evidence import parse_exact


def _claim(cid, lhs, rhs, relation="<=", lo=0, hi=2000):
    return Claim(id=cid, kind="claim", title=f"{cid} (test only)", statement=cid, dims=[],
                 variables=[Scalar("x", lo=lo, hi=hi)], parts=[Part("main", lhs=lhs, rhs=rhs, relation=relation)])


OVERFLOWS = _claim("T.overflow", lambda ctx, v: ctx.exp(v.x), lambda ctx, v: ctx.const(10) ** 400)
THROUGH_OVERFLOW = _claim("T.through", lambda ctx, v: ctx.exp(v.x), lambda ctx, v: ctx.exp(v.x) + 1)
NOWHERE = _claim("T.nowhere", lambda ctx, v: ctx.const(1) / (v.x - v.x), lambda ctx, v: ctx.const(1))


def _reciprocal_square(ctx, x):
    """1/x^2 written with Python numbers: raises at an exact zero, in every context."""
    if any(e == 0 for e in np.ravel(x)):
        raise ZeroDivisionError("1/x^2 at x = 0")
    return ctx.const(1) / (x * x)


AT_ZERO = _claim("T.zero", lambda ctx, v: _reciprocal_square(ctx, v.x), lambda ctx, v: ctx.const(0), relation=">=", lo=-3, hi=3)


@pytest.mark.parametrize("seed", range(5))
def test_a_violation_where_float64_overflows_is_found(seed):
    r = run_check(OVERFLOWS.checks()[0], SearchConfig(seed=seed, budget=20_000))
    assert r.verdict is Verdict.REFUTED and r.certified
    assert parse_exact(r.counterexample.vars["x"]) > 921  # exp(x) > 10^400 there, by hand: 400 ln 10 = 921.03
    assert r.stats.nonfinite > 0  # it was float64 that could not tell


def test_inf_minus_inf_is_not_a_violation():
    for seed in range(3):
        r = run_check(THROUGH_OVERFLOW.checks()[0], SearchConfig(seed=seed, budget=20_000))
        assert r.verdict is Verdict.SURVIVED, r.message
        assert r.stats.nonfinite > 0 and r.stats.undefined_rechecked > 0
        assert r.stats.undefined == 0  # every re-evaluated point was an ordinary number at 50 digits


def test_a_claim_undefined_everywhere_is_an_error_never_survived():
    r = run_check(NOWHERE.checks()[0], SearchConfig(seed=0, budget=10_000))
    assert r.verdict is Verdict.ERROR
    assert "undefined at" in r.message and "ZeroDivisionError" in r.message
    assert r.stats.undefined > 0
    assert RunResult((r,)).exit_code == 2


def test_a_claim_that_raises_at_some_points_names_the_exception_and_the_point():
    r = run_check(AT_ZERO.checks()[0], SearchConfig(seed=0, budget=20_000))
    assert r.verdict is Verdict.SURVIVED  # 1/x^2 >= 0 wherever it is defined
    assert r.stats.undefined > 0
    assert "x = 0" in r.message and "ZeroDivisionError" in r.message
