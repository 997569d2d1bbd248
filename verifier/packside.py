"""Where a pack's code runs: a worker loads the pack a task names and runs the task there.

The process that decides verdicts -- compares with the lock, sets the exit status, writes the
evidence -- never imports a claim pack.  It names a check by its :class:`CheckAddress` (the
pack's :class:`PackSource` and the check's key) and hands a worker one of the tasks below;
the worker loads the pack (once per worker: a worker serves one pack only, see
:mod:`verifier.runner.pool`), runs the task, and sends back plain data.  Claims themselves go
back *described*: the same dataclasses with every function of the pack replaced by a
:class:`PackCode` marker (:func:`as_data`), so reporters read them as before, and anything in
the deciding process that would run a claim's code fails loudly instead.

Every task here is a module-level function of one picklable item: a worker receives it by
value.
"""

from __future__ import annotations

import dataclasses
import enum
import types
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from .errors import VerifierError
from .runner import registered_check
from .registry import Pack, PackError, Registry, load_module_pack, load_path_pack, load_source_pack, normalise


class PackCodeNotHere(VerifierError, RuntimeError):
    """A claim's function was called where no pack is loaded (the process that decides)."""


@dataclass(frozen=True)
class PackCode:
    """Stands for one of a pack's functions in a claim described as data: its name, and where
    it is written (so a report can point at the line)."""

    name: str
    file: str = ""
    line: int = 0

    def __call__(self, *args, **kwargs):
        raise PackCodeNotHere(f"{self.name} is a claim pack's code: it runs only in a worker, never in the process that decides")


@dataclass(frozen=True)
class PackSource:
    """How a worker finds one pack: an installed module, a path, or a module's source text.

    ``name`` is the pack's name as the user wrote it (or its entry point's); ``kind`` is
    ``installed`` (``target`` a module name), ``path`` (``target`` a resolved path),
    ``source`` (``target`` the module's name, ``text`` its source: a claim ``verify expr`` wrote)
    or ``memory`` (claims made in this process by :func:`memory_pack`, reaching workers by fork).
    """

    name: str
    kind: str
    target: str
    text: str = ""


@dataclass(frozen=True)
class CheckAddress:
    """One check, as a task names it: its pack and (paper, claim, part, reading)."""

    source: PackSource
    paper: str
    claim: str
    part: str
    reading: str

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.claim, self.part, self.reading)


@dataclass(frozen=True)
class PackDescription:
    """A pack as the deciding process sees it: its claims described, and what did not load."""

    source: PackSource
    origin: str
    claims: tuple = ()
    errors: tuple[PackError, ...] = ()


# ---------------------------------------------------------------------------- in the worker
_LOADED: dict[PackSource, tuple[str, Registry]] = {}
_MEMORY: dict[str, Registry] = {}


def memory_pack(name: str, claims) -> PackSource:
    """A pack of claims built in this process (a notebook, a test), named ``name``: ``--pack NAME``
    runs it.  Its workers receive it by fork, so it must be registered before they start."""
    _MEMORY[name] = Registry(claims)
    _LOADED.pop(PackSource(name, "memory", name), None)
    return PackSource(name, "memory", name)


def memory_pack_names() -> list[str]:
    return list(_MEMORY)


def loaded(source: PackSource) -> tuple[str, Registry]:
    """(origin, the pack's claims) -- imported on the first task that needs it, in this worker."""
    if source not in _LOADED:
        if source.kind == "installed":
            name, origin, found = load_module_pack(source.name, source.target)
        elif source.kind == "path":
            name, origin, found = load_path_pack(source.name, Path(source.target))
        elif source.kind == "source":
            name, origin, found = load_source_pack(source.name, source.target, source.text)
        elif source.kind == "memory":
            _LOADED[source] = ("<memory>", _MEMORY[source.target])
            return _LOADED[source]
        else:
            raise ValueError(f"unknown pack source kind {source.kind!r}")
        registry = Registry.of_loaded([(name, origin, found)])
        _LOADED[source] = (origin, registry)
    return _LOADED[source]


