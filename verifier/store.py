"""Stored counterexamples: readable JSON evidence, written atomically, replayed exactly.

People read these files in reviews, so values are exact strings (``"3/7"``), never binary
blobs, and every file names its schema version and the tool version that wrote it.  A file
is written to a temporary name in the same folder, flushed to disk and renamed into place,
so a crash leaves either the old file or the new one -- never half of one.
"""

from __future__ import annotations

import decimal
import json
import os
import re
import tempfile
from dataclasses import asdict, dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Mapping

import numpy as np
from flint import fmpq

from ._version import __version__
from .certify import Certificate, Certifier, decimal_string
from .claims import Check, Claim
from .results import Counterexample, FoundBy

SCHEMA = "claim-verifier/counterexample"
SCHEMA_VERSION = 1
REQUIRED = ("schema", "schema_version", "paper", "claim", "part", "reading", "dims", "vars", "lhs", "rhs", "margin", "dps", "method")


class CounterexampleFileError(Exception):
    """A stored counterexample cannot be used; names the file and the field."""

    def __init__(self, path: str | os.PathLike, field: str | None, message: str):
        self.path, self.field, self.message = str(path), field, message
        where = f"{self.path}" + (f", field '{field}'" if field else "")
        super().__init__(f"{where}: {message}")


# ---------------------------------------------------------------------------- writing
def to_document(cx: Counterexample, statement: str = "", note: str = "") -> dict:
    doc = {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "tool_version": __version__,
        "paper": cx.paper,
        "claim": cx.claim,
        "part": cx.part,
        "reading": cx.reading,
        "statement": statement,
        "dims": dict(cx.dims),
        "vars": cx.vars,
        "lhs": cx.lhs,
        "rhs": cx.rhs,
        "margin": cx.margin,
        "dps": cx.dps,
        "method": cx.method,
        "certificate": cx.certificate,
        "seed": cx.seed,
        "found_by": asdict(cx.found_by) if cx.found_by else None,
        "shrunk": cx.shrunk,
    }
    if cx.derived:
        doc["derived"] = dict(cx.derived)  # shown with the counterexample; replay ignores it
    if note:
        doc["note"] = note
    return doc


def dumps_document(doc: dict) -> str:
    """Indented JSON with every innermost list (a matrix row) on one line."""
    text = json.dumps(doc, indent=2, ensure_ascii=False)
    text = re.sub(r"\[\s*((?:\"[^\"\n]*\",?\s*)+)\]", lambda m: "[" + ", ".join(re.findall(r'"[^"\n]*"', m.group(1))) + "]", text)
    return text + "\n"


def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp makes the file private (0600); evidence and reports are for reading
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


class CounterexampleStore:
    """``<root>/<paper>/<claim id>/<name>.json``."""

    def __init__(self, root: str | os.PathLike = "counterexamples"):
        self.root = Path(root)

    def path_for(self, cx: Counterexample, name: str | None = None) -> Path:
        name = name or default_name(cx)
        return self.root / (cx.paper or "unknown-paper") / cx.claim / f"{_safe(name)}.json"

    def save(self, cx: Counterexample, statement: str = "", name: str | None = None, note: str = "") -> Path:
        path = self.path_for(cx, name)
        write_atomic(path, dumps_document(to_document(cx, statement, note)))
        return path

    def files(self, paper: str | None = None, claim: str | None = None) -> list[Path]:
        base = self.root
        if paper:
            base = base / paper
            if claim:
                base = base / claim
        return sorted(base.rglob("*.json")) if base.exists() else []


def default_name(cx: Counterexample) -> str:
    bits = [cx.part, cx.reading]
    if cx.seed is not None:
        bits.append(f"seed{cx.seed}")
    return "-".join(bits)


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "counterexample"


# ---------------------------------------------------------------------------- reading
def _reject_constant(name):
    raise ValueError(f"non-finite number {name}")


