"""The "Experiments" section of the HTML report: figures inline as SVG, so the report stays one
self-contained file.

Call ``experiments_section(layer_collapse=..., rank_collapse=...)`` with the results of
``verifier.experiments.run_layer_collapse`` / ``run_rank_collapse`` (either may be None) and
place the returned fragment inside the page's <body>.
"""

from __future__ import annotations

from html import escape

from ..experiments.layer_collapse import SURROGATES as LAYER_SURROGATES
from ..experiments.layer_collapse import LayerCollapseResult
from ..experiments.plots import layer_collapse_figures, rank_collapse_figures, svg_text
from ..experiments.rank_collapse import VARIANTS, RankCollapseResult
from .numbers import fmt


def _figure_block(name: str, figure) -> str:
    return f'<figure class="experiment-figure" id="figure-{escape(name)}">{svg_text(figure)}</figure>'


def _layer_collapse_html(result: LayerCollapseResult) -> str:
    config = result.config
    rows = []
    for s in result.slopes:
        t = next(t for t in result.theorem if (t.width, t.depth, t.surrogate) == (s.width, s.depth, s.surrogate))
        rows.append(f"<tr><td>{s.width}</td><td>{s.depth}</td><td>{escape(s.surrogate)}</td><td>{fmt(s.slope, 3)}</td>"
                    f"<td>{fmt(s.constant, 3)}</td><td>{fmt(t.over_bound, 3)}</td></tr>")
    figures = "".join(_figure_block(n, f) for n, f in layer_collapse_figures(result).items())
    return (
        "<h3>Layer collapse (Theorem D.1)</h3>"
        f"<p>Worst ||S(X) - S'(X)||<sub>inf</sub> / ||X||<sub>inf</sub> found adversarially, surrogates "
        f"{', '.join(LAYER_SURROGATES)}; H = {config.heads}, n = {config.tokens}, seed {config.seed}. "
        f"Reproduce: <code>verify experiment layer-collapse --seed {config.seed} --json</code></p>"
        "<table><thead><tr><th>d</th><th>L</th><th>surrogate</th><th>slope in eta</th><th>constant</th>"
        "<th>distance / (2A/L) at eta = 1/(HL)</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>" + figures
    )


def _rank_collapse_html(result: RankCollapseResult) -> str:
    config = result.config
    header = "".join(f"<th>{layer}</th>" for layer in range(config.depth + 1))
    rows = []
    for variant in VARIANTS:
        for precision in config.precisions:
            cells = "".join(f"<td>{fmt(v, 2)}</td>" for v in result.curve(variant, precision, "composite"))
            rows.append(f"<tr><td>{escape(variant)}</td><td>{precision}</td>{cells}</tr>")
    figures = "".join(_figure_block(n, f) for n, f in rank_collapse_figures(result).items())
    return (
        "<h3>Rank collapse at initialisation (Dong, Cordonnier &amp; Loukas 2021)</h3>"
        f"<p>d = {config.width}, H = {config.heads}, L = {config.depth}, n = {config.tokens}, "
        f"{config.batch} sequences, seed {config.seed}. Composite residual per layer:</p>"
        f"<table><thead><tr><th>variant</th><th>precision</th>{header}</tr></thead><tbody>" + "".join(rows) + "</tbody></table>" + figures
    )


def experiments_section(layer_collapse: LayerCollapseResult | None = None, rank_collapse: RankCollapseResult | None = None) -> str:
    """An HTML fragment <section id="experiments"> with the tables and inline SVG figures."""
    parts = ['<section id="experiments"><h2>Experiments</h2>']
    if layer_collapse is not None:
        parts.append(_layer_collapse_html(layer_collapse))
    if rank_collapse is not None:
        parts.append(_rank_collapse_html(rank_collapse))
    if layer_collapse is None and rank_collapse is None:
        parts.append("<p>No experiment was run.</p>")
    parts.append("</section>")
    return "".join(parts)
