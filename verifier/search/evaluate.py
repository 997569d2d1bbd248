"""The evaluate step: float64 margins of a batch, escalated where float64 cannot decide.

A float violation is a *suspect*: it only counts -- for the elite pool, the best margin and
the largest ratio -- once a re-check has replaced its float values by high-precision ones,
and only a certificate makes it a counterexample.  A margin below float64's resolution is
not even a suspect: its sign is noise, and it is decided at high precision.  A point float64
cannot evaluate at all (an overflow, ``inf - inf``, a division by an exact zero) is not
evidence either way: a sample of them is re-evaluated at high precision, where ``exp(1000)``
is an ordinary number, and the ones undefined there too are counted and shown.

High precision means exact rational arithmetic wherever the claim stays rational (where a
margin of any size has a sign, and which costs less than 50 digits), else ``dps`` digits.
"""

from __future__ import annotations

import itertools
import time

import mpmath
import numpy as np

from ..certify import Certificate, Certifier
from ..claims import Check
from ..contexts import ExactContext, FloatContext, MPContext, NotRational
from ..rational_points import is_new_near_tie
from ..sampling import Sampler, exactify
from .config import RESOLUTION, Progress, SearchConfig
from .pool import ElitePool, NearMisses

FLOAT = FloatContext()
EXACT = ExactContext()

#: what a claim may raise where it is undefined (a division by an exact zero, an overflow,
#: a math domain error); anything else is a fault of the claim and ends the check in error
UNDEFINED_AT_POINT = (ArithmeticError, ValueError)

#: near-ties a chunk hands back (its last new bests below the near-tie threshold)
MAX_NEAR_TIES_PER_CHUNK = 2


class Found(Exception):
    """A certified counterexample: ends the search."""

    def __init__(self, data, dims, cert, phase, evaluations, seconds):
        self.data, self.dims, self.cert = data, dims, cert
        self.phase, self.evaluations, self.seconds = phase, evaluations, seconds


