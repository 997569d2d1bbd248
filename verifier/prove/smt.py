"""Exact decision by SMT for claims built from + - * /, max, min and abs.

The claim's own functions, run in :class:`~.z3ctx.Z3Context`, build the terms, on the
variables as the SMT maps of :mod:`.parametrisation` write them: a real symbol per free
coordinate, a simplex's last entry as 1 minus the others, a derived variable as its
definition, a sphere or an orthogonal matrix through its rational charts (one solver call
per choice of pieces).  We assert every hypothesis those maps do not build in, the maps'
constraints, every box bound, and the *negated* conclusion (margin < 0, or <= 0 for a
strict claim).  ``unsat`` means no point of the domain violates the claim: a proof on that
domain.  ``sat`` gives a model with exact rational values, which goes through the ordinary
certifier (so the counterexample is checked by code that does not trust z3) and shrinker.
Each solver call has a timeout; running out is ``inconclusive``.
"""

from __future__ import annotations

import itertools
import math
import time
from fractions import Fraction

import numpy as np
import z3
from flint import fmpq

from ..algebraic import AlgebraicNumber
from ..certify import Certifier
from ..claims import Check
from ..contexts import ExactContext
from ..engine import make_counterexample
from ..equality import plain_coordinates
from ..results import CheckResult, FoundBy, Verdict
from ..shrink import Shrinker
from .certificate import ProofCertificate
from .domain import ProofBox
from .parametrisation import MAX_SMT_PIECES, Parametrisation
from .result import Proof, ProofDetails, base_fields
from .sos import SumOfSquares, sos_certificate
from .strategy import Budget, MethodError, Strategy, solver_stop, with_stop
from .z3ctx import NotDecidable, Z3Context, ScalarTerm, model_fraction, model_value, nonconstant_denominators

Z3 = Z3Context()
EXACT = ExactContext()


def parametrisations(check: Check, domain: ProofBox) -> list[Parametrisation]:
    """The SMT maps to try in turn: a simplex through its free entries and a derived variable by
    its definition in each; a sphere or an orthogonal matrix first by its membership equality
    (a polynomial z3 often decides at once: ``w . u^4`` on the sphere, which its rational
    charts make a rational function of degree 8), then through its charts, whose rational
    parameters give a model exactly on the set where the equality's are algebraic numbers.
    Too many choices of chart pieces leave the membership equality alone."""
    by_equality = Parametrisation(check, domain, smt=True, charts=False)
    charted = Parametrisation(check, domain, smt=True)
    if not charted.pieces or math.prod(charted.pieces) > MAX_SMT_PIECES:
        return [by_equality]
    return [by_equality, charted]


def formulas(check: Check, domain: ProofBox, param: Parametrisation | None = None, ctx: Z3Context | None = None):
    """One (coordinate values, data, assertions) per choice of chart pieces; the conjunction
    of the assertions says "a point of the domain, in these pieces, violates the claim".

    Raises NotDecidable when the claim leaves real arithmetic with if-then-else.  ``ctx``
    builds the terms (another context may abstract what z3 lacks; default a new
    :class:`Z3Context`, whose square roots are fresh reals with their defining polynomials,
    asserted here before the negated conclusion).
    """
    ctx = ctx if ctx is not None else Z3Context()
    param = param or parametrisations(check, domain)[-1]
    dims = domain.dims
    symbols = [None if c.role == "piece" else _real(c.label) for c in param.coords]
    for choice in itertools.product(*(range(n) for n in param.pieces)):
        pieces = iter(choice)
        values = [next(pieces) if s is None else s for s in symbols]
        ctx.begin_formula()
        data = param.data(ctx, values)
        ev = check.evaluate(ctx, data, dims, with_hypotheses=False)
        facts = [m > 0 if strict else m >= 0 for m, strict in param.hypothesis_margins(ctx, data)]
        facts += [t >= 0 for t in param.constraint_terms(ctx, data)]
        for s, span in zip(symbols, param.spans):
            if s is not None and span is not None:
                facts += [s >= z3.RealVal(span[0]), s <= z3.RealVal(span[1])]
        facts += ctx.side_conditions()
        margin = ev.margin[0]
        negated = margin <= 0 if check.strict else margin < 0
        # a point where a denominator vanishes is outside the claim (as in the exact certificate)
        for den in {d.get_id(): d for t in facts + [negated] for d in nonconstant_denominators(t)}.values():
            facts.append(den != 0)
        yield values, data, facts + [negated]


