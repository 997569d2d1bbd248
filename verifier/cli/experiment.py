"""``verify experiment layer-collapse|rank-collapse``: parse, run, hand to the reporters."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import click

from ..limits import (LAYER_COLLAPSE_CAPS, MAX_EXPERIMENT_BYTES, MAX_EXPERIMENT_LIST, MAX_EXPERIMENT_SCALE, RANK_COLLAPSE_CAPS, layer_collapse_bytes,
                      rank_collapse_bytes)
from ..safe_files import check_writable_folder, shown_path
from .common import SEED, UsageFailure, err_console, main


def _numbers(kind, cap=None):
    """A click type for a comma-separated list of numbers ("1e-3,1e-2" or "2,4,8"): at most
    ``MAX_EXPERIMENT_LIST`` of them, finite, each at most ``cap`` when given."""

    class NumberList(click.ParamType):
        name = f"{kind.__name__} list"

        def convert(self, value, param, ctx):
            if isinstance(value, tuple):
                return value
            parts = [part for part in str(value).split(",") if part.strip()]
            if len(parts) > MAX_EXPERIMENT_LIST:
                self.fail(f"{len(parts):,} values, more than the limit of {MAX_EXPERIMENT_LIST}", param, ctx)
            try:
                values = tuple(kind(part) for part in parts)
            except ValueError:
                self.fail(f"{value!r} is not a comma-separated list of {kind.__name__}s", param, ctx)
            if not values:
                self.fail("the list is empty", param, ctx)
            if not all(math.isfinite(v) for v in values):
                self.fail(f"{value!r}: every value must be finite", param, ctx)
            if cap is not None and max(values) > cap:
                self.fail(f"{max(values):,} is beyond the limit of {cap:,}", param, ctx)
            return values

    return NumberList()


def _size(cap: int, least: int = 1):
    """A size option's type: an integer from ``least`` to its documented cap (verifier/limits.py)."""
    return click.IntRange(min=least, max=cap)


def check_memory(config) -> None:
    """Refuse, before any work, sizes whose arrays together would pass ``MAX_EXPERIMENT_BYTES``."""
    from ..experiments import LayerCollapseConfig

    if isinstance(config, LayerCollapseConfig):
        needed = layer_collapse_bytes(max(config.widths), max(config.depths), config.heads, config.tokens, config.starts,
                                      config.random_inputs, config.fit_inputs)
        sizes = (f"--widths {max(config.widths)} --depths {max(config.depths)} --heads {config.heads} --tokens {config.tokens} "
                 f"--random-inputs {config.random_inputs}")
    else:
        needed = rank_collapse_bytes(config.width, config.heads, config.depth, config.tokens, config.batch, config.mlp_width,
                                     len(config.precisions), len(config.weight_factors), config.sweep_batch)
        sizes = (f"--width {config.width} --heads {config.heads} --depth {config.depth} --tokens {config.tokens} "
                 f"--batch {config.batch} --mlp-width {config.mlp_width}")
    if needed > MAX_EXPERIMENT_BYTES:
        raise UsageFailure(f"{sizes} need about {needed / 2**30:,.1f} GiB of arrays, beyond the limit of "
                           f"{MAX_EXPERIMENT_BYTES / 2**30:g} GiB: choose smaller sizes")


def common_options(fn):
    fn = click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of every random draw.")(fn)
    fn = click.option("--json", "as_json", is_flag=True, help="Print every number as JSON to stdout.")(fn)
    fn = click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), help="Write the figures as PNG and SVG into this directory.")(fn)
    fn = click.option("--small", is_flag=True, help="A small size that runs in seconds (other size options override it).")(fn)
    return fn


def _config(config_class, small, seed, overrides):
    base = config_class.small(seed) if small else config_class(seed=seed)
    try:
        config = dataclasses.replace(base, **{k: v for k, v in overrides.items() if v is not None})
    except ValueError as exc:
        raise UsageFailure(str(exc)) from None
    check_memory(config)
    return config


def _run_and_report(kind, run, config, as_json, out_dir, print_table, figures):
    from ..reporters import experiments_report

    console = err_console()
    if out_dir is not None:  # checked before the run, so its figures are not lost after it
        try:
            check_writable_folder(out_dir)
        except OSError as exc:
            raise UsageFailure(f"--out {shown_path(out_dir)}: {exc}") from None
    with experiments_report.progress_bar(console, f"experiment {kind}", enabled=not as_json) as progress:
        result = run(config, progress)
    if as_json:
        click.echo(experiments_report.dumps(kind, result))
    else:
        print_table(console, result)
    if out_dir is not None:
        from ..experiments.plots import save_figures

        for path in save_figures(figures(result), out_dir):
            console.print(f"wrote {path}")


