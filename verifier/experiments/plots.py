"""Figures of the experiments, drawn with matplotlib's object API on the Agg canvas (no pyplot,
no global state, no display needed).  Every function takes a result and returns figures;
writing them is separate."""

from __future__ import annotations

import base64
import io
import os
import tempfile
from pathlib import Path

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter

from .layer_collapse import SURROGATES as LAYER_SURROGATES
from .layer_collapse import LayerCollapseResult
from .rank_collapse import MEASURES, VARIANTS, RankCollapseResult
from .rank_collapse import SURROGATES as RANK_SURROGATES

MEASURE_LABELS = {
    "composite": r"$\|X - 1\,\mathrm{mean}(X)^T\|_{1,\infty} / \|X\|_{1,\infty}$ (Dong et al.)",
    "res_max": r"$\|\mathrm{Res}(X)\|_{\max} / \|X\|_{\max}$ (Definition 3.4)",
    "rank1": r"$\|X - X_{\mathrm{rank}\,1}\|_F / \|X\|_F$ (SVD)",
}
VARIANT_COLOURS = {"san": "tab:red", "san+mlp": "tab:orange", "san+skip": "tab:blue", "transformer": "tab:green"}
FLOOR = 1e-18  # exact zeros (rows equal to the last bit) are drawn here on log axes


