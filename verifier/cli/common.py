"""What the ``verify`` commands share: the group, its error handling, the options, the packs'
workers and the hand-over to the audit.  Each command family lives in a module of its own.
The engine is imported by the command that runs
it, when it runs: ``verify --version``, ``--help`` and ``list`` answer without loading sympy,
z3 or the search.

This process decides: it compares with the lock, writes the evidence and sets the exit
status, and it never imports a claim pack.  The packs are described and run by workers
(:class:`verifier.audit.PackRunner`), one pack per worker, whose answers come back as plain data.

Exit codes: 0 nothing refuted, 1 a claim refuted (or drift), 2 usage or internal error (a
claim whose code raised, exited, hung or crashed included), 130 interrupted (Ctrl-C).
Human text goes to stderr, machine output (JSON, reports) to stdout.
"""

from __future__ import annotations

import functools
import inspect
import os
from pathlib import Path

import click

from .._version import __version__
from ..config import ConfigError, load_config
from ..errors import VerifierError
from ..limits import MAX_BUDGET, MAX_DPS, MAX_ROUNDS, MAX_SECONDS, MAX_SEED, MIN_DPS, available_cores
from ..search.config import QUICK, SearchConfig


class UsageFailure(click.ClickException):
    """A usage error with exit status 2 and a plain message."""

    exit_code = 2

    def show(self, file=None):
        click.echo(f"error: {self.format_message()}", err=True)


class Interrupted(click.ClickException):
    """Ctrl-C: exit status 130, the shell's 128 + SIGINT, never 1 (which CI reads as "refuted")."""

    exit_code = 130

    def __init__(self):
        super().__init__("interrupted")

    def show(self, file=None):
        click.echo("\ninterrupted", err=True)


class VerifyGroup(click.Group):
    """Turns anything unexpected into a one-line error with exit status 2, never a traceback."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:  # a claim's own KeyboardInterrupt is its row's error, in its worker: this is Ctrl-C
            raise Interrupted() from None
        except (click.ClickException, click.exceptions.Exit, click.Abort, SystemExit):
            raise
        except VerifierError as exc:  # the verifier's own words: each names its file, option or claim
            raise UsageFailure(str(exc)) from None
        except BrokenPipeError:  # `verify list | head`: the reader has what it wanted
            os._exit(0)
        except Exception as exc:  # pragma: no cover - last line of defence
            if os.environ.get("VERIFY_DEBUG"):
                raise
            raise UsageFailure(f"internal error: {type(exc).__name__}: {exc} (set VERIFY_DEBUG=1 for a traceback)") from None


_PACKS = "verifier.packs"  # click context meta: the --pack values of the running command
_REGISTRY = "verifier.registry"
_RUNNER = "verifier.runner"


def pack_option(fn):
    """``--pack PATH`` (repeatable) for a command that takes claims; binds the registry it names."""

    @click.option("--pack", "pack_sources", multiple=True, metavar="PATH",
                  help="A claim pack: a package folder, a folder of modules or a .py file (no install needed), "
                       "or an installed pack's name; repeatable. Default: [tool.verifier] packs, else every installed pack.")
    @functools.wraps(fn)
    def wrapper(pack_sources, **kw):
        click.get_current_context().meta[_PACKS] = tuple(pack_sources)
        return fn(**kw)

    return wrapper


def use_packs(sources) -> None:
    """The running command's packs from now on (``verify init``: the pack it has just written)."""
    click.get_current_context().meta[_PACKS] = tuple(str(s) for s in sources)


def pack_runner():
    """The workers of the running command: each loads one pack and runs its tasks (made once,
    closed with the command)."""
    from ..catalog import PackRunner

    ctx = click.get_current_context()
    meta = ctx.meta
    if _RUNNER not in meta:
        runner = meta[_RUNNER] = PackRunner(available_cores())
        ctx.find_root().call_on_close(runner.close)
    return meta[_RUNNER]


def registry(allow_errors: bool = False, extra_sources=()):
    """The claims of the running command's packs, described by workers (this process imports
    none); a pack that failed to load is a usage error unless ``allow_errors`` (then the errors
    are in ``Registry.errors``).  ``extra_sources``: packs given as source (``verify expr``)."""
    from ..catalog import discover, load_catalog

    ctx = click.get_current_context()
    meta = ctx.meta
    if _REGISTRY not in meta:
        try:
            config = load_config()
        except ConfigError as exc:
            raise UsageFailure(str(exc)) from None
        if extra_sources:
            sources, errors = list(extra_sources), []
        else:
            sources, errors = discover(meta.get(_PACKS, ()), Path.cwd(), config.packs, config.root)
        runner = pack_runner()
        runner.catalog = meta[_REGISTRY] = load_catalog(sources, runner, errors)
    reg = meta[_REGISTRY]
    if reg.errors and not allow_errors:
        raise UsageFailure("\n".join(f"{e}" if i == 0 else f"error: {e}" for i, e in enumerate(reg.errors)))
    return reg


