"""Piecewise-linear conditions solved exactly: seeded families checked against independent computations.

Members draw breakpoints, weights and offsets from a seed.  In one variable the solution set is
computed a second, independent way -- f is affine between consecutive breakpoints, so its zero
set is read from its exact values there -- and must equal the solver's exactly.  In two and
three variables every piece must satisfy the condition exactly (its vertices and random exact
points of it), and on random rational lines every zero of the condition's restriction (found
the one-variable way) must lie in some piece.  Samples of the ``Pieces`` kind made from the
solution, moved to exact points, must satisfy the condition exactly.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy

from verifier import Claim, Part
from verifier.frontend.piecewise import NotPiecewiseLinear, simplices, solve_piecewise_linear
from verifier.kinds.pieces import Piece, Pieces
from verifier.sampling import Sampler, exactify

X, Y, Z = sympy.symbols("x y z", real=True)


def _q(rng, lo=-6, hi=7, dens=(1, 2, 3, 4)):
    return Fraction(int(rng.integers(lo, hi)), int(rng.choice(dens)))


def _exact(expr, point, symbols):
    """The exact value of a piecewise-linear expression at a rational point (Fractions throughout)."""
    return _evaluate(expr, dict(zip(symbols, point)))


def _evaluate(e, at):
    if e.is_Symbol:
        return at[e]
    if e.is_Number:
        return Fraction(int(e.p), int(e.q))
    args = [_evaluate(a, at) for a in e.args]
    if e.is_Add:
        return sum(args, Fraction(0))
    if e.is_Mul:
        out = Fraction(1)
        for a in args:
            out *= a
        return out
    return {sympy.Abs: lambda: abs(args[0]), sympy.Max: lambda: max(args), sympy.Min: lambda: min(args)}[type(e)]()


def one_variable(seed):
    """sum a_i |x - b_i| + c x + d, shaped so that flat stretches, single roots and nothing all occur."""
    rng = np.random.default_rng([seed, 1])
    k = int(rng.integers(1, 4))
    b = sorted(_q(rng) for _ in range(k + 1))
    a = [int(rng.choice([1, 1, 2, -1])) for _ in range(k + 1)]
    c = int(rng.integers(-2, 3))
    terms = sum(ai * sympy.Abs(X - sympy.Rational(bi.numerator, bi.denominator)) for ai, bi in zip(a, b))
    if rng.random() < 0.5:  # |x - b0| + |x - b1| = b1 - b0 is [b0, b1]: make flat stretches common
        d = -_exact(terms + c * X, (b[0],), [X]) if rng.random() < 0.5 else _q(rng)
    else:
        d = _q(rng)
    return terms + c * X + sympy.Rational(d.numerator, d.denominator)


def zero_set_1d(expr, lo, hi, symbol=X):
    """The zero set of a piecewise-linear f on [lo, hi] as sorted intervals (points as [p, p]),
    from f's values at its breakpoints (f is affine between them)."""
    breaks = {lo, hi}
    for node in sympy.preorder_traversal(expr):  # where each kink's argument changes sign (max, min: a - b)
        kinks = [node.args[0]] if isinstance(node, sympy.Abs) else \
            [a - b for a in node.args for b in node.args] if isinstance(node, (sympy.Max, sympy.Min)) else []
        for inner in kinks:
            inner = sympy.Poly(sympy.expand(inner), symbol)
            slope, intercept = (inner.all_coeffs() + [0])[:2] if inner.degree() == 1 else (0, 0)
            if slope:
                t = Fraction(str(-sympy.Rational(intercept) / sympy.Rational(slope)))
                if lo <= t <= hi:
                    breaks.add(t)
    ts = sorted(breaks)
    values = [_exact(expr, (t,), [symbol]) for t in ts]
    out = []
    for i, (t, v) in enumerate(zip(ts, values)):
        if v == 0:
            out.append((t, t))
        if i + 1 < len(ts):
            w = values[i + 1]
            if v == 0 and w == 0:
                out.append((t, ts[i + 1]))
            elif v * w < 0:
                root = t - v * (ts[i + 1] - t) / (w - v)
                out.append((root, root))
    return _merged(out)


def _merged(intervals):
    out = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


@pytest.mark.parametrize("seed", range(30))
def test_one_variable_solution_sets_are_exact(seed):
    expr = one_variable(seed)
    lo, hi = Fraction(-10), Fraction(10)
    expected = zero_set_1d(expr, lo, hi)
    pieces = solve_piecewise_linear(expr, [X], [(lo, hi)])
    got = _merged([(p.bounds()[0][0], p.bounds()[0][1]) for p in pieces])
    assert got == expected, (expr, got, expected)
    assert len(pieces) == len(expected)  # nothing left to join: each interval or point is one piece


