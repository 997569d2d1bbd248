"""Dong, Cordonnier & Loukas (2021)'s rank-collapse curves at BERT-base's initialisation, and
the layer collapse of Alman & Song's Theorem D.1 at the same initialisation under a weight scale.

Four variants are run in lockstep on the same weights and the same input batch:
``san`` (attention only), ``san+mlp``, ``san+skip`` and ``transformer`` (BERT's post-LN block),
each with BERT's LayerNorm after every sub-layer where BERT has one (``layer_norm=False``
drops them).  After every layer three relative residuals are measured, always in float64 on
the activations the network produced (so a float32 run is judged by what float32 stored):

* ``composite``: ||X - 1 mean(X)^T|| / ||X|| with sqrt(||.||_1 ||.||_inf) of the induced norms
  (Dong et al.'s measure);
* ``res_max``: ||Res(X)||_max / ||X||_max, Res of Definition 3.4 with the midrange minimiser in
  the entrywise max norm (this paper's measure);
* ``rank1``: ||X - X_1||_F / ||X||_F with X_1 the best rank-1 approximation (singular values).

The weight sweep runs Definition 3.7's network (``san+skip`` without LayerNorm) at BERT's shape
with every weight N(0, f^2) for the factors f, i.e. the same standard normal draws scaled, and
measures how far its output is from three one-layer surrogates (Theorem D.1's parallel network,
the identity, the first layer alone).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .blocks import bert_attention, bert_mlp, layer_norm

VARIANTS = ("san", "san+mlp", "san+skip", "transformer")
MEASURES = ("composite", "res_max", "rank1")
SURROGATES = ("parallel", "identity", "first-layer")
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
    roundoff: a collapsed network plateaus where every layer's rounding errors re-create a
    residual of a few roundoffs, so the same ratio in float64 and float32 marks the plateau as
    the arithmetic's floor, not the network's."""

    variant: str
    precision: str
    measure: str
    plateau: float
    unit_roundoff: float
    in_roundoffs: float


@dataclass(frozen=True)
class SurrogateDistance:
    """Definition 3.7's L-layer network against a one-layer surrogate, weights N(0, factor^2).

    ``relative_to_input`` = max over the batch of ||S(X) - S'(X)||_max / ||X||_max (the measure
    of Theorem D.1); ``relative_to_output`` divides by ||S(X)||_max instead.
    """

    factor: float
    surrogate: str
    relative_to_input: float
    relative_to_output: float


@dataclass(frozen=True)
class RankCollapseResult:
    config: RankCollapseConfig
    curves: tuple[LayerMeasures, ...]
    floors: tuple[PrecisionFloor, ...]
    sweep: tuple[SurrogateDistance, ...]
    seconds: float

    def curve(self, variant: str, precision: str, measure: str) -> list[float]:
        rows = sorted((m for m in self.curves if m.variant == variant and m.precision == precision), key=lambda m: m.layer)
        return [getattr(m, measure) for m in rows]


