"""Branch and bound in rigorous ball arithmetic, for claims with exp at fixed small dimensions.

The domain is a box of *coordinates*: every entry of a boxed variable, and for a variable
built by a relation (``b`` with ``||b|| <= eps``) its unit-box coordinate ``u`` in
``[-1, 1]`` (``b = near + radius * u``), so every box lies inside the relation.  Each box is
evaluated once on :class:`~.jets.Jet` s, which gives in one pass a plain enclosure of every
entry of the margin, a centred (mean-value) enclosure, the value at the centre and an
enclosure of the gradient.  A box is

* *proved* when every entry's enclosure is >= 0 (> 0 for a strict claim), or when a
  hypothesis is certainly false on all of it (nothing to prove there);
* *reduced* when the gradient has a certain sign in some coordinates: the margin is monotone
  there, so its least value on the box is on a face, and proving the face proves the box;
* *refuted* when the margin at its centre is certainly negative: the centre is an exact
  rational point that then goes through the ordinary certifier;
* otherwise split in the coordinate that contributes most to the enclosure's width.

A claim that is an *equality* on a face of the domain (Lemma 4.2 (1) at b = eps) cannot be
closed by enclosures near that face: they always straddle zero.  Such faces are detected up
front and named in the output; boxes that touch them are reduced to the face by
monotonicity, where the margin is shown to vanish *identically* by sympy (with the branches
of abs, max and min fixed by the enclosures), or else left open -- never split forever.
"""

from __future__ import annotations

import dataclasses
import heapq
import itertools
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from flint import fmpq

from ..certify import Certifier
from ..claims import Check, _domain_hypotheses
from ..contexts import BallContext, ExactContext
from ..engine import make_counterexample
from ..results import CheckResult, FoundBy, Verdict
from ..shrink import Shrinker
from .domain import Domain
from .jets import ZERO, JetContext, NeedsChoice, interval_ball
from .result import Proof, ProofDetails, base_fields
from .symbolic_face import vanishes_identically

EXACT = ExactContext()
#: boxes narrower than this (relative to the domain, in every coordinate) are left open
MIN_RELATIVE_WIDTH = Fraction(1, 2**30)
#: a box this thin (relative) across an equality face it touches is left open: enclosures
#: cannot separate the margin from 0 there, so splitting further would only spin
FACE_WIDTH = Fraction(1, 2**6)


class BoundedDomainError(ValueError):
    """Branch and bound needs a finite box for every free variable."""


@dataclass(frozen=True)
class Coordinate:
    var: str
    index: tuple[int, ...]
    unit: bool  # a unit-box coordinate of a relation-bound variable

    @property
    def label(self) -> str:
        idx = ",".join(str(i + 1) for i in self.index)
        name = f"u[{self.var}]" if self.unit else self.var
        return f"{name}_{idx}" if idx else name


def _kind(var) -> str | None:
    return var.domain.kind if var.domain is not None else None


def _simplex_last(var, idx, shape) -> bool:
    """The last entry of a simplex row is 1 minus the others: no coordinate of its own."""
    return _kind(var) in ("simplex", "stochastic") and idx[-1] == shape[-1] - 1


def coordinates(check: Check, domain: Domain):
    coords, root = [], []
    for var in check.variables:
        shape = var.concrete_shape(domain.dims)
        if _kind(var) == "derived":
            continue  # computed from the others
        if _kind(var) in ("unit-vector", "orthogonal"):
            raise BoundedDomainError(f"branch and bound does not parametrise the {_kind(var)} {var.name}: prove it with --method smt")
        if var.radius is not None:
            box = (Fraction(-1), Fraction(1))
        elif _kind(var) in ("simplex", "stochastic"):
            lo, hi = domain.boxes.get(var.name) or (Fraction(0), Fraction(1))
            box = (max(lo, Fraction(0)), min(hi, Fraction(1)))
        else:
            box = domain.boxes.get(var.name)
            if box is None:
                raise BoundedDomainError(f"branch and bound needs a bounded box for {var.name}: give --box {var.name}=LO:HI (or --box LO:HI)")
        for idx in np.ndindex(*shape):
            if not _simplex_last(var, idx, shape):
                coords.append(Coordinate(var.name, idx, var.radius is not None))
                root.append(box)
    return coords, root


