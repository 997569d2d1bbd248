"""The claims as the process that decides knows them: found without importing, described by workers.

Which packs a command runs is decided here from names and paths alone (entry points are read
from installed metadata, paths are resolved); each pack is then loaded in a worker of its own,
which sends back its claims described as data (:func:`verifier.packside.describe`).  A pack
whose import raises, loops, ends or crashes its worker is a :class:`~verifier.registry.PackError`
naming what happened; the other packs load.
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path
from typing import Sequence

from .packside import CheckAddress, PackDescription, PackSource, describe, memory_pack_names
from .registry import ENTRY_POINT_GROUP, Pack, PackError, Registry, import_time_limit, normalise, qualified_id
from .runner import ForkedRunner, Runner


class Catalog(Registry):
    """A :class:`Registry` of described claims that knows each claim's pack."""

    def __init__(self, descriptions: Sequence[PackDescription], errors: Sequence[PackError] = ()):
        self.sources: dict[int, PackSource] = {}
        packs, problems, owner = [], [], {}
        for d in descriptions:
            problems.extend(d.errors)
            kept = []
            for c in d.claims:
                key = (c.paper, normalise(c.id))
                if key in owner:
                    problems.append(PackError(d.source.name, c.id, f"claim {qualified_id(c)} is also defined by pack {owner[key]}"))
                    continue
                owner[key] = d.source.name
                kept.append(c)
                self.sources[id(c)] = d.source
            packs.append(Pack(d.source.name, d.origin, tuple(kept)))
        super().__init__(packs=packs, errors=problems + list(errors))

    def source_of(self, claim) -> PackSource:
        return self.sources[id(claim)]

    def address(self, check) -> CheckAddress:
        """How a task names ``check`` (one of this catalog's claims' checks)."""
        return CheckAddress(self.source_of(check.claim), check.claim.paper, *check.key)


def discover(given: Sequence[str], base: Path, configured: Sequence[str] = (), config_root: Path | None = None
             ) -> tuple[list[PackSource], list[PackError]]:
    """The packs a command runs: ``given`` (``--pack``) if any, else ``configured`` (relative to
    ``config_root``), else every installed pack -- named and resolved, none imported."""
    installed = {ep.name: ep for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}
    if not given and not configured:
        return [PackSource(name, "installed", installed[name].module) for name in sorted(installed)], []
    names, root = (given, base) if given else (configured, config_root or base)
    sources, errors = [], []
    memory = set(memory_pack_names())
    for name in dict.fromkeys(str(s) for s in names):
        path = root / Path(name).expanduser()
        if name in memory:
            sources.append(PackSource(name, "memory", name))
        elif path.exists():
            sources.append(PackSource(name, "path", str(path.resolve())))
        elif name in installed:
            sources.append(PackSource(name, "installed", installed[name].module))
        else:
            listed = ", ".join(installed) or "none"
            errors.append(PackError(name, str(path), f"no such file or directory, and no installed pack of that name (installed: {listed})"))
    return sources, errors


def load_catalog(sources: Sequence[PackSource], runner: Runner, errors: Sequence[PackError] = ()) -> Catalog:
    """Each pack described by a worker of its own; a worker that does not come back is the pack's error."""
    descriptions, failed = [], list(errors)
    outcomes = runner.map(describe, list(sources), limit=lambda _: import_time_limit(), affinity=lambda source: source)
    for source, outcome in zip(sources, outcomes):
        if outcome.returned and isinstance(outcome.value, PackDescription) and outcome.value.source == source:
            descriptions.append(outcome.value)
        else:
            path = Path(source.target)
            shown = (path.stem if path.is_file() else path.name) if source.kind == "path" else source.target
            what = outcome.describe() if not outcome.returned else "sent back something that is not its description"
            failed.append(PackError(source.name, shown, f"importing it {what}"))
    return Catalog(descriptions, failed)


class PackRunner(ForkedRunner):
    """The runner of the process that decides: forked workers that each load one pack and run
    tasks on it, whose answers are read as plain data only; a check is named by its pack and key
    in the catalog the workers described (set once it is loaded)."""

    def __init__(self, jobs: int = 1):
        super().__init__(jobs, trusted=False)
        self.catalog = None

    def ref(self, check):
        return self.catalog.address(check)


__all__ = ["Catalog", "PackRunner", "discover", "load_catalog"]
