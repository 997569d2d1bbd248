"""Every surface shows the claim's own lhs under "lhs", for every relation (issue 18).

The counterexample is found by the engine from a fresh seed; the test recomputes both
sides from the statement at the stored exact point and compares them with what the
result, the JSON reporter, the stored file and its replay show.
"""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath
import pytest

from verifier.engine import SearchConfig, run_check
from verifier.registry import Registry
from verifier.reporters import json_report
from verifier.evidence import parse_exact
from verifier.replay import replay
from verifier.store import CounterexampleStore

from .orientation_claims import RELATIONS, exp_claim, polynomial_claim, sides_at

CONFIG = SearchConfig(seed=0, budget=4000, time_limit=20.0)


def assert_shown(claim, x: Fraction, lhs_text: str, rhs_text: str, dps: int):
    lhs, rhs = sides_at(claim, x, dps)
    with mpmath.workdps(dps + 20):
        shown_lhs, shown_rhs = mpmath.mpf(lhs_text), mpmath.mpf(rhs_text)
        tol = mpmath.mpf(10) ** (-(dps - 5)) * (1 + abs(lhs) + abs(rhs))
        assert abs(lhs - rhs) > 1000 * tol, "the sides must differ for this test to mean anything"
        assert abs(shown_lhs - lhs) < tol, (claim.statement, x, lhs_text, lhs)
        assert abs(shown_rhs - rhs) < tol, (claim.statement, x, rhs_text, rhs)


@pytest.mark.parametrize("make", [polynomial_claim, exp_claim], ids=["exact", "ball"])
@pytest.mark.parametrize("relation", RELATIONS)
def test_every_surface_shows_the_claims_own_sides(make, relation, tmp_path):
    claim = make(relation, seed=RELATIONS.index(relation))
    (check,) = claim.checks()
    result = run_check(check, CONFIG)
    assert result.verdict.value == "refuted", (claim.statement, result.message)
    cx = result.counterexample
    x = parse_exact(cx.vars["x"])

    assert_shown(claim, x, cx.lhs, cx.rhs, cx.dps)  # CheckResult

    as_json = json.loads(json.dumps(json_report.result_to_dict(result)))["counterexample"]
    assert_shown(claim, x, as_json["lhs"], as_json["rhs"], cx.dps)  # JSON reporter

    path = CounterexampleStore(tmp_path).save(cx, claim.statement)
    stored = json.loads(path.read_text())
    assert_shown(claim, parse_exact(stored["vars"]["x"]), stored["lhs"], stored["rhs"], stored["dps"])  # stored file

    registry = Registry([claim])
    again = replay(path, registry.find)  # replay re-certifies from the exact inputs
    assert again.still_refutes and again.values_match
    assert_shown(claim, x, again.lhs, again.rhs, cx.dps)


@pytest.mark.parametrize("relation", ["<=", ">="])
def test_margin_sign_is_unchanged(relation):
    """The margin is >= 0 where the part holds, whatever the orientation of the sides."""
    from verifier.contexts import EXACT, to_fraction

    claim = polynomial_claim(relation, seed=7)
    (check,) = claim.checks()
    for x in (Fraction(1, 2), Fraction(2), Fraction(-1, 3)):
        ev = check.evaluate(EXACT, EXACT.convert({"x": [x]}), {})
        lhs, rhs = x * x, x - Fraction(claim.statement.rsplit(" ", 1)[1])
        assert to_fraction(ev.lhs[0]) == lhs and to_fraction(ev.rhs[0]) == rhs
        holds = lhs <= rhs if relation == "<=" else lhs >= rhs
        assert (ev.margin[0] >= 0) == holds


@pytest.mark.parametrize("relation", ["<=", ">="])
def test_ratio_approaches_one_near_a_violation(relation):
    """Survived rows report the ratio oriented so that it nears 1 as a violation nears:
    lhs/rhs for <=, rhs/lhs for >= (issue 13, part 4).  ``x <= 1 + c`` and its mirror
    ``1 + c >= x`` on [0, 1] come within 1/(1 + c) of a violation at x = 1."""
    from verifier.claims import Claim, Part, Scalar

    c = Fraction(1, 8)
    one = (lambda ctx, v: v.x, lambda ctx, v: 1 + c)
    lhs, rhs = one if relation == "<=" else one[::-1]
    claim = Claim("r", "ratio", "ratio", (Scalar("x", lo=0, hi=1),), (), (Part("main", lhs, rhs, relation=relation),))
    result = run_check(claim.checks()[0], SearchConfig(seed=1, budget=3000))
    assert result.verdict.value == "survived"
    assert result.stats.max_ratio == pytest.approx(float(1 / (1 + c)), rel=1e-9)


@pytest.mark.parametrize("relation", [">=", ">"])
def test_panel_rows_carry_the_claims_own_sides(relation):
    """The terminal panel (and the markdown report) put each side's value on its own label."""
    from rich.console import Console

    from verifier.reporters.text import render_result

    claim = polynomial_claim(relation, seed=3)
    result = run_check(claim.checks()[0], CONFIG)
    cx = result.counterexample
    console = Console(width=200, record=True, file=open("/dev/null", "w"))
    console.print(render_result(result, claim))
    panel = console.export_text()
    lhs_row = next(line for line in panel.splitlines() if "lhs  x^2" in line)
    rhs_row = next(line for line in panel.splitlines() if "rhs  x - c" in line)
    x = parse_exact(cx.vars["x"])
    lhs, rhs = sides_at(claim, x, 60)
    assert mpmath.mpf(lhs_row.split()[-2 if lhs_row.split()[-1] == "│" else -1]) == pytest.approx(float(lhs), rel=1e-12)
    assert mpmath.mpf(rhs_row.split()[-2 if rhs_row.split()[-1] == "│" else -1]) == pytest.approx(float(rhs), rel=1e-12)


def test_survived_geq_row_names_its_ratio():
    from verifier.claims import Claim, Part, Scalar
    from verifier.reporters.text import evidence

    claim = Claim("r", "ratio", "ratio", (Scalar("x", lo=0, hi=1),), (), (Part("main", lambda ctx, v: 2, lambda ctx, v: v.x, relation=">="),))
    result = run_check(claim.checks()[0], SearchConfig(seed=0, budget=2000))
    assert result.verdict.value == "survived" and "max rhs/lhs 0.5" in evidence(result)
