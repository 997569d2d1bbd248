"""Simple rational points near a float point, on every variable's set.

A certificate sees exact inputs, so a constrained variable must lie *exactly* on its set;
each kind moves a point onto its set in rationals itself (:mod:`verifier.kinds`), and
:func:`verifier.sampling.exactify` applies those maps to a float candidate.

Near-ties: a strict claim whose only equality point is ``a = b = c = 1/3`` is never refuted
by float points (float64 has no 1/3).  :func:`nearby_simple_points` rounds each coordinate to
its best approximation of small denominator (``Fraction.limit_denominator``: the
continued-fraction convergents and semiconvergents) at a ladder of denominators, in the
coordinates where the set's points are simple (the kind's chart: entries, stereographic
coordinates, Cayley parameters), and projects back onto the set.  A point whose coordinates
share a larger denominator (107ths on a face of the simplex) is out of that ladder's reach,
and rounding one coordinate at a time cannot tell 107ths from noise; so the coordinates are
also rounded *together*, to the best approximations with one common denominator
(:func:`common_denominator`: simultaneous Diophantine approximation by LLL).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from flint import fmpq, fmpz_mat

from .contexts import ExactContext, FloatContext, to_fraction
from .kinds import domain_of, is_derived
from .sampling import Sampler, batch_fastest, exactify, project

#: denominators tried around a near-tie, smallest first (each a rung of convergents)
DENOMINATORS = (2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 16, 20, 24, 32, 60, 100)
#: weights of the residues against the common denominator in the lattice: weight M finds a
#: denominator q when the point lies within about 1/M of p/q in every coordinate
LATTICE_SCALES = (10**6, 10**9, 10**12)
#: the largest common denominator a lattice rounding may give
MAX_COMMON_DENOMINATOR = 10**4
#: coordinates up to which a rounding in charts tries every corner of the 1/D grid around the point
MAX_CORNERS = 4
#: certifications spent per near-tie at most (on a claim that is an equality on a whole
#: face, every rounded point is a tie too: the float screen cannot tell them apart)
MAX_TRIES = 2


# --------------------------------------------------------------- nearby simple rationals
def limit_denominators(value, bounds) -> dict:
    """``{M: Fraction(value).limit_denominator(M)}`` for every M in ``bounds``, as fmpq, from
    one continued-fraction expansion.

    ``limit_denominator`` expands from the start for each M; the expansion for a larger M
    passes through the state where a smaller M stopped, so one walk serves the whole
    ladder.  The choice between the two bounds, ties included (the smaller denominator),
    is ``limit_denominator``'s, compared exactly in integers.
    """
    f = to_fraction(value)
    num, den = f.numerator, f.denominator
    out = {}
    p0, q0, p1, q1 = 0, 1, 1, 0
    n, d = num, den
    for m in sorted(set(bounds)):
        if den <= m:
            out[m] = fmpq(num, den)
            continue
        while True:
            a = n // d
            q2 = q0 + a * q1
            if q2 > m:
                break
            p0, q0, p1, q1 = p1, q1, p0 + a * p1, q2
            n, d = d, n - a * d
        k = (m - q0) // q1
        lo_p, lo_q = p0 + k * p1, q0 + k * q1
        # |p1/q1 - f| <= |lo_p/lo_q - f|, multiplied through by q1 * lo_q * den > 0
        if abs(p1 * den - num * q1) * lo_q <= abs(lo_p * den - num * lo_q) * q1:
            out[m] = fmpq(p1, q1)
        else:
            out[m] = fmpq(lo_p, lo_q)
    return out


def _snap_ladder(x, bounds) -> dict:
    """``{M: x with every entry rounded to denominators <= M}`` (x: one point, no batch axis)."""
    flat = np.asarray(x, dtype=object).ravel()
    per_entry = [limit_denominators(v, bounds) for v in flat]
    shape = np.shape(x)
    out = {}
    for m in bounds:
        arr = np.empty(len(flat), dtype=object)
        arr[:] = [e[m] for e in per_entry]
        out[m] = arr.reshape(shape)
    return out


def _snap_variable_ladder(var, point, bounds) -> dict:
    """``{M: point rounded to denominators <= M}`` in the coordinates where its set's points are
    simple: the entries when they already lie on the set (or are the coordinates), else the
    kind's chart, mapped back onto the set."""
    entries = _snap_ladder(point, bounds)
    dom = domain_of(var)
    chart = dom.chart(point) if dom is not None else None
    if chart is None:
        return entries
    params = _snap_ladder(chart.params, bounds)
    return {m: entries[m] if dom.contains(entries[m]) else _mapped(chart.point, params[m], entries[m]) for m in bounds}


def _mapped(point, params, fallback):
    """A chart's point at ``params``, or ``fallback`` where the chart has none there (a
    quadric's line parallel to an asymptote meets it at no second point)."""
    try:
        return point(params)
    except (ValueError, ArithmeticError):
        return fallback


