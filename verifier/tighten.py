"""The best constant a claim can carry: ``verify tighten``.

For a part ``lhs <= rhs`` we ask how large ``lhs / rhs`` gets.  Each round searches the
claim with its right-hand side scaled by the current constant ``C``: a certified
counterexample there is an exact point where ``lhs / rhs > C``, so the true constant is at
least that ratio -- a *certified lower bound*, computed exactly (or as the lower end of a
rigorous ball) at that point.  The next round raises ``C`` to it.  When a round finds
nothing, the claim with constant ``C`` survived that round's budget.  The best ratio seen
by the search is reported too; it is certified at its point, so it is a bound as well.

A part ``lhs >= rhs`` is the mirror image: the largest ``c`` with ``lhs >= c * rhs`` is at
most ``lhs / rhs`` at any point with ``rhs > 0``, so each certified counterexample gives a
*certified upper bound* and the rounds lower ``C``.

A certified point with ``rhs = 0`` where the part fails (``lhs > 0`` for ``<=``, ``lhs < 0``
for ``>=``) fails for every constant: no constant suffices.
"""

from __future__ import annotations

import dataclasses
import time
import warnings
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import scipy.optimize

from .errors import VerifierError
from .certify import Certifier, decimal_string
from .claims import Check
from .contexts import BallContext, ExactContext, FloatContext, NotRational, to_fraction
from .engine import SearchConfig, run_check
from .search import exact_strings
from .results import Verdict
from .sampling import arb_endpoint_to_fmpq, exactify, project
from .shrink import Shrinker

EXACT = ExactContext()
FLOAT = FloatContext()
#: past the round limit, rounds go on while each still moves the bound by more than this
#: fraction of it (a constant reached by slow steps, 4.5 then 4.9 then 5, is not cut short)
MIN_GAIN = Fraction(1, 100)
#: and never beyond this many times the round limit
ROUND_CAP = 4
#: far above a certificate ball's radius (~2^-190 relative), far below any ratio worth reporting
ROUNDING = Fraction(1, 2**120)


class NotTightenable(VerifierError, ValueError):
    """The check is not of the form lhs <= rhs or lhs >= rhs."""


@dataclass(frozen=True)
class RatioWitness:
    """An exact point and a certified bound on lhs / rhs there (``ratio`` None: rhs = 0, no constant works)."""

    dims: dict
    vars: dict  # name -> nested lists of exact strings
    ratio: Fraction | None  # <=: lhs / rhs >= ratio; >=: lhs / rhs <= ratio (certified)
    method: str  # exact | interval
    lhs: str
    rhs: str
    #: the enclosure's other end (upper for <=, lower for >=): the true ratio lies between the two
    far_end: Fraction | None = None

    @property
    def unbounded(self) -> bool:
        return self.ratio is None


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
    lower_bound: Fraction | None  # <= parts: the constant must be at least this (certified)
    witness: RatioWitness | None
    best_seen: float | None  # the best lhs/rhs seen anywhere (certified at its point, so = the bound)
    last_constant: Fraction  # the constant of the final round
    last_verdict: str  # what the final round found at last_constant
    last_evaluations: int
    rounds: tuple[TightenRound, ...]
    evaluations: int
    seconds: float
    message: str = ""
    relation: str = "<="
    upper_bound: Fraction | None = None  # >= parts: the constant can be at most this (certified)
    no_constant: bool = False  # a certified point with rhs = 0 where the part fails
    round_limit_hit: bool = False  # stopped by --rounds while the bound was still moving

    @property
    def exit_code(self) -> int:
        return 2 if self.last_verdict == Verdict.ERROR.value else 0

    @property
    def bound(self) -> Fraction | None:
        return self.lower_bound if self.relation in ("<=", "<") else self.upper_bound


def _sense(check: Check) -> int:
    """+1 when the constant is pushed up (``lhs <= c rhs``), -1 when down (``lhs >= c rhs``)."""
    return 1 if check.part.relation in ("<=", "<") else -1


