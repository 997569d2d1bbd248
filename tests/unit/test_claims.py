import numpy as np
import pytest

from verifier import Claim, ClaimDefinitionError, Dim, Part, Reading, Scalar, Vector
from verifier.contexts import FloatContext
from verifier.engine import SearchConfig, run_check
from verifier.results import Verdict


def simple(**kw):
    base = dict(
        id="T.1",
        title="t",
        statement="x <= 1",
        dims=[Dim("n", 1, 3)],
        variables=[Vector("x", "n", lo=-1, hi=1)],
        parts=[Part("main", lhs=lambda ctx, v: ctx.max_all(v.x), rhs=lambda ctx, v: ctx.const(1))],
    )
    base.update(kw)
    return Claim(**base)


def test_bad_declarations_name_the_problem():
    with pytest.raises(ClaimDefinitionError, match="unknown dim 'm'"):
        simple(variables=[Vector("x", "m")])
    with pytest.raises(ClaimDefinitionError, match="declared before"):
        simple(variables=[Vector("b", "n", near="a", radius="eps"), Vector("a", "n"), Scalar("eps")])
    with pytest.raises(ClaimDefinitionError, match="relation"):
        Part("p", lhs=None, rhs=None, relation="~")
    with pytest.raises(ClaimDefinitionError, match="lo <= hi"):
        Dim("n", 3, 1)
    with pytest.raises(ClaimDefinitionError, match="used twice"):
        simple(readings=[Reading("a", ""), Reading("a", "")])


def test_arguments_of_the_wrong_kind_name_the_argument():
    """Positional arguments in the wrong order, or one variable not in a list: one clear line."""
    with pytest.raises(ClaimDefinitionError, match="variables must hold Variable objects, got Dim"):
        simple(variables=[Dim("n", 1, 3)], dims=[Vector("x", "n")])
    with pytest.raises(ClaimDefinitionError, match="variables must be a list or tuple of Variable objects"):
        simple(variables=Vector("x", "n"))
    with pytest.raises(ClaimDefinitionError, match="parts must be a list or tuple of Part objects"):
        simple(parts="main")
    with pytest.raises(ClaimDefinitionError, match="hypotheses must hold Hypothesis objects"):
        simple(hypotheses=[lambda ctx, v: v.x])


def test_readings_restrict_and_override_parts():
    c = simple(
        parts=[
            Part("1", lhs=lambda ctx, v: ctx.max_all(v.x), rhs=lambda ctx, v: ctx.const(1)),
            Part("2", lhs=lambda ctx, v: ctx.max_all(v.x), rhs=lambda ctx, v: ctx.const(1)),
        ],
        readings=[Reading("plain", ""), Reading("strict", "", parts=("2",), overrides={"2": {"relation": "<"}})],
    )
    keys = [ch.key for ch in c.checks()]
    assert keys == [("T.1", "1", "plain"), ("T.1", "2", "plain"), ("T.1", "2", "strict")]
    assert c.checks(reading="strict")[0].strict


def test_relations_become_hypotheses():
    c = simple(variables=[Vector("a", "n"), Scalar("eps", lo=0), Vector("b", "n", near="a", radius="eps")])
    texts = [h.text for h in c.checks()[0].hypotheses]
    assert any("b \u2212 a" in t and "eps" in t for t in texts)


def test_margin_sign_convention_in_float():
    ch = simple().checks()[0]
    ev = ch.evaluate(FloatContext(), {"x": np.array([[0.5, 2.0], [0.1, 0.2]])}, {"n": 2})
    assert list(ev.margin) == [-1.0, 0.8]


def test_a_claim_that_raises_gets_verdict_error():
    def boom(ctx, v):
        raise RuntimeError("the lemma's formula divides by a missing constant")

    ch = simple(parts=[Part("main", lhs=boom, rhs=lambda ctx, v: ctx.const(1))]).checks()[0]
    r = run_check(ch, SearchConfig(budget=1000))
    assert r.verdict is Verdict.ERROR
    assert "divides by a missing constant" in r.message
