"""Finding claims: claim packs (installed or from a path), id normalisation, closest ids.

A claim pack is an ordinary Python package (or a folder of modules, or one ``.py`` file)
whose modules hold ``claim = Claim(...)`` or ``claims = [...]``.  Installed packs are found
through the entry-point group ``verifier.packs`` (name -> module); a pack on disk is imported
from its path under a name of its own, so a folder called ``lemmas`` neither hides an
installed package of that name nor is hidden by it.  A pack that cannot be loaded becomes a
:class:`PackError` (one line: pack, module, problem) next to the packs that did load, so
``verify list`` can still show the rest.

A claim is known by ``paper:id`` (the paper slug is the pack's qualifier) and by its short
id wherever that is unique among the loaded packs.

A pack is someone else's code, and importing it runs that code: the loaders here run only in
a worker (:mod:`verifier.packside`), under the time limit :func:`import_time_limit` gives; the
process that decides verdicts holds a :class:`Registry` of claims *described* by workers
(:mod:`verifier.catalog`), never the pack itself.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib
import importlib.machinery
import importlib.metadata
import importlib.util
import math
import os
import pkgutil
import re
import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Sequence

from .errors import VerifierError
from .claims import Claim
from .runner.authorship import PACK_ENTRY_POINTS, PATH_PACK_PREFIX
from .limits import folder_key

ENTRY_POINT_GROUP = PACK_ENTRY_POINTS

#: seconds a pack's import may take before it is a load error (environment: VERIFY_IMPORT_TIME)
IMPORT_TIME_LIMIT = 30.0
IMPORT_TIME_ENV = "VERIFY_IMPORT_TIME"

_KIND_WORDS = r"^(lemma|fact|definition|def|corollary|cor|theorem|thm|claim|proof-step|proofstep|step)\b[\s.:-]*"


class ClaimLookupError(VerifierError, KeyError):
    """An id that names no claim, or more than one; the message says what to type instead."""

    def __init__(self, message: str):
        super().__init__(message)

    def __str__(self) -> str:
        return self.args[0]


class UnknownClaimError(ClaimLookupError):
    def __init__(self, query: str, suggestions: list[str]):
        self.query, self.suggestions = query, suggestions
        hint = f"; closest: {', '.join(suggestions)}" if suggestions else ""
        super().__init__(f"unknown claim id {query!r}{hint}")


class AmbiguousClaimError(ClaimLookupError):
    def __init__(self, query: str, qualified: list[str]):
        self.query, self.qualified = query, qualified
        super().__init__(f"claim id {query!r} is in several packs; write one of: {', '.join(qualified)}")


@dataclass(frozen=True)
class PackError:
    """Why (part of) a pack did not load: printed as one line."""

    pack: str
    module: str
    problem: str

    def __str__(self) -> str:
        return f"pack {self.pack}: {self.module}: {self.problem}"


@dataclass(frozen=True)
class Pack:
    name: str  # the entry-point name, or the path as the user wrote it
    origin: str  # the module an entry point names, or the resolved path
    claims: tuple[Claim, ...]


def normalise(claim_id: str) -> str:
    """'Lemma B.2' -> 'b.2', 'Eq. (6)' -> 'eq6', '4.1' -> '4.1'."""
    text = claim_id.strip().lower()
    text = re.sub(_KIND_WORDS, "", text)
    text = re.sub(r"^(equation|eqn|eq)\b\.?", "eq", text)
    return re.sub(r"[^0-9a-z.]", "", text).strip(".")


def natural_key(claim_id: str):
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", claim_id.lower()) if t]


def qualified_id(claim: Claim) -> str:
    return f"{claim.paper}:{claim.id}" if claim.paper else claim.id


class Registry:
    """The claims of the loaded packs, in pack order, and the errors of the packs that failed."""

    def __init__(self, claims: Iterable[Claim] = (), *, packs: Sequence[Pack] = (), errors: Sequence[PackError] = ()):
        self._claims: dict[tuple[str, str], Claim] = {}
        self._folders: dict[tuple[str, str], Claim] = {}  # by limits.folder_key
        self.packs: tuple[Pack, ...] = tuple(packs)
        self.errors: tuple[PackError, ...] = tuple(errors)
        for pack in self.packs:
            for c in pack.claims:
                self.add(c)
        for c in claims:
            self.add(c)

    def add(self, claim: Claim) -> None:
        key = (claim.paper, normalise(claim.id))
        if key in self._claims:
            raise ValueError(f"claim id {qualified_id(claim)!r} registered twice")
        other = self._folders.get(folder_key(claim.paper, claim.id))
        if other is not None:
            raise ValueError(f"claim id {qualified_id(claim)!r}: {shared_folder(other)}")
        self._claims[key] = self._folders[folder_key(claim.paper, claim.id)] = claim

    def __iter__(self):
        papers = {p: i for i, p in enumerate(dict.fromkeys(paper for paper, _ in self._claims))}
        return iter(sorted(self._claims.values(), key=lambda c: (papers[c.paper], _section_rank(c.id), natural_key(c.id))))

    def __len__(self):
        return len(self._claims)

    @property
    def papers(self) -> list[str]:
        return list(dict.fromkeys(paper for paper, _ in self._claims))

    def by_pack(self) -> list[tuple[str, list[Claim]]]:
        """(pack name, its claims in order) for every pack with claims; loose claims under their paper."""
        owner = {id(c): pack.name for pack in self.packs for c in pack.claims}
        groups: dict[str, list[Claim]] = {}
        for c in self:
            groups.setdefault(owner.get(id(c), c.paper or "claims"), []).append(c)
        return list(groups.items())

    def get(self, claim_id: str) -> Claim:
        """A claim by short id (when unique) or by ``paper:id``."""
        paper, sep, rest = claim_id.partition(":")
        paper = paper.strip()
        pack = next((p for p in self.packs if p.name == paper and p.claims), None)
        if sep and paper not in self.papers and pack is not None:  # the pack's name as prefix
            papers = {c.paper for c in pack.claims}
            if len(papers) == 1:
                paper = papers.pop()
        if sep and paper in self.papers:
            key = (paper, normalise(rest))
            if key in self._claims:
                return self._claims[key]
            raise UnknownClaimError(claim_id, self.closest(rest, paper=paper))
        key = normalise(claim_id)
        matches = [c for (_, k), c in self._claims.items() if k == key]
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise AmbiguousClaimError(claim_id, sorted(qualified_id(c) for c in matches))
        if sep and self.papers:
            raise ClaimLookupError(f"unknown paper {paper!r} in {claim_id!r}; papers: {', '.join(self.papers)}")
        raise UnknownClaimError(claim_id, self.closest(claim_id))

    def find(self, paper: str, claim_id: str) -> Claim:
        """The claim a stored file or lock entry names: its paper decides the pack."""
        if not paper:
            return self.get(claim_id)
        claim = self._claims.get((paper, normalise(claim_id)))
        if claim is None:
            raise KeyError(f"{paper}:{claim_id}")
        return claim

    def closest(self, claim_id: str, n: int = 3, paper: str | None = None) -> list[str]:
        many = len(self.papers) > 1
        names = {}
        for (p, k), c in self._claims.items():
            if paper is None or p == paper:
                names.setdefault(k, []).append(qualified_id(c) if many else c.id)
        close = difflib.get_close_matches(normalise(claim_id), list(names), n=n, cutoff=0.3)
        return [name for k in close for name in names[k]][:n]

    @classmethod
    def from_package(cls, package_name: str) -> "Registry":
        """Every module-level ``claim`` or ``claims`` in an importable package and its subpackages."""
        return _registry([load_module_pack(package_name, package_name)])

    @classmethod
    def of_loaded(cls, results: Sequence[tuple[str, str, "_Loaded"]]) -> "Registry":
        """Packs from what the loaders returned: (name, origin, loaded) triples."""
        return _registry(results)


def lock_key_clash(claims: Iterable[Claim]) -> str | None:
    """Why these claims cannot share one lockfile, or None.

    A lockfile names a check by (claim, part, reading), so two papers' claims with one id
    would be read as one check.
    """
    papers: dict[str, str] = {}
    for c in claims:
        other = papers.setdefault(normalise(c.id), c.paper)
        if other != c.paper:
            return (f"claim id {c.id!r} is in papers {other} and {c.paper}; one lockfile holds one claim per id: "
                    f"lock the packs apart (--pack PACK --lock FILE for each)")
    return None


# ---------------------------------------------------------------------------- loading packs
def installed_pack_names() -> list[str]:
    return sorted({ep.name for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)})


def load_installed(select: Callable[[importlib.metadata.EntryPoint], bool] = lambda ep: True) -> Registry:
    """Every pack registered under the entry-point group ``verifier.packs`` (or those ``select`` keeps)."""
    eps = sorted({ep.name: ep for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}.values(), key=lambda ep: ep.name)
    return _registry([load_module_pack(ep.name, ep.module) for ep in eps if select(ep)])


def load_packs(sources: Sequence[str], base: Path | None = None) -> Registry:
    """The packs named by ``sources``: paths (relative to ``base``) or names of installed packs."""
    base = Path.cwd() if base is None else base
    installed = {ep.name: ep for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}
    results = []
    for source in dict.fromkeys(str(s) for s in sources):
        path = base / Path(source).expanduser()
        if path.exists():
            results.append(load_path_pack(source, path.resolve()))
        elif source in installed:
            results.append(load_module_pack(source, installed[source].module))
        else:
            names = ", ".join(installed) or "none"
            problem = f"no such file or directory, and no installed pack of that name (installed: {names})"
            results.append((source, str(path), ((), [PackError(source, str(path), problem)])))
    return _registry(results)


_Loaded = tuple[tuple[tuple[str, Claim], ...], list[PackError]]  # ((module, claim), ...), errors


def _registry(results: Sequence[tuple[str, str, _Loaded]]) -> Registry:
    """Packs from (name, origin, loaded) triples; a claim id twice in one paper is an error, the first kept."""
    packs, errors = [], []
    owner: dict[tuple[str, str], str] = {}
    folders: dict[tuple[str, str], Claim] = {}
    for name, origin, (found, errs) in results:
        errors.extend(errs)
        kept, first_module = [], {}
        for module, claim in found:
            key = (claim.paper, normalise(claim.id))
            if key in first_module:
                errors.append(PackError(name, module, f"claim id {claim.id!r} is also defined in {first_module[key]}"))
            elif key in owner:
                errors.append(PackError(name, module, f"claim {qualified_id(claim)} is also defined by pack {owner[key]}"))
            elif folder_key(claim.paper, claim.id) in folders:
                errors.append(PackError(name, module, f"claim id {claim.id!r}: {shared_folder(folders[folder_key(claim.paper, claim.id)])}"))
            else:
                first_module[key] = module
                folders[folder_key(claim.paper, claim.id)] = claim
                kept.append(claim)
        for key in first_module:
            owner[key] = name
        if not found and not errs:
            errors.append(PackError(name, origin, "no claims found: a module needs `claim = Claim(...)` or `claims = [...]`"))
        packs.append(Pack(name, origin, tuple(kept)))
    return Registry(packs=packs, errors=errors)


def shared_folder(other: Claim) -> str:
    return (f"its folder of the counterexample store is {qualified_id(other)!r}'s on a file system that ignores case "
            "and Unicode composition (macOS, Windows): rename one")


def import_time_limit() -> float:
    """``IMPORT_TIME_LIMIT``, or the seconds ``VERIFY_IMPORT_TIME`` gives (a positive number)."""
    try:
        value = float(os.environ.get(IMPORT_TIME_ENV, IMPORT_TIME_LIMIT))
    except ValueError:
        return IMPORT_TIME_LIMIT
    return value if value > 0 and math.isfinite(value) else IMPORT_TIME_LIMIT


def load_module_pack(name: str, module_name: str):
    """An importable package (an installed pack): the package and every module under it."""
    return _import_module_pack(name, module_name)


def _import_module_pack(name: str, module_name: str):
    try:
        package = importlib.import_module(module_name)
    except (Exception, SystemExit) as exc:  # an author's module may do anything at import
        return name, module_name, ((), [PackError(name, module_name, _problem(exc))])
    return name, module_name, _collect(name, package, lambda m: m)


def _private_name(path: Path) -> str:
    return f"{PATH_PACK_PREFIX}{hashlib.sha1(str(path).encode()).hexdigest()[:12]}"


def load_path_pack(name: str, path: Path):
    """A package folder, a folder of modules or a ``.py`` file, imported under a private name."""
    return _import_path_pack(name, path)


def load_source_pack(name: str, module_name: str, text: str):
    """A pack module given as source text (a claim ``verify expr`` wrote), under a private name."""
    private = PATH_PACK_PREFIX + "source_" + hashlib.sha1(text.encode()).hexdigest()[:12]
    module = sys.modules.get(private)
    if module is None:
        module = types.ModuleType(private)
        module.__file__ = f"<{module_name}>"
        sys.modules[private] = module
        try:
            exec(compile(text, f"<{module_name}>", "exec"), module.__dict__)
        except (Exception, SystemExit) as exc:
            del sys.modules[private]
            return name, module_name, ((), [PackError(name, module_name, _problem(exc))])
    return name, module_name, _collect(name, module, lambda _: module_name)


def _import_path_pack(name: str, path: Path):
    private = _private_name(path)
    shown = path.stem if path.is_file() else path.name

    def display(module_name: str) -> str:
        return shown + module_name[len(private):]

    if path.is_file():
        if path.suffix != ".py":
            return name, str(path), ((), [PackError(name, path.name, "not a Python file (.py) or a folder")])
        spec = importlib.util.spec_from_file_location(private, path)
    elif (path / "__init__.py").exists():
        spec = importlib.util.spec_from_file_location(private, path / "__init__.py", submodule_search_locations=[str(path)])
    else:  # a folder of modules: a package without __init__, so relative imports between them work
        spec = importlib.machinery.ModuleSpec(private, None, is_package=True)
        spec.submodule_search_locations = [str(path)]
    module = sys.modules.get(private)
    if module is None:
        module = importlib.util.module_from_spec(spec)
        sys.modules[private] = module
        try:
            if spec.loader is not None:
                spec.loader.exec_module(module)
        except (Exception, SystemExit) as exc:
            del sys.modules[private]
            return name, str(path), ((), [PackError(name, display(private), _problem(exc))])
    return name, str(path), _collect(name, module, display)


def _collect(name: str, package: types.ModuleType, display: Callable[[str], str]) -> _Loaded:
    """The claims of a package and every module under it; a module that fails is an error, the rest load."""
    found: list[tuple[str, Claim]] = []
    errors: list[PackError] = []
    seen: set[int] = set()

    def take(module):
        for claim in _claims_in(module):
            if id(claim) not in seen:  # re-exported from another module of the pack
                seen.add(id(claim))
                found.append((display(module.__name__), claim))

    def walk(pkg):
        take(pkg)
        for info in pkgutil.iter_modules(getattr(pkg, "__path__", None) or [], prefix=pkg.__name__ + "."):
            try:
                module = importlib.import_module(info.name)
            except (Exception, SystemExit) as exc:
                errors.append(PackError(name, display(info.name), _problem(exc)))
                continue
            if info.ispkg:
                walk(module)
            else:
                take(module)

    walk(package)
    return tuple(found), errors


def _claims_in(module: types.ModuleType) -> list[Claim]:
    """``claim`` and ``claims`` of a module: only Claim objects count (a submodule named ``claims`` does not)."""
    names = vars(module)
    out = []
    single = names.get("claim")
    if isinstance(single, Claim):
        out.append(single)
    many = names.get("claims")
    if isinstance(many, (list, tuple)):
        out.extend(c for c in many if isinstance(c, Claim))
    return out


_VERIFIER_DIR = str(Path(__file__).resolve().parent)


def _problem(exc: BaseException) -> str:
    """One line: the exception and the last line of the author's code it passed through."""
    if isinstance(exc, SyntaxError) and exc.lineno:
        return f"SyntaxError: {exc.msg} ({Path(exc.filename or '?').name}, line {exc.lineno})"
    text = f"{type(exc).__name__}: {exc}".splitlines()[0] if str(exc) else type(exc).__name__
    where = None
    tb = exc.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if not filename.startswith(("<", _VERIFIER_DIR)) and "importlib" not in filename:
            where = f"{Path(filename).name}, line {tb.tb_lineno}"
        tb = tb.tb_next
    return f"{text} ({where})" if where else text


def _section_rank(claim_id: str) -> int:
    """Main-text ids (digits) before appendix ids (letters)."""
    return 0 if claim_id[:1].isdigit() else 1