def check_at(address: CheckAddress):
    """The check an address names, in this worker's copy of its pack."""
    _, registry = loaded(address.source)
    claim = registry.find(address.paper, address.claim)
    for check in claim.checks(reading=address.reading, part=address.part):
        return check
    raise KeyError(f"{address.claim} part {address.part} [{address.reading}]")


def resolve(ref):
    """The check a task names: by pack and key (the process that decides), else a token or the check."""
    if isinstance(ref, CheckAddress):
        return check_at(ref)
    return registered_check(ref)


def describe(source: PackSource) -> PackDescription:
    """Task: the pack's claims, described as data, and the errors of what did not load."""
    origin, registry = loaded(source)
    claims = tuple(as_data(c) for c in registry)
    return PackDescription(source, origin, claims, tuple(registry.errors))


# ---------------------------------------------------------------------------- data only
_PLAIN = (str, int, float, bool, bytes, complex, Fraction, type(None))


def as_data(value: Any, _seen: dict | None = None, _depth: int = 0) -> Any:
    """``value`` with every function of a pack replaced by a :class:`PackCode` marker, and every
    mapping proxy by a dict: what a worker may send to the process that decides."""
    seen = {} if _seen is None else _seen
    if isinstance(value, _PLAIN) or isinstance(value, enum.Enum):
        return value
    if _depth > 60:
        return PackCode("a value nested too deeply to describe")
    key = id(value)
    if key in seen:
        return seen[key]
    if isinstance(value, type):
        out = PackCode(f"class {getattr(value, '__qualname__', '?')}")
    elif callable(value) and not dataclasses.is_dataclass(value):
        code = getattr(value, "__code__", None)
        out = PackCode(getattr(value, "__qualname__", None) or type(value).__name__, code.co_filename if code else "",
                       code.co_firstlineno if code else 0)
    elif dataclasses.is_dataclass(value):
        out = object.__new__(type(value))
        seen[key] = out
        for f in dataclasses.fields(value):
            if f.name in getattr(value, "__dict__", {}) or hasattr(value, f.name):
                object.__setattr__(out, f.name, as_data(getattr(value, f.name), seen, _depth + 1))
        return out
    elif isinstance(value, (types.MappingProxyType, dict)):
        out = {as_data(k, seen, _depth + 1): as_data(v, seen, _depth + 1) for k, v in value.items()}
    elif isinstance(value, (list, tuple)) and type(value) in (list, tuple):
        out = type(value)(as_data(v, seen, _depth + 1) for v in value)
    elif isinstance(value, tuple):  # a verifier tuple subclass (a default box): its items, its class
        out = value
    elif isinstance(value, (set, frozenset)):
        out = type(value)(as_data(v, seen, _depth + 1) for v in value)
    elif type(value).__module__.split(".")[0] == "flint":  # exact numbers as Python's own; a ball as its text
        out = Fraction(int(value.p), int(value.q)) if hasattr(value, "q") else int(value) if hasattr(value, "bit_length") else str(value)
    elif type(value).__module__.split(".")[0] == "numpy":
        if getattr(value, "dtype", None) is not None and value.dtype == object:
            out = np.empty(value.shape, dtype=object)
            for index, item in np.ndenumerate(value):
                out[index] = as_data(item, seen, _depth + 1)
        else:
            out = value
    elif type(value).__module__.split(".")[0] in ("decimal", "pathlib", "verifier"):
        out = value
    else:
        out = PackCode(f"a value of type {type(value).__name__}")
    seen[key] = out
    return out


__all__ = ["CheckAddress", "PackCode", "PackCodeNotHere", "PackDescription", "PackSource", "as_data", "check_at", "describe", "loaded",
           "memory_pack", "memory_pack_names", "resolve"]
