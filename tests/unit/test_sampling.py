"""The structured sampler: fast paths draw exactly what the plain numpy calls draw."""

import numpy as np


def test_pick_draws_what_rng_choice_draws_and_leaves_the_same_state():
    """The sampler's fast ``pick`` must not change a single sample (seeds reproduce runs)."""
    from verifier.draws import pick as _pick

    shapes = [5, (3,), (40, 2, 3), (7, 1), (0,)]
    for seed in range(20):
        for values in ([-1.0, 1.0], [1.0, 2.0, 3.0, 4.0], [2.0, 3.0, 4.0, 8.0]):
            for shape in shapes:
                a, b = np.random.default_rng(seed), np.random.default_rng(seed)
                assert np.array_equal(_pick(a, values, shape), b.choice(values, shape))
                assert a.random() == b.random()
