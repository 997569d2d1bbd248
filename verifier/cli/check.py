"""Regression in CI: ``verify lock`` records every verdict, ``verify check`` compares with it."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..budget import ProofBudget
from ..config import LOCK_NAME
from ..search.config import QUICK
from .common import BUDGET, DPS, SECONDS, SEED, UsageFailure, err_console, get_claim, main, pack_option, pack_runner, refuse_unsaved, registry
from .common import jobs_option as shared_jobs_option
from .all_claims import prove_boxes_option, prove_time_option, prove_total_option
from .kernel import coq_options, exit_code, locked_kernel_checks, locked_proof_checks, require_coqc, with_kernel_statuses

LOCK_TIME_LIMIT = 30.0  # a safety cap well above what the CI budget needs, so the budget decides

jobs_option = shared_jobs_option(default=0)
lock_option = click.option("--lock", "lock_path", type=click.Path(dir_okay=False, path_type=Path), default=Path(LOCK_NAME),
                           show_default=True, help="The lockfile (counterexample paths in it are relative to its folder).")


claim_option = click.option("--claim", "claim_ids", multiple=True, metavar="ID",
                            help="Only this claim (repeatable; default: every claim). `verify lock --claim` keeps the other entries.")


def selected_claims(claim_ids=()):
    """The claims asked for, in registry order (every claim when none is named)."""
    if not claim_ids:
        return list(registry())
    wanted = {id(get_claim(cid)) for cid in claim_ids}
    return [c for c in registry() if id(c) in wanted]


def all_checks(claims=None):
    from ..registry import lock_key_clash

    claims = list(registry() if claims is None else claims)
    clash = lock_key_clash(claims)
    if clash:
        raise UsageFailure(clash)
    return [ch for c in claims for ch in c.checks()]


def replayer(dps=None):
    """How this command replays a stored file: in a worker of its claim's pack."""
    from .. import remote

    runner, catalog = pack_runner(), registry()
    return lambda path: remote.replay(path, runner, catalog, dps)


def read_lock(path: Path):
    from .. import lock as lockfile
    from ..lock import LockFileError

    try:
        return lockfile.read(path)
    except LockFileError as exc:
        raise UsageFailure(str(exc)) from None


def regression(lock_path: Path, quiet: bool, jobs: int = 1, claims=None, store_dir: Path | None = None):
    """Run the comparison with a progress bar on stderr (none when ``quiet``); ``claims``: a selection.

    Every file of the store (``store_dir``, default the lock's ``counterexamples/``) that the
    lock does not list is reported too."""
    from .. import lock as lockfile
    from ..regression import audit_for, run_regression
    from ..reporters.progress import DelayedProgress
    from ..store import CounterexampleStore

    lock = read_lock(lock_path)
    if claims is not None:
        lock = lockfile.restricted(lock, {c.id for c in claims})
    locked = lock.by_key()
    searched = sum(1 for ch in all_checks(claims) if ch.key in locked and not locked[ch.key].counterexamples)
    store = CounterexampleStore(lock.root / "counterexamples" if store_dir is None else store_dir)
    progress = DelayedProgress(err_console(), total=searched)
    try:
        return run_regression(lock, all_checks(claims), replayer(), audit_for(lock.search, pack_runner(), jobs),
                              None if quiet else progress.for_check, store=store, every_check=claims is None)
    finally:
        progress.close()


def store_inside_project(store_dir: Path, lock_path: Path) -> None:
    """The lock lists stored files inside its project: a store elsewhere (or a link leading
    there) is refused before the search, not after it."""
    from .. import lock as lockfile

    try:
        lockfile.relative_to_lock(lock_path, store_dir)
    except ValueError as exc:
        raise UsageFailure(f"--store {store_dir}: {exc}") from None


def locked_run(checks, search, store_dir: Path, lock_path: Path, jobs: int, console):
    """The lock of a fixed-seed run (stored evidence replayed, the rest searched), its rows printed.

    A claim that raised is a usage error: a lock must not record it.
    """
    from ..regression import audit_for, make_lock
    from ..reporters import check_report, text
    from ..reporters.progress import DelayedProgress
    from ..results import Verdict
    from ..store import CounterexampleStore

    progress = DelayedProgress(console)
    try:
        lock, rows = make_lock(checks, search, CounterexampleStore(store_dir), lock_path, replayer(), audit_for(search, pack_runner(), jobs),
                               progress.for_check)
    finally:
        progress.close()
    check_report.print_lock_rows(console, rows, lock_path)
    unsaved = [r for r in rows if r.save_error]
    if unsaved:
        for row in unsaved:  # the certified counterexample on the terminal, though it could not be stored
            text.print_results(console, registry().find(row.entry.paper, row.entry.claim), [row.result], unsaved={row.entry.key: row.save_error})
        names = "; ".join(f"{r.entry.claim} part {r.entry.part} [{r.entry.reading}]: {r.save_error}" for r in unsaved)
        raise UsageFailure(f"not writing {lock_path}: a counterexample found could not be stored ({names})")
    errors = [r for r in rows if r.entry.verdict == Verdict.ERROR.value]
    if errors:
        names = ", ".join(f"{r.entry.claim} part {r.entry.part} [{r.entry.reading}]: {r.result.message}" for r in errors)
        raise UsageFailure(f"not writing {lock_path}: a claim raised ({names})")
    return lock


