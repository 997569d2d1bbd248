"""The kernel's evidence on disk: each counterexample's formula and each proof's certificate, pinned in the lock.

``verify lock`` exports, for every counterexample it lists, the claim's formula at the
counterexample's dims (:func:`verifier.formula.export_formula`, in the process that runs the
pack) and stores it as ``<name>.formula`` next to ``<name>.json``; the lock pins its sha256
in the entry's ``evidence``.  From then on the kernel check (``verify check --coq``) and the
exact re-check of the refutation (:func:`recheck_refutation`) read only these files: the
formula, the counterexample's values, and the lock.  No claim code runs, so a pack that
patches the verifier cannot change the statement Coq proves or the evaluation that decides.

Each proof the lock records as going through leaves ``proof-<part>-<reading>.proof`` in its
claim's folder of the store: the formula of its statement at the proof's dims, the domain,
the prover's certificate (:class:`verifier.prove.certificate.ProofCertificate`, where the
strategy left one) and the kernel's hints found from them (a case tree per goal,
:mod:`verifier.proof_cases`); ``verify check --coq`` re-proves the statement in Coq from
this file alone.

The files do not end in ``.json``, so the store (which lists every ``.json`` file under it as
a counterexample) never mistakes one for a counterexample.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from .formula import FUNCTIONS, REFUTES, Decision, Formula, FormulaFileError, NotExportable, export_formula, refuse_duplicate_keys
from .lock import Lock, LockEntry, LockedProof, relative_to_lock
from .proof_cases import NoCaseTree, case_tree, goals, tree_from_data, tree_to_data
from .results import ProofStatus
from .evidence import CounterexampleFileError, parse_exact, read_document
from .safe_files import read_bounded, write_atomic
from .store import open_store_folder, store_folder_names

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
    return _read_stored(path, Formula.from_json, "no formula stored here (run `verify lock` to export it)")


def _read_stored(path, parse, missing: str):
    """``parse`` of a stored file's text, every problem a :class:`CounterexampleFileError` naming the file and field."""
    raw = read_bounded(path, CounterexampleFileError, missing=missing)
    try:
        return parse(raw.decode("utf-8"))
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


def export_for(check, counterexample: str | os.PathLike, export=export_formula) -> Formula:
    """The formula of ``check`` at the dims of a stored counterexample: ``export(check, dims)`` runs the
    claim's code (in the process that decides, a worker's task: :meth:`verifier.audit.Audit.formula`)."""
    document = read_document(counterexample)
    dims = document.get("dims")
    if not isinstance(dims, dict):
        raise CounterexampleFileError(counterexample, "dims", "must be an object")
    return export(check, dims)


def pin_counterexample(check, counterexample: str | os.PathLike, listed_as, export=export_formula) -> tuple[str, str] | None:
    """Export and store the formula of a counterexample the lock lists; ``(listed path, sha256)``
    for the lock's evidence, or None when the formula cannot be exported (named when the kernel
    check runs).  ``listed_as(path)`` gives a path as the lock lists it."""
    try:
        formula = export_for(check, counterexample, export)
    except NotExportable:
        return None
    target = formula_file(counterexample)
    return listed_as(target), write_formula(formula, target)


def with_kernel_evidence(entry: LockEntry, check, lock_path, store_root=None, attempt=None, export=export_formula) -> LockEntry:
    """``entry`` with the kernel's evidence exported, stored and pinned: the formula of each of its
    counterexamples (a formula that cannot be exported is left out: the kernel check names why),
    and the certificate of its proof when the proof went through (``attempt``: the ProofAttempt,
    written under ``store_root``)."""
    root = Path(lock_path).parent
    pins = dict(entry.evidence)
    listed_as = lambda p: relative_to_lock(lock_path, p)  # noqa: E731
    for listed in entry.counterexamples:
        pin = pin_counterexample(check, Path(os.path.normpath(root / listed)), listed_as, export)  # the lock's folder may not exist yet
        if pin is not None:
            pins[pin[0]] = pin[1]
    if attempt is not None and store_root is not None and attempt.status is ProofStatus.PROVED:
        pin = pin_proof(check, attempt, Path(store_root), listed_as, export)
        if pin is not None:
            pins[pin[0]] = pin[1]
    return replace(entry, evidence=tuple(sorted(pins.items())))


