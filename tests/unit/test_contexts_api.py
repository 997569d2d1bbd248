"""Every context takes what numpy takes, converts exactly at its precision, and says
"outside the domain" the same way (issue 18; issue 13 part 1)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb, fmpq

from verifier.certify import Certifier
from verifier.claims import Claim, ClaimDefinitionError, Part, Scalar, Vector
from verifier.claims import Dim
from verifier.contexts import (
    FUNCTIONS, BallContext, FunctionDomainError, ExactContext, FloatContext, MPContext, SymbolicContext, to_fraction,
)
from verifier.engine import SearchConfig, run_check

CONTEXTS = [FloatContext(), MPContext(40), ExactContext(), BallContext(160), SymbolicContext()]
IDS = [c.name for c in CONTEXTS]


def as_float(value) -> float:
    if isinstance(value, arb):
        return float(value.mid())
    if hasattr(value, "evalf"):
        return float(value.evalf(30))
    return float(value)


def batch(ctx, *values):
    data = ctx.convert({"x": [list(values)]})["x"] if ctx.name != "float64" else np.array([[float(v) for v in values]])
    return data


@pytest.mark.parametrize("ctx", CONTEXTS, ids=IDS)
def test_operators_and_functions_take_ints_fractions_and_constants(ctx):
    with ctx.precision():
        x = batch(ctx, Fraction(1, 3), 2)
        half = ctx.const("1/2")
        results = [
            x - Fraction(1, 3), Fraction(1, 3) - x, x * 2 + 1, 2 ** 1 * x / Fraction(3, 4), x * half, half - x,
            ctx.maximum(x, 0), ctx.maximum(Fraction(1, 2), x), ctx.minimum(x, half), ctx.minimum(1, x),
            x >= Fraction(1, 4), x ** 2, ctx.abs(x - 1), ctx.sum(x, 1), ctx.max(x, 1), ctx.min(x - Fraction(1, 2), 1),
            ctx.maximum(x, np.array([[Fraction(1, 2), 1]], dtype=object)),
        ]
    expected = [
        [0, 5 / 3], [0, -5 / 3], [5 / 3, 5], [8 / 9, 16 / 3], [1 / 6, 1], [1 / 6, -3 / 2],
        [1 / 3, 2], [1 / 2, 2], [1 / 3, 1 / 2], [1 / 3, 1], [1, 1], [1 / 9, 4], [2 / 3, 1], [7 / 3], [2], [-1 / 6],
        [1 / 2, 2],
    ]
    for got, want in zip(results, expected):
        flat = [as_float(v) for v in np.ravel(got)]
        assert flat == pytest.approx(want, abs=1e-12), (ctx.name, got, want)


@pytest.mark.parametrize("ctx", [c for c in CONTEXTS if c.name != "exact"], ids=[n for n in IDS if n != "exact"])
def test_maximum_of_a_transcendental_and_an_int(ctx):
    with ctx.precision():
        x = batch(ctx, 1, 0)
        out = ctx.maximum(ctx.exp(x) - 2, 0)
    assert [as_float(v) for v in np.ravel(out)] == pytest.approx([np.e - 2, 0])


def test_maximum_of_exp_and_int_certified_in_balls():
    """``max(e^x - 2, 0) <= x/2`` fails at x = 1 (e - 2 > 1/2); only balls can say so."""
    part = Part("main", lambda ctx, v: ctx.maximum(ctx.exp(v.x) - 2, 0), lambda ctx, v: v.x / 2)
    claim = Claim("m", "m", "max(e^x - 2, 0) <= x/2", (Scalar("x", lo=0, hi=2),), (), (part,))
    result = run_check(claim.checks()[0], SearchConfig(seed=0, budget=3000))
    assert result.verdict.value == "refuted", result.message
    assert result.counterexample.method == "interval"


@pytest.mark.parametrize("seed", range(3))
def test_elementwise_part_against_a_constant(seed):
    """``x_i <= c`` for a vector x: the constant side broadcasts as in numpy."""
    rng = np.random.default_rng(seed)
    c = Fraction(int(rng.integers(1, 9)), 10)
    part = Part("main", lambda ctx, v: v.x, lambda ctx, v, c=c: c, elementwise=True)
    claim = Claim("e", "e", f"x_i <= {c}", (Vector("x", "n", lo=-1, hi=1),), (Dim("n", 2, 6),), (part,))
    result = run_check(claim.checks()[0], SearchConfig(seed=seed, budget=3000))
    assert result.verdict.value == "refuted", result.message
    assert max(Fraction(s) for s in result.counterexample.vars["x"]) > c


@pytest.mark.parametrize("bound", ["0.1", Fraction(1, 10), Decimal("0.1"), 0.1])
def test_bounds_mean_the_value_written(bound):
    var = Scalar("x", lo=bound, hi="7/10")
    assert Fraction(var.lo) == Fraction(1, 10) and to_fraction(var.lo) == Fraction(1, 10)
    assert float(var.lo) <= Fraction(1, 10) and float(var.lo) == pytest.approx(0.1, rel=1e-15)  # rounded outward
    assert f"{var.lo:g}" == "0.1" and repr(var.lo) == "0.1"
    assert var.lo.plain == "1/10" and var.hi.plain == "7/10" and Scalar("y", lo=0, hi=0.5).hi.plain == 0.5


def test_a_bad_bound_is_named():
    with pytest.raises(ClaimDefinitionError, match="variable x: lo='one'"):
        Scalar("x", lo="one")


def test_claim_false_only_at_a_decimal_endpoint_is_refuted():
    """``x > 1e-9`` on [1e-9, 1] fails only at x = 1/10^9 itself: the search clips to the
    float 1e-9, the exact projection lands on the decimal, the certificate agrees."""
    part = Part("main", lambda ctx, v: v.x, lambda ctx, v: Fraction(1, 10**9), relation=">")
    claim = Claim("b", "b", "x > 1e-9", (Scalar("x", lo=1e-9, hi=1),), (), (part,))
    result = run_check(claim.checks()[0], SearchConfig(seed=0, budget=3000))
    assert result.verdict.value == "refuted", result.message
    assert Fraction(result.counterexample.vars["x"]) == Fraction(1, 10**9)


def test_float_literal_is_named_with_claim_part_and_the_fix():
    part = Part("p1", lambda ctx, v: v.x * 0.45, lambda ctx, v: v.x)
    claim = Claim("lit", "lit", "0.45 x <= x", (Scalar("x", lo=-1, hi=1),), (), (part,))
    result = run_check(claim.checks()[0], SearchConfig(seed=0, budget=2000))
    assert result.verdict.value == "error"
    assert "claim lit part p1 (lhs)" in result.message
    assert "use ctx.const('0.45') or Fraction(9, 20)" in result.message


# ------------------------------------------------------------- precision of conversion
DYADIC = Fraction(2**165 + 1, 2**165)  # 166 significant bits


@pytest.mark.parametrize("value", [Fraction(1, 3), DYADIC], ids=["1/3", "166-bit"])
def test_mp_converts_at_its_precision(value):
    mp = MPContext(80)
    (x,) = mp.convert({"x": [value]})["x"]
    with mpmath.workdps(120):
        err = abs(x - mpmath.mpf(value.numerator) / value.denominator)
        assert err < mpmath.mpf(10) ** -78


@pytest.mark.parametrize("value", [Fraction(1, 3), DYADIC], ids=["1/3", "166-bit"])
def test_ball_converts_at_its_precision(value):
    ball = BallContext(400)
    (x,) = ball.convert({"x": [value]})["x"]
    with ball.precision():
        assert x.contains(fmpq(value.numerator, value.denominator))
        assert x.rad() < arb(2) ** -390
        if value.denominator & (value.denominator - 1) == 0:
            assert x.is_exact()


@pytest.mark.parametrize("ctx", [ExactContext(), SymbolicContext()], ids=["exact", "symbolic"])
@pytest.mark.parametrize("value", [Fraction(1, 3), DYADIC], ids=["1/3", "166-bit"])
def test_exact_contexts_keep_every_bit(ctx, value):
    (x,) = ctx.convert({"x": [value]})["x"]
    assert Fraction(str(x)) == value


def test_certificate_sees_a_violation_below_float_resolution_at_one_third():
    """e^x >= e^(1/3) + 1e-40 fails at 1/3 by 1e-40; converted at 53 bits it would be 'tight'."""
    bump = Fraction(1, 10**40)
    part = Part("main", lambda ctx, v: ctx.exp(v.x), lambda ctx, v: ctx.exp(ctx.const("1/3")) + bump, relation=">=")
    claim = Claim("p", "p", "p", (Scalar("x", lo=0, hi=1),), (), (part,))
    cert = Certifier(50).certify(claim.checks()[0], ExactContext().convert({"x": [Fraction(1, 3)]}), {})
    assert cert.violated and cert.method == "interval"


# ------------------------------------------------------------------- domains
UNDEFINED = [("log", Fraction(-1, 2)), ("log", Fraction(0)), ("sqrt", Fraction(-1, 3)), ("log1p", Fraction(-3, 2)),
             ("lambertw", Fraction(-1, 2)), ("power", Fraction(-2))]


def _call(ctx, name, x):
    return ctx.power(x, Fraction(1, 2)) if name == "power" else getattr(ctx, name)(x)


@pytest.mark.parametrize("name,value", UNDEFINED)
def test_every_context_says_undefined_the_same_way(name, value):
    f = FloatContext()
    with f.precision():
        out = _call(f, name, np.array([float(value)]))
    assert np.isnan(out[0]) or (name == "log" and value == 0 and np.isneginf(out[0]))
    for ctx in (MPContext(30), ExactContext(), BallContext(100), SymbolicContext()):
        with ctx.precision(), pytest.raises(FunctionDomainError):
            _call(ctx, name, ctx.convert({"x": [value]})["x"])


def test_outside_the_domain_is_a_hypothesis_violation_never_a_refutation():
    part = Part("main", lambda ctx, v: ctx.log(v.x), lambda ctx, v: v.x)
    claim = Claim("d", "d", "log x <= x", (Scalar("x", lo=-1, hi=2),), (), (part,))
    for ctx in (ExactContext(),):
        cert = Certifier(30).certify(claim.checks()[0], ctx.convert({"x": [Fraction(-1, 2)]}), {})
        assert cert.status == "hypothesis-fails"
    result = run_check(claim.checks()[0], SearchConfig(seed=0, budget=3000))
    assert result.verdict.value == "survived", result.message


def test_exact_special_values_are_rational():
    ctx = ExactContext()
    zero, one = ctx.convert({"x": [0]})["x"], ctx.convert({"x": [1]})["x"]
    values = {f.name: _call(ctx, f.name, zero)[0] for f in FUNCTIONS if f.arity == 1 and f.name not in ("log", "softplus")}
    assert values == {"exp": 1, "sqrt": 0, "abs": 0, "sign": 0, "tanh": 0, "sigmoid": fmpq(1, 2), "erf": 0, "sin": 0, "cos": 1,
                      "log1p": 0, "expm1": 0, "power": 0, "lambertw": 0}
    assert ctx.log(one)[0] == 0
    assert ctx.power(ctx.convert({"x": [Fraction(4, 9)]})["x"], Fraction(3, 2))[0] == fmpq(8, 27)
    assert ctx.power(ctx.convert({"x": [Fraction(-2)]})["x"], 3)[0] == -8
