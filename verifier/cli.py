"""The ``verify`` command.  Commands parse options and hand over; reporters present.

Exit codes: 0 nothing refuted, 1 a claim refuted (or drift), 2 usage or internal error.
Human text goes to stderr, machine output (JSON, reports) to stdout.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import click
from rich.console import Console

from ._version import __version__
from .engine import SearchConfig, run_checks
from .registry import UnknownClaimError
from .reporters import json_report, text
from .reporters.progress import DelayedProgress
from .results import RunResult, Verdict
from .store import CounterexampleFileError, CounterexampleStore, replay as replay_file


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


def search_options(fn):
    @click.option("--seed", type=int, default=0, show_default=True, help="Seed of the search (results are reproducible from seed and budget).")
    @click.option("--budget", type=click.IntRange(min=1), default=SearchConfig.budget, show_default=True, help="Float64 evaluations per part and reading.")
    @click.option("--time", "time_limit", type=click.FloatRange(min=0, min_open=True), default=SearchConfig.time_limit, show_default=True, help="Time limit in seconds per part and reading.")
    @click.option("--dps", type=click.IntRange(min=15), default=SearchConfig.dps, show_default=True, help="Significant digits of the re-check.")
    @click.option("--no-shrink", is_flag=True, help="Keep the counterexample as found.")
    @click.option("--save", is_flag=True, help="Store refuting counterexamples under --store.")
    @click.option("--store", "store_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("counterexamples"), show_default=True)
    @click.option("--json", "as_json", is_flag=True, help="Print one JSON list to stdout.")
    @functools.wraps(fn)
    def wrapper(**kw):
        return fn(**kw)

    return wrapper


def _config(seed, budget, time_limit, dps, no_shrink) -> SearchConfig:
    return SearchConfig(seed=seed, budget=budget, time_limit=time_limit, dps=dps, shrink=not no_shrink)


def _run_and_report(claims_checks, config, save, store_dir, as_json) -> RunResult:
    console = err_console()
    progress = DelayedProgress(console)
    checks = [ch for _, chs in claims_checks for ch in chs]
    try:
        run = run_checks(checks, config, None if as_json else progress.for_check)
    finally:
        progress.close()
    saved = {}
    if save:
        store = CounterexampleStore(store_dir)
        by_key = {ch.key: ch for ch in checks}
        for r in run.results:
            if r.verdict is Verdict.REFUTED and r.counterexample is not None:
                check = by_key[(r.claim, r.part, r.reading)]
                saved[(r.claim, r.part, r.reading)] = str(store.save(r.counterexample, statement=check.part.statement or check.claim.statement))
    if as_json:
        click.echo(json_report.dumps_results(run.results, saved))
    else:
        for claim, chs in claims_checks:
            keys = {c.key for c in chs}
            text.print_results(console, claim, [r for r in run.results if (r.claim, r.part, r.reading) in keys], saved)
    return run


@click.group(cls=VerifyGroup)
@click.version_option(__version__, prog_name="verify")
def main():
    """Search the claims of a paper for certified counterexamples."""


@main.command("lemma")
@click.argument("claim_id")
@click.option("--reading", default=None, help="Run one reading only (default: every reading).")
@click.option("--part", default=None, help="Run one part only.")
@search_options
def lemma_cmd(claim_id, reading, part, seed, budget, time_limit, dps, no_shrink, save, store_dir, as_json):
    """Search one claim (any id: 4.1, 3.3, B.2, ...) for a certified counterexample."""
    claim = get_claim(claim_id)
    if reading is not None and reading not in {r.name for r in claim.readings}:
        raise UsageFailure(f"claim {claim.id} has no reading {reading!r}; readings: {', '.join(r.name for r in claim.readings)}")
    if part is not None and part not in {p.name for p in claim.parts}:
        raise UsageFailure(f"claim {claim.id} has no part {part!r}; parts: {', '.join(p.name for p in claim.parts)}")
    checks = claim.checks(reading=reading, part=part)
    if not checks:
        raise UsageFailure(f"reading {reading!r} of claim {claim.id} does not cover part {part!r}")
    run = _run_and_report([(claim, checks)], _config(seed, budget, time_limit, dps, no_shrink), save, store_dir, as_json)
    sys.exit(run.exit_code)


@main.command("list")
@click.option("--json", "as_json", is_flag=True)
def list_cmd(as_json):
    """List every claim."""
    claims = list(registry())
    if as_json:
        import json

        click.echo(json.dumps([json_report.claim_to_dict(c) for c in claims], indent=2, ensure_ascii=False))
    else:
        text.print_claim_list(err_console(), claims)


@main.command("show")
@click.argument("claim_id")
@click.option("--json", "as_json", is_flag=True)
def show_cmd(claim_id, as_json):
    """Show a claim: statement, reading notes, variables, parts and readings."""
    claim = get_claim(claim_id)
    if as_json:
        import json

        click.echo(json.dumps(json_report.claim_to_dict(claim), indent=2, ensure_ascii=False))
    else:
        text.print_claim(err_console(), claim)


@main.command("replay")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--dps", type=click.IntRange(min=15), default=None, help="Digits (default: the file's).")
@click.option("--json", "as_json", is_flag=True)
def replay_cmd(file, dps, as_json):
    """Re-certify a stored counterexample against the claim as the code states it now.

    Exit 1 when it still refutes the claim, 0 when it no longer does.
    """
    result = replay_file(file, lambda paper, cid: registry().find(paper, cid), dps)
    from .reporters import replay_report

    if as_json:
        click.echo(replay_report.to_json(result))
    else:
        replay_report.print_replay(err_console(), result)
    sys.exit(1 if result.still_refutes else 0)


if __name__ == "__main__":  # pragma: no cover
    main()
