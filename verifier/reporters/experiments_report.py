"""Terminal tables, progress bar and JSON of the experiments (``verify experiment ...``)."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ..experiments.layer_collapse import SURROGATES as LAYER_SURROGATES
from ..experiments.layer_collapse import LayerCollapseResult
from ..experiments.rank_collapse import MEASURES, VARIANTS, RankCollapseResult
from ..experiments.records import SCHEMA
from .numbers import fmt


@contextlib.contextmanager
def progress_bar(console: Console, label: str, enabled: bool):
    """A callback (done, total) drawing a transient bar on a terminal; None when not shown."""
    if not (enabled and console.is_terminal):
        yield None
        return
    with Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True) as bar:
        task = bar.add_task(label, total=None)

        def callback(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield callback


def _plain(value):
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def dumps(kind: str, result) -> str:
    """Every number of a result as JSON (non-finite numbers as null)."""
    doc = {"schema": SCHEMA, "experiment": kind, **_plain(dataclasses.asdict(result))}
    return json.dumps(doc, indent=1)


def print_layer_collapse(console: Console, result: LayerCollapseResult) -> None:
    config = result.config
    table = Table(title=f"Layer collapse (Theorem D.1): slope of log worst ||S(X)-S'(X)||_inf/||X||_inf vs log eta "
                        f"(eta <= {config.small_eta}), H={config.heads}, n={config.tokens}, seed {config.seed}")
    table.add_column("d", justify="right")
    table.add_column("L", justify="right")
    for name in LAYER_SURROGATES:
        table.add_column(f"{name}\nslope", justify="right")
        table.add_column(f"{name}\nconstant", justify="right")
        table.add_column(f"{name}\n/(2A/L) at eta=1/(HL)", justify="right")
    slopes = {(s.width, s.depth, s.surrogate): s for s in result.slopes}
    theorem = {(t.width, t.depth, t.surrogate): t for t in result.theorem}
    for d in config.widths:
        for L in config.depths:
            cells = [str(d), str(L)]
            for name in LAYER_SURROGATES:
                s, t = slopes[d, L, name], theorem[d, L, name]
                over = fmt(t.over_bound, 3)
                cells += [fmt(s.slope, 3), fmt(s.constant, 3), f"[bold red]{over}[/]" if t.over_bound > 1 else over]
            table.add_row(*cells)
    console.print(table)

    growth = Table(title="Growth of the constant and of distance/(2A/L): exponent p of quantity ~ axis^p")
    for column in ("surrogate", "quantity", "axis", "fixed", "points", "p"):
        growth.add_column(column)
    for g in result.growth:
        growth.add_row(g.surrogate, g.quantity, g.axis, f"{'L' if g.axis == 'width' else 'd'}={g.fixed}",
                       ", ".join(f"{a}: {fmt(v, 3)}" for a, v in g.points), fmt(g.exponent, 3))
    console.print(growth)
    console.print(f"ran in {result.seconds:.1f} s")


def print_rank_collapse(console: Console, result: RankCollapseResult) -> None:
    config = result.config
    for measure in MEASURES:
        table = Table(title=f"Rank collapse at initialisation: {measure} residual per layer, mean over {config.batch} sequences "
                            f"(d={config.width}, H={config.heads}, n={config.tokens}, seed {config.seed})")
        table.add_column("variant")
        table.add_column("precision")
        for layer in range(config.depth + 1):
            table.add_column(str(layer), justify="right")
        for variant in VARIANTS:
            for precision in config.precisions:
                table.add_row(variant, precision, *(fmt(v, 2) for v in result.curve(variant, precision, measure)))
        console.print(table)

    floors = Table(title="Last-layer residual in units of the precision's unit roundoff (a few, or exactly 0 where the rows "
                         "became bitwise equal: the precision's floor either way; which one depends on the BLAS kernel)")
    for column in ("variant", "precision", *MEASURES, "sequences with equal rows"):
        floors.add_column(column, justify="right")
    by_key = {(f.variant, f.precision, f.measure): f for f in result.floors}
    for variant in VARIANTS:
        for precision in config.precisions:
            floors.add_row(variant, precision, *(fmt(by_key[variant, precision, m].in_roundoffs, 3) for m in MEASURES),
                           f"{by_key[variant, precision, MEASURES[0]].equal_rows} of {config.batch}")
    console.print(floors)

    sweep = Table(title=f"Layer collapse at BERT's shape: {config.depth}-layer SAN with skips vs one-layer surrogates, "
                        f"worst of {config.sweep_batch} sequences")
    for column in ("weight std", "surrogate", "||S-S'||max/||X||max", "||S-S'||max/||S||max"):
        sweep.add_column(column, justify="right")
    for s in result.sweep:
        sweep.add_row(fmt(s.factor, 3), s.surrogate, fmt(s.relative_to_input, 3), fmt(s.relative_to_output, 3))
    console.print(sweep)
    console.print(f"ran in {result.seconds:.1f} s")
