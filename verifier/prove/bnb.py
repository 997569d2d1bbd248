"""Branch and bound in rigorous ball arithmetic, for claims with exp at fixed small dimensions.

The coordinator of a proof: it establishes once what every box is judged against (whether
the hypotheses hold on the whole domain, the faces where the claim is an equality and which
of them vanish identically), then runs rounds.  Each round takes the most promising boxes
off a priority queue, hands them in fixed batches to an executor (:func:`.judge.judge_boxes`
decides each box: proved, split, open), and applies the outcomes in order: so the same boxes
are decided, in the same order, with any executor and any number of workers.

Boxes are ordered by volume weighted by how decided their parent's enclosure was: large,
nearly proved boxes first, so that a proof cut short by its time limit has decided as much
volume as it could; a box whose enclosure lies mostly below 0 waits, and is where a
refutation is sought (its centre is certified exactly when the margin is certainly negative
there).

After a first few boxes (so that an easy proof never pays for it), the claim's exact
invariances are sought once (:mod:`.invariance`): a symmetry under permutations of an index
closes every box outside the region where one family of coordinates is sorted, and an
invariance under shifts of a vector variable fixes its first entry at 0 -- the proof then
starts again on that smaller root box (B.2 at n = 4: proved in 347 boxes, where 7,689 boxes
decided 98.98 % of the volume before).

A claim that is an *equality* on a face of the domain (Lemma 4.2 (1) at b = eps) cannot be
closed by enclosures near that face: they always straddle zero.  Such faces are detected up
front and named in the output; on each, sympy is asked once whether the margin vanishes
*identically* on the whole face (with the branches of abs, max and min fixed by enclosures).
Boxes that touch a face so closed are reduced to it by monotonicity and proved; other boxes
along an equality face are left open at a small width -- never split forever.
"""

from __future__ import annotations

import dataclasses
import heapq
import itertools
import os
import time
from fractions import Fraction

import numpy as np

from ..certify import Certifier
from ..claims import Check
from ..contexts import BallContext, FunctionDomainError
from ..engine import make_counterexample
from ..runner import SerialRunner
from ..results import CheckResult, FoundBy, Verdict
from ..shrink import Shrinker
from .domain import ProofBox
from .judge import FaceFacts, judge_boxes
from .problem import BoundedDomainError, BoxProblem, Coordinate, coordinates, holds
from .certificate import Leaf, ProofCertificate, Reduction, exact
from .result import Proof, ProofDetails, Stuck, base_fields
from .strategy import Budget, ProofStop, Strategy
from .symbolic_face import vanishes_identically
from .invariance import find_reduction

#: boxes judged per round, and per task: fixed, so the proof is the same with any executor
ROUND_BOXES = 64
BATCH_BOXES = 8
#: centres certified at most (each is an exact evaluation and a shrink)
MAX_CERTIFY = 50
#: boxes judged before the claim's invariances are sought (sympy, a fraction of a second): a
#: proof done by then never pays for them; counted at the end of a round, so the same on any machine
BOXES_BEFORE_REDUCTION = 8

_runs = itertools.count()


