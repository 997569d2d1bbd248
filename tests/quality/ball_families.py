"""Claims on balls of variable centre and radius, generated from a seed, each with a true and a false twin.

A member draws a size n, a norm (2 or max), weights ``w`` whose dual norm ``D`` is an integer
(Pythagorean tuples for the Euclidean ball: ``||(2, 3, 6)||_2 = 7``; ``||w||_1`` for the max
norm), a centre (another variable, a constant of simple rationals, or the origin) and a radius
(a variable, a rational, or an expression of a variable), and states Hoelder's bound
``w . (x - c) <= D r`` on the ball ``||x - c|| <= r``.  It holds, tight at one boundary point
(``c + r w / ||w||_2``, or the vertex ``c + r sign(w)``); the false twin ``<= (D - delta) r``
fails only in a cap of the ball around that point.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from verifier import Ball, Claim, Dim, Part, Scalar, Vector

PYTHAGOREAN = {2: [(3, 4), (5, 12), (8, 15)], 3: [(1, 2, 2), (2, 3, 6), (1, 4, 8), (4, 4, 7)], 4: [(1, 1, 1, 1), (2, 2, 1, 4), (1, 2, 2, 4)]}


def ball_claim(seed: int, false: bool):
    rng = np.random.default_rng([seed, 71])
    n = int(rng.integers(2, 5))
    norm = 2 if rng.random() < 0.5 else "inf"
    if norm == 2:
        w = list(PYTHAGOREAN[n][int(rng.integers(len(PYTHAGOREAN[n])))])
        dual = int(round(np.sqrt(sum(x * x for x in w))))
    else:
        w = [int(x) for x in rng.integers(1, 5, n)]
        dual = sum(w)
    w = [x * int(s) for x, s in zip(w, rng.choice([-1, 1], n))]
    variables = [Scalar("s", lo=Fraction(1, 2), hi=2)]
    centre_kind = ("variable", "constant", "origin")[int(rng.integers(3))]
    if centre_kind == "variable":
        variables.append(Vector("a", "n", lo=-2, hi=2))
        center, centre_of = "a", (lambda ctx, v: v.a)
    elif centre_kind == "constant":
        c = [Fraction(int(k), int(d)) for k, d in zip(rng.integers(-6, 7, n), rng.choice([1, 2, 3], n))]
        center = tuple(c)
        centre_of = lambda ctx, v: ctx.asarray(np.array([c], dtype=object)) if ctx.name != "float64" else np.array([float(q) for q in c])  # noqa: E731
    else:
        center, centre_of = None, (lambda ctx, v: 0)
    radius_kind = ("variable", "rational", "expression")[int(rng.integers(3))]
    if radius_kind == "variable":
        radius, radius_of = "s", (lambda ctx, v: v.s)
    elif radius_kind == "rational":
        r = Fraction(int(rng.integers(1, 9)), int(rng.integers(1, 4)))
        radius, radius_of = r, (lambda ctx, v: ctx.const(r))
    else:
        radius = radius_of = lambda ctx, v: 1 + v.s * v.s / 2
    variables.append(Ball("x", "n", center=center, radius=radius, norm=norm, radius_text="1 + s^2/2" if radius_kind == "expression" else ""))
    delta = Fraction(int(rng.integers(1, 10)), 10 ** int(rng.integers(1, 4))) if false else 0

    def lhs(ctx, v):
        d = v.x - centre_of(ctx, v)
        return sum(wi * d[:, i] for i, wi in enumerate(w))

    def rhs(ctx, v):
        return (dual - ctx.const(delta)) * radius_of(ctx, v)

    what = f"w.(x - c) <= {dual - delta} r on the {norm}-ball (centre {centre_kind}, radius {radius_kind})"
    return Claim(f"ball-{seed}", what, what, variables=variables, dims=(Dim("n", n, n),),
                 parts=(Part("main", lhs, rhs, relation="<="),)).checks()[0]
