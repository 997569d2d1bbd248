"""A project's defaults: ``[tool.verifier]`` in the nearest ``pyproject.toml``.

::

    [tool.verifier]
    packs = ["mypaper_claims"]   # paths relative to this file, or names of installed packs
    lock = "claims.lock"
    budget = 40000
    dps = 30

Every key is optional; options on the command line override them.  With no ``packs`` here
and no ``--pack`` option, the verifier runs every installed pack.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


from .errors import VerifierError

PYPROJECT = "pyproject.toml"
LOCK_NAME = "claims.lock"  # the lockfile a project keeps at its root
_KEYS = ("packs", "lock", "budget", "dps")


class ConfigError(VerifierError):
    """A ``[tool.verifier]`` table that cannot be used; names the file and the key."""


@dataclass(frozen=True)
class ProjectConfig:
    path: Path | None = None  # the pyproject.toml read; None when there is none
    packs: tuple[str, ...] = ()
    lock: str | None = None
    budget: int | None = None
    dps: int | None = None

    @property
    def root(self) -> Path:
        return self.path.parent if self.path is not None else Path.cwd()

    def lock_path(self) -> Path | None:
        """The lock path, relative to the working directory when it can be."""
        if self.lock is None:
            return None
        path = (self.root / self.lock).resolve()
        try:
            return Path(os.path.relpath(path))
        except ValueError:  # pragma: no cover - another drive on Windows
            return path

    def option_defaults(self) -> dict[str, object]:
        """Defaults by click parameter name, for the options this table sets."""
        values = {"budget": self.budget, "dps": self.dps, "lock_path": self.lock_path()}
        return {k: v for k, v in values.items() if v is not None}


def find_pyproject(start: Path | None = None) -> Path | None:
    """The nearest ``pyproject.toml`` at or above ``start``: the project the command runs in."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / PYPROJECT
        if candidate.is_file():
            return candidate
    return None


def load_config(start: Path | None = None) -> ProjectConfig:
    path = find_pyproject(start)
    if path is None:
        return ProjectConfig()
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read it: {exc}") from None
    table = document.get("tool", {}).get("verifier")
    if table is None:
        return ProjectConfig(path=path)
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.verifier] must be a table")
    unknown = sorted(set(table) - set(_KEYS))
    if unknown:
        raise ConfigError(f"{path}: [tool.verifier] has unknown key {unknown[0]!r}; known keys: {', '.join(_KEYS)}")
    packs = table.get("packs", [])
    if isinstance(packs, str):
        packs = [packs]
    if not isinstance(packs, list) or not all(isinstance(p, str) and p for p in packs):
        raise ConfigError(f"{path}: [tool.verifier] packs must be a list of paths or installed pack names")
    lock = table.get("lock")
    if lock is not None and (not isinstance(lock, str) or not lock):
        raise ConfigError(f"{path}: [tool.verifier] lock must be a path")
    limits = {"budget": 1, "dps": 15}
    for key, least in limits.items():
        value = table.get(key)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < least):
            raise ConfigError(f"{path}: [tool.verifier] {key} must be an integer >= {least}, got {value!r}")
    return ProjectConfig(path=path, packs=tuple(packs), lock=lock, budget=table.get("budget"), dps=table.get("dps"))
