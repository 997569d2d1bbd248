"""Claim families on the constrained kinds, generated from a seed.

Each family draws a dimension, an extremal point and an offset from ``seed`` and states a
claim that fails *only* at that point of the set's boundary (a vertex, a face centroid, a
one-hot row, a tie, a diagonal direction, a signed permutation) or, with an offset, only
in a small neighbourhood of it.  The verdict is left to the engine.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from verifier import Claim, Derived, Dim, Hypothesis, Ordered, Orthogonal, Part, Scalar, Simplex, Stochastic, UnitVector, Vector


def exact_point(cx):
    """A counterexample's stored values as exact rationals (batch axis of one)."""
    from flint import fmpq

    from verifier.store import parse_exact

    def one(text):
        f = parse_exact(text)
        return fmpq(f.numerator, f.denominator)

    return {k: np.vectorize(one, otypes=[object])(np.asarray(v, dtype=object))[None] for k, v in cx.vars.items()}


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
