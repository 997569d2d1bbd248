"""``verify expr`` and the same claim written by hand reach the same verdict, on generated inequalities.

A seeded generator draws coefficients, a way of writing them (LaTeX with ``\\frac``, ``^{}``,
``\\cdot`` or implicit products, Python syntax, sides swapped) and a constraint of each kind
(none, an inequality hypothesis, a linear equality solved as Derived, a product equality
solved as Derived, a sum on a simplex, a sum of squares on a sphere).  The hand-written claim
states the same mathematics with its own ``ctx`` lambdas and the kinds a user would pick.

Family 1, ``k1 (a^2 + b^2 + c^2) >= k2 (ab + bc + ca)``, is true exactly when k1 >= k2 on every
one of these domains (a = b = c lies on each; Σa² >= Σab for all reals), so its verdict is
also checked against that.  Family 2 mixes exp and products, where only agreement is checked.
"""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest
from flint import fmpq

from verifier import Claim, Hypothesis, Part, Scalar
from verifier.certify import Certifier
from verifier.domains import Derived
from verifier.engine import SearchConfig, run_check
from verifier.frontend import ExprRequest, build

KINDS = ("none", "inequality", "derived-sum", "derived-product", "simplex", "sphere")
BUDGET = 3000


def _q(rng) -> Fraction:
    return Fraction(rng.randint(1, 7), rng.choice([1, 1, 2, 3]))


def _tex(q: Fraction, style: str) -> str:
    if q.denominator == 1:
        return str(q.numerator)
    return f"({q.numerator}/{q.denominator})" if style == "python" else rf"\frac{{{q.numerator}}}{{{q.denominator}}}"


def _family1(rng):
    k1, k2 = _q(rng), _q(rng)
    style = rng.choice(["latex", "latex-expanded", "python", "swapped"])
    if style == "python":
        text = f"{_tex(k1, style)}*(a**2 + b**2 + c**2) >= {_tex(k2, style)}*(a*b + b*c + c*a)"
    elif style == "latex-expanded":
        t1, t2 = _tex(k1, style), _tex(k2, style)
        text = rf"{t1} a^{{2}} + {t1} b^2 + {t1} c^2 \geq {t2} a \cdot b + {t2} bc + {t2} c a"
    elif style == "swapped":
        text = rf"{_tex(k2, style)}\left(ab+bc+ca\right) \le {_tex(k1, style)}\left(a^2+b^2+c^2\right)"
    else:
        text = rf"{_tex(k1, style)}(a^2+b^2+c^2) \ge {_tex(k2, style)}(ab+bc+ca)"
    relation = "<=" if style == "swapped" else ">="
    big = lambda ctx, v: ctx.const(k1) * (v.a * v.a + v.b * v.b + v.c * v.c)  # noqa: E731
    small = lambda ctx, v: ctx.const(k2) * (v.a * v.b + v.b * v.c + v.c * v.a)  # noqa: E731
    part = Part("main", relation=relation, lhs=small if style == "swapped" else big, rhs=big if style == "swapped" else small)
    return text, part, ("refuted" if k1 < k2 else "survived")


def _family2(rng):
    k, m = _q(rng), rng.randint(1, 3)
    text = rf"e^{{a}} + \exp(b) + \exp\left(c\right) \ge {_tex(k, 'latex')} (a + b + c) + {m} abc"
    part = Part("main", relation=">=",
                lhs=lambda ctx, v: ctx.exp(v.a) + ctx.exp(v.b) + ctx.exp(v.c),
                rhs=lambda ctx, v: ctx.const(k) * (v.a + v.b + v.c) + m * v.a * v.b * v.c)
    return text, part, None


def _domain(kind):
    """(--var, --where, the hand-written variables and hypotheses) of one constraint kind."""
    box = [Scalar(n, lo=-2, hi=2) for n in "abc"]
    positive = [Scalar(n, lo=0, hi=10**4) for n in "ab"]
    strict = [Hypothesis(f"{n} > 0", lambda ctx, v, n=n: v[n], strict=True) for n in "abc"]
    if kind == "none":
        return ["a, b, c in [-2, 2]"], [], box, []
    if kind == "inequality":
        return ["a, b, c in [-2, 2]"], [r"a \le b"], box, [Hypothesis("a <= b", lambda ctx, v: v.b - v.a)]
    if kind == "derived-sum":
        return ["a, b, c in [-2, 2]"], ["a + b + c = 1"], box[:2] + [Derived("c", lambda ctx, v: 1 - v.a - v.b, lo=-2, hi=2)], []
    if kind == "derived-product":
        return ["a, b, c > 0"], ["abc = 1"], positive + [Derived("c", lambda ctx, v: 1 / (v.a * v.b), lo=0)], strict
    from verifier.domains import Simplex, Sphere  # the sets' kinds

    members = [Derived(n, lambda ctx, v, k=k: v.abc[:, k], lo=0) for k, n in enumerate("abc")]
    if kind == "simplex":
        return ["a, b, c >= 0"], ["a + b + c = 3"], [Simplex("abc", 3, total=3)] + members, []
    members = [Derived(n, lambda ctx, v, k=k: v.abc[:, k]) for k, n in enumerate("abc")]
    return ["a, b, c"], ["a^2 + b^2 + c^2 = 3"], [Sphere("abc", 3, radius_squared=3)] + members, []


CASES = [(seed, kind, family) for seed, (kind, family) in enumerate((k, f) for f in (1, 2) for k in KINDS)]


@pytest.mark.parametrize("seed, kind, family", CASES, ids=[f"{k}-family{f}-seed{s}" for s, k, f in CASES])
def test_expr_and_the_hand_written_claim_agree(seed, kind, family):
    rng = random.Random(1000 + seed)
    text, part, truth = (_family1 if family == 1 else _family2)(rng)
    var_specs, where, variables, hypotheses = _domain(kind)
    built = build(ExprRequest(text, tuple(var_specs), (), tuple(where), None, "generated"))
    by_hand = Claim(id="by-hand", title="t", statement=text, dims=[], variables=variables, hypotheses=hypotheses, parts=[part])
    config = SearchConfig(seed=seed, budget=BUDGET)
    parsed = run_check(built.claim.checks()[0], config)
    written = run_check(by_hand.checks()[0], config)
    assert parsed.verdict.value == written.verdict.value, (text, kind, parsed.message, written.message)
    if truth is not None:
        assert parsed.verdict.value == truth, (text, kind)
    if parsed.counterexample is not None:  # the front end's point refutes the hand-written claim too, exactly
        cx = parsed.counterexample
        data = {}
        for var in by_hand.checks()[0].variables:
            value = np.asarray(cx.vars[var.name], dtype=object)
            exact = np.vectorize(lambda s: fmpq(*Fraction(s).as_integer_ratio()), otypes=[object])(value)
            data[var.name] = exact.reshape((1,) + value.shape)
        assert Certifier(50).certify(by_hand.checks()[0], data, cx.dims).violated
