"""pytest plugin: ``pytest --claims`` adds one test per claim, part and reading of ``claims.lock``.

Registered through the ``pytest11`` entry point and off unless ``--claims`` is given, so an
author's existing pytest run covers their lemmas with one flag.  Each item asserts its locked
verdict exactly as ``verify check`` does: replay the stored counterexamples, or rerun the
locked fixed-seed search.
"""

from __future__ import annotations

from pathlib import Path

import pytest


from .errors import VerifierError

def pytest_addoption(parser):
    group = parser.getgroup("claims", "ml-claim-verifier")
    group.addoption("--claims", action="store_true", default=False, help="Check every locked claim, part and reading (claims.lock).")
    group.addoption("--claims-lock", default=None, metavar="PATH", help="The lockfile (default: [tool.verifier] lock, else claims.lock in the rootdir).")
    group.addoption("--pack", dest="claims_packs", action="append", default=[], metavar="PATH",
                    help="A claim pack (folder or .py file, or an installed pack's name); repeatable. "
                         "Default: [tool.verifier] packs, else every installed pack.")


class ClaimDrift(VerifierError):
    """A check no longer matches the lock."""


class ClaimsLock(pytest.File):
    def collect(self):
        from .lock import read

        lock = read(self.path)
        checks = {ch.key: ch for c in _registry(self.config) for ch in c.checks()}
        for entry in lock.entries:
            yield ClaimItem.from_parent(self, name=f"{entry.claim} part {entry.part} [{entry.reading}]", lock=lock, entry=entry,
                                        check=checks.get(entry.key))
        locked = lock.by_key()
        for key, check in checks.items():
            if key not in locked:
                yield ClaimItem.from_parent(self, name=f"{key[0]} part {key[1]} [{key[2]}]", lock=lock, entry=None, check=check)


class ClaimItem(pytest.Item):
    def __init__(self, *, lock, entry, check, **kw):
        super().__init__(**kw)
        self.lock, self.entry, self.check = lock, entry, check
        self.add_marker(pytest.mark.claims)
        self.config.stash.setdefault(_JUNIT_CLASSNAMES, {})[self.nodeid] = self.junit_classname

    @property
    def junit_classname(self) -> str:
        """The classname ``verify check --junit`` gives this check: one dot-free class per claim."""
        from types import SimpleNamespace

        from .reporters.junit import class_name

        if self.entry is not None:
            return class_name(self.entry)
        return class_name(SimpleNamespace(paper=self.check.claim.paper, claim=self.check.claim.id))

    def runtest(self):
        from . import remote
        from .regression import GONE, NOT_LOCKED, audit_for, check_entry

        if self.entry is None:
            raise ClaimDrift(f"{NOT_LOCKED}: run `verify lock` to record it")
        if self.check is None:
            raise ClaimDrift(f"{GONE}: run `verify lock` to drop it")
        runner, catalog = _runner(self.config), _registry(self.config)
        outcome = check_entry(self.entry, self.check, self.lock, lambda path: remote.replay(path, runner, catalog),
                              audit_for(self.lock.search, runner))
        if outcome.drift:
            raise ClaimDrift(f"{outcome.change} (locked {outcome.locked}, now {outcome.now}): {outcome.detail}")

    def repr_failure(self, excinfo):
        from .remote import WorkerFailed
        from .evidence import CounterexampleFileError

        if isinstance(excinfo.value, (ClaimDrift, CounterexampleFileError, WorkerFailed)):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        # the node id names the lockfile (so it reruns); the location names the claim's module
        from .reporters.junit import claim_location

        where = claim_location(self.check) if self.check is not None else None
        if where is None:
            return self.path, None, f"claim {self.name}"
        return where[0], where[1] - 1, f"claim {self.name}"


_JUNIT_CLASSNAMES = pytest.StashKey[dict]()  # node id -> classname of the claim items collected
#: per session: the project's [tool.verifier], the workers of its packs, the claims they describe
_PROJECT = pytest.StashKey[object]()
_RUNNER = pytest.StashKey[object]()
_REGISTRY = pytest.StashKey[object]()


