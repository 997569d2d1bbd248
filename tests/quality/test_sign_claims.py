"""Claims with ``ctx.sign`` (Lion's and signSGD's update), generated from a seed.

Two families, each with a true twin that must survive and a false one the search must refute
at a point the certifier confirms, from a fresh seed:

* *zero signs*: offsets ``c`` (simple rationals) drawn per member; ``sum_i sign(x_i - c_i)^2``
  is ``n`` off the hyperplanes ``x_i = c_i`` and drops by one on each, where the sign is exactly
  0: ``<= n`` holds, ``>= n - 1/2`` fails exactly there;
* *Lion's step against a gradient*: weights ``w > 0`` drawn per member;
  ``sum_i w_i sign(m_i) g_i <= sum_i w_i |g_i|`` holds (each term), and with ``- delta`` on the
  right it fails wherever every sign of ``m`` matches ``g``'s.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from verifier import Claim, Dim, Part, Vector
from verifier.certify import Certifier
from verifier.engine import QUICK, SearchConfig, run_check

from .domain_families import exact_point


def zero_sign_claim(seed: int, false: bool):
    rng = np.random.default_rng([seed, 81])
    n = int(rng.integers(2, 5))
    c = [Fraction(int(k), int(d)) for k, d in zip(rng.integers(-6, 7, n), rng.choice([1, 2, 4], n))]

    def squares(ctx, v):
        return sum(ctx.sign(v.x[:, i] - ctx.const(q)) ** 2 for i, q in enumerate(c))

    bound, relation = (Fraction(2 * n - 1, 2), ">=") if false else (Fraction(n), "<=")
    return Claim(f"zero-sign-{seed}", "sign", "sum sign(x - c)^2", variables=(Vector("x", "n", lo=-4, hi=4),),
                 dims=(Dim("n", n, n),), parts=(Part("main", squares, lambda ctx, v: ctx.const(bound), relation=relation),)).checks()[0]


def lion_claim(seed: int, false: bool):
    rng = np.random.default_rng([seed, 82])
    n = int(rng.integers(2, 6))
    w = [Fraction(int(k), 4) for k in rng.integers(1, 9, n)]
    delta = Fraction(int(rng.integers(1, 10)), 10**int(rng.integers(1, 4))) if false else 0

    def step(ctx, v):
        return sum(ctx.const(wi) * ctx.sign(v.m[:, i]) * v.g[:, i] for i, wi in enumerate(w))

    def bound(ctx, v):
        return sum(ctx.const(wi) * ctx.abs(v.g[:, i]) for i, wi in enumerate(w)) - ctx.const(delta)

    return Claim(f"lion-{seed}", "Lion", "sum w sign(m) g <= sum w |g|", variables=(Vector("m", "n"), Vector("g", "n")),
                 dims=(Dim("n", n, n),), parts=(Part("main", step, bound, relation="<="),)).checks()[0]


def _refuted_exactly(check, seed):
    result = run_check(check, SearchConfig(seed=seed, budget=QUICK.budget))
    assert result.verdict.value == "refuted", (check.claim.id, result.stop_reason, result.message)
    assert Certifier(50).certify(check, exact_point(result.counterexample), result.counterexample.dims).violated
    return result


@pytest.mark.parametrize("family", [zero_sign_claim, lion_claim], ids=["zero-sign", "lion"])
@pytest.mark.parametrize("seed", range(4))
def test_the_false_twin_is_refuted_and_the_true_one_survives(family, seed):
    _refuted_exactly(family(seed, false=True), seed)
    assert run_check(family(seed, false=False), SearchConfig(seed=seed, budget=QUICK.budget)).verdict.value == "survived"
