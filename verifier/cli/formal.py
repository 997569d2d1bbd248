"""Formal-adjacent commands: ``tighten`` (the smallest constant) and ``prove`` (bounded domains)."""

from __future__ import annotations

import functools
import sys

import click

from ..engine import SearchConfig
from ..executor import forks_safely, make_executor
from ..isolation import call_apart, forking_available
from ..proof_audit import PROOF_GRACE
from ..prove import METHODS, BoundedDomainError, DomainError, MethodError, make_domain, parse_boxes, parse_dims, prove
from ..reporters import formal_report
from ..reporters.progress import proving_status
from ..tighten import NotTightenable, tighten
from ..limits import MAX_DIM
from . import BUDGET, DPS, ROUNDS, SECONDS, SEED, UsageFailure, err_console, get_claim, jobs_option, main, pack_option, select_checks


def bounded_dims(ctx, param, value):
    """Refuse a size beyond MAX_DIM before anything is built from it (n = 10**9 allocated until killed)."""
    for item in filter(None, (p.strip() for p in (value or "").split(","))):
        name, _, size = (t.strip() for t in item.partition("="))
        if size.isdigit() and (len(size) > 9 or int(size) > MAX_DIM):
            raise click.BadParameter(f"{name} = {size if len(size) <= 12 else size[:12] + '...'} is beyond the limit of {MAX_DIM} for a dimension")
    return value


def _proved_apart(check, domain, method, time_limit, dps, executor):
    """``prove`` in an isolated worker: native code that aborts or segfaults (a FLINT exception)
    ends the command with one line naming the check and the signal, not with the process."""
    run = functools.partial(prove, executor=executor)
    if not (forking_available() and forks_safely()):
        return run(check, domain, method, time_limit, dps)
    return call_apart(run, check, domain, method, time_limit, dps, limit=time_limit + PROOF_GRACE, subject=f"the proof of {check.label}")


def _emit(as_json, items, dumps, show, claim):
    """JSON to stdout or text to stderr, then the exit code of the worst item."""
    if as_json:
        click.echo(dumps(items))
    else:
        show(err_console(), claim, items)
    sys.exit(max(i.exit_code for i in items))


@main.command("tighten")
@pack_option
@click.argument("claim_id")
@click.option("--reading", default=None, help="One reading only (default: every reading).")
@click.option("--part", default=None, help="One part only.")
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("--budget", type=BUDGET, default=SearchConfig.budget, show_default=True, help="Float64 evaluations per round.")
@click.option("--time", "time_limit", type=SECONDS, default=SearchConfig.time_limit, show_default=True, help="Seconds per round.")
@click.option("--rounds", type=ROUNDS, default=6, show_default=True, help="Rounds that move the constant; past it, rounds go on while each moves it by more than 1%.")
@click.option("--dps", type=DPS, default=SearchConfig.dps, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON list to stdout.")
def tighten_cmd(claim_id, reading, part, seed, budget, time_limit, rounds, dps, as_json):
    """Estimate the best constant on the right-hand side: for lhs <= c rhs a certified lower bound on c, for lhs >= c rhs a certified upper bound, and the best value seen."""
    claim = get_claim(claim_id)
    checks = [c for c in select_checks(claim, reading, part) if c.part.relation != "=="]
    if not checks:
        raise UsageFailure(f"claim {claim.id}: no selected part has the form lhs <= rhs or lhs >= rhs")
    config = SearchConfig(seed=seed, budget=budget, time_limit=time_limit, dps=dps)
    try:
        results = [tighten(c, config, rounds) for c in checks]
    except NotTightenable as exc:
        raise UsageFailure(str(exc)) from None
    _emit(as_json, results, formal_report.dumps_tighten, formal_report.print_tighten, claim)


@main.command("prove")
@pack_option
@click.argument("claim_id")
@click.option("--dims", "dims_text", default="", callback=bounded_dims, help="Fixed dimensions, e.g. n=3,d=2 (every dimension of the claim; each at most 100).")
@click.option("--box", "boxes", multiple=True, help="LO:HI for every free variable, or NAME=LO:HI for one (repeatable).")
@click.option("--reading", default=None, help="One reading only (default: every reading).")
@click.option("--part", default=None, help="One part only.")
@click.option("--method", type=click.Choice(METHODS), default="auto", show_default=True, help=f"auto: every strategy in turn ({', '.join(METHODS[1:])}); or one of them alone.")
@click.option("--time", "time_limit", type=SECONDS, default=60.0, show_default=True, help="Seconds per part and reading.")
@click.option("--dps", type=DPS, default=SearchConfig.dps, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON list to stdout.")
@jobs_option(default=1)
def prove_cmd(claim_id, dims_text, boxes, reading, part, method, time_limit, dps, as_json, jobs):
    """Prove a claim on a bounded domain at fixed dimensions (or refute it with a certified counterexample)."""
    claim = get_claim(claim_id)
    checks = select_checks(claim, reading, part)
    try:
        dims = parse_dims(dims_text)
        default, named = parse_boxes(boxes)
        domains = [make_domain(c, dims, default, named) for c in checks]
        proofs = []
        with make_executor(jobs) as executor:
            for c, d in zip(checks, domains):
                with proving_status(err_console(), c, time_limit):
                    proofs.append(_proved_apart(c, d, method, time_limit, dps, executor))
    except (DomainError, MethodError, BoundedDomainError) as exc:
        raise UsageFailure(str(exc)) from None
    _emit(as_json, proofs, formal_report.dumps_proofs, formal_report.print_proofs, claim)