def evidence_drift(entry: LockEntry, lock: Lock, check=None, export=export_formula) -> list[tuple[str, str]]:
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
                now_formula = export_for(check, lock.file(listed), export)
            except NotExportable as exc:
                moved.append(f"{formula_listed}: the claim's formula can no longer be exported ({exc})")
                continue
            if now_formula != pinned.formula:
                moved.append(f"{formula_listed}: the claim's formula at these dims is no longer the one pinned (the claim's code changed)")
    proof = next((listed for listed in pins if listed.endswith(PROOF_SUFFIX)), None)
    if proof is not None and check is not None:
        try:
            evidence = read_proof(lock.file(proof))
            now_formula = export(check, evidence.formula.dims)
        except CounterexampleFileError as exc:
            moved.append(str(exc))
        except NotExportable:
            now_formula = None
            if evidence.formula.variables:  # a certificate written with a formula the claim can no longer give
                moved.append(f"{proof}: the claim's formula can no longer be exported")
        else:
            if now_formula != evidence.formula:
                moved.append(f"{proof}: the claim's formula at the proof's dims is no longer the one its certificate states "
                             "(the claim's code changed)")
    out = [(PINNED_FORMULA_DISAGREES, "; ".join(disagrees))] if disagrees else []
    return out + ([(KERNEL_EVIDENCE_MOVED, "; ".join(moved) + "; run `verify lock` to pin it anew")] if moved else [])


# ---------------------------------------------------------------------------- proofs
PROOF_SUFFIX = ".proof"
PROOF_SCHEMA = "ml-claim-verifier/proof"
PROOF_VERSION = 1
#: the kernel's strategies: a case analysis closed by lra/nra, an equality with exp by rewriting and
#: field, or none (the reason named)
CASES, EXP_IDENTITY, NO_STRATEGY = "cases", "exp-identity", "none"


@dataclass(frozen=True)
class ProofEvidence:
    """What the kernel re-proves a proof from: the statement's formula on the proof's domain, the
    prover's certificate, and the kernel's hints (``{"strategy": "cases", "trees": [...]}``, one
    tree per goal in preorder, or ``{"strategy": "none", "why": ...}``)."""

    formula: Formula
    method: str
    domain: Mapping[str, Any]  # {"dims", "boxes": {name: [lo, hi] | None}, "relations"}
    domain_text: str
    certificate: Mapping[str, Any] | None
    kernel: Mapping[str, Any]

    @property
    def boxes(self) -> dict[str, tuple[Fraction, Fraction] | None]:
        return {k: None if b is None else (Fraction(b[0]), Fraction(b[1])) for k, b in self.domain.get("boxes", {}).items()}

    @property
    def unchecked_why(self) -> str | None:
        """Why the kernel cannot re-check this proof (None: it has a strategy)."""
        return None if self.kernel.get("strategy") in (CASES, EXP_IDENTITY) else str(self.kernel.get("why", "no kernel strategy recorded"))

    def trees(self) -> list:
        return [tree_from_data(_nested(t), self.formula) for t in self.kernel.get("trees", [])]

    def to_json(self) -> str:
        doc = {"schema": PROOF_SCHEMA, "schema_version": PROOF_VERSION, "paper": self.formula.paper, "claim": self.formula.claim,
               "part": self.formula.part, "reading": self.formula.reading, "method": self.method, "on": self.domain_text,
               "domain": dict(self.domain), "certificate": self.certificate, "kernel": dict(self.kernel),
               "formula": self.formula.to_document()}
        return json.dumps(doc, ensure_ascii=False, indent=1) + "\n"

    @classmethod
    def from_json(cls, text: str) -> "ProofEvidence":
        try:
            doc = json.loads(text, object_pairs_hook=refuse_duplicate_keys)
        except ValueError as exc:
            raise FormulaFileError("", f"not JSON: {exc}") from None
        if not isinstance(doc, dict) or doc.get("schema") != PROOF_SCHEMA or doc.get("schema_version") != PROOF_VERSION:
            raise FormulaFileError("schema", f"expected {PROOF_SCHEMA!r} version {PROOF_VERSION}")
        formula = Formula.from_document(doc.get("formula"))
        for key in ("method", "on"):
            if not isinstance(doc.get(key), str):
                raise FormulaFileError(key, "must be a string")
        domain, kernel = doc.get("domain"), doc.get("kernel")
        if not isinstance(domain, dict) or not isinstance(domain.get("boxes", {}), dict):
            raise FormulaFileError("domain", "must be an object with dims, boxes and relations")
        names = {n for n, _ in formula.variables}
        for name, box in domain.get("boxes", {}).items():
            if name not in names or not (box is None or (isinstance(box, list) and len(box) == 2 and all(isinstance(x, str) for x in box))):
                raise FormulaFileError(f"domain.boxes.{name}", "must be a variable of the formula with [lo, hi] (exact rationals as strings) or null")
            if box is not None:
                try:
                    lo, hi = parse_exact(box[0]), parse_exact(box[1])
                except ValueError as exc:
                    raise FormulaFileError(f"domain.boxes.{name}", str(exc)) from None
                if lo > hi:
                    raise FormulaFileError(f"domain.boxes.{name}", "empty (lo > hi)")
        if not isinstance(kernel, dict) or kernel.get("strategy") not in (CASES, EXP_IDENTITY, NO_STRATEGY):
            raise FormulaFileError("kernel.strategy", f"must be {CASES!r}, {EXP_IDENTITY!r} or {NO_STRATEGY!r}")
        if kernel["strategy"] == EXP_IDENTITY and (formula.relation != "==" or set(kernel) != {"strategy"}):
            raise FormulaFileError("kernel.strategy", f"{EXP_IDENTITY!r} proves an equality, with no further hints")
        if kernel["strategy"] == CASES:
            trees = kernel.get("trees")
            if not isinstance(trees, list) or len(trees) != len(goals(formula)):
                raise FormulaFileError("kernel.trees", f"must list one case tree per goal ({len(goals(formula))})")
            for k, t in enumerate(trees):
                try:
                    tree_from_data(_nested(t), formula)
                except ValueError as exc:
                    raise FormulaFileError(f"kernel.trees[{k}]", str(exc)) from None
        certificate = doc.get("certificate")
        if certificate is not None and not isinstance(certificate, dict):
            raise FormulaFileError("certificate", "must be an object or null")
        return cls(formula, doc["method"], domain, doc["on"], certificate, kernel)


