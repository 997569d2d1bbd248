"""Claim families on the constrained kinds, generated from a seed.

Each family draws a dimension, an extremal point and an offset from ``seed`` and states a
claim that fails *only* at that point of the set's boundary (a vertex, a face centroid, a
one-hot row, a tie, a diagonal direction, a signed permutation) or, with an offset, only
in a small neighbourhood of it.  The verdict is left to the engine.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from verifier import Claim, Derived, Dim, DoublyStochastic, Hypothesis, Ordered, Orthogonal, Part, Scalar, Simplex, Sphere, Stochastic, UnitVector, Vector
from verifier.kinds.sphere import sphere_rational_point


def exact_point(cx):
    """A counterexample's stored values as exact rationals (batch axis of one)."""
    from flint import fmpq

    from verifier.evidence import parse_exact

    def one(text):
        f = parse_exact(text)
        return fmpq(f.numerator, f.denominator)

    return {k: np.vectorize(one, otypes=[object])(np.asarray(v, dtype=object))[None] for k, v in cx.vars.items()}


def assert_refuted_on_the_set(check, seed, **config):
    """The search refutes the check from ``seed`` (default budget, ``config`` changes) at a
    point exactly on its sets, which an independent certifier confirms."""
    from verifier.certify import Certifier
    from verifier.contexts import ExactContext
    from verifier.domains import membership_errors
    from verifier.engine import SearchConfig, run_check

    result = run_check(check, SearchConfig(seed=seed, **config))
    assert result.verdict.value == "refuted", (check.claim.id, seed, result.stop_reason, result.message)
    cx = result.counterexample
    point = exact_point(cx)
    assert membership_errors(check, point, cx.dims, ExactContext()) is None
    assert Certifier(50).certify(check, point, cx.dims).violated
    return result


def _rng(seed, salt):
    return np.random.default_rng([seed, salt])


def _claim(cid, variables, dims, lhs, rhs, relation, statement):
    return Claim(cid, statement, statement, variables=variables, dims=dims,
                 parts=(Part("main", lhs, rhs, relation=relation, statement=statement),))


def simplex_vertex(seed):
    """sum w_i p_i^2 < w_j, w_j the unique largest weight: fails only at the vertex e_j."""
    rng = _rng(seed, 1)
    n = int(rng.integers(3, 7))
    w = [int(x) for x in rng.integers(1, 6, n)]
    j = int(rng.integers(n))
    w[j] = max(w) + 1
    off = int(rng.integers(-3, 4))
    return _claim(f"vertex-{seed}", (Simplex("p", "n"),), (Dim("n", n, n),),
                  lambda ctx, v: sum(w[i] * v.p[:, i] ** 2 for i in range(n)) + off,
                  lambda ctx, v: ctx.const(w[j] + off), "<", f"sum w p^2 < {w[j]} (vertex {j})")


def simplex_face(seed):
    """Mass outside S plus the distance to S's centroid is > 0: fails only at that face centroid."""
    rng = _rng(seed, 2)
    n = int(rng.integers(4, 7))
    s = int(rng.integers(2, n))
    face = sorted(int(i) for i in rng.choice(n, s, replace=False))
    out = [i for i in range(n) if i not in face]
    return _claim(f"face-{seed}", (Simplex("p", "n"),), (Dim("n", n, n),),
                  lambda ctx, v: sum(v.p[:, i] for i in out) + sum((v.p[:, i] - ctx.const(Fraction(1, s))) ** 2 for i in face),
                  lambda ctx, v: ctx.const(0), ">", f"p off the centroid of face {face}")


def stochastic_one_hot_row(seed):
    """P[r, j] < 1: fails only where row r is one-hot at token j."""
    rng = _rng(seed, 3)
    n, m = int(rng.integers(2, 5)), int(rng.integers(2, 6))
    r, j = int(rng.integers(n)), int(rng.integers(m))
    return _claim(f"one-hot-{seed}", (Stochastic("P", "n", "m"),), (Dim("n", n, n), Dim("m", m, m)),
                  lambda ctx, v: v.P[:, r, j], lambda ctx, v: ctx.const(1), "<", f"P[{r},{j}] < 1")


def stochastic_column_norm(seed):
    """Column-sum norm ||P X||_1 <= ||X||_1 (false: P's columns need not sum to 1)."""
    rng = _rng(seed, 4)
    n = int(rng.integers(2, 5))

    def col_norm(ctx, x):
        return ctx.max(ctx.sum(ctx.abs(x), axis=1), axis=1)

    return _claim(f"colnorm-{seed}", (Stochastic("P", "n", "n"), Vector("x", "n")), (Dim("n", n, n),),
                  lambda ctx, v: col_norm(ctx, v.P @ v.x[:, :, None]), lambda ctx, v: col_norm(ctx, v.x[:, :, None]),
                  "<=", "||P x||_1 <= ||x||_1")


