"""The search phases alone: the pool keeps basins, not floats; chunks are seed-addressed."""

from fractions import Fraction

import numpy as np

from verifier import Claim, Part, Scalar, Vector, Dim
from verifier.search.chunks import Chunk, run_chunk
from verifier.search.config import SearchConfig
from verifier.search.pool import ElitePool, NearMisses, same_basin

SQUARE = Claim(id="T.sq", kind="claim", title="x^2 <= 1", statement="x^2 <= 1", dims=[Dim("n", 2, 2)],
               variables=[Vector("x", "n", lo=-2, hi=2)],
               parts=[Part("main", lhs=lambda ctx, v: ctx.max_all(v.x * v.x), rhs=lambda ctx, v: ctx.const(1))])


def _point(*xs):
    return {"x": np.array([xs], dtype=float)}


def test_one_entry_per_basin_the_best_one():
    pool = ElitePool(size=2)
    for k in range(20):  # twenty floats of one box corner
        pool.add(0.5 + k * 1e-3, _point(4.0 - k * 1e-6, 4.0), {"n": 2})
    pool.add(0.7, _point(-1.3, 0.2), {"n": 2})
    assert len(pool.entries) == 2
    assert pool.entries[0][0] == 0.5 and pool.entries[1][0] == 0.7
    assert len(pool.starts(8)) == 2


def test_basins_are_per_dims_and_per_neighbourhood():
    assert same_basin(_point(1.0, 2.0), _point(1.0 + 1e-6, 2.0))
    assert not same_basin(_point(1.0, 2.0), _point(1.1, 2.0))
    pool = ElitePool(size=1)
    pool.add(0.1, _point(1.0, 2.0), {"n": 2})
    pool.add(0.2, {"x": np.array([[1.0, 2.0, 3.0]])}, {"n": 3})
    assert len(pool.entries) == 2


def test_a_batch_of_rows_enters_as_the_same_rows_one_by_one():
    rng = np.random.default_rng(7)
    for _ in range(20):
        size = int(rng.integers(1, 4))
        rows = int(rng.integers(1, 60))
        data = {"x": rng.choice([-3.0, 0.0, 1.0, 2.5], size=(rows, 2)) + rng.normal(size=(rows, 2)) * rng.choice([0, 1e-6, 1.0]),
                "y": rng.normal(size=(rows, 2, 2))}
        data["x"][rng.random(rows) < 0.1] = np.inf  # no basin: kept by key alone
        keys = rng.choice([0.1, 0.2, 0.3], size=rows) + rng.normal(size=rows) * rng.choice([0, 1e-3])
        order = np.argsort(keys, kind="stable")
        batched, single = ElitePool(size=size), ElitePool(size=size)
        batched.add_rows(keys[order], order, data, {"n": 2})
        for j in order:
            single.add(float(keys[j]), {k: v[j : j + 1].copy() for k, v in data.items()}, {"n": 2})
        assert [(e[0], e[1]["x"].tobytes(), e[1]["y"].tobytes()) for e in batched.entries] == \
            [(e[0], e[1]["x"].tobytes(), e[1]["y"].tobytes()) for e in single.entries]


def test_pools_merged_with_their_cells_equal_pools_fed_point_by_point():
    """The coordinator takes a chunk's cells instead of working them out again: same pool."""
    rng = np.random.default_rng(11)
    for _ in range(20):
        chunks = []
        for _ in range(int(rng.integers(1, 5))):
            rows = int(rng.integers(1, 40))
            data = {"x": rng.choice([-3.0, 0.0, 2.5], size=(rows, 2)) + rng.normal(size=(rows, 2)) * rng.choice([0, 1e-6, 1.0])}
            data["x"][rng.random(rows) < 0.1] = np.nan
            keys = rng.choice([0.1, 0.2]) + rng.normal(size=rows) * rng.choice([0, 1e-3])
            order = np.argsort(keys, kind="stable")
            pool = ElitePool(size=2)
            pool.add_rows(keys[order], order, data, {"n": 2})
            chunks.append(pool)
        merged, fed = ElitePool(size=2), ElitePool(size=2)
        near_merged, near_fed = NearMisses(limit=3), NearMisses(limit=3)
        for pool in chunks:
            merged.merge(pool.entries, pool.cells())
            near_merged.merge(pool.entries[:2], pool.cells(2))
            for e in pool.entries:
                fed.add(*e)
            for e in pool.entries[:2]:
                near_fed.record(*e)
        for a, b in ((merged, fed), (near_merged, near_fed)):
            assert [(e[0], e[1]["x"].tobytes()) for e in a.entries] == [(e[0], e[1]["x"].tobytes()) for e in b.entries]
            assert a.cells() == b.cells()


def test_near_misses_keep_distinct_points():
    near = NearMisses()
    near.record(1e-14, _point(1.0, 2.0), {"n": 2})
    near.record(1e-14, _point(1.0, 2.0), {"n": 2})
    near.record(2e-14, _point(-1.0, 0.5), {"n": 2})
    assert [e[0] for e in near.best(2)] == [1e-14, 2e-14]


def test_a_chunk_depends_only_on_its_address():
    check = SQUARE.checks()[0]
    config = SearchConfig(seed=3, budget=10_000, shrink=False)
    chunk = Chunk("generate", 5, 512, deadline=float("inf"))
    a, b = run_chunk((check, config, chunk)), run_chunk((check, config, chunk))
    assert a.found is not None and b.found is not None  # x = 2 is drawn: refuted
    assert a.evaluations == b.evaluations and [str(v) for v in a.found[0]["x"].ravel()] == [str(v) for v in b.found[0]["x"].ravel()]


