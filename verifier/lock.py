"""The lockfile ``claims.lock``: the verdict of every claim, part and reading, as plain data.

``verify lock`` writes it from a run with a fixed seed and budget; ``verify check`` reruns
exactly that configuration and compares.  The file is JSON (read by every CI system and by
people in review) with a schema version, written atomically; paths of stored
counterexamples are POSIX paths relative to the folder of the lockfile, so a clone of the
repository anywhere replays the same files.

Each stored counterexample is pinned by the sha256 of its bytes (as pip's hash-checking mode
pins a download): a file edited by hand -- an input digit, its note -- is drift even when it
still refutes, because the evidence a reviewer read is no longer the evidence in the lock.

A check that survived carries the proof tried on its claim's stated domain (schema 3): the
domain, the method and whether it went through; ``verify check`` proves it again within the
locked time and calls a proof that no longer goes through drift.  The share of the volume an
inconclusive proof decided depends on the machine's speed, so it is recorded for the reader
(rounded down) and never compared.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from .errors import VerifierError
from ._version import __version__
from .config import LOCK_NAME, find_pyproject
from .limits import MAX_BUDGET, MAX_DPS, MAX_PROVE_BOXES, MAX_SECONDS, MAX_SEED, MIN_DPS, LimitError, check_int, check_seconds
from .results import ProofAttempt, ProofStatus, Verdict
from .evidence import CounterexampleFileError
from .safe_files import read_bounded, read_json_object, shown_path, write_atomic
from .store import refuse_links_below

SCHEMA = "claim-verifier/lock"  # a format name, kept through the rename to ml-claim-verifier (every claims.lock carries it)
SCHEMA_VERSION = 3  # 2: every counterexample file is listed with the sha256 of its content; 3: proofs of survivors
READABLE_VERSIONS = (2, 3)  # a version-2 lock reads as one made without proofs
_SHA256 = re.compile(r"[0-9a-f]{64}")
HOW_TO = "run `verify lock` at the project root to write one from a fixed-seed run"


class LockFileError(VerifierError):
    """The lockfile is missing or cannot be used; names the file, the field and the fix."""

    def __init__(self, path: str | os.PathLike, field: str | None, message: str):
        self.path, self.field, self.message = str(path), field, message
        where = shown_path(self.path) + (f", field '{field}'" if field else "")
        super().__init__(f"{where}: {message}; {HOW_TO}")


@dataclass(frozen=True)
class LockedSearch:
    """The search configuration a lock was made with; ``verify check`` reuses it."""

    seed: int
    budget: int
    time_limit: float
    dps: int
    prove_time: float = 0.0  # seconds per proof of a survivor (0: no proofs; every version-2 lock)
    prove_total: float = 0.0  # seconds for all proofs together
    prove_boxes: int | None = None  # branch-and-bound boxes per proof (None: time only, as locks written before it)


@dataclass(frozen=True)
class LockedProof:
    """The proof of a surviving check as locked: where, how, and whether it went through."""

    status: str  # a ProofStatus value
    domain: str  # as printed
    spec: Mapping[str, Any] = field(default_factory=dict)  # {"dims", "boxes", "relations"}
    method: str = ""
    volume_percent: float | None = None
    also: tuple[str, ...] = ()  # larger sizes also proved ("n = 3")
    identical_sides: bool = False  # proved only because both sides are the same function there
    #: what Coq's kernel made of the proof's certificate: "checked", "unchecked: <why>", or "" (not run)
    kernel: str = ""


@dataclass(frozen=True)
class LockEntry:
    paper: str
    claim: str
    part: str
    reading: str
    verdict: str
    method: str = "none"
    counterexamples: tuple[str, ...] = ()  # relative to the lockfile's folder
    sha256: tuple[str, ...] = ()  # of each file's bytes, parallel to ``counterexamples``
    proof: LockedProof | None = None
    #: the kernel's evidence (verifier/kernel_evidence.py), each file with the sha256 of its bytes: the
    #: formula of every counterexample and of the proof, the proof's certificate
    evidence: tuple[tuple[str, str], ...] = ()

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.claim, self.part, self.reading)


@dataclass(frozen=True)
class Lock:
    search: LockedSearch
    entries: tuple[LockEntry, ...]
    tool_version: str = __version__
    path: str = LOCK_NAME

    @property
    def root(self) -> Path:
        """The folder counterexample paths are relative to."""
        return Path(self.path).parent

    def by_key(self) -> dict[tuple[str, str, str], LockEntry]:
        return {e.key: e for e in self.entries}

    def file(self, listed: str) -> Path:
        """The path of a counterexample file the lock lists, refused (naming it) when it leads
        outside the project or a folder or file on the way from the project's folder is a link."""
        project, target = project_root(self.path), _target(self.path, listed)
        try:
            inside = target.relative_to(project)
        except ValueError:
            raise CounterexampleFileError(listed, None, f"outside the project folder {project}: the lock lists files inside its project only") from None
        refuse_links_below(project, inside)
        return self.root / listed


