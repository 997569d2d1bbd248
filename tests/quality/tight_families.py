"""Seeded families of *tight* claims, each with a false twin (issue 34).

A sharp inequality is an equality somewhere; these claims are, at a point drawn from the seed:

* :func:`one_variable` -- a function of the ``ctx`` table against its tangent (or its Taylor
  polynomial) at a random rational touching point ``c``, on a random interval around it (one-sided
  where the inequality only holds on one side): ``tanh(x - c) <= x - c`` on ``[c, c + b]``,
  ``cos(x - c) >= 1 - (x - c)^2 / 2`` on ``[c - a, c + b]``, ...;
* :func:`polynomial` -- a polynomial with an equality case, written out in monomials so no
  square is visible: an even-order zero in one variable, an interior minimum or a corner of a
  box in two, or a whole diagonal ``x = y``.

The false twin of each is the same claim with its margin lowered by ``1/10^4``: false only
near the touching point (within about 0.01 to 0.2 of it), where the true claim is an equality.
Nothing is tuned to the prover: the centres, intervals, exponents and coefficients come from the
seed.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction as F

import numpy as np

from verifier import Claim, Part, Scalar

#: how far below the true margin the false twin is
SLACK = F(1, 10**4)


@dataclass(frozen=True)
class Tight:
    """A true tight claim, its false twin, and how it was drawn (for messages)."""

    true: Claim
    false: Claim
    family: str
    drawn: str


def _rational(rng, lo, hi, den) -> F:
    return F(int(rng.integers(int(lo * den), int(hi * den) + 1)), den)


#: name -> (side: "both" | "right", the true margin as a function of (ctx, t), the largest |t| left and right)
ONE_VARIABLE = {
    "exp": ("both", lambda c, t: c.exp(t) - 1 - t, 2, 2),
    "tanh": ("right", lambda c, t: t - c.tanh(t), 0, 3),
    "sin": ("right", lambda c, t: t - c.sin(t), 0, 3),
    "cos": ("both", lambda c, t: c.cos(t) - 1 + t * t / 2, 3, 3),
    "log1p": ("both", lambda c, t: t - c.log1p(t), F(1, 2), 3),
    "log": ("both", lambda c, t: t - c.log(1 + t), F(1, 2), 3),
    "expm1": ("both", lambda c, t: c.expm1(t) - t, 2, 2),
    "sigmoid": ("right", lambda c, t: F(1, 2) + t / 4 - c.sigmoid(t), 0, 4),
    "softplus": ("both", lambda c, t: c.softplus(t) - c.log(c.const(2)) - t / 2, 2, 2),
    "erf": ("right", lambda c, t: F(113, 100) * t - c.erf(t), 0, 2),
    "lambertw": ("both", lambda c, t: t - c.lambertw(t), F(1, 4), 3),
    "sqrt": ("both", lambda c, t: 1 + t / 2 - c.sqrt(1 + t), F(1, 2), 3),
    "power": ("both", None, F(1, 2), 3),  # Bernoulli, (1 + t)^p against 1 + p t, p drawn
}


def _claim(name: str, title: str, variables, margin) -> Claim:
    part = Part("main", lhs=margin, rhs=lambda c, v: 0, relation=">=")
    return Claim(id=name, kind="property", paper="tight-family", location="-", title=title, statement=title, dims=[],
                 variables=variables, parts=[part])


def one_variable(seed: int, name: str | None = None) -> Tight:
    """A function of the ctx table against its tangent at a random rational point (``name``: that function)."""
    rng = np.random.default_rng(seed)
    names = sorted(ONE_VARIABLE)
    name = name or names[seed % len(names)]
    side, margin, left, right = ONE_VARIABLE[name]
    c = F(int(rng.integers(-30, 31)), int(rng.integers(1, 13)))
    drawn = f"c = {c}"
    if name == "power":
        p = [F(1, 3), F(1, 2), F(2, 3), F(3, 4), F(3, 2), F(5, 2)][int(rng.integers(6))]
        sign = 1 if p < 1 else -1  # concave under its tangent below p = 1, convex above it

        def margin(ctx, t, p=p, sign=sign):
            return sign * (1 + p * t - ctx.power(1 + t, p))

        drawn += f", p = {p}"
    a = _rational(rng, F(1, 4), left, 8) if side == "both" else F(0)
    b = _rational(rng, F(1, 4), right, 8)
    drawn += f", x in [c - {a}, c + {b}]"
    variables = [Scalar("x", lo=c - a, hi=c + b)]
    true = _claim(f"{name}-{seed}", f"{name} tangent at x = {c}", variables, lambda ctx, v, m=margin: m(ctx, v.x - c))
    false = _claim(f"{name}-{seed}-false", f"{name} tangent at x = {c}, lowered", variables,
                   lambda ctx, v, m=margin: m(ctx, v.x - c) - SLACK)
    return Tight(true, false, name, drawn)


def _poly(coefficients: dict, names: tuple[str, ...]):
    """``sum c * x^i * y^j`` (exponent tuples -> rational coefficients) as claim code."""
    terms = sorted(coefficients.items())

    def margin(ctx, v):
        xs = [getattr(v, n) for n in names]
        out = 0
        for powers, coef in terms:
            term = coef
            for x, k in zip(xs, powers):
                for _ in range(k):
                    term = term * x
            out = out + term
        return out

    return margin


def _expand(factors: list[dict]) -> dict:
    """The product of polynomials given as {exponent tuple: coefficient}."""
    out = {(0,) * len(next(iter(factors[0]))): F(1)}
    for f in factors:
        nxt: dict = {}
        for p, a in out.items():
            for q, b in f.items():
                key = tuple(i + j for i, j in zip(p, q))
                nxt[key] = nxt.get(key, F(0)) + a * b
        out = {k: v for k, v in nxt.items() if v != 0}
    return out


def _add(*polys: dict) -> dict:
    out: dict = {}
    for p in polys:
        for k, v in p.items():
            out[k] = out.get(k, F(0)) + v
    return {k: v for k, v in out.items() if v != 0}


POLYNOMIALS = ("even-zero", "fourth-order", "interior-point", "corner", "diagonal")


def polynomial(seed: int, kind: str | None = None) -> Tight:
    """A polynomial with an equality case drawn from ``seed``, expanded into monomials."""
    rng = np.random.default_rng(1000 + seed)
    kind = kind or POLYNOMIALS[seed % len(POLYNOMIALS)]
    q = lambda lo, hi, den=4: _rational(rng, lo, hi, den)  # noqa: E731
    a, b = q(-2, 2, 6), q(-2, 2, 5)
    if kind == "even-zero":  # (x - a)^2 ((x - b)^2 + r)
        r = q(F(1, 4), 2)
        poly = _expand([{(2,): F(1), (1,): -2 * a, (0,): a * a}, {(2,): F(1), (1,): -2 * b, (0,): b * b + r}])
        names, boxes, drawn = ("x",), [(a - q(F(1, 2), 2), a + q(F(1, 2), 2))], f"zero of order 2 at x = {a}"
    elif kind == "fourth-order":  # (x - a)^4 (1 + s x^2)
        s = q(0, 2)
        sq = {(2,): F(1), (1,): -2 * a, (0,): a * a}
        poly = _expand([sq, sq, {(2,): s, (0,): F(1)}])
        names, boxes, drawn = ("x",), [(a - q(F(1, 2), 1), a + q(F(1, 2), 1))], f"zero of order 4 at x = {a}"
    elif kind == "interior-point":  # (x-a)^2 + (y-b)^2 + k (x-a)(y-b) + s (x-a)^2 (y-b)^2, |k| < 2
        k, s = q(-F(3, 2), F(3, 2)), q(0, 1)
        dx = {(1, 0): F(1), (0, 0): -a}
        dy = {(0, 1): F(1), (0, 0): -b}
        poly = _add(_expand([dx, dx]), _expand([dy, dy]), {m: k * c for m, c in _expand([dx, dy]).items()},
                    {m: s * c for m, c in _expand([dx, dx, dy, dy]).items()})
        w = q(F(1, 2), 1)
        names, boxes, drawn = ("x", "y"), [(a - w, a + w), (b - w, b + w)], f"interior minimum at (x, y) = ({a}, {b}), k = {k}"
    elif kind == "corner":  # u (x - a) + v (y - b) + k (x - a)(y - b) - (x - a)^2 on a box whose corner is (a, b)
        u, v, k = q(F(1, 2), 2), q(F(1, 2), 2), q(-1, 1)
        dx = {(1, 0): F(1), (0, 0): -a}
        dy = {(0, 1): F(1), (0, 0): -b}
        poly = _add({m: u * c for m, c in dx.items()}, {m: v * c for m, c in dy.items()},
                    {m: k * c for m, c in _expand([dx, dy]).items()}, {m: -F(1, 4) * c for m, c in _expand([dx, dx]).items()})
        names, boxes, drawn = ("x", "y"), [(a, a + F(1, 4)), (b, b + F(1, 4))], f"corner minimum at (x, y) = ({a}, {b})"
    else:  # (x - y)^2 (r + (x + y - s)^2): an equality on the whole diagonal
        r, s = q(F(1, 4), 1), q(-1, 1)
        d = {(1, 0): F(1), (0, 1): F(-1)}
        t = {(1, 0): F(1), (0, 1): F(1), (0, 0): -s}
        poly = _expand([d, d, _add(_expand([t, t]), {(0, 0): r})])
        lo = q(-2, 1)
        names, boxes, drawn = ("x", "y"), [(lo, lo + 1), (lo, lo + 1)], "equality on the diagonal x = y"
    variables = [Scalar(n, lo=lo_, hi=hi_) for n, (lo_, hi_) in zip(names, boxes)]
    margin = _poly(poly, names)
    true = _claim(f"{kind}-{seed}", f"polynomial, {drawn}", variables, margin)
    false = _claim(f"{kind}-{seed}-false", f"polynomial, {drawn}, lowered", variables, lambda ctx, v, m=margin: m(ctx, v) - SLACK)
    return Tight(true, false, kind, drawn)


__all__ = ["ONE_VARIABLE", "POLYNOMIALS", "SLACK", "Tight", "one_variable", "polynomial"]
