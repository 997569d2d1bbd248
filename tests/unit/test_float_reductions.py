"""FloatContext's fast reductions give numpy's results on every axis combination."""

import numpy as np
import pytest

from verifier.contexts import FloatContext

F = FloatContext()
SHAPES = [(100, 8, 8), (100, 7, 3), (100, 1, 5), (100, 5), (70, 3, 4, 5), (10, 3, 3)]


def _axes(ndim):
    out = [-1, 1, tuple(range(1, ndim))]
    if ndim > 2:
        out += [-2, (1, 2), (-2, -1)]
    return out


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_max_min_sum_match_numpy(shape):
    x = np.random.default_rng(len(shape)).standard_normal(shape)
    for axis in _axes(len(shape)):
        for keepdims in (True, False):
            assert np.array_equal(F.max(x, axis, keepdims), np.max(x, axis=axis, keepdims=keepdims))
            assert np.array_equal(F.min(x, axis, keepdims), np.min(x, axis=axis, keepdims=keepdims))
            assert np.allclose(F.sum(x, axis, keepdims), np.sum(x, axis=axis, keepdims=keepdims), rtol=1e-13, atol=1e-13)


def test_nan_propagates_like_numpy():
    x = np.random.default_rng(0).random((200, 3, 3))
    x[5, 1, 1] = np.nan
    assert np.isnan(F.max(x, (1, 2))[5]) and np.isnan(F.min(x, -1)[5, 1]) and np.isnan(F.max(x, -2)[5, 1])
    assert not np.isnan(F.max(x, (1, 2))[4])


def test_non_contiguous_input():
    x = np.random.default_rng(1).standard_normal((128, 6, 4)).swapaxes(1, 2)
    assert np.array_equal(F.max(x, (1, 2)), np.max(x, axis=(1, 2)))
    assert np.array_equal(F.min(x, -2, True), np.min(x, axis=-2, keepdims=True))
