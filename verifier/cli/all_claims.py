"""``verify all``: every claim, part and reading of the registry."""

from __future__ import annotations

import sys

import click

from ..engine import QUICK, SearchConfig, run_checks
from ..reporters import json_report, text
from ..reporters.progress import StreamingRows
from . import _save_counterexamples, err_console, main, pack_option, registry, search_options


@main.command("all")
@pack_option
@click.option("--quick", is_flag=True, help=f"A small budget for CI ({QUICK.budget:,} evaluations, {QUICK.time_limit:g} s per check).")
@search_options
def all_cmd(quick, seed, budget, time_limit, dps, no_shrink, jobs, save, force, store_dir, as_json):
    """Audit the whole paper: one row per claim, part and reading, printed as each check finishes."""
    if quick:
        config = SearchConfig(seed=seed, budget=QUICK.budget, time_limit=QUICK.time_limit, dps=dps, shrink=not no_shrink, jobs=jobs)
    else:
        config = SearchConfig(seed=seed, budget=budget, time_limit=time_limit, dps=dps, shrink=not no_shrink, jobs=jobs)
    checks = [ch for c in registry() for ch in c.checks()]
    console = err_console()
    if as_json:
        run = run_checks(checks, config)
    else:
        with StreamingRows(console, len(checks), text.summary_header()) as rows:
            run = run_checks(checks, config, on_result=lambda r: rows.add(text.summary_row(r)))
    saved = _save_counterexamples(run, checks, store_dir, force) if save else {}
    if as_json:
        click.echo(json_report.dumps_results(run.results, saved))
    else:
        for path in saved.values():
            console.print(f"saved {path}", soft_wrap=True)
        text.print_summary_counts(console, run.results)
    sys.exit(run.exit_code)
