"""The pieces issue 27 added to the search, alone: the refine phase's line searches, the deep
phase's zooms, the smoothed maximum, a start for every size, and strict boundaries."""

from fractions import Fraction

import numpy as np

from verifier import Claim, Dim, Hypothesis, Matrix, Part, Scalar, Vector
from verifier.contexts import FloatContext
from verifier.search.chunks import Chunk, run_chunk
from verifier.search.config import SearchConfig
from verifier.search.deep import _binary
from verifier.search.evaluate import ChunkSearch
from verifier.search.pool import ElitePool
from verifier.search.refine import Layout
from verifier.search.smooth import FIRST_TEMPERATURE, LAST_TEMPERATURE, SmoothedMaxContext, many_terms


def _check(lhs, rhs, variables, dims=(), relation="<=", hypotheses=()):
    return Claim(id="T.unit", kind="claim", title="unit", statement="unit", dims=list(dims), variables=list(variables),
                 hypotheses=list(hypotheses), parts=[Part("main", lhs=lhs, rhs=rhs, relation=relation)]).checks()[0]


def test_a_layout_flattens_and_rebuilds_a_point():
    point = {"A": np.arange(6.0).reshape(1, 2, 3), "s": np.array([7.0]), "v": np.array([[8.0, 9.0]])}
    layout = Layout(point)
    flat = layout.flat(point)
    assert flat.tolist() == [0, 1, 2, 3, 4, 5, 7, 8, 9]
    back = layout.batch(np.vstack([flat, flat + 1]))
    assert back["A"].shape == (2, 2, 3) and back["s"].shape == (2,) and back["v"].shape == (2, 2)
    assert np.array_equal(layout.rows(back), np.vstack([flat, flat + 1]))


def test_the_refine_phase_closes_a_curved_valley_that_a_start_left_open():
    # 1 - (y - x^2)^2 * 100 - (x - 0.7)^2 <= 1 - 1e-9: fails only within about 3e-5 of (0.7, 0.49)
    check = _check(lambda ctx, v: 1 - 100 * (v.y - v.x**2) ** 2 - (v.x - Fraction(7, 10)) ** 2,
                   lambda ctx, v: v.x * 0 + 1 - Fraction(1, 10**9), [Scalar("x", lo=-2, hi=2), Scalar("y", lo=-2, hi=2)])
    config = SearchConfig(seed=0, budget=20_000, shrink=False, deep=False)
    start = (1.0, {"x": np.array([0.2]), "y": np.array([0.1])}, {})
    res = run_chunk((check, config, Chunk("refine", 0, 20_000, deadline=float("inf"), start=start)))
    assert res.found is not None and res.found[3] == "refine"
    x, y = (float(res.found[0][k][0]) for k in ("x", "y"))
    assert abs(x - 0.7) < 1e-3 and abs(y - 0.49) < 1e-3


def test_the_refine_phase_spends_its_budget_on_a_true_claim():
    check = _check(lambda ctx, v: v.x**2, lambda ctx, v: v.x * 0 + 5, [Scalar("x", lo=-2, hi=2)])
    config = SearchConfig(seed=0, budget=5_000, shrink=False, deep=False)
    res = run_chunk((check, config, Chunk("refine", 0, 5_000, deadline=float("inf"), start=(1.0, {"x": np.array([1.0])}, {}))))
    assert res.found is None and res.evaluations >= 5_000
    assert res.best is not None and abs(abs(float(res.best[2]["x"][0])) - 2) < 1e-12  # the box's corner, the largest x^2


def test_binary_rationals_keep_the_bits_asked_for():
    q = Fraction(1, 3)
    b = _binary(q, 100)
    assert b.denominator & (b.denominator - 1) == 0  # a power of two
    assert abs(b - q) <= q / 2**99
    assert _binary(Fraction(0), 10) == 0 and _binary(Fraction(5, 4), 10) == Fraction(5, 4)


def test_the_deep_phase_starts_from_a_best_point_below_float64_and_closes_in():
    # (x - 1/3)^2 >= 1e-40 at a float start 1e-17 from 1/3: the violation, |x - 1/3| < 1e-20, lies between floats
    check = _check(lambda ctx, v: (v.x - ctx.const(Fraction(1, 3))) ** 2, lambda ctx, v: ctx.const("1e-40") + v.x * 0,
                   [Scalar("x", lo=0, hi=1)], relation=">=")
    config = SearchConfig(seed=0, budget=1_000, shrink=False)
    res = run_chunk((check, config, Chunk("deep", 0, 0, deadline=float("inf"), start=(0.0, {"x": np.array([1 / 3])}, {}))))
    assert res.found is not None and res.found[3] == "deep"
    assert abs(Fraction(str(res.found[0]["x"][0])) - Fraction(1, 3)) < Fraction(1, 10**20)


