"""The stored counterexample: its JSON format, and the validation that makes a file evidence.

People read these files in reviews, so values are exact strings (``"3/7"``), never binary
blobs, and every file names its schema version and the tool version that wrote it.  A file
is evidence only when it says one thing to a reviewer and to the tool: its numbers are ASCII
integers, decimals or fractions (a digit of another script reads as one to a person and as
nothing, or something else, to a parser), no key is named twice, and its point is an instance
of the claim as the code states it now -- the claim's variables, shapes, kinds and sets.
(docs/schema/counterexample.schema.json describes the format field by field.)
"""

from __future__ import annotations

import decimal
import json
import os
import re
from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from flint import fmpq

from .errors import VerifierError
from ._version import __version__
from .algebraic_store import is_algebraic_text, parse_algebraic
from .claims import Check, Claim
from .contexts import ExactContext
from .domains import membership_errors, variable_kinds
from .limits import MAX_DIM, MAX_DPS, MAX_ENTRIES, MAX_NUMBER_CHARS, MIN_DPS, LimitError, check_exponent, check_number_text
from .results import Counterexample
from .safe_files import TooLongNumber, read_json_object, shown_path

SCHEMA = "claim-verifier/counterexample"  # a format name, not the distribution's: every stored file carries it, so it stayed through the rename to ml-claim-verifier
SCHEMA_VERSION = 1
REQUIRED = ("schema", "schema_version", "paper", "claim", "part", "reading", "dims", "vars", "lhs", "rhs", "margin", "dps", "method")


class CounterexampleFileError(VerifierError):
    """A stored counterexample cannot be used; names the file and the field."""

    def __init__(self, path: str | os.PathLike, field: str | None, message: str):
        self.path, self.field, self.message = str(path), field, message
        where = shown_path(self.path) + (f", field '{field}'" if field else "")
        super().__init__(f"{where}: {message}")


def to_document(cx: Counterexample, statement: str = "", note: str = "") -> dict:
    # the set each variable lies on: replay refuses a file whose claim now states another
    kinds = {"kinds": dict(cx.kinds)} if cx.kinds else {}
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
        **kinds,
        "vars": cx.vars,
        "lhs": cx.lhs,
        "rhs": cx.rhs,
        "margin": cx.margin,
        "dps": cx.dps,
        "method": cx.method,
        "certificate": cx.certificate,
        "seed": cx.seed,
        "found_by": _found_by(cx),
        "shrunk": cx.shrunk,
    }
    if cx.derived:
        doc["derived"] = dict(cx.derived)  # shown with the counterexample; replay ignores it
    if note:
        doc["note"] = note
    return doc


def _found_by(cx: Counterexample) -> dict | None:
    # Files are under version control: a timing would change the file on every save of the same evidence.
    if cx.found_by is None:
        return None
    return {k: v for k, v in asdict(cx.found_by).items() if k != "seconds"}


def dumps_document(doc: dict) -> str:
    """Indented JSON with every innermost list (a matrix row) on one line."""
    text = json.dumps(doc, indent=2, ensure_ascii=False)
    text = re.sub(r"\[\s*((?:\"[^\"\n]*\",?\s*)+)\]", lambda m: "[" + ", ".join(re.findall(r'"[^"\n]*"', m.group(1))) + "]", text)
    return text + "\n"



# ---------------------------------------------------------------------------- reading
def _reject_constant(name):
    raise ValueError(f"non-finite number {name}")


def read_document(path: str | os.PathLike) -> dict:
    doc = read_json_object(path, CounterexampleFileError, REQUIRED, parse_float=decimal.Decimal, parse_constant=_reject_constant)
    if doc["schema"] != SCHEMA:
        raise CounterexampleFileError(path, "schema", f"expected {SCHEMA!r}, got {doc['schema']!r}")
    if doc["schema_version"] != SCHEMA_VERSION:
        raise CounterexampleFileError(path, "schema_version", f"this tool reads version {SCHEMA_VERSION}, the file has {doc['schema_version']!r}")
    for key in ("paper", "claim", "part", "reading", "lhs", "rhs", "margin", "method"):
        if not isinstance(doc[key], str):
            raise CounterexampleFileError(path, key, "must be a string")
    if not isinstance(doc["dps"], int) or isinstance(doc["dps"], bool) or not MIN_DPS <= doc["dps"] <= MAX_DPS:
        raise CounterexampleFileError(path, "dps", f"must be an integer from {MIN_DPS} to {MAX_DPS:,}")
    for key in ("lhs", "rhs", "margin"):  # shown to a reviewer next to the inputs: a number, in digits a reader reads
        try:
            parse_exact(doc[key])
        except ValueError as exc:
            raise CounterexampleFileError(path, key, str(exc)) from None
    return doc


