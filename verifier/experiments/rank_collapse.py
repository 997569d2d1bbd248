"""Dong, Cordonnier & Loukas (2021)'s rank-collapse curves at BERT-base's initialisation, and
the layer collapse of Alman & Song's Theorem D.1 at the same initialisation under a weight scale.

Four variants are run in lockstep on the same weights and the same input batch:
``san`` (attention only), ``san+mlp``, ``san+skip`` and ``transformer`` (BERT's post-LN block),
each with BERT's LayerNorm after every sub-layer where BERT has one (``layer_norm=False``
drops them).  After every layer three relative residuals are measured, always in float64 on
the activations the network produced (so a float32 run is judged by what float32 stored):

* ``composite``: ||X - 1 mean(X)^T|| / ||X|| with sqrt(||.||_1 ||.||_inf) of the induced norms
  (Dong et al.'s measure), the mean taken of the rows' differences from the first row: the same
  matrix, but exactly 0 when the rows are equal (the mean of n equal float64 numbers is not
  always that number, and read a few roundoffs of residual that the network did not have);
* ``res_max``: ||Res(X)||_max / ||X||_max, Res of Definition 3.4 with the midrange minimiser in
  the entrywise max norm (this paper's measure);
* ``rank1``: ||X - X_1||_F / ||X||_F with X_1 the best rank-1 approximation, X_1 = u u^T X for
  u the top eigenvector of the Gram matrix X X^T (Eckart-Young), and the residual X - X_1 formed
  explicitly.  Not sqrt(trace - lambda_1) from the eigenvalues: that subtraction cancels, and a
  collapsed network's residual (1e-15 of ||X||) would drown in an error of sqrt(eps) ~ 1e-8.  An
  error delta in u enlarges the residual only by O(delta^2), so this is as exact as the SVD's
  singular values, at half the SVD's cost on one BLAS thread.

The weight sweep runs Definition 3.7's network (``san+skip`` without LayerNorm) at BERT's shape
with every weight N(0, f^2) for the factors f, i.e. the same standard normal draws scaled, and
measures how far its output is from four one-layer surrogates, each a one-layer network with
the L*H heads of the deep network applied to the input X:

* ``parallel``: Theorem D.1's proof's network, X + sum_l sum_h head_{l,h}(X);
* ``fitted``: X + sum_l sum_h c_{l,h} head_{l,h}(X), the L*H coefficients (each scales a head's
  value matrix, so the surrogate is still one layer of L*H heads) fitted by least squares to
  S(X) - X, cross-fitted: the coefficients used on one half of the sequences are fitted on the
  other half.  A fit within a family of L*H parameters, so its distance is an upper bound on
  the distance to the best one-layer surrogate, not that distance itself (the layer-collapse
  experiment fits all L*H*3 weight matrices; at d = 768 that is 2e7 parameters and 2e11 flops a
  gradient, beyond the two-minute goal);
* ``identity``: X, and ``first-layer``: X + sum_h head_{1,h}(X).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Callable

import numpy as np

from scipy.linalg import eigh
from threadpoolctl import threadpool_limits

from .blocks import attention_contexts, bert_attention, bert_mlp, layer_norm

VARIANTS = ("san", "san+mlp", "san+skip", "transformer")
MEASURES = ("composite", "res_max", "rank1")
SURROGATES = ("parallel", "fitted", "identity", "first-layer")
PRECISIONS = ("float64", "float32")

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class RankCollapseConfig:
    width: int = 768
    heads: int = 12
    depth: int = 12
    tokens: int = 128
    batch: int = 32
    mlp_width: int = 3072
    vocab: int = 30522
    init_std: float = 0.02
    layer_norm: bool = True
    precisions: tuple[str, ...] = PRECISIONS
    weight_factors: tuple[float, ...] = (0.02, 0.05, 0.1, 0.2, 0.5, 1.0)
    sweep_batch: int = 4
    seed: int = 0

    def __post_init__(self):
        for name in ("width", "heads", "depth", "tokens", "batch", "mlp_width", "vocab", "sweep_batch"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.width % self.heads:
            raise ValueError(f"width {self.width} is not a multiple of heads {self.heads}")
        if self.tokens < 2:
            raise ValueError(f"tokens must be at least 2 (rank collapse needs two rows), got {self.tokens}")
        if not self.init_std > 0:
            raise ValueError(f"init_std must be positive, got {self.init_std}")
        if any(not f > 0 for f in self.weight_factors):
            raise ValueError(f"weight factors must be positive, got {self.weight_factors}")
        unknown = set(self.precisions) - set(PRECISIONS)
        if unknown or not self.precisions:
            raise ValueError(f"precisions must be a non-empty subset of {PRECISIONS}, got {self.precisions}")

    @classmethod
    def small(cls, seed: int = 0) -> "RankCollapseConfig":
        """A shape that runs in well under a second, for tests."""
        return cls(width=32, heads=4, depth=4, tokens=16, batch=4, mlp_width=64, vocab=200,
                   weight_factors=(0.02, 0.2, 1.0), sweep_batch=2, seed=seed)


@dataclass(frozen=True)
class LayerMeasures:
    """The three relative residuals after ``layer`` layers (0: the embedded input), mean and
    maximum over the sequences of the batch."""

    variant: str
    precision: str
    layer: int
    composite: float
    res_max: float
    rank1: float
    composite_max: float
    res_max_max: float
    rank1_max: float


@dataclass(frozen=True)
class PrecisionFloor:
    """A variant's last-layer residual in one precision, in units of that precision's unit
    roundoff.

    A collapsed network's true residual (about 1e-15 of ||X||, as float64 shows) is below what
    float32 resolves, so what float32 stores is rounding alone: a few roundoffs that every layer
    re-creates where equal rows are computed differently (OpenBLAS's Haswell SGEMM kernel rounds
    a row by its position in a tile), or exactly 0 once the rows have rounded to bitwise equality
    and every operation keeps them equal (``equal_rows`` counts those sequences; the small
    configuration on OpenBLAS's SkylakeX kernel).  Which one a machine shows depends on its BLAS
    kernel, not on the network; both say the network has collapsed to the precision's floor.
    """

    variant: str
    precision: str
    measure: str
    plateau: float
    unit_roundoff: float
    in_roundoffs: float
    equal_rows: int = 0  # sequences whose last-layer rows are bitwise equal (residual exactly 0)


@dataclass(frozen=True)
class SurrogateDistance:
    """Definition 3.7's L-layer network against a one-layer surrogate, weights N(0, factor^2).

    ``relative_to_input`` = max over the batch of ||S(X) - S'(X)||_max / ||X||_max (the measure
    of Theorem D.1); ``relative_to_output`` divides by ||S(X)||_max instead.  ``coefficients``
    are the fitted surrogate's c_{l,h} (layer-major; the fit on the first half of the
    sequences), empty for the other surrogates.
    """

    factor: float
    surrogate: str
    relative_to_input: float
    relative_to_output: float
    coefficients: tuple[float, ...] = ()


@dataclass(frozen=True)
class RankCollapseResult:
    config: RankCollapseConfig
    curves: tuple[LayerMeasures, ...]
    floors: tuple[PrecisionFloor, ...]
    sweep: tuple[SurrogateDistance, ...]
    seconds: float
    sweep_cpu_seconds: float = 0.0  # CPU time of the weight sweep's tasks (the network's share is the rest)

    def curve(self, variant: str, precision: str, measure: str) -> list[float]:
        rows = sorted((m for m in self.curves if m.variant == variant and m.precision == precision), key=lambda m: m.layer)
        return [getattr(m, measure) for m in rows]


def _rank_one_residual(X: np.ndarray) -> np.ndarray:
    """||X - X_1||_F of every matrix of a float64 batch, X_1 its best rank-1 approximation."""
    transposed = X.shape[-2] > X.shape[-1]
    M = np.swapaxes(X, -1, -2) if transposed else X  # the smaller Gram matrix is the cheaper one
    size = M.shape[-2]
    gram = M @ np.swapaxes(M, -1, -2)
    top = np.stack([eigh(g, subset_by_index=[size - 1, size - 1], check_finite=False)[1][:, 0] for g in gram])
    residual = M - top[:, :, None] * (top[:, None, :] @ M)
    return np.sqrt(np.sum(residual * residual, axis=(-2, -1)))


def relative_residuals(X: np.ndarray) -> dict[str, np.ndarray]:
    """The three measures of every matrix of a batch (batch x n x d), computed in float64."""
    X = np.asarray(X, dtype=np.float64)
    from_first = X - X[..., :1, :]  # exact for stored float32, and exactly 0 for equal rows
    centred = from_first - from_first.mean(axis=-2, keepdims=True)

    def composite(M):
        induced_1 = np.abs(M).sum(axis=-2).max(axis=-1)  # largest column sum
        induced_inf = np.abs(M).sum(axis=-1).max(axis=-1)  # largest row sum
        return np.sqrt(induced_1 * induced_inf)

    hi, lo = X.max(axis=-2, keepdims=True), X.min(axis=-2, keepdims=True)
    res = X - (hi + lo) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        return {
            "composite": composite(centred) / composite(X),
            "res_max": np.abs(res).max(axis=(-2, -1)) / np.abs(X).max(axis=(-2, -1)),
            "rank1": _rank_one_residual(X) / np.sqrt(np.sum(X * X, axis=(-2, -1))),
        }


def _embedded_input(config: RankCollapseConfig, rng: np.random.Generator) -> np.ndarray:
    """BERT's embedding layer at initialisation: LN(token + position + segment embeddings),
    every table N(0, init_std^2), token ids uniform over the vocabulary."""
    ids = rng.integers(config.vocab, size=(config.batch, config.tokens))
    unique, inverse = np.unique(ids, return_inverse=True)
    token_rows = rng.normal(0.0, config.init_std, size=(unique.size, config.width))
    positions = rng.normal(0.0, config.init_std, size=(config.tokens, config.width))
    segment = rng.normal(0.0, config.init_std, size=(config.width,))
    return layer_norm(token_rows[inverse.reshape(ids.shape)] + positions + segment)


def _standard_layer_weights(config: RankCollapseConfig, layer: int) -> dict[str, np.ndarray]:
    """Standard normal draws of one layer; the network uses them times its weight scale."""
    rng = np.random.default_rng([config.seed, 1, layer])
    d, m = config.width, config.mlp_width
    shapes = {"Wq": (d, d), "Wk": (d, d), "Wv": (d, d), "Wo": (d, d), "W1": (d, m), "W2": (m, d)}
    draws = {name: rng.standard_normal(shape) for name, shape in shapes.items()}
    # Q, K and V as one d x 3d matrix: the three projections become one GEMM
    draws["Wqkv"] = np.concatenate([draws.pop(name) for name in ("Wq", "Wk", "Wv")], axis=1)
    return draws


def variant_layer(variant: str, X: np.ndarray, w: dict[str, np.ndarray], heads: int, with_layer_norm: bool) -> np.ndarray:
    """One layer of a variant, LayerNorm after each sub-layer (post-LN, as BERT) if asked."""
    norm = layer_norm if with_layer_norm else (lambda Z: Z)
    skip = variant in ("san+skip", "transformer")
    attended = bert_attention(X, w["Wqkv"], w["Wo"], heads)
    X = norm(X + attended if skip else attended)
    if variant in ("san+mlp", "transformer"):
        transformed = bert_mlp(X, w["W1"], w["W2"])
        X = norm(X + transformed if skip else transformed)
    return X


def _measure_rows(variant, precision, layer, values: dict[str, np.ndarray]) -> LayerMeasures:
    """Mean and maximum over the batch of the per-sequence measures ``values``."""
    return LayerMeasures(
        variant, precision, layer,
        *(float(np.mean(values[m])) for m in MEASURES),
        *(float(np.max(values[m])) for m in MEASURES),
    )


def _advance_variants(states: dict[str, np.ndarray], weights, config: RankCollapseConfig) -> dict[str, dict[str, np.ndarray]]:
    """One layer of every variant on one slice of the batch (in place in ``states``), and the
    measures of the new activations, per sequence."""
    measured = {}
    for variant in VARIANTS:
        states[variant] = variant_layer(variant, states[variant], weights, config.heads, config.layer_norm)
        measured[variant] = relative_residuals(states[variant])
    return measured


class _WeightSweep:
    """Definition 3.7's network at BERT's shape under every weight factor, against the one-layer
    surrogates.  The deep networks advance a layer at a time on the weights the main run draws;
    the surrogates need only the input's projections and the output matrices, kept per layer
    and shared by every factor."""

    def __init__(self, config: RankCollapseConfig, X: np.ndarray):
        self.config = config
        self.input = X
        self.deep = {f: X.copy() for f in config.weight_factors}
        self.projections: list[np.ndarray] = []  # per layer: X [Zq Zk Zv], batch x n x 3d
        self.output_heads: list[np.ndarray] = []  # per layer: Zo as H x d/H x d

    def layer_tasks(self, standard: dict[str, np.ndarray]) -> list[Callable[[], None]]:
        """The next layer's work as independent tasks: one per weight factor for the deep
        networks, one keeping what the surrogates need (small tasks fill the workers' gaps)."""
        config = self.config

        def advance(factor):
            deep = self.deep[factor]
            deep += bert_attention(deep, factor * standard["Wqkv"], factor * standard["Wo"], config.heads)

        def keep():
            rows = self.input.reshape(-1, config.width) @ standard["Wqkv"]
            self.projections.append(rows.reshape(*self.input.shape[:-1], -1))
            self.output_heads.append(standard["Wo"].reshape(config.heads, -1, config.width))

        return [keep, *(lambda f=factor: advance(f) for factor in config.weight_factors)]

    def _head_outputs(self, factor: float, sequence: int) -> np.ndarray:
        """head_{l,h}(X) of one input sequence under weights factor * Z: (L*H) x n x d."""
        outputs = []
        for projection, output_heads in zip(self.projections, self.output_heads):
            contexts = attention_contexts(projection[sequence:sequence + 1], self.config.heads,
                                          score_scale=factor * factor, value_scale=factor)[0]
            outputs.append(contexts @ (factor * output_heads))
        return np.concatenate(outputs)

    def _fit(self, factor: float, sequences: list[int]) -> np.ndarray:
        """Least-squares coefficients c minimising sum ||S(X) - X - sum c_j head_j(X)||_F^2
        over the given sequences (normal equations; lstsq copes with a singular Gram matrix)."""
        gram, moment = 0.0, 0.0
        for s in sequences:
            heads = self._head_outputs(factor, s).reshape(-1, self.input[s].size)
            gram = gram + heads @ heads.T
            moment = moment + heads @ (self.deep[factor][s] - self.input[s]).ravel()
        return np.linalg.lstsq(gram, moment, rcond=None)[0]

    def distances(self, factor: float) -> list[SurrogateDistance]:
        batch = self.input.shape[0]
        first_half, second_half = list(range(0, batch, 2)), list(range(1, batch, 2))
        heads_per_layer = self.config.heads
        rows = []
        # cross-fitting: a sequence is judged by coefficients fitted without it (one
        # sequence alone is fitted and judged on itself)
        fits = {0: self._fit(factor, second_half or first_half), 1: self._fit(factor, first_half)}
        gaps = {name: [] for name in SURROGATES}
        input_sizes, output_sizes = [], []
        for s in range(batch):
            X, output = self.input[s], self.deep[factor][s]
            heads = self._head_outputs(factor, s)
            surrogates = {
                "parallel": X + heads.sum(axis=0),
                "fitted": X + np.tensordot(fits[s % 2], heads, axes=1),
                "identity": X,
                "first-layer": X + heads[:heads_per_layer].sum(axis=0),
            }
            for name, approx in surrogates.items():
                gaps[name].append(np.abs(output - approx).max())
            input_sizes.append(np.abs(X).max())
            output_sizes.append(np.abs(output).max())
        for name in SURROGATES:
            gap = np.array(gaps[name])
            coefficients = tuple(float(c) for c in fits[1]) if name == "fitted" else ()
            rows.append(SurrogateDistance(factor, name, float(np.max(gap / input_sizes)),
                                          float(np.max(gap / output_sizes)), coefficients))
        return rows


# The goal's machine has two cores.  Fixed rather than the core count, so that the batch is split
# the same way on every machine.
WORKERS = 2


def run_rank_collapse(config: RankCollapseConfig = RankCollapseConfig(), progress: Progress | None = None) -> RankCollapseResult:
    """Run the four variants in both precisions and the weight sweep, layer by layer in lockstep
    (every layer's weights are drawn once and shared by all runs)."""
    # Two workers, each on one BLAS thread, instead of one worker on two BLAS threads: on the
    # shared machine two BLAS threads wait on each other (a 144 x 98304 Gram matrix took 8x
    # longer on two threads than on one at load 5), while two independent workers each keep a
    # core busy.  Every sequence is computed alone, so the numbers do not depend on the split.
    with threadpool_limits(limits=1, user_api="blas"), ThreadPoolExecutor(max_workers=WORKERS) as pool:
        return _run(config, progress, pool)


def _run(config, progress, pool) -> RankCollapseResult:
    started = time.perf_counter()
    X0 = _embedded_input(config, np.random.default_rng([config.seed, 0]))
    dtypes = {p: np.dtype(p) for p in config.precisions}
    slices = [part for part in np.array_split(np.arange(config.batch), WORKERS) if part.size]
    # one state per (precision, slice of the batch): variant -> activations
    states = {(p, i): {v: X0[part].astype(dtypes[p]) for v in VARIANTS} for p in config.precisions for i, part in enumerate(slices)}
    initial = {p: relative_residuals(X0.astype(dtype)) for p, dtype in dtypes.items()}
    curves = [_measure_rows(v, p, 0, initial[p]) for v in VARIANTS for p in config.precisions]
    sweep = _WeightSweep(config, X0[: config.sweep_batch])
    sweep_cpu_seconds = 0.0
    last_res_max = {(p, v): initial[p]["res_max"] for p in config.precisions for v in VARIANTS}  # per sequence

    def timed(task, *args):
        # CPU time of the worker thread (its BLAS calls run in it): on a shared machine the
        # wall time of a task would count the neighbours' turns too
        began = time.thread_time()
        return task(*args), time.thread_time() - began

    total = config.depth * (len(states) + 1) + len(config.weight_factors)
    done = 0

    def tick():
        nonlocal done
        done += 1
        if progress:
            progress(done, total)

    for layer in range(config.depth):
        standard = _standard_layer_weights(config, layer)
        weights = {p: {k: (config.init_std * z).astype(dtype) for k, z in standard.items()} for p, dtype in dtypes.items()}
        futures = {key: pool.submit(_advance_variants, state, weights[key[0]], config) for key, state in states.items()}
        sweep_futures = [pool.submit(timed, task) for task in sweep.layer_tasks(standard)]
        for future in as_completed(futures.values()):
            future.result()
            tick()
        for future in sweep_futures:
            future.result()
        tick()
        sweep_cpu_seconds += sum(future.result()[1] for future in sweep_futures)
        measured = {key: future.result() for key, future in futures.items()}
        for p in config.precisions:
            for variant in VARIANTS:
                values = {m: np.concatenate([measured[p, i][variant][m] for i in range(len(slices))]) for m in MEASURES}
                curves.append(_measure_rows(variant, p, layer + 1, values))
                last_res_max[p, variant] = values["res_max"]
        del weights, standard
    del states

    floors = []
    for m in curves:
        if m.layer == config.depth:
            unit_roundoff = float(np.finfo(dtypes[m.precision]).eps) / 2
            # res_max (max minus min per column, both exact) is exactly 0 just where the rows are equal
            equal_rows = int(np.count_nonzero(last_res_max[m.precision, m.variant] == 0))
            for measure in MEASURES:
                plateau = getattr(m, measure)
                floors.append(PrecisionFloor(m.variant, m.precision, measure, plateau, unit_roundoff,
                                             plateau / unit_roundoff, equal_rows))

    futures = [pool.submit(timed, sweep.distances, factor) for factor in config.weight_factors]
    distances = []
    for future in futures:
        rows, seconds = future.result()
        distances.extend(rows)
        sweep_cpu_seconds += seconds
        tick()
    return RankCollapseResult(config, tuple(curves), tuple(floors), tuple(distances), time.perf_counter() - started, sweep_cpu_seconds)
