"""Branch and bound on every function of the ctx table: Jets carry each one (with its derivative).

Before, a claim with tanh, sigmoid, softplus, erf, sin, cos, log1p or expm1 reached arb's function
with a Jet and FLINT aborted the whole process (lambertw and a root failed with an AttributeError).  For each function f on a box: the claim
``f(x) <= max f + 1/1000`` is proved and ``f(x) <= max f - 1/1000`` is never proved (a wrong
derivative would let the centred form exclude true values and prove it).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from verifier import Claim, Part, ProofDomain, Scalar
from verifier.proof_audit import ProofBudget, attempt, domain_of
from verifier.prove import prove

FUNCTIONS = {
    "tanh": mpmath.tanh, "sigmoid": lambda t: 1 / (1 + mpmath.exp(-t)), "softplus": lambda t: mpmath.log1p(mpmath.exp(t)),
    "erf": mpmath.erf, "sin": mpmath.sin, "cos": mpmath.cos, "log1p": mpmath.log1p, "expm1": mpmath.expm1,
    "lambertw": lambda t: mpmath.lambertw(t).real, "power 2/3": lambda t: mpmath.cbrt(t * t),  # x^2 under the root: its derivative is unbounded at 0 only
}


def _apply(ctx, name, x):
    return ctx.power(x * x, Fraction(1, 3)) if name == "power 2/3" else getattr(ctx, name)(x)
LO, HI = Fraction(-1, 4), Fraction(3, 2)  # inside every domain (lambertw: x >= -1/e)


def _claim(name, bound):  # noqa: D103
    return Claim(id=name.replace(" ", "-").replace("/", "-"), title=name, statement=f"{name}(x) <= {bound}", dims=[], variables=[Scalar("x", lo=LO, hi=HI)],
                 parts=[Part("main", lhs=lambda ctx, v: _apply(ctx, name, v.x), rhs=lambda ctx, v: ctx.const(bound))],
                 prove_on=ProofDomain(box=None))


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_every_function_is_proved_soundly_on_jets(name):
    f = FUNCTIONS[name]
    with mpmath.workdps(30):
        lo, width = mpmath.mpf(LO.numerator) / LO.denominator, mpmath.mpf(7) / 4  # HI - LO
        top = max(f(lo + k * width / 2000) for k in range(2001))
        top = Fraction(str(mpmath.nstr(top, 20)))
    room = Fraction(1, 1000)
    # on jets, whatever another strategy could do (z3 takes x^(2/3) by a root substitution)
    check = _claim(name, top + room).checks()[0]
    proof = prove(check, domain_of(check), "branch-and-bound", 30)
    assert proof.result.verdict.value == "proved", proof.result
    false = _claim(name, top - room).checks()[0]
    assert prove(false, domain_of(false), "branch-and-bound", 30).result.verdict.value != "proved"
