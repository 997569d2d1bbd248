"""Files written atomically and read within limits: the ground every stored file stands on.

A file is written to a temporary name in the same folder, flushed to disk and renamed into
place, so a crash leaves either the old file or the new one -- never half of one.  A file is
read only when it is a regular file within ``MAX_FILE_BYTES``, and a JSON file only when it
nests within ``MAX_NESTING``, holds no number longer than ``MAX_NUMBER_CHARS`` and names no
key twice in one object (JSON parsers keep the last, so a reviewer and the tool could read two
different documents in one file).
"""

from __future__ import annotations

import errno
import json
import os
import re
import secrets
import stat
import tempfile
import time
from pathlib import Path

import numpy as np

from .errors import VerifierError
from .limits import MAX_FILE_BYTES, MAX_NESTING, MAX_NUMBER_CHARS


# ---------------------------------------------------------------------------- writing
class FileWriteError(VerifierError, OSError):
    """A file that could not be written: one line naming the file and the cause (a full disk,
    a file-size limit, a folder that is a file, a link inside the store)."""

    def __init__(self, path: str | os.PathLike, cause: str):
        self.path, self.cause = str(path), cause
        super().__init__(f"cannot write {shown_path(self.path)}: {cause}")

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


def open_folder_below(root: Path, names, create: bool, link_error, created: list | None = None) -> int:
    """A descriptor of ``root/names[0]/names[1]/...``, opened one folder at a time without
    following a link (``O_NOFOLLOW``): a link on the way raises ``link_error(path)``.  ``root``
    itself is the user's to place, through a link or not.  Missing folders are made when
    ``create`` (and appended to ``created``, when given); otherwise ``FileNotFoundError`` is raised."""
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
                    if created is not None:
                        created.append(where)
                except FileExistsError:
                    pass
                except OSError as exc:
                    raise FileWriteError(where, f"cannot create the folder ({_cause(exc)})") from None
                child = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    if stat.S_ISLNK(os.lstat(name, dir_fd=fd).st_mode):
                        raise link_error(where) from None
                    raise FileWriteError(where, "a file, not a folder") from None
                raise
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def refuse_links(root: Path, relative: Path, link_error) -> None:
    """Raise ``link_error(path)`` when a component of ``root/relative`` below ``root`` is a link
    (a path that ends early, at a missing component or under a file, is no link)."""
    where = Path(root)
    for name in Path(relative).parts:
        where = where / name
        try:
            if stat.S_ISLNK(os.lstat(where).st_mode):
                raise link_error(where)
        except (FileNotFoundError, NotADirectoryError):
            return


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
    place, a file where a folder of its path should be, a folder without write permission, a
    name longer than the file system takes).

    Run before a long command whose output goes there; it creates nothing.
    """
    path = Path(path)
    try:
        if path.is_dir():
            raise FileWriteError(path, "a folder is in the way")
        existing = path.parent
        while not (existing.exists() or existing.is_symlink()) and existing.parent != existing:
            existing = existing.parent
        if not existing.is_dir():
            raise FileWriteError(path, f"{shown_path(existing)} is a file, not a folder")
        if not os.access(existing, os.W_OK | os.X_OK):
            raise FileWriteError(path, f"the folder {shown_path(existing)} is not writable")
    except FileWriteError:
        raise
    except OSError as exc:  # a name too long, a loop of links: the stat itself fails
        raise FileWriteError(path, _cause(exc)) from None


def check_writable_folder(folder: Path) -> None:
    """Raise ``OSError`` naming ``folder`` when files cannot be written under it.

    Run before a search whose results would be saved there, so they are not lost after it.
    """
    folder = Path(folder)
    try:
        existing = folder
        while not existing.exists():
            if existing.parent == existing:
                break
            existing = existing.parent
        if not existing.is_dir():
            raise OSError(f"{shown_path(existing)} is a file, not a folder")
    except OSError as exc:
        if exc.errno is None:
            raise
        raise OSError(f"cannot use the folder ({_cause(exc)})") from None
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


#: characters of a path a one-line message shows whole
_SHOWN_PATH_CHARS = 200


def shown_path(path) -> str:
    """A path for a one-line message: whole up to 200 characters, else its start and its end."""
    text = str(path)
    return text if len(text) <= _SHOWN_PATH_CHARS else f"{text[:120]}\u2026({len(text):,} characters)\u2026{text[-60:]}"


# ---------------------------------------------------------------------------- reading
def read_json_object(path, error, required=(), missing="no such file", **loads) -> dict:
    """A JSON object from ``path``; every problem raised as ``error(path, field, message)``.

    The file is refused before it is parsed when it is not a regular file (a FIFO would block,
    a device never end), is larger than ``MAX_FILE_BYTES``, nests deeper than ``MAX_NESTING``
    or holds a number longer than ``MAX_NUMBER_CHARS``; it is refused after parsing when an
    object names a key twice.
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
        doc = json.loads(text, parse_int=_bounded(int), parse_float=_bounded(parse_float), object_pairs_hook=_object, **loads)
    except (ValueError, RecursionError) as exc:
        raise error(path, None, f"not valid JSON ({exc})") from None
    for field, item in _walk(doc):
        if isinstance(item, TooLongNumber):
            raise error(path, field, f"a number of {item.length:,} characters is longer than the limit of {MAX_NUMBER_CHARS:,}")
        if isinstance(item, DuplicateKey):
            raise error(path, f"{field}.{item.key}" if field else item.key,
                        "named twice in one object (a JSON reader keeps one of the two silently): keep one")
    if not isinstance(doc, dict):
        raise error(path, None, "the top level must be a JSON object")
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


class DuplicateKey:
    """An object that names ``key`` twice; found and named by field after parsing."""

    def __init__(self, key: str):
        self.key = key


def _object(pairs: list) -> dict | DuplicateKey:
    doc = dict(pairs)
    if len(doc) == len(pairs):
        return doc
    seen = set()
    return DuplicateKey(next(k for k, _ in pairs if k in seen or seen.add(k)))


class TooLongNumber:
    """A number too long to convert; found and named by field after parsing."""

    def __init__(self, length: int):
        self.length = length


def _bounded(convert):
    def parse(text):
        return TooLongNumber(len(text)) if len(text) > MAX_NUMBER_CHARS else convert(text)

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




__all__ = [
    "DuplicateKey", "FileWriteError", "TooLongNumber", "check_output_file", "check_writable_folder", "make_folders", "open_folder_below", "read_bounded", "refuse_links",
    "read_json_object", "remove_stale_temporaries", "shown_path", "write_atomic", "write_in_folder",
]
