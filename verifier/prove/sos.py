"""Sum-of-squares certificates: a polynomial claim proved by an exact identity.

A polynomial ``p`` that is >= 0 on a box (or where polynomial hypotheses ``g_i >= 0`` hold) is
proved by writing it as ``p = c_0 + sum_k c_k * prod_{i in S_k} g_i * q_k^2`` with every
``c_k >= 0`` (Putinar's form of the Positivstellensatz, one multiplier per block): each term is
>= 0 wherever the hypotheses hold, so ``p`` is too -- an identity of polynomials with rational
coefficients, which exact arithmetic re-checks in a few milliseconds and Coq's ``ring`` can
too.  Finding one is a semidefinite program (a Gram matrix ``Q_k >= 0`` per multiplier, its
entries matched to the coefficients of ``p``), solved in floating point by Clarabel (an
interior-point conic solver: its solution lies near the analytic centre of the feasible set,
which is what rounding needs), then **rounded to rationals, projected exactly onto the
affine space of the coefficient equations, and factored exactly** (``Q = L D L^T`` over Q, every
pivot >= 0).  The float solution is only a guess; what is returned has been checked exactly
(:func:`check_certificate`) or is not returned.

The margin becomes ``p`` by clearing its denominator: ``lhs - rhs = N / D`` is >= 0 where it is
defined exactly when ``N * D`` is (``D`` constant: ``N`` with D's sign).  Hypotheses that are
not polynomial are left out (a proof under fewer hypotheses is a proof).  The format is
``ProofCertificate.sos`` (docs/prove.md).
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np
import sympy

from ..algebraic import AlgebraicNumber, FieldElement, NotInField, field_of, recognise
from ..claims import Check
from ..contexts import SymbolicContext
from ..equality import plain_coordinates
from ..formula import FUNCTIONS, export_formula
from ..results import CheckResult, Verdict
from .certificate import ProofCertificate
from .domain import ProofBox
from .result import Proof, ProofDetails, base_fields
from .strategy import Strategy

#: the largest Gram matrix (side) the SDP is built for
MAX_GRAM = 60
#: denominators the Gram matrices are rounded to, in turn
ROUNDINGS = (10**4, 10**6, 10**8, 10**10)
#: pairwise products of hypotheses are multipliers too up to this many hypotheses
MAX_PAIRS = 6
#: ... and while the Gram matrices have at most this many unknowns in all
MAX_UNKNOWNS = 600


@dataclass(frozen=True)
class PolynomialClaim:
    """A check as ``p >= 0`` (``> 0`` when strict) where every ``g_i >= 0``: sympy polynomials
    in ``variables``, and the sentence that says how ``p`` follows from the claim's margin."""

    variables: tuple
    p: sympy.Poly
    hypotheses: tuple
    strict: bool
    derivation: str


