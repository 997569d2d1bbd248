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
import errno
import re
import secrets
import stat
import tempfile
import time
from dataclasses import asdict, dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Mapping

import numpy as np
from flint import fmpq

from ._version import __version__
from .algebraic_store import is_algebraic_text, parse_algebraic
from .certify import Certificate, certify_plainly, decimal_string
from .claims import Check, Claim
from .limits import MAX_DIM, MAX_DPS, MAX_ENTRIES, MAX_FILE_BYTES, MAX_NESTING, MAX_NUMBER_CHARS, MIN_DPS, LimitError, check_exponent, check_name, check_number_text
from .results import Counterexample, FoundBy

SCHEMA = "claim-verifier/counterexample"  # a format name, not the distribution's: every stored file carries it, so it stayed through the rename to ml-claim-verifier
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


class FileWriteError(OSError):
    """A file that could not be written: one line naming the file and the cause (a full disk,
    a file-size limit, a folder that is a file, a link inside the store)."""

    def __init__(self, path: str | os.PathLike, cause: str):
        self.path, self.cause = str(path), cause
        super().__init__(f"cannot write {self.path}: {cause}")

    def __str__(self) -> str:
        return self.args[0]


def _cause(exc: OSError) -> str:
    return exc.strerror or str(exc)


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` (replacing it) atomically; a failure is a :class:`FileWriteError`.

    Used for files a user names (reports, the lockfile): the folder may be reached through a
    link the user made.  The counterexample store writes through :meth:`CounterexampleStore.save`.
    """
    path = Path(path)
    if path.name in ("", ".", ".."):
        raise FileWriteError(path, "not a file name")
    make_folders(path.parent)
    try:
        folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        raise FileWriteError(path, f"cannot open its folder ({_cause(exc)})") from None
    try:
        write_in_folder(folder, path.parent, path.name, text, replace=True)
    finally:
        os.close(folder)


def make_folders(folder: Path) -> None:
    """``mkdir -p``, with an error naming the part of the path that is a file, not a folder."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocker = next((p for p in [folder, *folder.parents] if p.exists() and not p.is_dir()), folder)
        raise FileWriteError(folder, f"{blocker} is a file, not a folder") from None
    except OSError as exc:
        raise FileWriteError(folder, f"cannot create the folder ({_cause(exc)})") from None


def write_in_folder(folder_fd: int, folder: Path, name: str, text: str, replace: bool) -> None:
    """Write ``name`` in the open folder ``folder_fd`` (shown as ``folder``) through a temporary.

    ``replace``: the file takes the place of any file of that name (``rename``); otherwise it is
    created only if no file of that name exists (``link``, which fails when one does: two
    processes saving at once both keep their evidence) and ``FileExistsError`` is raised.
    Either way a crash leaves the old file or the new one, never half of one.
    """
    target = Path(folder) / name
    remove_stale_temporaries(folder)
    # the writer's pid in the name tells a later run whether the temporary is still being written
    tmp = f".{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(tmp, flags, 0o666, dir_fd=folder_fd)  # 0o666 less the umask: evidence and reports are for reading
    except OSError as exc:
        raise FileWriteError(target, _cause(exc)) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())
        if replace:
            os.replace(tmp, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
        else:
            os.link(tmp, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd, follow_symlinks=False)
            os.unlink(tmp, dir_fd=folder_fd)
        _sync_folder(folder_fd)
    except BaseException as exc:
        try:
            os.unlink(tmp, dir_fd=folder_fd)
        except FileNotFoundError:
            pass
        if isinstance(exc, FileExistsError) and not replace:
            raise
        if isinstance(exc, IsADirectoryError):
            raise FileWriteError(target, "a folder is in the way") from None
        if isinstance(exc, OSError) and not isinstance(exc, FileWriteError):
            raise FileWriteError(target, _cause(exc)) from None
        raise


def _sync_folder(folder_fd: int) -> None:
    """Make the rename itself durable, so a crash after it keeps the new file."""
    try:
        os.fsync(folder_fd)
    except OSError:  # pragma: no cover - file systems without directory fsync
        pass


_TEMPORARY = re.compile(r"^\..+?\.(?:(?P<pid>\d+)\.)?[A-Za-z0-9_]{8}\.tmp$")
#: a temporary without a writer's pid (written before pids were recorded) is stale after this
_ORPHAN_SECONDS = 600.0


def remove_stale_temporaries(folder: Path, recursive: bool = False) -> list[Path]:
    """Delete the temporaries a killed writer left in ``folder``; returns what was deleted.

    A temporary is stale when the process that made it is gone; one still being written by a
    live process is left alone.
    """
    folder = Path(folder)
    removed = []
    try:
        candidates = list(folder.rglob(".*.tmp") if recursive else folder.glob(".*.tmp"))
    except OSError:
        return removed
    for tmp in candidates:
        m = _TEMPORARY.match(tmp.name)
        if m is None or not _is_stale(tmp, m.group("pid")):
            continue
        try:
            tmp.unlink()
            removed.append(tmp)
        except OSError:
            pass
    return removed


def _is_stale(tmp: Path, pid: str | None) -> bool:
    if pid is None:
        try:
            return time.time() - tmp.lstat().st_mtime > _ORPHAN_SECONDS
        except OSError:
            return False
    if int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError):
        return False
    return False


def check_output_file(path: Path) -> None:
    """Raise :class:`FileWriteError` naming ``path`` and why it cannot be written (a folder in its
    place, a file where a folder of its path should be, a folder without write permission).

    Run before a long command whose output goes there; it creates nothing.
    """
    path = Path(path)
    if path.is_dir():
        raise FileWriteError(path, "a folder is in the way")
    existing = path.parent
    while not (existing.exists() or existing.is_symlink()) and existing.parent != existing:
        existing = existing.parent
    if not existing.is_dir():
        raise FileWriteError(path, f"{existing} is a file, not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise FileWriteError(path, f"the folder {existing} is not writable")


def check_writable_folder(folder: Path) -> None:
    """Raise ``OSError`` naming ``folder`` when files cannot be written under it.

    Run before a search whose results would be saved there, so they are not lost after it.
    """
    folder = Path(folder)
    existing = folder
    while not existing.exists():
        if existing.parent == existing:
            break
        existing = existing.parent
    if not existing.is_dir():
        raise OSError(f"{existing} is a file, not a folder")
    if existing != folder:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OSError(f"cannot create the folder ({exc.strerror or exc})") from None
    try:
        fd, probe = tempfile.mkstemp(prefix=f".probe.{os.getpid()}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise OSError(f"cannot write there ({exc.strerror or exc})") from None
    os.close(fd)
    os.unlink(probe)


class StoreLinkError(CounterexampleFileError):
    """A symbolic link inside the counterexample store: a save or a replay through it would
    write or read outside the store, so the store refuses it."""

    def __init__(self, path: str | os.PathLike):
        super().__init__(path, None, "a symbolic link inside the counterexample store; the store refuses links "
                                     "(a save or a replay through one would reach outside it): replace it by the file or folder")


def store_folder_names(paper: str, claim: str) -> tuple[str, str]:
    """The store's folder names for a claim, refused (naming the field) when one is no single
    folder name: claims validate their names when declared, a document read from disk does not."""
    names = []
    for field, value in (("paper", paper or "unknown-paper"), ("claim", claim)):
        try:
            names.append(check_name(value, path_component=True))
        except LimitError as exc:
            raise CounterexampleFileError(f"{value!r}", field, f"cannot name a folder of the counterexample store: {exc}") from None
    return names[0], names[1]


def open_store_folder(root: Path, names, create: bool) -> int:
    """A descriptor of ``root/names[0]/names[1]/...``, opened one folder at a time without
    following a link (``O_NOFOLLOW``), so nothing inside the store leads outside it.  ``root``
    itself is the user's to place, through a link or not.  Missing folders are made when
    ``create``; otherwise ``FileNotFoundError`` is raised."""
    root = Path(root)
    if create:
        make_folders(root)
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    where = root
    try:
        for name in names:
            where = where / name
            try:
                child = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                try:
                    os.mkdir(name, 0o777, dir_fd=fd)
                except FileExistsError:
                    pass
                except OSError as exc:
                    raise FileWriteError(where, f"cannot create the folder ({_cause(exc)})") from None
                child = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    if stat.S_ISLNK(os.lstat(name, dir_fd=fd).st_mode):
                        raise StoreLinkError(where) from None
                    raise FileWriteError(where, "a file, not a folder") from None
                raise
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def refuse_links_below(root: Path, relative: Path) -> None:
    """Raise :class:`StoreLinkError` when a component of ``root/relative`` below ``root`` is a link."""
    where = Path(root)
    for name in Path(relative).parts:
        where = where / name
        try:
            if stat.S_ISLNK(os.lstat(where).st_mode):
                raise StoreLinkError(where)
        except FileNotFoundError:
            return


class CounterexampleStore:
    """``<root>/<paper>/<claim id>/<name>.json``; no link inside it is followed."""

    def __init__(self, root: str | os.PathLike = "counterexamples"):
        self.root = Path(root)

    def check_writable(self) -> None:
        """Refuse, naming the folder, a store that files cannot be saved in."""
        try:
            check_writable_folder(self.root)
        except OSError as exc:
            raise CounterexampleFileError(self.root, None, f"the counterexample store cannot be written: {exc}") from None

    def path_for(self, cx: Counterexample, name: str | None = None) -> Path:
        return self.root.joinpath(*store_folder_names(cx.paper, cx.claim), self.file_name(cx, name))

    @staticmethod
    def file_name(cx: Counterexample, name: str | None = None) -> str:
        return f"{_safe(name or default_name(cx))}.json"

    def save(self, cx: Counterexample, statement: str = "", name: str | None = None, note: str = "", force: bool = False) -> Path:
        """Store ``cx`` and return its path.

        Evidence stays put: a file that already holds a different counterexample (one a lockfile
        may cite) is never replaced unless ``force``; the new one gets the next free name
        (``...-seed0-2.json``), taken by exclusive creation, so runs saving at once each keep
        their file.  Saving the same evidence again writes nothing and returns the existing file.
        A failure is a :class:`FileWriteError` or :class:`StoreLinkError` naming the file.
        """
        text = dumps_document(to_document(cx, statement, note))
        names = store_folder_names(cx.paper, cx.claim)
        folder = self.root.joinpath(*names)
        file_name = self.file_name(cx, name)
        fd = open_store_folder(self.root, names, create=True)
        try:
            if force:
                _refuse_link_in(fd, folder, file_name)
                write_in_folder(fd, folder, file_name, text, replace=True)
                return folder / file_name
            stem, n = file_name[:-len(".json")], 1
            candidate = file_name
            while True:
                _refuse_link_in(fd, folder, candidate)
                if _exists_in(fd, candidate):
                    if _same_evidence(fd, candidate, text):
                        remove_stale_temporaries(folder)  # nothing is written, so no write cleans a killed save's leftovers
                        return folder / candidate
                    n += 1
                    candidate = f"{stem}-{n}.json"
                    continue
                try:
                    write_in_folder(fd, folder, candidate, text, replace=False)
                    return folder / candidate
                except FileExistsError:
                    continue  # another run took the name meanwhile: look at what it wrote
        finally:
            os.close(fd)

    def files(self, paper: str | None = None, claim: str | None = None) -> list[Path]:
        """Every ``.json`` file under the store (or a paper's or claim's folder), sorted; a link
        inside the store is refused."""
        base = self.root
        if paper:
            base = base / paper
            if claim:
                base = base / claim
        refuse_links_below(self.root, base.relative_to(self.root))
        if not base.is_dir():
            return []
        found = []
        for folder, subfolders, names in os.walk(base):  # never descends through a link
            for name in subfolders + names:
                if os.path.islink(os.path.join(folder, name)):
                    raise StoreLinkError(Path(folder) / name)
            found.extend(Path(folder) / n for n in names if n.endswith(".json"))
        remove_stale_temporaries(base, recursive=True)
        return sorted(found)


def _refuse_link_in(fd: int, folder: Path, name: str) -> None:
    try:
        if stat.S_ISLNK(os.lstat(name, dir_fd=fd).st_mode):
            raise StoreLinkError(folder / name)
    except FileNotFoundError:
        pass


def _exists_in(fd: int, name: str) -> bool:
    try:
        os.lstat(name, dir_fd=fd)
        return True
    except FileNotFoundError:
        return False


def _same_evidence(fd: int, name: str, text: str) -> bool:
    """Whether the file ``name`` holds the document ``text``, up to the tool version and timings."""
    def core(doc):
        doc = dict(doc)
        doc.pop("tool_version", None)
        if not has_kinds:  # written before files stated kinds: the same evidence all the same
            doc.pop("kinds", None)
        if isinstance(doc.get("found_by"), dict):
            doc["found_by"] = {k: v for k, v in doc["found_by"].items() if k != "seconds"}
        return doc

    try:
        file = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fd)
    except OSError:
        return False
    with os.fdopen(file, "rb") as fh:
        if not stat.S_ISREG(os.fstat(file).st_mode):
            return False
        raw = fh.read(MAX_FILE_BYTES + 1)
    try:
        old = json.loads(raw.decode("utf-8"))
    except ValueError:
        return False
    has_kinds = isinstance(old, dict) and "kinds" in old
    return isinstance(old, dict) and core(old) == core(json.loads(text))


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
    """A JSON object from ``path``; every problem raised as ``error(path, field, message)``.

    The file is refused before it is parsed when it is not a regular file (a FIFO would block,
    a device never end), is larger than ``MAX_FILE_BYTES``, nests deeper than ``MAX_NESTING``
    or holds a number longer than ``MAX_NUMBER_CHARS``.
    """
    path = Path(path)
    raw = read_bounded(path, error, missing)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(path, None, f"cannot read: {exc}") from None
    too_deep = _first_too_deep(raw)
    if too_deep is not None:
        raise error(path, too_deep, f"nested deeper than the limit of {MAX_NESTING} levels")
    parse_float = loads.pop("parse_float", float)
    try:
        doc = json.loads(text, parse_int=_bounded(int), parse_float=_bounded(parse_float), **loads)
    except (ValueError, RecursionError) as exc:
        raise error(path, None, f"not valid JSON ({exc})") from None
    if not isinstance(doc, dict):
        raise error(path, None, "the top level must be a JSON object")
    for field, item in _walk(doc):
        if isinstance(item, _TooLong):
            raise error(path, field, f"a number of {item.length:,} characters is longer than the limit of {MAX_NUMBER_CHARS:,}")
    for key in required:
        if key not in doc:
            raise error(path, key, "missing field")
    return doc


def read_bounded(path, error, missing="no such file") -> bytes:
    """The bytes of a regular file of at most ``MAX_FILE_BYTES``, without ever blocking."""
    path = Path(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise error(path, None, missing) from None
    except OSError as exc:
        raise error(path, None, f"cannot read: {exc.strerror or exc}") from None
    _check_regular(path, info, error)
    try:
        # O_NONBLOCK: the path may have become a FIFO since the stat; opening one must not wait
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise error(path, None, f"cannot read: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as fh:
        _check_regular(path, os.fstat(fd), error)
        raw = fh.read(MAX_FILE_BYTES + 1)
    if len(raw) > MAX_FILE_BYTES:
        raise error(path, None, f"larger than the limit of {MAX_FILE_BYTES:,} bytes")
    return raw


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _check_regular(path, info, error) -> None:
    if stat.S_ISREG(info.st_mode):
        if info.st_size > MAX_FILE_BYTES:
            raise error(path, None, f"{info.st_size:,} bytes, larger than the limit of {MAX_FILE_BYTES:,}")
        return
    kind = next((name for test, name in _KINDS if test(info.st_mode)), "not a regular file")
    raise error(path, None, f"{kind}, not a regular file")


class _TooLong:
    """A number too long to convert; found and named by field after parsing."""

    def __init__(self, length: int):
        self.length = length


def _bounded(convert):
    def parse(text):
        return _TooLong(len(text)) if len(text) > MAX_NUMBER_CHARS else convert(text)

    return parse


def _walk(doc):
    """(field, value) for every value of a parsed document; iterative (its depth is bounded anyway)."""
    stack = [("", doc)]
    while stack:
        where, item = stack.pop()
        yield where, item
        if isinstance(item, dict):
            stack.extend((f"{where}.{k}" if where else str(k), v) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((f"{where}[{i}]", v) for i, v in enumerate(item))


_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_JSON_KEY = re.compile(rb'"((?:[^"\\]|\\.)*)"\s*:')


def _first_too_deep(raw: bytes) -> str | None:
    """``None``, or the top-level field (``""`` at the top) where nesting passes ``MAX_NESTING``.

    Measured on the bytes with strings blanked out, before parsing: a parser would recurse
    once per level.
    """
    if raw.count(b"[") + raw.count(b"{") <= MAX_NESTING:
        return None
    masked = _JSON_STRING.sub(lambda m: b'""'.ljust(len(m.group()), b" "), raw)
    codes = np.frombuffer(masked, dtype=np.uint8)
    steps = np.zeros(len(codes), dtype=np.int64)
    steps[(codes == ord("[")) | (codes == ord("{"))] = 1
    steps[(codes == ord("]")) | (codes == ord("}"))] = -1
    depth = np.cumsum(steps)
    deep = np.nonzero(depth > MAX_NESTING)[0]
    if not len(deep):
        return None
    at = int(deep[0])
    field = ""
    for m in _JSON_KEY.finditer(raw, 0, at):
        if m.start() > 0 and depth[m.start() - 1] == 1:
            field = m.group(1).decode("utf-8", "replace")
    return field


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
        check_exponent(value.as_tuple().exponent)
        return Fraction(value)
    if isinstance(value, _TooLong):
        raise LimitError(f"a number of {value.length:,} characters is longer than the limit of {MAX_NUMBER_CHARS:,}")
    if not isinstance(value, str):
        raise ValueError(f"expected an exact number as a string, got {type(value).__name__}")
    text = check_number_text(value.strip())
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
    from .contexts import ExactContext
    from .domains import membership_errors

    off_set = membership_errors(check, data, dims, ExactContext())
    if off_set is not None:
        raise CounterexampleFileError(path, f"vars.{off_set[0]}", off_set[1])
    return LoadedCounterexample(str(path), doc, check, dims, data)


def _check_kinds(path, doc, check, dims) -> None:
    """A file that states kinds must state the claim's: a Matrix edited into a Stochastic
    (or back) is another claim.  Files written before kinds were stored state none."""
    from .domains import variable_kinds

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
    cert = certify_plainly(loaded.check, loaded.data, loaded.dims, dps)  # in a worker: a claim's code runs only there (verifier/tasks.py)

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
    "FileWriteError",
    "StoreLinkError",
    "check_output_file",
    "check_writable_folder",
    "FoundBy",
    "LoadedCounterexample",
    "Replay",
    "load",
    "parse_exact",
    "read_bounded",
    "read_document",
    "remove_stale_temporaries",
    "replay",
    "to_document",
    "write_atomic",
]
