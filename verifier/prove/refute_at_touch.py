"""A proof strategy for strict claims: refute at an exact touching point.

A strict claim that is tight somewhere (``x + 1/(2x) > sqrt 2`` at ``x = 1/sqrt 2``) can never
be proved -- branch and bound leaves the box around the touching point open for ever -- and
is false exactly there.  This strategy looks for that point: local minima of the relative
margin from seeded starts in the domain (float64, scipy), then
:func:`verifier.equality.exact_equality_points` (Newton at 80 digits, PSLQ, a check in exact
arithmetic in the number field of the point), then the ordinary certifier at that exact point.
What it returns is a certified counterexample or nothing.
"""

from __future__ import annotations

import time

import numpy as np

from ..certify import Certifier
from ..claims import Check
from ..contexts import FLOAT
from ..counterexample import make_counterexample
from ..equality import exact_equality_points, plain_coordinates
from ..results import CheckResult, FoundBy, Verdict
from .domain import ProofBox
from .result import Proof, ProofDetails, base_fields
from .strategy import Strategy

#: local searches from seeded starts
STARTS = 12
#: the box of a variable the domain leaves unbounded
DEFAULT_SPAN = (-4.0, 4.0)


class TouchingPointRefutation(Strategy):
    """Strategy (the interface of ``verifier.prove``'s list): a strict claim refuted at an exact
    (rational or algebraic) point where both sides are equal."""

    name = "touching-point"
    summary = "a strict claim refuted where both sides are exactly equal (an algebraic point, checked in its number field)"
    seconds: float | None = 10.0
    share = 0.25

    def applies(self, check: Check, domain: ProofBox) -> str | None:
        if not check.strict:
            return "the claim is not strict: a touching point does not refute it"
        if plain_coordinates(check) is None:
            return "a variable lies on a set, in a relation or is derived"
        if check.part.elementwise:
            return "an elementwise part"
        return None

    def attempt(self, check: Check, domain: ProofBox, budget) -> Proof | None:
        from scipy.optimize import minimize

        start = time.monotonic()
        deadline = start + min(budget.seconds, self.seconds or budget.seconds)
        variables = plain_coordinates(check)
        shapes = [tuple(v.concrete_shape(domain.dims)) for v in variables]
        spans = []
        for var, shape in zip(variables, shapes):
            box = domain.boxes.get(var.name)
            lo, hi = (float(box[0]), float(box[1])) if box is not None else DEFAULT_SPAN
            spans += [(lo, hi)] * int(np.prod(shape, dtype=int))

        def unpack(x):
            out, k = {}, 0
            for var, shape in zip(variables, shapes):
                size = int(np.prod(shape, dtype=int))
                out[var.name] = np.asarray(x[k:k + size], dtype=float).reshape((1,) + shape)
                k += size
            return out

        def relative(x):
            with np.errstate(all="ignore"):
                try:
                    ev = check.evaluate(FLOAT, unpack(x), domain.dims)
                except (ValueError, ArithmeticError):
                    return 1.0
                m, scale = float(np.asarray(ev.margin)[0]), float(np.asarray(ev.scale)[0])
                if not np.isfinite(m) or any(not (float(np.asarray(h)[0]) >= 0) for h in ev.hypotheses):
                    return 1.0
            return m / scale if scale > 0 else m

        rng = np.random.default_rng(0)
        certifier = Certifier(budget.dps, deadline=deadline)
        lows, highs = np.array([s[0] for s in spans]), np.array([s[1] for s in spans])
        for _ in range(STARTS):
            if time.monotonic() > deadline:
                break
            x0 = rng.uniform(lows, highs)
            res = minimize(relative, x0, method="L-BFGS-B", bounds=list(zip(lows, highs)))
            if not np.isfinite(res.fun) or abs(res.fun) > 1e-6:
                continue
            for point in exact_equality_points(check, unpack(res.x), domain.dims):
                cert = certifier.certify(check, point.data, domain.dims)
                if cert.violated:
                    return _refuted(check, domain, point.data, cert, budget, start)
        return None

    def undecided(self, check: Check, domain: ProofBox) -> str:
        return "no exact point where both sides are equal was found"


def _refuted(check, domain, data, cert, budget, start) -> Proof:
    seconds = time.monotonic() - start
    cx = make_counterexample(check, data, domain.dims, cert, budget.dps, found_by=FoundBy("touching-point", 0, round(seconds, 4)))
    return Proof(
        CheckResult(verdict=Verdict(check.claim.refuted_verdict), method=cert.method, counterexample=cx, seconds=seconds,
                    domain=domain.describe(check), stop_reason="both sides are exactly equal at an algebraic point: the strict claim fails there",
                    message="counterexample at an exact touching point, certified in exact arithmetic", **base_fields(check, budget.dps)),
        ProofDetails(method="touching-point", domain=domain.to_dict(), time_limit=budget.seconds),
    )


__all__ = ["TouchingPointRefutation"]
