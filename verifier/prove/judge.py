"""What one box of a branch and bound is: proved, to be split, left open -- decided in a worker.

A box is

* *proved* when every entry's enclosure is >= 0 (> 0 for a strict claim), or when a
  hypothesis is certainly false on all of it (nothing to prove there);
* *reduced* when the gradient has a certain sign in some coordinates: the margin is monotone
  there, so its least value on the box is on a face, and proving the face proves the box
  (on an equality face of the domain, by the identity closed once up front);
* otherwise split in the coordinate that contributes most to the enclosure's width, or left
  open when it is too small to split or already thin along an equality face.

A box whose margin is certainly negative at its centre also carries that centre: the
coordinator certifies it exactly (a judge never decides a refutation).  Judging a box depends
only on the box and on :class:`FaceFacts`, so a batch of boxes gives the same outcomes in any
process: :func:`judge_boxes` is the task an executor runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..claims import Check
from ..contexts import FunctionDomainError
from ..runner import registered_check
from .domain import ProofBox
from .problem import BoxProblem, fails, holds
from .symbolic_face import vanishes_identically
from .touching import TouchingArguments

#: a box this thin (relative) across an equality face it touches is left open: enclosures
#: cannot separate the margin from 0 there, so splitting further would only spin
FACE_WIDTH = Fraction(1, 2**6)
#: ... unless arguments at its touching points may still close it (a non-strict claim): those get
#: twelve more halvings (a Taylor remainder shrinks with the box; 1/64 of [0, 10^4] is 156 wide)
TOUCHING_FACE_WIDTH = FACE_WIDTH / 2**12


@dataclass(frozen=True)
class FaceFacts:
    """What the coordinator established once, before any box: every worker judges with it."""

    hypotheses_hold: bool  # every hypothesis certain on the whole domain
    tight: tuple = ()  # (coordinates, their ends, label) of each equality face
    closed: tuple = ()  # (coordinates, their ends, entries that vanish identically there)
    root: tuple | None = None  # the root box reduced by an invariance of the claim (None: the domain's own)
    #: exact equality points found so far (coordinates), each verified by a judge: an argument anchored
    #: at one closes the boxes around it, not only the box that holds it.  Updated between rounds, so
    #: every box of a round is judged with the same points whatever process judges it
    points: tuple = ()


@dataclass(frozen=True)
class Outcome:
    kind: str  # proved | split | open
    split: int | None = None  # the coordinate to cut
    entries: tuple = ()  # the entries still undecided (a split box's children check only these)
    undecided: float = 0.0  # share of the worst enclosure below 0, in [0, 1]
    reductions: int = 0
    identities: int = 0
    open_face: str | None = None  # the equality face an open box lies along
    candidate: tuple | None = None  # an exact point where the margin is certainly negative
    undefined: str | None = None  # why an open box could not be evaluated (a function undefined on part of it)
    #: how entries closed on this box, for the certificate: (entry or None for all, method, hints)
    #: with method enclosure | hypothesis-fails | monotone | touching-point (:class:`.certificate.Leaf`)
    closed: tuple = ()
    #: exact equality points the judge verified while judging this box (coordinates), closed or not
    points: tuple = ()


class BoxJudge:
    def __init__(self, check: Check, domain: ProofBox, prec: int, max_choices: int, facts: FaceFacts):
        self.problem = BoxProblem(check, domain, prec)
        if facts.root is not None:
            self.problem.set_root(facts.root)
        self.strict = check.strict
        self.hyp_strict = self.problem.condition_strict
        self.max_choices = max_choices
        self.facts = facts
        self.touching = TouchingArguments(self.problem, self.strict)
        self.touching.known = facts.points

    def set_facts(self, facts: FaceFacts) -> None:
        """Judge with ``facts`` from now on (the coordinator's, as of this round)."""
        if facts.root is not None and facts.root != self.facts.root:
            self.problem.set_root(facts.root)
        self.facts = facts
        self.touching.known = facts.points

    def judge(self, box, entries) -> Outcome:
        p = self.problem
        try:
            hyps = []
            if not self.facts.hypotheses_hold:
                ctx, values = p.jets(box)
                hyps = p.hypotheses(ctx, p.data(ctx, values))
                for k, (h, strict) in enumerate(zip(hyps, self.hyp_strict)):
                    if fails(h.enclosure(), strict):  # no point of this box satisfies the hypotheses
                        return Outcome("proved", closed=((None, "hypothesis-fails", {"condition": k}),))
            # with relation-bound variables, the box stretched to their anchor serves for both
            # the anchored enclosure and (a little wider) the plain one: one evaluation fewer
            anchored = p.anchored(box, self.max_choices)
            if anchored is None:
                paths, around = p.path_margins(box, self.max_choices), box
            else:
                anchored, paths, around = anchored
        except FunctionDomainError as exc:  # undefined on part of the box, no hypothesis excluding it: split where
            return self._split_or_open(box, entries, None, getattr(exc, "guides", ()), undefined=str(exc))
        except (ZeroDivisionError, ValueError):
            return self._split_or_open(box, entries, None)
        undecided = p.undecided
        if entries is None:
            entries = tuple(range(len(paths[0])))
        hyps_at_centre = self.facts.hypotheses_hold or all(holds(h.c, s) for h, s in zip(hyps, self.hyp_strict))
        remaining, worst, candidate, reductions, identities, closed = [], [], None, 0, 0, []
        # monotonicity is a property of this box alone: the stretched box's gradients mix the
        # pieces on both sides of the anchor
        plain = paths if around == box else None
        for i in entries:
            jets = [pm[i] for pm in paths]
            if all(holds(m.enclosure(), self.strict) for m in jets):
                closed.append((i, "enclosure", {"form": "centred" if around == box else "stretched", "prec": p.prec}))
                continue
            if anchored is not None and holds(anchored[i], self.strict):
                closed.append((i, "enclosure", {"form": "anchored", "prec": p.prec}))
                continue
            if plain is None:
                try:
                    plain = p.path_margins(box, self.max_choices)
                except (ZeroDivisionError, ValueError, FunctionDomainError):
                    plain = []
            if candidate is None and hyps_at_centre:
                # the box's own centre first: the stretched box's centre is the same point
                # for every box on one side of the anchor
                if any(pm[i].c < 0 for pm in plain):
                    candidate = tuple(p.centre(box))
                elif any(m.c < 0 for m in jets):
                    candidate = tuple(p.centre(around))
            reduced = self._reduced_to_face_proves(box, i, [pm[i] for pm in plain]) if plain else None
            if reduced is not None:
                by_identity, face = reduced
                reductions += 1
                identities += by_identity
                closed.append((i, "monotone", {"face": [[str(lo), str(hi)] for lo, hi in face],
                                                "then": "face-identity" if by_identity else "enclosure"}))
                continue
            closure = self._touching(box, i, plain)
            if closure is not None:
                if closure.argument == "second-order":  # an enclosure (at the centre), not an argument at a touching point
                    closed.append((i, "enclosure", {"form": "second-order", "centre": closure.to_hints()["point"], "prec": p.prec}))
                else:
                    closed.append((i, "touching-point", closure.to_hints()))
                continue
            remaining.append(i)
            worst += jets
        if not remaining:
            return Outcome("proved", reductions=reductions, identities=identities, candidate=candidate, closed=tuple(closed),
                           points=self.touching.drain())
        out = self._split_or_open(box, tuple(remaining), worst, undecided)
        return Outcome(out.kind, out.split, out.entries, _undecided_share(worst), reductions, identities, out.open_face, candidate,
                       closed=tuple(closed), points=self.touching.drain())

    def _touching(self, box, i, plain):
        """A touching-point argument for entry i, tried on small boxes and on those about to be left open."""
        p = self.problem
        if not (self.touching.worth_trying(box) or p.too_small(box) or self._touches_tight_face(box) is not None):
            return None
        gradient = plain[0][i].g if plain and len(plain) == 1 and plain[0][i].g is not None else None
        return self.touching.close(box, i, gradient, self.facts.points)

    def _split_or_open(self, box, entries, margins, undecided=(), undefined=None) -> Outcome:
        p = self.problem
        if p.too_small(box):
            return Outcome("open", entries=entries or (), undefined=undefined)
        face = self._touches_tight_face(box, FACE_WIDTH if self.strict else TOUCHING_FACE_WIDTH)
        if face is not None:
            return Outcome("open", entries=entries or (), open_face=face)
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
        return Outcome("split", best_j, entries)

    def _reduced_to_face_proves(self, box, i, jets) -> int | None:
        """Monotone in some coordinates on every piece: prove the entry on the face holding its minimum.

        The margin is continuous and, along each such coordinate, made of pieces that all
        move the same way, so it is monotone there on the whole box.  On the face the
        gradients are re-enclosed, which may fix more signs: the reduction repeats.
        Returns None (not proved), or (0 proved by enclosures or 1 by an identity, the face).
        """
        p = self.problem
        for _ in range(len(box)):
            if any(m.g is None for m in jets):
                return None
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
                return None
            if self._on_closed_face(face, i):
                return 1, face
            try:
                paths = p.path_margins(face, self.max_choices)
                if all(holds(pm[i].enclosure(), self.strict) for pm in paths):
                    return 0, face
                anchored = p.anchored(face, self.max_choices)
            except (ZeroDivisionError, ValueError, FunctionDomainError):
                return None
            if anchored is not None and holds(anchored[0][i], self.strict):
                return 0, face
            # sympy only where the margin is numerically 0 at the face's centre: an identity
            # cannot hold elsewhere, and each attempt costs as much as hundreds of boxes
            if not self.strict and all(0 in pm[i].c for pm in paths) and vanishes_identically(p, face, i):
                return 1, face
            box, jets = face, [pm[i] for pm in paths]
        return None

    def _on_closed_face(self, face, entry: int) -> bool:
        return any(entry in entries and all(face[j] == (end, end) for j, end in zip(js, ends))
                   for js, ends, entries in self.facts.closed)

    def _touches_tight_face(self, box, width=FACE_WIDTH) -> str | None:
        """The label of an equality face this box touches while already thin across it (``width``
        of the root, at most)."""
        p = self.problem
        for js, ends, label in self.facts.tight:
            if all((box[j][0] == end or box[j][1] == end) and (box[j][1] - box[j][0]) <= p.widths[j] * width for j, end in zip(js, ends)):
                return label
        return None


def _undecided_share(margins) -> float:
    """How much of the worst enclosure lies below 0: 0 nearly proved, 1 nearly refuted."""
    share = 0.0
    for m in margins:
        e = m.enclosure()
        lo, hi = float(e.lower()), float(e.upper())
        if hi > lo:
            share = max(share, min(1.0, max(0.0, -lo / (hi - lo))))
        elif lo < 0:
            share = 1.0
    return share


#: judges of the proofs under way in this process, by the coordinator's key
_JUDGES: dict = {}


def judge_boxes(task) -> list[Outcome]:
    """A batch as an executor runs it: (key, check or its token, domain, prec, max_choices, facts, boxes)."""
    key, ref, domain, prec, max_choices, facts, boxes = task
    judge = _JUDGES.get(key)
    if judge is None:
        check = registered_check(ref) if isinstance(ref, int) else ref
        if len(_JUDGES) >= 4:  # earlier proofs of this process are over
            _JUDGES.clear()
        judge = _JUDGES[key] = BoxJudge(check, domain, prec, max_choices, facts)
    elif judge.facts != facts:
        judge.set_facts(facts)
    return [judge.judge(list(box), entries) for box, entries in boxes]


__all__ = ["BoxJudge", "FaceFacts", "Outcome", "judge_boxes"]
