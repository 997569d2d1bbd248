"""Closing a box that touches the claim's equality set, by arguments that survive the touch.

A sharp inequality is an equality somewhere, and there every enclosure of the margin on a box
around the touching point contains 0: splitting never closes that box.  What closes it is an
argument anchored *at* an exact point x0 of the box where the margin is exactly 0 (or certainly
>= 0), using the shape of the margin around it:

* **from the point** (first order): for every coordinate, the gradient enclosed over the box
  points away from x0 (``G_j (B_j - x0_j) >= 0``): the margin only grows from x0 along every
  segment in the box (the mean-value theorem), so ``m >= m(x0) >= 0``.
* **tangent factored out** (one coordinate, any order): along the box's one active coordinate,
  ``m(x0 + t) = t^k h(t)`` where every Taylor coefficient below k is exactly 0 at x0 (a ball
  that is exactly 0, or shown 0 in exact rational or sympy arithmetic) and ``h(t) = c_k +
  c_{k+1} t + c_{k+2}(B) t^2`` with the last coefficient enclosed over the whole box (the
  Lagrange remainder): ``t^k`` and ``h`` of one sign on the box close it (tanh(x) <= x at 0,
  k = 3; cos(x) >= 1 - x^2/2 at 0, k = 4, t of both signs).
* **convex from the point** (several coordinates, second order): the gradient at x0 is exactly
  0 in the coordinates where the box lies on both sides of x0, and points into the box in the
  others; the Hessian, enclosed over the box, is diagonally dominant there once the strictly
  inward first-order terms absorb its mixed entries (Gershgorin): ``m(x0 + d) >= m(x0) + sum_S
  |d_i| (gamma_i - sum_j |H_ij| w_j) + 1/2 sum_I d_i^2 (H_ii - sum_{j in I} |H_ij|) >= 0``.

* **normal to a diagonal**: where the margin and its derivatives along ``e_i - e_j`` vanish
  identically on the diagonal ``x_i = x_j`` (sympy, once), the box's distance to it factors out
  the same way, with the coefficients enclosed over the box's projections onto it.
* **around a point found**: the same arguments over a region about a known equality point, or
  the hull of a box and the point (the cluster of thin boxes around a minimum closes at once);
  and the **second-order Taylor form** at a small box's centre.

Equality points are sought where the branch and bound is stuck, never by float agreement: the
simplest rational of each coordinate's interval (Stern-Brocot: the point a box around a rational
touching point converges to), a point of the diagonal, the box's ends, and the caller's
near-ties; each is checked exactly (a ball that is exactly 0, rational arithmetic, or a sympy
rewriting to 0 where a function value is irrational).  The coordinator shares the points the
judges verify between rounds.  The Taylor coefficients come from :mod:`.taylor`: the claim's own
functions, expanded along a line.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import sympy
from flint import arb, fmpq

from ..contexts import BallContext, FunctionDomainError
from .jets import JetContext, interval_ball
from .taylor import ball_series, coefficients, exact_series, symbolic_series

#: a box is tried at touching points once its widest active coordinate is at most this share of
#: the root's (and always before it would be left open)
TRY_WIDTH = Fraction(1, 64)
#: a box near a diagonal that holds an equality point is tried against it up to this share of the root
SET_WIDTH = Fraction(1, 8)
#: an argument anchored at a known equality point outside a box is tried over their hull when it is
#: at most this share of the root wide in every coordinate
HULL_WIDTH = Fraction(1, 8)
#: highest order of tangency sought (cos(x) >= 1 - x^2/2 touches at order 4)
MAX_ORDER = 8
#: coordinates at most for the second-order argument (its Hessian costs n(n+1)/2 expansions)
MAX_CONVEX_COORDINATES = 6
#: candidate points per box at most
MAX_POINTS = 8
#: x = s^q tried at a box's end at 0 where x^(1/q) is not smooth
ROOT_ORDERS = (2, 3, 4, 6)


@dataclass(frozen=True)
class Closure:
    """How a box touching an equality point was closed: the argument and what a checker needs."""

    argument: str  # from-point | tangent-factor | convex
    point: tuple[Fraction, ...]
    hints: dict

    def to_hints(self) -> dict:
        return {"argument": self.argument, "point": [str(q) for q in self.point], **self.hints}

    def at(self, equality: bool) -> "Closure":
        """The closure marked with whether its anchor is an equality point (m(x0) = 0 exactly) or
        merely a point where m(x0) > 0 is certain."""
        return Closure(self.argument, self.point, {**self.hints, "equality": equality})


def simplest_rational(lo: Fraction, hi: Fraction) -> Fraction:
    """The rational of least denominator in [lo, hi] (the least numerator among those): where a
    nest of boxes around a rational point ends up (Stern-Brocot)."""
    if lo > hi:
        lo, hi = hi, lo
    if lo <= 0 <= hi:
        return Fraction(0)
    if hi < 0:
        return -simplest_rational(-hi, -lo)
    floor = lo.numerator // lo.denominator
    if Fraction(floor) == lo:
        return lo
    if floor + 1 <= hi:
        return Fraction(floor + 1)
    # lo and hi share their integer part: recurse on the reciprocals of the fractional parts
    inner = simplest_rational(1 / (hi - floor), 1 / (lo - floor))
    return floor + 1 / inner


class TouchingArguments:
    """The touching-point arguments for one :class:`~.problem.BoxProblem` (one per judge: the
    equality points it verified are kept)."""

    def __init__(self, problem, strict: bool):
        self.problem = problem
        self.strict = strict
        self.prec = max(problem.prec, 128)
        self._zero_at: dict = {}  # (point, entry) -> the margin is shown >= 0 there
        self._exact_zero: dict = {}  # (point, direction, entry, order) -> that coefficient is exactly 0
        self.points: dict = {}  # equality points found: point -> True
        self._new: list = []  # equality points met while judging the current box
        self.known: tuple = ()  # the coordinator's equality points, as of this round

    # ------------------------------------------------------------------------------------
    def width(self, box) -> Fraction | None:
        """The box's widest active coordinate as a share of the root's (None: no active coordinate)."""
        p = self.problem
        widths = [(hi - lo) / w for (lo, hi), w, act in zip(box, p.widths, p.active) if act and w > 0]
        return max(widths) if widths else None

    def worth_trying(self, box) -> bool:
        """Small enough for an argument at a point, or near a diagonal known to hold an equality point."""
        width = self.width(box)
        if width is None:
            return False
        return width <= SET_WIDTH

    def _active(self, box) -> list[int]:
        return [j for j, ((lo, hi), act) in enumerate(zip(box, self.problem.active)) if act and hi > lo]

    def close(self, box, entry: int, gradient=None, known=()) -> Closure | None:
        """A closure of ``box`` for margin entry ``entry``, or None.  ``gradient``: the entry's
        gradient enclosed over the box (the jets'), for the first-order argument; ``known``: the
        equality points found so far, where an argument over the hull of the box and the point
        closes a box near the point (the cluster of thin boxes around a minimum)."""
        if self.strict:  # a strict claim is false at an equality point: a refutation's business
            return None
        active = self._active(box)
        if not active:
            return None
        for i, j in self._diagonals(box, active, known):
            out = self._normal_to_diagonal(box, entry, i, j)
            if out is not None:
                return out
        if self.width(box) > TRY_WIDTH:
            if len(active) > 1 and self.width(box) <= SET_WIDTH:  # a point of the diagonal, found early
                common = self._candidates(box, active)[1:2]
                for point in common:
                    if all(point[j] == point[active[0]] for j in active):
                        self._margin_nonnegative_at(point, entry)
            return None
        if 1 < len(active) <= MAX_CONVEX_COORDINATES:
            out = self._second_order(box, entry, active)
            if out is not None:
                return out
        for point in self._candidates(box, active):
            if not self._margin_nonnegative_at(point, entry):
                continue
            out = self._argument_at(box, entry, point, active, gradient)
            if out is not None:
                return out.at(point in self.points)
        for point in known:
            hull = self._hull_near(box, point)
            if hull is None or not self._margin_nonnegative_at(point, entry):
                continue
            for region in (self._around(point, box), hull):
                if region is None:
                    continue
                out = self._region_argument(tuple(region), entry, point)
                if out is not None:
                    return Closure(out.argument, out.point, {**out.hints, "over": [[str(lo), str(hi)] for lo, hi in region]}).at(True)
        return None

    def _around(self, point, box):
        """The box of HULL_WIDTH / 2 of the root on each side of ``point`` (within the root), when it
        holds ``box``: proved once, it closes every box of the cluster around the point at once."""
        p = self.problem
        out = []
        for x, (lo, hi), (rlo, rhi), w, act in zip(point, box, p.root, p.widths, p.active):
            if not act or lo == hi:
                out.append((lo, hi))
                continue
            r = (w * HULL_WIDTH / 2)
            out.append((max(rlo, x - r), min(rhi, x + r)))
        return out if all(a <= lo and hi <= b for (a, b), (lo, hi) in zip(out, box)) else None

    def _region_argument(self, region, entry, point) -> Closure | None:
        """An argument anchored at ``point`` over ``region`` (remembered: the boxes of a cluster ask again)."""
        key = ("region", region, entry, point)
        if key not in self._exact_zero:
            active = self._active(list(region))
            self._exact_zero[key] = self._argument_at(list(region), entry, point, active, None) if active else None
        return self._exact_zero[key]

    # -- equality sets: a diagonal x_i = x_j ------------------------------------------------------
    def _diagonals(self, box, active, known):
        """Pairs (i, j) whose diagonal x_i = x_j passes through the box or near it (the boxes along
        an equality set are thin beside it, not only across it) and holds an equality point found
        so far (a symmetric claim is tight on a whole diagonal, not at a point)."""
        out = []
        for a, i in enumerate(active):
            for j in active[a + 1:]:
                gap = max(box[i][0], box[j][0]) - min(box[i][1], box[j][1])
                if gap > 4 * max(box[i][1] - box[i][0], box[j][1] - box[j][0]):
                    continue
                if any(q[i] == q[j] for q in known):
                    out.append((i, j))
        return out

    def _normal_to_diagonal(self, box, entry, i, j) -> Closure | None:
        """m(p + t (e_i - e_j)) = t^k h with p on the diagonal: every coefficient below k vanishes
        identically there (sympy, once per diagonal), and h = c_k(P) + c_(k+1)(P) t + c_(k+2)(H) t^2
        keeps one sign, P the box of the projections onto the diagonal, H its hull with the box."""
        k = self._diagonal_order(i, j, entry)
        if k is None:
            return None
        n = len(box)
        nu = tuple(Fraction(1 if m == i else -1 if m == j else 0) for m in range(n))
        t_lo, t_hi = (box[i][0] - box[j][1]) / 2, (box[i][1] - box[j][0]) / 2
        mid = ((box[i][0] + box[j][0]) / 2, (box[i][1] + box[j][1]) / 2)
        projected = [mid if m in (i, j) else box[m] for m in range(n)]
        hull = [(min(a[0], b[0]), max(a[1], b[1])) for a, b in zip(projected, box)]
        near = self._series(tuple(projected), nu, entry, k + 1, "ball", around=True)
        far = self._series(tuple(hull), nu, entry, k + 2, "ball", around=True)
        if near is None or far is None:
            return None
        t = interval_ball(t_lo, t_hi)
        with _precision(self.prec):
            h = near[k] + near[k + 1] * t + far[k + 2] * _square(t)
        sign_t = 1 if t_lo >= 0 or k % 2 == 0 else (-1 if t_hi <= 0 else 0)
        if (sign_t > 0 and h >= 0) or (sign_t < 0 and h <= 0):
            labels = [c.label for c in self.problem.coords]
            return Closure("normal-to-set", (), {"set": f"{labels[i]} = {labels[j]}", "direction": [str(x) for x in nu], "order": k,
                                                  "h": [_text(h.lower()), _text(h.upper())]}).at(True)
        return None

    def _diagonal_order(self, i, j, entry) -> int | None:
        """The order k at which the margin leaves the diagonal x_i = x_j: every Taylor coefficient
        along e_i - e_j below k is identically 0 on the diagonal (sympy); None when the margin is
        not 0 on all of it (or sympy cannot show it)."""
        key = ("diagonal", i, j, entry)
        if key in self._exact_zero:
            return self._exact_zero[key]
        self._exact_zero[key] = None
        p = self.problem
        n = len(p.coords)
        nu = tuple(Fraction(1 if m == i else -1 if m == j else 0) for m in range(n))
        root = p.root
        # a numeric screen first, at a rational point of the diagonal inside the root box
        lo, hi = max(root[i][0], root[j][0]), min(root[i][1], root[j][1])
        if lo > hi:
            return None
        screen = [lo + (hi - lo) * Fraction(3, 7) if m in (i, j) else root[m][0] + (root[m][1] - root[m][0]) * Fraction(2, 5)
                  for m in range(n)]
        ball = self._series(tuple(screen), nu, entry, 2, "ball")
        if ball is None or not (0 in ball[0]) or not (0 in ball[1]):
            return None
        symbols = [_symbol(f"s{m}", root[m]) for m in range(n)]
        symbols[j] = _symbol(f"s{i}", (lo, hi))
        point = tuple(symbols[m] if p.active[m] and not p.piece[m] else root[m][0] for m in range(n))
        ctx = symbolic_series(MAX_ORDER)
        values = []
        with ctx.precision():
            for m, x in enumerate(point):
                values.append(int(x) if p.piece[m] else ctx.line(x, nu[m]))
            try:
                coefficients_ = coefficients(p.margins(ctx, p.data(ctx, values))[entry])
            except (ArithmeticError, ValueError, TypeError, FunctionDomainError):
                return None
        if coefficients_ is None:
            return None
        for k, c in enumerate(coefficients_):
            if not _sympy_zero(c):
                out = k if k >= 1 else None
                self._exact_zero[key] = out
                return out
        return None

    def _hull_near(self, box, point):
        """The hull of ``box`` and ``point`` when the point lies outside the box but close to it
        (the hull no wider than HULL_WIDTH of the root in any coordinate), else None."""
        p = self.problem
        if len(point) != len(box) or all(lo <= x <= hi for x, (lo, hi) in zip(point, box)):
            return None
        hull = []
        for x, (lo, hi), w, act, piece in zip(point, box, p.widths, p.active, p.piece):
            if (piece or not act or lo == hi) and not lo <= x <= hi:
                return None  # a point on another chart, or off this box's fixed coordinate
            lo2, hi2 = min(lo, x), max(hi, x)
            if act and w > 0 and (hi2 - lo2) > w * HULL_WIDTH:
                return None
            hull.append((lo2, hi2))
        return hull

    def _argument_at(self, box, entry, point, active, gradient) -> Closure | None:
        """The first argument that closes the box anchored at ``point`` (where m >= 0 is shown)."""
        if gradient is not None:
            out = self._from_point(box, point, active, gradient)
            if out is not None:
                return out
        if len(active) == 1:
            return self._tangent_factor(box, entry, point, active[0]) or self._root_substituted(box, entry, point, active[0])
        if len(active) <= MAX_CONVEX_COORDINATES:
            return self._convex(box, entry, point, active)
        return None

    def drain(self) -> tuple:
        """The equality points met since the last call (the box just judged), for the coordinator
        to share: the same for a box in any process, whatever this process verified before."""
        out, self._new = tuple(dict.fromkeys(self._new)), []
        return out

    # -- equality points --------------------------------------------------------------------
    def _candidates(self, box, active) -> list[tuple]:
        """Exact points of the box to anchor an argument at: the simplest rational of every
        active coordinate's interval, a common value of all of them (a point of the diagonal,
        where a symmetric claim is tight), then the box's ends (a dyadic touching point is one)."""
        first = [lo for lo, _ in box]
        for j in active:
            first[j] = simplest_rational(*box[j])
        out = [tuple(first)]
        lo_all, hi_all = max(box[j][0] for j in active), min(box[j][1] for j in active)
        if len(active) > 1 and lo_all <= hi_all:
            common = list(first)
            q = simplest_rational(lo_all, hi_all)
            for j in active:
                common[j] = q
            out.append(tuple(common))
        for j in active:
            for end in box[j]:
                alt = list(first)
                alt[j] = end
                out.append(tuple(alt))
        if len(active) > 1:
            out.append(tuple(lo for lo, _ in box))
            out.append(tuple(hi for _, hi in box))
        return list(dict.fromkeys(out))[:MAX_POINTS]

    def _margin_nonnegative_at(self, point, entry) -> bool:
        """m(x0) >= 0 shown exactly: a ball >= 0, or exact 0 (rationals, else sympy)."""
        key = (point, entry)
        hit = self._zero_at.get(key)
        if hit is not None:
            if point in self.points:
                self._new.append(point)
            return hit
        series = self._series(point, None, entry, 0, "ball")
        ok = zero = False
        if series is not None:
            c0 = series[0]
            if c0 > 0:
                ok = True
            elif 0 in c0:
                ok = zero = c0 == 0 or self._coefficient_is_zero(point, None, entry, 0)
        self._zero_at[key] = ok
        if zero:
            self.points[point] = True
            self._new.append(point)
        return ok

    # -- the arguments ----------------------------------------------------------------------
    def _from_point(self, box, point, active, gradient) -> Closure | None:
        """Every coordinate's gradient over the box points away from x0 (first order)."""
        for j in active:
            g = gradient[j]
            if not g.is_finite():
                return None
            lo, hi = box[j]
            x = point[j]
            if lo < x < hi and not (g == 0):
                return None
            if x <= lo and not g >= 0:
                return None
            if x >= hi and not g <= 0:
                return None
        return Closure("from-point", point, {})

    def _tangent_factor(self, box, entry, point, j) -> Closure | None:
        """m(x0 + t e_j) = t^k h(t) with h of one sign on the box (one active coordinate)."""
        lo, hi = box[j]
        t_lo, t_hi = lo - point[j], hi - point[j]
        direction = tuple(Fraction(int(k == j)) for k in range(len(box)))
        at_point = None
        for order in (4, MAX_ORDER):
            at_point = self._series(point, direction, entry, order + 1, "ball")
            if at_point is None:
                return None
            k = next((i for i, c in enumerate(at_point) if i > 0 and not (0 in c)), None)
            if k is not None and k <= order - 1:
                break
        else:
            return None
        for i in range(1, k):  # every coefficient below k: exactly 0
            if not (at_point[i] == 0) and not self._coefficient_is_zero(point, direction, entry, i):
                return None
        whole = self._series(tuple(box), direction, entry, k + 2, "ball", around=True)
        if whole is None:
            return None
        t = interval_ball(t_lo, t_hi)
        with _precision(self.prec):
            h = at_point[k] + at_point[k + 1] * t + whole[k + 2] * _square(t)
        sign_t = 1 if t_lo >= 0 or k % 2 == 0 else (-1 if t_hi <= 0 else 0)
        if sign_t == 0:
            return None
        if (sign_t > 0 and h >= 0) or (sign_t < 0 and h <= 0):
            return Closure("tangent-factor", point, {"coordinate": j, "order": k, "h": [_text(h.lower()), _text(h.upper())]})
        return None

    def _root_substituted(self, box, entry, point, j) -> Closure | None:
        """At the lower end x0 = 0 of a box where x^(1/q) is not smooth: x = s^q, and the margin
        grows in s from s = 0 (first order in s: the jets fold (s^q)^(p) into s^(q p))."""
        lo, hi = box[j]
        if point[j] != lo or lo != 0:
            return None
        for q in ROOT_ORDERS:
            top = _root_above(hi - lo, q)
            radii = [None] * len(box)
            radii[j] = interval_ball(-top / 2, top / 2)
            ctx = JetContext(radii, self.prec)
            p = self.problem
            try:
                with ctx.precision():
                    values = [lo_ if piece else (ctx.coordinate(k, Fraction(0), top) ** q if k == j else lo_)
                              for k, ((lo_, _), piece) in enumerate(zip(box, p.piece))]
                    margin = p.margins(ctx, p.data(ctx, values))[entry]
            except (ArithmeticError, ValueError, TypeError, FunctionDomainError):
                continue
            finally:
                ctx.release()
            if margin.g is not None and margin.g[j].is_finite() and margin.g[j] >= 0:
                return Closure("from-point", point, {"substitution": f"coordinate {j} = s^{q}", "s": ["0", str(top)]})
        return None

    def _second_order(self, box, entry, active) -> Closure | None:
        """The second-order Taylor form at the box's centre c: m(c) + g(c).d + 1/2 d^T H(box) d >= 0.

        Near a minimum (the cluster of boxes around a touching point) the first-order form pays for
        the gradient's enclosure over the whole box, which dependency inflates (an expanded
        polynomial); here the gradient is taken at one exact point and only the Hessian over the
        box, times the squared half-widths."""
        centre = tuple((lo + hi) / 2 for lo, hi in box)
        value = self._series(centre, None, entry, 0, "ball")
        if value is None or not value[0] > 0:
            return None
        hess = self._hessian(box, entry, active)
        if hess is None:
            return None
        n = len(box)
        unit = lambda j: tuple(Fraction(int(k == j)) for k in range(n))  # noqa: E731
        with _precision(self.prec):
            lower = value[0]
            for j in active:
                g = self._series(centre, unit(j), entry, 1, "ball")
                if g is None:
                    return None
                lower = lower - abs(g[1]).upper() * _ball((box[j][1] - box[j][0]) / 2)
            for a in active:
                for b in active:
                    r = (box[a][1] - box[a][0]) * (box[b][1] - box[b][0]) / 8
                    lower = lower - abs(hess[a, b]).upper() * _ball(r)
            if lower > 0:
                return Closure("second-order", centre, {"lower": _text(lower.lower())}).at(False)
        return None

    def _hessian(self, box, entry, active):
        """The Hessian enclosed over the box, from second Taylor coefficients along e_a and e_a + e_b."""
        n = len(box)
        unit = lambda *js: tuple(Fraction(sum(1 for j in js if j == k)) for k in range(n))  # noqa: E731
        region = tuple(box)
        q = {}
        for j in active:
            s = self._series(region, unit(j), entry, 2, "ball", around=True)
            if s is None:
                return None
            q[j] = s[2]
        hess = {}
        with _precision(self.prec):
            for a in active:
                hess[a, a] = 2 * q[a]
            for x, a in enumerate(active):
                for b in active[x + 1:]:
                    s = self._series(region, unit(a, b), entry, 2, "ball", around=True)
                    if s is None:
                        return None
                    hess[a, b] = hess[b, a] = s[2] - q[a] - q[b]
        return hess

    def _convex(self, box, entry, point, active) -> Closure | None:
        """Second order at x0: zero or inward gradient, Hessian over the box dominant (Gershgorin)."""
        n = len(box)
        unit = lambda *js: tuple(Fraction(sum(1 for j in js if j == k)) for k in range(n))
        grad = {}
        for j in active:
            s = self._series(point, unit(j), entry, 1, "ball")
            if s is None:
                return None
            grad[j] = s[1]
        inward, interior = {}, []
        for j in active:
            lo, hi = box[j]
            x, g = point[j], grad[j]
            if x <= lo and g > 0:
                inward[j] = g.lower()
            elif x >= hi and g < 0:
                inward[j] = (-g).lower()
            elif (x <= lo and g >= 0) or (x >= hi and g <= 0) or g == 0:
                interior.append(j)
            elif 0 in g and self._coefficient_is_zero(point, unit(j), entry, 1):
                interior.append(j)
            else:
                return None
        hess = self._hessian(box, entry, active)
        if hess is None:
            return None
        with _precision(self.prec):
            reach = {j: max(abs(box[j][0] - point[j]), abs(box[j][1] - point[j])) for j in active}
            for i in inward:  # first order absorbs the mixed terms of a strictly inward coordinate
                spend = arb(0)
                for j in active:
                    weight = Fraction(1, 2) if j in inward else Fraction(1)
                    spend = spend + abs(hess[i, j]).upper() * _ball(reach[j] * weight)
                if not inward[i] - spend >= 0:
                    return None
            for i in interior:
                row = hess[i, i]
                for j in interior:
                    if j != i:
                        row = row - abs(hess[i, j]).upper()
                if not row >= 0:
                    return None
        return Closure("convex", point, {"inward": sorted(inward), "interior": sorted(interior)})

    # -- expansions ---------------------------------------------------------------------------
    def _series(self, point, direction, entry, order, base, around=False):
        """Coefficients of margin entry ``entry`` along ``point + t direction`` (None: broken).

        ``around``: ``point`` is the box (intervals), and the coefficients enclose those of every
        point of it."""
        p = self.problem
        ctx = ball_series(self.prec, order) if base == "ball" else exact_series(order) if base == "exact" else symbolic_series(order)
        values = []
        with ctx.precision():
            for k, (coord, piece) in enumerate(zip(p.coords, p.piece)):
                x = point[k]
                if piece:
                    values.append(int(x[0] if isinstance(x, tuple) else x))
                    continue
                u = Fraction(0) if direction is None else direction[k]
                if around:
                    lo, hi = x
                    start = interval_ball(lo, hi) if lo != hi else lo
                else:
                    start = x
                if base == "ball" and isinstance(start, Fraction):
                    start = arb(fmpq(start.numerator, start.denominator))
                values.append(ctx.line(start, u))
            try:
                margins = p.margins(ctx, p.data(ctx, values))
            except (ArithmeticError, ValueError, TypeError, FunctionDomainError):
                return None
        return coefficients(margins[entry])

    def _coefficient_is_zero(self, point, direction, entry, order) -> bool:
        """The order-th Taylor coefficient at the exact ``point`` is exactly 0: in rational
        arithmetic, else in sympy (a rewriting to 0 is a proof; anything else is not)."""
        key = (point, direction, entry, order)
        hit = self._exact_zero.get(key)
        if hit is not None:
            return hit
        out = False
        exact = self._series(point, direction, entry, order, "exact")
        if exact is not None:
            out = exact[order] == 0
        else:
            symbolic = self._series(point, direction, entry, order, "symbolic")
            if symbolic is not None:
                out = _sympy_zero(symbolic[order])
        self._exact_zero[key] = out
        return out


