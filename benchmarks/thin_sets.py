"""A family of claims false only on a thin set, away from the sampler's structured patterns.

Each claim has a vector x in [-4, 4]^n and a manifold g(x) = 0 -- a sphere
||x - c||^2 = r^2 or a hyperplane a . (x - c) = 0 -- with centre, radius, normal and n drawn
from a seed (never a fixed list), at a resolution of 1e-9 so that neither the centre nor the
manifold passes through small integers, simple fractions or constant vectors.  The claim

    ||x||^2 + g(x)^2 >= ||x||^2 + w^2,   w = 1e-6

fails exactly where |g(x)| < w: a shell or slab of width 2e-6, measure about 1e-6 of the box.
The common term ||x||^2 makes both sides grow with the inputs, so a search ranking points by
margin / (|lhs| + |rhs|) is drawn towards the corners of the box, where no violation lies.
(With the common term weighted by 100 or more the violation falls below float64's resolution
relative to the sides, and neither this engine nor the one before it finds every member:
see docs/benchmarks.md.)
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from verifier import Claim, Dim, Part, Vector

WIDTH = Fraction(1, 10**6)
BOX = 4


def _fraction(rng, lo, hi) -> Fraction:
    return Fraction(int(rng.integers(int(lo * 10**9), int(hi * 10**9))), 10**9)


def thin_set_claim(seed: int, weight: int = 1) -> Claim:
    """The family member drawn from ``seed``: its manifold kind, n, centre and shape.

    ``weight`` multiplies the common term ||x||^2 (the hard variant of docs/benchmarks.md).
    """
    rng = np.random.default_rng([20261123, seed])
    n = int(rng.integers(1, 5))
    kind = "sphere" if rng.random() < 0.5 else "plane"
    centre = [_fraction(rng, -2, 2) for _ in range(n)]
    radius = _fraction(rng, 0.5, 1.5)
    normal = [_fraction(rng, -1, 1) for _ in range(n)]
    if all(a == 0 for a in normal):
        normal[0] = Fraction(1, 3)

    def manifold(ctx, v):
        shifted = [v.x[:, i] - ctx.const(c) for i, c in enumerate(centre)]
        if kind == "sphere":
            return sum(s * s for s in shifted) - ctx.const(radius * radius)
        return sum(ctx.const(a) * s for a, s in zip(normal, shifted))

    def size(ctx, v):
        return ctx.const(weight) * sum(v.x[:, i] * v.x[:, i] for i in range(n))

    common = "||x||^2" if weight == 1 else f"{weight} ||x||^2"
    where = f"|x - c| = {float(radius):.9g}" if kind == "sphere" else "a . (x - c) = 0"
    return Claim(
        id=f"T.thin{seed}" + (f"w{weight}" if weight != 1 else ""),
        kind="claim",
        title=f"False only within 1e-6 of a {kind} in {n} dimension(s) (test family)",
        statement=f"{common} + g(x)^2 >= {common} + 1e-12 on [-4, 4]^{n}, g = 0 on {where}, c = {[str(c) for c in centre]}",
        dims=[Dim("n", n, n)],
        variables=[Vector("x", "n", lo=-BOX, hi=BOX)],
        parts=[Part("main", lhs=lambda ctx, v: size(ctx, v) + manifold(ctx, v) ** 2,
                    rhs=lambda ctx, v: size(ctx, v) + ctx.const(WIDTH * WIDTH), relation=">=")],
    )


def thin_set_checks(seeds) -> list:
    return [thin_set_claim(s).checks()[0] for s in seeds]