class _JUnitClassnames:
    """Under ``pytest --junitxml``, each claim item's case gets the classname ``verify check --junit`` gives it.

    pytest derives a classname from the node id, whose file part is ``claims.lock``: every claim
    of every paper would land in one class called ``claims.lock`` (a package ``claims`` to a CI
    viewer).  The attribute is set on the case pytest opens for the report itself, before
    pytest records the report (``tryfirst``): attributes already on a case survive pytest's
    own.  Keyed by the report, not by a node id string, because pytest 9.2 keys its cases by a
    structured node id that a string with brackets (``[adversarial]``) does not parse back to.
    """

    def __init__(self, config):
        self.config = config

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report):
        classname = self.config.stash.get(_JUNIT_CLASSNAMES, {}).get(report.nodeid)
        if classname is None:
            return
        try:
            from _pytest.junitxml import xml_key
        except ImportError:  # pragma: no cover - a pytest without its junitxml plugin
            return
        xml = self.config.stash.get(xml_key, None)
        if xml is not None:
            xml.node_reporter(report).add_attribute("classname", classname)


def _project(config):
    """[tool.verifier] of the pytest rootdir's project, read once per session."""
    from .config import ConfigError, load_config

    if _PROJECT not in config.stash:
        try:
            config.stash[_PROJECT] = load_config(Path(config.rootpath))
        except ConfigError as exc:
            raise pytest.UsageError(f"--claims: {exc}") from None
    return config.stash[_PROJECT]


def _runner(config):
    """The session's workers: each loads one pack and runs its checks (pytest's process imports no pack)."""
    from .catalog import PackRunner
    from .limits import available_cores

    if _RUNNER not in config.stash:
        config.stash[_RUNNER] = PackRunner(available_cores())
    return config.stash[_RUNNER]


def _registry(config):
    """The packs of ``--pack``, else the project's, else every installed one, described by workers; a
    pack that fails is a usage error."""
    from .catalog import discover, load_catalog
    from .registry import lock_key_clash

    if _REGISTRY not in config.stash:
        project = _project(config)
        sources, errors = discover(config.getoption("claims_packs"), Path.cwd(), project.packs, project.root)
        runner = _runner(config)
        registry = runner.catalog = load_catalog(sources, runner, errors)
        problems = [str(e) for e in registry.errors] + [p for p in [lock_key_clash(registry)] if p]
        if problems:
            raise pytest.UsageError("--claims: " + "; ".join(problems))
        config.stash[_REGISTRY] = registry
    return config.stash[_REGISTRY]


def _lock_path(config) -> Path:
    given = config.getoption("claims_lock")
    if given:
        return Path(given)
    project = _project(config)
    return project.root / project.lock if project.lock else Path(config.rootpath) / "claims.lock"


def pytest_unconfigure(config):
    runner = config.stash.get(_RUNNER, None)
    if runner is not None:
        runner.close()


def pytest_configure(config):
    config.addinivalue_line("markers", "claims: a locked claim, part and reading (added by --claims)")
    if config.getoption("claims"):
        config.pluginmanager.register(_JUnitClassnames(config), "claims-junit-classnames")


def pytest_collect_file(file_path, parent):
    """The lockfile named on the command line (``claims.lock::4.1 part main [as-printed]``, as printed) or met in a walk."""
    config = parent.config
    if config.getoption("claims") and file_path.resolve() == _lock_path(config).resolve():
        return ClaimsLock.from_parent(parent, path=file_path)
    return None


def _narrowed_away(config, lock: Path) -> bool:
    """Paths on the command line narrow the run as they do for files: the claim tests join only
    when one of them holds the lockfile (``pytest --claims tests/unit`` runs the unit tests alone)."""
    if getattr(config, "args_source", None) != pytest.Config.ArgsSource.ARGS:
        return False  # no path given: the whole project, claims included
    base = Path(config.invocation_params.dir)
    for arg in config.args:
        given = (base / arg.split("::", 1)[0]).resolve()
        if given == lock or given in lock.parents:
            return False
    return True


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session, config, items):
    """Add the lock's items before keyword and marker selection sees the list (unless collection found the lockfile)."""
    if not config.getoption("claims") or any(isinstance(item, ClaimItem) for item in items):
        return
    path = _lock_path(config).resolve()
    if _narrowed_away(config, path):
        return
    if not path.exists():
        raise pytest.UsageError(f"--claims: no lockfile {path}; run `verify lock` at the project root to write one")
    from .lock import LockFileError

    _registry(config)  # a pack that does not load stops the run before any item
    try:
        items.extend(ClaimsLock.from_parent(session, path=path).collect())
    except LockFileError as exc:
        raise pytest.UsageError(f"--claims: {exc}") from None
