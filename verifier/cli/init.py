"""``verify init``: a new paper's claim repository, its lock written by running the example."""

from __future__ import annotations

from pathlib import Path

import click

from ..search.config import QUICK
from .common import UsageFailure, err_console, main, registry, use_packs
from .check import LOCK_NAME, LOCK_TIME_LIMIT, all_checks, locked_run


@main.command("init")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path), default=Path("."))
@click.option("--paper", "slug", required=True, metavar="SLUG", help="The paper's slug, e.g. smith-2024 (the pack's name and the prefix of its claim ids).")
@click.option("--force", is_flag=True, help="Write into a folder that is not empty (files of the scaffold are overwritten).")
def init_cmd(directory, slug, force):
    """Start a claim repository for a paper: a pack with one worked example, its lock, and CI.

    The example's part 2 is false on purpose: the lock is written by running it, so it holds
    a certified refutation and a survivor, and `verify check` passes on the fresh folder.
    """
    from .. import lock as lockfile
    from ..lock import LockedSearch
    from ..scaffold import ScaffoldError, scaffold_written

    console = err_console()
    try:
        with scaffold_written(directory, slug, force) as scaffold:  # a failure leaves the folder as it was
            use_packs([scaffold.package_dir.resolve()])
            search = LockedSearch(seed=0, budget=QUICK.budget, time_limit=LOCK_TIME_LIMIT, dps=QUICK.dps)
            lock_path = scaffold.root / LOCK_NAME
            lock = locked_run(all_checks(list(registry())), search, scaffold.root / "counterexamples", lock_path, 1, console)
            lockfile.write(lock)
    except ScaffoldError as exc:
        raise UsageFailure(str(exc)) from None
    console.print(f"wrote {scaffold.root}: pack {scaffold.package}/ (paper {slug}), {lock_path.name}, counterexamples/, "
                  f".github/workflows/claims.yml")
    where = "" if scaffold.root.resolve() == Path.cwd() else f"cd {scaffold.root} && "
    console.print(f"next: {where}pip install -e . && verify check;  then state your claims in {scaffold.package}/ "
                  "(one module per statement) and run `verify lock`")