def _figure(width: float, height: float) -> Figure:
    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def layer_collapse_figures(result: LayerCollapseResult) -> dict[str, Figure]:
    config = result.config
    figures = {}

    figure = _figure(4.2 * len(LAYER_SURROGATES), 4.2)
    axes = figure.subplots(1, len(LAYER_SURROGATES), sharey=True)
    colours = dict(zip(config.widths, ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown")))
    styles = dict(zip(config.depths, ("-", "--", ":", "-.", (0, (5, 1)), (0, (1, 3)))))
    etas = np.array(config.etas)
    for ax, name in zip(axes, LAYER_SURROGATES):
        for d in config.widths:
            for L in config.depths:
                rows = sorted((g for g in result.gaps if (g.surrogate, g.width, g.depth) == (name, d, L)), key=lambda g: g.eta)
                ax.loglog([g.eta for g in rows], [max(g.worst_ratio, FLOOR) for g in rows], marker="o", ms=3,
                          color=colours.get(d), linestyle=styles.get(L, "-"), label=f"d={d}, L={L}")
        slopes = [s.slope for s in result.slopes if s.surrogate == name]
        for power in (1, 2, 4):
            ax.loglog(etas, 1e-2 * (etas / etas[-1]) ** power, color="0.7", linewidth=0.8)
            ax.annotate(rf"$\eta^{power}$", (etas[0], 1e-2 * (etas[0] / etas[-1]) ** power), fontsize=7, color="0.5")
        ax.set_title(f"{name} surrogate (slope {np.nanmin(slopes):.2f} to {np.nanmax(slopes):.2f})", fontsize=10)
        ax.set_xlabel(r"weight bound $\eta$ (every entry of $W_q, W_k, W_v$)")
        ax.grid(True, which="major", alpha=0.3)
    axes[0].set_ylabel(r"worst $\|S(X) - S'(X)\|_\infty / \|X\|_\infty$ found")
    axes[-1].legend(fontsize=7, ncol=2)
    figure.suptitle(f"Theorem D.1: L-layer SAN with skips vs one-layer surrogates (H={config.heads}, n={config.tokens}, adversarial X)")
    figures["layer_collapse_eta"] = figure

    figure = _figure(4.2 * len(LAYER_SURROGATES), 4.0)
    axes = figure.subplots(1, len(LAYER_SURROGATES), sharey=True)
    for ax, name in zip(axes, LAYER_SURROGATES):
        for L in config.depths:
            rows = sorted((t for t in result.theorem if (t.surrogate, t.depth) == (name, L)), key=lambda t: t.width)
            ax.loglog([t.width for t in rows], [max(t.over_bound, FLOOR) for t in rows], marker="o", label=f"L={L}")
        ax.axhline(1.0, color="black", linewidth=1, linestyle="--")
        ax.annotate("bound 2A/L", (config.widths[0], 1.05), fontsize=8)
        ax.set_title(f"{name} surrogate", fontsize=10)
        ax.set_xlabel("width d")
        ax.set_xticks(list(config.widths), [str(d) for d in config.widths])
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.grid(True, which="major", alpha=0.3)
    axes[0].set_ylabel(r"worst $\|S(X)-S'(X)\|_\infty$ / (2A/L)")
    axes[-1].legend(fontsize=8)
    figure.suptitle(r"Theorem D.1's explicit bound at its largest weights: $\eta = A/(HL)$, $A = 1$, $\|X\|_\infty \leq \phi_0 = 1$")
    figures["layer_collapse_bound"] = figure
    return figures


def rank_collapse_figures(result: RankCollapseResult) -> dict[str, Figure]:
    config = result.config
    figures = {}
    figure = _figure(4.4 * len(MEASURES), 4.4)
    axes = figure.subplots(1, len(MEASURES), sharey=True)
    layers = np.arange(config.depth + 1)
    for ax, measure in zip(axes, MEASURES):
        for variant in VARIANTS:
            for precision in config.precisions:
                values = np.maximum(result.curve(variant, precision, measure), FLOOR)
                ax.semilogy(layers, values, color=VARIANT_COLOURS[variant], marker="o", ms=3,
                            linestyle="-" if precision == "float64" else "--", label=f"{variant} ({precision})")
        for precision in config.precisions:
            roundoff = float(np.finfo(np.dtype(precision)).eps) / 2
            ax.axhline(roundoff, color="0.5", linewidth=0.8, linestyle=":")
            ax.annotate(f"{precision} unit roundoff", (0.2, roundoff * 1.5), fontsize=7, color="0.4")
        ax.set_title(MEASURE_LABELS[measure], fontsize=9)
        ax.set_xlabel("layer")
        ax.grid(True, which="major", alpha=0.3)
    axes[0].set_ylabel(f"relative residual, mean over {config.batch} sequences")
    axes[-1].legend(fontsize=7)
    norm = "post-LayerNorm" if config.layer_norm else "no LayerNorm"
    figure.suptitle(f"Rank collapse at initialisation, N(0, {config.init_std}²) weights, {norm} "
                    f"(d={config.width}, H={config.heads}, L={config.depth}, n={config.tokens}); solid float64, dashed float32")
    figures["rank_collapse_residuals"] = figure

    figure = _figure(9.0, 4.0)
    axes = figure.subplots(1, 2)
    for ax, attribute, label in ((axes[0], "relative_to_input", r"$\|S(X)-S'(X)\|_{\max} / \|X\|_{\max}$"),
                                 (axes[1], "relative_to_output", r"$\|S(X)-S'(X)\|_{\max} / \|S(X)\|_{\max}$")):
        for name in RANK_SURROGATES:
            rows = sorted((s for s in result.sweep if s.surrogate == name), key=lambda s: s.factor)
            ax.loglog([s.factor for s in rows], [max(getattr(s, attribute), FLOOR) for s in rows], marker="o", label=name)
        ax.axvline(config.init_std, color="0.5", linestyle=":", linewidth=0.8)
        ax.set_xlabel("weight standard deviation (BERT initialises at 0.02)")
        ax.set_ylabel(f"worst of {config.sweep_batch} sequences: {label}")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=8)
    figure.suptitle(f"Layer collapse at BERT's shape: {config.depth}-layer SAN with skips (Def. 3.7) vs one-layer surrogates")
    figures["rank_collapse_weight_scale"] = figure
    return figures


def figure_bytes(figure: Figure, fmt: str) -> bytes:
    buffer = io.BytesIO()
    # no date keeps the files the same from run to run; SVG text stays text (a third smaller)
    metadata = {"Date": None} if fmt == "svg" else {}
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "claim-verifier"}):
        figure.savefig(buffer, format=fmt, dpi=110, metadata=metadata)
    return buffer.getvalue()


def svg_text(figure: Figure) -> str:
    """The figure as inline SVG (without the XML prologue) for an HTML page."""
    text = figure_bytes(figure, "svg").decode("utf-8")
    return text[text.index("<svg"):]


def png_base64(figure: Figure) -> str:
    return base64.b64encode(figure_bytes(figure, "png")).decode("ascii")


def save_figures(figures: dict[str, Figure], directory: Path) -> list[Path]:
    """Write every figure as NAME.png and NAME.svg into ``directory``, each file atomically."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, figure in figures.items():
        for fmt in ("png", "svg"):
            path = directory / f"{name}.{fmt}"
            handle, temporary = tempfile.mkstemp(dir=directory, prefix=f".{name}.", suffix=f".{fmt}")
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(figure_bytes(figure, fmt))
                os.chmod(temporary, 0o644)  # mkstemp makes files private; figures are for reading
                os.replace(temporary, path)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
            written.append(path)
    return written
