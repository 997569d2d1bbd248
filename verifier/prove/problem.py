"""A check on a box of coordinates: how a box becomes data, and its enclosures.

The domain is a box of *coordinates* (:mod:`.parametrisation`): every entry of a boxed
variable, for a variable built by a relation (``b`` with ``||b|| <= eps``) its unit-box
coordinate ``u`` in ``[-1, 1]`` (``b = near + radius * u``), for a set that is not a box
the parameters of its map onto it -- so every box lies inside the relations and sets.  A box is
evaluated on :class:`~.jets.Jet` s, which gives in one pass a plain enclosure of every entry
of the margin, a centred (mean-value) enclosure, the value at the centre and an enclosure of
the gradient.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from flint import fmpq

from ..claims import Check
from ..contexts import ExactContext
from .domain import ProofBox
from .jets import ZERO, JetContext, NeedsChoice, interval_ball
from .parametrisation import BoundedDomainError, Coordinate, Parametrisation

EXACT = ExactContext()
#: boxes narrower than this (relative to the domain, in every coordinate) are left open
MIN_RELATIVE_WIDTH = Fraction(1, 2**30)


def coordinates(check: Check, domain: ProofBox):
    """The coordinates of the domain and the root boxes that cover it (one per choice of charts).

    Every set enters through its map (:mod:`.parametrisation`): a sphere or the orthogonal
    group through rational charts, a simplex by stick breaking; which chart a root box uses
    is a *piece* coordinate, fixed in that box.
    """
    param = Parametrisation(check, domain)
    return param.coords, param.roots()


class BoxProblem:
    """One check on one domain: builds the data of a box and evaluates it."""

    def __init__(self, check: Check, domain: ProofBox, prec: int):
        self.check, self.domain, self.prec = check, domain, prec
        self.param = Parametrisation(check, domain)
        self.coords, self.roots = self.param.coords, self.param.roots()
        self.undecided: list = []
        self.set_root(self.roots[0], self.roots)
        self.piece = [c.role == "piece" for c in self.coords]
        #: strictness of each condition :meth:`hypotheses` returns, in order
        self.condition_strict = [h.strict for h in self.param.hypotheses] + [False] * len(self.param.constraints)

    def set_root(self, root, roots=None) -> None:
        """Prove on ``root`` (the domain reduced by an invariance of the claim, or the first of ``roots``)."""
        self.root = list(root)
        self.roots = roots if roots is not None else [self.root]
        self.widths = [hi - lo for lo, hi in self.root]
        self.active = [w > 0 for w in self.widths]

    def data(self, ctx, values):
        """Variables from coordinate values (Jets, balls or exact rationals), in declaration order."""
        return self.param.data(ctx, values)

    def jets(self, box, choices=(), max_choices=0):
        radii = [(hi - lo) / 2 if act and hi > lo else None for (lo, hi), act in zip(box, self.active)]
        ctx = JetContext([None if r is None else interval_ball(-r, r) for r in radii], self.prec, choices, max_choices)
        with ctx.precision():
            values = [lo if piece else ctx.coordinate(i, lo, hi) for i, ((lo, hi), piece) in enumerate(zip(box, self.piece))]
        return ctx, values

    def hypotheses(self, ctx, data):
        """The margins of the conditions a box must be checked against: the hypotheses no map
        builds in (a membership equality is never certainly true on a box), then the maps'
        constraints; strictness in :attr:`condition_strict`."""
        return [m for m, _ in self.param.conditions(ctx, data)]

    def margins(self, ctx, data):
        """The entries of the margin: one, or each entry of an elementwise part.

        On Jets the hypotheses are offered to the context first (evaluated when a function
        meets the edge of its domain): a radicand that a hypothesis keeps positive is then
        positive on the box, where the box alone cannot show it.
        """
        part = self.check.part
        if self.check.hypotheses and isinstance(ctx, JetContext):
            ctx.assume(lambda jets: zip(self.hypotheses(jets, data), (h.strict for h in self.check.hypotheses)))
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
            finally:
                undecided = ctx.release()
            self.undecided += undecided[:1]
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
            value = hull(m[i].enclosure() for m in at_anchor)
            for j in units:
                g = hull(m[i].g[j] if m[i].g else ZERO for m in slopes)
                value = value + g * interval_ball(*box[j])
            out.append(value)
        return out, slopes, stretched

    def centre(self, box):
        return [(lo + hi) / 2 for lo, hi in box]

    def exact_point(self, point):
        values = [q if piece else fmpq(q.numerator, q.denominator) for q, piece in zip(point, self.piece)]
        return self.data(EXACT, values)

    def coordinates_of(self, point) -> tuple | None:
        """The coordinates of a point given as variable -> exact value (nested lists for arrays), when
        every coordinate is an entry of a boxed variable (no chart, relation or piece); else None."""
        out = []
        try:
            for c in self.coords:
                if c.role != "entry" or c.unit or c.var not in point:
                    return None
                value = np.asarray(point[c.var], dtype=object)
                out.append(Fraction(value[c.index] if c.index else value[()] if value.ndim == 0 else value.reshape(-1)[0]))
        except (IndexError, TypeError, ValueError, ZeroDivisionError):
            return None
        return tuple(out)

    def volume(self, box) -> float:
        """The share of the domain's volume in ``box`` (every root box has the same widths)."""
        out = 1.0 / len(self.roots)
        for (lo, hi), w, act in zip(box, self.widths, self.active):
            if act:
                out *= float((hi - lo) / w)
        return out

    def too_small(self, box) -> bool:
        return all(not act or (hi - lo) <= w * MIN_RELATIVE_WIDTH for (lo, hi), w, act in zip(box, self.widths, self.active))


def hull(balls):
    out = None
    for b in balls:
        out = b if out is None else out.union(b)
    return out


def holds(ball, strict) -> bool:
    return bool(ball > 0) if strict else bool(ball >= 0)


def fails(ball, strict) -> bool:
    return bool(ball <= 0) if strict else bool(ball < 0)


