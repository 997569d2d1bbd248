"""Claim families that are false by a near miss (issue 27), one per way the search used to stop short.

Each family draws its member from a seed -- centres, weights, constants, dimensions -- and
states a claim whose falsity is known by construction (a closed form, or a root found at 60
digits here), never by a run of the engine.  The verdict is left to the engine.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
from threadpoolctl import threadpool_limits

from verifier import Claim, Dim, Hypothesis, Matrix, Part, Scalar, UnitVector, Vector


def _rational(rng, lo, hi, denominator=1000) -> Fraction:
    """A random rational in [lo, hi] with the given denominator (never a simple fraction by design)."""
    return Fraction(int(rng.integers(int(lo * denominator), int(hi * denominator) + 1)), denominator)


def _nonzero(rng, lo, hi, denominator=1000) -> Fraction:
    q = _rational(rng, lo, hi, denominator)
    return q if q else Fraction(1, 7)


def _truncated(value: mpmath.mpf, digits: int) -> Fraction:
    """``value`` rounded toward zero to ``digits`` significant digits, as an exact rational."""
    with mpmath.workdps(60):
        exponent = int(mpmath.floor(mpmath.log10(abs(value))))
        mantissa = int(mpmath.floor(value * mpmath.mpf(10) ** (digits - 1 - exponent)))
    return mantissa * Fraction(10) ** (exponent - digits + 1)


def _float_below(value: mpmath.mpf) -> Fraction:
    """The largest float64 below ``value``, exactly: a constant "quoted as its float64 value"."""
    f = float(value)
    if Fraction(f) >= Fraction(str(mpmath.nstr(value, 40))):  # rounded up: the float before it
        f = float(np.nextafter(f, -np.inf))
    return Fraction(f)


# ------------------------------------------------------------------ 1. below float64, at an irrational point
def irrational_peak(member: int) -> tuple[Claim, Fraction]:
    """``<w, x> exp(-|x - c|^2) <= C``, C the supremum rounded down to float64 or to 16 digits.

    The supremum is ``t exp(-|w|^2 / (4 t^2))`` at ``x* = c + w / (2t)``, with
    ``t = (<w, c> + sqrt(<w, c>^2 + 2 |w|^2)) / 2``: an irrational point and value.  The
    claim fails only where the peak rises above C, a ball of radius about
    ``sqrt((sup - C) / sup)`` -- 1e-8 -- around x*; float64 evaluates the margin there with
    rounding errors larger than the margin itself.  Returns the claim and the excess
    ``(sup - C) / sup`` (to 5 digits).
    """
    rng = np.random.default_rng([27_1, member])
    n = int(rng.integers(1, 4))
    w = [_nonzero(rng, -2, 2) for _ in range(n)]
    c = [_rational(rng, -1, 1) for _ in range(n)]
    with mpmath.workdps(60):
        wc = sum(mpmath.mpf(a.numerator) / a.denominator * mpmath.mpf(b.numerator) / b.denominator for a, b in zip(w, c))
        ww = sum((mpmath.mpf(a.numerator) / a.denominator) ** 2 for a in w)
        t = (wc + mpmath.sqrt(wc**2 + 2 * ww)) / 2
        sup = t * mpmath.exp(-ww / (4 * t**2))
        constant = _float_below(sup) if member % 2 == 0 else _truncated(sup, 16)
        excess = Fraction(str(mpmath.nstr((sup - mpmath.mpf(constant.numerator) / constant.denominator) / sup, 5)))

    def peak(ctx, v):
        inner = sum(ctx.const(a) * v.x[:, i] for i, a in enumerate(w))
        dist = sum((v.x[:, i] - ctx.const(b)) ** 2 for i, b in enumerate(c))
        return inner * ctx.exp(-dist)

    how = "float64 value" if member % 2 == 0 else "16 digits"
    claim = Claim(
        id=f"T.peak{member}", kind="claim", title=f"a peak's height quoted as its {how} (test family)",
        statement=f"<w, x> exp(-|x - c|^2) <= {constant} on [-3, 3]^{n}, w = {[str(a) for a in w]}, c = {[str(b) for b in c]}",
        dims=[Dim("n", n, n)], variables=[Vector("x", "n", lo=-3, hi=3)],
        parts=[Part("main", peak, lambda ctx, v: ctx.const(constant) + 0 * v.x[:, 0], relation="<=",
                    lhs_text="<w, x> exp(-|x - c|^2)", rhs_text="C")],
    )
    return claim, excess


# ------------------------------------------------------------------ 2. the hyperparameter and the weights together
def aligned_hyperparameter(member: int) -> tuple[Claim, Fraction]:
    """``<u, w>^2 s exp(-s / a) <= C`` with ``s = beta <u, w>``, u a unit vector, beta >= 0.

    Over beta the largest value is at ``s = a``; over u, at u along w: the supremum is
    ``|w|^2 a / e`` and C is it truncated to 7 decimals.  The claim fails only where u (in
    R^6 to R^10) is aligned with w to about 2e-4 rad and beta <u, w> lies within about 1e-3 a
    of a, both at once.  Returns the claim and the excess ``(sup - C) / sup`` (to 5 digits).
    """
    rng = np.random.default_rng([27_2, member])
    d = int(rng.integers(6, 11))
    w = [_nonzero(rng, -1.5, 1.5) for _ in range(d)]
    a = _rational(rng, 0.5, 3)
    ww = sum(x * x for x in w)
    with mpmath.workdps(60):
        sup = mpmath.mpf(ww.numerator) / ww.denominator * mpmath.mpf(a.numerator) / a.denominator / mpmath.e
        exponent = int(mpmath.floor(mpmath.log10(sup)))
        constant = _truncated(sup, 7 + exponent + 1)
        excess = Fraction(str(mpmath.nstr((sup - mpmath.mpf(constant.numerator) / constant.denominator) / sup, 5)))

    def lhs(ctx, v):
        inner = sum(ctx.const(x) * v.u[:, i] for i, x in enumerate(w))
        s = v.beta * inner
        return inner * inner * s * ctx.exp(-s / ctx.const(a))

    claim = Claim(
        id=f"T.align{member}", kind="claim", title="a constant quoted to 7 decimals, false only at an aligned direction and a tuned scale (test family)",
        statement=f"<u, w>^2 s exp(-s/{a}) <= {constant}, s = beta <u, w>, |u| = 1, beta in [0, 10], w = {[str(x) for x in w]}",
        dims=[Dim("d", d, d)], variables=[UnitVector("u", "d"), Scalar("beta", lo=0, hi=10)],
        parts=[Part("main", lhs, lambda ctx, v: ctx.const(constant) + 0 * v.beta, relation="<=",
                    lhs_text="<u, w>^2 s exp(-s/a)", rhs_text="C")],
    )
    return claim, excess


# ------------------------------------------------------------------ 3. the largest size only
def largest_size_only(member: int) -> tuple[Claim, int]:
    """``max(h_n exp(-k |x - c|^2), D (1 - (x_1 - p)^2 / 4) / n^3) <= C`` for n = 1 .. N.

    The peak's height h_n grows with the size n and exceeds C only at n = N (by 1e-4
    relative; at N - 1 it reaches 0.9975 of C), at the random centre c (denominator 1000).
    A random point of size n sits about exp(-k n) below its peak, so the smaller sizes rank
    better until the search has closed in.  The decoy ``D (1 - (x_1 - p)^2 / 4) / n^3`` is a
    broad ridge at the simple rational p whose height at n = 1 is within 1e-5 of C.
    Returns the claim and N.
    """
    rng = np.random.default_rng([27_3, member])
    top = int(rng.integers(5, 8))
    c = [_rational(rng, -1.5, 1.5) for _ in range(top)]
    k = _rational(rng, 0.3, 1)
    constant = Fraction(int(rng.integers(1, 10)), int(rng.integers(1, 4)))
    heights = {n: constant * (Fraction(9975, 10000) - Fraction(top - 1 - n, 100)) for n in range(1, top)}
    heights[top] = constant * (1 + Fraction(1, 10**4))
    p = Fraction(int(rng.integers(1, 4)), int(rng.integers(2, 5)))
    decoy = constant * (1 - Fraction(1, 10**5))

    def lhs(ctx, v):
        n = v.dims["n"]
        dist = sum((v.x[:, i] - ctx.const(c[i])) ** 2 for i in range(n))
        ridge = ctx.const(decoy) * (1 - (v.x[:, 0] - ctx.const(p)) ** 2 / 4) / n**3
        return ctx.maximum(ctx.const(heights[n]) * ctx.exp(-ctx.const(k) * dist), ridge)

    claim = Claim(
        id=f"T.sizes{member}", kind="claim", title="a bound false only at the largest size of its range (test family)",
        statement=f"max(h_n exp(-{k} |x - c|^2), D (1 - (x_1 - {p})^2/4)/n^3) <= {constant} for n = 1..{top}",
        dims=[Dim("n", 1, top)], variables=[Vector("x", "n", lo=-2, hi=2)],
        parts=[Part("main", lhs, lambda ctx, v: ctx.const(constant) + 0 * v.x[:, 0], relation="<=",
                    lhs_text="max(h_n exp(-k |x - c|^2), decoy / n^3)", rhs_text="C")],
    )
    return claim, top


# ------------------------------------------------------------------ 4. a rugged one-dimensional range
def rugged_position(member: int) -> tuple[Claim, Fraction]:
    """``a (2 - a) (1 + r cos(omega (t - t0))) / (1 + r) / (1 + s |t - t0|) <= 1 - delta``,
    a position t in [0, T] and an amplitude a in [0, 2].

    T is 8e4 to 1.3e5 and the period ``2 pi / omega`` about 6: the ripple (1 % deep) makes
    some 20,000 basins, each with its own local maximum, and the trend ``1 / (1 + s |t - t0|)``
    leads to the basin of t0 (t0 between 0.4 T and 0.95 T, denominator 10^6), the only one
    whose peak exceeds ``1 - delta``.  The claim fails only for t within about 0.09 of t0 and
    a within about 0.005 of 1.  Returns the claim and t0.
    """
    rng = np.random.default_rng([27_4, member])
    top = int(rng.integers(80_000, 130_000))
    t0 = _rational(rng, 0.4 * top, 0.95 * top, 10**6)
    omega = _rational(rng, 0.9, 1.25, 1000)
    half_width = _rational(rng, 0.07, 0.11, 1000)
    r = Fraction(1, 100)
    with mpmath.workdps(40):
        drop = (1 - mpmath.cos(mpmath.mpf(omega.numerator) / omega.denominator * mpmath.mpf(half_width.numerator) / half_width.denominator)) * r / (1 + r)
        delta = Fraction(str(mpmath.nstr(drop, 12)))
    # the neighbouring basins' peaks stand about 8 % below t0's: far below 1 - delta
    slope = delta * omega * 1000 / 3

    def lhs(ctx, v):
        shift = v.t - ctx.const(t0)
        ripple = (1 + ctx.const(r) * ctx.cos(ctx.const(omega) * shift)) / ctx.const(1 + r)
        return v.a * (2 - v.a) * ripple / (1 + ctx.const(slope) * ctx.abs(shift))

    claim = Claim(
        id=f"T.rugged{member}", kind="claim", title="a position in a rugged range of 20,000 basins (test family)",
        statement=f"a (2 - a) (1 + {r} cos({omega} (t - t0)))/{1 + r} / (1 + {float(slope):.6g} |t - t0|) <= 1 - {delta} "
                  f"for t in [0, {top}], a in [0, 2], t0 = {t0}",
        dims=[], variables=[Scalar("t", lo=0, hi=top), Scalar("a", lo=0, hi=2)],
        parts=[Part("main", lhs, lambda ctx, v: ctx.const(1 - delta) + 0 * v.t, relation="<=",
                    lhs_text="a (2 - a) (1 + r cos(omega (t - t0)))/(1 + r) / (1 + s |t - t0|)", rhs_text="1 - delta")],
    )
    return claim, t0


# ------------------------------------------------------------------ 7. many coordinates, a max over pairs
def _spread_directions(n: int, d: int, seed: int) -> np.ndarray:
    """n unit vectors in R^d with a small largest pairwise cosine (a witness that the family's
    claims are false): BFGS on a log-sum-exp of the cosines, the temperature falling; the
    better of two random starts."""
    import scipy.optimize

    rng = np.random.default_rng(seed)
    off = ~np.eye(n, dtype=bool)

    def smoothed(flat, temperature):
        x = flat.reshape(n, d)
        norms = np.linalg.norm(x, axis=1, keepdims=True)
        u = x / norms
        cos = u @ u.T
        top = cos[off].max()
        weights = np.exp((np.where(off, cos, -2.0) - top) / temperature)
        total = weights.sum()
        g_u = 2 * (weights / total) @ u  # the weights are symmetric
        g_x = (g_u - np.sum(g_u * u, axis=1, keepdims=True) * u) / norms
        return top + temperature * np.log(total), g_x.ravel()

    def largest(u):
        return (u @ u.T)[off].max()

    starts = []
    with threadpool_limits(limits=1, user_api="blas"):  # matrices of 100 entries: threads only contend
        for _ in range(2):
            flat = rng.standard_normal(n * d)
            for temperature in np.geomspace(0.05, 0.001, 6):
                flat = scipy.optimize.minimize(smoothed, flat, args=(temperature,), jac=True, method="BFGS", options={"maxiter": 100}).x
            x = flat.reshape(n, d)
            starts.append(x / np.linalg.norm(x, axis=1, keepdims=True))
    return min(starts, key=largest)


def spread_vectors(member: int) -> tuple[Claim, Fraction]:
    """``max_{i < j} cos(v_i, v_j) >= c`` for n nonzero vectors in R^d (the rows of V).

    False: a configuration whose largest cosine is below c exists (computed here, kept out
    of the claim: c is its largest cosine plus a slack of 0.01 to 0.03).  n is 12 to 24 in
    R^4 or 10 to 16 in R^3: 30 to 96 coordinates under a maximum over 45 to 276 pairs.
    Returns the claim and c.
    """
    rng = np.random.default_rng([27_7, member])
    d = int(rng.integers(3, 5))
    n = int(rng.integers(10, 17)) if d == 3 else int(rng.integers(12, 25))
    witness = _spread_directions(n, d, int(rng.integers(2**31)))
    best = float(np.max(np.where(~np.eye(n, dtype=bool), witness @ witness.T, -2)))
    c = Fraction(round((best + float(_rational(rng, 0.01, 0.03))) * 1000), 1000)

    def largest_cosine(ctx, v):
        gram = v.V @ ctx.T(v.V)
        norms = ctx.sqrt(np.stack([gram[:, i, i] for i in range(n)], axis=-1))
        cos = gram / (norms[:, :, None] * norms[:, None, :])
        # the diagonal (cos = 1) is pushed below every off-diagonal entry
        eye = np.eye(n, dtype=int) if np.asarray(cos).dtype == object else np.eye(n)
        return ctx.max_all(cos - 3 * eye)

    claim = Claim(
        id=f"T.spread{member}", kind="claim", title="the largest pairwise cosine of n vectors, bounded from below too high (test family)",
        statement=f"max_(i<j) cos(v_i, v_j) >= {c} for any {n} nonzero vectors in R^{d}",
        dims=[Dim("n", n, n), Dim("d", d, d)], variables=[Matrix("V", "n", "d", lo=-1, hi=1)],
        hypotheses=[Hypothesis("every v_i nonzero", lambda ctx, v: ctx.min_all(ctx.sum(v.V * v.V, axis=-1)), strict=True)],
        parts=[Part("main", largest_cosine, lambda ctx, v: ctx.const(c) + 0 * v.V[:, 0, 0], relation=">=",
                    lhs_text="max_(i<j) cos(v_i, v_j)", rhs_text="c")],
    )
    return claim, c


# ------------------------------------------------------------------ 8. a best constant at a strict boundary
def strict_boundary_ratio(member: int) -> Claim:
    """``K (1 - x (x - a)^2 (1 + (y - b)^2)) <= K`` for ``x > 0`` (strict), y in [-1, 1]: the best constant is 1.

    The largest ratio, 1, is reached inside on the line x = a, and on the excluded boundary
    x = 0, where float64's samples sit exactly (0 is the end of x's box) and where the
    supremum is approached but not reached.  ``verify tighten`` must answer 1, certified at
    a point with x > 0.  a and b are random rationals of denominator 1000; K a random simple
    fraction.
    """
    rng = np.random.default_rng([27_8, member])
    a = _rational(rng, 0.5, 2.5)
    b = _rational(rng, -0.8, 0.8)
    top = Fraction(int(rng.integers(2, 9)), int(rng.integers(1, 4)))

    def lhs(ctx, v):
        return ctx.const(top) * (1 - v.x * (v.x - ctx.const(a)) ** 2 * (1 + (v.y - ctx.const(b)) ** 2))

    return Claim(
        id=f"T.strict{member}", kind="claim", title="a best constant reached inside and on an excluded boundary (test family)",
        statement=f"{top} (1 - x (x - {a})^2 (1 + (y - {b})^2)) <= {top} for x in (0, 3], y in [-1, 1]",
        dims=[], variables=[Scalar("x", lo=0, hi=3), Scalar("y", lo=-1, hi=1)],
        hypotheses=[Hypothesis("x > 0", lambda ctx, v: v.x, strict=True)],
        parts=[Part("main", lhs, lambda ctx, v: ctx.const(top) + 0 * v.x, relation="<=",
                    lhs_text="K (1 - x (x - a)^2 (1 + (y - b)^2))", rhs_text="K")],
    )
