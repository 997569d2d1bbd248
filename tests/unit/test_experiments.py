"""The experiments' engine at small sizes: measures, the worst-input search, the surrogate fit,
and what the runs measure (seeded, seconds)."""

import dataclasses

import numpy as np
import pytest
from scipy.optimize import check_grad

from verifier.experiments import LayerCollapseConfig, RankCollapseConfig, run_layer_collapse, run_rank_collapse
from verifier.experiments.blocks import paper_parallel_surrogate, paper_san
from verifier.experiments.layer_collapse import _loss_and_gradient, fit_one_layer, one_layer, worst_input
from verifier.experiments.plots import figure_bytes, layer_collapse_figures, rank_collapse_figures, save_figures
from verifier.experiments.rank_collapse import relative_residuals
from verifier.experiments.records import RecordError, result_from_json
from verifier.reporters.experiments_html import experiments_section
from verifier.reporters.experiments_report import dumps


@pytest.fixture(scope="module")
def layer_result():
    return run_layer_collapse(LayerCollapseConfig.small(seed=11))


@pytest.fixture(scope="module")
def rank_result():
    return run_rank_collapse(RankCollapseConfig.small(seed=5))


def test_measures_of_collapsed_and_known_matrices():
    rng = np.random.default_rng(0)
    row = rng.normal(size=(1, 1, 6))
    collapsed = np.repeat(row, 5, axis=1)
    values = relative_residuals(collapsed)
    assert all(v[0] < 1e-15 for v in values.values())
    # equal rows are no residual at all: the residuals that compare rows read exactly 0 (a mean of
    # n equal float64 numbers need not be that number: (0.1 + 0.1 + 0.1) / 3 is not 0.1)
    for n in (3, 5, 7, 128):
        for dtype in (np.float64, np.float32):
            equal = np.repeat(np.concatenate([[[[0.1, 0.7, 1 / 3]]], row[:, :, :3]], axis=0), n, axis=1).astype(dtype)
            values = relative_residuals(equal)
            assert list(values["composite"]) == [0.0, 0.0] and list(values["res_max"]) == [0.0, 0.0], (n, dtype)
    # X = [[1, 0], [0, 1]]: X - 1 mean^T = [[.5, -.5], [-.5, .5]], induced 1- and inf-norms 1 and 1
    X = np.eye(2)[None]
    values = relative_residuals(X)
    assert values["composite"][0] == pytest.approx(1.0)
    assert values["res_max"][0] == pytest.approx(0.5)  # midrange 1/2 per column
    assert values["rank1"][0] == pytest.approx(np.sqrt(0.5))  # singular values 1, 1


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rank_one_residual_matches_the_singular_values(seed):
    """The rank-1 distance from the Gram matrix's top eigenvector agrees with the SVD's tail,
    also for nearly rank-one matrices where eigenvalues alone would cancel to nothing."""
    rng = np.random.default_rng(seed)
    n, d = (int(v) for v in rng.integers(3, 40, size=2))
    for noise in (1.0, 1e-4, 1e-9):
        X = rng.normal(size=(3, n, 1)) @ rng.normal(size=(3, 1, d)) + noise * rng.normal(size=(3, n, d))
        singular = np.linalg.svd(X, compute_uv=False)
        expected = np.sqrt(np.sum(singular[:, 1:] ** 2, axis=-1) / np.sum(singular**2, axis=-1))
        assert relative_residuals(X)["rank1"] == pytest.approx(expected, rel=1e-5)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_worst_input_reaches_the_corner_optimum_of_a_linear_map(seed):
    """For distance(X) = X A the worst ratio over the box is the largest column l1 norm of A."""
    rng = np.random.default_rng(seed)
    d = int(rng.integers(2, 5))
    A = rng.normal(size=(d, d))
    ratio, X = worst_input(lambda Z: Z @ A, (3, d), starts=2, rng=np.random.default_rng(seed + 100))
    assert ratio == pytest.approx(np.abs(A).sum(axis=0).max(), rel=1e-9)
    assert np.abs(X).max() <= 1.0


def test_fit_gradient_is_exact_and_fit_recovers_a_one_layer_network():
    rng = np.random.default_rng(7)
    shape = (2, 3, 3)
    X = rng.uniform(-1, 1, size=(20, 4, 3))
    target = rng.normal(size=X.shape)
    params = rng.normal(size=3 * 18) * 0.5
    assert check_grad(lambda p: _loss_and_gradient(p, X, target, shape)[0],
                      lambda p: _loss_and_gradient(p, X, target, shape)[1], params) < 1e-5
    true = tuple(rng.normal(size=shape) * 0.3 for _ in range(3))
    start = tuple(w + rng.normal(size=shape) * 0.05 for w in true)

    def network(Z):
        return one_layer(Z, *true)

    before = np.abs(network(X) - one_layer(X, *start)).max()
    fitted = fit_one_layer(network, start, X, iterations=300)
    after = np.abs(network(X) - one_layer(X, *fitted)).max()
    assert after < before / 100


def test_parallel_surrogate_is_exact_for_one_layer():
    rng = np.random.default_rng(4)
    W = rng.uniform(-0.5, 0.5, size=(3, 1, 2, 3, 3))
    X = rng.uniform(-1, 1, size=(5, 4, 3))
    assert np.allclose(paper_san(X, *W), paper_parallel_surrogate(X, *W), rtol=0, atol=1e-14)