def test_a_smoothed_maximum_lies_above_the_maximum_and_falls_to_it():
    x = np.array([[0.1, 0.5, 0.49, -0.3]] * 64)
    raw = FloatContext().max(x, axis=1)
    hot, cold = SmoothedMaxContext(FIRST_TEMPERATURE).max(x, axis=1), SmoothedMaxContext(LAST_TEMPERATURE).max(x, axis=1)
    assert np.all(hot > cold) and np.all(cold >= raw) and np.allclose(cold, raw, atol=1e-3)
    lo = SmoothedMaxContext(0.1).min(x, axis=1)
    assert np.all(lo <= FloatContext().min(x, axis=1))


def test_smoothing_is_for_maxima_over_more_terms_than_coordinates():
    pairs = _check(lambda ctx, v: ctx.max_all(v.V @ ctx.T(v.V)), lambda ctx, v: v.V[:, 0, 0] * 0 + 1,
                   [Matrix("V", "n", "d", lo=-1, hi=1)], dims=[Dim("n", 6, 6), Dim("d", 2, 2)])
    norm = _check(lambda ctx, v: ctx.norm_inf(v.V), lambda ctx, v: v.V[:, 0, 0] * 0 + 1,
                  [Matrix("V", "n", "d", lo=-1, hi=1)], dims=[Dim("n", 6, 6), Dim("d", 2, 2)])
    point = {"V": np.random.default_rng(0).standard_normal((1, 6, 2))}
    assert many_terms(pairs, point, {"n": 6, "d": 2}, 12)  # 36 products of 12 coordinates
    assert not many_terms(norm, point, {"n": 6, "d": 2}, 12)  # 12 entries of 12 coordinates


def test_every_size_keeps_a_start_however_its_points_rank():
    pool = ElitePool(size=1)  # four slots
    for k in range(10):
        pool.add(0.01 * k, {"x": np.array([[float(k)]])}, {"n": 1})
    pool.add(0.9, {"x": np.array([[1.0, 2.0, 3.0]])}, {"n": 3})  # worse than every slot
    assert all(d == {"n": 1} for _, _, d in pool.entries)
    assert {"n": 3} in [d for _, _, d in pool.starts(8)]
    merged = ElitePool(size=1)
    merged.merge(pool.entries, pool.cells())
    merged.merge_leaders(list(pool.leaders.values()))
    assert [d for _, _, d in merged.starts(8)] == [d for _, _, d in pool.starts(8)]


def test_a_point_on_a_strict_hypothesis_boundary_is_outside_the_search():
    check = _check(lambda ctx, v: v.x * 0 + 1, lambda ctx, v: v.x * 0 + 2, [Scalar("x", lo=0, hi=1)],
                   hypotheses=[Hypothesis("x > 0", lambda ctx, v: v.x, strict=True)])
    search = ChunkSearch(check, SearchConfig(seed=0, deep=False))
    keys = search.evaluate({"x": np.array([0.0, 1e-300, 0.5])}, {})
    assert keys[0] == np.inf and np.isfinite(keys[1]) and np.isfinite(keys[2])
    assert search.stats["hypothesis_rejected"] == 1 and search.stats["nonfinite"] == 0


def test_a_smoothed_descent_lowers_the_largest_cosine_and_spends_its_chunk():
    # 6 directions in the plane: the largest pairwise cosine is at least cos(30 degrees) = 0.866
    def largest_cosine(ctx, v):
        gram = v.V @ ctx.T(v.V)
        norms = ctx.sqrt(np.stack([gram[:, i, i] for i in range(6)], axis=-1))
        cos = gram / (norms[:, :, None] * norms[:, None, :])
        return ctx.max_all(cos - 3 * (np.eye(6, dtype=int) if np.asarray(cos).dtype == object else np.eye(6)))

    check = _check(largest_cosine, lambda ctx, v: v.V[:, 0, 0] * 0 + Fraction(1, 2), [Matrix("V", "n", "d", lo=-1, hi=1)],
                   dims=[Dim("n", 6, 6), Dim("d", 2, 2)], relation=">=")
    start = np.random.default_rng(1).standard_normal((1, 6, 2))
    config = SearchConfig(seed=0, budget=6_000, shrink=False, deep=False)
    chunk = Chunk("target", 1, 6_000, deadline=float("inf"), start=(1.0, {"V": start}, {"n": 6, "d": 2}))
    res = run_chunk((check, config, chunk))
    assert res.found is None and res.evaluations >= 6_000
    # the best key reached: (max cos - 1/2) / (max cos + 1/2), near its least, 0.866 -> 0.268
    assert res.best[0] < 0.27
