"""``verify all``: every claim, part and reading of the registry."""

from __future__ import annotations

import sys

import click

from ..engine import QUICK, SearchConfig
from ..reporters import text
from . import _run, main, pack_option, registry, search_options


@main.command("all")
@pack_option
@click.option("--quick", is_flag=True, help=f"A small budget for CI ({QUICK.budget:,} evaluations, {QUICK.time_limit:g} s per check).")
@search_options
def all_cmd(quick, seed, budget, time_limit, dps, no_shrink, jobs, save, store_dir, as_json):
    """Audit the whole paper: one row per claim, part and reading."""
    if quick:
        config = SearchConfig(seed=seed, budget=QUICK.budget, time_limit=QUICK.time_limit, dps=dps, shrink=not no_shrink, jobs=jobs)
    else:
        config = SearchConfig(seed=seed, budget=budget, time_limit=time_limit, dps=dps, shrink=not no_shrink, jobs=jobs)
    checks = [ch for c in registry() for ch in c.checks()]
    run, _, console = _run(checks, config, save, store_dir, as_json)
    if not as_json:
        text.print_summary_table(console, run.results)
    sys.exit(run.exit_code)