@main.command("lock")
@pack_option
@lock_option
@click.option("--store", "store_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("counterexamples"), show_default=True,
              help="Stored counterexamples: replayed first; new ones are saved here.")
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("--budget", type=BUDGET, default=QUICK.budget, show_default=True, help="Float64 evaluations per check (CI budget).")
@click.option("--time", "time_limit", type=SECONDS, default=LOCK_TIME_LIMIT, show_default=True,
              help="Safety cap in seconds per check; set it well above what the budget needs so the budget decides.")
@click.option("--dps", type=DPS, default=QUICK.dps, show_default=True)
@prove_time_option(ProofBudget.per_check)
@prove_total_option(ProofBudget.total)
@prove_boxes_option(ProofBudget.boxes)
@jobs_option
@claim_option
@coq_options
def lock_cmd(lock_path, store_dir, seed, budget, time_limit, dps, prove_time, prove_total, prove_boxes, jobs, claim_ids, coq, coq_dir):
    """Write the lockfile: the verdict of every claim, part and reading, from a fixed-seed run.

    Stored counterexamples that still refute are listed as the evidence; checks without one
    are searched, and a counterexample found is saved under --store.  A check that survives
    is proved on its claim's stated domain, and the lock records where and whether it went through.
    """
    from .. import lock as lockfile
    from ..lock import LockedSearch

    console = err_console()
    require_coqc(coq)
    search = LockedSearch(seed=seed, budget=budget, time_limit=time_limit, dps=dps, prove_time=prove_time, prove_total=prove_total,
                          prove_boxes=prove_boxes)
    old = read_lock(lock_path) if claim_ids and lock_path.exists() else None
    if old is not None and old.search != search:  # refuse before searching, not after
        raise UsageFailure(f"{lock_path} was made with {lockfile.describe(old.search)}; pass the same options, or re-lock every claim")
    store_inside_project(store_dir, lock_path)
    claims = selected_claims(claim_ids)
    lock = locked_run(all_checks(claims), search, store_dir, lock_path, jobs, console)
    lock = with_kernel_statuses(lock, coq, coq_dir, jobs)  # --coq: what the kernel made of each proof's certificate
    if old is not None:
        lock = lockfile.merged(old, lock, {c.id for c in claims}, [ch.key for ch in all_checks()])
    lockfile.write(lock)
    console.print(f"wrote {lock_path} ({len(lock.entries)} checks, seed {seed}, budget {budget:,}); commit it with the counterexamples")


@main.command("check")
@pack_option
@lock_option
@click.option("--junit", "junit_file", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Write JUnit XML here.")
@click.option("--json", "as_json", is_flag=True, help="Print the result list as JSON on stdout.")
@click.option("--save", is_flag=True, help="Store counterexamples of claims that drifted to refuted (under --store).")
@click.option("--store", "store_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("counterexamples"), show_default=True,
              help="Where --save stores, and the store whose files the lock must list (when not given: the lock's folder's counterexamples/).")
@jobs_option
@claim_option
@coq_options
def check_cmd(lock_path, junit_file, as_json, save, store_dir, jobs, claim_ids, coq, coq_dir):
    """Replay the locked counterexamples, rerun the locked search and proofs, and compare with the lock.

    Exit 0 when everything matches, 1 with a drift table otherwise (or, with --coq, when coqc
    rejects a proof), 2 on a missing or corrupt lockfile or counterexample file.  Nothing is
    written unless --junit or --save is given.
    """
    from ..audit import Audit, AuditOptions
    from ..reporters import check_report, coq_report, junit
    from ..safe_files import write_atomic
    from ..store import CounterexampleStore

    require_coqc(coq)
    if save:
        CounterexampleStore(store_dir).check_writable()  # before the search, so its results are not lost after it
    if junit_file is not None:
        check_output(junit_file, "--junit")
    # the store scanned for files the lock does not list: --store when given, else the lock's own counterexamples/
    given = click.get_current_context().get_parameter_source("store_dir") is not click.core.ParameterSource.DEFAULT
    reg = regression(lock_path, as_json, jobs, selected_claims(claim_ids) if claim_ids else None, store_dir if given else None)
    kernel = locked_kernel_checks(reg, coq, coq_dir, jobs)
    proofs = locked_proof_checks(reg.lock, coq, coq_dir, jobs)
    if junit_file is not None:
        write_atomic(junit_file, junit.to_xml(reg, {ch.key: ch for ch in all_checks()}))
    unsaved = {}
    if save:
        found = [o.result for o in reg.outcomes if o.result is not None and o.result.counterexample is not None]
        checks = {ch.key: ch for ch in all_checks()}
        saver = Audit(AuditOptions(store=store_dir), pack_runner())
        saved, unsaved = saver.save([checks[r.claim, r.part, r.reading] for r in found], found)
        for path in saved.values():
            err_console().print(f"saved {path}")
    if as_json:
        click.echo(check_report.dumps_regression(reg) if kernel is None else coq_report.regression_json(reg, kernel, proofs))
    check_report.print_regression(err_console(), reg)
    refuse_unsaved(unsaved)
    sys.exit(exit_code(kernel, reg.exit_code, max(reg.exit_code, 1), proofs))


def check_output(path: Path, option: str) -> None:
    """An output file that cannot be written is refused before the long run, naming the path and why."""
    from ..safe_files import FileWriteError, check_output_file, shown_path

    try:
        check_output_file(path)
    except FileWriteError as exc:
        raise UsageFailure(f"{option} {shown_path(path)}: {exc.cause}") from None
