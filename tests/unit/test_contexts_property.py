"""The contexts agree by construction: random expression trees over the whole ``ctx`` API.

The generator is driven by ``verifier.contexts.FUNCTIONS`` and ``REDUCTIONS``, so a
function added there joins it the same day.  Each tree is evaluated at a random rational
point in float64, mpmath, exact rationals (where the value stays rational) and balls:
the ball must enclose the (higher-precision) mpmath value, exact must equal it, and
float64 must agree with it wherever the ball at 53 bits says the expression is
well-conditioned.  The prover's jets are evaluated over a random box: at points of the
box, the jet's value must enclose the mpmath value and its gradient the derivative
(mpmath.diff), and its centre value the value at the centre.  Derandomized: the same trees
on every run.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from verifier.contexts import (
    FUNCTIONS, REDUCTIONS, BallContext, FunctionDomainError, ExactContext, FloatContext, MPContext, NotRational, SymbolicContext,
)
from verifier.prove.jets import JetContext, interval_ball

FLOAT, MP, EXACT, BALL, BALL53 = FloatContext(), MPContext(100), ExactContext(), BallContext(256), BallContext(53)
EXPONENTS = [Fraction(p) for p in ("2", "3", "-1", "1/2", "3/2", "-1/2", "1/3")]
UNDEFINED = (FunctionDomainError, ZeroDivisionError)
#: beyond this an argument of sin/cos/... costs mpmath more than a test should spend
LARGEST = mpmath.mpf(10) ** 8

rationals = st.builds(Fraction, st.integers(-40, 40), st.sampled_from([1, 2, 3, 4, 7, 8, 10, 64]))
leaves = st.one_of(st.just(("x",)), st.just(("x",)), rationals.map(lambda q: ("const", q)), st.integers(-3, 3).map(lambda k: ("int", k)))


def _extend(children):
    unary = [f.name for f in FUNCTIONS if f.arity == 1 and not f.exponent]
    binary = [f.name for f in FUNCTIONS if f.arity == 2]
    powers = [f.name for f in FUNCTIONS if f.exponent]
    return st.one_of(
        st.tuples(st.just("fn"), st.sampled_from(unary), children),
        st.tuples(st.just("fn2"), st.sampled_from(binary), children, children),
        st.tuples(st.just("pow"), st.sampled_from(powers), children, st.sampled_from(EXPONENTS)),
        st.tuples(st.just("pow2"), st.sampled_from(powers), children, children),  # a variable exponent
        st.tuples(st.just("op"), st.sampled_from(["+", "-", "*", "/", "**2"]), children, children),
        st.tuples(st.just("reduce"), st.sampled_from(REDUCTIONS), children),
        st.tuples(st.just("sort"), st.booleans(), children),
        st.tuples(st.just("top_k"), st.integers(1, 3), children),
    )


trees = st.recursive(leaves, _extend, max_leaves=6)


def evaluate(tree, ctx, x, guard=False):
    kind = tree[0]
    if kind == "x":
        out = x
    elif kind == "const":
        out = tree[1] if ctx is not FLOAT else float(tree[1])
    elif kind == "int":
        out = tree[1]
    elif kind == "fn":
        out = getattr(ctx, tree[1])(evaluate(tree[2], ctx, x, guard))
    elif kind == "fn2":
        out = getattr(ctx, tree[1])(evaluate(tree[2], ctx, x, guard), evaluate(tree[3], ctx, x, guard))
    elif kind == "pow":
        out = getattr(ctx, tree[1])(evaluate(tree[2], ctx, x, guard), tree[3])
    elif kind == "pow2":
        base, exponent = evaluate(tree[2], ctx, x, guard), evaluate(tree[3], ctx, x, guard)
        if not isinstance(exponent, np.ndarray):  # a constant, as an array: the variable-exponent path
            exponent = np.asarray(exponent, dtype=float if ctx is FLOAT else object)
        out = getattr(ctx, tree[1])(base, exponent)
    elif kind == "sort":
        arg = evaluate(tree[2], ctx, x, guard)
        out = ctx.sort(arg, 1, descending=tree[1]) if np.ndim(arg) == 2 else arg
    elif kind == "top_k":
        arg = evaluate(tree[2], ctx, x, guard)
        # summed, so that the tree's shapes still broadcast (the sum of the k largest, as in sparsemax)
        out = ctx.sum(ctx.top_k(arg, min(tree[1], np.shape(arg)[1]), axis=1), 1) if np.ndim(arg) == 2 else arg
    elif kind == "reduce":
        arg = evaluate(tree[2], ctx, x, guard)
        out = getattr(ctx, tree[1])(arg, 1) if np.ndim(arg) == 2 else arg
    else:
        a, b = evaluate(tree[2], ctx, x, guard), evaluate(tree[3], ctx, x, guard)
        if isinstance(a, int) and isinstance(b, int):
            a = Fraction(a)  # int / int is a Python float, which claim code must not contain
        out = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b, "**2": lambda: a ** 2 + b}[tree[1]]()
    if guard:
        assume(all(abs(v) < LARGEST for v in np.ravel(ctx.lift(out))))
    return out


def run(tree, ctx, point, guard=False):
    data = ctx.convert({"x": [point]}) if ctx is not FLOAT else {"x": np.array([[float(q) for q in point]])}
    with ctx.precision():
        out = evaluate(tree, ctx, data["x"], guard)
        if ctx is not FLOAT:
            out = ctx.lift(out)  # a tree that is a bare constant, as a side written ``rhs = 1``
    return list(np.ravel(np.asarray(out, dtype=object if ctx is not FLOAT else float)))


def rooted(function):
    """Trees whose root is ``function``: every function is exercised, whatever the draw."""
    if function.exponent:
        return st.tuples(st.just("pow"), st.just(function.name), trees, st.sampled_from(EXPONENTS))
    if function.arity == 2:
        return st.tuples(st.just("fn2"), st.just(function.name), trees, trees)
    return st.tuples(st.just("fn"), st.just(function.name), trees)


SETTINGS = settings(max_examples=40, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck), database=None)
POINTS = st.lists(rationals, min_size=3, max_size=3)


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f.name)
def test_contexts_agree_on_every_function(function):
    SETTINGS(given(tree=rooted(function), point=POINTS)(check_agreement))()


@SETTINGS
@given(tree=trees, point=POINTS)
def test_contexts_agree_on_any_tree(tree, point):
    check_agreement(tree, point)


def check_agreement(tree, point):
    try:
        reference = run(tree, MP, point, guard=True)
    except UNDEFINED:
        event("undefined at the point")
        for ctx in (EXACT, BALL):
            try:
                values = run(tree, ctx, point)
            except (UNDEFINED + (NotRational,)):
                continue
            assert any(not v.is_finite() for v in values) if ctx is BALL else False, (tree, point, ctx.name)
        return
    with mpmath.workdps(MP.dps):
        slack = [mpmath.mpf(10) ** -90 * (1 + abs(r)) for r in reference]

        balls = run(tree, BALL, point)
        for b, r, s in zip(balls, reference, slack):
            if b.is_finite():
                lo, hi = mpmath.mpf(b.lower().str(120, radius=False)), mpmath.mpf(b.upper().str(120, radius=False))
                assert lo - s <= r <= hi + s, (tree, point, b, r)

        try:
            exact = run(tree, EXACT, point)
        except NotRational:
            exact = None
        event("exact compared" if exact is not None else "irrational")
        if exact is not None:
            for q, r, s in zip(exact, reference, slack):
                assert abs(mpmath.mpf(int(q.p)) / int(q.q) - r) <= s, (tree, point, q, r)

        with np.errstate(all="ignore"):
            floats = run(tree, FLOAT, point)
        try:
            coarse = run(tree, BALL53, point)
        except UNDEFINED:
            return  # at 53 bits the enclosure touches the edge of a domain: ill-conditioned
        for f, b, r in zip(floats, coarse, reference):
            well_conditioned = b.is_finite() and b.rad() <= arb("1e-10") * (1 + abs(b.mid()))
            event("float compared" if np.isfinite(f) and well_conditioned else "float not compared")
            if np.isfinite(f) and well_conditioned:
                assert abs(mpmath.mpf(f) - r) <= mpmath.mpf("1e-8") * (1 + abs(r)), (tree, point, f, r)


@pytest.mark.parametrize("ctx", [FLOAT, MP, EXACT, BALL, SymbolicContext()], ids=lambda c: c.name)
def test_every_context_implements_every_function(ctx):
    for f in FUNCTIONS:
        assert callable(getattr(ctx, f.name, None)), (ctx.name, f.name)
    for name in REDUCTIONS:
        assert callable(getattr(ctx, name, None)), (ctx.name, name)


# -- the prover's jets ---------------------------------------------------------------------
JET_SETTINGS = settings(max_examples=25, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck), database=None)
#: a box per entry of x: a rational centre and a half-width
BOXES = st.lists(st.tuples(rationals, st.sampled_from([Fraction(1, 64), Fraction(1, 8), Fraction(1, 2), Fraction(2)])),
                 min_size=3, max_size=3)
DIFF_DPS = 60


def run_jets(tree, box):
    """The entries of ``tree`` as Jets over ``box`` (x_i in [c_i - h_i, c_i + h_i])."""
    ctx = JetContext([interval_ball(-h, h) for _, h in box], 128)
    with ctx.precision():
        x = ctx.wrap(np.array([[ctx.coordinate(i, c - h, c + h) for i, (c, h) in enumerate(box)]], dtype=object))
        out = ctx.lift(evaluate(tree, ctx, x))
    return list(np.ravel(np.asarray(out, dtype=object)))


def mp_values(tree, point):
    return run(tree, MP, point)


def _ball_holds(ball, value, slack) -> bool:
    lo = mpmath.mpf(ball.lower().str(120, radius=False))
    hi = mpmath.mpf(ball.upper().str(120, radius=False))
    return lo - slack <= value <= hi + slack


def check_jets(tree, box):
    try:
        jets = run_jets(tree, box)
    except (UNDEFINED + (NotRational,)):
        event("jets: undefined on part of the box")
        return
    centre = [c for c, _ in box]
    corner = [c - h for c, h in box]
    inner = [c + h * Fraction(k, 7) for (c, h), k in zip(box, (3, -5, 1))]
    with mpmath.workdps(DIFF_DPS):
        for point in (centre, corner, inner):
            # the jets found the function defined on the whole box: so must mpmath, at every point of it
            values = mp_values(tree, point)
            for jet, value in zip(jets, values):
                if jet.v.is_finite():
                    assert _ball_holds(jet.v, value, mpmath.mpf(10) ** -40 * (1 + abs(value))), (tree, box, point, jet.v, value)
        for jet, value in zip(jets, mp_values(tree, centre)):
            if jet.c.is_finite():
                assert _ball_holds(jet.c, value, mpmath.mpf(10) ** -40 * (1 + abs(value))), (tree, box, "centre", jet.c, value)
        for k, jet in enumerate(jets):
            if jet.g is None:
                continue
            for i in range(len(box)):
                if not jet.g[i].is_finite():
                    continue
                event("jets: derivative compared")

                def along(t, i=i, k=k):
                    moved = list(inner)
                    moved[i] = t
                    return mp_values(tree, moved)[k]

                # the coordinates are rationals, mpmath.diff steps in floats: evaluate on mpf points
                slope = mpmath.diff(lambda t: along(_fraction(t)), mpmath.mpf(inner[i].numerator) / inner[i].denominator)
                assert _ball_holds(jet.g[i], slope, mpmath.mpf(10) ** -20 * (1 + abs(slope))), (tree, box, i, jet.g[i], slope)


def _fraction(t) -> Fraction:
    """The exact value of an mpf."""
    sign, man, exp, _ = mpmath.mpf(t)._mpf_
    return (-1) ** sign * Fraction(int(man)) * Fraction(2) ** int(exp)


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f.name)
def test_jets_enclose_every_function_and_its_derivative(function):
    JET_SETTINGS(given(tree=rooted(function), box=BOXES)(check_jets))()


@JET_SETTINGS
@given(tree=trees, box=BOXES)
def test_jets_enclose_any_tree(tree, box):
    check_jets(tree, box)


def test_jets_implement_every_function():
    ctx = JetContext([None], 64)
    for f in FUNCTIONS:
        assert callable(getattr(ctx, f.name, None)), f.name
