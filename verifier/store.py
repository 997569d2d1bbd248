"""The counterexample store: ``<root>/<paper>/<claim id>/<name>.json``, a folder nothing escapes.

Evidence stays put: a file a lockfile may cite is never replaced unless asked, and no link
inside the store is followed, on saving or on reading.  A claim's folder is named by its
paper and id in Unicode's composed form (NFC), and two claims whose folders differ only in
case or composition are one folder on macOS and Windows: ``limits.folder_key`` is what such
file systems compare, and the registry refuses two claims with one key.  The format of a file is :mod:`verifier.evidence`; writing and reading files
safely is :mod:`verifier.safe_files`; replaying one is :mod:`verifier.replay`.
"""

from __future__ import annotations

import json
import os
import re
import stat
import unicodedata
from pathlib import Path

from .evidence import CounterexampleFileError, dumps_document, to_document
from .limits import MAX_FILE_BYTES, LimitError, check_name
from .results import Counterexample
from .safe_files import FileWriteError, check_writable_folder, open_folder_below, refuse_links, remove_stale_temporaries, write_in_folder


class StoreLinkError(CounterexampleFileError):
    """A symbolic link inside the counterexample store: a save or a replay through it would
    write or read outside the store, so the store refuses it."""

    def __init__(self, path: str | os.PathLike):
        super().__init__(path, None, "a symbolic link inside the counterexample store; the store refuses links "
                                     "(a save or a replay through one would reach outside it): replace it by the file or folder")


def store_folder_names(paper: str, claim: str) -> tuple[str, str]:
    """The store's folder names for a claim (NFC), refused (naming the field) when one is no single
    folder name: claims validate their names when declared, a document read from disk does not."""
    names = []
    for field, value in (("paper", paper or "unknown-paper"), ("claim", claim)):
        try:
            names.append(unicodedata.normalize("NFC", check_name(value, path_component=True)))
        except LimitError as exc:
            raise CounterexampleFileError(f"{value!r}", field, f"cannot name a folder of the counterexample store: {exc}") from None
    return names[0], names[1]


def open_store_folder(root: Path, names, create: bool) -> int:
    """A descriptor of ``root/names[0]/names[1]/...``, opened one folder at a time without
    following a link (``O_NOFOLLOW``), so nothing inside the store leads outside it.  ``root``
    itself is the user's to place, through a link or not.  Missing folders are made when
    ``create``; otherwise ``FileNotFoundError`` is raised."""
    return open_folder_below(root, names, create, StoreLinkError)


def refuse_links_below(root: Path, relative: Path) -> None:
    """Raise :class:`StoreLinkError` when a component of ``root/relative`` below ``root`` is a link."""
    refuse_links(root, relative, StoreLinkError)


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
            base = base / unicodedata.normalize("NFC", paper)
            if claim:
                base = base / unicodedata.normalize("NFC", claim)
        try:
            refuse_links_below(self.root, base.relative_to(self.root))
            if not base.is_dir():
                return []
            found = []
            for folder, subfolders, names in os.walk(base):  # never descends through a link
                for name in subfolders + names:
                    if os.path.islink(os.path.join(folder, name)):
                        raise StoreLinkError(Path(folder) / name)
                found.extend(Path(folder) / n for n in names if n.endswith(".json"))
        except OSError as exc:  # a name too long, a folder that cannot be read
            raise CounterexampleFileError(base, None, f"cannot read the counterexample store: {exc.strerror or exc}") from None
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


__all__ = ["CounterexampleStore", "StoreLinkError", "default_name", "open_store_folder", "refuse_links_below", "store_folder_names"]
