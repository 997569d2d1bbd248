"""A rational claim violated by less than dps digits can resolve is found where the search touches it.

``(1 + 10^-k) * ||x - c||^2 <= ||x - c||^2`` fails at every x != c, by a relative margin of
about 10^-k / 2 with k > 46: float64 sees 0 (so every point is unresolved), and 50 digits
see 0 too (below their resolution of 1e-45, a tie).  Evaluated exactly -- the claim stays
rational -- the margin has a sign, and the first unresolved point the search looks at is a
certified counterexample, in the first chunk.  Before the search's high-precision looks were
exact, those points were ties at 50 digits, and the violation was only met later, when a
near-tie's simple rationals were certified (after 16,384 to 49,152 evaluations at the default
budget).  Centres, dimensions and k are drawn from the seed.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from verifier import Claim, Dim, Part, Vector
from verifier.contexts import ExactContext, MPContext
from verifier.engine import SearchConfig, run_check
from verifier.results import Verdict
from verifier.evidence import parse_exact


def below_dps_claim(member: int):
    rng = np.random.default_rng(7000 + member)
    n = int(rng.integers(1, 5))
    k = int(rng.integers(47, 91))
    centre = [Fraction(int(rng.integers(-20, 21)), int(rng.choice([3, 5, 7, 9, 11, 13]))) for _ in range(n)]
    bump = 1 + Fraction(1, 10**k)

    def sq(ctx, v):
        d = v.x - ctx.asarray(centre)
        return ctx.sum(d * d, axis=-1)

    part = Part("main", lambda ctx, v: bump * sq(ctx, v), sq, relation="<=", lhs_text="(1 + 10^-k) |x - c|^2", rhs_text="|x - c|^2")
    claim = Claim(id=f"below-dps-{member}", kind="claim", title=f"fails at every x != c by a relative 10^-{k}/2",
                  statement=f"(1 + 10^-{k}) |x - c|^2 <= |x - c|^2, c = {[str(q) for q in centre]}",
                  variables=(Vector("x", "n"),), dims=(Dim("n", n, n),), parts=(part,))
    return claim.checks()[0], k


@pytest.mark.parametrize("member", range(5))
def test_a_violation_below_dps_digits_is_found_exactly(member):
    check, k = below_dps_claim(member)
    for seed in range(5):
        config = SearchConfig(seed=seed, shrink=False)
        r = run_check(check, config)
        assert r.verdict is Verdict.REFUTED, (check.claim.statement, seed, r.stop_reason)
        # the first unresolved point it re-evaluates is the counterexample: found in the first chunk
        assert r.counterexample.found_by.evaluations <= config.batch, r.stop_reason
        assert r.method == "exact"
        cx = r.counterexample
        x = np.array([parse_exact(s) for s in cx.vars["x"]], dtype=object)
        data = {"x": x[None, :]}
        # exactly: violated by about 10^-k / 2 of the sides
        ev = check.evaluate(ExactContext(), ExactContext().convert(data), cx.dims)
        rel = Fraction(str(ev.margin[0])) / (2 * Fraction(str(ev.rhs[0])))
        assert rel < 0 and abs(rel) < Fraction(1, 10**46)
        # at 50 digits the same point is a tie: only exact arithmetic saw it
        mp = MPContext(50)
        with mp.precision():
            ev = check.evaluate(mp, mp.convert(data), cx.dims)
            assert abs(ev.margin[0]) <= abs(ev.rhs[0]) * Fraction(1, 10**45)
