"""The search engine: named phases, each ending with a stated reason.

    generate -> target -> deep -> (every suspect re-checked and certified) -> shrink

*generate* draws structured random batches (see :mod:`verifier.sampling`), in rounds: after
each round the dimensions where margins were smallest are drawn more often.  *target* runs
a batched evolution strategy from each of the best candidates (a restart per elite),
pushing the relative margin ``margin / (|lhs| + |rhs|)`` down (relative, so homogeneous
claims are not pushed to infinity).  *deep* searches below float64's resolution: a float
margin smaller than float64 can resolve relative to lhs and rhs says nothing about its sign,
so such points are re-evaluated at ``dps`` digits and a short local search continues there
in arbitrary precision.  Every suspect goes through :class:`~verifier.certify.Certifier`;
only a certificate makes a verdict ``refuted``.

Work is split into seed-addressed chunks: chunk ``c`` of phase ``p`` draws from
``default_rng([seed, p, c])`` and depends only on its address and on what earlier rounds
reported; an executor (:mod:`verifier.executor`) runs chunks in-process or in a process
pool and hands results back in chunk order, so a seed gives the same result whatever the
number of jobs.  The engine imports neither click nor rich; progress goes through a callback.
"""

from __future__ import annotations

import dataclasses
import time
from fractions import Fraction
import traceback
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .certify import Certificate, Certifier, decimal_string
from .claims import Check
from .contexts import ExactContext, FloatContext, MPContext, NotRational, to_fraction
from .executor import SerialExecutor, make_executor, registered_check
from .rational_points import try_near_tie
from .results import CheckResult, Counterexample, FoundBy, SearchStats, Verdict
from .sampling import Sampler, batch_fastest, exactify, fractions_of, project
from .shrink import Shrinker

FLOAT = FloatContext()
EXACT = ExactContext()

Progress = Callable[[int, int], None]  # (evaluations so far, budget)

#: |margin| / (|lhs| + |rhs|) below this is beyond what float64 resolves after a chain of
#: roundings: its sign is noise, so the point goes to the arbitrary-precision (deep) phase.
RESOLUTION = 2.0**-40

PHASES = {"generate": 0, "target": 1, "deep": 2}


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
    max_rechecks: int = 400  # per check, shared out between chunks by chunk index
    generate_fraction: float = 0.5
    jobs: int = 1  # worker processes; 0 = one per core.  Never changes the result of a seed.
    deep: bool = True  # search below float64's resolution at dps digits
    deep_points: int = 2  # unresolved points re-evaluated at dps digits per chunk
    deep_starts: int = 2  # arbitrary-precision local searches after the target phase
    deep_steps: int = 60  # evaluations at dps digits per deep local search
    round_chunks: int = 8  # generate chunks per adaptation round

    def __post_init__(self):
        if self.budget < 1:
            raise ValueError(f"budget must be positive, got {self.budget}")
        if self.dps < 15:
            raise ValueError(f"dps must be at least 15, got {self.dps}")
        if self.time_limit <= 0:
            raise ValueError(f"time limit must be positive, got {self.time_limit}")
        if self.jobs < 0:
            raise ValueError(f"jobs must be 0 (one per core) or positive, got {self.jobs}")
        if self.batch < 1 or self.round_chunks < 1:
            raise ValueError("batch and round_chunks must be positive")


#: the ``--quick`` preset of ``verify all`` (CI)
QUICK = SearchConfig(budget=40_000, time_limit=5.0)


_ALLOCATOR_TUNED = False


def tune_allocator() -> None:
    """Keep numpy's batch-sized temporaries on the heap (glibc only; once per process).

    A batch of 4096 8x8 matrices is 2 MB; glibc serves blocks that large with fresh
    ``mmap`` pages and returns them on free, so every temporary of a margin costs 512 page
    faults -- more than the arithmetic (measured: 0.45 M vs 1.1 M candidates/s for Lemma
    4.1 at n = d = 8).  Raising the mmap and trim thresholds to 32/64 MB lets freed
    blocks be reused; the heap it keeps is bounded by the largest batch's working set.
    """
    global _ALLOCATOR_TUNED
    if _ALLOCATOR_TUNED:
        return
    _ALLOCATOR_TUNED = True
    import ctypes
    import ctypes.util
    import platform

    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"))
        M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
        libc.mallopt(M_MMAP_THRESHOLD, 32 * 2**20)
        libc.mallopt(M_TRIM_THRESHOLD, 64 * 2**20)
    except (OSError, AttributeError):  # not glibc after all: keep the defaults
        pass