def unit_diagonal(seed):
    """(s . u)^2 <= n - delta under ||u||_2 = 1: fails only near the diagonal direction s."""
    rng = _rng(seed, 5)
    n = int(rng.integers(2, 6))
    s = [int(x) for x in rng.choice([-1, 1], n)]
    delta = Fraction(int(rng.integers(1, 10)), 1000)
    return _claim(f"diagonal-{seed}", (UnitVector("u", "n"),), (Dim("n", n, n),),
                  lambda ctx, v: sum(s[i] * v.u[:, i] for i in range(n)) ** 2, lambda ctx, v: ctx.const(n - delta),
                  "<=", f"(s.u)^2 <= {n} - {delta}")


def unit_inf_vertex(seed):
    """s . u < n under ||u||_inf = 1: fails only at u = s (a diagonal vertex of the cube)."""
    rng = _rng(seed, 6)
    n = int(rng.integers(2, 6))
    s = [int(x) for x in rng.choice([-1, 1], n)]
    return _claim(f"inf-vertex-{seed}", (UnitVector("u", "n", norm="inf"),), (Dim("n", n, n),),
                  lambda ctx, v: sum(s[i] * v.u[:, i] for i in range(n)), lambda ctx, v: ctx.const(n), "<", "s.u < n")


def unit_l1_axis(seed):
    """sum w_i u_i < w_j under ||u||_1 = 1, w_j the unique largest |weight|: fails only at sign(w_j) e_j."""
    rng = _rng(seed, 7)
    n = int(rng.integers(2, 6))
    w = [int(x) for x in rng.integers(-4, 5, n)]
    j = int(rng.integers(n))
    w[j] = (max(abs(x) for x in w) + 1) * int(rng.choice([-1, 1]))
    return _claim(f"l1-axis-{seed}", (UnitVector("u", "n", norm=1),), (Dim("n", n, n),),
                  lambda ctx, v: sum(w[i] * v.u[:, i] for i in range(n)), lambda ctx, v: ctx.const(abs(w[j])), "<", "w.u < max|w|")


def ordered_tie(seed):
    """x_{k+1} - x_k + |x_k - c| > 0: fails only at the tie x_k = x_{k+1} = c (c = a/7 from the seed)."""
    rng = _rng(seed, 8)
    n = int(rng.integers(2, 6))
    k = int(rng.integers(n - 1))
    c = Fraction(int(rng.integers(-6, 7)), 7)
    off = int(rng.integers(1, 4))  # keeps lhs and rhs away from 0, where a relative margin is blind
    return _claim(f"tie-{seed}", (Ordered("x", "n", lo=-1, hi=1),), (Dim("n", n, n),),
                  lambda ctx, v: v.x[:, k + 1] - v.x[:, k] + ctx.abs(v.x[:, k] - ctx.const(c)) + off, lambda ctx, v: ctx.const(off),
                  ">", f"x[{k + 1}] - x[{k}] + |x[{k}] - {c}| + {off} > {off}")


def orthogonal_signed_permutation(seed):
    """trace(S^T Q) < n: fails only at Q = S, a signed permutation drawn from the seed."""
    rng = _rng(seed, 9)
    n = int(rng.integers(2, 5))
    perm = [int(x) for x in rng.permutation(n)]
    sign = [int(x) for x in rng.choice([-1, 1], n)]
    return _claim(f"signed-perm-{seed}", (Orthogonal("Q", "n"),), (Dim("n", n, n),),
                  lambda ctx, v: sum(sign[i] * v.Q[:, i, perm[i]] for i in range(n)), lambda ctx, v: ctx.const(n), "<", "trace(S^T Q) < n")


def orthogonal_hadamard(seed):
    """sum |Q_ij| < 8 at n = 4: fails only at Hadamard-like matrices (every |entry| = 1/2)."""
    rng = _rng(seed, 10)
    off = int(rng.integers(0, 5))
    return _claim(f"hadamard-{seed}", (Orthogonal("Q", "n"),), (Dim("n", 4, 4),),
                  lambda ctx, v: ctx.sum_all(ctx.abs(v.Q)) + off, lambda ctx, v: ctx.const(8 + off), "<", "sum |Q| < 8")


def _sevenths_point(rng, total, k):
    """k positive multiples of 1/7 summing to ``total``, at least one with denominator 7."""
    while True:
        cuts = sorted(int(x) for x in rng.choice(np.arange(1, 7 * total), k - 1, replace=False))
        parts = [b - a for a, b in zip([0] + cuts, cuts + [7 * total])]
        point = [Fraction(p, 7) for p in parts]
        if any(x.denominator == 7 for x in point):
            return point


def simplex_sevenths(seed):
    """sum p_i^2 / w_i > 1 (Cauchy-Schwarz, equality only at p = w, w in sevenths)."""
    rng = _rng(seed, 11)
    n = int(rng.integers(2, 5))
    w = _sevenths_point(rng, 1, n)
    return _claim(f"sevenths-{seed}", (Simplex("p", "n"),), (Dim("n", n, n),),
                  lambda ctx, v: sum(v.p[:, i] ** 2 / ctx.const(w[i]) for i in range(n)), lambda ctx, v: ctx.const(1), ">",
                  f"sum p^2/w > 1, w = {[str(x) for x in w]}")