class ChunkSearch:
    """The state one chunk of a check's search builds up, and the evaluate step that feeds it."""

    def __init__(self, check: Check, config: SearchConfig, progress: Progress | None = None, deadline: float | None = None):
        self.check = check
        self.config = config
        self.progress = progress
        self.sampler = Sampler(check)
        self.start = time.monotonic()
        self.deadline = deadline if deadline is not None else self.start + config.time_limit
        self.certifier = Certifier(config.dps, deadline=self.deadline)  # certificates answer to the search's clock
        self.evaluations = 0
        self.stats = dict(nonfinite=0, hypothesis_rejected=0, float_violations=0, rechecked=0, rejected_by_recheck=0,
                          tight_points=0, unresolved=0, deep_evaluations=0, undefined=0, undefined_rechecked=0,
                          tight_undecided=0)
        self.worst_rejected = None
        self.best_rel = np.inf
        self.best_margin = None
        self.best_point = None
        self.ratio_points: list[tuple[float, dict, dict]] = []  # float64's five largest lhs/rhs
        self.elites = ElitePool(config.elites)
        self.near_misses = NearMisses()
        self.near_ties: list[tuple[float, dict, dict]] = []  # (rel, float point, dims), best last
        self.deep_left = config.deep_points if config.deep else 0
        self.recheck_allowance = config.max_rechecks
        self.undecided = 0
        self.undefined_example: tuple | None = None  # (point as plain lists, dims, why)
        self.tight_detail: str | None = None  # the certifier's words for a margin it could not sign
        self.rescue_credit = 0.0
        self.phase = "generate"
        self.chunk_index = 0
        self.irrational = False  # the claim left the rationals at one of this chunk's looks
        # float rows whose exact point a hypothesis rejects: a structured pattern offers the same
        # point again and again (a permutation matrix under a strict "not a permutation"), and
        # each look would take a re-check that a real violation needs
        self.rejected_exactly: set = set()

    # ------------------------------------------------------------------------------
    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def out_of_time(self) -> bool:
        return time.monotonic() > self.deadline

    def found(self, exact, dims, cert, phase=None):
        return Found(exact, dims, cert, phase or self.phase, self.evaluations, self.elapsed())

    # ------------------------------------------------------------------------------
    def evaluate(self, data, dims):
        """The search key of every row of a batch (``inf`` where nothing trustworthy is known).

        Statistics, the elite pool and the near-misses are updated on the way; a certified
        violation raises :class:`Found`.
        """
        self._isolations_left = 1
        lhs, rhs, margin, scale, hyps, raised = self._float_values(data, dims)
        n = len(margin)
        self.evaluations += n
        if self.progress:
            self.progress(self.evaluations, self.config.budget)
        with np.errstate(invalid="ignore"):
            finite = np.isfinite(margin) & np.isfinite(scale)
            excluded = np.zeros(n, dtype=bool)
            hyp_ok = finite.copy()
            for hyp, h in zip(self.check.hypotheses, hyps):
                if hyp.strict:
                    # On a strict hypothesis's excluded boundary (eps = 0 for eps > 0, exactly as
                    # float64 computes it) the point is outside the domain.  Ranked as a point of
                    # it, the boundary held every elite where the largest ratio is reached both
                    # there and inside, and the best points the report and `verify tighten`
                    # certify were all rejected exactly.
                    edge = np.isfinite(h) & ~(h > 0)
                    hyp_ok &= ~edge
                    excluded |= edge
            for h in hyps:
                # float only filters; strictness and the exact boundary are the certificate's job
                defined = np.isfinite(h)
                finite &= defined
                hyp_ok &= defined
                # the tolerance is at least 1e-9, so only rows below that need their magnitude
                low = np.nonzero(defined & ~(h >= -1e-9))[0]
                if len(low):
                    tol = 1e-9 * (1.0 + _data_magnitude({k: a[low] for k, a in data.items()}, len(low)))
                    fails = h[low] < -tol
                    hyp_ok[low[fails]] = False
                    excluded[low[fails]] = True
        undefined = ~finite & ~excluded
        self.stats["nonfinite"] += int(np.count_nonzero(undefined))
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
            # worst first, but a suspect on a strict hypothesis's boundary in floats (a permutation
            # matrix under "not a permutation") last: the certificate almost surely rejects it
            on_strict_edge = np.zeros(n, dtype=bool)
            for hyp, h in zip(self.check.hypotheses, hyps):
                if hyp.strict:
                    on_strict_edge |= h == 0
            for i, cert in self.recheck(data, dims, idx[np.lexsort((rel[idx], on_strict_edge[idx]))], margin):
                if cert.margin is None or cert.lhs is None:
                    continue
                trusted[i] = True
                lhs[i], rhs[i], margin[i] = float(cert.lhs), float(cert.rhs), float(cert.margin)
                if cert.status == "tight":  # equal, or equal to within the enclosure: no sign either way
                    margin[i] = 0.0
                rel[i] = _relative(np.array([margin[i]]), np.array([abs(lhs[i]) + abs(rhs[i])]))[0]
        if self.deep_left > 0 and unresolved.any():
            idx = np.nonzero(unresolved)[0]
            for i, mp_rel, mp_lhs, mp_rhs in self.examine_deep(data, dims, idx[np.argsort(rel[idx], kind="stable")]):
                trusted[i] = True
                lhs[i], rhs[i], rel[i] = mp_lhs, mp_rhs, mp_rel
                margin[i] = mp_rel * (abs(mp_lhs) + abs(mp_rhs))
        if undefined.any():
            for i, mp_rel, mp_lhs, mp_rhs, mp_margin in self.rescue_undefined(data, dims, np.nonzero(undefined)[0], raised):
                trusted[i] = True
                lhs[i], rhs[i], rel[i], margin[i] = mp_lhs, mp_rhs, mp_rel, mp_margin
        rel = np.where(trusted, rel, np.inf)
        # Both sides exactly 0 (a strict hypothesis at its boundary, phi_0 = 0 say) gives a
        # relative margin of 0 by convention, not by closeness: ranked as "tight", such points
        # filled every elite slot of Lemma C.2 and the target phase could not move off them.
        # For the search they rank as lhs = 0 does (relative margin 1); the statistics keep 0.
        key = np.where(trusted & (lhs == 0) & (rhs == 0) & (margin == 0), 1.0, rel)
        self.record(data, dims, rel, key, margin, lhs, rhs, trusted)
        return key

    def _float_values(self, data, dims):
        """(lhs, rhs, margin, scale, hypotheses, raised) as float arrays, NaN where a row raised.

        A claim may raise where it is undefined (an exact division by zero written with
        Python numbers): the batch is halved until the rows that raise are isolated, down
        to 1/32 of the batch; ``raised`` maps a row to the exception it raised.
        """
        n = _batch_len(data)
        try:
            ev = self.check.evaluate(FLOAT, data, dims)
        except UNDEFINED_AT_POINT as exc:
            if 1 < n <= max(1, self.config.batch // 32) and self._isolations_left > 0:
                # one small piece per batch is split row by row, so the rows that really
                # raise (and their exception) are known; the others count as raised
                self._isolations_left -= 1
                pieces = [self._float_values({k: v[i : i + 1] for k, v in data.items()}, dims) for i in range(n)]
                raised = {i: p[5][0] for i, p in enumerate(pieces) if p[5]}
                return (*(np.concatenate([p[j] for p in pieces]) for j in range(4)),
                        [np.concatenate([p[4][h] for p in pieces]) for h in range(len(self.check.hypotheses))], raised)
            if n <= max(1, self.config.batch // 32):
                nan = np.full(n, np.nan)
                mark = exc if n == 1 else _Unisolated(exc)
                return nan.copy(), nan.copy(), nan.copy(), nan.copy(), [nan.copy() for _ in self.check.hypotheses], {i: mark for i in range(n)}
            half = n // 2
            a = self._float_values({k: v[:half] for k, v in data.items()}, dims)
            b = self._float_values({k: v[half:] for k, v in data.items()}, dims)
            raised = dict(a[5])
            raised.update({half + i: e for i, e in b[5].items()})
            return (*(np.concatenate([x, y]) for x, y in zip(a[:4], b[:4])),
                    [np.concatenate([x, y]) for x, y in zip(a[4], b[4])], raised)

        def floats(x, copy=False):
            a = np.asarray(x, dtype=float)
            if a.shape != (n,):
                return np.array(np.broadcast_to(a, (n,)))
            return a.copy() if copy or not a.flags.writeable else a

        # lhs, rhs and the margin receive re-checked values: lhs and rhs are copied (the margin
        # is the evaluation's own array, not read again, and copied only when read-only)
        return (floats(ev.lhs, True), floats(ev.rhs, True), floats(ev.margin), floats(ev.scale),
                [floats(h) for h in ev.hypotheses], {})

    def _outside_hypotheses(self, exact, dims) -> bool:
        """Does a stated hypothesis fail at this exact point (exactly, or beyond rounding at dps digits)?"""
        for ctx in (EXACT, MPContext(self.config.dps)):
            tol = 0 if ctx is EXACT else ctx.const(10) ** (-(self.config.dps // 2))
            try:
                v = self.check.values(ctx.convert(exact), dims)
                with ctx.precision():
                    for hyp in self.check.hypotheses:
                        h = np.asarray(hyp.margin(ctx, v), dtype=object).reshape(-1)[0]
                        if h < -tol or (hyp.strict and h <= (0 if ctx is EXACT else tol)):
                            return True
                return False
            except NotRational:
                continue
            except UNDEFINED_AT_POINT:
                return False
        return False

    def rescue_undefined(self, data, dims, rows, raised):
        """Re-evaluate a few rows float64 could not evaluate: exactly where the claim stays
        rational, else at dps and then 4 dps digits.

        Yields (index, rel, lhs, rhs, margin) for the rows that are defined there (a negative
        margin goes to the certificate first); rows undefined exactly, or at both precisions,
        are counted.
        """
        # a share of the re-evaluations per float evaluation, so small target batches do not
        # spend more of them than generate batches
        self.rescue_credit += self.config.undefined_rechecks * len(rows) / self.config.batch
        take = min(int(self.rescue_credit) if self.rescue_credit >= 1 else 0, len(rows), self.config.undefined_rechecks)
        if not take and self.chunk_index == 0 and not self.stats["undefined_rechecked"]:
            # at least one in the first chunk of each phase: a claim undefined everywhere must
            # be seen to be.  Chosen by the chunk's address, so it is the same for any --jobs;
            # one per chunk cost a dps evaluation in every chunk of a mostly finite claim.
            take = 1
        self.rescue_credit -= take
        isolated = [i for i in rows if i in raised and not isinstance(raised[i], _Unisolated)]
        first = set(isolated)
        rows = isolated + [i for i in rows if i not in first]
        for i in rows[:take]:
            try:
                exact = exactify(self.check, data, int(i), dims)
            except ValueError:  # the float inputs themselves are not finite
                continue
            self.stats["undefined_rechecked"] += 1
            why = _why(raised[i]) if i in raised else "not finite in float64"
            ev = mp = None
            used_dps = self.config.dps
            undefined_exactly = False
            if not self.irrational:
                try:
                    ev, mp = self.check.evaluate(EXACT, EXACT.convert(exact), dims), EXACT
                except NotRational:
                    self.irrational = True
                except UNDEFINED_AT_POINT as exc:  # undefined in exact arithmetic: no precision changes that
                    why, undefined_exactly = f"{type(exc).__name__}: {exc}", True
            if ev is None and not undefined_exactly:
                for dps in (self.config.dps, 4 * self.config.dps):
                    ctx = MPContext(dps)
                    try:
                        candidate = self.check.evaluate(ctx, _mp_convert(ctx, exact), dims)
                    except UNDEFINED_AT_POINT as exc:
                        why = f"{type(exc).__name__}: {exc}"
                        continue
                    if all(_mp_finite(x[0]) for x in (candidate.lhs, candidate.rhs, candidate.margin, *candidate.hypotheses)):
                        ev, mp, used_dps = candidate, ctx, dps
                        break
                    why = f"not finite at {dps} digits"
            if ev is None:
                if self._outside_hypotheses(exact, dims):
                    # a claim need not be defined where its own hypotheses exclude the point
                    # (LayerNorm of a constant vector, with var(x) > 0 stated)
                    self.stats["hypothesis_rejected"] += 1
                    continue
                self.stats["undefined"] += 1
                if self.undefined_example is None:
                    self.undefined_example = (_plain_point(exact), dict(dims), why)
                continue
            if not _hypotheses_hold(mp, self.check, ev, used_dps):
                self.stats["hypothesis_rejected"] += 1
                continue
            mp_rel = precise_relative(ev, mp)
            if mp_rel is None:
                continue
            cert = self.deep_verdict(exact, dims, mp_rel, phase=self.phase, violated=exact_violation(self.check, ev, mp))
            if cert is not None and cert.status in ("hypothesis-fails", "undecided"):
                continue
            if cert is not None:
                mp_rel = 0.0 if cert.status != "holds" else max(mp_rel, 0.0)
            if _tie(mp_rel, mp, used_dps):
                mp_rel = 0.0
            with mp.precision():
                lhs_f, rhs_f, margin_f = (_clamped_float(x[0]) for x in (ev.lhs, ev.rhs, ev.margin))
            yield int(i), mp_rel, lhs_f, rhs_f, margin_f

    def record(self, data, dims, rel, key, margin, lhs, rhs, trusted):
        """Update statistics (by ``rel``) and the elite pool (by the search ``key``) from trusted candidates."""
        if not np.any(trusted):
            return
        i = int(np.argmin(rel))
        if rel[i] < self.best_rel:
            if is_new_near_tie(float(rel[i]), self.best_rel):
                # float64 has no 1/3: an equality point at simple rationals is only met
                # nearby.  Its simple rationals cost certificates, so they are tried by the
                # coordinator, once per run for the best few, not once per chunk.
                self.near_ties.append((float(rel[i]), {k: v[i : i + 1].copy() for k, v in data.items()}, dict(dims)))
                del self.near_ties[:-MAX_NEAR_TIES_PER_CHUNK]
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
        top = top[np.argsort(key[top], kind="stable")]
        top = top[np.isfinite(key[top])]
        self.elites.add_rows(key[top], top, data, dims)

    def recheck(self, data, dims, suspects, margin):
        """Certify the worst suspects; yield (index, certificate) for the ones that are not violations."""
        fresh = (i for i in suspects if not self.rejected_exactly or _row_key(data, i) not in self.rejected_exactly)
        for i in itertools.islice(fresh, self.config.rechecks_per_batch):
            if self.stats["rechecked"] >= self.recheck_allowance:
                return
            self.stats["rechecked"] += 1
            try:
                exact = exactify(self.check, data, int(i), dims)
            except ValueError:
                continue
            cert = self.certifier.certify(self.check, exact, dims)
            if cert.status == "hypothesis-fails":
                self.rejected_exactly.add(_row_key(data, i))
            if cert.violated:
                if _float_resolved(float(margin[i]), cert):
                    raise self.found(exact, dims, cert)
                # float64's margin was rounding noise that happened to be negative: only
                # arbitrary precision saw this violation
                self.stats["unresolved"] += 1
                if self.config.deep:
                    raise self.found(exact, dims, cert, "deep")
                continue
            if cert.status == "undecided":
                self.undecided += 1
                continue
            self.stats["rejected_by_recheck"] += 1
            if cert.status == "tight":
                self.stats["tight_points"] += 1
                self.note_tight(cert)
            m = float(margin[i])
            if self.worst_rejected is None or m < self.worst_rejected:
                self.worst_rejected = m
            if cert.status != "hypothesis-fails":
                if self.config.deep and cert.lhs is not None and cert.margin is not None:
                    # float64 said "violated", dps digits said no: float64 cannot resolve
                    # this neighbourhood, so it is a start for the deep local search
                    scale = abs(cert.lhs) + abs(cert.rhs)
                    rel = 0.0 if cert.status == "tight" or not scale else float(cert.margin / scale)
                    self.near_misses.record(rel, exact, dims)
                yield int(i), cert

    def note_tight(self, cert: Certificate) -> None:
        """A certificate that could not sign the margin at its highest precision decides nothing.

        Only an exact (or symbolic) equality is a tie the claim survives; an enclosure that
        straddles zero is reported, with the precision it reached, and never counted as 0.
        """
        if cert.method == "none":
            self.stats["tight_undecided"] += 1
            if self.tight_detail is None:
                self.tight_detail = cert.detail

    def examine_deep(self, data, dims, candidates):
        """Re-evaluate unresolved float points exactly (or at dps digits); certify the ones that fail there.

        Yields (index, rel, lhs, rhs) for the points that do not fail, so they join the
        elite pool with values float64 could not give.
        """
        for i in candidates:
            if self.deep_left <= 0:
                return
            if self.rejected_exactly and _row_key(data, i) in self.rejected_exactly:
                continue
            self.deep_left -= 1
            try:
                exact = exactify(self.check, data, int(i), dims)
                ev, ctx = self.precise_evaluation(exact, dims, with_hypotheses=False, look=True)
            except UNDEFINED_AT_POINT:
                continue
            self.stats["deep_evaluations"] += 1
            self.stats["rechecked"] += 1
            mp_rel = precise_relative(ev, ctx)
            if mp_rel is None:
                continue
            cert = self.deep_verdict(exact, dims, mp_rel, phase="deep", violated=exact_violation(self.check, ev, ctx))
            self.stats["rejected_by_recheck"] += 1
            if cert is not None and cert.status == "hypothesis-fails":
                self.rejected_exactly.add(_row_key(data, i))
                continue
            if cert is not None:
                # dps digits lost to cancellation; what the certificate proved stands
                mp_rel = 0.0 if cert.status != "holds" else max(mp_rel, 0.0)
            if _tie(mp_rel, ctx, self.config.dps):
                mp_rel = 0.0
                self.stats["tight_points"] += 1
            self.near_misses.record(mp_rel, exact, dims)
            with ctx.precision():
                yield int(i), mp_rel, _clamped_float(ev.lhs[0]), _clamped_float(ev.rhs[0])

    def deep_verdict(self, exact, dims, mp_rel, phase, explored=False, violated=None):
        """Certify a point whose margin at dps digits is negative (or too small to tell).

        ``violated``: the margin's sign is known exactly (the claim stayed rational), so
        only a point that is violated goes to the certificate, however small its margin.
        ``explored``: a point the deep local search made up.  If it cannot be certified
        either way it is dropped; only points the search met count as undecided (or tight).
        """
        resolution = 10.0 ** (5 - self.config.dps)  # below this, dps digits cannot tell either
        if violated is None:
            violated = mp_rel < -resolution or (self.check.strict and mp_rel <= resolution)
        if violated:
            cert = self.certifier.certify(self.check, exact, dims, display="violations")
            if cert.violated:
                raise self.found(exact, dims, cert, phase)
            if not explored:
                if cert.status == "undecided":
                    self.undecided += 1
                elif cert.status == "tight":
                    self.note_tight(cert)
            return cert
        return None

    # -- what the report shows -------------------------------------------------------
    def precise_evaluation(self, exact, dims, with_hypotheses=True, dps=None, look=False):
        """(evaluation, context): exactly when the claim stays rational, else at dps digits.

        Plain dps digits are not enough for reporting: at extreme scales (eps = 1e-300
        beside entries of size 1) cancellation eats them, and a ratio of 1.25 was once
        reported for a claim proved to stay <= 1.  Nor for the search: a margin below
        dps digits is a tie there, and exactly it has a sign.  Exact arithmetic is also
        the cheaper of the two (about a quarter of the time at 50 digits on the pack).

        ``look``: one of the search's own looks.  Once the claim has left the rationals at
        one of them (an ``exp`` of a nonzero score), the rest of the chunk's looks go to
        dps digits directly; certificates and the report still try exact arithmetic first.
        """
        if not (look and self.irrational):
            try:
                return self.check.evaluate(EXACT, EXACT.convert(exact), dims, with_hypotheses=with_hypotheses), EXACT
            except NotRational:
                self.irrational = self.irrational or look
        mp = MPContext(dps or self.config.dps)
        return self.check.evaluate(mp, _mp_convert(mp, exact), dims, with_hypotheses=with_hypotheses), mp

    def verified_max_ratio(self):
        """The largest lhs/rhs among float64's top candidates, re-evaluated at dps digits."""
        return self.verified_max_ratio_point()[0]

    def verified_max_ratio_point(self):
        """(largest lhs/rhs re-evaluated exactly or at dps digits, the float point where it is reached).

        When the exact check rejects every kept point (they sit just outside a non-strict
        hypothesis, on whose boundary the largest ratio lies), the point is float64's best one,
        with no ratio, for a caller to move onto the hypotheses exactly.
        """
        best, where = None, None
        rejected = None
        for _, point, dims in self.ratio_points:
            try:
                exact = exactify(self.check, point, 0, dims)
                ev, ctx = self.precise_evaluation(exact, dims)
                if ev is None:
                    continue
                if not _hypotheses_hold(ctx, self.check, ev, self.config.dps):
                    rejected = {"dims": dict(dims), "vars": {k: np.asarray(v[0]).tolist() for k, v in point.items()}}
                    continue
                lhs, rhs = ev.lhs[0], ev.rhs[0]
                if self.check.part.relation in (">=", ">"):
                    lhs, rhs = rhs, lhs
                if rhs > 0 and lhs >= 0:
                    r = float(lhs / rhs)
                    if best is None or r > best:
                        best, where = r, {"dims": dict(dims), "vars": {k: np.asarray(v[0]).tolist() for k, v in point.items()}}
            except UNDEFINED_AT_POINT:
                continue
        return best, where if best is not None else rejected


# ----------------------------------------------------------------------------------------
class _Unisolated:
    """A row of a piece of the batch that raised as a whole: it may or may not raise alone."""

    def __init__(self, exc):
        self.exc = exc


def _why(exc) -> str:
    exc = exc.exc if isinstance(exc, _Unisolated) else exc
    return f"{type(exc).__name__}: {exc}"


def _batch_len(data) -> int:
    for arr in data.values():
        return len(arr)
    return 1


def _plain_point(exact) -> dict:
    from ..sampling import fractions_of

    out = {}
    for name, arr in exact.items():
        fr = fractions_of(np.asarray(arr, dtype=object))[0]
        out[name] = str(fr) if np.ndim(fr) == 0 else np.vectorize(str, otypes=[object])(fr).tolist()
    return out


def _mp_finite(x) -> bool:
    try:
        return bool(mpmath.isfinite(x))
    except (TypeError, ValueError):
        return True  # a plain rational written into the claim


def _clamped_float(x) -> float:
    """``float(x)``, with values beyond float64's range held at its largest finite value."""
    try:
        f = float(x)
    except OverflowError:
        f = np.inf if x > 0 else -np.inf
    return float(np.clip(f, -np.finfo(float).max, np.finfo(float).max))


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
        true = _clamped_float(cert.margin)
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


def precise_relative(ev, ctx):
    """margin / (|lhs| + |rhs|) of an exact or dps-digit evaluation, as a float (0 exactly when the margin is 0)."""
    if ctx is not EXACT:
        return _mp_relative(ev, ctx)
    m, lhs, rhs = ev.margin[0], ev.lhs[0], ev.rhs[0]
    if m == 0:
        return 0.0
    scale = abs(lhs) + abs(rhs)
    if scale == 0:
        return -1.0 if m < 0 else 0.0
    try:
        return float(m / scale)
    except OverflowError:
        return -np.finfo(float).max if m < 0 else np.finfo(float).max


def exact_violation(check, ev, ctx):
    """Is the claim violated at this exact evaluation (None: not exact, the sign is only approximate)?"""
    if ctx is not EXACT:
        return None
    m = ev.margin[0]
    return bool(m < 0 or (check.strict and m == 0))


def _tie(rel, ctx, dps) -> bool:
    """Equal to the precision of the evaluation: exactly zero, or zero to dps digits."""
    return rel == 0 if ctx is EXACT else abs(rel) <= 10.0 ** (5 - dps)


def _row_key(data, i):
    """A float row's identity: its bytes, variable by variable."""
    return tuple(np.asarray(data[k][i]).tobytes() for k in sorted(data))


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