def test_the_target_phase_keeps_the_best_point_it_saw_across_restarts():
    check = Claim(id="T.flat", kind="claim", title="flat", statement="0 <= 1", dims=[],
                  variables=[Scalar("x", lo=-1, hi=1)],
                  parts=[Part("main", lhs=lambda ctx, v: v.x * 0, rhs=lambda ctx, v: v.x * 0 + 1)]).checks()[0]
    config = SearchConfig(seed=0, budget=20_000, shrink=False, deep=False)
    start = (1.0, {"x": np.array([0.5])}, {})
    res = run_chunk((check, config, Chunk("target", 0, 20_000, deadline=float("inf"), start=start)))
    assert res.found is None and res.evaluations >= 20_000
    assert res.best is not None and res.best[0] == min(e[0] for e in res.elites)


def test_near_ties_are_tried_by_the_coordinator_once_per_round_not_once_per_chunk(monkeypatch):
    import verifier.search.coordinator as coordinator

    tries = []
    real = coordinator.try_near_tie
    monkeypatch.setattr(coordinator, "try_near_tie", lambda *a: tries.append(a) or real(*a))
    # x <= x: a float tie (relative margin 0) in every chunk, and true
    tie = Claim(id="T.tie", kind="claim", title="x <= x", statement="x <= x", dims=[], variables=[Scalar("x", lo=-1, hi=1)],
                parts=[Part("main", lhs=lambda ctx, v: v.x, rhs=lambda ctx, v: v.x)]).checks()[0]
    config = SearchConfig(seed=0, budget=40_000, shrink=False)
    result = coordinator.run_check(tie, config)
    assert result.verdict.value == "survived"
    generate_chunks = -(-int(config.budget * config.generate_fraction) // config.batch)
    rounds = -(-generate_chunks // config.round_chunks)
    assert 1 <= len(tries) <= rounds + config.elites < generate_chunks + config.elites


def test_a_tie_at_simple_rationals_is_found_whatever_runs_the_chunks():
    import dataclasses

    from verifier.search.coordinator import run_check

    # strict: fails only at a = b = c = 1/3, which no float holds
    thirds = Claim(id="T.thirds", kind="claim", title="thirds", statement="max(a, b, c) > 1/3 on a + b + c = 1",
                   dims=[], variables=[Scalar("a", lo=0, hi=1), Scalar("b", lo=0, hi=1)],
                   parts=[Part("main", relation=">",
                               lhs=lambda ctx, v: ctx.maximum(ctx.maximum(v.a, v.b), 1 - v.a - v.b) + (v.a + v.b - 1) * 0,
                               rhs=lambda ctx, v: ctx.const(Fraction(1, 3)) + v.a * 0)]).checks()[0]
    config = SearchConfig(seed=1, budget=40_000, shrink=False)
    serial, parallel = run_check(thirds, config), run_check(thirds, dataclasses.replace(config, jobs=2))
    assert serial.verdict.value == "refuted", serial.stop_reason
    assert serial.counterexample.vars == parallel.counterexample.vars == {"a": "1/3", "b": "1/3"}
    assert serial.counterexample.found_by.evaluations == parallel.counterexample.found_by.evaluations


def test_cmaes_target_restarts_keep_the_best_point_and_depend_only_on_the_address():
    # a bowl with its floor at x = (0.3, -0.2): CMA-ES converges, stalls and restarts
    bowl = Claim(id="T.bowl", kind="claim", title="bowl", statement="|x - c|^2 + 1 >= 1/2", dims=[Dim("n", 2, 2)],
                 variables=[Vector("x", "n", lo=-1, hi=1)],
                 parts=[Part("main", relation=">=", rhs=lambda ctx, v: v.x[:, 0] * 0 + Fraction(1, 2),
                             lhs=lambda ctx, v: (v.x[:, 0] - Fraction(3, 10)) ** 2 + (v.x[:, 1] + Fraction(1, 5)) ** 2 + 1)]).checks()[0]
    config = SearchConfig(seed=0, budget=30_000, shrink=False, deep=False, target="cmaes")
    start = (1.0, {"x": np.array([[0.9, 0.9]])}, {"n": 2})
    chunk = Chunk("target", 0, 30_000, deadline=float("inf"), start=start)
    a, b = run_chunk((bowl, config, chunk)), run_chunk((bowl, config, chunk))
    assert a.found is None and a.evaluations >= 30_000
    assert a.best is not None and a.best[0] == min(e[0] for e in a.elites)
    assert np.allclose(a.best[2]["x"], [[0.3, -0.2]], atol=1e-4)
    assert a.evaluations == b.evaluations and a.best[0] == b.best[0]
    assert np.array_equal(a.best[2]["x"], b.best[2]["x"])


def test_an_unknown_target_strategy_is_named():
    import pytest

    with pytest.raises(ValueError, match="target must be one of es, cmaes, got 'nelder'"):
        SearchConfig(target="nelder")


def test_a_population_asked_at_once_is_what_cmaes_asks_point_by_point():
    """The target phase's fast ``ask_population`` draws the same points, bit for bit, over
    generations of ask and tell (seeded dimensions, populations and values)."""
    from cmaes import CMA

    from verifier.search.cmaes_calls import ask_population

    for seed in range(12):
        n, pop = 2 + seed % 6, 4 + seed % 7
        a = CMA(mean=np.zeros(n), sigma=0.3, population_size=pop, seed=seed)
        b = CMA(mean=np.zeros(n), sigma=0.3, population_size=pop, seed=seed)
        values = np.random.default_rng(seed)
        for _ in range(10):
            za = np.array([a.ask() for _ in range(a.population_size)])
            zb = ask_population(b)
            assert np.array_equal(za, zb)
            f = values.standard_normal(len(za))
            a.tell(list(zip(za, f)))
            b.tell(list(zip(zb, f)))