def relative_residuals(X: np.ndarray) -> dict[str, np.ndarray]:
    """The three measures of every matrix of a batch (batch x n x d), computed in float64."""
    X = np.asarray(X, dtype=np.float64)
    centred = X - X.mean(axis=-2, keepdims=True)

    def composite(M):
        induced_1 = np.abs(M).sum(axis=-2).max(axis=-1)  # largest column sum
        induced_inf = np.abs(M).sum(axis=-1).max(axis=-1)  # largest row sum
        return np.sqrt(induced_1 * induced_inf)

    hi, lo = X.max(axis=-2, keepdims=True), X.min(axis=-2, keepdims=True)
    res = X - (hi + lo) / 2
    singular = np.linalg.svd(X, compute_uv=False)
    tail = np.sqrt(np.sum(singular[..., 1:] ** 2, axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return {
            "composite": composite(centred) / composite(X),
            "res_max": np.abs(res).max(axis=(-2, -1)) / np.abs(X).max(axis=(-2, -1)),
            "rank1": tail / np.sqrt(np.sum(singular**2, axis=-1)),
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
    return {name: rng.standard_normal(shape) for name, shape in shapes.items()}


def variant_layer(variant: str, X: np.ndarray, w: dict[str, np.ndarray], heads: int, with_layer_norm: bool) -> np.ndarray:
    """One layer of a variant, LayerNorm after each sub-layer (post-LN, as BERT) if asked."""
    norm = layer_norm if with_layer_norm else (lambda Z: Z)
    skip = variant in ("san+skip", "transformer")
    attended = bert_attention(X, w["Wq"], w["Wk"], w["Wv"], w["Wo"], heads)
    X = norm(X + attended if skip else attended)
    if variant in ("san+mlp", "transformer"):
        transformed = bert_mlp(X, w["W1"], w["W2"])
        X = norm(X + transformed if skip else transformed)
    return X


def _measure_rows(variant, precision, layer, X) -> LayerMeasures:
    values = relative_residuals(X)
    return LayerMeasures(
        variant, precision, layer,
        *(float(np.mean(values[m])) for m in MEASURES),
        *(float(np.max(values[m])) for m in MEASURES),
    )


def run_rank_collapse(config: RankCollapseConfig = RankCollapseConfig(), progress: Progress | None = None) -> RankCollapseResult:
    """Run the four variants in both precisions and the weight sweep, layer by layer in lockstep
    (every layer's weights are drawn once and shared by all runs)."""
    started = time.perf_counter()
    X0 = _embedded_input(config, np.random.default_rng([config.seed, 0]))
    dtypes = {p: np.dtype(p) for p in config.precisions}
    states = {(v, p): X0.astype(dtypes[p]) for v in VARIANTS for p in config.precisions}
    curves = [_measure_rows(v, p, 0, X) for (v, p), X in states.items()]

    sweep_input = X0[: config.sweep_batch]
    deep = {f: sweep_input.copy() for f in config.weight_factors}
    parallel = {f: sweep_input.copy() for f in config.weight_factors}
    first_layer = {}

    total = config.depth * (len(states) + 1)
    done = 0
    for layer in range(config.depth):
        standard = _standard_layer_weights(config, layer)
        for precision, dtype in dtypes.items():
            weights = {k: (config.init_std * z).astype(dtype) for k, z in standard.items()}
            for variant in VARIANTS:
                X = variant_layer(variant, states[variant, precision], weights, config.heads, config.layer_norm)
                states[variant, precision] = X
                curves.append(_measure_rows(variant, precision, layer + 1, X))
                done += 1
                if progress:
                    progress(done, total)
        for factor in config.weight_factors:
            w = {k: factor * standard[k] for k in ("Wq", "Wk", "Wv", "Wo")}
            deep[factor] = deep[factor] + bert_attention(deep[factor], w["Wq"], w["Wk"], w["Wv"], w["Wo"], config.heads)
            head_sum = bert_attention(sweep_input, w["Wq"], w["Wk"], w["Wv"], w["Wo"], config.heads)
            parallel[factor] = parallel[factor] + head_sum
            if layer == 0:
                first_layer[factor] = sweep_input + head_sum
        done += 1
        if progress:
            progress(done, total)

    floors = []
    for (variant, precision), X in states.items():
        unit_roundoff = float(np.finfo(dtypes[precision]).eps) / 2
        last = relative_residuals(X)
        for measure in MEASURES:
            plateau = float(np.mean(last[measure]))
            floors.append(PrecisionFloor(variant, precision, measure, plateau, unit_roundoff, plateau / unit_roundoff))

    input_size = np.abs(sweep_input).max(axis=(-2, -1))
    sweep = []
    for factor in config.weight_factors:
        output = deep[factor]
        output_size = np.abs(output).max(axis=(-2, -1))
        for name, approx in (("parallel", parallel[factor]), ("identity", sweep_input), ("first-layer", first_layer[factor])):
            gap = np.abs(output - approx).max(axis=(-2, -1))
            sweep.append(SurrogateDistance(factor, name, float(np.max(gap / input_size)), float(np.max(gap / output_size))))
    return RankCollapseResult(config, tuple(curves), tuple(floors), tuple(sweep), time.perf_counter() - started)