#: the numbers a file may hold as strings, in ASCII only: Python's int() and Decimal() also read
#: other scripts' digits ("৪" is 4) and underscores ("1_000"), which a reviewer would not read so
_RATIONAL = re.compile(r"[+-]?[0-9]+ */ *[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NON_FINITE = re.compile(r"[+-]?(?:nan|snan|inf|infinity)", re.IGNORECASE)
NUMBER_FORMS = "ASCII digits: an integer, a decimal (0.125, 1e-3) or a fraction a/b"


def parse_exact(value: Any) -> Fraction:
    """An exact rational from ``"3/7"``, ``"-2"``, ``"0.125"``, ``"1e-3"`` or a JSON integer."""
    if isinstance(value, bool):
        raise ValueError("a boolean is not a number")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise ValueError(f"non-finite number {value}")
        check_exponent(value.as_tuple().exponent)
        return Fraction(value)
    if isinstance(value, TooLongNumber):
        raise LimitError(f"a number of {value.length:,} characters is longer than the limit of {MAX_NUMBER_CHARS:,}")
    if not isinstance(value, str):
        raise ValueError(f"expected an exact number as a string, got {type(value).__name__}")
    text = check_number_text(value.strip(" \t\r\n"))
    if _RATIONAL.fullmatch(text):
        num, den = (int(t) for t in text.split("/"))
        if den == 0:
            raise ValueError(f"zero denominator in {value!r}")
        return Fraction(num, den)
    if _NON_FINITE.fullmatch(text):
        raise ValueError(f"non-finite number {value!r}")
    if not _DECIMAL.fullmatch(text):
        raise ValueError(f"not an exact number: {value!r} (a number in a file is {NUMBER_FORMS})")
    dec = decimal.Decimal(text)
    check_exponent(dec.as_tuple().exponent)
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
        if size > MAX_DIM:
            raise CounterexampleFileError(path, f"dims.{d.name}", f"{size:,} is beyond the limit of {MAX_DIM} for a dimension")
        dims[d.name] = size
    extra = set(dims_doc) - set(dims)
    if extra:
        raise CounterexampleFileError(path, f"dims.{sorted(extra)[0]}", "not a dimension of this claim")
    vars_doc = doc["vars"]
    if not isinstance(vars_doc, dict):
        raise CounterexampleFileError(path, "vars", "must be an object")
    entries = sum(int(np.prod(v.concrete_shape(dims), dtype=object)) for v in check.variables)
    if entries > MAX_ENTRIES:
        raise CounterexampleFileError(path, "dims", f"these dimensions give {entries:,} entries, beyond the limit of {MAX_ENTRIES:,}")
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
    _check_kinds(path, doc, check, dims)
    # a point off its set (a row summing to 1 + 10^-30) is not an instance of the claim
    off_set = membership_errors(check, data, dims, ExactContext())
    if off_set is not None:
        raise CounterexampleFileError(path, f"vars.{off_set[0]}", off_set[1])
    return LoadedCounterexample(str(path), doc, check, dims, data)


def _check_kinds(path, doc, check, dims) -> None:
    """A file that states kinds must state the claim's: a Matrix edited into a Stochastic
    (or back) is another claim.  Files written before kinds were stored state none."""
    if "kinds" not in doc:
        return
    stored = doc["kinds"]
    if not isinstance(stored, dict):
        raise CounterexampleFileError(path, "kinds", "must be an object")
    expected = variable_kinds(check.variables, dims)
    for name, kind in expected.items():
        if name not in stored:
            raise CounterexampleFileError(path, f"kinds.{name}", f"missing; the claim states {kind!r}")
        if stored[name] != kind:
            raise CounterexampleFileError(path, f"kinds.{name}", f"the file states {stored[name]!r}, the claim states {kind!r}")
    extra = set(stored) - set(expected)
    if extra:
        raise CounterexampleFileError(path, f"kinds.{sorted(extra)[0]}", "not a variable of this claim")


def _exact_array(value, shape) -> np.ndarray:
    out = np.empty(shape, dtype=object)
    _fill(out, value, shape, ())
    return out


def _fill(out, value, shape, index):
    if len(index) == len(shape):
        if isinstance(value, list):
            raise ValueError(f"expected a number at {list(index)}, got a list")
        if is_algebraic_text(value):  # an irrational equality point: verifier/algebraic_store.py
            try:
                out[index] = parse_algebraic(value)
            except ValueError as exc:
                raise ValueError(f"entry {list(index)}: {exc}") from None
            return
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


