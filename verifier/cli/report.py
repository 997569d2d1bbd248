"""Reviewer reproduction: ``verify report`` (markdown, LaTeX, self-contained HTML)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..reporters import check_report
from ..reporters.formats import REPORT_FORMATS
from ..reporters.report_data import sections
from ..store import write_atomic
from . import err_console, main, pack_option
from .check import claim_option, jobs_option, lock_option, regression, selected_claims


@main.command("report")
@pack_option
@click.option("--format", "fmt", type=click.Choice(sorted(REPORT_FORMATS)), default="markdown", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Write here (default: stdout).")
@lock_option
@jobs_option
@claim_option
def report_cmd(fmt, output, lock_path, jobs, claim_ids):
    """A report a reviewer can paste: statement, reading, verdict, typeset counterexample, replay command.

    It replays the locked counterexamples and reruns the locked search first, so the report
    shows what was just reproduced; the exit code is that of `verify check`.
    """
    claims = selected_claims(claim_ids)
    reg = regression(lock_path, quiet=output is None, jobs=jobs, claims=claims if claim_ids else None)
    text = REPORT_FORMATS[fmt](sections(claims, reg), reg)
    if output is None:
        click.echo(text, nl=False)
    else:
        write_atomic(output, text)
        err_console().print(f"wrote {output}")
    check_report.print_regression(err_console(), reg)
    sys.exit(reg.exit_code)