def derived_sevenths(seed):
    """Under a + b + c = 3 (c derived): a^2/p + b^2/q + c^2/r > 3, equality only at (p, q, r) in sevenths."""
    rng = _rng(seed, 12)
    p, qq, r = _sevenths_point(rng, 3, 3)
    return _claim(f"derived-sevenths-{seed}", (Scalar("a", lo=0, hi=3), Scalar("b", lo=0, hi=3),
                                                Derived("c", lambda ctx, v: 3 - v.a - v.b, lo=0, text="3 - a - b")), (),
                  lambda ctx, v: v.a ** 2 / ctx.const(p) + v.b ** 2 / ctx.const(qq) + v.c ** 2 / ctx.const(r),
                  lambda ctx, v: ctx.const(3), ">", f"weighted Cauchy-Schwarz at {p}, {qq}, {r}")


def thirds_simplex(_seed=0):
    """ab + bc + ca < 1/3 on the simplex: equality only at a = b = c = 1/3."""
    return _claim("thirds-simplex", (Simplex("p", "n"),), (Dim("n", 3, 3),),
                  lambda ctx, v: v.p[:, 0] * v.p[:, 1] + v.p[:, 1] * v.p[:, 2] + v.p[:, 2] * v.p[:, 0],
                  lambda ctx, v: ctx.const(Fraction(1, 3)), "<", "ab + bc + ca < 1/3")


def thirds_derived(_seed=0):
    """The same under a + b + c = 1 with c = 1 - a - b derived: a, b free scalars."""
    return _claim("thirds-derived", (Scalar("a", lo=0, hi=1), Scalar("b", lo=0, hi=1),
                                     Derived("c", lambda ctx, v: 1 - v.a - v.b, lo=0, text="1 - a - b")), (),
                  lambda ctx, v: v.a * v.b + v.b * v.c + v.c * v.a, lambda ctx, v: ctx.const(Fraction(1, 3)), "<", "ab + bc + ca < 1/3")


def simplex_interior(seed):
    """||p - c||^2 >= r^2 with c a random interior point: fails only in a small ball around c."""
    rng = _rng(seed, 13)
    n = int(rng.integers(3, 6))
    c = [Fraction(x).limit_denominator(10**6) for x in rng.dirichlet(np.ones(n) * 3)]
    c[-1] = 1 - sum(c[:-1])
    r2 = Fraction(int(rng.integers(1, 10)), 10**6)
    return _claim(f"simplex-interior-{seed}", (Simplex("p", "n"),), (Dim("n", n, n),),
                  lambda ctx, v: sum((v.p[:, i] - ctx.const(c[i])) ** 2 for i in range(n)) + 1, lambda ctx, v: ctx.const(r2 + 1),
                  ">=", "||p - c||^2 >= r^2")


def sphere_interior(seed, sizes=(3, 6)):
    """u . c <= 1 - delta for a random unit direction c: fails only in a small cap around c."""
    rng = _rng(seed, 14)
    n = int(rng.integers(*sizes))
    g = rng.standard_normal(n)
    c = [Fraction(x).limit_denominator(10**6) for x in g / np.linalg.norm(g)]
    delta = Fraction(int(rng.integers(1, 10)), 10**5)
    return _claim(f"sphere-interior-{seed}", (UnitVector("u", "n"),), (Dim("n", n, n),),
                  lambda ctx, v: sum(v.u[:, i] * ctx.const(c[i]) for i in range(n)), lambda ctx, v: ctx.const(1 - delta),
                  "<=", "u . c <= 1 - delta")


def irrational_derived(seed, holds=False):
    """w . (a, b, c) <= t with c = sqrt(k - a^2 - b^2) derived: t below the maximum |w| sqrt(k),
    so false (``holds``: above it, so true), but c is irrational at almost every rational
    (a, b) and no point can be certified."""
    rng = _rng(seed, 15)
    k = int(rng.choice([2, 3, 5, 6, 7]))
    w = [int(x) for x in rng.integers(1, 6, 3)]
    t = Fraction(int(np.floor(np.sqrt(k * sum(x * x for x in w)) * (110 if holds else 90))), 100)
    return Claim(f"irrational-derived-{seed}", "w . (a, b, c) <= t", f"w . (a, b, c) <= {t} on a^2 + b^2 + c^2 = {k}",
                 variables=(Scalar("a", lo=0, hi=k), Scalar("b", lo=0, hi=k),
                            Derived("c", lambda ctx, v: ctx.sqrt(k - v.a * v.a - v.b * v.b), lo=0, text=f"sqrt({k} - a^2 - b^2)")),
                 dims=(), hypotheses=(Hypothesis(f"a^2 + b^2 <= {k}", lambda ctx, v: k - v.a * v.a - v.b * v.b),),
                 parts=(Part("main", lambda ctx, v: w[0] * v.a + w[1] * v.b + w[2] * v.c, lambda ctx, v: ctx.const(t)),))