def formula(check: Check, domain: ProofBox):
    """(data, assertions) of a domain with a single choice of chart pieces."""
    _, data, facts = next(formulas(check, domain))
    return data, facts


def _real(name: str):
    term = z3.Real(name)
    return ScalarTerm(term.as_ast(), term.ctx)


#: seconds at most for a claim whose square roots became fresh reals (nonlinear arithmetic
#: may not decide it; branch and bound then has the rest of the time)
ROOTS_SECONDS = 10.0


def uses_roots(check: Check, domain: ProofBox) -> bool:
    """Does the SMT formula of ``check`` substitute square roots (or rational powers)?"""
    ctx = Z3Context()
    try:
        for _ in formulas(check, domain, ctx=ctx):
            return bool(ctx.side_conditions())
    except NotDecidable:
        return False
    return False


def prove_smt(check: Check, domain: ProofBox, time_limit: float = 60.0, dps: int = 50, sos: bool = True) -> Proof:
    """Decide ``check`` on ``domain`` by z3: proved, a certified counterexample, or inconclusive.

    A claim with square roots gets at most :data:`ROOTS_SECONDS`, then :class:`NotDecidable`
    (another method may decide it)."""
    start = time.monotonic()
    roots = uses_roots(check, domain)
    deadline = start + (min(time_limit, ROOTS_SECONDS) if roots else time_limit)
    base = base_fields(check, dps)
    details = dict(method="smt", domain=domain.to_dict(), time_limit=time_limit)
    where = domain.describe(check)
    attempts = parametrisations(check, domain)
    reason, uncertified = "timeout", None
    for k, param in enumerate(attempts):
        # each way of writing the sets gets its share of the time left
        share_end = time.monotonic() + (deadline - time.monotonic()) / (len(attempts) - k)
        answer, found = _decide(check, domain, param, share_end)
        if answer == "unsat":
            calls = math.prod(param.pieces)
            pieces = f" (in each of {calls} choices of chart pieces)" if calls > 1 else ""
            certificate = smt_certificate(check, domain, found, min(SOS_AFTER_SMT_SECONDS, max(deadline - time.monotonic(), 0)) if sos else 0.0)
            also = " and a sum-of-squares identity checked exactly" if certificate.sos is not None else ""
            return Proof(
                CheckResult(verdict=Verdict.PROVED, method="smt", seconds=time.monotonic() - start, domain=where,
                            stop_reason="z3: the negated claim is unsatisfiable on the domain",
                            message=f"proved by SMT: z3 finds the negated claim unsatisfiable{pieces} (exact real arithmetic){also}", **base),
                ProofDetails(solver="unsat", certificate=certificate, **details),
            )
        if answer == "sat":
            proof = from_model(check, domain, param, *found, start, base, details, dps)
            if proof.result.counterexample is not None:
                return proof
            uncertified = proof  # an algebraic model off the set: the next map may give a rational one
        else:
            reason = found
    if uncertified is not None:
        return uncertified
    if roots:
        raise NotDecidable(f"z3 did not decide it within {min(time_limit, ROOTS_SECONDS):g} s with its square roots as fresh reals ({reason})")
    return Proof(
        CheckResult(verdict=Verdict.INCONCLUSIVE, method="none", seconds=time.monotonic() - start, domain=where,
                    stop_reason=f"z3 gave up: {reason}",
                    message=f"no proof and no counterexample within {time_limit:g} s (z3: {reason})", **base),
        ProofDetails(solver=f"unknown ({reason})", **details),
    )


def _decide(check, domain, param, deadline):
    """("unsat", None) when every choice of pieces is unsatisfiable, ("sat", (values, model)),
    or ("unknown", z3's reason).  NotDecidable propagates: the caller picks another method."""
    refuted = []
    for values, data, assertions in formulas(check, domain, param):
        left = deadline - time.monotonic()
        if left <= 0:
            return "unknown", "timeout"
        solver = z3.Solver()
        solver.set("timeout", max(1, int(left * 1000)))
        solver.add(*assertions)
        answer = solver.check()
        if answer == z3.sat:
            return "sat", (values, data, solver.model())
        if answer == z3.unknown:
            return "unknown", solver.reason_unknown()
        refuted.append(solver.to_smt2())
    return "unsat", refuted


#: characters of SMT-LIB text a certificate keeps at most (a matrix claim's formula can be large)
MAX_SMT_TEXT = 200_000
#: seconds a sum-of-squares certificate may take after z3 proved a polynomial claim
SOS_AFTER_SMT_SECONDS = 3.0