def _flat(tree_data) -> list:
    """A case tree as a flat preorder list (``["split", 7, "lra", "nra"]``, an exp relation
    ``"exp", [[3], [5, 9]]``): no nesting in the file beyond a relation's two lists."""
    out, stack = [], [tree_data]
    while stack:
        item = stack.pop()
        if item[0] in ("split", "exp"):
            out += [item[0], item[1]]
            stack += [item[3], item[2]]
        else:
            out.append(item[0])
    return out


def _nested(flat) -> list:
    """The nested form of a flat preorder case tree (ValueError when it is not one)."""
    if not isinstance(flat, list) or not flat:
        raise ValueError("a case tree is a non-empty list")
    root, stack, pos = None, [], 0  # stack: [split node, children still wanted]
    while pos < len(flat):
        if root is not None and not stack:
            raise ValueError("a case tree has items after its end")
        token = flat[pos]
        if token in ("split", "exp"):
            if pos + 1 >= len(flat):
                raise ValueError(f"a split needs its {'node' if token == 'split' else 'relation'}")
            item, pos = [token, flat[pos + 1]], pos + 2
        elif token in ("lra", "nra"):
            item, pos = [token], pos + 1
        else:
            raise ValueError(f"unknown case tree item {token!r}")
        if stack:
            stack[-1][0].append(item)
            stack[-1][1] -= 1
        else:
            root = item
        if item[0] in ("split", "exp"):
            stack.append([item, 2])
        while stack and stack[-1][1] == 0:
            stack.pop()
    if stack or root is None:
        raise ValueError("a case tree ends before its last case")
    return root


def proof_file(store_root: Path, paper: str, claim: str, part: str, reading: str) -> Path:
    """``<store>/<paper>/<claim>/proof-<part>-<reading>.proof`` (part and reading filtered to a file name)."""
    names = store_folder_names(paper, claim)
    stem = re.sub(r"[^A-Za-z0-9._=-]", "_", f"proof-{part}-{reading}")
    return Path(store_root).joinpath(*names, stem + PROOF_SUFFIX)


def kernel_hints(formula: Formula, boxes) -> dict:
    """The kernel's hints for a proof of ``formula`` on ``boxes``: a case tree per goal, or why none."""
    functions = sorted({n[0] for n in formula.nodes if n[0] in FUNCTIONS})
    if functions == ["exp"] and formula.relation == "==":
        return {"strategy": EXP_IDENTITY}
    if functions and functions != ["exp"]:
        return {"strategy": NO_STRATEGY, "why": f"{', '.join(functions)}: no kernel strategy yet"}
    try:
        trees = [case_tree(formula, boxes, g) for g in goals(formula)]
    except NoCaseTree as exc:
        return {"strategy": NO_STRATEGY, "why": f"no case analysis for lra/nra: {exc}"}
    return {"strategy": CASES, "trees": [_flat(tree_to_data(t)) for t in trees]}


