"""``--save-claim FILE.py``: the claim ``verify expr`` checked, kept as a pack module."""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..errors import VerifierError
from ..safe_files import FileWriteError, make_folders, write_in_folder
from .build import ExprClaim


class SaveError(VerifierError, ValueError):
    """The module cannot be written where asked (names the path and why)."""


def claim_id_for(claim_id: str | None, path: Path | None) -> str | None:
    """The id a saved claim gets: the one given, else the file's name (``nesbitt.py`` -> ``nesbitt``)."""
    if claim_id is not None:
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", claim_id):
            raise SaveError(f"--id {claim_id!r}: an id is letters, digits, '.', '_' and '-' (at most 64)")
        return claim_id
    if path is None:
        return None
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", Path(path).stem).strip("-._")
    return stem[:64] or None


def check_save_path(path: Path, force: bool) -> None:
    """Refuse, before any search, a path the module cannot or must not be written to."""
    path = Path(path)
    if path.suffix != ".py":
        raise SaveError(f"--save-claim {path}: a pack module is a .py file")
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise SaveError(f"--save-claim {path}: not a regular file")
    if path.exists() and not force:
        raise SaveError(f"--save-claim {path}: the file exists; add --force to replace it")


def save_claim_module(path: Path, built: ExprClaim, force: bool = False) -> None:
    """Write the module atomically: all of it or nothing, and an existing file only with ``force``
    (created exclusively otherwise, so a file that appears meanwhile is not replaced either)."""
    path = Path(path)
    check_save_path(path, force)
    try:
        make_folders(path.parent)
        folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
        try:
            write_in_folder(folder, path.parent, path.name, built.source, replace=force)
        finally:
            os.close(folder)
    except FileExistsError:
        raise SaveError(f"--save-claim {path}: the file exists; add --force to replace it") from None
    except (FileWriteError, OSError) as exc:
        raise SaveError(f"--save-claim {path}: {getattr(exc, 'cause', None) or exc.strerror or exc}") from None