class BranchAndBound:
    def __init__(self, check: Check, domain: ProofBox, time_limit: float = 60.0, dps: int = 50, prec: int = 64, max_choices: int = 0,
                 executor=None, max_boxes: int | None = None, near: tuple = ()):
        self.check, self.domain, self.time_limit, self.dps = check, domain, time_limit, dps
        # a budget of work rather than time: rounds are fixed, so the same boxes are decided on any machine
        self.max_boxes = max_boxes
        self.executor = executor if executor is not None else SerialRunner()
        self.prec, self.max_choices = prec, max_choices
        self.problem = BoxProblem(check, domain, prec)
        self.strict = check.strict
        self.certifier = Certifier(dps)
        self.proved_volume = 0.0
        self.examined = 0
        self.proved_boxes = 0
        self.open_boxes: list = []
        self.open_faces: set[str] = set()
        self.reductions = 0
        self.identities = 0
        self.tight_faces: list = []
        self.closed_faces: list = []
        self.certify_attempts = 0
        self.pending: list = []
        self.undefined: dict[str, int] = {}  # why open boxes could not be evaluated, and how many
        self.reduction = None  # the claim's permutation symmetry and shift invariance, once sought
        self.symmetric_boxes = 0  # closed as permutations of boxes that remain
        self.leaves: list[Leaf] = []  # every closed box and how, for the certificate
        self.touching = 0  # boxes closed at an exact equality point
        self.points: dict = {}  # the equality points those arguments used (coordinates), in order
        self.sets: dict = {}  # the equality sets (diagonals) those arguments used, as text
        self.regions: list = []  # (entry, region) proved around equality points: boxes inside them are closed
        self._region_set: set = set()
        self.region_boxes = 0  # boxes closed as lying inside such a region
        #: the caller's near-ties in coordinates: leads the judges verify before any argument uses one
        self.hinted: dict = dict.fromkeys(p for p in (self.problem.coordinates_of(q) for q in near) if p is not None)
        self.known_points: dict = {}  # every equality point a judge verified (coordinates), in the order found

    @property
    def stopped_by_budget(self) -> bool:
        """The last run ended on its box budget with boxes still to judge."""
        return bool(self.pending) and self._budget_spent()

    def _budget_spent(self) -> bool:
        return self.max_boxes is not None and self.examined >= self.max_boxes

    # ------------------------------------------------------------------------------------
    def run(self) -> Proof:
        start = time.monotonic()
        deadline = start + self.time_limit
        base = base_fields(self.check, self.dps)
        where = self.domain.describe(self.check)
        facts = self._face_facts()
        refuted = self._strict_fails_on_face()
        self.refute_reason = ("a point of an equality face violates the strict claim (certified)" if refuted is not None
                              else "a box's centre violates the claim (certified)")
        key = (os.getpid(), next(_runs))
        ref = self.executor.ref(self.check)
        counter = itertools.count()
        heap = [] if refuted is not None else [(-1.0, next(counter), tuple(root), None) for root in self.problem.roots]
        sought = False
        while heap and refuted is None and time.monotonic() <= deadline and not self._budget_spent():
            if not sought and self.examined >= BOXES_BEFORE_REDUCTION:
                heap, facts = self._reduce(heap, facts, counter)
                sought = True
            if len(self.hinted) + len(self.known_points) != len(facts.points):
                facts = dataclasses.replace(facts, points=tuple({**self.hinted, **self.known_points}))
            batch = [heapq.heappop(heap) for _ in range(min(ROUND_BOXES, len(heap)))]
            tasks = [(key, ref, self.domain, self.prec, self.max_choices, facts,
                      [(box, entries) for _, _, box, entries in batch[k:k + BATCH_BOXES]])
                     for k in range(0, len(batch), BATCH_BOXES)]
            outcomes = (o for chunk in self.executor.imap(judge_boxes, tasks) for o in chunk)
            for (_, _, box, _), outcome in zip(batch, outcomes):
                self.examined += 1
                if outcome.candidate is not None and self.certify_attempts < MAX_CERTIFY:
                    self.certify_attempts += 1
                    refuted = self._certify(list(outcome.candidate))
                    if refuted is not None:
                        break
                self.reductions += outcome.reductions
                self.identities += outcome.identities
                self._record(box, outcome.closed)
                self.known_points.update(dict.fromkeys(outcome.points))
                if outcome.kind == "proved":
                    self.proved_volume += self.problem.volume(box)
                    self.proved_boxes += 1
                elif outcome.kind == "open":
                    self.open_boxes.append(box)
                    if outcome.open_face is not None:
                        self.open_faces.add(outcome.open_face)
                    if outcome.undefined is not None:
                        self.undefined[outcome.undefined] = self.undefined.get(outcome.undefined, 0) + 1
                else:
                    j = outcome.split
                    lo, hi = box[j]
                    mid = (lo + hi) / 2
                    for half in ((lo, mid), (mid, hi)):
                        child = box[:j] + (half,) + box[j + 1:]
                        if self.reduction is not None and self.reduction.excludes(child):
                            self._close_by_symmetry(child)
                            continue
                        if self._inside_region(child, outcome.entries):
                            continue
                        weight = self.problem.volume(child) * (0.5 + outcome.undecided)
                        heapq.heappush(heap, (-weight, next(counter), child, outcome.entries))
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
                how += f", {self.identities} of them onto faces where the margin vanishes identically (sympy)"
            if self.touching:
                arguments = sorted({leaf.hints["argument"] for leaf in self.leaves if leaf.method == "touching-point"})
                how += f", {self.touching} boxes closed by expansions at exact points ({', '.join(ARGUMENTS.get(a, a) for a in arguments)})"
                if self.region_boxes:
                    how += f" and {self.region_boxes} more inside the regions so closed around equality points"
                where = ([_points_text(self.check, self.problem, self.points)] if self.points else []) + list(self.sets)
                if where:
                    how += f"; the claim is an equality at {' and on '.join(where)}"
            if self.reduction is not None:
                how += f"; on the domain reduced by the claim's invariance under {self.reduction.describe()}"
                if self.symmetric_boxes:
                    how += f", {self.symmetric_boxes} boxes closed as {'images' if self.reduction.half is not None else 'permutations'} of others"
            return Proof(
                CheckResult(verdict=Verdict.PROVED, method="branch-and-bound", seconds=seconds, domain=where,
                            stop_reason=f"every box proved ({self.proved_boxes} boxes of {self.examined} examined)",
                            message=f"proved by branch and bound: {how}", **base),
                ProofDetails(notes=notes, stop=ProofStop.PROVED, certificate=self._certificate(), **details),
            )
        stop = (ProofStop.BOX_BUDGET if self._budget_spent() else ProofStop.TIME_LIMIT) if remaining else ProofStop.BOXES_OPEN
        why = {ProofStop.BOX_BUDGET: "box budget reached", ProofStop.TIME_LIMIT: "time limit reached"}.get(stop, "boxes left open")
        stuck = self._stuck(heap)
        open_note = ""
        if self.open_boxes:
            open_note = f"; {len(self.open_boxes)} box(es) left open at the smallest width (margin not separable from 0 there)"
        return Proof(
            CheckResult(verdict=Verdict.INCONCLUSIVE, method="none", seconds=seconds, domain=where,
                        stop_reason=why,
                        message=f"{100 * self.proved_volume:.4g}% of the domain's volume proved in {self.examined} boxes ({why}{open_note})", **base),
            ProofDetails(notes=notes + ((f"stuck: {stuck.sentence()}",) if stuck is not None else ()), stop=stop, stuck=stuck,
                         **details),
        )

    def _face_facts(self) -> FaceFacts:
        """What every box is judged against, on the current root boxes."""
        self.tight_faces = self._find_tight_faces()
        self.closed_faces = self._close_tight_faces()
        reduced = tuple(self.problem.root) if self.reduction is not None and self.reduction.shifted else None
        return FaceFacts(all(self._hypotheses_hold_on(root) for root in self.problem.roots),
                         tuple((js, ends, label) for js, ends, label, _ in self.tight_faces), tuple(self.closed_faces),
                         reduced)

    def _reduce(self, heap, facts, counter):
        """Seek the claim's invariances once (sympy).  A shift changes the root box: the proof
        starts again on it (what was proved so far is of the old root).  The sorted region
        only closes the queued boxes outside it."""
        self.reduction = find_reduction(self.problem)
        if self.reduction is None:
            return heap, facts
        if self.reduction.shifted:
            self.problem.set_root(self.reduction.root(self.problem.root))
            self.proved_volume, self.proved_boxes = 0.0, 0
            self.open_boxes, self.open_faces, self.undefined = [], set(), {}
            facts = self._face_facts()
            heap = [(-1.0, next(counter), tuple(self.problem.root), None)]
        kept = []
        for entry in heap:
            if self.reduction.excludes(entry[2]):
                self._close_by_symmetry(entry[2])
            else:
                kept.append(entry)
        heapq.heapify(kept)
        return kept, facts

    def _close_by_symmetry(self, box) -> None:
        self.proved_volume += self.problem.volume(box)
        self.symmetric_boxes += 1
        scaled = self.reduction is not None and self.reduction.scaled_away(box)
        self.leaves.append(Leaf(self._box_dict(box), "scaled-image" if scaled else "symmetric-image",
                                {"factor": 2, "degree": self.reduction.scaling} if scaled else {}))

    # -- what the proof rests on ------------------------------------------------------------
    def _box_dict(self, box) -> dict:
        return {label: (exact(lo), exact(hi)) for label, (lo, hi) in zip(self._labels(), box)}

    def _labels(self) -> list[str]:
        labels = [c.label for c in self.problem.coords]
        return labels if len(set(labels)) == len(labels) else [f"{x}#{k}" for k, x in enumerate(labels)]

    def _inside_region(self, box, entries) -> bool:
        """A box inside regions already proved for every entry it still has to decide: closed (the
        region's own leaf covers it)."""
        if not self.regions:
            return False
        for i in entries:
            if not any(e == i and all(a <= lo and hi <= b for (a, b), (lo, hi) in zip(region, box)) for e, region in self.regions):
                return False
        self.proved_volume += self.problem.volume(box)
        self.region_boxes += 1
        return True

    def _record(self, box, closed) -> None:
        """The entries a judged box closed, as leaves of the certificate."""
        for entry, method, hints in closed:
            if "over" in hints:  # an argument over a region around an equality point: the region is the leaf
                region = tuple((Fraction(lo), Fraction(hi)) for lo, hi in hints["over"])
                if (entry, region) in self._region_set:
                    continue
                self._region_set.add((entry, region))
                self.regions.append((entry, region))
                box = region
            hints = dict(hints) if entry is None else {"entry": entry, **hints}
            if method == "touching-point":
                self.touching += 1
                if hints.get("equality") and hints.get("point"):
                    self.points.setdefault(tuple(Fraction(q) for q in hints["point"]), True)
                if "set" in hints:
                    self.sets.setdefault(hints["set"], True)
            self.leaves.append(Leaf(self._box_dict(box), method, hints))

    def _certificate(self) -> ProofCertificate:
        """The leaves (every box closed, in exact rationals, with its argument), the reductions
        before them, and the equality points used: what a checker re-proves box by box."""
        reductions = []
        for var, m in zip(self.check.variables, self.problem.param.maps):
            kind = var.domain.name if var.domain is not None else None
            if var.radius is not None:
                reductions.append(Reduction("chart", f"{var.name} = {var.near + ' + ' if var.near else ''}{var.radius}\u00b7u with "
                                            f"u in [-1, 1] entrywise: every value with the relation, and only those",
                                            {"variable": var.name, "map": "relation"}))
            elif kind is not None:
                reductions.append(Reduction("chart", f"{var.name} on the {kind} set is written through its map "
                                            f"({type(m).__name__.strip('_')}): the coordinates below cover the set",
                                            {"variable": var.name, "kind": kind, "map": type(m).__name__.strip("_")}))
        if self.problem.param.hypotheses:
            reductions.append(Reduction("hypothesis", "a box on which a hypothesis is certainly false holds nothing to prove",
                                        {"hypotheses": [h.text for h in self.problem.param.hypotheses]}))
        if self.reduction is not None:
            r = self.reduction
            if r.keys:
                reductions.append(Reduction("permutation", f"the claim is unchanged by {r.describe()}: only the sorted region is proved",
                                            {"sorted": [self._labels()[k] for k in r.keys], "dimension": r.dim}))
            if r.half is not None:
                reductions.append(Reduction("scaling", f"the claim is homogeneous of degree {r.scaling} (sympy) and the root "
                                            "box holds 0: a box inside the root halved about 0 is the image under x -> x/2^j of "
                                            "points outside it, and m(0) = 0",
                                            {"degree": r.scaling, "half": {label: [exact(lo), exact(hi)] for label, (lo, hi)
                                                                           in zip(self._labels(), r.half)}}))
            if r.shifted:
                reductions.append(Reduction("shift", f"the claim is unchanged by shifts of {r.shift_label}: its first entry is fixed at 0",
                                            {"shifted": [self._labels()[k] for k in r.shifted],
                                             "bounds": [exact(b) for b in r.bounds]}))
        return ProofCertificate(
            method="branch-and-bound", dims=dict(self.domain.dims), domain=self.domain.to_dict(), reductions=tuple(reductions),
            leaves=tuple(self.leaves), points=tuple({label: exact(q) for label, q in zip(self._labels(), point)} for point in self.points),
            notes=(f"margin entries enclosed in ball arithmetic at {self.prec} bits; a leaf's box is in the coordinates "
                   f"{', '.join(self._labels())}",))

    def _reduced_point(self, q) -> bool:
        return False

    def _stuck(self, heap) -> Stuck | None:
        """Where an unfinished proof is stuck: the hull of its open and queued boxes, and the
        nearest equality point it found (else the tight faces it knows)."""
        boxes = list(self.open_boxes) + [entry[2] for entry in heap]
        if not boxes:
            return None
        labels = self._labels()
        hull = {}
        for j, label in enumerate(labels):
            if not self.problem.active[j]:
                continue
            lo, hi = min(b[j][0] for b in boxes), max(b[j][1] for b in boxes)
            hull[label] = (exact(lo), exact(hi))
        volume = sum(self.problem.volume(b) for b in boxes)
        nearest = None
        seen = {q: True for q in self.known_points if not self._reduced_point(q)}
        if seen:
            centre = [(min(b[j][0] for b in boxes) + max(b[j][1] for b in boxes)) / 2 for j in range(len(labels))]
            closest = min(seen, key=lambda q: sum(abs(float(a - c)) for a, c in zip(q, centre)))
            inside = any(all(lo <= x <= hi for x, (lo, hi) in zip(closest, b)) for b in boxes)
            nearest = _points_text(self.check, self.problem, {closest: True}) + (
                " (exact; no argument closed the boxes around it)" if inside
                else " (exact, outside the undecided boxes: they are stuck for another reason)")
        elif self.tight_faces:
            nearest = "; ".join(label for _, _, label, _ in self.tight_faces) + " (faces where the claim is an equality)"
        return Stuck(hull, len(boxes), round(volume, 12), nearest)

    def _hypotheses_hold_on(self, box) -> bool:
        """True when every hypothesis is certain on the whole box (then no sub-box needs them).

        What the coordinates' maps build in (``||b|| <= eps`` for ``b = eps u``, a row of a
        simplex summing to 1, the variables' own bounds) holds by construction and is not
        evaluated; only the stated hypotheses, bound functions and the maps' constraints are.
        """
        p = self.problem
        try:
            ctx, values = p.jets(box)
            hyps = p.hypotheses(ctx, p.data(ctx, values))
        except (ZeroDivisionError, ValueError, FunctionDomainError):
            return False
        return all(holds(m.enclosure(), strict) for m, strict in zip(hyps, p.condition_strict))

    def _notes(self) -> tuple[str, ...]:
        out = []
        for _, _, label, _ in self.tight_faces:
            note = f"the claim is an equality on the face {label} (numerically, at every sample): enclosures straddle 0 near it"
            if label in self.open_faces:
                note += "; boxes along it were left open, since splitting cannot close them and no exact reduction did"
            elif self.identities:
                note += "; closed by monotone reduction to the face and a sympy identity there"
            out.append(note)
        for why, count in sorted(self.undefined.items()):
            out.append(f"{count} box(es) left open where {why}")
        return tuple(out)

    def _certify(self, point):
        if self.reduction is not None:
            point = self.reduction.representative(point)
            if point is None:  # outside the claim's domain: the reduced domain is larger than its image
                return None
        data = self.problem.exact_point(point)
        cert = self.certifier.certify(self.check, data, self.domain.dims, display="violations")
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
            ProofDetails(notes=notes, stop=ProofStop.REFUTED, **details),
        )

    # ------------------------------------------------------------------------------------
    def _find_tight_faces(self, samples: int = 3) -> list[tuple[tuple, tuple, str, list]]:
        """Faces of the domain on which some entry of the margin is numerically zero at every sample.

        Returns (coordinates, their ends, label, exact sample points) per face.  Sampling at 256 bits
        only *detects* such a face; nothing is concluded from it without a certificate.
        """
        p = self.problem
        if len(p.roots) > 1:  # a chart's edge is no face of the set
            return []
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
                except (ZeroDivisionError, ValueError, FunctionDomainError):  # outside the claim there
                    zero_everywhere = set()
                    break
                zeros = {i for i, m in enumerate(margins) if m.is_finite() and 0 in m and m.rad() < 1e-60}
                zero_everywhere = zeros if zero_everywhere is None else zero_everywhere & zeros
            if zero_everywhere:
                out.append((js, ends, label, points))
        return out

    def _close_tight_faces(self) -> list[tuple[tuple, tuple, frozenset]]:
        """The equality faces on which entries of the margin vanish identically (sympy), once each.

        Proved on the whole face of the domain, the identity holds on every part of it, so
        a box reduced onto the face is proved without calling sympy again.
        """
        if self.strict:
            return []
        p, out = self.problem, []
        for js, ends, _, _ in self.tight_faces:
            face = list(p.root)
            for j, end in zip(js, ends):
                face[j] = (end, end)
            try:
                count = len(p.path_margins(face, 0)[0])
            except (ZeroDivisionError, ValueError, FunctionDomainError):
                continue
            entries = frozenset(i for i in range(count) if vanishes_identically(p, face, i, tolerant=True))
            if entries:
                out.append((js, ends, entries))
        return out

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


