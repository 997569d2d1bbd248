"""Softmax perturbation bounds at n = 3 are proved within a small box budget, and false ones are
still refuted inside the claim's own domain (issue 26, item 6).

The claims are drawn from a seed: ||softm(a + b) - softm(a)||_inf <= C (e^eps - 1) with
||b||_inf <= eps, a in a box of random centre and width, and C random.  The supremum of the
ratio is 1/2 (softmax is 1/2-Lipschitz from l_inf to l_inf, e^eps - 1 >= eps), so C >= 3/2
is true with room, and C <= 1/4 false.  Before the branch and bound used the claim's
permutation symmetry and shift invariance, B.2 itself (C = 2) needed 771 boxes at n = 3,
and the true family here 79 to 1075 boxes (three of the four seeds more than 150); now
46 to 97.  The false family is refuted from a reduced domain, so the counterexample must
be mapped back into the stated box.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from verifier import Claim, Dim, Part, Scalar, Vector
from verifier.library import softmax
from verifier.prove import make_proof_box, prove
from verifier.prove.bnb import BranchAndBound


def _family(constant: Fraction):
    return Claim(
        id="softmax-perturbation", kind="lemma", paper="family", location="-", title="softmax perturbation",
        statement="||softm(a + b) - softm(a)||_inf <= C (e^eps - 1)", dims=[Dim("n", 1, 4)],
        variables=[Vector("a", "n"), Scalar("eps", lo=0), Vector("b", "n", radius="eps")],
        parts=[Part("main", lhs=lambda ctx, v: ctx.norm_inf(softmax(ctx, v.a + v.b) - softmax(ctx, v.a)),
                    rhs=lambda ctx, v: constant * (ctx.exp(v.eps) - 1), lhs_text="l", rhs_text="r")],
    ).checks()[0]


def _draw(seed: int, true: bool):
    rng = random.Random(seed)
    centre, half = Fraction(rng.randint(-8, 8), 2), Fraction(rng.randint(4, 10), 2)
    constant = Fraction(rng.randint(6, 12), 4) if true else Fraction(rng.randint(1, 5), 20)
    check = _family(constant)
    box = (centre - half, centre + half)
    domain = make_proof_box(check, {"n": 3}, None, {"a": box, "eps": (Fraction(1, 100), Fraction(rng.randint(1, 4), 2))})
    return check, domain, box


@pytest.mark.parametrize("seed", range(4))
def test_true_softmax_bounds_at_n3_are_proved_within_150_boxes(seed):
    check, domain, _ = _draw(seed, True)
    p = prove(check, domain, method="branch-and-bound", time_limit=600, max_boxes=150)
    assert p.result.verdict.value == "proved", p.result.message
    assert "permutations of the indices of n" in p.result.message and "shifts of every entry of a" in p.result.message


class _Recording(BranchAndBound):
    """Keeps the point certified before the shrinker moves it (it may leave the proof's box)."""

    def _refuted(self, found, *rest):
        self.found = found[0]
        return super()._refuted(found, *rest)


@pytest.mark.parametrize("seed", range(2))
def test_false_softmax_bounds_are_refuted_inside_the_stated_box(seed):
    check, domain, box = _draw(seed, False)
    bnb = _Recording(check, domain, time_limit=600, max_boxes=2000)
    p = bnb.run()
    assert p.result.verdict.value == "refuted", p.result.message
    assert bnb.reduction is not None and bnb.reduction.shifted  # found on the reduced domain
    values = [Fraction(int(x.p), int(x.q)) for x in bnb.found["a"].ravel()]
    assert len(values) == 3 and all(box[0] <= x <= box[1] for x in values), (values, box)