def read_json_object(path, error, required=(), missing="no such file", **loads) -> dict:
    """A JSON object from ``path``; every problem raised as ``error(path, field, message)``."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error(path, None, missing) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise error(path, None, f"cannot read: {exc}") from None
    try:
        doc = json.loads(text, **loads)
    except ValueError as exc:
        raise error(path, None, f"not valid JSON ({exc})") from None
    if not isinstance(doc, dict):
        raise error(path, None, "the top level must be a JSON object")
    for key in required:
        if key not in doc:
            raise error(path, key, "missing field")
    return doc


def read_document(path: str | os.PathLike) -> dict:
    doc = read_json_object(path, CounterexampleFileError, REQUIRED, parse_float=decimal.Decimal, parse_constant=_reject_constant)
    if doc["schema"] != SCHEMA:
        raise CounterexampleFileError(path, "schema", f"expected {SCHEMA!r}, got {doc['schema']!r}")
    if doc["schema_version"] != SCHEMA_VERSION:
        raise CounterexampleFileError(path, "schema_version", f"this tool reads version {SCHEMA_VERSION}, the file has {doc['schema_version']!r}")
    for key in ("paper", "claim", "part", "reading", "lhs", "rhs", "margin", "method"):
        if not isinstance(doc[key], str):
            raise CounterexampleFileError(path, key, "must be a string")
    if not isinstance(doc["dps"], int) or isinstance(doc["dps"], bool) or doc["dps"] < 15:
        raise CounterexampleFileError(path, "dps", "must be an integer >= 15")
    return doc


def parse_exact(value: Any) -> Fraction:
    """An exact rational from ``"3/7"``, ``"-2"``, ``"0.125"``, ``"1e-3"`` or a JSON integer."""
    if isinstance(value, bool):
        raise ValueError("a boolean is not a number")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise ValueError(f"non-finite number {value}")
        return Fraction(value)
    if not isinstance(value, str):
        raise ValueError(f"expected an exact number as a string, got {type(value).__name__}")
    text = value.strip()
    if re.fullmatch(r"[+-]?\d+\s*/\s*\d+", text):
        num, den = (int(t) for t in text.split("/"))
        if den == 0:
            raise ValueError(f"zero denominator in {value!r}")
        return Fraction(num, den)
    try:
        dec = decimal.Decimal(text)
    except decimal.InvalidOperation:
        raise ValueError(f"not an exact number: {value!r}") from None
    if not dec.is_finite():
        raise ValueError(f"non-finite number {value!r}")
    return Fraction(dec)


@dataclass(frozen=True)
class LoadedCounterexample:
    path: str
    document: dict
    check: Check
    dims: dict
    data: dict  # name -> object array (batch axis of 1) of fmpq


def load(path: str | os.PathLike, find_claim) -> LoadedCounterexample:
    """Read and validate a stored counterexample against the claim as the code states it.

    ``find_claim(paper, claim_id)`` returns the :class:`Claim` or raises ``KeyError``.
    """
    doc = read_document(path)
    try:
        claim: Claim = find_claim(doc["paper"], doc["claim"])
    except KeyError:
        raise CounterexampleFileError(path, "claim", f"no claim {doc['claim']!r} in paper {doc['paper']!r}") from None
    checks = [c for c in claim.checks() if c.part.name == doc["part"] and c.reading.name == doc["reading"]]
    if not checks:
        if doc["part"] not in {p.name for p in claim.parts}:
            raise CounterexampleFileError(path, "part", f"claim {claim.id} has no part {doc['part']!r}")
        raise CounterexampleFileError(path, "reading", f"claim {claim.id} has no reading {doc['reading']!r} for part {doc['part']!r}")
    check = checks[0]
    dims_doc = doc["dims"]
    if not isinstance(dims_doc, dict):
        raise CounterexampleFileError(path, "dims", "must be an object")
    dims = {}
    for d in claim.dims:
        size = dims_doc.get(d.name)
        if not isinstance(size, int) or isinstance(size, bool) or size < 1:
            raise CounterexampleFileError(path, f"dims.{d.name}", "must be a positive integer")
        dims[d.name] = size
    extra = set(dims_doc) - set(dims)
    if extra:
        raise CounterexampleFileError(path, f"dims.{sorted(extra)[0]}", "not a dimension of this claim")
    vars_doc = doc["vars"]
    if not isinstance(vars_doc, dict):
        raise CounterexampleFileError(path, "vars", "must be an object")
    data = {}
    for var in check.variables:
        if var.name not in vars_doc:
            raise CounterexampleFileError(path, f"vars.{var.name}", "missing variable")
        shape = var.concrete_shape(dims)
        try:
            arr = _exact_array(vars_doc[var.name], shape)
        except ValueError as exc:
            raise CounterexampleFileError(path, f"vars.{var.name}", str(exc)) from None
        data[var.name] = arr[None]
    extra = set(vars_doc) - {v.name for v in check.variables}
    if extra:
        raise CounterexampleFileError(path, f"vars.{sorted(extra)[0]}", "not a variable of this claim")
    # a point off its set (a row summing to 1 + 10^-30) is not an instance of the claim
    from .contexts import ExactContext
    from .domains import membership_errors

    off_set = membership_errors(check, data, dims, ExactContext())
    if off_set is not None:
        raise CounterexampleFileError(path, f"vars.{off_set[0]}", off_set[1])
    return LoadedCounterexample(str(path), doc, check, dims, data)


def _exact_array(value, shape) -> np.ndarray:
    out = np.empty(shape, dtype=object)
    _fill(out, value, shape, ())
    return out


def _fill(out, value, shape, index):
    if len(index) == len(shape):
        if isinstance(value, list):
            raise ValueError(f"expected a number at {list(index)}, got a list")
        try:
            q = parse_exact(value)
        except ValueError as exc:
            raise ValueError(f"entry {list(index)}: {exc}") from None
        out[index] = fmpq(q.numerator, q.denominator)
        return
    n = shape[len(index)]
    if not isinstance(value, list) or len(value) != n:
        got = f"a list of length {len(value)}" if isinstance(value, list) else type(value).__name__
        where = f" at {list(index)}" if index else ""
        raise ValueError(f"expected a list of length {n}{where} (shape {list(shape)}), got {got}")
    for i, v in enumerate(value):
        _fill(out, v, shape, index + (i,))


# ---------------------------------------------------------------------------- replay
@dataclass(frozen=True)
class Replay:
    path: str
    loaded: LoadedCounterexample
    certificate: Certificate
    still_refutes: bool
    lhs: str
    rhs: str
    margin: str
    stored: Mapping[str, str]

    @property
    def values_match(self) -> bool:
        return (self.lhs, self.rhs, self.margin) == (self.stored["lhs"], self.stored["rhs"], self.stored["margin"])


def replay(path: str | os.PathLike, find_claim, dps: int | None = None) -> Replay:
    """Re-certify a stored counterexample from its exact inputs."""
    loaded = load(path, find_claim)
    dps = dps or loaded.document["dps"]
    cert = Certifier(dps).certify(loaded.check, loaded.data, loaded.dims)

    def show(exact, approx):
        return decimal_string(exact if exact is not None else approx, dps)

    doc = loaded.document
    return Replay(
        path=str(path),
        loaded=loaded,
        certificate=cert,
        still_refutes=cert.violated,
        lhs=show(cert.exact_lhs, cert.lhs),
        rhs=show(cert.exact_rhs, cert.rhs),
        margin=show(cert.exact_margin, cert.margin),
        stored={"lhs": doc["lhs"], "rhs": doc["rhs"], "margin": doc["margin"]},
    )


__all__ = [
    "CounterexampleFileError",
    "CounterexampleStore",
    "FoundBy",
    "LoadedCounterexample",
    "Replay",
    "load",
    "parse_exact",
    "read_document",
    "replay",
    "to_document",
    "write_atomic",
]