REFUTED_FAMILIES = {
    "simplex-interior": simplex_interior,
    "sphere-interior": sphere_interior,
    "simplex-vertex": simplex_vertex,
    "simplex-face": simplex_face,
    "stochastic-one-hot-row": stochastic_one_hot_row,
    "stochastic-column-norm": stochastic_column_norm,
    "unit-diagonal": unit_diagonal,
    "unit-inf-vertex": unit_inf_vertex,
    "unit-l1-axis": unit_l1_axis,
    "ordered-tie": ordered_tie,
    "orthogonal-signed-permutation": orthogonal_signed_permutation,
    "orthogonal-hadamard": orthogonal_hadamard,
    "simplex-sevenths": simplex_sevenths,
    "derived-sevenths": derived_sevenths,
    "thirds-simplex": thirds_simplex,
    "thirds-derived": thirds_derived,
}


# ------------------------------------------------------------------------ true claims
def true_simplex(seed):
    n = int(_rng(seed, 21).integers(2, 6))
    return _claim(f"true-simplex-{seed}", (Simplex("p", "n"),), (Dim("n", n, n),),
                  lambda ctx, v: ctx.sum_all(v.p * v.p), lambda ctx, v: ctx.const(Fraction(1, n)), ">=", "sum p^2 >= 1/n")


def true_stochastic(seed):
    """Dong et al. 2021: a row-stochastic P has ||P||_inf = 1, so ||P X||_inf <= ||X||_inf (max row l1 norm)."""
    rng = _rng(seed, 22)
    n, d = int(rng.integers(2, 5)), int(rng.integers(1, 4))

    def row_norm(ctx, x):
        return ctx.max(ctx.sum(ctx.abs(x), axis=2), axis=1)

    return _claim(f"true-stochastic-{seed}", (Stochastic("P", "n", "n"), Variable_matrix("X")), (Dim("n", n, n), Dim("d", d, d)),
                  lambda ctx, v: row_norm(ctx, v.P @ v.X), lambda ctx, v: row_norm(ctx, v.X), "<=", "||P X||_inf <= ||X||_inf")


def Variable_matrix(name):
    from verifier import Matrix

    return Matrix(name, "n", "d")


def true_unit(seed):
    n = int(_rng(seed, 23).integers(2, 6))
    return _claim(f"true-unit-{seed}", (UnitVector("u", "n"),), (Dim("n", n, n),),
                  lambda ctx, v: ctx.sum_all(ctx.abs(v.u)) ** 2, lambda ctx, v: ctx.const(n), "<=", "||u||_1^2 <= n")


def true_unit_inf(seed):
    n = int(_rng(seed, 24).integers(2, 6))
    return _claim(f"true-unit-inf-{seed}", (UnitVector("u", "n", norm="inf"),), (Dim("n", n, n),),
                  lambda ctx, v: ctx.sum_all(ctx.abs(v.u)), lambda ctx, v: ctx.const(1), ">=", "||u||_1 >= 1")


def true_unit_l1(seed):
    n = int(_rng(seed, 25).integers(2, 6))
    return _claim(f"true-unit-l1-{seed}", (UnitVector("u", "n", norm=1),), (Dim("n", n, n),),
                  lambda ctx, v: ctx.max_all(ctx.abs(v.u)), lambda ctx, v: ctx.const(Fraction(1, n)), ">=", "||u||_inf >= 1/n")


def true_ordered(seed):
    n = int(_rng(seed, 26).integers(2, 6))
    return _claim(f"true-ordered-{seed}", (Ordered("x", "n", lo=-2, hi=2),), (Dim("n", n, n),),
                  lambda ctx, v: v.x[:, 0] * n, lambda ctx, v: ctx.sum_all(v.x), "<=", "n x_1 <= sum x")


def true_orthogonal(seed):
    n = int(_rng(seed, 27).integers(2, 5))
    return _claim(f"true-orthogonal-{seed}", (Orthogonal("Q", "n"), Vector("x", "n")), (Dim("n", n, n),),
                  lambda ctx, v: ctx.sum_all((v.Q @ v.x[:, :, None]) ** 2), lambda ctx, v: ctx.sum_all(v.x * v.x), "==", "||Q x|| = ||x||")


def true_derived(seed):
    return _claim(f"true-derived-{seed}", (Scalar("a", lo=0, hi=3), Scalar("b", lo=0, hi=3),
                                           Derived("c", lambda ctx, v: 3 - v.a - v.b, lo=0, text="3 - a - b")), (),
                  lambda ctx, v: v.a * v.b * v.c, lambda ctx, v: ctx.const(1), "<=", "abc <= 1 when a + b + c = 3")


TRUE_FAMILIES = {
    "simplex": true_simplex,
    "stochastic": true_stochastic,
    "unit-vector": true_unit,
    "unit-vector-inf": true_unit_inf,
    "unit-vector-1": true_unit_l1,
    "ordered": true_ordered,
    "orthogonal": true_orthogonal,
    "derived": true_derived,
}


# ------------------------------------------- a simplex of any total, a sphere of any radius
TOTALS = (2, 3, 5, 10, Fraction(3, 2), Fraction(5, 2), Fraction(7, 3), Fraction(4, 3))
RADII_SQUARED = (2, 3, 5, 6, 11, Fraction(3, 2), Fraction(5, 4), Fraction(1, 2), Fraction(9, 4))


def _total(rng):
    return Fraction(TOTALS[int(rng.integers(len(TOTALS)))])


