"""``verify all``: every claim, part and reading of the registry, each survivor proved on its stated domain."""

from __future__ import annotations

import functools
import sys

import click

from ..limits import MAX_PROVE_BOXES, MAX_SECONDS
from ..budget import ProofBudget
from ..search.config import QUICK, SearchConfig
from .common import err_console, executor_spec, main, pack_option, pack_runner, refuse_unsaved, registry, search_options


class ProofSeconds(click.FloatRange):
    """Seconds in [0, MAX_SECONDS]; 0 switches proofs off; ``nan`` is refused."""

    name = "seconds"

    def __init__(self):
        super().__init__(min=0, max=MAX_SECONDS)

    def convert(self, value, param, ctx):
        value = super().convert(value, param, ctx)
        if value != value:
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        return value


PROOF_SECONDS = ProofSeconds()
PROVE_TIME_ENV = "VERIFY_PROVE_TIME"  # the default of --prove-time (on all, lemma and lock) from the environment


def prove_time_option(default: float):
    return click.option("--prove-time", "prove_time", type=PROOF_SECONDS, default=default, show_default=True, envvar=PROVE_TIME_ENV,
                        help=f"Seconds to prove each surviving check on the domain its claim states, at most what its --time left after "
                             f"the search (0: no proofs; default also from ${PROVE_TIME_ENV}).")


def prove_total_option(default: float):
    return click.option("--prove-total", "prove_total", type=PROOF_SECONDS, default=default, show_default=True,
                        help="Seconds for all proofs together; checks not reached say so.")


def prove_boxes_option(default: int | None):
    return click.option("--prove-boxes", "prove_boxes", type=click.IntRange(1, MAX_PROVE_BOXES), default=default, show_default=True,
                        help="Branch-and-bound boxes per proof: the work budget that decides, the same on every machine "
                             "(the seconds are safety caps).")


def prove_options(fn):
    """``--prove-time``, ``--prove-total`` and ``--prove-boxes``, handed to the command as one ``proofs`` budget."""

    @prove_time_option(ProofBudget.per_check)
    @prove_total_option(ProofBudget.total)
    @prove_boxes_option(ProofBudget.boxes)
    @functools.wraps(fn)
    def wrapper(prove_time, prove_total, prove_boxes, **kw):
        return fn(proofs=ProofBudget(per_check=prove_time, total=prove_total, dps=kw.get("dps", ProofBudget.dps), boxes=prove_boxes,
                                     certificates=False), **kw)

    return wrapper


#: proofs under --quick unless --prove-time / --prove-total / --prove-boxes are given: the CI budget decides little more
QUICK_PROOFS = ProofBudget(per_check=5.0, total=20.0, boxes=200, certificates=False)


def _quick_proofs(proofs: ProofBudget) -> ProofBudget:
    ctx = click.get_current_context()
    given = {name for name in ("prove_time", "prove_total", "prove_boxes") if ctx.get_parameter_source(name) is not click.core.ParameterSource.DEFAULT}
    return ProofBudget(per_check=proofs.per_check if "prove_time" in given else QUICK_PROOFS.per_check,
                       total=proofs.total if "prove_total" in given else QUICK_PROOFS.total, dps=proofs.dps,
                       boxes=proofs.boxes if "prove_boxes" in given else QUICK_PROOFS.boxes, certificates=proofs.certificates)


@main.command("all")
@pack_option
@click.option("--quick", is_flag=True, help=f"A small budget for CI ({QUICK.budget:,} evaluations, {QUICK.time_limit:g} s per check; "
                                            f"proofs {QUICK_PROOFS.boxes:,} boxes and at most {QUICK_PROOFS.per_check:g} s each, {QUICK_PROOFS.total:g} s in all).")
@search_options
@prove_options
def all_cmd(quick, seed, budget, time_limit, dps, no_shrink, jobs, save, force, store_dir, as_json, proofs):
    """Audit the whole paper: one row per claim, part and reading, printed as each check finishes.

    A check that survives the search is then proved on the bounded domain its claim states
    (--prove-time per check, --prove-total for all), on --jobs processes; its row comes when
    the proof is done and says "proved on DOMAIN" or how much of the domain was decided.
    """
    from ..audit import Audit, AuditOptions
    from ..reporters import json_report, text
    from ..reporters.progress import StreamingRows

    budget, time_limit = (QUICK.budget, QUICK.time_limit) if quick else (budget, time_limit)
    if quick:
        proofs = _quick_proofs(proofs)
    config = SearchConfig(seed=seed, budget=budget, time_limit=time_limit, dps=dps, shrink=not no_shrink, jobs=jobs, executor=executor_spec())
    checks = [ch for c in registry() for ch in c.checks()]
    audit = Audit(AuditOptions(config, proofs, store_dir if save else None, force), pack_runner(), jobs)
    console = err_console()
    if as_json:
        run = audit.run(checks)
    else:
        with StreamingRows(console, len(checks), text.summary_header()) as rows:
            run = audit.run(checks, on_result=lambda r: rows.add(text.summary_row(r)))
    if as_json:
        click.echo(json_report.dumps_results(run.results, run.saved, run.unsaved))
    else:
        for path in run.saved.values():
            console.print(f"saved {path}", soft_wrap=True)
        text.print_summary_counts(console, run.results)
    refuse_unsaved(run.unsaved)
    sys.exit(run.exit_code)