PIPE_WIDTH = 120  # a pipe or CI log is not 80 columns wide: 50-digit values and file names stay whole


def err_console():
    """Human text on stderr; off a terminal at ``COLUMNS`` when set, else wider than rich's 80."""
    from rich.console import Console

    console = Console(stderr=True, highlight=False, soft_wrap=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console.width = PIPE_WIDTH
    return console


def out_console():
    """For listings a user may pipe (``verify list | grep 4.1``): stdout."""
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


def get_claim(claim_id: str):
    from ..registry import ClaimLookupError

    try:
        return registry().get(claim_id)
    except ClaimLookupError as exc:
        raise UsageFailure(str(exc)) from None


def select_checks(claim, reading, part):
    """The checks of ``claim`` for ``--reading`` and ``--part``; a usage error names a bad value."""
    if reading is not None and reading not in {r.name for r in claim.readings}:
        raise UsageFailure(f"claim {claim.id} has no reading {reading!r}; readings: {', '.join(r.name for r in claim.readings)}")
    if part is not None and part not in {p.name for p in claim.parts}:
        raise UsageFailure(f"claim {claim.id} has no part {part!r}; parts: {', '.join(p.name for p in claim.parts)}")
    checks = claim.checks(reading=reading, part=part)
    if not checks:
        raise UsageFailure(f"reading {reading!r} of claim {claim.id} does not cover part {part!r}")
    return checks


class FiniteSeconds(click.FloatRange):
    """Seconds in (0, MAX_SECONDS]; ``nan`` is refused too (it compares false with every bound)."""

    name = "seconds"

    def __init__(self):
        super().__init__(min=0, max=MAX_SECONDS, min_open=True)

    def convert(self, value, param, ctx):
        value = super().convert(value, param, ctx)
        if value != value:
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        return value


# the documented limits (verifier/limits.py), as option types: a value outside is exit 2 naming the option
SEED = click.IntRange(0, MAX_SEED)
BUDGET = click.IntRange(1, MAX_BUDGET)
DPS = click.IntRange(MIN_DPS, MAX_DPS)
SECONDS = FiniteSeconds()
ROUNDS = click.IntRange(1, MAX_ROUNDS)


def cap_jobs(ctx, param, value):
    """At most one worker per core available; said on stderr when a larger number is cut."""
    cores = available_cores()
    if value is not None and value > cores:
        click.echo(f"note: --jobs {value} capped at {cores}, the CPUs available", err=True)
        return cores
    return value


def _resolve_jobs(ctx, param, value):
    return available_cores() if value == 0 else cap_jobs(ctx, param, value)


def jobs_option(default: int):
    """``--jobs N`` / ``-j N`` and ``--executor SPEC``, the same on every command: N worker
    processes, 0 one per core (at most the cores available), run where SPEC says."""
    jobs = click.option("--jobs", "-j", type=click.IntRange(min=0), default=default, show_default=True if default else "one per core",
                        callback=_resolve_jobs, help="Worker processes (0: one per core; at most the cores available). The results do not depend on it.")
    return lambda fn: executor_option(jobs(fn))


_EXECUTOR = "verifier.executor"  # click context meta: the runner spec every check's chunks run on


def executor_spec() -> str | None:
    """The ``--executor`` of the running command, as the workers' chunks should reach it."""
    return click.get_current_context().meta.get(_EXECUTOR)


def executor_option(fn):
    """``--executor SPEC``: where each check's chunks run.  With Dask the checks run one at a
    time (``jobs`` 1) and every chunk goes to the Dask workers; ``dask-local`` starts a local
    cluster for the command, which the workers reach by its address."""

    @click.option("--executor", "executor_spec", metavar="SPEC", default=None,
                  help="Where the work runs: serial, process, dask-local or dask://HOST:PORT (dask-local: a LocalCluster of --jobs "
                       "workers). Default: in-process for -j 1, else a process pool. The results do not depend on it.")
    @functools.wraps(fn)
    def wrapper(executor_spec, **kw):
        if executor_spec is None:
            return fn(**kw)
        from ..runner import RunnerError, parse_spec

        ctx = click.get_current_context()
        try:
            kind, address = parse_spec(executor_spec)
            if kind in ("process", "serial"):
                ctx.meta[_EXECUTOR] = kind
                return fn(**kw)
            jobs = kw.get("jobs") or 1
            if "jobs" in kw:
                kw["jobs"] = 1
            if kind == "dask":
                from ..runner.dask import DaskRunner

                DaskRunner.connect(address).close()  # a scheduler that does not answer is a usage error now, not a row per check
                ctx.meta[_EXECUTOR] = f"dask://{address}"
                return fn(**kw)
            from ..runner.dask import DaskRunner

            with DaskRunner.local(max(jobs, 1)) as cluster:
                ctx.meta[_EXECUTOR] = cluster.address.replace("tcp://", "dask://", 1)
                return fn(**kw)
        except RunnerError as exc:
            raise UsageFailure(f"--executor {executor_spec}: {exc}") from None

    return wrapper


def search_options(fn):
    params = inspect.signature(fn).parameters
    takes_jobs = "jobs" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())

    @click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of the search (results are reproducible from seed and budget).")
    @click.option("--budget", type=BUDGET, default=SearchConfig.budget, show_default=True, help="Float64 evaluations per part and reading (a count: the time limit stops a run that cannot spend it).")
    @click.option("--time", "time_limit", type=SECONDS, default=SearchConfig.time_limit, show_default=True, help="Time limit in seconds per part and reading.")
    @click.option("--dps", type=DPS, default=SearchConfig.dps, show_default=True, help="Significant digits of the re-check.")
    @click.option("--no-shrink", is_flag=True, help="Keep the counterexample as found.")
    @jobs_option(default=1)
    @click.option("--save", is_flag=True, help="Store refuting counterexamples under --store (an existing different file is kept; the new one gets a new name).")
    @click.option("--force", is_flag=True, help="With --save: replace an existing file of the same name, even one claims.lock cites.")
    @click.option("--store", "store_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("counterexamples"), show_default=True)
    @click.option("--json", "as_json", is_flag=True, help="Print one JSON list to stdout.")
    @functools.wraps(fn)
    def wrapper(**kw):
        if kw["force"] and not kw["save"] and not kw.get("save_path"):  # verify expr: --save-claim FILE --force
            raise UsageFailure("--force only applies with --save")
        if not takes_jobs:  # commands written before --jobs existed run with one job
            kw.pop("jobs", None)
        return fn(**kw)

    return wrapper


def search_config(seed, budget, time_limit, dps, no_shrink, jobs=1) -> SearchConfig:
    return SearchConfig(seed=seed, budget=budget, time_limit=time_limit, dps=dps, shrink=not no_shrink, jobs=jobs,
                        executor=executor_spec())


def audit_and_report(claims_checks, config: SearchConfig, save: bool, store_dir: Path, as_json: bool, force: bool = False,
                     proofs=None):
    """Audit the checks of each (claim, its checks) -- search, prove the survivors within
    ``proofs``, save if asked -- and report: a panel per check on stderr, or one JSON list on
    stdout.  Returns the audit's result; exits 2 when a counterexample could not be saved."""
    from ..audit import Audit, AuditOptions
    from ..budget import NO_PROOFS
    from ..reporters import json_report, text
    from ..reporters.progress import DelayedProgress, proving_many
    from ..store import CounterexampleStore

    checks = [ch for _, chs in claims_checks for ch in chs]
    console = err_console()
    if save:
        CounterexampleStore(store_dir).check_writable()  # before the search, so its results are not lost after it
    options = AuditOptions(config, proofs or NO_PROOFS, store_dir if save else None, force)
    audit = Audit(options, pack_runner(), config.jobs)
    progress = DelayedProgress(console)
    try:
        results = audit.search(checks, progress_factory=None if as_json else progress.for_check)
    finally:
        progress.close()
    with proving_many(console, results, options.proofs, enabled=not as_json):
        results, _ = audit.prove_survivors(checks, results)
    saved, unsaved = audit.save(checks, results)
    if as_json:
        click.echo(json_report.dumps_results(results, saved, unsaved))
    else:
        for claim, chs in claims_checks:
            keys = {c.key for c in chs}
            text.print_results(console, claim, [r for r in results if (r.claim, r.part, r.reading) in keys], saved, unsaved)
    refuse_unsaved(unsaved)
    from ..audit import AuditResult

    return AuditResult(tuple(results), saved, unsaved)


def refuse_unsaved(unsaved: dict) -> None:
    """Exit 2 with one line per counterexample that --save could not store (shown already)."""
    if unsaved:
        lines = [f"--save: the counterexample of {claim} part {part} [{reading}] was not stored: {why}"
                 for (claim, part, reading), why in unsaved.items()]
        raise UsageFailure("\n".join(line if i == 0 else f"error: {line}" for i, line in enumerate(lines)))


@click.group(cls=VerifyGroup)
@click.version_option(__version__, prog_name="verify")
@click.pass_context
def main(ctx):
    """Search the claims of a paper for certified counterexamples."""
    try:
        defaults = load_config().option_defaults()
    except ConfigError as exc:
        raise UsageFailure(str(exc)) from None
    # [tool.verifier] sets the defaults of the options it names; an option given still wins
    ctx.default_map = {name: {k: v for k, v in defaults.items() if k in {p.name for p in cmd.params}}
                       for name, cmd in main.commands.items()}


__all__ = ["QUICK", "UsageFailure", "audit_and_report", "err_console", "get_claim", "main", "out_console", "pack_option",
           "pack_runner", "refuse_unsaved", "registry", "search_config", "select_checks"]
