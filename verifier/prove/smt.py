"""Exact decision by SMT for claims built from + - * /, max, min and abs.

The claim's own functions, run in :class:`~.z3ctx.Z3Context`, build the terms.  We assert
every hypothesis, every box bound, and the *negated* conclusion (margin < 0, or <= 0 for a
strict claim).  ``unsat`` means no point of the domain violates the claim: a proof on that
domain.  ``sat`` gives a model with exact rational values, which goes through the ordinary
certifier (so the counterexample is checked by code that does not trust z3) and shrinker.
Each solver call has a timeout; running out is ``inconclusive``.
"""

from __future__ import annotations

import time

import numpy as np
import z3
from flint import fmpq

from ..certify import Certifier
from ..claims import Check
from ..engine import make_counterexample
from ..results import CheckResult, FoundBy, Verdict
from ..shrink import Shrinker
from .domain import Domain
from .result import Proof, ProofDetails, base_fields
from .z3ctx import NotDecidable, Z3Context, model_fraction, nonconstant_denominators

Z3 = Z3Context()


def formula(check: Check, domain: Domain, ctx: Z3Context = Z3):
    """(symbols, assertions) whose conjunction says "a point of the domain violates the claim".

    Raises NotDecidable when the claim leaves real arithmetic with if-then-else.  ``ctx``
    builds the terms (another context may abstract what z3 lacks).
    """
    dims = domain.dims
    data = {v.name: ctx.symbols(v.name, v.concrete_shape(dims)) for v in check.variables}
    ev = check.evaluate(ctx, data, dims)
    facts = []
    for hyp, h in zip(check.hypotheses, ev.hypotheses):
        facts.append(h[0] > 0 if hyp.strict else h[0] >= 0)
    for name, box in domain.boxes.items():
        if box is None:
            continue
        for x in np.ravel(data[name]):
            facts += [x >= z3.RealVal(box[0]), x <= z3.RealVal(box[1])]
    margin = ev.margin[0]
    negated = margin <= 0 if check.strict else margin < 0
    # a point where a denominator vanishes is outside the claim (as in the exact certificate)
    for den in {d.get_id(): d for t in facts + [negated] for d in nonconstant_denominators(t)}.values():
        facts.append(den != 0)
    return data, facts + [negated]


def prove_smt(check: Check, domain: Domain, time_limit: float = 60.0, dps: int = 50) -> Proof:
    start = time.monotonic()
    base = base_fields(check, dps)
    details = dict(method="smt", domain=domain.to_dict(), time_limit=time_limit)
    where = domain.describe(check)
    data, assertions = formula(check, domain)  # NotDecidable propagates: the caller picks another method
    solver = z3.Solver()
    solver.set("timeout", max(1, int(time_limit * 1000)))
    solver.add(*assertions)
    answer = solver.check()
    seconds = time.monotonic() - start
    if answer == z3.unsat:
        return Proof(
            CheckResult(verdict=Verdict.PROVED, method="smt", seconds=seconds, domain=where,
                        stop_reason="z3: the negated claim is unsatisfiable on the domain",
                        message="proved by SMT: z3 finds the negated claim unsatisfiable (exact real arithmetic)", **base),
            ProofDetails(solver="unsat", **details),
        )
    if answer == z3.unknown:
        reason = solver.reason_unknown()
        return Proof(
            CheckResult(verdict=Verdict.INCONCLUSIVE, method="none", seconds=seconds, domain=where,
                        stop_reason=f"z3 gave up: {reason}",
                        message=f"no proof and no counterexample within {time_limit:g} s (z3: {reason})", **base),
            ProofDetails(solver=f"unknown ({reason})", **details),
        )
    return _from_model(check, domain, data, solver.model(), start, base, details, dps)


def _from_model(check, domain, data, model, start, base, details, dps) -> Proof:
    exact = {}
    for name, arr in data.items():
        out = np.empty(arr.shape, dtype=object)
        for idx in np.ndindex(*arr.shape):
            q = model_fraction(model, arr[idx])
            out[idx] = fmpq(q.numerator, q.denominator)
        exact[name] = out
    certifier = Certifier(dps)
    cert = certifier.certify(check, exact, domain.dims)
    found_at = time.monotonic() - start
    if not cert.violated:
        return Proof(
            CheckResult(verdict=Verdict.INCONCLUSIVE, method="none", seconds=found_at, domain=domain.describe(check),
                        stop_reason="z3 found a model the certifier did not confirm",
                        message=f"z3's model is not a certified violation ({cert.status}: {cert.detail})", **base),
            ProofDetails(solver="sat", **details),
        )
    shrunk = Shrinker(check, certifier).shrink(exact, domain.dims, cert)
    cx = make_counterexample(check, shrunk.data, shrunk.dims, shrunk.certificate, dps,
                             found_by=FoundBy("solver", 0, round(found_at, 4)), shrunk=True)
    return Proof(
        CheckResult(verdict=Verdict(check.claim.refuted_verdict), method=shrunk.certificate.method, counterexample=cx,
                    seconds=time.monotonic() - start, domain=domain.describe(check),
                    stop_reason="z3: the negated claim is satisfiable; its exact model is a certified counterexample",
                    message="counterexample from the solver's exact model, re-certified and shrunk", **base),
        ProofDetails(solver="sat", **details),
    )


__all__ = ["prove_smt", "formula", "NotDecidable"]
