"""One check's search from start to verdict.

    generate -> target -> refine -> deep -> (every suspect re-checked and certified) -> shrink

The coordinator hands seed-addressed chunks (:mod:`.chunks`) to a runner
(:mod:`verifier.runner`), merges their results in chunk order and turns the outcome into a
:class:`~verifier.results.CheckResult`.  Each check runs inside its own error boundary: a
claim that raises anywhere -- building its sampler, searching, shrinking, in a worker
process -- gives a row with verdict ``error`` naming the exception, and every other row is
complete.
"""

from __future__ import annotations

import dataclasses
import os
import time
import traceback
from typing import Iterator

import numpy as np

from ..claims import Check
from ..counterexample import exact_strings, make_counterexample  # noqa: F401 (the search package re-exports both)
from ..equality import try_algebraic_near_tie
from ..runner import Outcome, SerialRunner, make_runner
from ..rational_points import refuse_irrational_derived, try_near_tie
from ..results import CheckResult, FoundBy, SearchStats, StopReason, Verdict
from ..shrink import Shrinker
from .chunks import Chunk, ChunkResult, run_chunk
from .config import RESOLUTION, Progress, SearchConfig, tune_allocator
from .evaluate import ChunkSearch, Found
from .pool import basin_of

#: near-ties whose simple rationals are certified after each round of chunks (the best distinct ones)
NEAR_TIES_PER_ROUND = 1
#: seconds the shrinker may take at most (and never past the check's time limit)
SHRINK_SECONDS = 20.0


