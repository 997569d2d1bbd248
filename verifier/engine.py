"""The search engine: named phases, each ending with a stated reason.

    generate -> target -> (re-check + certify every suspect) -> shrink

*generate* draws structured random batches (see :mod:`verifier.sampling`); *target* runs a
batched evolution strategy from the best candidates, pushing the relative margin
``margin / (|lhs| + |rhs|)`` down (relative, so homogeneous claims are not pushed to
infinity).  Every float suspect goes through :class:`~verifier.certify.Certifier`; only a
certificate makes a verdict ``refuted``.

Work is split into seed-addressed chunks: chunk ``c`` of phase ``p`` draws from
``default_rng([seed, p, c])``, so a run is reproducible from its seed and budget.
The engine imports neither click nor rich; progress goes through a callback.
"""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .certify import Certificate, Certifier, decimal_string
from .claims import Check
from .contexts import FloatContext, MPContext
from .results import CheckResult, Counterexample, FoundBy, SearchStats, Verdict
from .sampling import Sampler, exactify, fractions_of
from .shrink import Shrinker

FLOAT = FloatContext()

Progress = Callable[[int, int], None]  # (evaluations so far, budget)


@dataclass(frozen=True)
class SearchConfig:
    seed: int = 0
    budget: int = 200_000  # float64 evaluations per check
    time_limit: float = 60.0  # seconds per check (a safety cap; budgets are what reproduce)
    dps: int = 50
    batch: int = 2048
    shrink: bool = True
    elites: int = 8
    offspring: int = 64
    rechecks_per_batch: int = 3
    max_rechecks: int = 400
    generate_fraction: float = 0.5

    def __post_init__(self):
        if self.budget < 1:
            raise ValueError(f"budget must be positive, got {self.budget}")
        if self.dps < 15:
            raise ValueError(f"dps must be at least 15, got {self.dps}")
        if self.time_limit <= 0:
            raise ValueError(f"time limit must be positive, got {self.time_limit}")


#: the ``--quick`` preset of ``verify all`` (CI)
QUICK = SearchConfig(budget=40_000, time_limit=5.0)


class _Found(Exception):
    def __init__(self, data, dims, cert, phase, evaluations, seconds):
        self.data, self.dims, self.cert = data, dims, cert
        self.phase, self.evaluations, self.seconds = phase, evaluations, seconds


