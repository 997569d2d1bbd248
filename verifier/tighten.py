"""The smallest constant a claim can carry: ``verify tighten``.

For a claim ``lhs <= rhs`` we ask how large ``lhs / rhs`` gets.  Each round searches the
claim with its right-hand side scaled by the current constant ``C``: a certified
counterexample there is an exact point where ``lhs / rhs > C``, so the true constant is at
least that ratio -- a *certified lower bound*, computed exactly (or as the lower end of a
rigorous ball) at that point.  The next round raises ``C`` to it.  When a round finds
nothing, the claim with constant ``C`` survived that round's budget.  The best ratio seen
by the search is reported too; it is certified at its point, so it is a lower bound as well.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .certify import Certifier, decimal_string
from .claims import Check
from .contexts import BallContext, ExactContext, NotRational, to_fraction
from .engine import SearchConfig, _exact_strings, run_check
from .results import Verdict
from .sampling import arb_endpoint_to_fmpq, exactify
from .shrink import Shrinker

EXACT = ExactContext()


class NotTightenable(ValueError):
    """The check is not of the form lhs <= rhs with a positive right-hand side."""


@dataclass(frozen=True)
class RatioWitness:
    """An exact point and a certified lower bound on lhs / rhs there."""

    dims: dict
    vars: dict  # name -> nested lists of exact strings
    ratio: Fraction  # lhs / rhs >= ratio, certified
    method: str  # exact | interval
    lhs: str
    rhs: str


@dataclass(frozen=True)
class TightenRound:
    constant: Fraction
    verdict: str  # refuted | survived | inconclusive | error
    evaluations: int
    seconds: float
    ratio: Fraction | None  # certified ratio of the counterexample, when refuted


@dataclass(frozen=True)
class TightenResult:
    claim: str
    part: str
    reading: str
    statement: str
    lhs_text: str
    rhs_text: str
    lower_bound: Fraction | None  # the constant must be at least this (certified)
    witness: RatioWitness | None
    best_seen: float | None  # largest lhs/rhs seen anywhere (certified at its point, so = lower_bound)
    last_constant: Fraction  # the constant of the final round
    last_verdict: str  # what the final round found at last_constant
    last_evaluations: int
    rounds: tuple[TightenRound, ...]
    evaluations: int
    seconds: float
    message: str = ""

    @property
    def exit_code(self) -> int:
        return 2 if self.last_verdict == Verdict.ERROR.value else 0


def scaled(check: Check, constant: Fraction) -> Check:
    """The check with its right-hand side multiplied by ``constant``."""
    rhs = check.part.rhs

    def scaled_rhs(ctx, v, rhs=rhs, c=constant):
        return ctx.const(c) * rhs(ctx, v)

    part = dataclasses.replace(check.part, rhs=scaled_rhs, relation="<=" if check.part.relation in ("<=", "<") else check.part.relation)
    return Check(check.claim, part, check.reading)


def certified_ratio(check: Check, data, dims, certifier: Certifier) -> RatioWitness | None:
    """A certified lower bound on max_i lhs_i / rhs_i at an exact point (None if hypotheses fail)."""
    cert = certifier.certify(check, data, dims)
    if cert.status in ("hypothesis-fails", "undecided"):
        return None
    try:
        lhs, rhs = _sides(EXACT, check, data, dims)
        pairs = [(to_fraction(a), to_fraction(b)) for a, b in zip(lhs, rhs)]
        ratios = [(a / b, a, b) for a, b in pairs if b > 0]
        if not ratios:
            return None
        r, a, b = max(ratios)
        method, lhs_s, rhs_s = "exact", decimal_string(a, certifier.dps), decimal_string(b, certifier.dps)
    except NotRational:
        ball = BallContext(int(certifier.dps * 3.33) + 32)
        lhs, rhs = _sides(ball, check, ball.convert(data), dims)
        with ball.precision():
            ratios = [(a / b, a, b) for a, b in zip(lhs, rhs) if b > 0]
        if not ratios:
            return None
        q, a, b = max(ratios, key=lambda t: t[0].lower())
        lower = arb_endpoint_to_fmpq(q, "lower")
        r = Fraction(int(lower.p), int(lower.q))
        method, lhs_s, rhs_s = "interval", a.str(certifier.dps // 2), b.str(certifier.dps // 2)
    return RatioWitness(dict(dims), {k: _exact_strings(v) for k, v in data.items()}, r, method, lhs_s, rhs_s)


def _sides(ctx, check, data, dims):
    """Entries of lhs and rhs (the rhs broadcast to the lhs's entries) at one point."""
    v = check.values(data, dims)
    with ctx.precision():
        lhs, rhs = _entries(check.part.lhs(ctx, v)), _entries(check.part.rhs(ctx, v))
    if rhs.size == 1 and lhs.size > 1:
        rhs = np.repeat(rhs, lhs.size)
    return list(lhs), list(rhs)


def _entries(x):
    arr = np.asarray(x, dtype=object)
    return np.ravel(arr[0]) if arr.ndim else np.ravel(arr)


def tighten(check: Check, config: SearchConfig = SearchConfig(), max_rounds: int = 6) -> TightenResult:
    if check.part.relation not in ("<=", "<"):
        raise NotTightenable(f"{check.label}: tighten needs a part of the form lhs <= rhs, this one is {check.part.relation!r}")
    start = time.monotonic()
    certifier = Certifier(config.dps)
    constant = Fraction(1)
    best_seen, witness, rounds, total = None, None, [], 0
    search = config  # shrunk counterexamples are readable; the next round recovers any ratio shrinking gave up
    last = None
    for k in range(max_rounds):
        result = run_check(scaled(check, constant), dataclasses.replace(search, seed=config.seed + k))
        total += result.stats.evaluations
        last = result
        # the best ratio seen: certified at the float search's best point, so it is a real value
        if result.stats.max_ratio_point is not None:
            w = _witness_from(check, result.stats.max_ratio_point, certifier)
            if w is not None and (best_seen is None or w.ratio > best_seen.ratio):
                best_seen = w
        ratio = None
        if result.verdict is Verdict.REFUTED and result.counterexample is not None:
            w = certified_ratio(check, _exact_data(check, result.counterexample.vars), result.counterexample.dims, certifier)
            if w is not None and w.ratio > constant:
                ratio = w.ratio
                witness = w
        rounds.append(TightenRound(constant, result.verdict.value, result.stats.evaluations, round(result.seconds, 4), ratio))
        if ratio is None:
            break
        constant = ratio
    if best_seen is not None and (witness is None or best_seen.ratio > witness.ratio):
        witness = best_seen  # a certified ratio at a point is a lower bound whether or not it refutes
    if witness is not None and config.shrink:
        witness = _simplest(check, witness, certifier)
    lower = witness.ratio if witness is not None else None
    r = rounds[-1]
    return TightenResult(
        claim=check.claim.id, part=check.part.name, reading=check.reading.name,
        statement=check.part.statement or check.claim.statement,
        lhs_text=check.part.lhs_text, rhs_text=check.part.rhs_text,
        lower_bound=lower, witness=witness, best_seen=None if lower is None else float(lower),
        last_constant=r.constant, last_verdict=r.verdict, last_evaluations=r.evaluations,
        rounds=tuple(rounds), evaluations=total, seconds=time.monotonic() - start,
        message=last.message if last is not None else "",
    )


def _simplest(check: Check, witness: RatioWitness, certifier: Certifier) -> RatioWitness:
    """The simplest point whose ratio is still at least the witness's (the shrinker, on
    the strict claim ``lhs < ratio * rhs``, which such points violate)."""
    strict = scaled(check, witness.ratio)
    strict = Check(strict.claim, dataclasses.replace(strict.part, relation="<"), strict.reading)
    data = _exact_data(check, witness.vars)
    cert = certifier.certify(strict, data, witness.dims)
    if not cert.violated:
        return witness
    shrunk = Shrinker(strict, certifier, time_limit=10.0).shrink(data, witness.dims, cert)
    simpler = certified_ratio(check, shrunk.data, shrunk.dims, certifier)
    return simpler if simpler is not None and simpler.ratio >= witness.ratio else witness


def _exact_data(check: Check, vars_: dict) -> dict:
    from .store import parse_exact

    out = {}
    for name, value in vars_.items():
        arr = np.vectorize(lambda s: EXACT.scalar(parse_exact(s)), otypes=[object])(np.asarray(value, dtype=object))
        out[name] = arr.reshape((1,) + arr.shape)
    return out


def _witness_from(check: Check, best_point: dict, certifier: Certifier) -> RatioWitness | None:
    dims = best_point["dims"]
    data = {k: np.asarray([v], dtype=float) for k, v in best_point["vars"].items()}
    try:
        exact = exactify(check, data, 0, dims)
    except ValueError:
        return None
    return certified_ratio(check, exact, dims, certifier)


__all__ = ["tighten", "TightenResult", "TightenRound", "RatioWitness", "NotTightenable", "scaled", "certified_ratio"]