def _radius_squared(rng, n):
    """A radius squared from the list whose sphere has rational points in n dimensions."""
    while True:
        r2 = Fraction(RADII_SQUARED[int(rng.integers(len(RADII_SQUARED)))])
        if sphere_rational_point(n, r2) is not None:
            return r2


def scaled_simplex_vertex(seed):
    """sum w_i p_i^2 < w_j T^2 on the simplex of total T: fails only at the vertex T e_j."""
    rng = _rng(seed, 31)
    n, total = int(rng.integers(3, 7)), _total(rng)
    w = [int(x) for x in rng.integers(1, 6, n)]
    j = int(rng.integers(n))
    w[j] = max(w) + 1
    return _claim(f"scaled-vertex-{seed}", (Simplex("p", "n", total),), (Dim("n", n, n),),
                  lambda ctx, v: sum(w[i] * v.p[:, i] ** 2 for i in range(n)), lambda ctx, v: ctx.const(w[j] * total * total),
                  "<", f"sum w p^2 < {w[j]} ({total})^2 on the simplex of total {total}")


def rational_simplex_point(rng, n, total, denominator):
    """n positive multiples of 1/denominator (times total's denominator) summing to total."""
    den = denominator * total.denominator
    units = int(total * den)
    cuts = sorted(int(x) for x in rng.choice(np.arange(1, units), n - 1, replace=False))
    return [Fraction(b - a, den) for a, b in zip([0] + cuts, cuts + [units])]


def scaled_simplex_point(seed):
    """||p - c||^2 > 0 on the simplex of total T, c a rational point inside (denominators <= 12): fails only at c."""
    rng = _rng(seed, 32)
    n, total = int(rng.integers(3, 6)), _total(rng)
    c = rational_simplex_point(rng, n, total, int(rng.choice([5, 6, 7, 8, 9, 11, 12])))
    return _claim(f"scaled-point-{seed}", (Simplex("p", "n", total),), (Dim("n", n, n),),
                  lambda ctx, v: sum((v.p[:, i] - ctx.const(c[i])) ** 2 for i in range(n)) + 1, lambda ctx, v: ctx.const(1),
                  ">", f"p != {[str(x) for x in c]}")


def rational_sphere_point(rng, n, r2, max_denominator):
    """A rational point of |x|^2 = r2 (common denominator <= max_denominator) other than the
    signed permutations of the one the kind knows: the line from one of those through a point
    of small rational coordinates meets the sphere again there."""
    known = sphere_rational_point(n, r2)
    while True:
        pole = [known[i] * int(s) for i, s in zip(rng.permutation(n), rng.choice([-1, 1], n))]
        t = [Fraction(int(rng.integers(-3, 4)), int(rng.integers(1, 5))) for _ in range(n)]
        t[int(np.argmax([abs(x) for x in pole]))] = Fraction(0)
        d = [a - b for a, b in zip(t, pole)]
        lam = 2 * (r2 - sum(a * b for a, b in zip(pole, t))) / sum(x * x for x in d)
        c = [a + lam * b for a, b in zip(pole, d)]
        if max(x.denominator for x in c) <= max_denominator and sorted(map(abs, c)) != sorted(known):
            return c


def sphere_point(seed):
    """c . x < r^2 on the sphere |x|^2 = r^2 (Cauchy-Schwarz): fails only at x = c, a rational
    point of the sphere with common denominator <= 30."""
    rng = _rng(seed, 33)
    n = int(rng.integers(2, 6))
    r2 = _radius_squared(rng, n)
    c = rational_sphere_point(rng, n, r2, 30)
    return _claim(f"sphere-point-{seed}", (Sphere("x", "n", r2),), (Dim("n", n, n),),
                  lambda ctx, v: sum(ctx.const(c[i]) * v.x[:, i] for i in range(n)), lambda ctx, v: ctx.const(r2),
                  "<", f"c . x < {r2}, c = {[str(x) for x in c]}")


def sphere_cap(seed):
    """w . x <= (1 - 10^-4) |w| r on the sphere of radius r: fails only in a small cap around w's direction."""
    rng = _rng(seed, 34)
    n = int(rng.integers(2, 6))
    r2 = _radius_squared(rng, n)
    w = [Fraction(x).limit_denominator(100) for x in rng.standard_normal(n)]
    bound = Fraction(float(np.sqrt(float(sum(x * x for x in w) * r2))) * (1 - 1e-4)).limit_denominator(10**6)
    return _claim(f"sphere-cap-{seed}", (Sphere("x", "n", r2),), (Dim("n", n, n),),
                  lambda ctx, v: sum(ctx.const(w[i]) * v.x[:, i] for i in range(n)), lambda ctx, v: ctx.const(bound),
                  "<=", f"w . x <= {bound} on |x|^2 = {r2}")


SCALED_FAMILIES = {
    "scaled-simplex-vertex": scaled_simplex_vertex,
    "scaled-simplex-point": scaled_simplex_point,
    "sphere-point": sphere_point,
    "sphere-cap": sphere_cap,
}


