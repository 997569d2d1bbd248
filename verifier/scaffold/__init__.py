"""``verify init``: the files of a new paper's claim repository, rendered from the templates here.

The templates ship as package data (``templates/*.tmpl``, ``${name}`` placeholders); this
module only writes them.  The lock is not a template: the command writes it by running the
example claim through the engine.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from string import Template

from .._version import __version__
from ..safe_files import write_atomic

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


class ScaffoldError(Exception):
    """A paper slug or target folder ``verify init`` cannot use; says what to pass instead."""


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
    return slug


def write_scaffold(root: Path, slug: str, force: bool = False) -> Scaffold:
    """Write the repository's files under ``root``; refuses a folder with files in it unless ``force``."""
    check_slug(slug)
    if root.exists() and not root.is_dir():
        raise ScaffoldError(f"{root} is a file, not a folder")
    if root.exists() and any(root.iterdir()) and not force:
        raise ScaffoldError(f"{root} is not empty; choose an empty folder, or pass --force to write over the files of the scaffold")
    package = package_name(slug)
    values = {"slug": slug, "package": package, "distribution": f"{slug}-claims",
              "verifier_distribution": DISTRIBUTION, "verifier_version": __version__}
    templates = resources.files(__package__) / "templates"
    written = []
    for template, target in _FILES.items():
        text = Template(templates.joinpath(template).read_text(encoding="utf-8")).substitute(values)
        path = root / target.format(package=package)
        write_atomic(path, text)
        written.append(path)
    return Scaffold(root=root, slug=slug, package=package, files=tuple(written))


__all__ = ["DISTRIBUTION", "Scaffold", "ScaffoldError", "check_slug", "package_name", "write_scaffold"]
