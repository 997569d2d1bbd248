"""Search below float64's resolution: a violation float64 cannot see is still found.

The claim is test-only (it is not from the paper):  log(1 + x) >= x - x^2/2 + x^3/3 - 1e-45
on [0, 1e-8].  Taylor: log(1 + x) - (x - x^2/2 + x^3/3) = -x^4/4 + x^5/5 - ..., so the claim
fails exactly where x^4/4 - x^5/5 + ... > 1e-45, i.e. for x above about 7.95e-12: almost
all of the domain.  But the margin is at most 2.5e-33 in size against lhs and rhs near
1e-8 -- a relative margin of 1e-25, far below float64's 1e-16 -- so the sign of every
float64 margin there is rounding noise.
"""

from fractions import Fraction

import numpy as np

from verifier import Claim, Part, Scalar
from verifier.contexts import FloatContext
from verifier.engine import SearchConfig, run_check
from verifier.results import Verdict
from verifier.evidence import parse_exact

LOG_TAYLOR = Claim(
    id="T.log",
    kind="claim",
    title="Third-order Taylor bound of log(1 + x), off by 1e-45 (test only)",
    statement="log(1 + x) >= x - x^2/2 + x^3/3 - 1e-45 for x in [0, 1e-8]",
    dims=[],
    variables=[Scalar("x", lo=0, hi=1e-8)],
    parts=[
        Part(
            "main",
            lhs=lambda ctx, v: ctx.log(1 + v.x),
            rhs=lambda ctx, v: v.x - v.x**2 / 2 + v.x**3 / 3 - ctx.const("1e-45"),
            relation=">=",
        )
    ],
)
CHECK = LOG_TAYLOR.checks()[0]


def test_found_in_the_deep_phase_and_certified():
    for seed in range(3):
        r = run_check(CHECK, SearchConfig(seed=seed, budget=20_000))
        assert r.verdict is Verdict.REFUTED
        assert r.certified and r.method == "interval"
        assert r.counterexample.found_by.phase == "deep"
        x = parse_exact(r.counterexample.vars["x"])
        assert 7.9e-12 < x <= 1e-8  # where the hand derivation says it fails
        assert float(parse_exact(r.counterexample.margin)) < 0


def test_float64_cannot_see_the_violation_at_the_counterexample():
    for seed in range(3):
        r = run_check(CHECK, SearchConfig(seed=seed, budget=20_000))
        x = float(parse_exact(r.counterexample.vars["x"]))
        true_margin = float(parse_exact(r.counterexample.margin))
        ev = CHECK.evaluate(FloatContext(), {"x": np.array([x])}, {})
        # float64's margin there is rounding noise at least as large as the true margin
        assert abs(ev.margin[0] - true_margin) >= abs(true_margin)


def test_float64_search_alone_does_not_find_it():
    r = run_check(CHECK, SearchConfig(seed=0, budget=20_000, deep=False))
    assert r.verdict is Verdict.SURVIVED
    assert r.stats.unresolved > 0  # float64 met the violations, and could not tell
    assert r.stats.deep_evaluations == 0


NEAR_THIRD = Claim(
    id="T.third",
    kind="claim",
    title="(x - 1/3)^2 >= 1e-40 (test only)",
    statement="(x - 1/3)^2 >= 1e-40 for x in [0, 1]",
    notes="Fails exactly for |x - 1/3| < 1e-20: no float64 lies there (their spacing near 1/3 is 5.6e-17).",
    dims=[],
    variables=[Scalar("x", lo=0, hi=1)],
    parts=[Part("main", lhs=lambda ctx, v: (v.x - ctx.const("1/3")) ** 2, rhs=lambda ctx, v: ctx.const("1e-40"), relation=">=")],
)


def test_the_deep_local_search_moves_below_float64_spacing():
    check = NEAR_THIRD.checks()[0]
    r = run_check(check, SearchConfig(seed=0, budget=20_000, shrink=False))
    assert r.verdict is Verdict.REFUTED and r.counterexample.found_by.phase == "deep"
    x = parse_exact(r.counterexample.vars["x"])
    assert abs(x - Fraction(1, 3)) < Fraction(1, 10**20)
    assert float(x) == 1 / 3  # the nearest float64 is not a counterexample; x lies between floats
    assert run_check(check, SearchConfig(seed=0, budget=20_000, deep=False)).verdict is Verdict.SURVIVED