def true_scaled_simplex(seed):
    rng = _rng(seed, 35)
    n, total = int(rng.integers(2, 6)), _total(rng)
    return _claim(f"true-scaled-simplex-{seed}", (Simplex("p", "n", total),), (Dim("n", n, n),),
                  lambda ctx, v: ctx.sum_all(v.p * v.p), lambda ctx, v: ctx.const(total * total / n), ">=", "sum p^2 >= T^2/n")


def true_sphere(seed):
    """c . x <= r^2 (Cauchy-Schwarz, equal at x = c) and |x|_1^2 <= n r^2."""
    rng = _rng(seed, 36)
    n = int(rng.integers(2, 6))
    r2 = _radius_squared(rng, n)
    c = rational_sphere_point(rng, n, r2, 30)
    return _claim(f"true-sphere-{seed}", (Sphere("x", "n", r2),), (Dim("n", n, n),),
                  lambda ctx, v: sum(ctx.const(c[i]) * v.x[:, i] for i in range(n)) + ctx.sum_all(ctx.abs(v.x)) ** 2,
                  lambda ctx, v: ctx.const(r2 + n * r2), "<=", "c . x + |x|_1^2 <= r^2 + n r^2")


SCALED_TRUE_FAMILIES = {"scaled-simplex": true_scaled_simplex, "sphere": true_sphere}


# ---------------------------------- rational points of larger denominators (issue 27, mechanism 5)
def simplex_face_point(seed):
    """sum_face p_i^2 / c_i + 2 (mass off the face) > 1 on the simplex (Cauchy-Schwarz: with
    m the mass off the face, at least (1 - m)^2 + 2m = 1 + m^2): fails only at p = c, a point
    of the face whose entries have a common denominator between 101 and 400 (beyond rounding
    one coordinate at a time to denominators <= 100)."""
    rng = _rng(seed, 41)
    n = int(rng.integers(4, 7))
    face = sorted(int(i) for i in rng.choice(n, int(rng.integers(2, n)), replace=False))
    while True:
        den = int(rng.integers(101, 401))
        cuts = sorted(int(x) for x in rng.choice(np.arange(1, den), len(face) - 1, replace=False))
        c = [Fraction(b - a, den) for a, b in zip([0] + cuts, cuts + [den])]
        if max(x.denominator for x in c) > 100:
            break
    out = [i for i in range(n) if i not in face]
    return _claim(f"face-point-{seed}", (Simplex("p", "n"),), (Dim("n", n, n),),
                  lambda ctx, v: 2 * sum((v.p[:, i] for i in out), ctx.const(0)) + sum(v.p[:, i] ** 2 / ctx.const(x) for i, x in zip(face, c)),
                  lambda ctx, v: ctx.const(1), ">", f"sum p_i^2 / c_i + 2 (mass off {face}) > 1, c = {[str(x) for x in c]}")


def sphere_far_point(seed):
    """c . x < r^2 on |x|^2 = r^2: fails only at c, a rational point of the sphere with common
    denominator between 101 and 2000."""
    rng = _rng(seed, 42)
    n = int(rng.integers(2, 6))
    r2 = _radius_squared(rng, n)
    while True:
        c = rational_sphere_point(rng, n, r2, 2000)
        if max(x.denominator for x in c) > 100:
            break
    return _claim(f"sphere-far-point-{seed}", (Sphere("x", "n", r2),), (Dim("n", n, n),),
                  lambda ctx, v: sum(ctx.const(c[i]) * v.x[:, i] for i in range(n)), lambda ctx, v: ctx.const(r2),
                  "<", f"c . x < {r2}, c = {[str(x) for x in c]}")


LARGE_DENOMINATOR_FAMILIES = {"simplex-face-point": simplex_face_point, "sphere-far-point": sphere_far_point}


# ------------------------------------ patterns the sets are known for (issue 27, mechanism 6)
def orthogonal_householder(seed):
    """tr(H^T Q) < n on the orthogonal group: fails only at Q = H = I - 2 s s^T / |s|^2, the
    reflection in a small integer direction s from the seed (I - (2/3) s s^T for a sign vector)."""
    rng = _rng(seed, 51)
    n = int(rng.integers(3, 5))
    while True:
        s = [int(x) for x in rng.integers(-2, 3, n)]
        if sum(1 for x in s if x) >= 2:
            break
    norm = sum(x * x for x in s)
    h = [[int(i == j) - Fraction(2 * s[i] * s[j], norm) for j in range(n)] for i in range(n)]
    return _claim(f"householder-{seed}", (Orthogonal("Q", "n"),), (Dim("n", n, n),),
                  lambda ctx, v: sum(ctx.const(h[i][j]) * v.Q[:, i, j] for i in range(n) for j in range(n)),
                  lambda ctx, v: ctx.const(n), "<", f"tr(H^T Q) < {n}, H the reflection in {s}")


def _block_doubly_stochastic(rng, n):
    """A doubly stochastic matrix with uniform blocks (rows and columns permuted), not a permutation."""
    while True:
        cuts = sorted(int(i) for i in np.nonzero(rng.random(n - 1) < 0.4)[0] + 1)
        sizes = [b - a for a, b in zip([0] + cuts, cuts + [n])]
        if max(sizes) >= 2:
            break
    rows, cols = rng.permutation(n), rng.permutation(n)
    b = [[Fraction(0)] * n for _ in range(n)]
    start = 0
    for size in sizes:
        for i in range(start, start + size):
            for j in range(start, start + size):
                b[int(rows[i])][int(cols[j])] = Fraction(1, size)
        start += size
    return b


