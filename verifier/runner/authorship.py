"""Whose code a frame is: the author's (a claim pack's), or the verifier's and the libraries'.

A row that says "the claim's code did not return (pack.py, line 7, in lhs)" points the author
at their own line, never at a frame of sympy's or ours that their claim happened to call.
"""

from __future__ import annotations

import importlib.metadata
import sys
from pathlib import Path

_VERIFIER_DIR = str(Path(__file__).resolve().parent.parent)
_LIBRARY_DIRS = tuple(sorted({str(Path(p).resolve()) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}))

#: the prefix of the module names under which packs loaded from a path are imported
PATH_PACK_PREFIX = "_verifier_pack_"
PACK_ENTRY_POINTS = "verifier.packs"


def authors_frame(tb_or_frame) -> str:
    """The innermost frame of an author's code ("file.py, line 7, in lhs"), or "".

    An author's code is a claim pack's (a pack loaded from a path, or an installed one) or
    anything that is neither the verifier nor the Python installation (standard library,
    site-packages): a frame of sympy's is not the claim's, even when a claim's check ran it.
    """
    frames = []
    if hasattr(tb_or_frame, "tb_frame"):
        tb = tb_or_frame
        while tb is not None:
            frames.append((tb.tb_frame, tb.tb_lineno))
            tb = tb.tb_next
    else:
        frame = tb_or_frame
        while frame is not None:
            frames.insert(0, (frame, frame.f_lineno))
            frame = frame.f_back
    for frame, line in reversed(frames):
        code = frame.f_code
        if is_authors(code.co_filename, str(frame.f_globals.get("__name__", ""))):
            name = "" if code.co_name == "<module>" else f", in {code.co_name}"
            return f"{Path(code.co_filename).name}, line {line}{name}"
    return ""


def is_authors(filename: str, module: str) -> bool:
    if filename.startswith(("<", _VERIFIER_DIR)) or "importlib" in filename:
        return False
    if not filename.startswith(_LIBRARY_DIRS):
        return True
    return module.startswith(PATH_PACK_PREFIX) or module.split(".")[0] in installed_pack_roots()


_PACK_ROOTS: set[str] | None = None


def installed_pack_roots() -> set[str]:
    """Top-level modules of the installed claim packs (their code may live in site-packages)."""
    global _PACK_ROOTS
    if _PACK_ROOTS is None:
        _PACK_ROOTS = {ep.value.split(":")[0].split(".")[0] for ep in importlib.metadata.entry_points(group=PACK_ENTRY_POINTS)}
    return _PACK_ROOTS


__all__ = ["PACK_ENTRY_POINTS", "PATH_PACK_PREFIX", "authors_frame", "installed_pack_roots", "is_authors"]