class _Problem:
    """One check on one domain: builds the data of a box and evaluates it."""

    def __init__(self, check: Check, domain: Domain, prec: int):
        self.check, self.domain, self.prec = check, domain, prec
        self.coords, self.root = coordinates(check, domain)
        self.undecided: list = []
        self.widths = [hi - lo for lo, hi in self.root]
        self.active = [w > 0 for w in self.widths]

    def data(self, ctx, values):
        """Variables from coordinate values (Jets, balls or exact rationals), in declaration order."""
        data, k = {}, 0
        for var in self.check.variables:
            shape = var.concrete_shape(self.domain.dims)
            if _kind(var) == "derived":
                with ctx.precision():
                    value = var.domain.fn(ctx, self.check.values(data, self.domain.dims))
                data[var.name] = np.asarray(value, dtype=object).reshape((1,) + shape)
                continue
            arr = np.empty((1,) + shape, dtype=object)
            for idx in np.ndindex(*shape):
                if _simplex_last(var, idx, shape):
                    # the sum is exactly 1 by construction; the entry's sign is a hypothesis
                    rest = 1
                    for j in range(shape[-1] - 1):
                        rest = rest - arr[(0,) + idx[:-1] + (j,)]
                    arr[(0,) + idx] = rest
                    continue
                arr[(0,) + idx] = values[k]
                k += 1
            if var.radius is not None:
                radius = np.asarray(data[var.radius])
                radius = radius.reshape(radius.shape + (1,) * len(shape))
                arr = (data[var.near] if var.near else 0) + radius * arr
            data[var.name] = arr
        return data

    def jets(self, box, choices=(), max_choices=0):
        radii = [(hi - lo) / 2 if act and hi > lo else None for (lo, hi), act in zip(box, self.active)]
        ctx = JetContext([None if r is None else interval_ball(-r, r) for r in radii], self.prec, choices, max_choices)
        with ctx.precision():
            values = [ctx.coordinate(i, lo, hi) for i, (lo, hi) in enumerate(box)]
        return ctx, values

    def hypotheses(self, ctx, data):
        v = self.check.values(data, self.domain.dims)
        with ctx.precision():
            return [np.ravel(np.asarray(h.margin(ctx, v), dtype=object))[0] for h in self.check.hypotheses]

    def margins(self, ctx, data):
        """The entries of the margin: one, or each entry of an elementwise part."""
        part = self.check.part
        if not part.elementwise:
            return [self.check.evaluate(ctx, data, self.domain.dims, with_hypotheses=False).margin[0]]
        v = self.check.values(data, self.domain.dims)
        with ctx.precision():
            lhs, rhs = np.asarray(part.lhs(ctx, v), dtype=object), np.asarray(part.rhs(ctx, v), dtype=object)
            if part.relation in ("<=", "<"):
                per = rhs - lhs
            elif part.relation in (">=", ">"):
                per = lhs - rhs
            else:
                per = -ctx.abs(lhs - rhs)
        return list(np.ravel(per[0]))

    def evaluate(self, ctx, data):
        return self.hypotheses(ctx, data), self.margins(ctx, data)

    def path_margins(self, box, max_choices):
        """Margins on every smooth piece: one list of entry Jets per choice of undecided branches.

        Also records, in ``self.undecided``, the gradients of the first max/min each piece
        left undecided.
        """
        out, stack = [], [()]
        self.undecided = []
        while stack:
            choices = stack.pop()
            ctx, values = self.jets(box, choices, max_choices)
            try:
                out.append(self.margins(ctx, self.data(ctx, values)))
            except NeedsChoice:
                stack += [choices + (1,), choices + (0,)]
                continue
            self.undecided += ctx.undecided[:1]
        return out

    def anchored(self, box, max_choices):
        """Mean-value enclosures of the margin entries anchored where the relations vanish.

        For a relation-bound variable (``b = near + radius u``) the anchor is ``u = 0``, the
        unperturbed point.  There the memo makes ``f(a + 0) - f(a)`` exactly 0, so the anchor
        value is sharp over the whole box; the change from the anchor is enclosed by the
        gradient in ``u`` over the box stretched to contain ``u = 0`` (mean-value theorem).
        Returns (enclosures, the pieces' margins over the stretched box, the stretched box),
        or None when the check has no relation-bound variable.
        """
        units = [j for j, c in enumerate(self.coords) if c.unit and self.active[j]]
        if not units:
            return None
        anchor, stretched = list(box), list(box)
        for j in units:
            lo, hi = box[j]
            anchor[j] = (Fraction(0), Fraction(0))
            stretched[j] = (min(lo, Fraction(0)), max(hi, Fraction(0)))
        at_anchor = self.path_margins(anchor, 0)
        slopes = self.path_margins(stretched, max_choices)
        out = []
        for i in range(len(at_anchor[0])):
            value = _hull(m[i].enclosure() for m in at_anchor)
            for j in units:
                g = _hull(m[i].g[j] if m[i].g else ZERO for m in slopes)
                value = value + g * interval_ball(*box[j])
            out.append(value)
        return out, slopes, stretched

    def centre(self, box):
        return [(lo + hi) / 2 for lo, hi in box]

    def exact_point(self, point):
        values = [fmpq(q.numerator, q.denominator) for q in point]
        return self.data(EXACT, values)

    def volume(self, box) -> float:
        out = 1.0
        for (lo, hi), w, act in zip(box, self.widths, self.active):
            if act:
                out *= float((hi - lo) / w)
        return out

    def too_small(self, box) -> bool:
        return all(not act or (hi - lo) <= w * MIN_RELATIVE_WIDTH for (lo, hi), w, act in zip(box, self.widths, self.active))