class Coordinator(ChunkSearch):
    """One check's search: hands chunks to a runner and merges their results in order."""

    def __init__(self, check, config, progress, runner):
        super().__init__(check, config, progress)
        self.runner = runner
        self.ref = runner.ref(check)
        self.deep_starts: list = []
        self.pending_near_ties: list = []  # (rel, phase, float point, dims) from this round's chunks
        self.near_ties_tried: set = set()
        self.rejected_exactly: frozenset = frozenset()  # float rows a hypothesis rejects exactly: never re-checked again

    def _run(self, chunks, near_ties_every=None):
        """Run chunks, merged in chunk order; near-ties are tried after every ``near_ties_every``
        chunks (default: once, after the last)."""
        tasks = [(self.ref, self.config, c) for c in chunks]
        every = near_ties_every or len(chunks)
        for k, (chunk, res) in enumerate(zip(chunks, self.runner.imap(run_chunk, tasks)), 1):
            self.merge(res, chunk.phase)
            if k % every == 0 or k == len(chunks):
                self.retry_near_ties()

    def retry_near_ties(self):
        """Certify the simple rationals near the round's best near-ties (float64 has no 1/3).

        Done here, after the round and from every chunk's reports in chunk order, so the
        points tried do not depend on what ran the chunks; each chunk starts from no best
        margin, and retrying there paid for the same tie once per chunk.
        """
        pending = sorted(self.pending_near_ties, key=lambda e: e[0])
        self.pending_near_ties = []
        tried = 0
        for _, phase, point, dims in pending:
            if tried >= NEAR_TIES_PER_ROUND or self.out_of_time():
                return
            key = _neighbourhood(point, dims)
            if key in self.near_ties_tried:
                continue
            self.near_ties_tried.add(key)
            tried += 1
            hit = try_near_tie(self.check, self.certifier, point, 0, dims) or try_algebraic_near_tie(self.check, self.certifier, point, 0, dims)
            if hit is not None:
                raise Found(hit[0], dims, hit[1], phase, self.evaluations, self.elapsed())

    def merge(self, res: ChunkResult, phase: str = "generate"):
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
        self.elites.merge(res.elites, res.elite_cells)
        self.elites.merge_leaders(res.elite_leaders)
        self.undefined_example = self.undefined_example or res.undefined_example
        self.tight_detail = self.tight_detail or res.tight_detail
        self.near_misses.merge([(rel, point, dict(dims)) for rel, point, dims in res.ties], res.tie_cells)
        self.pending_near_ties.extend((rel, phase, point, dims) for rel, point, dims in res.near_ties)
        self.rejected_exactly = self.rejected_exactly.union(res.rejected)
        self.deep_starts = self.near_misses.best(self.config.deep_starts)
        if self.progress:
            self.progress(self.evaluations, self.config.budget)
        if res.found is not None:
            data, dims, cert, phase, evals, _ = res.found
            raise Found(data, dims, cert, phase, before + evals, self.elapsed())

    def search(self):
        cfg = self.config
        gen_budget = int(cfg.budget * cfg.generate_fraction)
        # a count of chunks, never a list sized by the budget (--budget 10**12 is legal)
        n_chunks = max(-(-gen_budget // cfg.batch), 1)
        index = 0
        while index < n_chunks and not self.out_of_time():
            hint = tuple(self.elites.dims_hint(4))
            stop = min(index + cfg.round_chunks, n_chunks)
            self._run([Chunk("generate", k, max(min(cfg.batch, gen_budget - k * cfg.batch), 1), self.deadline, hint=hint,
                             rechecks=self._generate_rechecks(k), rejected=self.rejected_exactly) for k in range(index, stop)])
            index = stop
        refine_budget = int(cfg.budget * cfg.refine_fraction)
        starts = self.elites.starts(cfg.elites)
        if starts and not self.out_of_time():
            per = max((cfg.budget - refine_budget - self.evaluations) // len(starts), cfg.offspring)
            rechecks = max(cfg.max_rechecks // (2 * len(starts)), cfg.rechecks_per_batch)
            # a target chunk spends about as much as a generate round
            self._run([Chunk("target", k, per, self.deadline, start=s, rechecks=rechecks, rejected=self.rejected_exactly)
                       for k, s in enumerate(starts)],
                      near_ties_every=1)
        starts = self.elites.starts(cfg.refine_starts)
        if starts and refine_budget and not self.out_of_time():
            per = max(refine_budget // len(starts), 1)
            self._run([Chunk("refine", k, per, self.deadline, start=s, rechecks=cfg.rechecks_per_batch, rejected=self.rejected_exactly)
                       for k, s in enumerate(starts)],
                      near_ties_every=1)
        starts = self.deep_starts + self.unresolved_elites()
        if cfg.deep and starts and not self.out_of_time():
            self._run([Chunk("deep", k, 0, self.deadline, start=s) for k, s in enumerate(starts)])

    def unresolved_elites(self) -> list:
        """The best points of the float search whose relative margin is below float64's resolution
        (up to ``deep_starts``, one per basin, none in a near-miss's basin): float64 cannot
        tell whether the claim fails beside them, only a search at dps digits can."""
        taken = {basin_of(point, dims) for _, point, dims in self.deep_starts}
        out = []
        for key, point, dims in self.elites.entries:
            if len(out) >= self.config.deep_starts or abs(key) > RESOLUTION:
                break
            cell = basin_of(point, dims)
            if cell not in taken:
                taken.add(cell)
                out.append((key, point, dims))
        return out

    def _generate_rechecks(self, k):
        """A fixed allowance per chunk index (so it is the same whatever runs the chunks):
        generous early, one per batch once half of ``max_rechecks`` is spent -- true claims
        with rounding artefacts would otherwise spend the run certifying them."""
        cfg = self.config
        early = max(cfg.max_rechecks // (2 * max(cfg.rechecks_per_batch, 1)), 1)
        return cfg.rechecks_per_batch if k < early else min(1, cfg.rechecks_per_batch)

    def estimated_undefined(self) -> int:
        """Points undefined at every precision tried, extrapolated from the ones re-evaluated."""
        nonfinite, tried, undefined = self.stats["nonfinite"], self.stats["undefined_rechecked"], self.stats["undefined"]
        if not nonfinite:
            return 0
        if not tried:
            return nonfinite
        return int(round(nonfinite * undefined / tried))


def _neighbourhood(point, dims) -> tuple:
    """Points that agree to 6 decimals round to the same simple rationals: one try covers them."""
    return tuple(sorted(dims.items())), tuple((k, np.round(np.asarray(v, dtype=float), 6).tobytes()) for k, v in sorted(point.items()))


# ----------------------------------------------------------------------------------------
def run_check(check: Check, config: SearchConfig = SearchConfig(), progress: Progress | None = None, runner=None) -> CheckResult:
    """Search one (claim, part, reading) for a certified counterexample.

    ``runner`` runs the chunks (default: what ``config.executor`` names, else in-process for
    ``jobs=1`` and forked workers made for this call); the result is the same whichever runs them.
    """
    tune_allocator()
    if runner is None:
        with make_runner(config.jobs, config.executor) as made:
            return run_check(check, config, progress, made)
    start = time.monotonic()
    search = None
    where = "building its sampler"
    try:
        refuse_irrational_derived(check, config.seed)
        search = Coordinator(check, config, progress, runner)
        where = "the search"
        try:
            search.search()
        except Found as found:
            where = "shrinking"
            cx, method, note = _finish(check, config, search, found)
            where = "the statistics"
            return CheckResult(
                verdict=Verdict(check.claim.refuted_verdict),
                method=method,
                counterexample=cx,
                stats=_stats(search),
                seconds=search.elapsed(),
                stop_reason=f"certified counterexample ({found.phase} phase, after {found.evaluations} evaluations)",
                stop=StopReason.FOUND,
                message=note,
                **_base(check, config),
            )
        where = "the statistics"
        return _unrefuted(check, config, search)
    except Exception as exc:  # the claim raised: report, never crash the run
        return error_result(check, config, exc, where, search=search, seconds=time.monotonic() - start)


def error_result(check: Check, config: SearchConfig, exc: BaseException, where: str, search=None, seconds=0.0) -> CheckResult:
    """The row of a check whose claim raised: claim, part and reading, where, and the exception."""
    stats = SearchStats()
    if search is not None:
        try:
            stats = _stats(search, verify_ratio=False)
        except Exception:  # the statistics are what raised: the row stands without them
            pass
    return CheckResult(
        verdict=Verdict.ERROR,
        stats=stats,
        seconds=seconds,
        stop_reason=f"the claim raised in {where}",
        stop=StopReason.CLAIM_RAISED,
        message=f"{check.label} [{check.reading.name}]: {type(exc).__name__}: {exc}" + (f"\n{traceback.format_exc()}" if _debug() else ""),
        **_base(check, config),
    )


def _base(check: Check, config: SearchConfig) -> dict:
    return dict(
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
        read_as=check.part.read_as,
    )


def _unrefuted(check: Check, config: SearchConfig, search: Coordinator) -> CheckResult:
    """No certified counterexample: survived only if the search could evaluate the claim and sign every margin."""
    timed_out = search.out_of_time()
    reason = "time limit reached" if timed_out else "budget exhausted"
    stop = StopReason.TIME_LIMIT if timed_out else StopReason.BUDGET
    notes = []
    undefined = search.estimated_undefined()
    verdict = Verdict.SURVIVED
    if undefined:
        where = ""
        if search.undefined_example is not None:
            point, dims, why = search.undefined_example
            shown = ", ".join(f"{k} = {_short(v)}" for k, v in {**dims, **point}.items())
            where = f", e.g. {shown} ({why})"
        share = "" if undefined >= search.stats["nonfinite"] else " (estimated from the points re-evaluated at high precision)"
        notes.append(f"undefined at {undefined:,} of {search.evaluations:,} points{share}{where}")
        if search.evaluations == 0 or search.evaluations - undefined < config.min_defined_fraction * search.evaluations:
            verdict = Verdict.ERROR
            reason, stop = "the claim could not be evaluated at most points", StopReason.NOT_EVALUABLE
    if search.evaluations == 0:
        verdict, reason, stop = Verdict.ERROR, "no point could be evaluated", StopReason.NOT_EVALUABLE
    if search.undecided:
        notes.append(f"{search.undecided} float violation(s) could not be settled at high precision")
    tight = search.stats["tight_undecided"]
    if tight:
        notes.append(f"{tight} point(s) tight: the certificate could not sign the margin ({search.tight_detail}, "
                     f"{_digits(search.tight_detail)}); not counted as holding")
    if verdict is Verdict.SURVIVED and (search.undecided or tight):
        verdict = Verdict.INCONCLUSIVE
    return CheckResult(verdict=verdict, stats=_stats(search), seconds=search.elapsed(), stop_reason=reason, stop=stop,
                       message="; ".join(notes), time_limited=timed_out, **_base(check, config))


def _short(value) -> str:
    text = str(value).replace("'", "")
    return text if len(text) <= 60 else text[:57] + "..."


def _digits(detail: str | None) -> str:
    """The precision a certificate detail names, in decimal digits too."""
    import re

    m = re.search(r"(\d+) bits", detail or "")
    return f"about {int(int(m.group(1)) / 3.3219)} digits tried" if m else "at the highest precision tried"


def _debug():
    return bool(os.environ.get("VERIFY_DEBUG"))


def _finish(check: Check, config: SearchConfig, search: ChunkSearch, found: Found):
    """The counterexample to report: shrunk when asked; a shrinker that raises leaves it as found."""
    data, dims, cert = found.data, found.dims, found.cert
    shrunk, note = False, ""
    left = search.deadline - time.monotonic()  # --time bounds the check, shrinking included
    if config.shrink and left <= 0:
        note = "not shrunk: the check's time limit was reached"
    elif config.shrink:
        try:
            result = Shrinker(check, search.certifier, time_limit=min(SHRINK_SECONDS, left)).shrink(data, dims, cert)
            data, dims, cert = result.data, result.dims, result.certificate
            shrunk = True
        except Exception as exc:  # the certified point stands; say why it is not shrunk
            note = f"not shrunk: the claim raised while shrinking ({type(exc).__name__}: {exc})"
    cx = make_counterexample(check, data, dims, cert, config.dps, seed=config.seed,
                             found_by=FoundBy(found.phase, found.evaluations, round(found.seconds, 4)), shrunk=shrunk)
    return cx, cert.method, note


def _stats(search: ChunkSearch, verify_ratio: bool = True) -> SearchStats:
    best_point = None
    if search.best_point is not None:
        data, dims = search.best_point
        best_point = {"dims": dims, "vars": {k: np.asarray(v[0]).tolist() for k, v in data.items()}}
    max_ratio, max_ratio_point = search.verified_max_ratio_point() if verify_ratio else (None, None)
    undefined_example = None
    if search.undefined_example is not None:
        point, dims, why = search.undefined_example
        undefined_example = {"dims": dims, "vars": point, "reason": why}
    return SearchStats(
        evaluations=search.evaluations,
        worst_rejected_float_margin=search.worst_rejected,
        best_margin=search.best_margin,
        best_relative_margin=None if not np.isfinite(search.best_rel) else float(search.best_rel),
        max_ratio=max_ratio,
        max_ratio_point=max_ratio_point,
        best_point=best_point,
        undefined_example=undefined_example,
        tight_detail=search.tight_detail,
        **search.stats,
    )


def abrupt_result(check: Check, config: SearchConfig, outcome: Outcome) -> CheckResult:
    """The row of a check whose claim's code did not come back to the engine: it ended or
    crashed its process, raised ``SystemExit`` or ``KeyboardInterrupt``, or ran past the time limit."""
    if outcome.out_of_time:
        subject = "the claim's code" if outcome.where else "the check"
        what = f"{subject} {outcome.describe(f'the time limit (--time {config.time_limit:g} s)')}"
        reason = f"{subject} did not return within the time limit"
    elif outcome.status == "raised" and not outcome.where and outcome.exception not in ("SystemExit", "KeyboardInterrupt"):
        what, reason = f"the check {outcome.describe()}", "the check raised"  # not from the claim's code: the engine's
    else:
        what = f"the claim's code {outcome.describe()}"
        reason = {"raised": "the claim's code raised past the engine", "exited": "the claim's code ended its process",
                  "killed": "the claim's code crashed its process",
                  "violated": "the claim's code broke its worker's rules"}.get(outcome.status, "the check did not finish")
    return CheckResult(verdict=Verdict.ERROR, seconds=outcome.seconds, stop_reason=reason, stop=StopReason.WORKER_LOST,
                       message=f"{check.label} [{check.reading.name}]: {what}", **_base(check, config))
