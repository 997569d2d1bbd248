"""The multi-layer network helpers agree with the definitions written out by hand."""

import numpy as np

from lemmas.alman_song.common import satt, softm
from lemmas.alman_song.network import heads, outputs, parallel_surrogate
from verifier.contexts import ExactContext, FloatContext
from verifier.reporters.text import format_value
from verifier.sampling import Sampler
from tests.conftest import check_of

F = FloatContext()


def _weights(rng, L, H, d, batch=2):
    return [rng.standard_normal((batch, L, H, d, d)) * 0.5 for _ in range(3)]


def test_outputs_follow_definition_3_7():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((2, 3, 2))
    Wq, Wk, Wv = _weights(rng, 2, 2, 2)
    xs = outputs(F, X, Wq, Wk, Wv)
    Z = X
    for l in range(2):
        step = sum(softm(F, Z @ Wq[:, l, h] @ np.swapaxes(Wk[:, l, h], -1, -2) @ np.swapaxes(Z, -1, -2)) @ Z @ Wv[:, l, h] for h in range(2))
        Z = Z + step
        np.testing.assert_allclose(xs[l + 1], Z, rtol=1e-12)
    assert len(xs) == 3


def test_parallel_surrogate_is_the_network_for_one_layer():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((2, 2, 3))
    Wq, Wk, Wv = _weights(rng, 1, 2, 3)
    np.testing.assert_allclose(parallel_surrogate(F, X, Wq, Wk, Wv), outputs(F, X, Wq, Wk, Wv)[-1], rtol=1e-12)
    np.testing.assert_allclose(heads(F, X, Wq[:, 0], Wk[:, 0], Wv[:, 0]), satt(F, X, Wq[:, 0, 0], Wk[:, 0, 0], Wv[:, 0, 0]) + satt(F, X, Wq[:, 0, 1], Wk[:, 0, 1], Wv[:, 0, 1]))


def test_network_is_exact_for_one_token():
    # n = 1: every softmax is 1, so the network is X prod_l (I + sum_h V_lh), exactly
    ctx = ExactContext()
    X = ctx.asarray(np.array([[[1, 2]]], dtype=object))
    W = ctx.asarray(np.array([[[[[1, 0], [0, 1]]]]], dtype=object))
    out = outputs(ctx, X, W, W, W)[-1]
    assert [str(x) for x in out.ravel()] == ["2", "4"]


def test_sampler_draws_layer_by_head_weights():
    check = check_of("D.8", part="1", reading="as-printed")
    dims = {"L": 2, "H": 2, "n": 2, "d": 3}
    data = Sampler(check).sample(dims, np.random.default_rng(0), 500)
    assert data["Wv"].shape == (500, 2, 2, 3, 3)
    assert np.all(np.abs(data["Wv"]) <= data["eta"][:, None, None, None, None] + 1e-12)


def test_text_reporter_labels_each_layer_and_head():
    value = [[[["1", "0"], ["0", "1"]], [["2", "0"], ["0", "2"]]]]
    text = format_value(value)
    assert "[0, 0]" in text and "[0, 1]" in text and "[2  0]" in text
