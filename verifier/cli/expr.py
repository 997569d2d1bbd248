"""``verify expr``: one line from a paper, checked from its text."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .common import ROUNDS, UsageFailure, audit_and_report, main, registry, search_config, search_options
from .all_claims import prove_options
from .formal import emit, tightened


# a statement may start with '-' (``-\\sum_i p_i \\ln p_i <= \\ln n``): not an option
@main.command("expr", context_settings={"ignore_unknown_options": True})
@click.argument("statement")
@click.option("--var", "variables", multiple=True, metavar="DECL",
              help="A declaration (repeatable): 'a,b,c > 0', 'x in [0, 4]', 'x in (0, 1]', 'v: vector n in [-1, 1]', "
                   "'p: simplex n', 'u: unit vector n'. Unbounded sides are searched on [-10^4, 10^4].")
@click.option("--dim", "dims", multiple=True, metavar="DIM", help="A dimension's sizes (repeatable): 'n in 1..8', 'n = 3'.")
@click.option("--where", "where", multiple=True, metavar="REL",
              help="A constraint (repeatable): an inequality is a hypothesis; an equality is solved (Derived, simplex, sphere).")
@click.option("--tighten", "constant", metavar="C", default=None,
              help="Estimate the best value of the free constant C in 'lhs <= C g' (or >=), as `verify tighten` does.")
@click.option("--rounds", type=ROUNDS, default=6, show_default=True, help="With --tighten: rounds that move the constant.")
@click.option("--save-claim", "save_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the claim as a pack module FILE.py (then `verify lock --pack FILE.py`); an existing file only with --force.")
@click.option("--id", "claim_id", default=None, help="The claim's id (default: the --save-claim file's name, else expr-HASH).")
@search_options
@prove_options
def expr_cmd(statement, variables, dims, where, constant, rounds, save_path, claim_id, seed, budget, time_limit, dps,
             no_shrink, jobs, save, force, store_dir, as_json, proofs):
    """Check one displayed inequality from its LaTeX (or Python syntax), e.g.

    \b
    verify expr '\\frac{a}{b+c}+\\frac{b}{c+a}+\\frac{c}{a+b} \\geq \\frac{3}{2}' --var 'a,b,c > 0'

    The result is the panel (or --json) of `verify lemma`: a certified counterexample, shrunk,
    or the proof attempt for a survivor.
    """
    # imported here, not at the top: the grammar's tables cost every other `verify` command 0.3 s at start
    from ..frontend import ExpressionError, ExprRequest, build
    from ..frontend.save import SaveError, check_save_path, claim_id_for, save_claim_module

    if save and save_path is None:
        raise UsageFailure("--save needs --save-claim FILE.py: `verify replay FILE --pack FILE.py` finds the claim there")
    try:
        if save_path is not None:
            check_save_path(save_path, force)
        request = ExprRequest(statement, variables, dims, where, constant, claim_id_for(claim_id, save_path))
        built = build(request)
        if save_path is not None:
            save_claim_module(save_path, built, force)
    except (ExpressionError, SaveError) as exc:
        raise UsageFailure(str(exc)) from None
    if save_path is not None:
        click.echo(f"wrote {save_path} (claim {built.claim.id}); lock it with: verify lock --pack {save_path}", err=True)
    # the claim runs where every pack's code runs: in a worker, loaded from the module written above
    from ..packside import PackSource
    from ..reporters import formal_report

    catalog = registry(extra_sources=[PackSource("expr", "source", built.claim.id, built.source)])
    claim = catalog.get(built.claim.id)
    config = search_config(seed, budget, time_limit, dps, no_shrink, jobs)
    checks = claim.checks()
    if constant:
        emit(as_json, tightened(checks, config, rounds), formal_report.dumps_tighten, formal_report.print_tighten, claim)
    run = audit_and_report([(claim, checks)], config, save, store_dir, as_json, force and save, proofs)
    sys.exit(run.exit_code)
