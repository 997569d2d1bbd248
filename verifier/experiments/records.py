"""An experiment's result read back from the JSON that ``verify experiment ... --json`` printed,
so a report can draw the figures of a run without running it again.

The JSON is ``dataclasses.asdict`` of the result (non-finite numbers as null) under a schema
number and the experiment's name; reading walks the dataclasses' own field types, so a field
added to a result is read without a second list of fields here.
"""

from __future__ import annotations

import dataclasses
import json
import math
import typing
from pathlib import Path

from .layer_collapse import LayerCollapseResult
from .rank_collapse import RankCollapseResult

SCHEMA = 1
RESULT_TYPES = {"layer-collapse": LayerCollapseResult, "rank-collapse": RankCollapseResult}


class RecordError(ValueError):
    """A file that is not the JSON of an experiment; the message is one line naming the problem."""


def _build(kind, value, where: str):
    if dataclasses.is_dataclass(kind):
        if not isinstance(value, dict):
            raise RecordError(f"{where}: expected an object, got {type(value).__name__}")
        hints = typing.get_type_hints(kind)
        known = {f.name: f for f in dataclasses.fields(kind)}
        missing = [name for name, f in known.items() if name not in value
                   and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
        if missing:
            raise RecordError(f"{where}: missing field {missing[0]!r}")
        arguments = {name: _build(hints[name], value[name], f"{where}.{name}") for name in known if name in value}
        try:
            return kind(**arguments)
        except (TypeError, ValueError) as exc:
            raise RecordError(f"{where}: {exc}") from None
    origin = typing.get_origin(kind)
    if origin is tuple:
        if not isinstance(value, list):
            raise RecordError(f"{where}: expected a list, got {type(value).__name__}")
        parts = typing.get_args(kind)
        if len(parts) == 2 and parts[1] is Ellipsis:
            return tuple(_build(parts[0], v, f"{where}[{i}]") for i, v in enumerate(value))
        if len(parts) != len(value):
            raise RecordError(f"{where}: expected {len(parts)} entries, got {len(value)}")
        return tuple(_build(p, v, f"{where}[{i}]") for i, (p, v) in enumerate(zip(parts, value)))
    if kind is float:
        if value is None:  # written for a non-finite number
            return math.nan
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    elif kind is int and isinstance(value, int) and not isinstance(value, bool):
        return value
    elif kind in (str, bool) and isinstance(value, kind):
        return value
    raise RecordError(f"{where}: expected {getattr(kind, '__name__', kind)}, got {json.dumps(value)[:40]}")


def result_from_json(doc: dict, source: str = "the JSON"):
    """The (experiment name, result) that ``doc`` records."""
    if not isinstance(doc, dict) or "experiment" not in doc:
        raise RecordError(f"{source} is not the JSON of `verify experiment ... --json` (no \"experiment\" field)")
    kind = doc["experiment"]
    if kind not in RESULT_TYPES:
        raise RecordError(f"{source}: unknown experiment {kind!r}; known: {', '.join(RESULT_TYPES)}")
    if doc.get("schema") != SCHEMA:
        raise RecordError(f"{source}: schema {doc.get('schema')!r}, this verifier reads schema {SCHEMA}")
    fields = {k: v for k, v in doc.items() if k not in ("schema", "experiment")}
    return kind, _build(RESULT_TYPES[kind], fields, source)


def read_results(paths: typing.Iterable[Path]) -> list[tuple[str, object]]:
    """The experiments recorded in ``paths``, each a JSON file or a directory whose ``*.json``
    files are all experiments (in name order)."""
    files = []
    for path in paths:
        path = Path(path)
        if path.is_dir():
            found = sorted(path.glob("*.json"))
            if not found:
                raise RecordError(f"{path}: no .json file in this directory")
            files.extend(found)
        else:
            files.append(path)
    results = []
    for file in files:
        try:
            doc = json.loads(file.read_text(encoding="utf-8"))
        except OSError as exc:
            raise RecordError(f"{file}: cannot read ({exc.strerror or exc})") from None
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise RecordError(f"{file}: not JSON ({exc})") from None
        results.append(result_from_json(doc, str(file)))
    return results
