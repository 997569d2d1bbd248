"""``verify init``: the files of a new paper's claim repository, rendered from the templates here.

The templates ship as package data (``templates/*.tmpl``, ``${name}`` placeholders); this
module only writes them.  The lock is not a template: the command writes it by running the
example claim through the engine, inside :func:`scaffold_written`, so a failure anywhere leaves
the folder as it was (a rerun is never refused because of a half-written scaffold).  Nothing is
written through a symbolic link: a link where the scaffold would put a folder or a file (a
``.github`` leading elsewhere) is refused before anything is written, and every folder is
opened without following one.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from string import Template

from ..errors import VerifierError
from .._version import __version__
from ..limits import MAX_NAME_CHARS
from ..safe_files import open_folder_below, refuse_links, write_in_folder

_SLUG = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")

# this verifier's distribution on the package index (pyproject.toml's [project] name, which cannot
# be read from the package itself; tests/cli/test_init.py checks the two agree): a new repository
# pins exactly this tool, at this version
DISTRIBUTION = "ml-claim-verifier"

# template (under templates/) -> path in the new repository; "package" is the pack's folder
_FILES = {
    "pyproject.toml.tmpl": "pyproject.toml",
    "README.md.tmpl": "README.md",
    "gitignore.tmpl": ".gitignore",
    "github/claims.yml.tmpl": ".github/workflows/claims.yml",
    "package/__init__.py.tmpl": "{package}/__init__.py",
    "package/example.py.tmpl": "{package}/example.py",
}


#: what the command writes next to the templates' files: the lock and the counterexample store
_WRITTEN_AFTER = ("claims.lock", "counterexamples")


class ScaffoldError(VerifierError):
    """A paper slug or target folder ``verify init`` cannot use; says what to pass instead."""


class ScaffoldLinkError(ScaffoldError):
    def __init__(self, path: Path):
        super().__init__(f"{path} is a symbolic link: `verify init` writes nothing through a link; remove it, or choose another folder")


@dataclass(frozen=True)
class Scaffold:
    root: Path
    slug: str
    package: str
    files: tuple[Path, ...]

    @property
    def package_dir(self) -> Path:
        return self.root / self.package


def package_name(slug: str) -> str:
    """``alman-song-2025`` -> ``alman_song_2025_claims``: importable, and unlikely to clash."""
    return slug.replace("-", "_") + "_claims"


def check_slug(slug: str) -> str:
    if not _SLUG.fullmatch(slug):
        raise ScaffoldError(f"--paper {slug!r}: a slug is lowercase letters, digits and single hyphens, "
                            "starting with a letter (e.g. smith-2024)")
    if len(slug) > MAX_NAME_CHARS:  # it names the store's folder of the paper, and the package's folder
        raise ScaffoldError(f"--paper: {len(slug):,} characters, longer than the limit of {MAX_NAME_CHARS} for a paper's slug")
    return slug


def write_scaffold(root: Path, slug: str, force: bool = False, created: list | None = None) -> Scaffold:
    """Write the repository's files under ``root``; refuses a folder with files in it unless ``force``.

    Every file is rendered and every path checked before the first is written; ``created``
    collects the files and folders made (not those replaced), for :func:`scaffold_written`."""
    check_slug(slug)
    root = Path(root)
    if root.exists() and not root.is_dir():
        raise ScaffoldError(f"{root} is a file, not a folder")
    if root.exists() and any(root.iterdir()) and not force:
        raise ScaffoldError(f"{root} is not empty; choose an empty folder, or pass --force to write over the files of the scaffold")
    package = package_name(slug)
    values = {"slug": slug, "package": package, "distribution": f"{slug}-claims",
              "verifier_distribution": DISTRIBUTION, "verifier_version": __version__}
    templates = resources.files(__package__) / "templates"
    texts = {Path(target.format(package=package)): Template(templates.joinpath(template).read_text(encoding="utf-8")).substitute(values)
             for template, target in _FILES.items()}
    for relative in [*texts, *map(Path, _WRITTEN_AFTER)]:
        refuse_links(root, relative, ScaffoldLinkError)
    written = []
    for relative, text in texts.items():
        path = root / relative
        folder = open_folder_below(root, relative.parts[:-1], True, ScaffoldLinkError, created)
        try:
            existed = _exists(folder, relative.name)
            write_in_folder(folder, path.parent, relative.name, text, replace=True)
        finally:
            os.close(folder)
        if created is not None and not existed:
            created.append(path)
        written.append(path)
    return Scaffold(root=root, slug=slug, package=package, files=tuple(written))


@contextlib.contextmanager
def scaffold_written(root: Path, slug: str, force: bool = False):
    """:func:`write_scaffold` for the body of a ``with``: if the body (or the writing) fails, every
    file and folder made is removed again, the lock and the store the body writes included."""
    root = Path(root)
    root_existed = root.exists()
    after = [root / name for name in _WRITTEN_AFTER if not os.path.lexists(root / name)]
    created: list[Path] = []
    try:
        yield write_scaffold(root, slug, force, created)
    except BaseException:
        if not root_existed:
            shutil.rmtree(root, ignore_errors=True)
        else:
            for path in [*after, *reversed(created)]:
                _remove(path)
        raise


def _exists(folder_fd: int, name: str) -> bool:
    try:
        os.lstat(name, dir_fd=folder_fd)
        return True
    except FileNotFoundError:
        return False


def _remove(path: Path) -> None:
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    except FileNotFoundError:
        pass


__all__ = ["DISTRIBUTION", "Scaffold", "ScaffoldError", "ScaffoldLinkError", "check_slug", "package_name", "scaffold_written", "write_scaffold"]