# ---------------------------------------------------------------------------- writing
def to_document(lock: Lock) -> dict:
    entries = []
    for e in lock.entries:
        item = {"paper": e.paper, "claim": e.claim, "part": e.part, "reading": e.reading, "verdict": e.verdict}
        if e.method != "none":
            item["method"] = e.method
        if e.counterexamples:
            item["counterexamples"] = list(e.counterexamples)
            item["sha256"] = dict(zip(e.counterexamples, e.sha256, strict=True))
        if e.proof is not None:
            item["proof"] = _proof_document(e.proof)
        if e.evidence:
            item["evidence"] = dict(e.evidence)
        entries.append(item)
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "tool_version": lock.tool_version,
        "note": "Written by `verify lock`; `verify check` replays the counterexamples and reruns the search below, then compares.",
        "search": {"seed": lock.search.seed, "budget": lock.search.budget, "time_limit": lock.search.time_limit, "dps": lock.search.dps,
                   "prove_time": lock.search.prove_time, "prove_total": lock.search.prove_total, "prove_boxes": lock.search.prove_boxes},
        "checks": entries,
    }


def _proof_document(p: LockedProof) -> dict:
    doc = {"status": p.status, "on": p.domain, "domain": dict(p.spec)}
    if p.method:
        doc["method"] = p.method
    if p.volume_percent is not None and p.status != ProofStatus.PROVED.value:
        doc["volume_percent"] = p.volume_percent
    if p.also:
        doc["also_on"] = list(p.also)
    if p.identical_sides:
        doc["identical_sides"] = True
    if p.kernel:
        doc["kernel"] = p.kernel
    return doc


def locked_proof(p: ProofAttempt | None) -> LockedProof | None:
    """What the lock keeps of a proof attempt (not its time: that varies from run to run)."""
    if p is None:
        return None
    return LockedProof(p.status.value, p.domain, dict(p.spec), p.method, p.volume_percent, tuple(p.also), p.identical_sides)


def dumps(lock: Lock) -> str:
    """One check per line: diffs of a regenerated lock show exactly which verdicts moved."""
    doc = to_document(lock)
    checks = doc.pop("checks")
    head = json.dumps(doc, indent=2, ensure_ascii=False)[:-2]
    lines = ",\n".join("    " + json.dumps(c, ensure_ascii=False) for c in checks)
    return f'{head},\n  "checks": [\n{lines}\n  ]\n}}\n'


def write(lock: Lock) -> Path:
    path = Path(lock.path)
    write_atomic(path, dumps(lock))
    return path


def file_sha256(path: str | os.PathLike, error=None) -> str:
    """The hex sha256 of a file's bytes (read with the limits every stored file is read with)."""
    return hashlib.sha256(read_bounded(path, error or CounterexampleFileError)).hexdigest()


def project_root(lock_path: str | os.PathLike) -> Path:
    """The folder every file a lock lists lies in: its project's (the nearest ``pyproject.toml``
    at or above the lock), else the lock's own folder."""
    folder = Path(os.path.realpath(Path(lock_path).parent))
    pyproject = find_pyproject(folder)
    return pyproject.parent if pyproject is not None else folder


def _target(lock_path, listed: str) -> Path:
    return Path(os.path.normpath(Path(os.path.realpath(Path(lock_path).parent)) / listed))


def relative_to_lock(lock_path: str | os.PathLike, file: str | os.PathLike) -> str:
    """``file`` as the lock lists it: relative to the lock's folder, inside the project (else ``ValueError``)."""
    base = Path(os.path.realpath(Path(lock_path).parent))
    file, project = Path(os.path.realpath(file)), project_root(lock_path)
    try:
        file.relative_to(project)
    except ValueError:
        raise ValueError(f"{file} is outside the project folder {project}: the lock lists files inside its project only") from None
    return Path(os.path.relpath(file, base)).as_posix()


def listed_path_problem(listed: str) -> str | None:
    """Why ``listed`` cannot be a path the lock lists (a relative POSIX path), or None."""
    if not listed or "\\" in listed or any(ord(ch) < 32 for ch in listed):
        return "must be a non-empty POSIX path without control characters"
    if listed.startswith("/") or any(p in ("", ".") for p in listed.split("/")):
        return "must be a path relative to the lock's folder (no leading /, no empty or '.' part)"
    return None