def scaled(check: Check, constant: Fraction) -> Check:
    """The check with its right-hand side multiplied by ``constant`` (non-strict)."""
    rhs = check.part.rhs

    def scaled_rhs(ctx, v, rhs=rhs, c=constant):
        return ctx.const(c) * rhs(ctx, v)

    part = dataclasses.replace(check.part, rhs=scaled_rhs, relation="<=" if _sense(check) > 0 else ">=")
    return Check(check.claim, part, check.reading)


def certified_ratio(check: Check, data, dims, certifier: Certifier) -> RatioWitness | None:
    """A certified bound on the extreme lhs_i / rhs_i at an exact point (None if hypotheses fail).

    ``<=`` parts: a lower bound on max_i lhs_i / rhs_i; ``>=`` parts: an upper bound on the min.
    """
    cert = certifier.certify(check, data, dims)
    if cert.status in ("hypothesis-fails", "undecided"):
        return None
    sense = _sense(check)
    failing_at_zero = (lambda a: a > 0) if sense > 0 else (lambda a: a < 0)
    try:
        lhs, rhs = _sides(EXACT, check, data, dims)
        pairs = [(to_fraction(a), to_fraction(b)) for a, b in zip(lhs, rhs)]
        method = "exact"
        far = None
        zero = next(((a, b) for a, b in pairs if b == 0 and failing_at_zero(a)), None)
        if zero is not None:
            r, a, b = None, *zero
        else:
            ratios = [(a / b, a, b) for a, b in pairs if b > 0]
            if not ratios:
                return None
            r, a, b = max(ratios) if sense > 0 else min(ratios)
        far = r
        lhs_s, rhs_s = decimal_string(a, certifier.dps), decimal_string(b, certifier.dps)
    except NotRational:
        ball = BallContext(int(certifier.dps * 3.33) + 32)
        lhs, rhs = _sides(ball, check, ball.convert(data), dims)
        method = "interval"
        with ball.precision():
            zero = next(((a, b) for a, b in zip(lhs, rhs) if b.is_zero() and (a.lower() > 0 if sense > 0 else a.upper() < 0)), None)
            far = None
            if zero is not None:
                r, a, b = None, *zero
            else:
                ratios = [(a / b, a, b) for a, b in zip(lhs, rhs) if b > 0]
                if not ratios:
                    return None
                if sense > 0:
                    q, a, b = max(ratios, key=lambda t: t[0].lower())
                    near_side, far_side = "lower", "upper"
                else:
                    q, a, b = min(ratios, key=lambda t: t[0].upper())
                    near_side, far_side = "upper", "lower"
                try:
                    end = arb_endpoint_to_fmpq(q, near_side)
                except ValueError:  # an unbounded ball says nothing at this point
                    return None
                r = Fraction(int(end.p), int(end.q))
                try:
                    other = arb_endpoint_to_fmpq(q, far_side)
                    far = Fraction(int(other.p), int(other.q))
                except ValueError:
                    far = None
        lhs_s, rhs_s = a.str(certifier.dps // 2), b.str(certifier.dps // 2)
    return RatioWitness(dict(dims), {k: exact_strings(v) for k, v in data.items()}, r, method, lhs_s, rhs_s, far)


def _sides(ctx, check, data, dims):
    """Entries of lhs and rhs (the rhs broadcast to the lhs's entries) at one point."""
    v = check.values(data, dims)
    with ctx.precision():
        lhs, rhs = _entries(ctx.lift(check.part.lhs(ctx, v))), _entries(ctx.lift(check.part.rhs(ctx, v)))
    if rhs.size == 1 and lhs.size > 1:
        rhs = np.repeat(rhs, lhs.size)
    if lhs.size == 1 and rhs.size > 1:
        lhs = np.repeat(lhs, rhs.size)
    return list(lhs), list(rhs)


def _entries(x):
    arr = np.asarray(x, dtype=object)
    return np.ravel(arr[0]) if arr.ndim else np.ravel(arr)


def _better(sense: int, a: Fraction, b: Fraction) -> bool:
    """``a`` is a stronger certified bound than ``b`` (higher for <=, lower for >=)."""
    return a > b if sense > 0 else a < b


def tighten(check: Check, config: SearchConfig = SearchConfig(), max_rounds: int = 6) -> TightenResult:
    if check.part.relation not in ("<=", "<", ">=", ">"):
        raise NotTightenable(f"{check.label}: tighten needs a part of the form lhs <= rhs or lhs >= rhs, this one is {check.part.relation!r}")
    sense = _sense(check)
    start = time.monotonic()
    certifier = Certifier(config.dps)  # its deadline moves with each round: what a round finds is certified within --time
    constant = Fraction(1)
    best_seen, witness, rounds, total = None, None, [], 0
    last, gain, limit_hit = None, None, False
    for k in range(max_rounds * ROUND_CAP):
        if k >= max_rounds and not (gain is not None and gain > MIN_GAIN):
            limit_hit = True
            break
        # unshrunk: the shrinker trades ratio for simplicity, down to just past the constant (the
        # whole tightening runs in a worker: a claim that exits or hangs is its error)
        certifier.deadline = time.monotonic() + 2 * config.time_limit
        result = run_check(scaled(check, constant), dataclasses.replace(config, seed=config.seed + k, shrink=False))
        total += result.stats.evaluations
        last = result
        found = None
        if result.verdict is Verdict.REFUTED and result.counterexample is not None:
            found = certified_ratio(check, _exact_data(check, result.counterexample.vars), result.counterexample.dims, certifier)
            if found is not None and found.unbounded:
                witness = found
                rounds.append(TightenRound(constant, result.verdict.value, result.stats.evaluations, round(result.seconds, 4), None))
                break
        # the best ratio seen: certified at the float search's best point (moved onto the
        # hypotheses exactly when the float point lies just outside them), so it is a real bound
        if result.stats.max_ratio_point is not None:
            anchor = found if found is not None else (witness if witness is not None and not witness.unbounded else None)
            seen = _witness_from(check, result.stats.max_ratio_point, certifier, anchor)
            if seen is not None and not seen.unbounded and (best_seen is None or _better(sense, seen.ratio, best_seen.ratio)):
                best_seen = seen
        if found is not None and not found.unbounded:
            found = _climbed(check, _at_simpler_rationals(check, found, certifier), certifier)
        step = None
        if found is not None and _better(sense, found.ratio, constant):
            step = found
        if best_seen is not None and _better(sense, best_seen.ratio, constant) and (step is None or _better(sense, best_seen.ratio, step.ratio)):
            step = best_seen
        if step is not None:
            ratio = step.ratio
            if witness is None or _better(sense, ratio, witness.ratio):
                witness = step
            # a ball's end lies a rounding beyond the witness's true ratio, so the witness itself
            # would fail the next round by that rounding and be found again; step past it
            following = ratio if step.method == "exact" else ratio + sense * ROUNDING * (1 + abs(ratio))
        elif found is not None and found.far_end is not None and _better(sense, found.far_end, constant):
            # refuted at a point whose ratio's enclosure straddles the constant: the ratio lies
            # in the enclosure, so the constant moves past its far end and the round keeps its ratio
            ratio = found.ratio
            following = found.far_end + sense * ROUNDING * (1 + abs(found.far_end))
        else:
            ratio = None
        rounds.append(TightenRound(constant, result.verdict.value, result.stats.evaluations, round(result.seconds, 4), ratio))
        if ratio is None:
            break
        gain = abs(following - constant) / max(abs(constant), Fraction(1, 10**12))
        constant = following
    else:
        limit_hit = True
    no_constant = witness is not None and witness.unbounded
    if not no_constant and best_seen is not None and (witness is None or _better(sense, best_seen.ratio, witness.ratio)):
        witness = best_seen  # a certified ratio at a point is a bound whether or not it refutes
    if witness is not None and not no_constant and config.shrink:
        certifier.deadline = time.monotonic() + config.time_limit
        witness = _simplest(check, witness, certifier, config.time_limit)
    bound = None if witness is None or no_constant else witness.ratio
    r = rounds[-1]
    message = last.message if last is not None else ""
    if limit_hit and not no_constant:
        note = f"stopped at the round limit ({len(rounds)} rounds) while the bound was still moving; raise --rounds to go on"
        message = f"{message}\n{note}" if message else note
    return TightenResult(
        claim=check.claim.id, part=check.part.name, reading=check.reading.name,
        statement=check.part.statement or check.claim.statement,
        lhs_text=check.part.lhs_text, rhs_text=check.part.rhs_text,
        lower_bound=bound if sense > 0 else None, witness=witness, best_seen=None if bound is None else float(bound),
        last_constant=r.constant, last_verdict=r.verdict, last_evaluations=r.evaluations,
        rounds=tuple(rounds), evaluations=total, seconds=time.monotonic() - start,
        message=message, relation=check.part.relation, upper_bound=bound if sense < 0 else None,
        no_constant=no_constant, round_limit_hit=limit_hit and not no_constant,
    )


def _simplest(check: Check, witness: RatioWitness, certifier: Certifier, time_limit: float = 10.0) -> RatioWitness:
    """The simplest point whose ratio is still as good as the witness's (the shrinker, on
    the strict claim ``lhs < ratio * rhs`` -- ``>`` for a ``>=`` part -- which such points violate)."""
    strict = scaled(check, witness.ratio)
    strict = Check(strict.claim, dataclasses.replace(strict.part, relation="<" if _sense(check) > 0 else ">"), strict.reading)
    data = _exact_data(check, witness.vars)
    cert = certifier.certify(strict, data, witness.dims)
    if not cert.violated:
        return witness
    shrunk = Shrinker(strict, certifier, time_limit=min(10.0, time_limit)).shrink(data, witness.dims, cert)
    simpler = certified_ratio(check, shrunk.data, shrunk.dims, certifier)
    good = simpler is not None and not simpler.unbounded and not _better(_sense(check), witness.ratio, simpler.ratio)
    return simpler if good else witness


def _exact_data(check: Check, vars_: dict) -> dict:
    from .evidence import parse_exact

    out = {}
    for name, value in vars_.items():
        arr = np.vectorize(lambda s: EXACT.scalar(parse_exact(s)), otypes=[object])(np.asarray(value, dtype=object))
        out[name] = arr.reshape((1,) + arr.shape)
    return out


def _witness_from(check: Check, best_point: dict, certifier: Certifier, anchor: RatioWitness | None = None) -> RatioWitness | None:
    """The certified ratio at the float search's best point, or at the nearest exact point the
    hypotheses accept: the float search keeps points that pass a non-strict hypothesis within
    its float tolerance, so where the largest ratio sits on the hypothesis's boundary every kept
    point may lie just outside it."""
    dims = best_point["dims"]
    data = {k: np.asarray([v], dtype=float) for k, v in best_point["vars"].items()}
    try:
        exact = exactify(check, data, 0, dims)
    except ValueError:
        return None
    witness = certified_ratio(check, exact, dims, certifier)
    if witness is not None:
        return witness
    for denominator in SIMPLE_DENOMINATORS:
        rounded = project(EXACT, check, {k: _limit_denominator(v, denominator) for k, v in exact.items()}, dims)
        witness = certified_ratio(check, rounded, dims, certifier)
        if witness is not None:
            return witness
    if anchor is None or anchor.unbounded or anchor.dims != dict(dims):
        return None
    return _toward(check, exact, _exact_data(check, anchor.vars), dims, certifier)


#: denominators tried, finest first, to land a point just outside a hypothesis on its boundary
SIMPLE_DENOMINATORS = tuple(10**k for k in range(9, 0, -1))
#: halvings of the segment from an accepted point to the float point
BISECTIONS = 60


def _at_simpler_rationals(check: Check, witness: RatioWitness, certifier: Certifier) -> RatioWitness:
    """The witness, or a nearby point of smaller denominators with a better certified ratio:
    an extremum at a simple rational (a peak at x = y = 2, a vertex of a hypothesis) is met by
    the float search only nearby, where the ratio falls short of it."""
    sense = _sense(check)
    data = _exact_data(check, witness.vars)
    best = witness
    for denominator in SIMPLE_DENOMINATORS:
        rounded = project(EXACT, check, {k: _limit_denominator(v, denominator) for k, v in data.items()}, witness.dims)
        candidate = certified_ratio(check, rounded, witness.dims, certifier)
        if candidate is not None and not candidate.unbounded and _better(sense, candidate.ratio, best.ratio):
            best = candidate
    return best


def _climbed(check: Check, witness: RatioWitness, certifier: Certifier) -> RatioWitness:
    """The witness, or a better one from a local float ascent of lhs/rhs under the hypotheses
    (SLSQP), brought back to an exact point: rounded to simple rationals, or moved along the
    segment toward the witness until the exact check accepts it.  Each round's search stops at
    its first violation, just past the constant; the ascent covers the rest of the way."""
    sense = _sense(check)
    data = _exact_data(check, witness.vars)
    shapes = {k: v.shape for k, v in data.items()}
    start = np.concatenate([np.asarray(np.vectorize(lambda x: float(to_fraction(x)))(v), dtype=float).ravel() for v in data.values()])

    def point(z):
        out, i = {}, 0
        for k, shape in shapes.items():
            size = int(np.prod(shape))
            out[k] = z[i : i + size].reshape(shape)
            i += size
        return out

    def evaluation(z):
        with np.errstate(all="ignore"):
            return check.evaluate(FLOAT, point(z), witness.dims)

    def objective(z):
        ev = evaluation(z)
        lhs, rhs = np.ravel(ev.lhs)[0], np.ravel(ev.rhs)[0]
        value = -sense * lhs / rhs if rhs > 0 else np.inf
        return float(value) if np.isfinite(value) else 1e300

    constraints = [{"type": "ineq", "fun": lambda z, j=j: float(np.ravel(evaluation(z).hypotheses[j])[0])} for j in range(len(check.hypotheses))]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ascent = scipy.optimize.minimize(objective, start, method="SLSQP", constraints=constraints, options={"maxiter": 200})
        top = exactify(check, {k: np.asarray(v, dtype=float) for k, v in point(ascent.x).items()}, 0, witness.dims)
    except (ValueError, ArithmeticError, IndexError):
        return witness
    best = witness
    for denominator in SIMPLE_DENOMINATORS:
        rounded = project(EXACT, check, {k: _limit_denominator(v, denominator) for k, v in top.items()}, witness.dims)
        candidate = certified_ratio(check, rounded, witness.dims, certifier) or _toward(check, rounded, data, witness.dims, certifier)
        if candidate is not None and not candidate.unbounded and _better(sense, candidate.ratio, best.ratio):
            best = candidate
    return best


def _limit_denominator(arr, denominator: int):
    return np.vectorize(lambda x: EXACT.scalar(to_fraction(x).limit_denominator(denominator)), otypes=[object])(arr)


def _toward(check: Check, outside: dict, inside: dict, dims, certifier: Certifier) -> RatioWitness | None:
    """The accepted point furthest along the segment from ``inside`` to ``outside`` (bisection, exactly)."""

    def at(t: Fraction) -> dict:
        mix = np.vectorize(lambda a, b: EXACT.scalar(to_fraction(a) + t * (to_fraction(b) - to_fraction(a))), otypes=[object])
        return {k: mix(inside[k], outside[k]) for k in outside}

    low, high, best = Fraction(0), Fraction(1), None
    for _ in range(BISECTIONS):
        middle = (low + high) / 2
        witness = certified_ratio(check, at(middle), dims, certifier)
        if witness is None:
            high = middle
        else:
            low, best = middle, witness
    return best


__all__ = ["tighten", "TightenResult", "TightenRound", "RatioWitness", "NotTightenable", "scaled", "certified_ratio"]
