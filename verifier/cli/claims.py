"""Commands on single claims: ``lemma``, ``list``, ``show``, ``replay``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from .common import (DPS, audit_and_report, err_console, get_claim, main, out_console, pack_option, pack_runner, registry, search_config,
               search_options, select_checks)
from .all_claims import prove_options
from .kernel import coq_options, kernel_checks, replay_exit_code


@main.command("lemma")
@pack_option
@click.argument("claim_id")
@click.option("--reading", default=None, help="Run one reading only (default: every reading).")
@click.option("--part", default=None, help="Run one part only.")
@search_options
@prove_options
def lemma_cmd(claim_id, reading, part, seed, budget, time_limit, dps, no_shrink, jobs, save, force, store_dir, as_json, proofs):
    """Search one claim (any id: 4.1, 3.3, B.2, ...) for a certified counterexample; prove what survives on the claim's stated domain."""
    claim = get_claim(claim_id)
    checks = select_checks(claim, reading, part)
    run = audit_and_report([(claim, checks)], search_config(seed, budget, time_limit, dps, no_shrink, jobs), save, store_dir, as_json, force, proofs)
    sys.exit(run.exit_code)


@main.command("list")
@pack_option
@click.option("--json", "as_json", is_flag=True)
def list_cmd(as_json):
    """List every claim, grouped by pack.

    A pack that fails to load is reported on stderr (one line each) and the others are
    still listed; the exit status is then 2.
    """
    reg = registry(allow_errors=True)
    for error in reg.errors:
        click.echo(f"error: {error}", err=True)
    groups = reg.by_pack()
    if as_json:
        from ..reporters import json_report

        items = [{**json_report.claim_to_dict(c), "pack": pack} for pack, claims in groups for c in claims]
        click.echo(json.dumps(items, indent=2, ensure_ascii=False))
    else:
        from ..reporters import text

        console = out_console()
        for pack, claims in groups:
            text.print_claim_list(console, claims, pack=pack)
    sys.exit(2 if reg.errors else 0)


@main.command("show")
@pack_option
@click.argument("claim_id")
@click.option("--json", "as_json", is_flag=True)
def show_cmd(claim_id, as_json):
    """Show a claim: statement, reading notes, variables, parts and readings."""
    from ..reporters import json_report, text

    claim = get_claim(claim_id)
    if as_json:
        click.echo(json.dumps(json_report.claim_to_dict(claim), indent=2, ensure_ascii=False))
    else:
        text.print_claim(out_console(), claim)


@main.command("replay")
@pack_option
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--dps", type=DPS, default=None, help="Digits (default: the file's).")
@click.option("--json", "as_json", is_flag=True)
@click.option("--format", "fmt", type=click.Choice(["text", "latex"]), default="text", show_default=True, help="latex: print the typeset snippet on stdout.")
@coq_options
def replay_cmd(file, dps, as_json, fmt, coq, coq_dir):
    """Re-certify a stored counterexample against the claim as the code states it now.

    Exit 1 when it still refutes the claim, 0 when it no longer does; with --coq, 2 when
    the kernel and the replay disagree (coqc rejects the proof, or proves a refutation the replay does not see).
    """
    from .. import remote
    from ..reporters import coq_report, replay_report

    result = remote.replay(file, pack_runner(), registry(), dps)
    kernel = kernel_checks([file], coq, coq_dir)
    if as_json:
        click.echo(replay_report.to_json(result) if kernel is None else coq_report.replay_json(result, kernel))
    elif fmt == "latex":
        from ..reporters.latex import replay_snippet

        click.echo(replay_snippet(result), nl=False)
    else:
        replay_report.print_replay(err_console(), result)
    sys.exit(replay_exit_code(kernel, result.still_refutes))

