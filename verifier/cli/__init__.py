"""The ``verify`` command.  Commands parse options and hand over; reporters present.

This module holds the group and what commands share; each command family lives in a module
of its own and is registered at the bottom.

Exit codes: 0 nothing refuted, 1 a claim refuted (or drift), 2 usage or internal error.
Human text goes to stderr, machine output (JSON, reports) to stdout.
"""

from __future__ import annotations

import functools
import inspect
from pathlib import Path

import click
from rich.console import Console

from .._version import __version__
from ..engine import SearchConfig, run_checks
from ..registry import UnknownClaimError
from ..reporters import json_report, text
from ..reporters.progress import DelayedProgress
from ..results import FAILING, RunResult
from ..store import CounterexampleFileError, CounterexampleStore


class UsageFailure(click.ClickException):
    """A usage error with exit status 2 and a plain message."""

    exit_code = 2

    def show(self, file=None):
        click.echo(f"error: {self.format_message()}", err=True)


class VerifyGroup(click.Group):
    """Turns anything unexpected into a one-line error with exit status 2, never a traceback."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort, SystemExit):
            raise
        except CounterexampleFileError as exc:
            raise UsageFailure(str(exc)) from None
        except Exception as exc:  # pragma: no cover - last line of defence
            import os

            if os.environ.get("VERIFY_DEBUG"):
                raise
            raise UsageFailure(f"internal error: {type(exc).__name__}: {exc} (set VERIFY_DEBUG=1 for a traceback)") from None


def registry():
    from lemmas import REGISTRY

    return REGISTRY


def err_console() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=False)


def get_claim(claim_id: str):
    try:
        return registry().get(claim_id)
    except UnknownClaimError as exc:
        raise UsageFailure(str(exc)) from None


def select_checks(claim, reading, part):
    """The checks of ``claim`` for ``--reading`` and ``--part``; a usage error names a bad value."""
    if reading is not None and reading not in {r.name for r in claim.readings}:
        raise UsageFailure(f"claim {claim.id} has no reading {reading!r}; readings: {', '.join(r.name for r in claim.readings)}")
    if part is not None and part not in {p.name for p in claim.parts}:
        raise UsageFailure(f"claim {claim.id} has no part {part!r}; parts: {', '.join(p.name for p in claim.parts)}")
    checks = claim.checks(reading=reading, part=part)
    if not checks:
        raise UsageFailure(f"reading {reading!r} of claim {claim.id} does not cover part {part!r}")
    return checks


def search_options(fn):
    params = inspect.signature(fn).parameters
    takes_jobs = "jobs" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())

    @click.option("--seed", type=int, default=0, show_default=True, help="Seed of the search (results are reproducible from seed and budget).")
    @click.option("--budget", type=click.IntRange(min=1), default=SearchConfig.budget, show_default=True, help="Float64 evaluations per part and reading.")
    @click.option("--time", "time_limit", type=click.FloatRange(min=0, min_open=True), default=SearchConfig.time_limit, show_default=True, help="Time limit in seconds per part and reading.")
    @click.option("--dps", type=click.IntRange(min=15), default=SearchConfig.dps, show_default=True, help="Significant digits of the re-check.")
    @click.option("--no-shrink", is_flag=True, help="Keep the counterexample as found.")
    @click.option("--jobs", "-j", type=click.IntRange(min=0), default=1, show_default=True, help="Worker processes (0: one per core). The result of a seed does not depend on it.")
    @click.option("--save", is_flag=True, help="Store refuting counterexamples under --store.")
    @click.option("--store", "store_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("counterexamples"), show_default=True)
    @click.option("--json", "as_json", is_flag=True, help="Print one JSON list to stdout.")
    @functools.wraps(fn)
    def wrapper(**kw):
        if not takes_jobs:  # commands written before --jobs existed run with one job
            kw.pop("jobs", None)
        return fn(**kw)

    return wrapper


def _config(seed, budget, time_limit, dps, no_shrink, jobs=1) -> SearchConfig:
    return SearchConfig(seed=seed, budget=budget, time_limit=time_limit, dps=dps, shrink=not no_shrink, jobs=jobs)


def _run(checks, config, save, store_dir, as_json):
    """Run checks (progress bar on a terminal, none in JSON mode); store counterexamples if asked.

    Returns (run, saved paths, the console for human output); JSON is printed here.
    """
    console = err_console()
    progress = DelayedProgress(console)
    try:
        run = run_checks(checks, config, None if as_json else progress.for_check)
    finally:
        progress.close()
    saved = _save_counterexamples(run, checks, store_dir) if save else {}
    if as_json:
        click.echo(json_report.dumps_results(run.results, saved))
    return run, saved, console


def _run_and_report(claims_checks, config, save, store_dir, as_json) -> RunResult:
    checks = [ch for _, chs in claims_checks for ch in chs]
    run, saved, console = _run(checks, config, save, store_dir, as_json)
    if not as_json:
        for claim, chs in claims_checks:
            keys = {c.key for c in chs}
            text.print_results(console, claim, [r for r in run.results if (r.claim, r.part, r.reading) in keys], saved)
    return run


def _save_counterexamples(run: RunResult, checks, store_dir) -> dict:
    """Store every refuting counterexample; returns {(claim, part, reading): path}."""
    store = CounterexampleStore(store_dir)
    by_key = {ch.key: ch for ch in checks}
    saved = {}
    for r in run.results:
        if r.verdict in FAILING and r.counterexample is not None:
            check = by_key[(r.claim, r.part, r.reading)]
            saved[(r.claim, r.part, r.reading)] = str(store.save(r.counterexample, statement=check.part.statement or check.claim.statement))
    return saved


@click.group(cls=VerifyGroup)
@click.version_option(__version__, prog_name="verify")
def main():
    """Search the claims of a paper for certified counterexamples."""


from . import claims as _claims  # noqa: E402,F401  (registers lemma, list, show, replay)
from . import all_claims as _all  # noqa: E402,F401  (registers all)
from . import check as _check  # noqa: E402,F401  (registers lock, check)
from . import report as _report  # noqa: E402,F401  (registers report)
from . import formal as _formal  # noqa: E402,F401  (registers tighten, prove)
from . import experiment as _experiment  # noqa: E402,F401  (registers experiment layer-collapse, rank-collapse)
