"""Exact rational points on the constrained sets, and simple rationals near a point.

A certificate sees exact inputs, so a constrained variable must lie *exactly* on its set:

* simplex rows: negative entries cut to 0, then the row divided by its sum (sum exactly 1);
* the Euclidean sphere: inverse stereographic projection of the point's stereographic
  coordinates, ``y = (2t, 1 - |t|^2) / (1 + |t|^2)`` -- rational whenever ``t`` is;
* the max and l1 spheres: divide by the norm;
* ordered vectors: sort;
* orthogonal matrices: ``Q = S (I - A)(I + A)^-1`` with ``S`` the nearest signed permutation
  and ``A`` skew-symmetric and rational (the Cayley transform), which reaches every
  orthogonal matrix with no eigenvalue -1 relative to ``S``;
* derived variables: their defining expression, evaluated exactly.

A point already on its set is returned unchanged, so a projected point is stable.

Near-ties: a strict claim whose only equality point is ``a = b = c = 1/3`` is never refuted
by float points (float64 has no 1/3).  :func:`nearby_simple_points` rounds each coordinate to
its best approximation of small denominator (``Fraction.limit_denominator``: the
continued-fraction convergents and semiconvergents) at a ladder of denominators, in the
coordinates where the set's points are simple (entries, stereographic coordinates, Cayley
parameters), and projects back onto the set.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from flint import fmpq, fmpq_mat

from .contexts import NotRational, to_fraction
from .domains import DerivedValue, IrrationalDerivedValue, OrderedEntries, OrthogonalMatrix, SimplexRows, UnitSphere, domain_of

#: denominators tried around a near-tie, smallest first (each a rung of convergents)
DENOMINATORS = (2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 16, 20, 24, 32, 60, 100)
#: certifications spent per near-tie at most (on a claim that is an equality on a whole
#: face, every rounded point is a tie too: the float screen cannot tell them apart)
MAX_TRIES = 2


def q(x) -> fmpq:
    f = to_fraction(x)
    return fmpq(f.numerator, f.denominator)


# ------------------------------------------------------------------ exact projection
def project_exact(var, x, values):
    """``x`` (object array of rationals, batch axis of one) moved exactly onto var's set."""
    dom = domain_of(var)
    if dom is None:
        return x
    if isinstance(dom, DerivedValue):
        try:
            with _exact_ctx().precision():
                out = np.asarray(dom.fn(_exact_ctx(), values), dtype=object)
        except NotRational as exc:
            raise IrrationalDerivedValue(var, dom.text, str(exc)) from None
        return np.broadcast_to(out, np.shape(x)).copy() if np.ndim(out) < np.ndim(x) else out
    point = np.vectorize(q, otypes=[object])(np.asarray(x, dtype=object)[0])
    if isinstance(dom, SimplexRows):
        out = _simplex_rows(point)
    elif isinstance(dom, UnitSphere):
        out = _unit_sphere(point, dom.norm)
    elif isinstance(dom, OrderedEntries):
        out = np.array(sorted(point), dtype=object)
    elif isinstance(dom, OrthogonalMatrix):
        out = _orthogonal(point)
    else:
        raise TypeError(f"no exact projection for {dom.kind}")
    return out[None]


def _exact_ctx():
    from .contexts import ExactContext

    return ExactContext()


def _simplex_rows(x):
    rows = x.reshape(-1, x.shape[-1]) if x.ndim else x.reshape(1, 1)
    out = np.empty_like(rows)
    for i, row in enumerate(rows):
        row = [r if r > 0 else fmpq(0) for r in row]
        total = sum(row, fmpq(0))
        out[i] = [fmpq(1, len(row))] * len(row) if total == 0 else [r / total for r in row]
    return out.reshape(x.shape)


def _unit_sphere(x, norm):
    n = len(x)
    if n == 0:
        raise ValueError("a unit vector needs at least one entry")
    if all(v == 0 for v in x):
        return np.array([fmpq(1)] + [fmpq(0)] * (n - 1), dtype=object)
    if norm == "inf":
        return x / max(abs(v) for v in x)
    if norm == "1":
        return x / sum((abs(v) for v in x), fmpq(0))
    if sum((v * v for v in x), fmpq(0)) == 1:
        return x
    j = max(range(n), key=lambda i: abs(x[i]))
    s = 1 if x[j] > 0 else -1
    t = [x[i] / (1 + s * x[j]) for i in range(n) if i != j]  # from the pole opposite x
    return inverse_stereographic(t, j, s)


def stereographic(y, j, s):
    """Coordinates of a unit vector ``y`` seen from the pole ``-s e_j``."""
    return [y[i] / (1 + s * y[j]) for i in range(len(y)) if i != j]


def inverse_stereographic(t, j, s):
    """The rational point of the unit sphere with stereographic coordinates ``t``."""
    big_t = sum((v * v for v in t), fmpq(0))
    out = [2 * v / (1 + big_t) for v in t]
    out.insert(j, s * (1 - big_t) / (1 + big_t))
    return np.array(out, dtype=object)


def _eye(n):
    return fmpq_mat(n, n, [fmpq(int(i == j)) for i in range(n) for j in range(n)])


