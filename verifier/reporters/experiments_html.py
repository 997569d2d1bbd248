"""The "Experiments" section of the HTML report: figures inline as SVG, so the report stays one
self-contained file.

``experiments_section(*results)`` takes results of ``run_layer_collapse`` / ``run_rank_collapse``
(run now, or read back from ``verify experiment ... --json`` by ``verifier.experiments.records``)
and returns a fragment for the page's <body>.  Styles are inline attributes and the report's
own table class, so the fragment needs nothing from the page's stylesheet.
"""

from __future__ import annotations

from html import escape

from ..experiments.layer_collapse import SURROGATES as LAYER_SURROGATES
from ..experiments.layer_collapse import LayerCollapseResult
from ..experiments.plots import layer_collapse_figures, rank_collapse_figures, svg_text
from ..experiments.rank_collapse import VARIANTS, RankCollapseResult
from .numbers import fmt


_TABLE = '<table class="summary" style="width:auto;font-size:.85em">'


def _figure_block(name: str, figure) -> str:
    svg = svg_text(figure).replace("<svg ", '<svg style="max-width:100%;height:auto" ', 1)
    return f'<figure class="experiment-figure" id="figure-{escape(name)}" style="margin:1em 0">{svg}</figure>'


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
        f"{_TABLE}<thead><tr><th>d</th><th>L</th><th>surrogate</th><th>slope in eta</th><th>constant</th>"
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
    sweep_rows = "".join(
        f"<tr><td>{fmt(s.factor, 3)}</td><td>{escape(s.surrogate)}</td><td>{fmt(s.relative_to_input, 3)}</td>"
        f"<td>{fmt(s.relative_to_output, 3)}</td></tr>" for s in result.sweep)
    figures = "".join(_figure_block(n, f) for n, f in rank_collapse_figures(result).items())
    precisions = ",".join(config.precisions) if len(config.precisions) == 1 else "both"
    return (
        "<h3>Rank collapse at initialisation (Dong, Cordonnier &amp; Loukas 2021)</h3>"
        f"<p>d = {config.width}, H = {config.heads}, L = {config.depth}, n = {config.tokens}, "
        f"{config.batch} sequences, seed {config.seed}. Reproduce: <code>verify experiment rank-collapse --seed {config.seed} "
        f"--width {config.width} --heads {config.heads} --depth {config.depth} --tokens {config.tokens} --batch {config.batch} "
        f"--precisions {precisions} --json</code>. Composite residual per layer, mean over the sequences:</p>"
        f"{_TABLE}<thead><tr><th>variant</th><th>precision</th>{header}</tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
        f"<p>Layer collapse at this shape: the {config.depth}-layer SAN with skips (Definition 3.7), weights N(0, f²), "
        f"against one-layer surrogates, worst of {config.sweep_batch} sequences (<code>fitted</code>: the heads' "
        "coefficients fitted by least squares on the other sequences, an upper bound on the best one-layer surrogate's distance).</p>"
        f"{_TABLE}<thead><tr><th>weight std f</th><th>surrogate</th><th>||S-S'||<sub>max</sub> / ||X||<sub>max</sub></th>"
        f"<th>||S-S'||<sub>max</sub> / ||S||<sub>max</sub></th></tr></thead><tbody>{sweep_rows}</tbody></table>" + figures
    )


_SECTIONS = {LayerCollapseResult: _layer_collapse_html, RankCollapseResult: _rank_collapse_html}


def experiments_section(*results: LayerCollapseResult | RankCollapseResult) -> str:
    """An HTML fragment <section id="experiments"> with the tables and inline SVG figures of
    every result, in the order given."""
    parts = ['<section id="experiments"><h2>Experiments</h2>']
    parts.extend(_SECTIONS[type(result)](result) for result in results)
    if not results:
        parts.append("<p>No experiment was run.</p>")
    parts.append("</section>")
    return "".join(parts)
