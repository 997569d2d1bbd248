"""The kernel's evidence on disk: each counterexample's formula, pinned in the lock beside it.

``verify lock`` exports, for every counterexample it lists, the claim's formula at the
counterexample's dims (:func:`verifier.formula.export_formula`, in the process that runs the
pack) and stores it as ``<name>.formula`` next to ``<name>.json``; the lock pins its sha256
in the entry's ``evidence``.  From then on the kernel check (``verify check --coq``) and the
exact re-check of the refutation (:func:`recheck_refutation`) read only these files: the
formula, the counterexample's values, and the lock.  No claim code runs, so a pack that
patches the verifier cannot change the statement Coq proves or the evaluation that decides.

The files do not end in ``.json``, so the store (which lists every ``.json`` file under it as
a counterexample) never mistakes one for a counterexample.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from .formula import REFUTES, Decision, Formula, FormulaFileError, NotExportable, export_formula
from .lock import Lock, LockEntry, relative_to_lock
from .store import CounterexampleFileError, parse_exact, read_bounded, read_document, write_atomic

FORMULA_SUFFIX = ".formula"
#: the drift table's names: evidence of the kernel that moved since the lock, and a stored
#: refutation its own pinned formula does not confirm (exact rationals and balls, no claim code)
KERNEL_EVIDENCE_MOVED = "kernel evidence moved since the lock"
PINNED_FORMULA_DISAGREES = "its pinned formula does not confirm the refutation"


def formula_file(counterexample: str | os.PathLike) -> Path:
    """Where the formula of a counterexample file is stored: ``x.json`` -> ``x.formula``."""
    path = Path(counterexample)
    return path.with_name(path.name.removesuffix(".json") + FORMULA_SUFFIX)


def read_formula(path: str | os.PathLike) -> Formula:
    """A stored formula, read with the limits of every stored file; a bad one names the field."""
    raw = read_bounded(path, CounterexampleFileError, missing="no formula stored here (run `verify lock` to export it)")
    try:
        return Formula.from_json(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise CounterexampleFileError(path, None, f"cannot read: {exc}") from None
    except FormulaFileError as exc:
        raise CounterexampleFileError(path, exc.where or None, exc.message) from None
    except (ValueError, ZeroDivisionError) as exc:
        raise CounterexampleFileError(path, None, str(exc)) from None


def write_formula(formula: Formula, path: str | os.PathLike) -> str:
    """Write the formula (atomically) unless the file already holds exactly it; its sha256."""
    text = formula.to_json()
    path = Path(path)
    try:
        if read_bounded(path, CounterexampleFileError) == text.encode("utf-8"):
            return hashlib.sha256(text.encode("utf-8")).hexdigest()
    except CounterexampleFileError:
        pass
    write_atomic(path, text)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256_of(path: str | os.PathLike) -> str:
    return hashlib.sha256(read_bounded(path, CounterexampleFileError)).hexdigest()


# ---------------------------------------------------------------------------- the point
def point_of(document: Mapping[str, Any], formula: Formula, path: str | os.PathLike = "") -> dict[str, np.ndarray]:
    """The counterexample's exact values, checked against the formula: the same claim, part,
    reading and dims, every variable of the formula with its shape (a file for another check,
    or edited to another size, is refused naming the field)."""
    for key in ("claim", "part", "reading"):
        if document.get(key) != getattr(formula, key):
            raise CounterexampleFileError(path, key, f"the file says {document.get(key)!r}, its pinned formula {getattr(formula, key)!r}")
    if document.get("dims") != dict(formula.dims):
        raise CounterexampleFileError(path, "dims", f"the file says {document.get('dims')!r}, its pinned formula {dict(formula.dims)!r}")
    values = document.get("vars")
    if not isinstance(values, dict):
        raise CounterexampleFileError(path, "vars", "must be an object")
    names = {n for n, _ in formula.variables}
    if set(values) != names:
        odd = sorted(set(values) ^ names)[0]
        raise CounterexampleFileError(path, f"vars.{odd}", "the file's variables are not its pinned formula's")
    out = {}
    for name, shape in formula.variables:
        arr = np.empty(shape, dtype=object)
        try:
            _fill(arr, values[name], shape, ())
        except ValueError as exc:
            raise CounterexampleFileError(path, f"vars.{name}", str(exc)) from None
        out[name] = arr
    return out


def _fill(out, value, shape, index) -> None:
    if len(index) == len(shape):
        if isinstance(value, list):
            raise ValueError(f"expected a number at {list(index)}, got a list")
        out[index] = parse_exact(value)
        return
    n = shape[len(index)]
    if not isinstance(value, list) or len(value) != n:
        raise ValueError(f"expected a list of length {n} at {list(index)} (shape {list(shape)})")
    for i, v in enumerate(value):
        _fill(out, v, shape, index + (i,))


# ---------------------------------------------------------------------------- pinned evidence
@dataclass(frozen=True)
class PinnedRefutation:
    """A counterexample file with its pinned formula, read without any claim code."""

    file: str  # as the caller named it
    formula: Formula
    point: dict
    formula_file: str


def pinned_refutation(counterexample: str | os.PathLike, formula_path: str | os.PathLike | None = None,
                      expected_sha256: str | None = None) -> PinnedRefutation:
    """The counterexample and its formula, the formula's bytes checked against the lock's pin."""
    formula_path = Path(formula_path) if formula_path is not None else formula_file(counterexample)
    if expected_sha256 is not None:
        now = sha256_of(formula_path)
        if now != expected_sha256:
            raise CounterexampleFileError(formula_path, None, f"edited since the lock (locked sha256 {expected_sha256}, now {now}); "
                                                              "run `verify lock` to accept it")
    formula = read_formula(formula_path)
    document = read_document(counterexample)
    return PinnedRefutation(str(counterexample), formula, point_of(document, formula, counterexample), str(formula_path))


@dataclass(frozen=True)
class PinnedFile:
    """A counterexample the lock cites, with the formula the lock pins for it (None: none pinned)."""

    source: str  # as shown
    counterexample: Path
    formula: Path | None
    sha256: str | None


def pinned_file(lock: Lock, entry: LockEntry | None, listed: str, source: str | None = None) -> PinnedFile:
    """The counterexample ``listed`` in ``entry`` with the formula the entry pins beside it."""
    pins = dict(entry.evidence) if entry is not None else {}
    formula_listed = formula_file(listed).as_posix()
    pinned = formula_listed in pins
    return PinnedFile(source or listed, lock.file(listed), lock.file(formula_listed) if pinned else None, pins.get(formula_listed))


def pinned_files(lock: Lock) -> list[PinnedFile]:
    """Every counterexample the lock cites, with its pinned formula, in the lock's order."""
    return [pinned_file(lock, e, f) for e in lock.entries for f in e.counterexamples]