def _mat(x):
    n = x.shape[0]
    return fmpq_mat(n, n, [q(v) for v in x.ravel()])


def _arr(m):
    n = m.nrows()
    return np.array([[m[i, j] for j in range(n)] for i in range(n)], dtype=object)


def nearest_signed_permutation(x) -> np.ndarray:
    """Greedy: the largest |entry| fixes a row and a column, and so on."""
    a = np.abs(np.asarray(x, dtype=float))
    n = a.shape[0]
    s = np.zeros((n, n), dtype=object)
    s[...] = fmpq(0)
    rows, cols = set(range(n)), set(range(n))
    for _ in range(n):
        i, j = max(((i, j) for i in rows for j in cols), key=lambda ij: a[ij])
        s[i, j] = fmpq(1) if float(x[i, j]) >= 0 else fmpq(-1)
        rows.discard(i)
        cols.discard(j)
    return s


def cayley(a, sign=None):
    """``S (I - A)(I + A)^-1``: orthogonal for every skew-symmetric rational ``A``."""
    m = _mat(a)
    eye = _eye(m.nrows())
    out = (eye - m) * (eye + m).inv()
    if sign is not None:
        out = _mat(sign) * out
    return _arr(out)


def cayley_parameters(x, sign):
    """The skew-symmetric ``A`` with ``S^T x = (I - A)(I + A)^-1`` (projected to skew)."""
    m = _mat(sign).transpose() * _mat(x)
    eye = _eye(m.nrows())
    try:
        a = _arr((eye - m) * (eye + m).inv())
    except ZeroDivisionError:
        raise ValueError("orthogonal projection: S^T Q has eigenvalue -1") from None
    return (a - a.T) / 2


def _orthogonal(x):
    n = x.shape[0]
    if n == 0:
        return x
    xm = _mat(x)
    if xm.transpose() * xm == _eye(n):
        return x
    sign = nearest_signed_permutation(x)
    # a rational A with denominators bounded by float64's: the exact A of a float Q has
    # squared denominators, and the certificate's cost grows with them
    a = cayley_parameters(x, sign)
    a = np.vectorize(lambda v: q(float(v)), otypes=[object])(a)
    a = (a - a.T) / 2
    return cayley(a, sign)


# --------------------------------------------------------------- nearby simple rationals
def _snap(v, den):
    f = to_fraction(v).limit_denominator(den)
    return fmpq(f.numerator, f.denominator)


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


def _snap_array(x, den):
    return np.vectorize(lambda v: _snap(v, den), otypes=[object])(np.asarray(x, dtype=object))


def _snap_variable(var, x, den):
    """``x`` rounded to denominators <= den in the coordinates where its set's points are simple."""
    dom = domain_of(var)
    point = np.asarray(x, dtype=object)[0]
    if isinstance(dom, UnitSphere) and dom.norm == "2" and len(point):
        entries = _snap_array(point, den)
        if sum((v * v for v in entries), fmpq(0)) == 1:
            return entries[None]
        j = max(range(len(point)), key=lambda i: abs(point[i]))
        s = 1 if point[j] > 0 else -1
        t = [_snap(v, den) for v in stereographic(list(np.vectorize(q, otypes=[object])(point)), j, s)]
        return inverse_stereographic(t, j, s)[None]
    if isinstance(dom, OrthogonalMatrix) and point.size:
        entries = _snap_array(point, den)
        m = _mat(entries)
        if m.transpose() * m == _eye(m.nrows()):
            return entries[None]
        sign = nearest_signed_permutation(point)
        try:
            a = _snap_array(cayley_parameters(point, sign), den)
        except ValueError:
            return entries[None]
        return cayley((a - a.T) / 2, sign)[None]
    return _snap_array(point, den)[None]


def nearby_simple_points(check, data, dims, project):
    """Points of small denominators near ``data``, on every variable's set, distinct from it.

    ``project(data)`` moves a point into the whole domain (sets, boxes, relations, derived
    variables, in declaration order).
    """
    seen = {_key(data)}
    rounded: set = set()
    out = []
    # plain coordinates: every rung of the ladder from one expansion per entry
    ladders = {var.name: _snap_ladder(np.asarray(data[var.name], dtype=object)[0], DENOMINATORS)
               for var in check.variables if not isinstance(domain_of(var), (DerivedValue, UnitSphere, OrthogonalMatrix))}
    for den in DENOMINATORS:
        cand = {}
        for var in check.variables:
            if isinstance(domain_of(var), DerivedValue):
                cand[var.name] = data[var.name]  # recomputed by the projection
            elif var.name in ladders:
                cand[var.name] = ladders[var.name][den][None]
            else:
                cand[var.name] = _snap_variable(var, data[var.name], den)
        raw = _key(cand)
        if raw in rounded:  # the same rounding as a smaller denominator gave: the same projection
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
    from .sampling import exactify

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
    from .contexts import ExactContext
    from .sampling import project

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
    from .contexts import FloatContext
    from .sampling import batch_fastest

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


__all__ = ["project_exact", "nearby_simple_points", "is_new_near_tie", "try_near_tie", "try_nearby_simple_rationals", "inverse_stereographic", "cayley", "Fraction"]