def proof_evidence(check, attempt, export=export_formula) -> ProofEvidence | None:
    """The evidence of a proof that went through (``export`` runs the claim's code: the formula's export)."""
    dims = attempt.spec.get("dims", {})
    try:
        formula = export(check, dims)
    except NotExportable as exc:
        return ProofEvidence(_placeholder(check, dims), attempt.method, dict(attempt.spec), attempt.domain,
                             _certificate_data(attempt), {"strategy": NO_STRATEGY, "why": str(exc)})
    boxes = {k: None if b is None else (Fraction(b[0]), Fraction(b[1])) for k, b in attempt.spec.get("boxes", {}).items()}
    return ProofEvidence(formula, attempt.method, dict(attempt.spec), attempt.domain, _certificate_data(attempt),
                         kernel_hints(formula, boxes))


def _placeholder(check, dims) -> Formula:
    """The formula of a proof whose formula cannot be exported: names only, nothing to prove."""
    claim, part = check.claim, check.part
    return Formula(claim.paper, claim.id, part.name, check.reading.name, part.relation, dict(dims), (), (("const", Fraction(0)),),
                   (), (0,), (0,), part.statement or claim.statement, part.lhs_text, part.rhs_text)


def _certificate_data(attempt):
    cert = getattr(attempt, "certificate", None)
    return None if cert is None else cert.to_dict()


def pin_proof(check, attempt, store_root: Path, listed_as, export=export_formula) -> tuple[str, str] | None:
    """Write the evidence of a proof that went through beside its claim's counterexamples: ``(listed, sha256)``."""
    evidence = proof_evidence(check, attempt, export)
    target = proof_file(store_root, check.claim.paper or "unknown-paper", check.claim.id, check.part.name, check.reading.name)
    fd = open_store_folder(Path(store_root), target.parent.relative_to(store_root).parts, create=True)
    os.close(fd)
    text = evidence.to_json()
    try:
        unchanged = read_bounded(target, CounterexampleFileError) == text.encode("utf-8")
    except CounterexampleFileError:
        unchanged = False
    if not unchanged:
        write_atomic(target, text)
    return listed_as(target), hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_proof(path: str | os.PathLike) -> ProofEvidence:
    return _read_stored(path, ProofEvidence.from_json, "no proof certificate stored here (run `verify lock` to write it)")


def pinned_proof_file(lock: Lock, entry: LockEntry) -> tuple[Path, str, str] | None:
    """The proof certificate the entry pins: (path, as listed, sha256), or None."""
    for listed, digest in entry.evidence:
        if listed.endswith(PROOF_SUFFIX):
            return lock.file(listed), listed, digest
    return None


def with_kernel_status(proof: LockedProof, status: str) -> LockedProof:
    return replace(proof, kernel=status)


def with_locked_kernel(result, entry: LockEntry, moved) -> object:
    """A re-proved result carrying what the kernel made of the lock's certificate, while that
    certificate is still the evidence (pinned, unedited, its formula the claim's): "proved,
    kernel-checked" stays visible in every output of ``verify check``."""
    proof = getattr(result, "proof", None)
    locked = entry.proof
    if proof is None or locked is None or not locked.kernel or moved or proof.status is not ProofStatus.PROVED:
        return result
    if not any(listed.endswith(PROOF_SUFFIX) for listed, _ in entry.evidence):
        return result
    return replace(result, proof=replace(proof, kernel=locked.kernel))


__all__ = ["CASES", "EXP_IDENTITY", "NO_STRATEGY", "PROOF_SUFFIX", "ProofEvidence", "kernel_hints", "pin_proof", "pinned_proof_file", "proof_evidence",
           "proof_file", "read_proof", "with_kernel_status", "with_locked_kernel", "KERNEL_EVIDENCE_MOVED", "PINNED_FORMULA_DISAGREES", "PinnedFile", "pinned_file", "pinned_files", "evidence_drift", "with_kernel_evidence", "FORMULA_SUFFIX", "PinnedRefutation", "export_for", "formula_file", "pin_counterexample", "pinned_refutation",
           "point_of", "read_formula", "recheck_refutation", "sha256_of", "write_formula"]