def describe(search: LockedSearch) -> str:
    return (f"--seed {search.seed} --budget {search.budget} --time {search.time_limit:g} --dps {search.dps} "
            f"--prove-time {search.prove_time:g} --prove-total {search.prove_total:g}"
            + (f" --prove-boxes {search.prove_boxes}" if search.prove_boxes is not None else ""))


def restricted(lock: Lock, claim_ids: set[str]) -> Lock:
    """The lock's entries for some claims only."""
    return replace(lock, entries=tuple(e for e in lock.entries if e.claim in claim_ids))


def merged(old: Lock, new: Lock, claim_ids: set[str], order: list[tuple[str, str, str]]) -> Lock:
    """``new`` for the claims in ``claim_ids``, ``old`` for the rest, in registry ``order``."""
    if old.search != new.search:
        raise ValueError(f"{old.path} was made with {describe(old.search)}; re-lock every claim to change the search, or pass the same options")
    rank = {key: i for i, key in enumerate(order)}
    kept = [e for e in old.entries if e.claim not in claim_ids]
    entries = sorted(kept + list(new.entries), key=lambda e: rank.get(e.key, len(rank)))
    return replace(new, entries=tuple(entries))


# ---------------------------------------------------------------------------- reading
_VERDICTS = {v.value for v in Verdict}


def read(path: str | os.PathLike = LOCK_NAME) -> Lock:
    path = Path(path)
    doc = read_json_object(path, LockFileError, ("schema", "schema_version", "search", "checks"), missing="no lockfile")
    if doc["schema"] != SCHEMA:
        raise LockFileError(path, "schema", f"expected {SCHEMA!r}, got {doc['schema']!r}")
    if doc["schema_version"] == 1:
        raise LockFileError(path, "schema_version", "version 1 does not pin the content of the counterexample files "
                                                    "(version 2 records their sha256); re-lock and commit the new file")
    if doc["schema_version"] not in READABLE_VERSIONS:
        raise LockFileError(path, "schema_version", f"this tool reads versions {', '.join(map(str, READABLE_VERSIONS))}, "
                                                    f"the file has {doc['schema_version']!r}")
    search = _search(path, doc["search"], with_proofs=doc["schema_version"] >= 3)
    if not isinstance(doc["checks"], list):
        raise LockFileError(path, "checks", "must be a list")
    entries = tuple(_entry(path, i, item) for i, item in enumerate(doc["checks"]))
    project = project_root(path)
    for i, e in enumerate(entries):
        listed = [(f"counterexamples[{j}]", f) for j, f in enumerate(e.counterexamples)] + [(f"evidence.{f}", f) for f, _ in e.evidence]
        for where, f in listed:
            try:
                _target(path, f).relative_to(project)
            except ValueError:
                raise LockFileError(path, f"checks[{i}].{where}", f"{f!r} leads outside the project folder {project}") from None
    seen = set()
    for i, e in enumerate(entries):
        if e.key in seen:
            raise LockFileError(path, f"checks[{i}]", f"claim {e.claim} part {e.part} reading {e.reading} is listed twice")
        seen.add(e.key)
    return Lock(search=search, entries=entries, tool_version=str(doc.get("tool_version", "")), path=str(path))


def _search(path, s, with_proofs: bool) -> LockedSearch:
    if not isinstance(s, dict):
        raise LockFileError(path, "search", "must be an object")
    bounds = {"seed": (0, MAX_SEED), "budget": (1, MAX_BUDGET), "dps": (MIN_DPS, MAX_DPS)}
    values = {}
    for key, (lo, hi) in bounds.items():
        try:
            values[key] = check_int(s.get(key), lo, hi)
        except LimitError as exc:
            raise LockFileError(path, f"search.{key}", str(exc)) from None
    try:
        limit = check_seconds(s.get("time_limit"))
    except LimitError as exc:
        raise LockFileError(path, "search.time_limit", str(exc)) from None
    proofs = {}
    for key in ("prove_time", "prove_total") if with_proofs else ():
        value = s.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not (0 <= value <= MAX_SECONDS):
            raise LockFileError(path, f"search.{key}", f"must be a number of seconds from 0 to {MAX_SECONDS:g}, got {value!r}")
        proofs[key] = float(value)
    boxes = s.get("prove_boxes") if with_proofs else None
    if boxes is not None:
        try:
            proofs["prove_boxes"] = check_int(boxes, 1, MAX_PROVE_BOXES)
        except LimitError as exc:
            raise LockFileError(path, "search.prove_boxes", f"{exc} (or null: no box budget)") from None
    return LockedSearch(time_limit=limit, **values, **proofs)