def _built_in_texts(check: Check) -> set[str]:
    """Texts of the domain relations the coordinates satisfy by construction."""
    out = set()
    for var in check.variables:
        plain = dataclasses.replace(var, lower=None, upper=None, domain=None)
        out |= {h.text for h in _domain_hypotheses(plain)}
        if _kind(var) in ("simplex", "stochastic", "derived"):
            # the sum of a row, or the defining equation: exact by construction; only the
            # sign of an entry (the first hypothesis of a simplex) is left to check
            out |= {h.text for h in var.domain.hypotheses(var)[1 if _kind(var) != "derived" else 0:]}
    return out


def _hull(balls):
    out = None
    for b in balls:
        out = b if out is None else out.union(b)
    return out


def _holds(ball, strict) -> bool:
    return bool(ball > 0) if strict else bool(ball >= 0)


def _fails(ball, strict) -> bool:
    return bool(ball <= 0) if strict else bool(ball < 0)


class BranchAndBound:
    def __init__(self, check: Check, domain: Domain, time_limit: float = 60.0, dps: int = 50, prec: int = 64, max_choices: int = 1,
                 executor=None):
        self.executor = executor
        self.check, self.domain, self.time_limit, self.dps = check, domain, time_limit, dps
        self.problem = _Problem(check, domain, prec)
        self.strict = check.strict
        self.hyp_strict = [h.strict for h in check.hypotheses]
        self.certifier = Certifier(dps)
        self.proved_volume = 0.0
        self.examined = 0
        self.proved_boxes = 0
        self.open_boxes: list = []
        self.reductions = 0
        self.identities = 0
        self.tight_faces: list[str] = []
        self.max_choices = max_choices
        self.certify_attempts = 0
        self.max_certify = 50

    # ------------------------------------------------------------------------------------
    def run(self) -> Proof:
        start = time.monotonic()
        self.deadline = start + self.time_limit
        base = base_fields(self.check, self.dps)
        where = self.domain.describe(self.check)
        self.tight_faces = self._find_tight_faces()
        self.open_faces: set[str] = set()
        self.hypotheses_hold = self._hypotheses_hold_on(self.problem.root)
        refuted = self._strict_fails_on_face()
        self.refute_reason = ("a point of an equality face violates the strict claim (certified)" if refuted is not None
                              else "a box's centre violates the claim (certified)")
        counter = itertools.count()
        root = list(self.problem.root)
        heap = [] if refuted is not None else [(-1.0, next(counter), root, None)]
        while heap:
            if time.monotonic() > self.deadline:
                break
            _, _, box, entries = heapq.heappop(heap)
            self.examined += 1
            outcome = self._assess(box, entries)
            if outcome[0] == "proved":
                self.proved_volume += self.problem.volume(box)
                self.proved_boxes += 1
            elif outcome[0] == "refuted":
                refuted = outcome[1]
                break
            elif outcome[0] == "open":
                self.open_boxes.append(box)
            else:
                _, j, entries = outcome
                lo, hi = box[j]
                mid = (lo + hi) / 2
                for half in ((lo, mid), (mid, hi)):
                    child = list(box)
                    child[j] = half
                    heapq.heappush(heap, (-self.problem.volume(child), next(counter), child, entries))
        seconds = time.monotonic() - start
        remaining = len(heap)
        self.pending = [entry[2] for entry in heap]
        details = dict(
            method="branch-and-bound", domain=self.domain.to_dict(), time_limit=self.time_limit,
            boxes_proved=self.proved_boxes, boxes_examined=self.examined, volume_proved=round(self.proved_volume, 12),
        )
        notes = self._notes()
        if refuted is not None:
            return self._refuted(refuted, base, details, notes, start)
        if not heap and not self.open_boxes:
            how = "ball arithmetic with centred (mean-value) forms"
            if self.reductions:
                how += f", {self.reductions} monotonicity reductions to faces"
            if self.identities:
                how += f", {self.identities} faces where the margin vanishes identically (sympy)"
            return Proof(
                CheckResult(verdict=Verdict.PROVED, method="branch-and-bound", seconds=seconds, domain=where,
                            stop_reason=f"every box proved ({self.proved_boxes} boxes of {self.examined} examined)",
                            message=f"proved by branch and bound: {how}", **base),
                ProofDetails(notes=notes, **details),
            )
        why = "time limit reached" if remaining else "boxes left open"
        open_note = ""
        if self.open_boxes:
            open_note = f"; {len(self.open_boxes)} box(es) left open at the smallest width (margin not separable from 0 there)"
        return Proof(
            CheckResult(verdict=Verdict.INCONCLUSIVE, method="none", seconds=seconds, domain=where,
                        stop_reason=why,
                        message=f"{100 * self.proved_volume:.4g}% of the domain's volume proved in {self.examined} boxes ({why}{open_note})", **base),
            ProofDetails(notes=notes, **details),
        )

    def _hypotheses_hold_on(self, box) -> bool:
        """True when every hypothesis is certain on the whole box (then no sub-box needs them).

        The relations built into the coordinates (``||b|| <= eps`` for ``b = eps u``) hold by
        construction, as do the variables' own bounds (the boxes lie inside them); only the
        stated hypotheses and bound functions are evaluated.
        """
        p = self.problem
        ctx, values = p.jets(box)
        hyps = p.hypotheses(ctx, p.data(ctx, values))
        built_in = _built_in_texts(self.check)
        return all(h.text in built_in or _holds(m.enclosure(), h.strict) for h, m in zip(self.check.hypotheses, hyps))

    def _notes(self) -> tuple[str, ...]:
        out = []
        for _, _, label, _ in self.tight_faces:
            note = f"the claim is an equality on the face {label} (numerically, at every sample): enclosures straddle 0 near it"
            if label in self.open_faces:
                note += "; boxes along it were left open, since splitting cannot close them and no exact reduction did"
            elif self.identities:
                note += "; closed by monotone reduction to the face and a sympy identity there"
            out.append(note)
        return tuple(out)

    # ------------------------------------------------------------------------------------
    def _assess(self, box, entries):
        p = self.problem
        try:
            hyps = []
            if not self.hypotheses_hold:
                ctx, values = p.jets(box)
                hyps = p.hypotheses(ctx, p.data(ctx, values))
                for h, strict in zip(hyps, self.hyp_strict):
                    if _fails(h.enclosure(), strict):
                        return ("proved",)  # no point of this box satisfies the hypotheses
            # with relation-bound variables, the box stretched to their anchor serves for both
            # the anchored enclosure and (a little wider) the plain one: one evaluation fewer
            anchored = p.anchored(box, self.max_choices)
            if anchored is None:
                paths, around = p.path_margins(box, self.max_choices), box
            else:
                anchored, paths, around = anchored
        except (ZeroDivisionError, ValueError):
            return self._split_or_open(box, entries, None)
        undecided = p.undecided
        if entries is None:
            entries = tuple(range(len(paths[0])))
        hyps_at_centre = self.hypotheses_hold or all(_holds(h.c, s) for h, s in zip(hyps, self.hyp_strict))
        remaining, worst = [], []
        for i in entries:
            jets = [pm[i] for pm in paths]
            if all(_holds(m.enclosure(), self.strict) for m in jets):
                continue
            if anchored is not None and _holds(anchored[i], self.strict):
                continue
            if hyps_at_centre and any(m.c < 0 for m in jets) and self.certify_attempts < self.max_certify:
                self.certify_attempts += 1
                cert = self._certify(p.centre(around))
                if cert is not None:
                    return ("refuted", cert)
            if self._reduced_to_face_proves(box, i, jets):
                continue
            remaining.append(i)
            worst += jets
        if not remaining:
            return ("proved",)
        return self._split_or_open(box, tuple(remaining), worst, undecided)

    def _split_or_open(self, box, entries, margins, undecided=()):
        p = self.problem
        if p.too_small(box):
            return ("open",)
        face = self._touches_tight_face(box)
        if face is not None:
            self.open_faces.add(face)
            return ("open",)
        # Split where the margin varies most, or where the first undecided max/min would be
        # decided: its hull of two gradients loosens every enclosure downstream of it.
        guides = list(undecided[:1]) + [m.g for m in (margins or []) if m.g]
        best, best_j = None, None
        for j, ((lo, hi), w, act) in enumerate(zip(box, p.widths, p.active)):
            if not act or hi == lo:
                continue
            score = float((hi - lo) / w) * 1e-3
            for g in guides:
                score = max(score, float(abs(g[j]).upper()) * float(hi - lo))
            if best is None or score > best:
                best, best_j = score, j
        return ("split", best_j, entries)

    def _reduced_to_face_proves(self, box, i, jets) -> bool:
        """Monotone in some coordinates on every piece: prove the entry on the face holding its minimum.

        The margin is continuous and, along each such coordinate, made of pieces that all
        move the same way, so it is monotone there on the whole box.  On the face the
        gradients are re-enclosed, which may fix more signs: the reduction repeats.
        """
        p = self.problem
        for _ in range(len(box)):
            if any(m.g is None for m in jets):
                return False
            face, moved = list(box), False
            for j, act in enumerate(p.active):
                lo, hi = box[j]
                if not act or lo == hi:
                    continue
                if all(m.g[j] >= 0 for m in jets):
                    face[j], moved = (lo, lo), True
                elif all(m.g[j] <= 0 for m in jets):
                    face[j], moved = (hi, hi), True
            if not moved:
                return False
            try:
                anchored = p.anchored(face, self.max_choices)
                if anchored is None:
                    paths, anchored = p.path_margins(face, self.max_choices), None
                else:
                    anchored, paths, _ = anchored
            except (ZeroDivisionError, ValueError):
                return False
            if all(_holds(pm[i].enclosure(), self.strict) for pm in paths) or (anchored is not None and _holds(anchored[i], self.strict)):
                self.reductions += 1
                return True
            if not self.strict and vanishes_identically(p, face, i):
                self.reductions += 1
                self.identities += 1
                return True
            box, jets = face, [pm[i] for pm in paths]
        return False

    def _certify(self, point):
        data = self.problem.exact_point(point)
        cert = self.certifier.certify(self.check, data, self.domain.dims)
        return (data, cert) if cert.violated else None

    def _refuted(self, found, base, details, notes, start) -> Proof:
        data, cert = found
        found_at = time.monotonic() - start
        shrunk = Shrinker(self.check, self.certifier).shrink(data, self.domain.dims, cert)
        cx = make_counterexample(self.check, shrunk.data, shrunk.dims, shrunk.certificate, self.dps,
                                 found_by=FoundBy("branch-and-bound", self.examined, round(found_at, 4)), shrunk=True)
        return Proof(
            CheckResult(verdict=Verdict(self.check.claim.refuted_verdict), method=shrunk.certificate.method, counterexample=cx,
                        seconds=time.monotonic() - start, domain=self.domain.describe(self.check),
                        stop_reason=self.refute_reason, message=f"{self.refute_reason}; re-certified and shrunk", **base),
            ProofDetails(notes=notes, **details),
        )

    # ------------------------------------------------------------------------------------
    def _find_tight_faces(self, samples: int = 3) -> list[tuple[tuple, tuple, str, list]]:
        """Faces of the domain on which some entry of the margin is numerically zero at every sample.

        Returns (coordinates, their ends, label, exact sample points) per face.  Sampling at 256 bits
        only *detects* such a face; nothing is concluded from it without a certificate.
        """
        p = self.problem
        rng = np.random.default_rng(0)
        ball = BallContext(256)
        faces = [((j,), (end,), _face_label(self.check, coord, end))
                 for j, (coord, (lo, hi), act) in enumerate(zip(p.coords, p.root, p.active)) if act for end in (lo, hi)]
        units = [j for j, c in enumerate(p.coords) if c.unit and p.active[j]]
        if len(units) > 1:  # every relation at its bound at once (b = eps 1, b = -eps 1)
            for end in (Fraction(1), Fraction(-1)):
                labels = ", ".join(_face_label(self.check, p.coords[j], end) for j in units)
                faces.append((tuple(units), (end,) * len(units), labels))
        out = []
        for js, ends, label in faces:
            zero_everywhere, points = None, []
            for _ in range(samples):
                # dyadic points: balls hold them exactly, so a hypothesis tight there stays decidable
                point = [_dyadic(Fraction(int(rng.integers(1, 1024)), 1024) * (b - a) + a) for a, b in p.root]
                for j, end in zip(js, ends):
                    point[j] = end
                points.append(point)
                try:
                    with ball.precision():
                        data = {k: ball.asarray(v) for k, v in p.exact_point(point).items()}
                    margins = p.margins(ball, data)
                except (ZeroDivisionError, ValueError):
                    zero_everywhere = set()
                    break
                zeros = {i for i, m in enumerate(margins) if m.is_finite() and 0 in m and m.rad() < 1e-60}
                zero_everywhere = zeros if zero_everywhere is None else zero_everywhere & zeros
            if zero_everywhere:
                out.append((js, ends, label, points))
        return out

    def _touches_tight_face(self, box) -> str | None:
        """The label of an equality face this box touches while already thin across it."""
        p = self.problem
        for js, ends, label, _ in self.tight_faces:
            if all((box[j][0] == end or box[j][1] == end) and (box[j][1] - box[j][0]) <= p.widths[j] * FACE_WIDTH for j, end in zip(js, ends)):
                return label
        return None

    def _strict_fails_on_face(self):
        """A strict claim is false on an equality face: certify a sample point there (symbolically)."""
        if not self.strict:
            return None
        for _, _, _, points in self.tight_faces:
            for point in points:
                cert = self._certify(point)
                if cert is not None:
                    return cert
        return None


def _dyadic(q: Fraction) -> Fraction:
    return Fraction(round(q * 2**20), 2**20)


def _face_label(check: Check, coord: Coordinate, end: Fraction) -> str:
    if not coord.unit:
        return f"{coord.label} = {end}"
    var = next(v for v in check.variables if v.name == coord.var)
    idx = ",".join(str(i + 1) for i in coord.index)
    name = f"{coord.var}_{idx}" if idx else coord.var
    centre = f"{var.near}_{idx} + " if var.near else ""
    scale = "" if abs(end) == 1 else f"{end}\u00b7"
    sign = "\u2212" if end < 0 else ""
    return f"{name} = {centre}{sign}{scale if end > 0 else scale.lstrip('-')}{var.radius}" if end != 0 else f"{name} = {var.near + '_' + idx if var.near else 0}"


__all__ = ["BranchAndBound", "BoundedDomainError", "coordinates"]
