"""Random draws shared by the sampler's free variables and the kinds of sets.

A batch is split between named *patterns* by weight (:func:`grouped`); each pattern draws its
share.  The helpers here are the pieces patterns are made of: a choice among a few values
(:func:`pick`, which keeps numpy's own stream), log-uniform scales, random supports, signs and
(signed) permutation matrices.  Everything is float64 and batch first; the generator's stream
is part of a seed's meaning, so a change here changes every seeded run.
"""

from __future__ import annotations

import numpy as np


def grouped(rng, size, shape, patterns, make, *args):
    """Split the batch between patterns, generate each group, then shuffle."""
    names = list(patterns)
    w = np.array([patterns[n] for n in names], dtype=float)
    counts = rng.multinomial(size, w / w.sum())
    parts = [make(name, rng, int(c), shape, *args) for name, c in zip(names, counts) if c]
    out = np.concatenate(parts, axis=0) if parts else np.zeros((0,) + tuple(shape))
    return out[rng.permutation(size)]


#: value arrays of :func:`pick`, made once per list of values
_PICK_VALUES: dict = {}


def pick(rng, values, shape):
    """``rng.choice(values, shape)``: the same draws and the same generator state afterwards
    (numpy draws ``integers(0, len(values), shape)`` and indexes), without choice's
    per-call checks of ``values`` -- a sampled batch makes dozens of these calls."""
    key = tuple(values)
    arr = _PICK_VALUES.get(key)
    if arr is None:
        arr = _PICK_VALUES[key] = np.asarray(values, dtype=float)
    return arr[rng.integers(0, len(arr), shape)]


def log_scale(rng, m, lo=-1.0, hi=1.0):
    """m scales, log-uniform on [10^lo, 10^hi]."""
    return 10.0 ** rng.uniform(lo, hi, m)


def per_sample(m, shape, s):
    """m numbers shaped to scale m samples of ``shape`` one each."""
    return s.reshape((m,) + (1,) * len(shape))


def support(rng, m, k, size):
    """m boolean masks of length k with ``size[i]`` entries set."""
    order = np.argsort(rng.random((m, k)), axis=1)
    return order < np.asarray(size).reshape(m, 1)


def signs(rng, m, n):
    """m rows of n random signs."""
    return rng.choice([-1.0, 1.0], (m, n))


def permutations(rng, m, n):
    """m random n x n permutation matrices."""
    out = np.zeros((m, n, n))
    out[np.arange(m)[:, None], np.arange(n)[None], np.argsort(rng.random((m, n)), axis=1)] = 1.0
    return out


def signed_permutations(rng, m, n):
    """Permutation matrices with each row's one entry given a random sign (the same draws, in
    the same order, as a permutation and then its signs)."""
    perm = permutations(rng, m, n)
    return np.where(perm != 0, perm * signs(rng, m, n)[:, :, None], 0.0)  # no -0.0 off the permutation


def scaled(x, total):
    """Float samples scaled by an exact total (left as they are for 1)."""
    return x if total == 1 else x * float(total)


__all__ = ["grouped", "pick", "log_scale", "per_sample", "support", "signs", "permutations", "signed_permutations", "scaled"]