class _Found(Exception):
    def __init__(self, data, dims, cert, phase, evaluations, seconds):
        self.data, self.dims, self.cert = data, dims, cert
        self.phase, self.evaluations, self.seconds = phase, evaluations, seconds


@dataclass(frozen=True)
class Chunk:
    """The address of one piece of work: its phase, index, float budget and start point."""

    phase: str
    index: int
    size: int
    deadline: float  # time.monotonic() value (shared by forked workers)
    start: tuple | None = None  # (rel, point, dims) for target and deep chunks
    hint: tuple = ()  # dims where earlier rounds found the smallest margins
    rechecks: int | None = None  # certificates this chunk may spend on float suspects


@dataclass
class ChunkResult:
    evaluations: int = 0
    stats: dict = field(default_factory=dict)
    elites: list = field(default_factory=list)
    best: tuple | None = None  # (rel, margin, point, dims)
    ratio_points: list = field(default_factory=list)
    ties: list = field(default_factory=list)  # (mp rel, exact point, dims) examined at dps digits
    undecided: int = 0
    worst_rejected: float | None = None
    found: tuple | None = None  # (exact point, dims, certificate, phase, evaluations in chunk, seconds in chunk)


class _Search:
    """State of one chunk of a check's search (also usable on its own, for benchmarks)."""

    def __init__(self, check: Check, config: SearchConfig, progress: Progress | None = None, deadline: float | None = None):
        self.check = check
        self.config = config
        self.progress = progress
        self.sampler = Sampler(check)
        self.certifier = Certifier(config.dps)
        self.start = time.monotonic()
        self.deadline = deadline if deadline is not None else self.start + config.time_limit
        self.evaluations = 0
        self.stats = dict(nonfinite=0, hypothesis_rejected=0, float_violations=0, rechecked=0, rejected_by_recheck=0,
                          tight_points=0, unresolved=0, deep_evaluations=0)
        self.worst_rejected = None
        self.best_rel = np.inf
        self.best_margin = None
        self.best_point = None
        self.ratio_points: list[tuple[float, dict, dict]] = []  # float64's five largest lhs/rhs
        self.elites: list[tuple[float, dict, dict]] = []  # (rel, data(1 row), dims)
        self.ties: list[tuple[float, dict, dict]] = []  # (rel at dps digits, exact point, dims): deep starts
        self.deep_left = config.deep_points if config.deep else 0
        self.recheck_allowance = config.max_rechecks
        self.undecided = 0
        self.phase = "generate"

    # ------------------------------------------------------------------------------
    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def out_of_time(self) -> bool:
        return time.monotonic() > self.deadline

    def evaluate(self, data, dims):
        """Float64 margins of a batch, with suspects re-checked and the rest trusted.

        Returns the relative margins (``inf`` where not trusted).  A float violation is a
        *suspect*: it only counts -- for the elite pool, the best margin and the worst ratio --
        once the re-check has replaced its float values by high-precision ones.  Otherwise
        rounding artefacts (``exp(eps) - 1`` underflowing to 0, say) would pass for near-misses.
        A margin below float64's resolution is not even a suspect: its sign is noise, and
        the deep step decides it at ``dps`` digits.
        """
        ev = self.check.evaluate(FLOAT, data, dims)
        n = len(ev.margin)
        self.evaluations += n
        if self.progress:
            self.progress(self.evaluations, self.config.budget)
        margin = np.asarray(ev.margin, dtype=float)
        scale = np.asarray(ev.scale, dtype=float)
        lhs = np.array(ev.lhs, dtype=float)  # copies: re-checked values are written into them
        rhs = np.array(ev.rhs, dtype=float)
        with np.errstate(invalid="ignore"):
            finite = np.isfinite(margin) & np.isfinite(scale)
            hyp_ok = finite.copy()
            for h in ev.hypotheses:
                # float only filters; strictness and the exact boundary are the certificate's job
                h = np.asarray(h, dtype=float)
                # the tolerance is at least 1e-9, so only rows below that need their magnitude
                hyp_ok &= np.isfinite(h)
                low = np.nonzero(~(h >= -1e-9))[0]
                if len(low):
                    tol = 1e-9 * (1.0 + _data_magnitude({k: a[low] for k, a in data.items()}, len(low)))
                    hyp_ok[low] &= h[low] >= -tol
        self.stats["nonfinite"] += int(np.count_nonzero(~finite))
        self.stats["hypothesis_rejected"] += int(np.count_nonzero(finite & ~hyp_ok))
        rel = _relative(margin, scale)
        suspect = hyp_ok & ((margin < 0) | (self.check.strict & (margin <= 0)))
        self.stats["float_violations"] += int(np.count_nonzero(suspect))
        unresolved = hyp_ok & (np.abs(rel) <= RESOLUTION)
        # Both sides ~0 with rounding left over (lhs = 1e-17 against rhs = 0) gives a relative
        # margin of -1 that is pure noise: judged against the size of the inputs instead, such
        # suspects go to the deep step too, so they cannot use up the re-checks that real
        # violations need.
        loud = np.nonzero(suspect & ~unresolved)[0]
        if len(loud):
            size = 1.0 + _data_magnitude({k: a[loud] for k, a in data.items()}, len(loud))
            unresolved[loud[np.abs(margin[loud]) <= RESOLUTION * size]] = True
        self.stats["unresolved"] += int(np.count_nonzero(unresolved & suspect))
        trusted = hyp_ok & ~suspect
        resolved = suspect & ~unresolved
        if resolved.any():
            idx = np.nonzero(resolved)[0]
            for i, cert in self.recheck(data, dims, idx[np.argsort(rel[idx], kind="stable")], margin):
                if cert.margin is None or cert.lhs is None:
                    continue
                trusted[i] = True
                lhs[i], rhs[i], margin[i] = float(cert.lhs), float(cert.rhs), float(cert.margin)
                if cert.status == "tight":  # proved equal, or equal to within the enclosure
                    margin[i] = 0.0
                rel[i] = _relative(np.array([margin[i]]), np.array([abs(lhs[i]) + abs(rhs[i])]))[0]
        if self.deep_left > 0 and unresolved.any():
            idx = np.nonzero(unresolved)[0]
            for i, mp_rel, mp_lhs, mp_rhs in self.examine_deep(data, dims, idx[np.argsort(rel[idx], kind="stable")]):
                trusted[i] = True
                lhs[i], rhs[i], rel[i] = mp_lhs, mp_rhs, mp_rel
                margin[i] = mp_rel * (abs(mp_lhs) + abs(mp_rhs))
        rel = np.where(trusted, rel, np.inf)
        # Both sides exactly 0 (a strict hypothesis at its boundary, phi_0 = 0 say) gives a
        # relative margin of 0 by convention, not by closeness: ranked as "tight", such points
        # filled every elite slot of Lemma C.2 and the target phase could not move off them.
        # For the search they rank as lhs = 0 does (relative margin 1); the statistics keep 0.
        key = np.where(trusted & (lhs == 0) & (rhs == 0) & (margin == 0), 1.0, rel)
        self.record(data, dims, rel, key, margin, lhs, rhs, trusted)
        return key
    def record(self, data, dims, rel, key, margin, lhs, rhs, trusted):
        """Update statistics (by ``rel``) and the elite pool (by the search ``key``) from trusted candidates."""
        if not np.any(trusted):
            return
        i = int(np.argmin(rel))
        if rel[i] < self.best_rel:
            # float64 has no 1/3: an equality point at simple rationals is only met nearby
            hit = try_near_tie(self.check, self.certifier, data, i, dims, float(rel[i]), self.best_rel)
            if hit is not None:
                raise _Found(hit[0], dims, hit[1], self.phase, self.evaluations, self.elapsed())
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
        k = min(self.config.elites, len(key))
        top = np.argpartition(key, k - 1)[:k] if k < len(key) else np.arange(len(key))
        for j in top[np.argsort(key[top], kind="stable")]:
            if np.isfinite(key[j]):
                self._add_elite(float(key[j]), {k: v[j : j + 1].copy() for k, v in data.items()}, dims)

    def _add_elite(self, rel, point, dims):
        self.elites.append((rel, point, dims))
        self.elites.sort(key=lambda e: e[0])
        del self.elites[self.config.elites * 4 :]

    def recheck(self, data, dims, suspects, margin):
        """Certify the worst suspects; yield (index, certificate) for the ones that are not violations."""
        for i in suspects[: self.config.rechecks_per_batch]:
            if self.stats["rechecked"] >= self.recheck_allowance:
                return
            self.stats["rechecked"] += 1
            try:
                exact = exactify(self.check, data, int(i), dims)
            except ValueError:
                continue
            cert = self.certifier.certify(self.check, exact, dims)
            if cert.violated:
                if _float_resolved(float(margin[i]), cert):
                    raise _Found(exact, dims, cert, self.phase, self.evaluations, self.elapsed())
                # float64's margin was rounding noise that happened to be negative: only
                # arbitrary precision saw this violation
                self.stats["unresolved"] += 1
                if self.config.deep:
                    raise _Found(exact, dims, cert, "deep", self.evaluations, self.elapsed())
                continue
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
                if self.config.deep and cert.lhs is not None and cert.margin is not None:
                    # float64 said "violated", dps digits said no: float64 cannot resolve
                    # this neighbourhood, so it is a start for the deep local search
                    scale = abs(cert.lhs) + abs(cert.rhs)
                    rel = 0.0 if cert.status == "tight" or not scale else float(cert.margin / scale)
                    self.ties.append((rel, exact, dict(dims)))
                yield int(i), cert

    def examine_deep(self, data, dims, candidates):
        """Re-evaluate unresolved float points at dps digits; certify the ones that fail there.

        Yields (index, rel, lhs, rhs) at dps digits for the points that do not fail, so
        they join the elite pool with values float64 could not give.
        """
        mp = MPContext(self.config.dps)
        for i in candidates:
            if self.deep_left <= 0:
                return
            self.deep_left -= 1
            try:
                exact = exactify(self.check, data, int(i), dims)
                ev = self.check.evaluate(mp, _mp_convert(mp, exact), dims, with_hypotheses=False)
            except (ValueError, ArithmeticError):
                continue
            self.stats["deep_evaluations"] += 1
            self.stats["rechecked"] += 1
            mp_rel = _mp_relative(ev, mp)
            if mp_rel is None:
                continue
            cert = self._deep_verdict(exact, dims, mp_rel, phase="deep")
            self.stats["rejected_by_recheck"] += 1
            if cert is not None and cert.status == "hypothesis-fails":
                continue
            if cert is not None:
                # dps digits lost to cancellation; what the certificate proved stands
                mp_rel = 0.0 if cert.status != "holds" else max(mp_rel, 0.0)
            if abs(mp_rel) <= 10.0 ** (5 - self.config.dps):  # equal to dps digits: a tie
                mp_rel = 0.0
                self.stats["tight_points"] += 1
            self.ties.append((mp_rel, exact, dict(dims)))
            yield int(i), mp_rel, float(ev.lhs[0]), float(ev.rhs[0])

    def _deep_verdict(self, exact, dims, mp_rel, phase, explored=False):
        """Certify a point whose margin at dps digits is negative (or too small to tell).

        ``explored``: a point the deep local search made up.  If it cannot be certified
        either way it is dropped; only points the search met count as undecided.
        """
        resolution = 10.0 ** (5 - self.config.dps)  # below this, dps digits cannot tell either
        if mp_rel < -resolution or (self.check.strict and mp_rel <= resolution):
            cert = self.certifier.certify(self.check, exact, dims)
            if cert.violated:
                raise _Found(exact, dims, cert, phase, self.evaluations, self.elapsed())
            if cert.status == "undecided" and not explored:
                self.undecided += 1
            return cert
        return None

    def verified_max_ratio(self):
        """The largest lhs/rhs among float64's top candidates, re-evaluated at dps digits."""
        return self.verified_max_ratio_point()[0]

    def _precise_evaluation(self, exact, dims):
        """The point's evaluation exactly when the claim stays rational, else at dps digits.

        Plain dps digits are not enough for reporting: at extreme scales (eps = 1e-300
        beside entries of size 1) cancellation eats them, and a ratio of 1.25 was once
        reported for a claim proved to stay <= 1.
        """
        try:
            return self.check.evaluate(EXACT, EXACT.convert(exact), dims), EXACT
        except NotRational:
            mp = MPContext(self.config.dps)
            return self.check.evaluate(mp, _mp_convert(mp, exact), dims), mp

    def verified_max_ratio_point(self):
        """(largest lhs/rhs re-evaluated exactly or at dps digits, the float point where it is reached)."""
        best, where = None, None
        for _, point, dims in self.ratio_points:
            try:
                exact = exactify(self.check, point, 0, dims)
                ev, ctx = self._precise_evaluation(exact, dims)
                if ev is None:
                    continue
                if not _hypotheses_hold(ctx, self.check, ev, self.config.dps):
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

    # -- chunks ----------------------------------------------------------------------
    def run(self, chunk: Chunk) -> ChunkResult:
        self.phase = chunk.phase
        if chunk.rechecks is not None:
            self.recheck_allowance = chunk.rechecks
        rng = np.random.default_rng([self.config.seed, PHASES[chunk.phase], chunk.index])
        found = None
        try:
            getattr(self, f"_{chunk.phase}_chunk")(chunk, rng)
        except _Found as f:
            cert = dataclasses.replace(f.cert, ball_values=None)  # arb balls do not pickle
            found = (f.data, f.dims, cert, f.phase, f.evaluations, f.seconds)
        best = None
        if self.best_point is not None:
            best = (self.best_rel, self.best_margin, self.best_point[0], self.best_point[1])
        return ChunkResult(self.evaluations, dict(self.stats), self.elites, best, self.ratio_points,
                           sorted(self.ties, key=lambda t: t[0])[:4], self.undecided, self.worst_rejected, found)

    def _generate_chunk(self, chunk: Chunk, rng):
        if chunk.hint and rng.random() < 0.25:  # adapt: revisit the dims of the best margins so far
            dims = dict(chunk.hint[int(rng.integers(len(chunk.hint)))])
        else:
            dims = self.sampler.pick_dims(rng)
        self.evaluate(self.sampler.sample(dims, rng, chunk.size), dims)

    def _target_chunk(self, chunk: Chunk, rng):
        """Batched (1, lambda) evolution strategy from one elite."""
        rel0, point, dims = chunk.start
        x, fx, sigma = point, rel0, 0.3
        lam = self.config.offspring
        while self.evaluations < chunk.size and not self.out_of_time():
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
            self._redraw_one_variable(cand, dims, rng)
            cand = batch_fastest(self.sampler.project(cand, dims))
            rel = self.evaluate(cand, dims)
            j = int(np.argmin(rel))
            if rel[j] < fx:
                x, fx = {n: a[j : j + 1].copy() for n, a in cand.items()}, float(rel[j])
                sigma = min(sigma * 1.5, 2.0)
            else:
                sigma *= 0.6
            if sigma < 1e-9:
                sigma = 0.3  # restart the step size; the point stays

    def _redraw_one_variable(self, cand, dims, rng):
        """A quarter of the offspring take one variable afresh from the structured sampler.

        Relative steps cannot leave a plateau: Lemma C.2's elites sat at eta = 1e-8, where the
        ratio has reached its limit, while the counterexample needs eta ~ 0.36.  Redrawing eta
        alone (the projection then rescales the variables bounded by it) jumps there and keeps
        the sign pattern the other variables have found.
        """
        lam = len(next(iter(cand.values())))
        fresh = self.sampler.sample(dims, rng, lam)
        names = list(cand)
        which = rng.integers(len(names), size=lam)
        redraw = rng.random(lam) < 0.25
        for k, name in enumerate(names):
            rows = np.nonzero(redraw & (which == k))[0]
            if len(rows):
                cand[name][rows] = fresh[name][rows]

    def _deep_chunk(self, chunk: Chunk, rng):
        """(1+1) evolution strategy at dps digits on exact rational points.

        Steps are relative to each entry and may be far below float64's spacing: the
        point is a rational, perturbed by rationals, and evaluated at dps digits.
        """
        mp = MPContext(self.config.dps)
        fx, x, dims = chunk.start
        sigma = 2.0**-52  # float64 already searched above its own spacing
        for _ in range(self.config.deep_steps):
            if self.out_of_time():
                return
            cand = {}
            for name, arr in x.items():
                g = rng.standard_normal(np.shape(arr))
                mean = sum((to_fraction(q) for q in np.ravel(arr)), Fraction(0))
                mean = abs(mean) / max(np.size(arr), 1)
                cand[name] = _perturb(arr, g, sigma, mean, int(3.33 * self.config.dps))
            try:
                cand = project(EXACT, self.check, cand, dims)
                ev = self.check.evaluate(mp, _mp_convert(mp, cand), dims)
            except (ValueError, ArithmeticError):
                sigma /= 4
                continue
            self.stats["deep_evaluations"] += 1
            if any(h[0] < 0 for h in ev.hypotheses):
                sigma /= 2
                continue
            rel = _mp_relative(ev, mp)
            if rel is None:
                continue
            cert = self._deep_verdict(cand, dims, rel, phase="deep", explored=True)
            if cert is not None and cert.status in ("undecided", "hypothesis-fails"):
                sigma *= 0.7
                continue
            if cert is not None:
                rel = 0.0 if cert.status != "holds" else abs(rel)  # the sign was noise at dps digits
            if rel < fx:
                x, fx, sigma = cand, rel, min(sigma * 2, 2.0**-20)
            else:
                sigma = max(sigma * 0.7, 2.0 ** (-3.3 * self.config.dps))