def test_layer_collapse_slopes_follow_the_order_of_the_surrogate(layer_result):
    """Identity misses the first-order term (slope 1); the parallel network keeps it and misses
    the products of two layers (slope 2); the fitted one, free to absorb those, does better."""
    for s in layer_result.slopes:
        if s.surrogate == "identity":
            assert s.slope == pytest.approx(1.0, abs=0.1)
        elif s.surrogate == "parallel":
            assert s.slope == pytest.approx(2.0, abs=0.1)
        else:
            assert s.slope > 2.5
    for g in layer_result.gaps:
        assert g.random_mean_ratio <= g.random_max_ratio <= g.worst_ratio * (1 + 1e-12)
        assert 0 < g.worst_input_norm <= 1.0


def test_layer_collapse_is_seeded(layer_result):
    again = run_layer_collapse(LayerCollapseConfig.small(seed=11))
    assert dataclasses.replace(again, seconds=0) == dataclasses.replace(layer_result, seconds=0)


def test_rank_collapse_curves(rank_result):
    config = rank_result.config
    for precision in config.precisions:
        san = rank_result.curve("san", precision, "composite")
        assert san[-1] < 1e-5 * san[0]  # attention alone collapses the rank at initialisation
        for variant in ("san+skip", "transformer"):
            assert rank_result.curve(variant, precision, "composite")[-1] > 0.1
    floors = {(f.variant, f.precision, f.measure): f for f in rank_result.floors}
    for precision in config.precisions:
        # collapsed to the precision's floor: rows bitwise equal (exactly 0; a BLAS kernel that
        # computes equal rows alike) or a few roundoffs of rounding re-created by every layer
        san = floors["san", precision, "composite"]
        assert (san.plateau == 0) == (san.equal_rows == config.batch), san
        assert san.in_roundoffs < 100
        assert san.equal_rows == config.batch or san.in_roundoffs > 0.1, san
    assert floors["san", "float64", "composite"].plateau < 1e-12
    sweep = {(s.factor, s.surrogate): s for s in rank_result.sweep}
    small = min(config.weight_factors)
    assert sweep[small, "parallel"].relative_to_input < sweep[small, "identity"].relative_to_input
    assert len(sweep[small, "fitted"].coefficients) == config.depth * config.heads


def test_rank_collapse_is_seeded(rank_result):
    again = run_rank_collapse(RankCollapseConfig.small(seed=5))
    assert dumps("rank-collapse", dataclasses.replace(again, seconds=0, sweep_cpu_seconds=0)) == \
        dumps("rank-collapse", dataclasses.replace(rank_result, seconds=0, sweep_cpu_seconds=0))


@pytest.mark.parametrize("seed", [21, 22])
def test_fitted_surrogate_recovers_a_one_layer_network(seed):
    """A one-layer network is its own parallel surrogate: the fit, made on other sequences,
    must find coefficients 1 and distance ~0, while the identity stays far."""
    rng = np.random.default_rng(seed)
    config = dataclasses.replace(RankCollapseConfig.small(seed=seed), depth=1, precisions=("float32",),
                                 weight_factors=(float(rng.uniform(0.02, 0.3)),), sweep_batch=4)
    rows = {s.surrogate: s for s in run_rank_collapse(config).sweep}
    assert rows["fitted"].coefficients == pytest.approx([1.0] * config.heads, abs=1e-6)
    assert rows["fitted"].relative_to_output < 1e-10 < rows["identity"].relative_to_output


def test_results_read_back_from_their_json(layer_result, rank_result):
    import json
    for kind, result in (("layer-collapse", layer_result), ("rank-collapse", rank_result)):
        text = dumps(kind, result)
        read_kind, read = result_from_json(json.loads(text))
        assert read_kind == kind and dumps(kind, read) == text
    doc = json.loads(dumps("rank-collapse", rank_result))
    doc["curves"][0]["layer"] = "one"
    with pytest.raises(RecordError, match=r"curves\[0\]\.layer: expected int"):
        result_from_json(doc)
    with pytest.raises(RecordError, match="schema 7"):
        result_from_json({**doc, "schema": 7})


def test_config_errors_name_the_bad_value():
    with pytest.raises(ValueError, match="heads 5"):
        RankCollapseConfig(width=32, heads=5)
    with pytest.raises(ValueError, match="depths"):
        LayerCollapseConfig(depths=(1, 2))
    with pytest.raises(ValueError, match="etas"):
        LayerCollapseConfig(etas=(0.5, 1.0))


def test_figures_files_and_html(layer_result, rank_result, tmp_path):
    figures = {**layer_collapse_figures(layer_result), **rank_collapse_figures(rank_result)}
    assert len(figures) == 4
    assert figure_bytes(figures["rank_collapse_residuals"], "png").startswith(b"\x89PNG")
    written = save_figures({"layer_collapse_bound": figures["layer_collapse_bound"]}, tmp_path)
    assert sorted(p.name for p in written) == ["layer_collapse_bound.png", "layer_collapse_bound.svg"]
    assert "<svg" in written[1].read_text()
    html = experiments_section(rank_result)
    assert html.startswith('<section id="experiments">') and html.count("<svg") == 2 and "Layer collapse (Theorem" not in html
    both = experiments_section(layer_result, rank_result)
    assert both.count("<svg") == 4 and both.index("Layer collapse (Theorem") < both.index("Rank collapse at")