def smt_certificate(check: Check, domain: ProofBox, formulas_text: list[str], seconds: float) -> ProofCertificate:
    """What a z3 proof rests on: the refuted formulas as SMT-LIB 2 (a checker re-derives its own
    proof of unsat), and for a polynomial claim an exactly checked sum-of-squares identity,
    which a kernel re-checks without z3."""
    text = "\n".join(f"; choice of chart pieces {k + 1} of {len(formulas_text)}\n{t}" for k, t in enumerate(formulas_text))
    notes = ()
    if len(text) > MAX_SMT_TEXT:
        text, notes = None, (f"the SMT-LIB text ({len(text):,} characters) is above {MAX_SMT_TEXT:,} and is not kept",)
    sos = sos_certificate(check, domain, seconds) if seconds > 0 and SumOfSquares().applies(check, domain) is None else None
    return ProofCertificate(method="smt", dims=dict(domain.dims), domain=domain.to_dict(), smt=text, sos=sos, notes=notes)


def from_model(check, domain, param, values, data, model, start, base, details, dps) -> Proof:
    algebraic = _algebraic_model_point(check, data, model)
    if algebraic is not None:
        return _certify_exact(check, domain, algebraic, start, base, details, dps)
    # the model's coordinates, mapped onto the sets exactly: a chart's rational parameters give
    # a rational point *on* a sphere, where z3's own values would be algebraic numbers
    point = []
    for v in values:
        if isinstance(v, int):
            point.append(v)
            continue
        q = model_fraction(model, v)
        point.append(fmpq(q.numerator, q.denominator))
    return certify_point(check, domain, param, point, start, base, details, dps)


def _algebraic_model_point(check, data, model) -> dict | None:
    """The model's values of the claim's variables as exact numbers, when some is irrational
    algebraic (z3 holds it exactly: its polynomial and root) and every variable is plain (no
    chart maps it: its entries are the model's); else None."""
    if plain_coordinates(check) is None:
        return None
    out, irrational = {}, False
    for var in check.variables:
        terms = np.asarray(data[var.name], dtype=object)
        exact = np.empty(terms.shape, dtype=object)
        for idx in np.ndindex(*terms.shape):
            try:
                value = model_value(model, terms[idx]) if z3.is_expr(terms[idx]) else Fraction(terms[idx])
            except (ValueError, TypeError):
                return None
            irrational |= isinstance(value, AlgebraicNumber)
            exact[idx] = value if isinstance(value, AlgebraicNumber) else fmpq(value.numerator, value.denominator)
        out[var.name] = exact
    return out if irrational else None


def certify_point(check, domain, param, point, start, base, details, dps) -> Proof:
    """A certified, shrunk counterexample at the coordinates ``point`` (exact), or INCONCLUSIVE."""
    exact = {k: np.asarray(EXACT.lift(x), dtype=object) for k, x in param.data(EXACT, point).items()}
    return _certify_exact(check, domain, exact, start, base, details, dps)


def _certify_exact(check, domain, exact, start, base, details, dps) -> Proof:
    """A certified, shrunk counterexample at the exact point ``exact`` (rational or algebraic entries), or INCONCLUSIVE."""
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


def z3_reason(check: Check, domain: ProofBox, ctx=None) -> str | None:
    """None when the claim is a formula of real arithmetic with if-then-else in ``ctx`` (default:
    plain z3), else z3's reason (a function it does not have)."""
    try:
        next(formulas(check, domain, ctx=ctx) if ctx is not None else formulas(check, domain))
    except NotDecidable as exc:
        return str(exc)
    except StopIteration:
        return None
    return None


class Smt(Strategy):
    """z3 on the claim's exact terms."""

    name = "smt"
    summary = "z3 decides the claim exactly (+ \u2212 \u00d7 \u00f7, max, min, abs): a proof, or a model that is certified"
    #: of the time left, while branch and bound could still take over (z3 either answers at once or not for long)
    share = 0.5

    def applies(self, check: Check, domain: ProofBox) -> str | None:
        return z3_reason(check, domain)

    def attempt(self, check: Check, domain: ProofBox, budget: Budget) -> Proof | None:
        try:
            proof = prove_smt(check, domain, budget.seconds, budget.dps, sos=budget.certificates)
        except NotDecidable:
            return None
        return with_stop(proof, solver_stop(proof))

    def refusal(self, check: Check, reason: str) -> Exception:
        return MethodError(f"{check.label}: {reason}; use --method branch-and-bound with a bounded --box")

__all__ = ["prove_smt", "formula", "formulas", "parametrisations", "uses_roots", "NotDecidable", "ROOTS_SECONDS", "Smt", "z3_reason"]
