"""Known configurations of unit vectors: where claims about many unit vectors are extremal.

A claim on k unit vectors in R^d that bounds their largest pairwise cosine (a spherical code,
a kissing configuration, nearly orthogonal features) is extremal at configurations no random
draw comes near in 36 to 96 coordinates: the icosahedron's 12 vertices (cosine 1/sqrt 5), the
24-cell's 24 (cosine 1/2), the cross-polytope (0), the simplex (-1/d).  The sampler draws a
share of its candidates for such a group from these point sets -- polytope vertices, root
systems, shells of the integer lattice -- turned by a random orthogonal map, with the k
points chosen far apart when the set has more (:func:`spread_subsets`).

Plain float64 point sets of unit vectors, nothing exact: a candidate is moved onto the
sphere in rationals as any other sample is.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

#: configurations larger than this are not listed (a lattice shell grows fast with d)
MAX_POINTS = 2048
GOLDEN = (1 + 5**0.5) / 2


def _unit(points) -> np.ndarray:
    x = np.unique(np.asarray(points, dtype=float), axis=0)
    x = x[np.any(x != 0, axis=1)]
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _signed(vectors):
    """Every sign pattern of every vector's nonzero entries."""
    out = []
    for v in vectors:
        nonzero = [i for i, x in enumerate(v) if x]
        for signs in itertools.product((1, -1), repeat=len(nonzero)):
            w = list(v)
            for i, s in zip(nonzero, signs):
                w[i] = s * w[i]
            out.append(w)
    return out


def _cyclic(vectors):
    return [v[i:] + v[:i] for v in vectors for i in range(len(v))]


def _even_permutations(v):
    n = len(v)
    out = []
    for perm in itertools.permutations(range(n)):
        inversions = sum(1 for i in range(n) for j in range(i + 1, n) if perm[i] > perm[j])
        if inversions % 2 == 0:
            out.append([v[p] for p in perm])
    return out


def lattice_shell(d, norm2) -> np.ndarray | None:
    """The integer vectors of squared norm ``norm2`` in Z^d (their directions), if not too many."""
    top = int(norm2**0.5)
    patterns = set()
    for combo in itertools.combinations_with_replacement(range(top + 1), d):
        if sum(x * x for x in combo) == norm2:
            patterns.add(combo)
    points = set()
    for p in patterns:
        for perm in set(itertools.permutations(p)):
            for w in _signed([list(perm)]):
                points.add(tuple(w))
                if len(points) > MAX_POINTS:
                    return None
    return _unit(sorted(points)) if points else None


def regular_simplex(d) -> np.ndarray:
    """d + 1 unit vectors in R^d with every pairwise cosine -1/d."""
    e = np.eye(d + 1) - 1.0 / (d + 1)
    u, _, _ = np.linalg.svd(e)
    return _unit(e @ u[:, :d])


@functools.lru_cache(maxsize=32)
def known_configurations(d: int) -> tuple[np.ndarray, ...]:
    """Point sets of unit vectors in R^d: its own, and those of R^(d-1) padded with a zero."""
    out = list(_native(d)) + [np.hstack([c, np.zeros((len(c), 1))]) for c in _native(d - 1)]
    unique = []
    for c in out:
        if not any(len(c) == len(u) and np.allclose(c, u) for u in unique):
            unique.append(c)
    return tuple(unique)


@functools.lru_cache(maxsize=32)
def _native(d: int) -> tuple[np.ndarray, ...]:
    if d < 1:
        return ()
    out = [_unit(np.vstack([np.eye(d), -np.eye(d)]))]  # cross-polytope
    if d >= 2:
        out.append(regular_simplex(d))
        if 2**d <= MAX_POINTS:
            out.append(_unit(list(itertools.product((1, -1), repeat=d))))  # hypercube
        for norm2 in (2, 3, 5):  # lattice shells; norm 2 is the root system D_d
            shell = lattice_shell(d, norm2)
            if shell is not None:
                out.append(shell)
    if d == 3:
        out.append(_unit(_signed(_cyclic([[0, 1, GOLDEN]]))))  # icosahedron
        out.append(_unit(_signed([[1, 1, 1]]) + _signed(_cyclic([[0, 1 / GOLDEN, GOLDEN]]))))  # dodecahedron
    if d == 4:
        out.append(_unit(np.vstack([np.eye(4), -np.eye(4), np.array(list(itertools.product((0.5, -0.5), repeat=4)))])))  # dual 24-cell
        half = [w for v in _signed([[GOLDEN, 1, 1 / GOLDEN, 0]]) for w in _even_permutations(v)]
        out.append(_unit(np.vstack([np.eye(4), -np.eye(4), np.array(list(itertools.product((0.5, -0.5), repeat=4))), np.array(half) / 2])))  # 600-cell
    if d == 8:
        roots = list(lattice_shell(8, 2) * 2**0.5)  # D8: 112 roots
        halves = [v for v in itertools.product((0.5, -0.5), repeat=8) if sum(1 for x in v if x < 0) % 2 == 0]
        out.append(_unit(list(roots) + halves))  # E8
    return tuple(out)


def spread_subsets(points, k, rng, m) -> np.ndarray:
    """m choices of k of the points (indices, shape (m, k)), each far apart: a random first
    point, then repeatedly the one whose largest cosine to those chosen is least (ties at
    random)."""
    n = len(points)
    if k >= n:
        return np.argsort(rng.random((m, n)), axis=1)
    gram = points @ points.T
    noise = rng.random((m, n)) * 1e-9
    chosen = np.empty((m, k), dtype=int)
    chosen[:, 0] = rng.integers(0, n, m)
    worst = gram[chosen[:, 0]].copy()
    worst[np.arange(m), chosen[:, 0]] = np.inf
    for j in range(1, k):
        pick = np.argmin(worst + noise, axis=1)
        chosen[:, j] = pick
        worst = np.maximum(worst, gram[pick])
        worst[np.arange(m), pick] = np.inf
    return chosen


__all__ = ["known_configurations", "spread_subsets", "lattice_shell", "regular_simplex"]