class _Search:
    """State of one check's search."""

    def __init__(self, check: Check, config: SearchConfig, progress: Progress | None):
        self.check = check
        self.config = config
        self.progress = progress
        self.sampler = Sampler(check)
        self.certifier = Certifier(config.dps)
        self.start = time.monotonic()
        self.evaluations = 0
        self.stats = dict(nonfinite=0, hypothesis_rejected=0, float_violations=0, rechecked=0, rejected_by_recheck=0, tight_points=0)
        self.worst_rejected = None
        self.best_rel = np.inf
        self.best_margin = None
        self.best_point = None
        self.ratio_points: list[tuple[float, dict, dict]] = []  # float64's five largest lhs/rhs
        self.elites: list[tuple[float, dict, dict]] = []  # (rel, data(1 row), dims)
        self.undecided = 0
        self.noise_rechecks = 0
        self.phase = "generate"

    # ------------------------------------------------------------------------------
    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def out_of_time(self) -> bool:
        return self.elapsed() > self.config.time_limit

    def evaluate(self, data, dims):
        """Float64 margins of a batch, with suspects re-checked and the rest trusted.

        Returns (rel, margin, lhs, rhs, trusted).  A float violation is a *suspect*: it only
        counts -- for the elite pool, the best margin and the worst ratio -- once the
        re-check has replaced its float values by high-precision ones.  Otherwise rounding
        artefacts (``exp(eps) - 1`` underflowing to 0, say) would pass for near-misses.
        """
        ev = self.check.evaluate(FLOAT, data, dims)
        n = len(ev.margin)
        self.evaluations += n
        if self.progress:
            self.progress(self.evaluations, self.config.budget)
        margin = np.array(ev.margin, dtype=float)
        scale = np.asarray(ev.scale, dtype=float)
        lhs = np.array(ev.lhs, dtype=float)
        rhs = np.array(ev.rhs, dtype=float)
        finite = np.isfinite(margin) & np.isfinite(scale)
        tol = 1e-9 * (1.0 + _data_magnitude(data, n))
        hyp_ok = finite.copy()
        for h in ev.hypotheses:
            # float only filters; strictness and the exact boundary are the certificate's job
            h = np.asarray(h, dtype=float)
            hyp_ok &= np.isfinite(h) & (h >= -tol)
        self.stats["nonfinite"] += int(np.sum(~finite))
        self.stats["hypothesis_rejected"] += int(np.sum(finite & ~hyp_ok))
        rel = _relative(margin, scale)
        suspect = hyp_ok & ((margin < 0) | (self.check.strict & (margin <= 0)))
        self.stats["float_violations"] += int(np.sum(suspect))
        trusted = hyp_ok & ~suspect
        # A suspect whose margin is within rounding of the data's size is most often an
        # equality case (lhs = rhs = 0, say) that float64 missed by 1e-17; such suspects
        # must not use up the re-check budget that real violations need: they get one
        # re-check per batch and a quarter of the total.
        noise = np.abs(margin) <= 1e-3 * tol
        idx = np.nonzero(suspect)[0]
        for i, cert in self.recheck(data, dims, idx[np.argsort(rel[idx])], margin, noise):
            if cert.margin is None or cert.lhs is None:
                continue
            trusted[i] = True
            lhs[i], rhs[i], margin[i] = float(cert.lhs), float(cert.rhs), float(cert.margin)
            if cert.status == "tight":  # proved equal, or equal to within the enclosure
                margin[i] = 0.0
            rel[i] = _relative(np.array([margin[i]]), np.array([abs(lhs[i]) + abs(rhs[i])]))[0]
        rel = np.where(trusted, rel, np.inf)
        self.record(data, dims, rel, margin, lhs, rhs, trusted)
        return rel

    def record(self, data, dims, rel, margin, lhs, rhs, trusted):
        """Update statistics and the elite pool from trusted candidates."""
        if not np.any(trusted):
            return
        i = int(np.argmin(rel))
        if rel[i] < self.best_rel:
            self.best_rel = float(rel[i])
            self.best_margin = float(margin[i])
            self.best_point = {k: v[i : i + 1].copy() for k, v in data.items()}, dict(dims)
        if self.check.part.relation in ("<=", "<", ">=", ">"):
            num, den = (lhs, rhs) if self.check.part.relation in ("<=", "<") else (rhs, lhs)
            with np.errstate(all="ignore"):
                ratio = np.where(trusted & (den > 0) & (num >= 0), num / np.where(den > 0, den, 1), -np.inf)
            j = int(np.argmax(ratio))
            if np.isfinite(ratio[j]) and (not self.ratio_points or ratio[j] > self.ratio_points[-1][0]):
                self.ratio_points.append((float(ratio[j]), {k: v[j : j + 1].copy() for k, v in data.items()}, dict(dims)))
                self.ratio_points.sort(key=lambda e: e[0])
                del self.ratio_points[:-5]
        for j in np.argsort(rel)[: self.config.elites]:
            if np.isfinite(rel[j]):
                self._add_elite(float(rel[j]), {k: v[j : j + 1].copy() for k, v in data.items()}, dims)

    def _add_elite(self, rel, point, dims):
        self.elites.append((rel, point, dims))
        self.elites.sort(key=lambda e: e[0])
        del self.elites[self.config.elites * 4 :]

    def recheck(self, data, dims, suspects, margin, noise):
        """Certify the worst suspects; yield (index, certificate) for the ones that are not violations."""
        done = noisy = 0
        for i in suspects:
            if done >= self.config.rechecks_per_batch or self.stats["rechecked"] >= self.config.max_rechecks:
                return
            if noise[i]:
                if noisy or self.noise_rechecks >= self.config.max_rechecks // 4:
                    continue
                noisy += 1
                self.noise_rechecks += 1
            done += 1
            self.stats["rechecked"] += 1
            try:
                exact = exactify(self.check, data, int(i), dims)
            except ValueError:
                continue
            cert = self.certifier.certify(self.check, exact, dims)
            if cert.violated:
                raise _Found(exact, dims, cert, self.phase, self.evaluations, self.elapsed())
            if cert.status == "undecided":
                self.undecided += 1
                continue
            self.stats["rejected_by_recheck"] += 1
            if cert.status == "tight":
                self.stats["tight_points"] += 1
            m = float(margin[i])
            if self.worst_rejected is None or m < self.worst_rejected:
                self.worst_rejected = m
            if cert.status != "hypothesis-fails":
                yield int(i), cert

    def verified_max_ratio(self):
        """The largest lhs/rhs among float64's top candidates, re-evaluated at dps digits."""
        return self.verified_max_ratio_point()[0]

    def verified_max_ratio_point(self):
        """(largest lhs/rhs re-evaluated at dps digits, the float point where it is reached)."""
        best, where = None, None
        mp = MPContext(self.config.dps)
        for _, point, dims in self.ratio_points:
            try:
                exact = exactify(self.check, point, 0, dims)
                ev = self.check.evaluate(mp, mp.convert(exact), dims)
                # float64 filters hypotheses with a tolerance; the ratio only counts points
                # that satisfy them at dps digits (up to rounding of exact equalities)
                tol = mp.const(10) ** (-(self.config.dps // 2))
                if any(h[0] < -tol or (hyp.strict and h[0] <= 0) for hyp, h in zip(self.check.hypotheses, ev.hypotheses)):
                    continue
                lhs, rhs = ev.lhs[0], ev.rhs[0]
                if self.check.part.relation in (">=", ">"):
                    lhs, rhs = rhs, lhs
                if rhs > 0 and lhs >= 0:
                    r = float(lhs / rhs)
                    if best is None or r > best:
                        best, where = r, {"dims": dict(dims), "vars": {k: np.asarray(v[0]).tolist() for k, v in point.items()}}
            except (ValueError, ArithmeticError):
                continue
        return best, where

    # ------------------------------------------------------------------------------
    def generate(self, budget):
        self.phase = "generate"
        chunk = 0
        while self.evaluations < budget and not self.out_of_time():
            rng = np.random.default_rng([self.config.seed, 0, chunk])
            dims = self.sampler.pick_dims(rng)
            size = int(min(self.config.batch, max(budget - self.evaluations, 1)))
            data = self.sampler.sample(dims, rng, size)
            self.evaluate(data, dims)
            chunk += 1

    def target(self, budget):
        """Batched (1, lambda) evolution strategy from each elite, in turn."""
        self.phase = "target"
        starts = _distinct(self.elites, self.config.elites)
        if not starts:
            return
        per = max((budget - self.evaluations) // len(starts), self.config.offspring)
        for k, (rel0, point, dims) in enumerate(starts):
            rng = np.random.default_rng([self.config.seed, 1, k])
            x, fx, sigma = point, rel0, 0.3
            stop_at = min(budget, self.evaluations + per)
            while self.evaluations < stop_at and not self.out_of_time():
                lam = self.config.offspring
                cand = {}
                for name, arr in x.items():
                    base = np.repeat(arr, lam, axis=0)
                    mag = np.abs(base) + 0.1 * (np.mean(np.abs(arr)) + 1e-12)
                    step = rng.standard_normal(base.shape) * mag * sigma
                    # coordinate moves: half the offspring change one entry only
                    if base.ndim > 1 and base[0].size > 1:
                        mask = rng.random(base.shape) < (1.0 / base[0].size)
                        half = rng.random(lam) < 0.5
                        step = np.where(half.reshape((lam,) + (1,) * (base.ndim - 1)), step * mask, step)
                    cand[name] = base + step
                cand = self.sampler.project(cand, dims)
                rel = self.evaluate(cand, dims)
                j = int(np.argmin(rel))
                if rel[j] < fx:
                    x, fx = {n: a[j : j + 1].copy() for n, a in cand.items()}, float(rel[j])
                    sigma = min(sigma * 1.5, 2.0)
                else:
                    sigma *= 0.6
                if sigma < 1e-9:
                    sigma = 0.3  # restart the step size; the point stays


def _distinct(elites, k):
    out, seen = [], set()
    for rel, point, dims in elites:
        key = (tuple(sorted(dims.items())), round(rel, 12))
        if key in seen:
            continue
        seen.add(key)
        out.append((rel, point, dims))
        if len(out) >= k:
            break
    return out


def _relative(margin, scale):
    """margin / (|lhs| + |rhs|): scale-free, in [-1, 1] for <= relations."""
    with np.errstate(all="ignore"):
        return np.where(scale > 0, margin / np.where(scale > 0, scale, 1.0), np.where(margin < 0, -1.0, 0.0))


def _data_magnitude(data, n):
    mag = np.zeros(n)
    for arr in data.values():
        a = np.abs(np.asarray(arr, dtype=float).reshape(n, -1))
        if a.shape[1]:
            with np.errstate(invalid="ignore"):
                mag = np.fmax(mag, np.max(a, axis=1))
    return mag


# ----------------------------------------------------------------------------------------
def run_check(check: Check, config: SearchConfig = SearchConfig(), progress: Progress | None = None) -> CheckResult:
    """Search one (claim, part, reading) for a certified counterexample."""
    search = _Search(check, config, progress)
    base = dict(
        claim=check.claim.id,
        part=check.part.name,
        reading=check.reading.name,
        seed=config.seed,
        dps=config.dps,
        budget=config.budget,
        kind=check.claim.kind,
        title=check.claim.title,
        statement=check.part.statement or check.claim.statement,
        reading_summary=check.reading.summary,
        relation=check.part.relation,
    )
    try:
        try:
            search.generate(int(config.budget * config.generate_fraction))
            search.target(config.budget)
        except _Found as found:
            cx, method = _finish(check, config, search, found)
            return CheckResult(
                verdict=Verdict(check.claim.refuted_verdict),
                method=method,
                counterexample=cx,
                stats=_stats(search),
                seconds=search.elapsed(),
                stop_reason=f"certified counterexample ({found.phase} phase, after {found.evaluations} evaluations)",
                **base,
            )
    except Exception as exc:  # the claim raised: report, never crash the run
        return CheckResult(
            verdict=Verdict.ERROR,
            stats=_stats(search),
            seconds=search.elapsed(),
            stop_reason="the claim raised",
            message=f"{type(exc).__name__}: {exc}" + (f"\n{traceback.format_exc()}" if _debug() else ""),
            **base,
        )
    reason = "time limit reached" if search.out_of_time() else "budget exhausted"
    verdict = Verdict.INCONCLUSIVE if search.undecided else Verdict.SURVIVED
    message = ""
    if search.undecided:
        message = f"{search.undecided} float violation(s) could not be settled at high precision"
    return CheckResult(verdict=verdict, stats=_stats(search), seconds=search.elapsed(), stop_reason=reason, message=message, **base)


def _debug():
    import os

    return bool(os.environ.get("VERIFY_DEBUG"))


def _finish(check: Check, config: SearchConfig, search: _Search, found: _Found):
    data, dims, cert = found.data, found.dims, found.cert
    shrunk = False
    if config.shrink:
        result = Shrinker(check, search.certifier).shrink(data, dims, cert)
        data, dims, cert = result.data, result.dims, result.certificate
        shrunk = True
    cx = make_counterexample(check, data, dims, cert, config.dps, seed=config.seed,
                             found_by=FoundBy(found.phase, found.evaluations, round(found.seconds, 4)), shrunk=shrunk)
    return cx, cert.method


def make_counterexample(check: Check, data, dims, cert: Certificate, dps: int, seed=None, found_by=None, shrunk=False) -> Counterexample:
    def show(exact, approx):
        return decimal_string(exact if exact is not None else approx, dps)

    return Counterexample(
        claim=check.claim.id,
        part=check.part.name,
        reading=check.reading.name,
        paper=check.claim.paper,
        dims=dict(dims),
        vars={name: _exact_strings(arr) for name, arr in data.items()},
        lhs=show(cert.exact_lhs, cert.lhs),
        rhs=show(cert.exact_rhs, cert.rhs),
        margin=show(cert.exact_margin, cert.margin),
        dps=dps,
        method=cert.method,
        certificate=cert.detail,
        seed=seed,
        found_by=found_by,
        shrunk=shrunk,
        derived=derived_values(check, data, dims, dps),
    )


def derived_values(check: Check, data, dims, dps: int) -> dict:
    """The part's ``show`` quantities at the counterexample: exact where rational, else at dps digits."""
    from .contexts import ExactContext, NotRational

    out = {}
    for name, fn in check.part.show:
        exact = ExactContext()
        try:
            with exact.precision():
                value = np.asarray(fn(exact, check.values(exact.convert(data), dims)), dtype=object)
            out[name] = _exact_strings(value)
        except NotRational:
            mp = MPContext(dps)
            with mp.precision():
                value = np.asarray(fn(mp, check.values(mp.convert(data), dims)), dtype=object)[0]
            out[name] = np.vectorize(lambda x: decimal_string(x, dps), otypes=[object])(value).tolist() if np.ndim(value) else decimal_string(value, dps)
    return out


def _exact_strings(arr):
    fr = fractions_of(np.asarray(arr, dtype=object))[0]  # drop the batch axis
    if np.ndim(fr) == 0:
        return str(fr)
    return np.vectorize(str, otypes=[object])(fr).tolist()


def _stats(search: _Search) -> SearchStats:
    best_point = None
    if search.best_point is not None:
        data, dims = search.best_point
        best_point = {"dims": dims, "vars": {k: np.asarray(v[0]).tolist() for k, v in data.items()}}
    max_ratio, max_ratio_point = search.verified_max_ratio_point()
    return SearchStats(
        evaluations=search.evaluations,
        worst_rejected_float_margin=search.worst_rejected,
        best_margin=search.best_margin,
        best_relative_margin=None if not np.isfinite(search.best_rel) else float(search.best_rel),
        max_ratio=max_ratio,
        max_ratio_point=max_ratio_point,
        best_point=best_point,
        **search.stats,
    )


def run_checks(checks, config: SearchConfig, progress_factory=None):
    from .results import RunResult

    results = []
    for check in checks:
        progress = progress_factory(check) if progress_factory else None
        results.append(run_check(check, config, progress))
    return RunResult(tuple(results))


__all__ = ["SearchConfig", "run_check", "run_checks", "make_counterexample"]
