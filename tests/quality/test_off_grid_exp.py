"""An ``exp`` claim violated only within ~1e-20 of a rational that no float holds (issue 13, part 1).

``e^(x - q) - (x - q) >= 1 + 1e-40`` fails exactly where ``(x - q)^2 / 2 < 1e-40`` (to
leading order), a set of width ~3e-20 around ``q = a/b``.  Float64 sees 1 = 1 there; only
the deep phase at dps digits resolves the margin, and only a certificate that converts
its inputs at the working precision can certify a violation of relative size 1e-40.
``q`` is drawn from the seed.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from verifier.certify import Certifier
from verifier.claims import Claim, Part, Scalar
from verifier.contexts import ExactContext
from verifier.engine import SearchConfig, run_check

BUMP = Fraction(1, 10**40)


def off_grid_claim(seed: int) -> tuple[Claim, Fraction]:
    rng = np.random.default_rng(1000 + seed)
    b = int(rng.choice([3, 7, 11, 13, 17, 19, 23]))
    q = Fraction(int(rng.integers(1, b)), b)  # in (0, 1), never a binary fraction

    def lhs(ctx, v, q=q):
        d = v.x - ctx.const(q)
        return ctx.exp(d) - d

    part = Part("main", lhs, lambda ctx, v: 1 + ctx.const(BUMP), relation=">=", lhs_text="e^(x-q) - (x-q)", rhs_text="1 + 1e-40")
    claim = Claim(f"offgrid{seed}", "off the float grid", f"e^(x - {q}) - (x - {q}) >= 1 + 1e-40", (Scalar("x", lo=0, hi=1),), (), (part,))
    return claim, q


@pytest.mark.parametrize("seed", range(5))
def test_certificate_resolves_a_violation_of_relative_size_1e_40_off_the_grid(seed):
    """At a rational within 1e-20 of q (not a float, not q itself) balls certify the violation;
    with inputs rounded to 53 bits on the way in, every such point was 'tight'."""
    claim, q = off_grid_claim(seed)
    rng = np.random.default_rng(seed)
    x = q + Fraction(int(rng.integers(1, 9)) * (-1) ** int(rng.integers(2)), 10**21)
    cert = Certifier(50).certify(claim.checks()[0], ExactContext().convert({"x": [x]}), {})
    assert cert.violated and cert.method == "interval", cert
    far = q + Fraction(1, 10**19)  # (x - q)^2 / 2 = 5e-39 > 1e-40: holds
    assert Certifier(50).certify(claim.checks()[0], ExactContext().convert({"x": [far]}), {}).status == "holds"


# Found since near-ties are retried at nearby simple rationals (q = a/b, b <= 23, is one):
# float64 meets margin 0 around q, and the rounding of x to small denominators lands on q.
@pytest.mark.parametrize("seed", range(5))
def test_violation_off_the_float_grid_is_found(seed):
    claim, q = off_grid_claim(seed)
    result = run_check(claim.checks()[0], SearchConfig(seed=seed))
    assert result.verdict.value == "refuted", (claim.statement, result.stop_reason, result.stats)
    x = Fraction(result.counterexample.vars["x"])
    assert abs(x - q) < Fraction(1, 10**19)
    assert result.counterexample.method == "interval" or x == q