@main.group("experiment")
def experiment():
    """Run the experiments that measure the paper's theorems on networks (tables, JSON, figures)."""


@experiment.command("layer-collapse")
@common_options
@click.option("--etas", type=_numbers(float, MAX_EXPERIMENT_SCALE), help="Weight bounds eta, comma-separated (default 1e-3 ... 1).")
@click.option("--widths", type=_numbers(int, LAYER_COLLAPSE_CAPS["widths"]), help="Widths d, comma-separated (default 2,4,8).")
@click.option("--depths", type=_numbers(int, LAYER_COLLAPSE_CAPS["depths"]), help="Depths L >= 2, comma-separated (default 2,4,8).")
@click.option("--heads", type=_size(LAYER_COLLAPSE_CAPS["heads"]), help="Heads per layer H (default 2).")
@click.option("--tokens", type=_size(LAYER_COLLAPSE_CAPS["tokens"]), help="Tokens n (default 4).")
@click.option("--starts", type=_size(LAYER_COLLAPSE_CAPS["starts"]), help="Starts of the worst-input search (default 4).")
@click.option("--random-inputs", type=_size(LAYER_COLLAPSE_CAPS["random_inputs"]), help="Random inputs measured (default 256).")
@click.option("--fit-rounds", type=_size(LAYER_COLLAPSE_CAPS["fit_rounds"], least=0), help="Adversarial refits of the fitted surrogate (default 2).")
def layer_collapse(seed, as_json, out_dir, small, **sizes):
    """Theorem D.1 measured: L-layer SANs with skips against one-layer surrogates, over eta, d and L."""
    from ..experiments import LayerCollapseConfig, run_layer_collapse
    from ..experiments.plots import layer_collapse_figures
    from ..reporters.experiments_report import print_layer_collapse

    config = _config(LayerCollapseConfig, small, seed, sizes)
    _run_and_report("layer-collapse", run_layer_collapse, config, as_json, out_dir, print_layer_collapse, layer_collapse_figures)


@experiment.command("rank-collapse")
@common_options
@click.option("--width", type=_size(RANK_COLLAPSE_CAPS["width"]), help="Width d (default 768).")
@click.option("--heads", type=_size(RANK_COLLAPSE_CAPS["heads"]), help="Heads H (default 12).")
@click.option("--depth", type=_size(RANK_COLLAPSE_CAPS["depth"]), help="Layers L (default 12).")
@click.option("--tokens", type=_size(RANK_COLLAPSE_CAPS["tokens"], least=2), help="Sequence length n (default 128).")
@click.option("--batch", type=_size(RANK_COLLAPSE_CAPS["batch"]), help="Sequences averaged over (default 32).")
@click.option("--mlp-width", type=_size(RANK_COLLAPSE_CAPS["mlp_width"]), help="Hidden width of the MLP (default 3072).")
@click.option("--precisions", type=click.Choice(["float64", "float32", "both"]), help="Precisions run (default both).")
@click.option("--weight-factors", type=_numbers(float, MAX_EXPERIMENT_SCALE), help="Weight standard deviations of the layer-collapse sweep (default 0.02 ... 1).")
@click.option("--sweep-batch", type=_size(RANK_COLLAPSE_CAPS["sweep_batch"]), help="Sequences of the layer-collapse sweep (default 4).")
@click.option("--no-layer-norm", "layer_norm", flag_value=False, default=None, help="Drop BERT's LayerNorm after the sub-layers.")
def rank_collapse(seed, as_json, out_dir, small, precisions, **sizes):
    """Dong et al.'s residual per layer at BERT-base's initialisation, and layer collapse under a weight scale."""
    from ..experiments import RankCollapseConfig, run_rank_collapse
    from ..experiments.plots import rank_collapse_figures
    from ..reporters.experiments_report import print_rank_collapse

    if precisions is not None:
        sizes["precisions"] = ("float64", "float32") if precisions == "both" else (precisions,)
    config = _config(RankCollapseConfig, small, seed, sizes)
    _run_and_report("rank-collapse", run_rank_collapse, config, as_json, out_dir, print_rank_collapse, rank_collapse_figures)
