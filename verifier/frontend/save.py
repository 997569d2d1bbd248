"""``--save-claim FILE.py``: the claim ``verify expr`` checked, kept as a pack module."""

from __future__ import annotations

import re
from pathlib import Path

from ..store import write_atomic
from .build import ExprClaim


class SaveError(ValueError):
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


def save_claim_module(path: Path, built: ExprClaim) -> None:
    path = Path(path)
    if path.suffix != ".py":
        raise SaveError(f"--save-claim {path}: a pack module is a .py file")
    if path.exists() and not path.is_file():
        raise SaveError(f"--save-claim {path}: not a regular file")
    try:
        write_atomic(path, built.source)
    except OSError as exc:
        raise SaveError(f"--save-claim {path}: {exc.strerror or exc}") from None
