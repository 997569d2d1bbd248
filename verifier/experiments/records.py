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

from ..errors import VerifierError
from ..limits import (LAYER_COLLAPSE_CAPS, MAX_EXPERIMENT_BYTES, MAX_EXPERIMENT_LIST, RANK_COLLAPSE_CAPS, layer_collapse_bytes,
                      rank_collapse_bytes)
from ..safe_files import read_json_object
from .layer_collapse import SURROGATES as LAYER_SURROGATES
from .layer_collapse import LayerCollapseResult
from .rank_collapse import MEASURES, VARIANTS, RankCollapseResult
from .rank_collapse import SURROGATES as RANK_SURROGATES

SCHEMA = 1
RESULT_TYPES = {"layer-collapse": LayerCollapseResult, "rank-collapse": RankCollapseResult}


class RecordError(VerifierError, ValueError):
    """A file that is not the JSON of an experiment; the message is one line per bad file, naming it and the problem."""


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
            try:
                return float(value)
            except OverflowError:
                raise RecordError(f"{where}: {len(str(value)):,} digits, beyond a float") from None
    elif kind is int and isinstance(value, int) and not isinstance(value, bool):
        return value
    elif kind in (str, bool) and isinstance(value, kind):
        return value
    raise RecordError(f"{where}: expected {getattr(kind, '__name__', kind)}, got {json.dumps(value)[:40]}")


def result_from_json(doc: dict, source: str = "the JSON"):
    """The (experiment name, result) that ``doc`` records, checked against its schema: the
    fields' types, sizes within what ``verify experiment`` accepts, and the rows a report draws
    (every curve from layer 0 to the depth, every row of a known variant or surrogate)."""
    if not isinstance(doc, dict) or "experiment" not in doc:
        raise RecordError(f"{source} is not the JSON of `verify experiment ... --json` (no \"experiment\" field)")
    kind = doc["experiment"]
    if not isinstance(kind, str) or kind not in RESULT_TYPES:
        raise RecordError(f"{source}: unknown experiment {repr(kind)[:40]}; known: {', '.join(RESULT_TYPES)}")
    if doc.get("schema") != SCHEMA:
        raise RecordError(f"{source}: schema {repr(doc.get('schema'))[:40]}, this verifier reads schema {SCHEMA}")
    fields = {k: v for k, v in doc.items() if k not in ("schema", "experiment")}
    result = _build(RESULT_TYPES[kind], fields, source)
    problem = _CONSISTENCY[kind](result)
    if problem is not None:
        raise RecordError(f"{source}: {problem}")
    return kind, result


def _rank_collapse_problem(result: RankCollapseResult) -> str | None:
    config = result.config
    for name, cap in RANK_COLLAPSE_CAPS.items():
        if getattr(config, name) > cap:
            return f"config.{name} = {getattr(config, name):,} is beyond the limit of {cap:,}"
    if len(config.weight_factors) > MAX_EXPERIMENT_LIST:
        return f"config.weight_factors has {len(config.weight_factors):,} entries, more than the limit of {MAX_EXPERIMENT_LIST}"
    needed = rank_collapse_bytes(config.width, config.heads, config.depth, config.tokens, config.batch, config.mlp_width,
                                 len(config.precisions), len(config.weight_factors), config.sweep_batch)
    if needed > MAX_EXPERIMENT_BYTES:
        return f"config sizes that no run within the limit of {MAX_EXPERIMENT_BYTES / 2**30:g} GiB could have recorded"
    layers = list(range(config.depth + 1))
    for i, row in enumerate(result.curves):
        if row.variant not in VARIANTS or row.precision not in config.precisions:
            return f"curves[{i}]: variant {row.variant[:40]!r} in {row.precision[:40]!r} is not one of the run's"
    for variant in VARIANTS:
        for precision in config.precisions:
            found = sorted(m.layer for m in result.curves if (m.variant, m.precision) == (variant, precision))
            if found != layers:
                return (f"curves: {variant} in {precision} has layers {_span(found)}, "
                        f"the config's depth {config.depth} needs each of 0 to {config.depth} once")
    for i, row in enumerate(result.floors):
        if row.variant not in VARIANTS or row.precision not in config.precisions or row.measure not in MEASURES:
            return f"floors[{i}]: not a variant, precision and measure of the run"
    for i, row in enumerate(result.sweep):
        if row.surrogate not in RANK_SURROGATES:
            return f"sweep[{i}].surrogate: {row.surrogate[:40]!r} is not one of {', '.join(RANK_SURROGATES)}"
        if not (math.isfinite(row.factor) and row.factor > 0):
            return f"sweep[{i}].factor: must be a positive number"
    return None


