"""Formal-adjacent commands: ``tighten`` (the smallest constant) and ``prove`` (bounded domains)."""

from __future__ import annotations

import sys

import click

from ..limits import MAX_DIM, LimitError, check_option_number
from ..search.config import SearchConfig
from .common import (BUDGET, DPS, ROUNDS, SECONDS, SEED, UsageFailure, err_console, executor_spec, get_claim, jobs_option, main, pack_option,
               pack_runner, select_checks)


def bounded_dims(ctx, param, value):
    """Refuse a size beyond MAX_DIM before anything is built from it (n = 10**9 allocated until killed), and a size given twice."""
    seen = set()
    for item in filter(None, (p.strip() for p in (value or "").split(","))):
        name, _, size = (t.strip() for t in item.partition("="))
        if size.isdigit() and (len(size) > 9 or int(size) > MAX_DIM):
            raise click.BadParameter(f"{name} = {size if len(size) <= 12 else size[:12] + '...'} is beyond the limit of {MAX_DIM} for a dimension")
        if name in seen:
            raise click.BadParameter(f"{name} is given twice")
        seen.add(name)
    return value


def bounded_boxes(ctx, param, value):
    """Refuse a bound that is no short number within MAX_BOX_MAGNITUDE before anything is built from it
    (eps in [0, 1e400] grew to 3.5 GB), and a box given twice for one variable (or for all)."""
    seen = set()
    for item in value or ():
        name, named, interval = item.partition("=")
        name = name.strip() if named else "every variable"
        lo, sep, hi = (interval if named else item).partition(":")
        try:
            for bound in (lo, hi) if sep else ():
                check_option_number(bound)
        except LimitError as exc:
            raise click.BadParameter(f"{item[:60]!r}: {exc}") from None
        if name in seen:
            raise click.BadParameter(f"a box for {name} is given twice")
        seen.add(name)
    return value


def tightened(checks, config, rounds):
    """Each check's best constant, tightened in a worker of its pack; a usage error names what
    cannot be tightened."""
    from .. import remote, tasks

    runner = pack_runner()
    out = []
    for check in checks:
        task = tasks.TightenTask(runner.ref(check), config, rounds)
        try:
            out.append(remote.ask(runner, tasks.tighten, task, f"claim {check.label}: its code", None, object))
        except remote.WorkerFailed as exc:
            raise UsageFailure(str(exc)) from None
    return out


def emit(as_json, items, dumps, show, claim):
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
    from ..reporters import formal_report

    config = SearchConfig(seed=seed, budget=budget, time_limit=time_limit, dps=dps)
    emit(as_json, tightened(checks, config, rounds), formal_report.dumps_tighten, formal_report.print_tighten, claim)


@main.command("prove")
@pack_option
@click.argument("claim_id")
@click.option("--dims", "dims_text", default="", callback=bounded_dims, help="Fixed dimensions, e.g. n=3,d=2 (every dimension of the claim; each at most 100).")
@click.option("--box", "boxes", multiple=True, callback=bounded_boxes, help="LO:HI for every free variable, or NAME=LO:HI for one (repeatable; each bound at most 10^6 in absolute value).")
@click.option("--reading", default=None, help="One reading only (default: every reading).")
@click.option("--part", default=None, help="One part only.")
@click.option("--method", default="auto", show_default=True, help="A proof strategy by name (auto: each that applies, in order; an unknown name lists them).")
@click.option("--time", "time_limit", type=SECONDS, default=60.0, show_default=True, help="Seconds per part and reading.")
@click.option("--dps", type=DPS, default=SearchConfig.dps, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON list to stdout.")
@jobs_option(default=1)
def prove_cmd(claim_id, dims_text, boxes, reading, part, method, time_limit, dps, as_json, jobs):
    """Prove a claim on a bounded domain at fixed dimensions (or refute it with a certified counterexample)."""
    from .. import remote, tasks
    from ..prove import BoundedDomainError, MethodError, ProofBoxError, parse_boxes, parse_dims
    from ..reporters import formal_report
    from ..reporters.progress import proving_status
    from ..audit import PROOF_GRACE

    claim = get_claim(claim_id)
    checks = select_checks(claim, reading, part)
    runner = pack_runner()
    try:
        dims = parse_dims(dims_text)
        default, named = parse_boxes(boxes)
        proofs = []
        for c in checks:
            task = tasks.ProveTask(runner.ref(c), dims, default, named, method, time_limit, dps, jobs, executor_spec())
            with proving_status(err_console(), c, time_limit):
                proofs.append(remote.ask(runner, tasks.prove_on, task, f"the proof of {c.label}", time_limit + PROOF_GRACE, object))
    except (ProofBoxError, MethodError, BoundedDomainError) as exc:
        raise UsageFailure(str(exc)) from None
    except remote.WorkerFailed as exc:
        raise UsageFailure(str(exc)) from None
    emit(as_json, proofs, formal_report.dumps_proofs, formal_report.print_proofs, claim)
