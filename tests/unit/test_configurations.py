"""Known configurations of unit vectors, and how the sampler draws a group of unit vectors from them."""

from __future__ import annotations

import numpy as np
import pytest

from verifier import Claim, Dim, Part, UnitVector
from verifier.configurations import known_configurations, spread_subsets
from verifier.sampling import Sampler


def _largest_cosine(points):
    g = points @ points.T
    np.fill_diagonal(g, -np.inf)
    return g.max()


@pytest.mark.parametrize("d", [1, 2, 3, 4, 5, 8])
def test_every_configuration_is_a_set_of_distinct_unit_vectors(d):
    for conf in known_configurations(d):
        assert conf.shape[1] == d and np.allclose(np.linalg.norm(conf, axis=1), 1)
        assert len(np.unique(np.round(conf, 12), axis=0)) == len(conf)


@pytest.mark.parametrize("d, size, cosine", [(3, 12, 5**-0.5), (4, 24, 0.5), (4, 120, (1 + 5**0.5) / 4), (8, 240, 0.5), (5, 6, -0.2)])
def test_the_famous_ones_are_there(d, size, cosine):
    """The icosahedron, the 24-cell, the 600-cell, E8's roots, the regular simplex."""
    assert any(len(c) == size and np.isclose(_largest_cosine(c), cosine) for c in known_configurations(d))


def test_far_apart_subsets_keep_the_configurations_spread():
    icosahedron = next(c for c in known_configurations(3) if len(c) == 12 and np.isclose(_largest_cosine(c), 5**-0.5))
    picks = spread_subsets(icosahedron, 10, np.random.default_rng(0), 50)
    assert all(len(set(p)) == 10 for p in picks)
    assert max(_largest_cosine(icosahedron[p]) for p in picks) <= 5**-0.5 + 1e-12


def test_a_group_of_unit_vectors_is_drawn_together_from_configurations():
    names = [f"u{i}" for i in range(5)]
    claim = Claim("g", "g", "g", variables=tuple(UnitVector(n, "d") for n in names), dims=(Dim("d", 3, 3),),
                  parts=(Part("main", lambda ctx, v: ctx.sum_all(v.u0), lambda ctx, v: ctx.const(9)),))
    data = Sampler(claim.checks()[0]).sample({"d": 3}, np.random.default_rng(1), 4000)
    points = np.stack([data[n] for n in names], axis=1)  # (batch, 5, 3)
    assert np.allclose(np.linalg.norm(points, axis=2), 1)
    gram = points @ np.swapaxes(points, 1, 2)
    gram[:, np.arange(5), np.arange(5)] = -np.inf
    # the octahedron's and the icosahedron's subsets: largest cosine at most 1/sqrt 5, which
    # five independent random unit vectors in R^3 almost never reach
    share = np.mean(gram.max(axis=(1, 2)) <= 5**-0.5 + 1e-9)
    assert 0.1 < share < 0.5, share