#: the touching-point arguments as a proof's message names them
ARGUMENTS = {"from-point": "monotone from the point", "tangent-factor": "the tangent factored out", "convex": "convex from the point",
             "normal-to-set": "the tangent factored out normal to an equality set"}


def _points_text(check: Check, problem, points) -> str:
    """The equality points as the claim's variables: ``x = 0``, ``(x, p) = (0, 1)``."""
    shown = []
    for point in list(points)[:3]:
        data = problem.exact_point(list(point))
        bits = []
        for var in check.variables:
            value = np.asarray(data[var.name], dtype=object).reshape(-1)
            text = ", ".join(str(Fraction(int(v.p), int(v.q))) if hasattr(v, "p") else str(v) for v in value)
            bits.append(f"{var.name} = {text if value.size == 1 else '(' + text + ')'}")
        shown.append(", ".join(bits))
    more = f" and {len(points) - 3} more" if len(points) > 3 else ""
    return "; ".join(shown) + more


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


def needs_box(check: Check, domain: ProofBox) -> str | None:
    """Why branch and bound cannot run on ``domain`` (an unbounded variable, a set it has no chart
    for), or None."""
    unbounded = [k for k, b in domain.boxes.items() if b is None]
    if unbounded:
        return f"needs a bounded box for {', '.join(unbounded)}: give --box NAME=LO:HI or --box LO:HI"
    try:
        coordinates(check, domain)
    except BoundedDomainError as exc:
        return str(exc)
    return None