def common_denominator(values, scale, max_denominator=MAX_COMMON_DENOMINATOR) -> np.ndarray | None:
    """``p / q`` with one denominator ``q <= max_denominator`` and ``|q x_i - p_i|`` small in
    every coordinate at once, or None (values: one array of rationals).

    Lagarias' lattice for simultaneous Diophantine approximation: rows ``(1, [M x_1], ...,
    [M x_n])`` and ``M e_i``; the vector ``q row_0 - sum p_i row_i = (q, M (q x_i - p_i))`` is
    short exactly when ``p / q`` is close to ``x`` with a small ``q``, and LLL's first vector is
    the shortest up to a factor the lattice's size keeps harmless here.
    """
    flat = np.asarray(values, dtype=object).ravel()
    if not len(flat):
        return None
    scaled = [round(to_fraction(v) * scale) for v in flat]
    n = len(flat)
    rows = [[1] + scaled] + [[0] * (i + 1) + [scale] + [0] * (n - i - 1) for i in range(n)]
    first = fmpz_mat(rows).lll()
    q = int(first[0, 0])
    if q == 0 or abs(q) > max_denominator:
        return None
    if q < 0:
        q = -q
        residues = [-int(first[0, i + 1]) for i in range(n)]
    else:
        residues = [int(first[0, i + 1]) for i in range(n)]
    out = np.empty(n, dtype=object)
    out[:] = [fmpq((q * r - v) // scale, q) for r, v in zip(scaled, residues)]
    return out.reshape(np.shape(values))


def _common_denominator_variable(var, point, scale):
    """The variable rounded to one common denominator: its entries when that lands on the set
    (or the entries are its coordinates), else its chart's coordinates, mapped back."""
    entries = common_denominator(point, scale)
    dom = domain_of(var)
    chart = dom.chart(point) if dom is not None else None
    if chart is None or (entries is not None and dom.contains(entries)):
        return entries
    params = common_denominator(chart.params, scale)
    return None if params is None else _mapped(chart.point, params, None)


def nearby_simple_points(check, data, dims, project):
    """Points of small denominators near ``data``, on every variable's set, distinct from it.

    ``project(data)`` moves a point into the whole domain (sets, boxes, relations, derived
    variables, in declaration order).
    """
    # every rung of the ladder from one expansion per coordinate
    free = [var for var in check.variables if not is_derived(var)]
    points = {var.name: np.asarray(np.asarray(data[var.name], dtype=object)[0], dtype=object) for var in free}
    ladders = {var.name: _snap_variable_ladder(var, points[var.name], DENOMINATORS) for var in free}
    rounded_sets = [{name: ladder[den] for name, ladder in ladders.items()} for den in DENOMINATORS]
    # then every variable's coordinates rounded together, to one denominator each
    for scale in LATTICE_SCALES:
        together = {var.name: _common_denominator_variable(var, points[var.name], scale) for var in free}
        rounded_sets.append({name: together[name] if together[name] is not None else points[name] for name in together})
    # a derived variable is recomputed by the projection
    return _distinct_projections(data, ({var.name: data[var.name] if is_derived(var) else rounding[var.name][None] for var in check.variables}
                                        for rounding in rounded_sets), project)


def _distinct_projections(data, candidates, project):
    """The candidates moved into the whole domain, each resulting point once, none equal to ``data``."""
    seen, rounded, out = {_key(data)}, set(), []
    for cand in candidates:
        raw = _key(cand)
        if raw in rounded:  # the same rounding as an earlier one: the same projection
            continue
        rounded.add(raw)
        try:
            cand = project(cand)
        except (ValueError, ArithmeticError):
            continue
        key = _key(cand)
        if key not in seen:
            seen.add(key)
            out.append(cand)
    return out


def rounded_in_charts(check, data, dims, project, denominators):
    """``data`` with every variable's coordinates where its set's points are simple (the kind's
    chart, else the entries) rounded to multiples of 1/D, for each D in ``denominators``,
    mapped back and projected: distinct points, smallest D first.

    One denominator for all coordinates is what keeps a point short: stereographic
    coordinates ``a / D`` give a sphere point of denominator about ``D^2``, where rounding each
    to its own denominator multiplies them; simplex weights ``a_i / D`` divided by their sum
    share one denominator near D.
    """
    free = [var for var in check.variables if not is_derived(var)]
    charts = {}
    for var in free:
        point = np.asarray(np.asarray(data[var.name], dtype=object)[0], dtype=object)
        dom = domain_of(var)
        chart = dom.chart(point) if dom is not None else None
        charts[var.name] = (chart.params, chart.point) if chart is not None else (point, lambda x: x)
    coords = sum(int(np.size(charts[var.name][0])) for var in free)

    def candidates():
        for den in denominators:
            # the nearest multiples of 1/D, and where there are few coordinates every choice of
            # the two multiples around them: the nearest may fall just outside a small region
            for way in (itertools.product((math.floor, math.ceil), repeat=coords) if coords <= MAX_CORNERS else [None]):
                ways = iter(way or ())
                cand = dict(data)
                for var in free:
                    params, back = charts[var.name]
                    rounded = np.vectorize(lambda v: fmpq((next(ways) if way else round)(to_fraction(v) * den), den), otypes=[object])(params)
                    cand[var.name] = _mapped(back, rounded, None)
                    if cand[var.name] is None:
                        break
                    cand[var.name] = np.asarray(cand[var.name], dtype=object)[None]
                else:
                    yield cand

    return _distinct_projections(data, candidates(), project)


def _key(data):
    return tuple((k, tuple(map(str, np.asarray(a, dtype=object).ravel()))) for k, a in sorted(data.items()))


#: a relative margin below this is a near-tie
NEAR_TIE = 1e-6


def is_new_near_tie(rel, previous_best) -> bool:
    """Is ``rel`` a near-tie a decade gate has not seen yet?

    Once per three decades of improvement (below 1e-6, 1e-9, 1e-12, 1e-15, and at 0), so a
    search converging on a tie reports a few points, not one per step.
    """
    return abs(rel) <= NEAR_TIE and _decade(rel) != _decade(previous_best)


def try_near_tie(check, certifier, data, index, dims):
    """Certify the simple rationals near row ``index`` of a float batch: the first violated
    (point, certificate), or None."""
    try:
        exact = exactify(check, data, index, dims)
    except (ValueError, ArithmeticError):
        return None
    return try_nearby_simple_rationals(check, certifier, exact, dims)


def _decade(rel):
    if not np.isfinite(rel) or rel > NEAR_TIE:
        return None
    return -400 if rel <= 0 else int(np.floor(np.log10(rel) / 3))


def try_nearby_simple_rationals(check, certifier, data, dims):
    """Certify the simple rational points near a near-tie; the first violated (point, certificate), or None.

    One float64 batch screens the candidates first: rounding to a denominator that misses the
    tie moves the point clearly off it (a relative margin above 1e-9, or a hypothesis clearly
    broken), and certificates (balls where ``exp`` appears) are what cost here.
    """
    ctx = ExactContext()
    candidates = nearby_simple_points(check, data, dims, lambda d: project(ctx, check, d, dims))
    tried = 0
    for cand in (c for c, keep in zip(candidates, _may_fail(check, candidates, dims)) if keep):
        if tried >= MAX_TRIES:
            return None
        tried += 1
        try:
            cert = certifier.certify(check, cand, dims, display="violations")
        except (ValueError, ArithmeticError):
            continue
        if cert.violated:
            return cand, cert
    return None


def _may_fail(check, candidates, dims) -> np.ndarray:
    """Per candidate: might it violate the claim (float64 cannot rule it out)?"""
    if not candidates:
        return np.zeros(0, dtype=bool)
    as_float = np.vectorize(lambda v: float(to_fraction(v)), otypes=[float])
    batch = batch_fastest({k: np.concatenate([as_float(np.asarray(c[k], dtype=object)) for c in candidates]) for k in candidates[0]})
    with np.errstate(all="ignore"):
        try:
            ev = check.evaluate(FloatContext(), batch, dims)
        except (ValueError, ArithmeticError, OverflowError):
            return np.ones(len(candidates), dtype=bool)
        margin, scale = np.asarray(ev.margin, dtype=float), np.asarray(ev.scale, dtype=float)
        keep = ~(margin > 1e-9 * scale)  # nan stays in: float64 cannot rule it out
        for h in ev.hypotheses:
            keep &= ~(np.asarray(h, dtype=float) < -1e-9)
    return keep


#: sampled points tried before a search for a derived variable that leaves the rationals
#: (some hit a vertex, where a sqrt may happen to be rational)
DERIVED_PROBES = 32


def refuse_irrational_derived(check, seed: int = 0) -> None:
    """Raise :class:`~verifier.kinds.IrrationalDerivedValue` before a search whose derived
    variables leave the rationals at a sampled point, so a true claim fails as clearly as a
    false one, at once."""
    if not any(v.domain is not None and v.domain.relative for v in check.variables):
        return
    dims = {d.name: d.lo for d in check.dims}
    with np.errstate(all="ignore"):
        data = Sampler(check).sample(dims, np.random.default_rng(seed), DERIVED_PROBES)
    for i in range(DERIVED_PROBES):
        try:
            exactify(check, data, i, dims)
        except (ValueError, ArithmeticError):  # outside the definition's domain, or not finite: no verdict on it
            continue


__all__ = ["nearby_simple_points", "rounded_in_charts", "is_new_near_tie", "try_near_tie", "try_nearby_simple_rationals", "refuse_irrational_derived",
           "common_denominator", "limit_denominators", "DENOMINATORS"]