def doubly_stochastic_block(seed):
    """||P - B||_F^2 + 1 > 1 over doubly stochastic P: fails only at B, block-diagonal with
    uniform blocks (rows and columns permuted) drawn from the seed."""
    rng = _rng(seed, 52)
    n = int(rng.integers(3, 6))
    b = _block_doubly_stochastic(rng, n)
    return _claim(f"ds-block-{seed}", (DoublyStochastic("P", "n"),), (Dim("n", n, n),),
                  lambda ctx, v: sum((v.P[:, i, j] - ctx.const(b[i][j])) ** 2 for i in range(n) for j in range(n)) + 1,
                  lambda ctx, v: ctx.const(1), ">", f"P != {[[str(x) for x in r] for r in b]}")


def doubly_stochastic_not_permutation(seed):
    """||P||_F^2 <= n - delta for a doubly stochastic P that is not a permutation matrix (strict
    hypothesis ||P||_F^2 < n): false near permutations (t P_1 + (1 - t) P_2 with t close to 1),
    and false *in floats* at the permutations themselves, which the strict hypothesis rejects
    exactly -- the first points every batch offers for re-checking."""
    rng = _rng(seed, 53)
    n = int(rng.integers(3, 6))
    delta = Fraction(1, int(rng.integers(2, 6)))
    return Claim(f"ds-not-permutation-{seed}", "not a permutation", f"||P||_F^2 <= {n} - {delta}",
                 variables=(DoublyStochastic("P", "n"),), dims=(Dim("n", n, n),),
                 hypotheses=(Hypothesis("P is not a permutation matrix: ||P||_F^2 < n", lambda ctx, v: n - ctx.sum_all(v.P * v.P), strict=True),),
                 parts=(Part("main", lambda ctx, v: ctx.sum_all(v.P * v.P), lambda ctx, v: ctx.const(n - delta)),))


KNOWN_PATTERN_FAMILIES = {
    "orthogonal-householder": orthogonal_householder,
    "doubly-stochastic-block": doubly_stochastic_block,
    "doubly-stochastic-not-permutation": doubly_stochastic_not_permutation,
}


def by_hand(claim):
    """The same claim on a doubly stochastic P stated as it had to be before the kind: a
    row-stochastic P with the column sums as an equality hypothesis."""
    import dataclasses

    var = claim.variables[0]
    column = Hypothesis("each column of P sums to exactly 1", lambda ctx, v: -ctx.max_all(ctx.abs(ctx.sum(v.P, axis=1) - ctx.const(1))))
    return dataclasses.replace(claim, id=claim.id + "-by-hand", variables=(Stochastic("P", var.shape[0], var.shape[1]),),
                               hypotheses=(column,) + claim.hypotheses)


# ----------------------------------------- many unit vectors, a max over pairs (mechanism 7)
def _max_pairwise_cosine(ctx, vectors):
    cosines = [ctx.sum(a * b, axis=1) for i, a in enumerate(vectors) for b in vectors[i + 1:]]
    out = cosines[0]
    for c in cosines[1:]:
        out = ctx.maximum(out, c)
    return out


def unit_vector_code(seed):
    """Any k unit vectors in R^d have two with cosine >= c: false, with c just above what a
    known configuration reaches -- 9 to 12 vectors in R^3 (the icosahedron: 1/sqrt 5 = 0.447,
    c in 0.46..0.50), 13 to 24 in R^4 (the 24-cell: 1/2, c in 0.51..0.55).  Random
    configurations stay near 0.6."""
    rng = _rng(seed, 61)
    if rng.random() < 0.5:
        d, k, c = 3, int(rng.integers(9, 13)), Fraction(int(rng.integers(46, 51)), 100)
    else:
        d, k, c = 4, int(rng.integers(13, 25)), Fraction(int(rng.integers(51, 56)), 100)
    variables = tuple(UnitVector(f"u{i}", "d") for i in range(k))
    names = [v.name for v in variables]
    return _claim(f"code-{seed}", variables, (Dim("d", d, d),),
                  lambda ctx, v: _max_pairwise_cosine(ctx, [v[name] for name in names]), lambda ctx, v: ctx.const(c),
                  ">=", f"any {k} unit vectors in R^{d} have two with cosine >= {c}")


CONFIGURATION_FAMILIES = {"unit-vector-code": unit_vector_code}


def true_unit_vector_code(seed):
    """Any d + 2 unit vectors in R^d have two with cosine >= 0 (at most d + 1 can be pairwise
    obtuse): true, with equality at the cross-polytope's points, which the configurations offer."""
    d = int(_rng(seed, 62).integers(2, 5))
    variables = tuple(UnitVector(f"u{i}", "d") for i in range(d + 2))
    names = [v.name for v in variables]
    return _claim(f"true-code-{seed}", variables, (Dim("d", d, d),),
                  lambda ctx, v: _max_pairwise_cosine(ctx, [v[name] for name in names]), lambda ctx, v: ctx.const(0),
                  ">=", f"any {d + 2} unit vectors in R^{d} have two with cosine >= 0")