def _perturb(arr, g, sigma, mean, bits):
    """arr + (|arr| + mean) * sigma * g, rounded to a binary rational of ``bits`` bits.

    Binary rationals keep the certificate's ball arithmetic exact on the point itself
    (the ball precision exceeds ``bits``), so relations such as ``|b| <= eps`` that hold
    with equality are still certified, and steps far below float64's spacing survive.
    """
    import mpmath
    from flint import fmpq

    from .contexts import to_fraction

    out = np.empty(np.shape(arr), dtype=object)
    with mpmath.workprec(bits):
        m = mpmath.mpf(mean.numerator) / mean.denominator if mean else mpmath.mpf(0)
        for idx in np.ndindex(np.shape(arr)):
            q = to_fraction(arr[idx])
            x = mpmath.mpf(q.numerator) / q.denominator
            mag = abs(x) + m or mpmath.mpf(1)
            v = x + mag * float(g[idx]) * sigma
            man, exp = mpmath.mpf(v).man_exp
            man, exp = int(man), int(exp)
            out[idx] = fmpq(man * 2**exp) if exp >= 0 else fmpq(man, 2 ** (-exp))
    return out


def _hypotheses_hold(ctx, check, ev, dps) -> bool:
    """Do the hypotheses hold at this evaluation (exactly, or up to rounding at dps digits)?

    float64 filters hypotheses with a tolerance; reported figures only count points that
    satisfy them for real.
    """
    tol = 0 if ctx is EXACT else ctx.const(10) ** (-(dps // 2))
    with ctx.precision():
        return not any(h[0] < -tol or (hyp.strict and h[0] <= 0) for hyp, h in zip(check.hypotheses, ev.hypotheses))


def _float_resolved(float_margin: float, cert: Certificate) -> bool:
    """Did float64's margin see the violation: right sign and within half of the true margin?"""
    if cert.exact_margin is not None:
        true = float(cert.exact_margin)
    elif cert.margin is not None:
        true = float(cert.margin)
    else:
        return True
    if true == 0:  # strict claim at an equality: float64 can only have met it by luck
        return float_margin == 0
    return abs(float_margin - true) <= abs(true) / 2


def _mp_convert(mp, data):
    """Inputs at the context's precision: converted outside it they would be rounded to 53 bits."""
    with mp.precision():
        return mp.convert(data)


def _mp_relative(ev, mp):
    """margin / (|lhs| + |rhs|) at dps digits, as a float (0 exactly when the margin is 0)."""
    import mpmath

    with mp.precision():
        m, lhs, rhs = ev.margin[0], ev.lhs[0], ev.rhs[0]
        try:
            scale = abs(lhs) + abs(rhs)
        except TypeError:
            return None
        if not (mpmath.isfinite(m) and mpmath.isfinite(scale)):
            return None
        if m == 0:
            return 0.0
        if scale == 0:
            return -1.0 if m < 0 else 0.0
        return float(m / scale)


class _Coordinator(_Search):
    """One check's search: hands chunks to an executor and merges their results in order."""

    def __init__(self, check, config, progress, executor):
        super().__init__(check, config, progress)
        self.executor = executor
        self.ref = executor.ref(check)
        self.deep_starts: list = []

    def _run(self, chunks):
        tasks = [(self.ref, self.config, c) for c in chunks]
        for res in self.executor.imap(_run_chunk, tasks):
            self.merge(res)

    def merge(self, res: ChunkResult):
        before = self.evaluations
        self.evaluations += res.evaluations
        for k, v in res.stats.items():
            self.stats[k] = self.stats.get(k, 0) + v
        self.undecided += res.undecided
        if res.worst_rejected is not None and (self.worst_rejected is None or res.worst_rejected < self.worst_rejected):
            self.worst_rejected = res.worst_rejected
        if res.best is not None and res.best[0] < self.best_rel:
            self.best_rel, self.best_margin = float(res.best[0]), res.best[1]
            self.best_point = res.best[2], res.best[3]
        for e in res.ratio_points:
            if not self.ratio_points or e[0] > self.ratio_points[0][0] or len(self.ratio_points) < 5:
                self.ratio_points.append(e)
        self.ratio_points.sort(key=lambda e: e[0])
        del self.ratio_points[:-5]
        for e in res.elites:
            self._add_elite(*e)
        self.deep_starts = sorted(self.deep_starts + res.ties, key=lambda t: t[0])[: self.config.deep_starts]
        if self.progress:
            self.progress(self.evaluations, self.config.budget)
        if res.found is not None:
            data, dims, cert, phase, evals, _ = res.found
            raise _Found(data, dims, cert, phase, before + evals, self.elapsed())

    def search(self):
        cfg = self.config
        gen_budget = int(cfg.budget * cfg.generate_fraction)
        # a count of chunks, never a list sized by the budget (--budget 10**12 is legal)
        n_chunks = max(-(-gen_budget // cfg.batch), 1)
        index = 0
        while index < n_chunks and not self.out_of_time():
            hint = tuple(tuple(sorted(d.items())) for d in _distinct_dims(self.elites, 4))
            hint = tuple(dict(h) for h in hint)
            stop = min(index + cfg.round_chunks, n_chunks)
            self._run([Chunk("generate", k, max(min(cfg.batch, gen_budget - k * cfg.batch), 1), self.deadline, hint=hint,
                             rechecks=self._generate_rechecks(k)) for k in range(index, stop)])
            index = stop
        starts = _distinct(self.elites, cfg.elites)
        if starts and not self.out_of_time():
            per = max((cfg.budget - self.evaluations) // len(starts), cfg.offspring)
            rechecks = max(cfg.max_rechecks // (2 * len(starts)), cfg.rechecks_per_batch)
            self._run([Chunk("target", k, per, self.deadline, start=s, rechecks=rechecks) for k, s in enumerate(starts)])
        if cfg.deep and self.deep_starts and not self.out_of_time():
            self._run([Chunk("deep", k, 0, self.deadline, start=s) for k, s in enumerate(self.deep_starts)])


    def _generate_rechecks(self, k):
        """A fixed allowance per chunk index (so it is the same whatever runs the chunks):
        generous early, one per batch once half of ``max_rechecks`` is spent -- true claims
        with rounding artefacts would otherwise spend the run certifying them."""
        cfg = self.config
        early = max(cfg.max_rechecks // (2 * max(cfg.rechecks_per_batch, 1)), 1)
        return cfg.rechecks_per_batch if k < early else min(1, cfg.rechecks_per_batch)


def _run_chunk(task) -> ChunkResult:
    ref, config, chunk = task
    check = registered_check(ref) if isinstance(ref, int) else ref
    return _Search(check, config, deadline=chunk.deadline).run(chunk)


def _distinct_dims(elites, k):
    out = []
    for _, _, dims in elites:
        if dims not in out:
            out.append(dims)
        if len(out) >= k:
            break
    return out


def _distinct(elites, k):
    """Up to ``k`` start points: the best elite of each dims first, then the rest by rank.

    One dims' basin can hold every elite (Lemma C.2 part 1: five of eight starts at one
    dims and none at the dims of the counterexample); a start per dims spreads the target phase.
    """
    out, seen, first = [], set(), set()
    for rel, point, dims in elites:
        key = (tuple(sorted(dims.items())), round(rel, 12))
        if key in seen:
            continue
        seen.add(key)
        out.append((rel, point, dims))
    leaders = []
    for e in out:
        d = tuple(sorted(e[2].items()))
        if d not in first:
            first.add(d)
            leaders.append(e)
    rest = [e for e in out if not any(e is l for l in leaders)]
    return (leaders + rest)[:k]


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
def run_check(check: Check, config: SearchConfig = SearchConfig(), progress: Progress | None = None, executor=None) -> CheckResult:
    """Search one (claim, part, reading) for a certified counterexample.

    ``executor`` runs the chunks (default: in-process for ``jobs=1``, else a process pool
    made for this call); the result is the same whichever runs them.
    """
    tune_allocator()
    if executor is None:
        with make_executor(config.jobs) as ex:
            return run_check(check, config, progress, ex)
    search = _Coordinator(check, config, progress, executor)
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
            search.search()
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


def run_checks(checks, config: SearchConfig, progress_factory=None, on_result=None):
    """Run every check.  With ``jobs`` > 1 whole checks run side by side in worker processes
    (each exactly as with one job); a single check splits its chunks across the workers.
    ``on_result`` sees each result as soon as it is there, in the order of ``checks``."""
    from .results import RunResult

    checks = list(checks)
    results = []
    with make_executor(config.jobs) as ex:
        if ex.jobs > 1 and len(checks) > 1:
            serial = dataclasses.replace(config, jobs=1)
            refs = [ex.ref(ch) for ch in checks]
            for check, r in zip(checks, ex.imap(_run_whole_check, [(ref, serial) for ref in refs])):
                if progress_factory:
                    progress = progress_factory(check)
                    if progress:
                        progress(r.stats.evaluations, config.budget)
                results.append(r)
                if on_result:
                    on_result(r)
            return RunResult(tuple(results))
        for check in checks:
            progress = progress_factory(check) if progress_factory else None
            results.append(run_check(check, config, progress, ex))
            if on_result:
                on_result(results[-1])
    return RunResult(tuple(results))


def _run_whole_check(task) -> CheckResult:
    ref, config = task
    return run_check(registered_check(ref), config, None, SerialExecutor())


__all__ = ["SearchConfig", "QUICK", "RESOLUTION", "run_check", "run_checks", "make_counterexample"]
