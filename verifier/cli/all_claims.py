"""``verify all``: every claim, part and reading of the registry."""

from __future__ import annotations

import sys

import click

from ..engine import QUICK, SearchConfig
from ..reporters import json_report, text
from ..reporters.progress import DelayedProgress
from ..engine import run_checks
from . import err_console, main, registry, search_options


@main.command("all")
@click.option("--quick", is_flag=True, help=f"A small budget for CI ({QUICK.budget:,} evaluations, {QUICK.time_limit:g} s per check).")
@search_options
def all_cmd(quick, seed, budget, time_limit, dps, no_shrink, jobs, save, store_dir, as_json):
    """Audit the whole paper: one row per claim, part and reading."""
    from . import _save_counterexamples

    if quick:
        config = SearchConfig(seed=seed, budget=QUICK.budget, time_limit=QUICK.time_limit, dps=dps, shrink=not no_shrink, jobs=jobs)
    else:
        config = SearchConfig(seed=seed, budget=budget, time_limit=time_limit, dps=dps, shrink=not no_shrink, jobs=jobs)
    claims = list(registry())
    checks = [ch for c in claims for ch in c.checks()]
    console = err_console()
    progress = DelayedProgress(console)
    try:
        run = run_checks(checks, config, None if as_json else progress.for_check)
    finally:
        progress.close()
    saved = _save_counterexamples(run, checks, store_dir) if save else {}
    if as_json:
        click.echo(json_report.dumps_results(run.results, saved))
    else:
        text.print_summary_table(console, run.results)
    sys.exit(run.exit_code)
