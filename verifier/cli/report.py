"""Reviewer reproduction: ``verify report`` (markdown, LaTeX, self-contained HTML)."""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import click

from ..reporters.formats import REPORT_FORMATS, renderer
from .common import UsageFailure, err_console, main, pack_option, registry
from .check import check_output, claim_option, jobs_option, lock_option, read_lock, regression, replayer, selected_claims
from .kernel import coq_options, exit_code, locked_kernel_checks


@main.command("report")
@pack_option
@click.option("--format", "fmt", type=click.Choice(sorted(REPORT_FORMATS)), default="markdown", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Write here (default: stdout).")
@click.option("--summary", is_flag=True, help="Only the audit table (markdown) of what the lock records, its values recomputed by replaying the files it cites; searches nothing.")
@lock_option
@jobs_option
@claim_option
@coq_options
@click.option("--experiments", "experiment_paths", multiple=True, type=click.Path(exists=True, path_type=Path),
              help="JSON of `verify experiment ... --json`, or a directory of such files: adds an Experiments "
                   "section with the figures to the HTML report. Repeatable.")
def report_cmd(fmt, output, summary, lock_path, jobs, claim_ids, coq, coq_dir, experiment_paths):
    """A report a reviewer can paste: statement, reading, verdict, typeset counterexample, replay command.

    It replays the locked counterexamples and reruns the locked search first, so the report
    shows what was just reproduced; the exit code is that of `verify check`. With --coq each
    counterexample is also proved in Coq, and the report says whether coqc accepted the proof.
    """
    from ..reporters import check_report
    from ..reporters.markdown import summary_table
    from ..reporters.report_data import UnpinnedEvidence, sections, summary_rows

    if output is not None:
        check_output(output, "-o")
    claims = selected_claims(claim_ids)
    if summary:
        if fmt != "markdown":
            raise UsageFailure("--summary is a markdown table: use it with --format markdown")
        if coq:
            raise UsageFailure("--summary kernel-checks nothing: drop --coq or --summary")
        try:
            rows = summary_rows(claims, read_lock(lock_path), replayer())
        except UnpinnedEvidence as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(1)  # drift from the lock, as `verify check` would call it
        _write(summary_table(rows), output)
        return
    render = renderer(fmt)
    if experiment_paths:
        render = functools.partial(render, appendix=_experiments_appendix(fmt, experiment_paths))
    reg = regression(lock_path, quiet=False, jobs=jobs, claims=claims if claim_ids else None)
    kernel = locked_kernel_checks(reg, coq, coq_dir, jobs)
    _write(render(sections(claims, reg, kernel), reg), output)
    check_report.print_regression(err_console(), reg)
    sys.exit(exit_code(kernel, reg.exit_code, max(reg.exit_code, 1)))


def _experiments_appendix(fmt: str, paths) -> str:
    """The Experiments section of the recorded runs, read before the long replay so a bad file fails at once."""
    if fmt != "html":
        raise UsageFailure("--experiments draws figures into the HTML report: use it with --format html")
    from ..experiments.records import RecordError, read_results
    from ..reporters.experiments_html import experiments_section

    try:
        results = read_results(paths)
    except RecordError as exc:
        raise UsageFailure("\n".join(line if i == 0 else f"error: {line}" for i, line in enumerate(str(exc).splitlines()))) from None
    return experiments_section(*(result for _, result in results))


def _write(text: str, output: Path | None) -> None:
    from ..safe_files import write_atomic

    if output is None:
        click.echo(text, nl=False)
    else:
        write_atomic(output, text)
        err_console().print(f"wrote {output}")