# ---------------------------------------- counterexamples that read well on a set (issue 28)
def _numeric_minimum(f, points, project, steps=300):
    """The least value of f found from many starts by projected gradient steps (numerical
    differences): where a family's constant is placed, not a verdict."""
    x = project(points)
    lr = 0.05
    for _ in range(steps):
        h = 1e-6
        grad = np.stack([(f(project(x + h * e)) - f(project(x - h * e))) / (2 * h) for e in np.eye(x.shape[1])], axis=1)
        x = project(x - lr * grad)
    return float(np.min(f(x)))


def _quadratic_form(rng, n, convex=False):
    g = rng.integers(-3, 4, (n, n))
    a = g.T @ g if convex else g + g.T
    return [[int(x) for x in row] for row in a], [int(x) for x in rng.integers(-3 * n, 3 * n + 1, n)]


def _gap(rng, low):
    """A bound a hair above the least value: 10^-6 to 10^-4 of its size."""
    return Fraction(low + 10.0 ** rng.uniform(-6, -4) * (1 + abs(low))).limit_denominator(10**9)


def _set_claim(cid, var, n, a, b, bound, statement):
    def lhs(ctx, v):
        x = v[var.name]
        return sum(a[i][j] * x[:, i] * x[:, j] for i in range(n) for j in range(n) if a[i][j]) + sum(b[i] * x[:, i] for i in range(n) if b[i])

    return _claim(cid, (var,), (Dim("n", n, n),), lhs, lambda ctx, v: ctx.const(bound), ">=", statement)


def simplex_quadratic(seed):
    """x^T A x + b . x >= m on the simplex of total T (random convex A = G^T G, b, T), m a hair
    above the minimum: false in a small neighbourhood of the minimiser, which is where it is
    (inside, on a face), not at a simple point."""
    rng = _rng(seed, 71)
    n, total = int(rng.integers(3, 6)), _total(rng)
    a, b = _quadratic_form(rng, n, convex=True)
    A, B, T = np.array(a, float), np.array(b, float), float(total)

    def f(x):
        return np.einsum("mi,ij,mj->m", x, A, x) + x @ B

    def project(x):  # Euclidean projection onto the scaled simplex, row by row
        u = -np.sort(-x, axis=1)
        css = np.cumsum(u, axis=1) - T
        k = np.arange(1, x.shape[1] + 1)
        rho = np.sum(u - css / k > 0, axis=1)
        theta = css[np.arange(len(x)), rho - 1] / rho
        return np.maximum(x - theta[:, None], 0)

    bound = _gap(rng, _numeric_minimum(f, rng.random((64, n)) * T, project))
    return _set_claim(f"simplex-quadratic-{seed}", Simplex("p", "n", total), n, a, b, bound,
                      f"x^T A x + b.x >= {bound} on the simplex of total {total}")


def sphere_quadratic(seed):
    """x^T A x + b . x >= m on the sphere |x|^2 = r^2 (random A, b, r^2), m a hair above the
    minimum: false only near the minimiser."""
    rng = _rng(seed, 72)
    n = int(rng.integers(2, 6))
    r2 = _radius_squared(rng, n)
    a, b = _quadratic_form(rng, n)
    A, B, r = np.array(a, float), np.array(b, float), float(r2) ** 0.5

    def f(x):
        return np.einsum("mi,ij,mj->m", x, A, x) + x @ B

    def project(x):
        return r * x / np.linalg.norm(x, axis=1, keepdims=True)

    bound = _gap(rng, _numeric_minimum(f, rng.standard_normal((64, n)), project))
    return _set_claim(f"sphere-quadratic-{seed}", Sphere("x", "n", r2), n, a, b, bound,
                      f"x^T A x + b.x >= {bound} on |x|^2 = {r2}")


def orthogonal_alignment(seed):
    """tr(W^T Q) <= (1 - gap) ||W||_* over orthogonal Q (random integer W, n = 2..3, gap 10^-4 to
    10^-3): false only near W's polar factor, an irrational rotation or reflection."""
    rng = _rng(seed, 73)
    n = int(rng.integers(2, 4))
    w = [[int(x) for x in row] for row in rng.integers(-3, 4, (n, n))]
    top = float(np.linalg.svd(np.array(w, float), compute_uv=False).sum())
    bound = Fraction(top * (1 - 10.0 ** rng.uniform(-4, -3))).limit_denominator(10**9)
    return _claim(f"orthogonal-alignment-{seed}", (Orthogonal("Q", "n"),), (Dim("n", n, n),),
                  lambda ctx, v: sum(w[i][j] * v.Q[:, i, j] for i in range(n) for j in range(n) if w[i][j]),
                  lambda ctx, v: ctx.const(bound), "<=", f"tr(W^T Q) <= {bound}")


READABLE_FAMILIES = {"simplex-quadratic": simplex_quadratic, "sphere-quadratic": sphere_quadratic, "orthogonal-alignment": orthogonal_alignment}