def polynomial_claim(check: Check, domain: ProofBox) -> PolynomialClaim | str:
    """The check as a polynomial problem, or the one-line reason it is not one."""
    variables = plain_coordinates(check)
    if variables is None:
        return "a variable lies on a set, in a relation or is derived: sums of squares take plain variables"
    if check.part.elementwise or check.part.relation not in ("<=", "<", ">=", ">"):
        return "only a single inequality gets a sum-of-squares certificate"
    sym = SymbolicContext()
    data, symbols = {}, []
    for var in variables:
        shape = var.concrete_shape(domain.dims)
        arr = np.empty((1,) + tuple(shape), dtype=object)
        for idx in np.ndindex(*shape):
            s = sympy.Symbol(var.name + "".join(f"_{i}" for i in idx), real=True)
            arr[(0,) + idx] = s
            symbols.append(s)
        data[var.name] = arr
    try:
        ev = check.evaluate(sym, data, domain.dims)
    except Exception as exc:  # the symbolic context lacks a function, or the claim divides by 0
        return f"the claim is not built from + \u2212 \u00d7 \u00f7 in the symbolic context ({type(exc).__name__})"
    margin = ev.margin[0]
    if margin.has(sympy.Abs, sympy.Max, sympy.Min, sympy.Pow) and not _polynomial_powers(margin):
        return "the margin is not a rational function (abs, max, min or a root)"
    num, den = sympy.fraction(sympy.together(margin))
    try:
        pn, pd = sympy.Poly(num, *symbols, domain="QQ"), sympy.Poly(den, *symbols, domain="QQ")
    except (sympy.PolynomialError, sympy.GeneratorsNeeded, sympy.CoercionFailed):
        return "the margin is not a rational function with rational coefficients"
    if pd.is_ground:
        c = pd.LC()
        p = pn if c > 0 else -pn
        derivation = ("p is the margin (the side that should be larger minus the other)" if c == 1 else
                      f"p is the margin times {abs(c)}, its denominator cleared")
    else:
        p = pn * pd
        derivation = ("the margin is N/D; p = N\u00b7D has its sign wherever it is defined (D \u2260 0), so p \u2265 0 "
                      "there gives the claim")
    hyps = []
    for hyp, h in zip(check.hypotheses, ev.hypotheses):
        g = _polynomial(h[0], symbols)
        if g is not None and not g.is_ground:
            hyps.append(g)
    for var in variables:
        box = domain.boxes.get(var.name)
        if box is None:
            continue
        lo, hi = (Fraction(b) if b is not None else None for b in box)
        for s in (x for x in symbols if x.name == var.name or x.name.startswith(var.name + "_")):
            if lo is not None:
                hyps.append(sympy.Poly(s - sympy.Rational(lo.numerator, lo.denominator), *symbols, domain="QQ"))
            if hi is not None:
                hyps.append(sympy.Poly(sympy.Rational(hi.numerator, hi.denominator) - s, *symbols, domain="QQ"))
    unique = []
    for g in hyps:
        if all(g != h for h in unique):
            unique.append(g)
    return PolynomialClaim(tuple(symbols), p, tuple(unique), check.strict, derivation)


def _polynomial_powers(expr) -> bool:
    """Every power in ``expr`` has an integer exponent (x**2, 1/x), none a root."""
    return all(p.exp.is_Integer for p in expr.atoms(sympy.Pow)) and not expr.has(sympy.Abs, sympy.Max, sympy.Min)


def _polynomial(expr, symbols) -> sympy.Poly | None:
    if not _polynomial_powers(expr):
        return None
    num, den = sympy.fraction(sympy.together(expr))
    try:
        pn, pd = sympy.Poly(num, *symbols, domain="QQ"), sympy.Poly(den, *symbols, domain="QQ")
    except (sympy.PolynomialError, sympy.GeneratorsNeeded, sympy.CoercionFailed):
        return None
    if not pd.is_ground:
        return None
    return pn if pd.LC() > 0 else -pn


# ------------------------------------------------------------------------- the SDP
def _monomials(n: int, degree: int) -> list[tuple[int, ...]]:
    out = []
    for total in range(degree + 1):
        for combo in itertools.combinations_with_replacement(range(n), total):
            e = [0] * n
            for i in combo:
                e[i] += 1
            out.append(tuple(e))
    return out


def _add(a, b):
    return tuple(x + y for x, y in zip(a, b))


@dataclass
class _Block:
    multiplier: tuple[int, ...]  # indices of the hypotheses multiplied
    g: dict  # monomial -> Fraction
    basis: list  # monomials