def _symbol(name: str, span):
    """A real symbol with the sign of its interval's interior (sqrt(s^2) = s where s > 0).  An identity
    shown on the open interval is all an argument needs: where the box's projections reach an end at
    which the margin is not smooth, their ball series breaks and the argument fails there."""
    lo, hi = span
    if lo >= 0:
        return sympy.Symbol(name, positive=True)
    if hi <= 0:
        return sympy.Symbol(name, negative=True)
    return sympy.Symbol(name, real=True)


def _sympy_zero(expr) -> bool:
    expr = sympy.sympify(expr)
    if expr == 0:
        return True
    try:
        return sympy.simplify(expr) == 0
    except (TypeError, ValueError, RecursionError, NotImplementedError):
        return False


def _root_above(x: Fraction, q: int) -> Fraction:
    """A dyadic rational r >= x^(1/q), within 2^-20 of it."""
    scale = 2**20
    r = Fraction(int(sympy.integer_nthroot(int(x * scale**q), q)[0]), scale)
    while r**q < x:
        r += Fraction(1, scale)
    return r


def _ball(q: Fraction) -> arb:
    return arb(fmpq(q.numerator, q.denominator))


def _square(t: arb) -> arb:
    top = max(abs(t.lower()), abs(t.upper()))
    low = arb(0) if 0 in t else min(abs(t.lower()), abs(t.upper()))
    return (low * low).union(top * top)


def _text(x: arb) -> str:
    return x.str(12, radius=False)


def _precision(prec: int):
    return BallContext(prec).precision()


__all__ = ["Closure", "TouchingArguments", "simplest_rational"]