def recheck_refutation(pinned: PinnedRefutation) -> Decision:
    """Whether the stored point refutes its pinned formula, decided by exact rationals and arb balls
    from the data alone (no claim code): ``refutes``, ``holds`` (the refutation is false) or
    ``undecided``."""
    return pinned.formula.decide(pinned.point)


def export_for(check, counterexample: str | os.PathLike) -> Formula:
    """The formula of ``check`` at the dims of a stored counterexample (runs the claim's code)."""
    document = read_document(counterexample)
    dims = document.get("dims")
    if not isinstance(dims, dict):
        raise CounterexampleFileError(counterexample, "dims", "must be an object")
    return export_formula(check, dims)


def pin_counterexample(check, counterexample: str | os.PathLike, listed_as) -> tuple[str, str] | None:
    """Export and store the formula of a counterexample the lock lists; ``(listed path, sha256)``
    for the lock's evidence, or None when the formula cannot be exported (named when the kernel
    check runs).  ``listed_as(path)`` gives a path as the lock lists it."""
    try:
        formula = export_for(check, counterexample)
    except NotExportable:
        return None
    target = formula_file(counterexample)
    return listed_as(target), write_formula(formula, target)


def with_kernel_evidence(entry: LockEntry, check, lock_path) -> LockEntry:
    """``entry`` with the kernel's evidence exported, stored and pinned: the formula of each of its
    counterexamples (a formula that cannot be exported is left out: the kernel check names why)."""
    root = Path(lock_path).parent
    pins = dict(entry.evidence)
    for listed in entry.counterexamples:
        pin = pin_counterexample(check, root / listed, lambda p: relative_to_lock(lock_path, p))
        if pin is not None:
            pins[pin[0]] = pin[1]
    return replace(entry, evidence=tuple(sorted(pins.items())))


def evidence_drift(entry: LockEntry, lock: Lock, check=None) -> list[tuple[str, str]]:
    """``(change, detail)`` per way the kernel's evidence of ``entry`` moved since the lock: a pinned
    file edited or gone, a counterexample whose pinned formula says it does not refute, and (given
    the check as the code states it now) a formula that is no longer the claim's."""
    moved, disagrees = [], []
    pins = dict(entry.evidence)
    for listed, locked_hash in pins.items():
        try:
            now = sha256_of(lock.file(listed))
        except CounterexampleFileError as exc:
            moved.append(f"{listed}: {exc.message}")
            continue
        if now != locked_hash:
            moved.append(f"{listed}: locked sha256 {locked_hash}, now {now}")
    if moved:
        return [(KERNEL_EVIDENCE_MOVED, "; ".join(moved) + "; run `verify lock` to accept it")]
    for listed in entry.counterexamples:
        formula_listed = formula_file(listed).as_posix()
        if formula_listed not in pins:
            continue
        try:
            pinned = pinned_refutation(lock.file(listed), lock.file(formula_listed))
        except CounterexampleFileError as exc:
            moved.append(str(exc))
            continue
        decision = recheck_refutation(pinned)
        if decision.status != REFUTES:
            disagrees.append(f"{listed}: {decision.status} ({decision.detail})")
        if check is not None:
            try:
                now_formula = export_for(check, lock.file(listed))
            except NotExportable as exc:
                moved.append(f"{formula_listed}: the claim's formula can no longer be exported ({exc})")
                continue
            if now_formula != pinned.formula:
                moved.append(f"{formula_listed}: the claim's formula at these dims is no longer the one pinned (the claim's code changed)")
    out = [(PINNED_FORMULA_DISAGREES, "; ".join(disagrees))] if disagrees else []
    return out + ([(KERNEL_EVIDENCE_MOVED, "; ".join(moved) + "; run `verify lock` to pin it anew")] if moved else [])


__all__ = ["KERNEL_EVIDENCE_MOVED", "PINNED_FORMULA_DISAGREES", "PinnedFile", "pinned_file", "pinned_files", "evidence_drift", "with_kernel_evidence", "FORMULA_SUFFIX", "PinnedRefutation", "export_for", "formula_file", "pin_counterexample", "pinned_refutation",
           "point_of", "read_formula", "recheck_refutation", "sha256_of", "write_formula"]