def _blocks(claim: PolynomialClaim) -> list[_Block]:
    n = len(claim.variables)
    degree = claim.p.total_degree() if not claim.p.is_zero else 0  # the zero polynomial's degree is -oo
    half = max(1, math.ceil(degree / 2))
    out = [_Block((), {(0,) * n: Fraction(1)}, _monomials(n, half))]
    products = [((i,), g) for i, g in enumerate(claim.hypotheses)]
    if len(claim.hypotheses) <= MAX_PAIRS:
        products += [((i, j), claim.hypotheses[i] * claim.hypotheses[j]) for i, j in itertools.combinations(range(len(claim.hypotheses)), 2)]
    unknowns = len(out[0].basis) * (len(out[0].basis) + 1) // 2
    for idx, g in products:
        e = g.total_degree()
        if e > 2 * half:
            continue
        basis = _monomials(n, (2 * half - e) // 2)
        unknowns += len(basis) * (len(basis) + 1) // 2
        if len(idx) > 1 and unknowns > MAX_UNKNOWNS:
            break  # pairs only while the exact projection stays cheap (its cost grows as unknowns x equations^2)
        out.append(_Block(idx, {m: Fraction(int(c.p), int(c.q)) for m, c in zip(g.monoms(), (sympy.Rational(x) for x in g.coeffs()))}, basis))
    return out


def _variables(blocks):
    """(block, i, j) per scalar unknown, i <= j, in Clarabel's column-major upper-triangle order."""
    out = []
    for b, block in enumerate(blocks):
        for j in range(len(block.basis)):
            for i in range(j + 1):
                out.append((b, i, j))
    return out


def _equations(claim, blocks, unknowns):
    """The coefficient equations: {monomial: {unknown index: coefficient}} and the target p."""
    rows: dict = {}
    for k, (b, i, j) in enumerate(unknowns):
        block = blocks[b]
        base = _add(block.basis[i], block.basis[j])
        factor = 1 if i == j else 2
        for m, c in block.g.items():
            mono = _add(base, m)
            rows.setdefault(mono, {})[k] = rows.setdefault(mono, {}).get(k, 0) + factor * c
    target = {m: Fraction(int(sympy.Rational(c).p), int(sympy.Rational(c).q)) for m, c in zip(claim.p.monoms(), claim.p.coeffs())}
    for m in target:
        rows.setdefault(m, {})
    return rows, target


def _solve_sdp(claim, blocks, unknowns, rows, target, seconds, extra=()):
    """Clarabel on the SDP (with the linear equations ``extra`` on the unknowns too); the
    unknowns (Gram entries, then c0) as floats, or None."""
    import clarabel
    from scipy import sparse

    n_q = len(unknowns)
    c0 = n_q  # the constant's index
    monos = sorted(rows)
    zero = tuple(0 for _ in claim.variables)
    a_rows, a_cols, a_vals, b = [], [], [], []
    sqrt2 = math.sqrt(2)
    for r, mono in enumerate(monos):
        for k, c in rows[mono].items():
            _, i, j = unknowns[k]
            # the SDP unknown is svec(Q): off-diagonal entries scaled by sqrt 2
            a_rows.append(r)
            a_cols.append(k)
            a_vals.append(float(c) if i == j else float(c) / sqrt2)
        if mono == zero:
            a_rows.append(r)
            a_cols.append(c0)
            a_vals.append(1.0)
        b.append(float(target.get(mono, 0)))
    r = len(monos)
    for row, value in extra:
        for k, c in row.items():
            _, i, j = unknowns[k]
            a_rows.append(r)
            a_cols.append(k)
            a_vals.append(float(c) if i == j else float(c) / sqrt2)
        b.append(float(value))
        r += 1
    cones = [clarabel.ZeroConeT(r)]
    offset = 0
    for block in blocks:
        size = len(block.basis)
        count = size * (size + 1) // 2
        for t in range(count):
            a_rows.append(r + t)
            a_cols.append(offset + t)
            a_vals.append(-1.0)
        b += [0.0] * count
        cones.append(clarabel.PSDTriangleConeT(size))
        r += count
        offset += count
    a_rows.append(r)
    a_cols.append(c0)
    a_vals.append(-1.0)
    b.append(0.0)
    cones.append(clarabel.NonnegativeConeT(1))
    a = sparse.csc_matrix((a_vals, (a_rows, a_cols)), shape=(r + 1, n_q + 1))
    p = sparse.csc_matrix((n_q + 1, n_q + 1))
    q = np.zeros(n_q + 1)
    if claim.strict:
        q[c0] = -1.0  # the largest constant: a strict claim needs c0 > 0
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.time_limit = max(seconds, 0.1)
    settings.tol_gap_abs = settings.tol_gap_rel = 1e-10
    settings.tol_feas = 1e-10
    solver = clarabel.DefaultSolver(p, q, a, np.array(b), cones, settings)
    solution = solver.solve()
    if str(solution.status) not in ("Solved", "AlmostSolved"):
        return None
    x = np.array(solution.x)
    for k, (_, i, j) in enumerate(unknowns):
        if i != j:
            x[k] /= sqrt2
    return x


def _kernel_equations(claim, blocks, unknowns, zeros) -> list:
    """At a zero z of p where the hypotheses hold, every term of the identity vanishes, so
    ``Q_k m_k(z) = 0`` for each block whose multiplier is nonzero at z: linear equations every
    certificate satisfies.  Imposed exactly, they put the rounded Gram matrices on the face
    the touching points define (without them rounding leaves an eigenvalue of -1e-12 there)."""
    index = {(b, i, j): k for k, (b, i, j) in enumerate(unknowns)}
    out = []
    gradient = [claim.p.diff(v) for v in claim.variables]
    for z in zeros:
        # at a critical zero (grad p = 0) where the vanishing hypotheses have independent
        # gradients, sum_k sigma_k(z) grad g_k(z) = 0 forces sigma_k(z) = 0 for every block whose
        # multiplier has exactly one vanishing factor too (its gradient a positive multiple of that factor's)
        critical = all(_exact_value(d, z) == 0 for d in gradient) and _independent(claim, z)
        zero_at = {i for i, g in enumerate(claim.hypotheses) if _exact_value(g, z) == 0}
        for b, block in enumerate(blocks):
            vanishing = [i for i in block.multiplier if i in zero_at]
            if vanishing and not (critical and len(vanishing) == 1):
                continue
            # an algebraic z gives one rational equation per power of the field's generator
            values = [_components(_value(m, z)) for m in block.basis]
            for r in range(len(block.basis)):
                for power in range(max(len(v) for v in values)):
                    row = {}
                    for j, v in enumerate(values):
                        c = v[power] if power < len(v) else 0
                        if c:
                            k = index[(b, min(r, j), max(r, j))]
                            row[k] = row.get(k, 0) + c
                    if row:
                        out.append((row, Fraction(0)))
    return out


def _components(v) -> list[Fraction]:
    """A rational as [v]; a field element as its rational coefficients in 1, theta, theta^2, ..."""
    if isinstance(v, FieldElement):
        return [Fraction(int(c.p), int(c.q)) for c in v.poly.coeffs()] or [Fraction(0)]
    return [Fraction(v)]


def _independent(claim, z) -> bool:
    """Are the gradients at z of the hypotheses vanishing there linearly independent (exactly)?"""
    rows = [[_exact_value(g.diff(v), z) for v in claim.variables] for g in claim.hypotheses if _exact_value(g, z) == 0]
    if not rows:
        return True
    if any(isinstance(x, FieldElement) for r in rows for x in r):
        return False  # not decided for algebraic points: the weaker equations only
    m = sympy.Matrix([[sympy.Rational(x.numerator, x.denominator) for x in r] for r in rows])
    return m.rank() == len(rows)


def _value(monomial, point) -> Fraction:
    out = Fraction(1)
    for e, x in zip(monomial, point):
        out *= x**e
    return out


def touching_zeros(claim: PolynomialClaim, seed: int = 0, starts: int = 16, deadline: float | None = None) -> list[tuple[Fraction, ...]]:
    """Exact zeros of p where every hypothesis holds: the touching points.  Found from local
    minima of p (scipy, seeded), snapped to small denominators and checked exactly; a minimum
    that no small rational fits is refined and recognised as an algebraic point
    (coordinates then field elements, checked exactly in their number field)."""
    from scipy.optimize import minimize

    n = len(claim.variables)
    f = sympy.lambdify(claim.variables, claim.p.as_expr(), "numpy")
    grad = sympy.lambdify(claim.variables, [claim.p.as_expr().diff(v) for v in claim.variables], "numpy")
    rng = np.random.default_rng(seed)
    lows, highs = [-np.inf] * n, [np.inf] * n
    for g in claim.hypotheses:  # box bounds x - lo, hi - x are where the starts are drawn
        if g.total_degree() == 1 and len([c for c in g.coeffs()]) <= 2:
            terms = dict(zip(g.monoms(), g.coeffs()))
            linear = [(i, terms[m]) for m in terms for i in range(n) if sum(m) == 1 and m[i] == 1]
            if len(linear) == 1:
                i, a = linear[0]
                bound = -float(terms.get((0,) * n, 0)) / float(a)
                if a > 0:
                    lows[i] = max(lows[i], bound)
                else:
                    highs[i] = min(highs[i], bound)
    # a side the hypotheses leave open: a window of 4 beyond the other side, or [-2, 2]
    lows, highs = ([lo if np.isfinite(lo) else (hi - 4.0 if np.isfinite(hi) else -2.0) for lo, hi in zip(lows, highs)],
                   [hi if np.isfinite(hi) else (lo + 4.0 if np.isfinite(lo) else 2.0) for lo, hi in zip(lows, highs)])
    if any(lo > hi for lo, hi in zip(lows, highs)):
        return []
    out: list = []
    for _ in range(starts):
        if deadline is not None and time.monotonic() > deadline:
            break
        x0 = rng.uniform(lows, highs)
        res = minimize(lambda x: float(f(*x)), x0, jac=lambda x: np.asarray(grad(*x), dtype=float), method="L-BFGS-B",
                       bounds=list(zip(lows, highs)))
        if not np.isfinite(res.fun) or abs(res.fun) > 1e-8:
            continue
        for den in (1, 2, 3, 4, 6, 10, 100, 1000):
            z = tuple(Fraction(float(v)).limit_denominator(den) for v in res.x)
            if z in out:
                break
            if _exact_value(claim.p, z) == 0 and all(_exact_value(g, z) >= 0 for g in claim.hypotheses):
                out.append(z)
                break
        else:
            z = _algebraic_zero(claim, res.x)
            if z is not None and not any(_same_point(z, w) for w in out):
                out.append(z)
    return out


def _same_point(a, b) -> bool:
    """The same exact point (field elements compared by their generator and polynomial: each
    point has its own field object)."""
    def key(x):
        return (x.field.generator, tuple(x.poly.coeffs())) if isinstance(x, FieldElement) else x

    return all(key(x) == key(y) for x, y in zip(a, b))


def _algebraic_zero(claim, start) -> tuple | None:
    """A zero of p near the float point ``start`` whose coordinates are algebraic: Newton on the
    gradient at 60 digits, each coordinate recognised, then checked exactly in the number field
    they generate (p = 0 there, every hypothesis >= 0).  Its coordinates as field elements."""
    n = len(claim.variables)
    expr = claim.p.as_expr()
    grad = sympy.lambdify(claim.variables, [expr.diff(v) for v in claim.variables], "mpmath")
    hess = sympy.lambdify(claim.variables, [[expr.diff(a, b) for b in claim.variables] for a in claim.variables], "mpmath")
    with mpmath.workdps(60):
        x = mpmath.matrix([mpmath.mpf(float(v)) for v in start])
        for _ in range(60):
            try:
                step = mpmath.lu_solve(mpmath.matrix(hess(*x)), mpmath.matrix(grad(*x)))
            except ZeroDivisionError:
                return None
            x = x - step
            if mpmath.norm(step) < mpmath.mpf(10) ** -50:
                break
        else:
            return None
        coords = [recognise(x[i]) for i in range(n)]
    if any(c is None for c in coords) or not any(isinstance(c, AlgebraicNumber) for c in coords):
        return None
    try:
        field = field_of(coords)
        z = tuple(field.embed(c) for c in coords)
    except NotInField:
        return None
    if _exact_value(claim.p, z) != 0 or any(_exact_value(g, z) < 0 for g in claim.hypotheses):
        return None
    return z


def _exact_value(poly, point):
    """``poly`` at ``point`` exactly: a Fraction, or a field element at an algebraic point."""
    total = Fraction(0)
    for m, c in zip(poly.monoms(), poly.coeffs()):
        c = sympy.Rational(c)
        total += Fraction(int(c.p), int(c.q)) * _value(m, point)
    return total


def _round_and_project(x, unknowns, rows, target, denominator, extra=()):
    """The unknowns rounded to ``denominator`` and projected exactly onto the coefficient
    equations and ``extra`` ones (least change in the Euclidean norm; dependent equations
    dropped by an exact row reduction), or None when they cannot be met."""
    from flint import fmpq, fmpq_mat

    n = len(unknowns) + 1
    c0 = n - 1
    zero = tuple(0 for _ in next(iter(rows)))
    y = [Fraction(round(v * denominator), denominator) for v in x]
    eqs = []
    for mono, coeffs in rows.items():
        row = dict(coeffs)
        if mono == zero:
            row[c0] = row.get(c0, 0) + 1
        if not row:
            if target.get(mono, 0) != 0:
                return None
            continue
        eqs.append((row, target.get(mono, 0)))
    eqs += list(extra)
    used = sorted({k for row, _ in eqs for k in row})
    col = {k: i for i, k in enumerate(used)}
    zero = fmpq(0)
    a_entries, residuals = [zero] * (len(eqs) * len(used)), []
    for a, (row, t) in enumerate(eqs):
        base = a * len(used)
        for k, c in row.items():
            c = Fraction(c)
            a_entries[base + col[k]] = fmpq(c.numerator, c.denominator)
        r = sum(Fraction(c) * y[k] for k, c in row.items()) - t
        residuals.append(fmpq(r.numerator, r.denominator))
    a_mat = fmpq_mat(len(eqs), len(used), a_entries)
    rhs = fmpq_mat(len(eqs), 1, residuals)
    # the least-norm correction y -= A^T (A A^T)^-1 r, in flint's exact matrices; dependent
    # equations (A A^T singular) are first reduced to independent ones
    try:
        z = (a_mat * a_mat.transpose()).solve(rhs)
    except ZeroDivisionError:
        reduced, rank = fmpq_mat(len(eqs), len(used) + 1, [x for a in range(len(eqs)) for x in
                                                           a_entries[a * len(used):(a + 1) * len(used)] + [residuals[a]]]).rref()
        flat, width = reduced.entries(), len(used) + 1
        rows = [flat[a * width:(a + 1) * width] for a in range(rank)]
        if any(all(x == 0 for x in row[:-1]) for row in rows):
            return None  # 0 = r != 0: the equations cannot be met
        a_mat = fmpq_mat(rank, len(used), [x for row in rows for x in row[:-1]])
        rhs = fmpq_mat(rank, 1, [row[-1] for row in rows])
        try:
            z = (a_mat * a_mat.transpose()).solve(rhs)
        except ZeroDivisionError:
            return None
    correction = (a_mat.transpose() * z).entries()
    for i, k in enumerate(used):
        c = correction[i]
        if c != 0:
            y[k] -= Fraction(int(c.p), int(c.q))
    return y


def _ldl(matrix: list[list[Fraction]]):
    """``Q = L D L^T`` over Q: (d_j, column j of L) per pivot, or None when Q is not PSD."""
    n = len(matrix)
    a = [row[:] for row in matrix]
    out = []
    for j in range(n):
        d = a[j][j]
        if d < 0:
            return None
        if d == 0:
            if any(a[i][j] != 0 for i in range(j + 1, n)):
                return None
            continue
        col = [Fraction(0)] * n
        col[j] = Fraction(1)
        for i in range(j + 1, n):
            col[i] = a[i][j] / d
        for i in range(j + 1, n):
            for k in range(j + 1, n):
                a[i][k] -= col[i] * d * col[k]
        out.append((d, col))
    return out


def _certificate(claim, blocks, unknowns, y) -> dict | None:
    c0 = y[-1]
    if c0 < 0 or (claim.strict and c0 == 0):
        return None
    terms = []
    for b, block in enumerate(blocks):
        size = len(block.basis)
        q = [[Fraction(0)] * size for _ in range(size)]
        for k, (bb, i, j) in enumerate(unknowns):
            if bb == b:
                q[i][j] = q[j][i] = y[k]
        factors = _ldl(q)
        if factors is None:
            return None
        for d, col in factors:
            square = sum((sympy.Rational(c.numerator, c.denominator) * _monomial(claim.variables, block.basis[i])
                          for i, c in enumerate(col) if c), sympy.Integer(0))
            terms.append({"weight": str(d), "multiplier": list(block.multiplier), "square": sympy.sstr(square)})
    return {
        "variables": [s.name for s in claim.variables],
        "polynomial": sympy.sstr(claim.p.as_expr()),
        "hypotheses": [sympy.sstr(g.as_expr()) for g in claim.hypotheses],
        "terms": terms,
        "constant": str(c0),
        "relation": ">" if claim.strict else ">=",
        "derivation": claim.derivation,
    }


def _monomial(symbols, exponents):
    out = sympy.Integer(1)
    for s, e in zip(symbols, exponents):
        out *= s**e
    return out


# ------------------------------------------------------------------------- checking
def check_certificate(sos: dict) -> str | None:
    """Re-check an SOS certificate exactly: None when ``polynomial == constant + sum weight *
    prod hypotheses * square^2`` is an identity with every weight >= 0 (constant > 0 for a
    strict relation), else what fails.  Reads only the dict (sympy parses its polynomials)."""
    try:
        symbols = [sympy.Symbol(v, real=True) for v in sos["variables"]]
        local = {s.name: s for s in symbols}
        parse = lambda text: sympy.sympify(text, locals=local, rational=True)  # noqa: E731
        p = sympy.Poly(parse(sos["polynomial"]), *symbols, domain="QQ")
        hyps = [parse(g) for g in sos["hypotheses"]]
        c0 = Fraction(sos["constant"])
        total = sympy.Rational(c0.numerator, c0.denominator)
        for term in sos["terms"]:
            w = Fraction(term["weight"])
            if w < 0:
                return f"a negative weight {w}"
            product = sympy.Integer(1)
            for i in term["multiplier"]:
                product *= hyps[i]
            total += sympy.Rational(w.numerator, w.denominator) * product * parse(term["square"]) ** 2
    except (KeyError, IndexError, TypeError, ValueError, sympy.SympifyError, sympy.PolynomialError) as exc:
        return f"unreadable certificate ({type(exc).__name__}: {exc})"
    if c0 < 0 or (sos["relation"] == ">" and c0 == 0):
        return f"the constant {c0} is not {'> 0' if sos['relation'] == '>' else '>= 0'}"
    if p != sympy.Poly(total, *symbols, domain="QQ"):
        return "the identity does not hold"
    return None


def sos_certificate(check: Check, domain: ProofBox, seconds: float = 10.0) -> dict | None:
    """An exactly checked SOS certificate (``ProofCertificate.sos``) for ``check`` on
    ``domain``, or None: for a polynomial check (z3 proved it, say) a certificate a kernel can
    re-check with ``ring``-style arithmetic."""
    claim = polynomial_claim(check, domain)
    if isinstance(claim, str):
        return None
    return certify_polynomial(claim, seconds)


def certify_polynomial(claim: PolynomialClaim, seconds: float = 10.0) -> dict | None:
    """An exactly checked certificate for ``claim``, or None: first a plain sum of squares (no
    multiplier: fewer unknowns, fewer directions left free for rounding to spoil), then with
    the hypotheses as multipliers."""
    blocks = _blocks(claim)
    if max(len(b.basis) for b in blocks) > MAX_GRAM:
        return None
    deadline = time.monotonic() + seconds
    zeros = touching_zeros(claim, deadline=deadline) if not claim.strict else []  # a non-strict claim may touch 0: its touching points fix the face
    for chosen in ([blocks[0]], blocks) if len(blocks) > 1 else (blocks,):
        if time.monotonic() > deadline:
            return None
        cert = _certify_with(claim, chosen, zeros, deadline)
        if cert is not None:
            return cert
    return None


def _certify_with(claim, blocks, zeros, deadline) -> dict | None:
    unknowns = _variables(blocks)
    rows, target = _equations(claim, blocks, unknowns)
    kernels = [()]
    if zeros:
        kernels.insert(0, _kernel_equations(claim, blocks, unknowns, zeros))
    # the face the touching points define, imposed in the SDP too (its solution then lies on the
    # face and rounding moves it only by the solver's tolerance) or only in the projection
    # (the solver's own centre, moved onto the face exactly): each works where the other fails
    tries = [(kernels[0], kernels[0]), ((), kernels[0])] if len(kernels) > 1 else [((), ())]
    if len(kernels) > 1:
        tries.append(((), ()))
    solved: dict = {}
    for in_sdp, extra in tries:
        key = len(in_sdp)
        if key not in solved:
            solved[key] = _solve_sdp(claim, blocks, unknowns, rows, target, max(deadline - time.monotonic(), 0.1), in_sdp)
        x = solved[key]
        if x is None:
            continue
        # rows whose diagonal entry the solver left at ~0 (a monomial no certificate can use: x^2
        # where p has no x^4) are set to 0 exactly: an extra equation only narrows the search,
        # and what comes out is checked exactly all the same
        for equations in (tuple(extra), tuple(extra) + tuple(_zero_rows(x, unknowns))):
            for denominator in ROUNDINGS:
                if time.monotonic() > deadline:
                    return None
                y = _round_and_project(x, unknowns, rows, target, denominator, equations)
                if y is None:
                    continue
                cert = _certificate(claim, blocks, unknowns, y)
                if cert is not None and check_certificate(cert) is None:
                    return cert
    return None


#: a Gram diagonal entry below this (relative to the largest) is taken for a zero row
ZERO_DIAGONAL = 1e-7


def _zero_rows(x, unknowns) -> list:
    """Equations setting to 0 every row of a Gram matrix whose diagonal entry is numerically 0."""
    largest = max((abs(x[k]) for k, (_, i, j) in enumerate(unknowns) if i == j), default=0.0) or 1.0
    small = {(b, i) for k, (b, i, j) in enumerate(unknowns) if i == j and x[k] < ZERO_DIAGONAL * largest}
    return [({k: 1}, Fraction(0)) for k, (b, i, j) in enumerate(unknowns) if (b, i) in small or (b, j) in small]


# ------------------------------------------------------------------------- the strategy
class SumOfSquares(Strategy):
    """A proof strategy (the interface of ``verifier.prove``'s strategy list): a polynomial
    claim proved by an exactly checked sum-of-squares identity."""

    name = "sum-of-squares"
    summary = "an SDP (Clarabel) finds p = c0 + \u03a3 c_k \u00b7 \u03a0 g_i \u00b7 q_k\u00b2, rounded to rationals and checked exactly"
    seconds: float | None = 20.0
    share = 0.5

    def applies(self, check: Check, domain: ProofBox) -> str | None:
        # the exported graph first (milliseconds): sympy's evaluation of a claim with exp and max
        # can take seconds (11.7 s on attention-classics' rank-collapse-step) to say the same
        try:
            ops = {node[0] for node in export_formula(check, dict(domain.dims)).nodes}
        except Exception:  # noqa: BLE001 -- not exportable, or the claim raised: the symbolic evaluation below decides and says why
            ops = set()
        functions = sorted(ops & set(FUNCTIONS))  # abs, max and min are left to sympy: |x^2| is x^2 there
        if functions:
            return f"the margin is not a rational function ({', '.join(functions)})"
        claim = polynomial_claim(check, domain)
        if isinstance(claim, str):
            return claim
        if max(len(b.basis) for b in _blocks(claim)) > MAX_GRAM:
            return f"the Gram matrix would exceed {MAX_GRAM} monomials"
        return None

    def attempt(self, check: Check, domain: ProofBox, budget) -> Proof | None:
        start = time.monotonic()
        claim = polynomial_claim(check, domain)
        if isinstance(claim, str):
            return None
        sos = certify_polynomial(claim, budget.seconds)
        if sos is None:
            return None
        certificate = ProofCertificate(method=self.name, dims=dict(domain.dims), domain=domain.to_dict(), sos=sos)
        return Proof(
            CheckResult(verdict=Verdict.PROVED, method="sum-of-squares", seconds=time.monotonic() - start, domain=domain.describe(check),
                        stop_reason="an exact sum-of-squares identity",
                        message=f"proved by a sum of squares: p = c0 + \u03a3 c_k \u00b7 \u03a0 g_i \u00b7 q_k\u00b2 with {len(sos['terms'])} "
                                "terms, rational coefficients, checked exactly", **base_fields(check, budget.dps)),
            ProofDetails(method="sum-of-squares", domain=domain.to_dict(), time_limit=budget.seconds, certificate=certificate),
        )

    def undecided(self, check: Check, domain: ProofBox) -> str:
        return "no sum-of-squares certificate survived exact rounding"


__all__ = ["PolynomialClaim", "SumOfSquares", "certify_polynomial", "check_certificate", "polynomial_claim", "touching_zeros", "sos_certificate"]