class BranchAndBoundStrategy(Strategy):
    """Branch and bound in ball arithmetic on a bounded box: :class:`BranchAndBound`.

    ``boxes``: a cap on the boxes of this turn (the *probe*: a few boxes that settle the easy
    claims before the z3 strategies for exp, which may take seconds)."""

    def __init__(self, name: str = "branch-and-bound", boxes: int | None = None, summary: str = ""):
        self.name, self.boxes = name, boxes
        self.summary = summary or "rigorous ball arithmetic on a bounded box: enclosures, monotonicity, touching points"

    def applies(self, check: Check, domain: ProofBox) -> str | None:
        return needs_box(check, domain)

    def attempt(self, check: Check, domain: ProofBox, budget: Budget) -> Proof | None:
        boxes = budget.max_boxes
        if self.boxes is not None:
            boxes = self.boxes if boxes is None else min(self.boxes, boxes)
        return BranchAndBound(check, domain, budget.seconds, budget.dps, executor=budget.executor, max_boxes=boxes,
                              near=budget.near).run()

    def refusal(self, check: Check, reason: str) -> Exception:
        if reason.startswith("needs a bounded box"):
            return BoundedDomainError(f"{check.label} needs branch and bound (it uses exp, log or sqrt), which {reason}")
        return BoundedDomainError(reason)


__all__ = ["BranchAndBound", "BranchAndBoundStrategy", "BoundedDomainError", "coordinates", "needs_box"]