def two_or_three_variables(seed):
    """sum a_i |alpha_i . x - g_i| (+ max/min of affine forms) - r, with rational data."""
    rng = np.random.default_rng([seed, 2])
    n = 2 if seed % 3 else 3
    syms = [X, Y, Z][:n]
    expr = 0
    for _ in range(int(rng.integers(1, 4))):
        form = sum(int(rng.integers(-2, 3)) * s for s in syms) - sympy.Rational(int(rng.integers(-3, 4)), int(rng.integers(1, 3)))
        expr += int(rng.choice([1, 1, 2])) * sympy.Abs(form)
    if rng.random() < 0.3:
        expr += sympy.Max(syms[0], syms[1]) if rng.random() < 0.5 else -sympy.Min(syms[0], -syms[-1])
    return expr - sympy.Rational(int(rng.integers(0, 6)), int(rng.integers(1, 3))), syms


def _line_zeros(expr, syms, p, d, box):
    """Zeros of f on the line p + t d inside the box, found in one variable."""
    t = sympy.Symbol("t", real=True)
    along = expr.subs({s: sympy.Rational(pi.numerator, pi.denominator) + t * sympy.Rational(di.numerator, di.denominator)
                       for s, pi, di in zip(syms, p, d)})
    lo, hi = Fraction(-100), Fraction(100)
    for (blo, bhi), pi, di in zip(box, p, d):  # the t where the line is inside the box
        if di:
            a, b = (blo - pi) / di, (bhi - pi) / di
            lo, hi = max(lo, min(a, b)), min(hi, max(a, b))
    if lo > hi:
        return []
    intervals = zero_set_1d(sympy.expand(along), lo, hi, symbol=t) if along.free_symbols else ([] if along != 0 else [(lo, hi)])
    points = []
    for a, b in intervals:
        for s in {a, b, (a + b) / 2}:
            points.append(tuple(pi + s * di for pi, di in zip(p, d)))
    return points


@pytest.mark.parametrize("seed", range(18))
def test_several_variables_pieces_satisfy_it_and_every_zero_on_random_lines_is_in_a_piece(seed):
    try:
        expr, syms = two_or_three_variables(seed)
    except NotPiecewiseLinear:
        pytest.skip("not piecewise linear")
    box = [(Fraction(-4), Fraction(4))] * len(syms)
    pieces = [Piece(s) for piece in solve_piecewise_linear(expr, syms, box) for s in simplices(piece)]
    rng = np.random.default_rng([seed, 3])
    for piece in pieces:  # sound: every point of every piece
        for _ in range(3):
            w = [Fraction(int(k)) for k in rng.integers(0, 5, piece.dimension + 1)]
            w = w if sum(w) else [Fraction(1)] + w[1:]
            point = [sum(wi * v[i] for wi, v in zip(w, piece.vertices)) / sum(w) for i in range(len(syms))]
            assert _exact(expr, point, syms) == 0, (expr, piece.vertices, point)
    for _ in range(6):  # complete: the zeros on a line through a random point of a piece, and through none
        if pieces and rng.random() < 0.7:
            piece = pieces[int(rng.integers(len(pieces)))]
            p = list(piece.vertices[0])
        else:
            p = [_q(rng, -3, 4) for _ in syms]
        d = [Fraction(int(k)) for k in rng.integers(-3, 4, len(syms))]
        if not any(d):
            d[0] = Fraction(1)
        for point in _line_zeros(expr, syms, p, d, box):
            assert any(pc.contains(point) for pc in pieces), (expr, point)


@pytest.mark.parametrize("seed", range(6))
def test_samples_of_the_solution_set_satisfy_the_condition_exactly(seed):
    expr, syms = two_or_three_variables(seed)
    box = [(Fraction(-4), Fraction(4))] * len(syms)
    cells = [s for piece in solve_piecewise_linear(expr, syms, box) for s in simplices(piece)]
    if not cells:
        pytest.skip("empty")
    var = Pieces("p", len(syms), cells)
    check = Claim("s", "s", "s", variables=(var,), dims=(), parts=(Part("main", lambda ctx, v: v.p[:, 0], lambda ctx, v: ctx.const(9)),)).checks()[0]
    data = Sampler(check).sample({}, np.random.default_rng(seed), 512)
    for i in range(0, 512, 37):
        point = exactify(check, data, i, {})["p"][0]
        assert _exact(expr, [Fraction(int(v.p), int(v.q)) for v in point], syms) == 0


def test_the_examples_of_the_issue():
    assert [p.bounds() for p in solve_piecewise_linear(sympy.Abs(X - 1) + sympy.Abs(X) + sympy.Abs(X + 1) - X - 2, [X], [(-10, 10)])] == [[(0, 1)]]
    square = solve_piecewise_linear(sympy.Abs(X + Y) + sympy.Abs(X - Y) - 2, [X, Y], [(Fraction(-10), Fraction(10))] * 2)
    assert sorted(p.vertices for p in square) == sorted([((-1, -1), (-1, 1)), ((-1, -1), (1, -1)), ((-1, 1), (1, 1)), ((1, -1), (1, 1))])


def test_what_is_not_piecewise_linear_is_named():
    with pytest.raises(NotPiecewiseLinear, match="multiplies variables"):
        solve_piecewise_linear(sympy.Abs(X * Y) - 1, [X, Y], [(-1, 1)] * 2)