def _layer_collapse_problem(result: LayerCollapseResult) -> str | None:
    config = result.config
    for name, cap in LAYER_COLLAPSE_CAPS.items():
        value = getattr(config, name)
        largest = max(value) if isinstance(value, tuple) else value
        if largest > cap:
            return f"config.{name} = {largest:,} is beyond the limit of {cap:,}"
    for name in ("etas", "widths", "depths"):
        if len(getattr(config, name)) > MAX_EXPERIMENT_LIST:
            return f"config.{name} has more than {MAX_EXPERIMENT_LIST} entries"
    if not all(math.isfinite(e) for e in config.etas):
        return "config.etas: every eta must be finite"
    needed = layer_collapse_bytes(max(config.widths), max(config.depths), config.heads, config.tokens, config.starts,
                                  config.random_inputs, config.fit_inputs)
    if needed > MAX_EXPERIMENT_BYTES:
        return f"config sizes that no run within the limit of {MAX_EXPERIMENT_BYTES / 2**30:g} GiB could have recorded"
    grid = (set(config.widths), set(config.depths))
    for field in ("gaps", "slopes", "theorem"):
        for i, row in enumerate(getattr(result, field)):
            if row.surrogate not in LAYER_SURROGATES:
                return f"{field}[{i}].surrogate: {row.surrogate[:40]!r} is not one of {', '.join(LAYER_SURROGATES)}"
            if row.width not in grid[0] or row.depth not in grid[1]:
                return f"{field}[{i}]: width {row.width} and depth {row.depth} are not in the config's grid"
    theorem = {(t.width, t.depth, t.surrogate) for t in result.theorem}
    for i, s in enumerate(result.slopes):
        if (s.width, s.depth, s.surrogate) not in theorem:
            return f"slopes[{i}]: no theorem row for width {s.width}, depth {s.depth}, surrogate {s.surrogate}"
    for name in LAYER_SURROGATES:
        if not any(s.surrogate == name for s in result.slopes):
            return f"slopes: no row for the {name} surrogate"
    return None


def _span(layers: list[int]) -> str:
    if not layers:
        return "none"
    return f"{len(layers):,} entries from {layers[0]} to {layers[-1]}"


_CONSISTENCY = {"layer-collapse": _layer_collapse_problem, "rank-collapse": _rank_collapse_problem}


def _file_error(path, field, message) -> RecordError:
    return RecordError(f"{path}" + (f", field '{field}'" if field else "") + f": {message}")


def read_results(paths: typing.Iterable[Path]) -> list[tuple[str, object]]:
    """The experiments recorded in ``paths``, each a JSON file or a directory whose ``*.json``
    files are all experiments (in name order).

    Each file is read as every stored file is (a regular file, at most ``MAX_FILE_BYTES``,
    bounded nesting and numbers: a FIFO or ``/dev/zero`` is refused, never read) and checked
    against the schema; every bad file is reported, one line each, in one :class:`RecordError`.
    """
    files, problems = [], []
    for path in paths:
        path = Path(path)
        if path.is_dir():
            found = sorted(path.glob("*.json"))
            if not found:
                problems.append(f"{path}: no .json file in this directory")
            files.extend(found)
        else:
            files.append(path)
    results = []
    for file in files:
        try:
            doc = read_json_object(file, _file_error)
            results.append(result_from_json(doc, str(file)))
        except RecordError as exc:
            problems.append(str(exc))
    if problems:
        raise RecordError("\n".join(problems))
    return results
