"""Theorem D.1 (layer collapse) measured: how far an L-layer Self-Attention Network with skips
(Definition 3.7, every weight entry within eta) is from one-layer surrogates.

For every width d, depth L and weight bound eta the network's weights are eta times one fixed
draw U (entries uniform in [-1, 1]), so the curves in eta follow one network.  Each surrogate
S' is measured by the worst ratio ||S(X) - S'(X)||_inf / ||X||_inf (entrywise max norm) found
over the box ||X||_inf <= phi_0 = 1 by L-BFGS-B from seeded starts (the largest of a random
pool), and by the mean and maximum over random inputs.  The surrogates:

* ``parallel``: the one-layer network of the theorem's proof, X + sum_l sum_h SAtt_{l,h}(X);
* ``fitted``: a one-layer network with L*H free heads, started at ``parallel`` and fitted by
  least squares to S on random inputs, then refitted with the worst inputs found against it
  added (``fit_rounds`` times) - an optimised surrogate, not a proven optimum;
* ``identity``: S'(X) = X (one layer with W_v = 0).

The theorem's explicit bound is checked at eta = A/(HL) with A = 1, phi_0 = 1: worst
||S(X) - S'(X)||_inf against 2A/L.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy.optimize import minimize
from threadpoolctl import threadpool_limits

from .blocks import paper_heads, paper_parallel_surrogate, paper_san

SURROGATES = ("parallel", "fitted", "identity")
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class LayerCollapseConfig:
    etas: tuple[float, ...] = (1e-3, 3e-3, 1e-2, 3e-2, 1e-1, 3e-1, 1.0)
    widths: tuple[int, ...] = (2, 4, 8)
    depths: tuple[int, ...] = (2, 4, 8)
    heads: int = 2
    tokens: int = 4
    starts: int = 4
    random_inputs: int = 256
    fit_inputs: int = 64
    fit_rounds: int = 2
    search_iterations: int = 60  # L-BFGS-B iterations per start of the worst-input search
    fit_iterations: int = 300  # L-BFGS-B iterations per fit of the one-layer surrogate
    small_eta: float = 0.1  # the slope is fitted on eta <= small_eta (the theorem's regime)
    seed: int = 0

    def __post_init__(self):
        if not self.etas or any(not (e > 0) for e in self.etas):
            raise ValueError(f"etas must be positive, got {self.etas}")
        if sum(e <= self.small_eta for e in self.etas) < 2:
            raise ValueError(f"at least two etas must be <= {self.small_eta} to fit a slope, got {self.etas}")
        if not self.widths or min(self.widths) < 1 or not self.depths or min(self.depths) < 2:
            raise ValueError(f"widths must be >= 1 and depths >= 2 (one layer is its own surrogate), got {self.widths}, {self.depths}")
        for name in ("heads", "tokens", "starts", "random_inputs", "fit_inputs", "search_iterations", "fit_iterations"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.fit_rounds < 0:
            raise ValueError(f"fit_rounds must be >= 0, got {self.fit_rounds}")

    @classmethod
    def small(cls, seed: int = 0) -> "LayerCollapseConfig":
        """A grid that runs in a few seconds, for tests."""
        return cls(etas=(1e-3, 1e-2, 1e-1, 1.0), widths=(2, 4), depths=(2, 3), heads=1, tokens=3,
                   starts=2, random_inputs=32, fit_inputs=16, fit_rounds=1, search_iterations=10,
                   fit_iterations=40, seed=seed)


@dataclass(frozen=True)
class SurrogateGap:
    """One surrogate at one (d, L, eta): the worst ratio found adversarially (with its input's
    norm and the absolute distance there) and the mean and maximum over random inputs."""

    width: int
    depth: int
    eta: float
    surrogate: str
    worst_ratio: float
    worst_distance: float
    worst_input_norm: float
    random_mean_ratio: float
    random_max_ratio: float


@dataclass(frozen=True)
class SlopeFit:
    """log(worst ratio) = slope * log(eta) + log(constant), least squares on eta <= small_eta."""

    width: int
    depth: int
    surrogate: str
    slope: float
    constant: float
    slope_all_etas: float


@dataclass(frozen=True)
class TheoremCheck:
    """The worst distance found at the theorem's largest eta = A/(HL) (A = 1, phi_0 = 1)
    against its explicit bound 2A/L."""

    width: int
    depth: int
    eta: float
    surrogate: str
    worst_distance: float
    bound: float
    over_bound: float


@dataclass(frozen=True)
class GrowthFit:
    """How a quantity grows along one axis (width or depth) with the other fixed: the
    least-squares exponent p of quantity ~ axis^p, and the points it was fitted to."""

    surrogate: str
    quantity: str
    axis: str
    fixed: int
    points: tuple[tuple[int, float], ...]
    exponent: float


@dataclass(frozen=True)
class LayerCollapseResult:
    config: LayerCollapseConfig
    gaps: tuple[SurrogateGap, ...]
    slopes: tuple[SlopeFit, ...]
    theorem: tuple[TheoremCheck, ...]
    growth: tuple[GrowthFit, ...]
    seconds: float


# --- the worst input ---------------------------------------------------------------------

def _ratios(distance: Callable[[np.ndarray], np.ndarray], X: np.ndarray) -> np.ndarray:
    gap = np.abs(distance(X)).max(axis=(-2, -1))
    return gap / np.abs(X).max(axis=(-2, -1))


def worst_input(distance, shape, starts: int, rng: np.random.Generator, iterations: int = 60, pool: int = 64):
    """The input in the box [-1, 1]^shape with the largest ||distance(X)||_inf / ||X||_inf found:
    L-BFGS-B (gradient by batched central differences) from the best ``starts`` of a random pool
    of corners and interior points.  Returns (ratio, X)."""
    corners = rng.choice([-1.0, 1.0], size=(pool, *shape))
    interior = rng.uniform(-1.0, 1.0, size=(pool, *shape))
    candidates = np.concatenate([corners, interior])
    ratios = _ratios(distance, candidates)
    order = np.argsort(-ratios)[:starts]
    best_ratio, best_X = float(ratios[order[0]]), candidates[order[0]]
    size = int(np.prod(shape))
    step = 1e-6
    probes = np.concatenate([np.eye(size), -np.eye(size)]) * step

    for index in order:
        scale = float(ratios[index]) or 1.0  # L-BFGS-B's tolerances are absolute: work at unit size

        def negative_ratio(flat):
            batch = np.clip(flat + probes, -1.0, 1.0)
            values = _ratios(distance, np.concatenate([flat[None], batch]).reshape(-1, *shape))
            widths = (batch - flat)[np.arange(2 * size), np.tile(np.arange(size), 2)]
            gradient = (values[1:size + 1] - values[size + 1:]) / (widths[:size] - widths[size:])
            return -values[0] / scale, -gradient / scale

        found = minimize(negative_ratio, candidates[index].ravel(), jac=True, method="L-BFGS-B",
                         bounds=[(-1.0, 1.0)] * size, options={"maxiter": iterations})
        X = found.x.reshape(shape)
        ratio = float(_ratios(distance, X[None])[0])
        if ratio > best_ratio:
            best_ratio, best_X = ratio, X
    return best_ratio, best_X


# --- the fitted one-layer surrogate -------------------------------------------------------

def one_layer(X, Wq, Wk, Wv):
    """A one-layer network with skip and free heads: X + sum_h softm(X Q_h K_h^T X^T) X V_h."""
    return X + paper_heads(X, Wq, Wk, Wv)


def _loss_and_gradient(params, X, target, shape):
    """Mean squared error of the one-layer network against ``target`` and its exact gradient
    (backpropagation through softmax by hand: the experiments use numpy only)."""
    Wq, Wk, Wv = params.reshape(3, *shape)
    out = X.copy()
    cache = []
    for Q, K, V in zip(Wq, Wk, Wv):
        M = Q @ K.T
        scores = X @ M @ np.swapaxes(X, -1, -2)
        P = np.exp(scores - scores.max(axis=-1, keepdims=True))
        P /= P.sum(axis=-1, keepdims=True)
        XV = X @ V
        out += P @ XV
        cache.append((P, XV))
    residual = out - target
    loss = float(np.mean(residual**2))
    G = 2.0 * residual / residual.size
    grads = np.zeros((3, *shape))
    for h, ((P, XV), Q, K) in enumerate(zip(cache, Wq, Wk)):
        grads[2, h] = np.einsum("bnd,bne->de", P @ X, G)
        dP = G @ np.swapaxes(XV, -1, -2)
        dS = P * (dP - np.sum(dP * P, axis=-1, keepdims=True))
        dM = np.einsum("bni,bnm,bmj->ij", X, dS, X)
        grads[0, h] = dM @ K
        grads[1, h] = dM.T @ Q
    return loss, grads.ravel()


def fit_one_layer(network, start, X, iterations: int = 300):
    """Least-squares fit of a one-layer network's heads to ``network`` on inputs X, from the
    weights ``start`` = (Wq, Wk, Wv) (each heads x d x d).  Returns the fitted weights."""
    shape = start[0].shape
    target = network(X)
    initial = np.concatenate([w.ravel() for w in start])
    scale = _loss_and_gradient(initial, X, target, shape)[0] or 1.0

    def objective(params):
        loss, gradient = _loss_and_gradient(params, X, target, shape)
        return loss / scale, gradient / scale

    found = minimize(objective, initial, jac=True, method="L-BFGS-B", options={"maxiter": iterations})
    params = found.x if found.fun <= 1.0 else initial  # never worse than the start on the training set
    return tuple(params.reshape(3, *shape))


# --- the sweep -----------------------------------------------------------------------------

def _surrogate_gap(config, width, depth, eta, name, network, surrogate, rng):
    def distance(X):
        return network(X) - surrogate(X)

    shape = (config.tokens, width)
    ratio, X = worst_input(distance, shape, config.starts, rng, config.search_iterations)
    random_ratios = _ratios(distance, rng.uniform(-1.0, 1.0, size=(config.random_inputs, *shape)))
    norm = float(np.abs(X).max())
    return SurrogateGap(width, depth, eta, name, ratio, ratio * norm, norm,
                        float(np.mean(random_ratios)), float(np.max(random_ratios)))


def _surrogates(config, width, Wq, Wk, Wv, network, rng):
    """The named one-layer surrogates of one network; ``fitted`` is trained here."""
    flat = tuple(W.reshape(-1, width, width) for W in (Wq, Wk, Wv))
    shape = (config.tokens, width)
    fitted = flat
    if config.fit_inputs:
        training = rng.uniform(-1.0, 1.0, size=(config.fit_inputs, *shape))
        fitted = fit_one_layer(network, flat, training, config.fit_iterations)
        for _ in range(config.fit_rounds):
            worst = [worst_input(lambda X, w=fitted: network(X) - one_layer(X, *w), shape, 1, rng, config.search_iterations)[1]
                     for _ in range(config.starts)]
            training = np.concatenate([training, np.array(worst)])
            fitted = fit_one_layer(network, fitted, training, config.fit_iterations)
    return {
        "parallel": lambda X: paper_parallel_surrogate(X, Wq, Wk, Wv),
        "fitted": lambda X: one_layer(X, *fitted),
        "identity": lambda X: X,
    }


def _fit_slope(gaps, config):
    etas = np.array([g.eta for g in gaps])
    values = np.array([g.worst_ratio for g in gaps])
    keep = (etas <= config.small_eta) & (values > 0)
    if keep.sum() < 2:
        return float("nan"), float("nan"), float("nan")
    slope, intercept = np.polyfit(np.log(etas[keep]), np.log(values[keep]), 1)
    positive = values > 0
    slope_all = np.polyfit(np.log(etas[positive]), np.log(values[positive]), 1)[0] if positive.sum() >= 2 else float("nan")
    return float(slope), float(np.exp(intercept)), float(slope_all)


def _growth(config, slopes, theorem):
    """Exponents of the small-eta constant and of distance/(2A/L) along width and depth."""
    fits = []
    quantities = {
        "constant": {(s.surrogate, s.width, s.depth): s.constant for s in slopes},
        "over-bound": {(t.surrogate, t.width, t.depth): t.over_bound for t in theorem},
    }
    for quantity, table in quantities.items():
        for name in SURROGATES:
            for axis, axis_values, others in (("width", config.widths, config.depths), ("depth", config.depths, config.widths)):
                if len(axis_values) < 2:
                    continue
                for fixed in others:
                    key = (lambda a, f: (name, a, f)) if axis == "width" else (lambda a, f: (name, f, a))
                    points = tuple((a, float(table[key(a, fixed)])) for a in axis_values)
                    usable = [(a, v) for a, v in points if v > 0 and np.isfinite(v)]
                    exponent = float(np.polyfit(np.log([a for a, _ in usable]), np.log([v for _, v in usable]), 1)[0]) if len(usable) >= 2 else float("nan")
                    fits.append(GrowthFit(name, quantity, axis, fixed, points, exponent))
    return fits


def run_layer_collapse(config: LayerCollapseConfig = LayerCollapseConfig(), progress: Progress | None = None) -> LayerCollapseResult:
    # The matrices are a few rows wide: BLAS threads only wait on each other (measured 12x
    # slower with two threads on a busy machine), so this sweep runs on one.
    with threadpool_limits(limits=1, user_api="blas"):
        return _sweep(config, progress)


def _sweep(config, progress):
    started = time.perf_counter()
    grid = [(d, L) for d in config.widths for L in config.depths]
    total = len(grid) * (len(config.etas) + 1)
    done = 0
    gaps, slopes, theorem = [], [], []
    for width, depth in grid:
        rng = np.random.default_rng([config.seed, width, depth])
        U = rng.uniform(-1.0, 1.0, size=(3, depth, config.heads, width, width))
        theorem_eta = 1.0 / (config.heads * depth)  # A = 1, phi_0 = 1 <= HL
        for eta in (*config.etas, theorem_eta):
            Wq, Wk, Wv = eta * U

            def network(X, Wq=Wq, Wk=Wk, Wv=Wv):
                return paper_san(X, Wq, Wk, Wv)

            surrogates = _surrogates(config, width, Wq, Wk, Wv, network, rng)
            for name in SURROGATES:
                gap = _surrogate_gap(config, width, depth, eta, name, network, surrogates[name], rng)
                if eta is theorem_eta:
                    bound = 2.0 / depth
                    theorem.append(TheoremCheck(width, depth, eta, name, gap.worst_distance, bound, gap.worst_distance / bound))
                else:
                    gaps.append(gap)
            done += 1
            if progress:
                progress(done, total)
        for name in SURROGATES:
            slopes.append(SlopeFit(width, depth, name, *_fit_slope([g for g in gaps if (g.width, g.depth, g.surrogate) == (width, depth, name)], config)))
    return LayerCollapseResult(config, tuple(gaps), tuple(slopes), tuple(theorem), tuple(_growth(config, slopes, theorem)), time.perf_counter() - started)
