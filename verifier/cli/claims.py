"""Commands on single claims: ``lemma``, ``list``, ``show``, ``replay``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from ..reporters import coq_report, json_report, replay_report, text
from ..store import replay as replay_file
from . import _config, select_checks, _run_and_report, err_console, get_claim, main, registry, search_options
from .kernel import coq_options, exit_code, kernel_checks


@main.command("lemma")
@click.argument("claim_id")
@click.option("--reading", default=None, help="Run one reading only (default: every reading).")
@click.option("--part", default=None, help="Run one part only.")
@search_options
def lemma_cmd(claim_id, reading, part, seed, budget, time_limit, dps, no_shrink, jobs, save, store_dir, as_json):
    """Search one claim (any id: 4.1, 3.3, B.2, ...) for a certified counterexample."""
    claim = get_claim(claim_id)
    checks = select_checks(claim, reading, part)
    run = _run_and_report([(claim, checks)], _config(seed, budget, time_limit, dps, no_shrink, jobs), save, store_dir, as_json)
    sys.exit(run.exit_code)


@main.command("list")
@click.option("--json", "as_json", is_flag=True)
def list_cmd(as_json):
    """List every claim."""
    claims = list(registry())
    if as_json:
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
        click.echo(json.dumps(json_report.claim_to_dict(claim), indent=2, ensure_ascii=False))
    else:
        text.print_claim(err_console(), claim)


@main.command("replay")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--dps", type=click.IntRange(min=15), default=None, help="Digits (default: the file's).")
@click.option("--json", "as_json", is_flag=True)
@click.option("--format", "fmt", type=click.Choice(["text", "latex"]), default="text", show_default=True, help="latex: print the typeset snippet on stdout.")
@coq_options
def replay_cmd(file, dps, as_json, fmt, coq, coq_dir):
    """Re-certify a stored counterexample against the claim as the code states it now.

    Exit 1 when it still refutes the claim, 0 when it no longer does; with --coq, 2 when
    coqc rejects the proof.
    """
    result = replay_file(file, lambda paper, cid: registry().find(paper, cid), dps)
    kernel = kernel_checks([file], coq, coq_dir)

    if as_json:
        click.echo(replay_report.to_json(result) if kernel is None else coq_report.replay_json(result, kernel))
    elif fmt == "latex":
        from ..reporters.latex import replay_snippet

        click.echo(replay_snippet(result), nl=False)
    else:
        replay_report.print_replay(err_console(), result)
    sys.exit(exit_code(kernel, 1 if result.still_refutes else 0, 2))