def _entry(path, i, item) -> LockEntry:
    where = f"checks[{i}]"
    if not isinstance(item, dict):
        raise LockFileError(path, where, "must be an object")
    for key in ("paper", "claim", "part", "reading", "verdict"):
        if not isinstance(item.get(key), str):
            raise LockFileError(path, f"{where}.{key}", "missing or not a string")
    if item["verdict"] not in _VERDICTS:
        raise LockFileError(path, f"{where}.verdict", f"unknown verdict {item['verdict']!r}")
    files = item.get("counterexamples", [])
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        raise LockFileError(path, f"{where}.counterexamples", "must be a list of paths")
    hashes = item.get("sha256", {})
    if not isinstance(hashes, dict):
        raise LockFileError(path, f"{where}.sha256", "must map each counterexample file to the sha256 of its content")
    for j, f in enumerate(files):
        problem = listed_path_problem(f)
        if problem is not None:
            raise LockFileError(path, f"{where}.counterexamples[{j}]", f"{f!r} {problem}")
    for f in files:
        if not isinstance(hashes.get(f), str) or not _SHA256.fullmatch(hashes[f]):
            raise LockFileError(path, f"{where}.sha256.{f}", "missing, or not 64 lowercase hex digits")
    method = item.get("method", "none")
    if not isinstance(method, str):
        raise LockFileError(path, f"{where}.method", "must be a string")
    evidence = item.get("evidence", {})
    if not isinstance(evidence, dict):
        raise LockFileError(path, f"{where}.evidence", "must map each file of the kernel's evidence to the sha256 of its content")
    for f, digest in evidence.items():
        problem = listed_path_problem(f)
        if problem is not None:
            raise LockFileError(path, f"{where}.evidence", f"{f!r} {problem}")
        if not isinstance(digest, str) or not _SHA256.fullmatch(digest):
            raise LockFileError(path, f"{where}.evidence.{f}", "not 64 lowercase hex digits")
    return LockEntry(
        paper=item["paper"], claim=item["claim"], part=item["part"], reading=item["reading"],
        verdict=item["verdict"], method=method, counterexamples=tuple(files), sha256=tuple(hashes[f] for f in files),
        proof=_proof(path, where, item["proof"]) if "proof" in item else None, evidence=tuple(evidence.items()),
    )


_PROOF_STATUSES = {s.value for s in ProofStatus}


def _proof(path, where, p) -> LockedProof:
    where = f"{where}.proof"
    if not isinstance(p, dict):
        raise LockFileError(path, where, "must be an object")
    if p.get("status") not in _PROOF_STATUSES:
        raise LockFileError(path, f"{where}.status", f"must be one of {', '.join(sorted(_PROOF_STATUSES))}, got {p.get('status')!r}")
    for key in ("on", "method"):
        if not isinstance(p.get(key, ""), str):
            raise LockFileError(path, f"{where}.{key}", "must be a string")
    domain = p.get("domain", {})
    if not isinstance(domain, dict):
        raise LockFileError(path, f"{where}.domain", "must be an object (dims, boxes, relations)")
    volume = p.get("volume_percent")
    if volume is not None and (isinstance(volume, bool) or not isinstance(volume, (int, float)) or not 0 <= volume <= 100):
        raise LockFileError(path, f"{where}.volume_percent", f"must be a percentage from 0 to 100, got {volume!r}")
    if p["status"] == ProofStatus.PROVED.value:
        volume = 100.0
    also = p.get("also_on", [])
    if not isinstance(also, list) or not all(isinstance(x, str) for x in also):
        raise LockFileError(path, f"{where}.also_on", "must be a list of strings (the larger sizes also proved)")
    identical = p.get("identical_sides", False)
    if not isinstance(identical, bool):
        raise LockFileError(path, f"{where}.identical_sides", "must be true or false")
    kernel = p.get("kernel", "")
    if not isinstance(kernel, str):
        raise LockFileError(path, f"{where}.kernel", "must be a string (what Coq's kernel made of the proof's certificate)")
    return LockedProof(p["status"], p.get("on", ""), domain, p.get("method", ""), None if volume is None else float(volume), tuple(also), identical,
                       kernel)


__all__ = ["LOCK_NAME", "Lock", "LockEntry", "LockFileError", "LockedProof", "LockedSearch", "locked_proof", "dumps", "file_sha256", "listed_path_problem", "merged", "project_root", "read", "relative_to_lock", "restricted", "write"]
