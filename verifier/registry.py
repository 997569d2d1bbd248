"""Finding claims by id: discovery of claim modules, id normalisation, closest matches."""

from __future__ import annotations

import difflib
import importlib
import pkgutil
import re
from typing import Iterable

from .claims import Claim

_KIND_WORDS = r"^(lemma|fact|definition|def|corollary|cor|theorem|thm|claim|proof-step|proofstep|step)\b[\s.:-]*"


class UnknownClaimError(KeyError):
    def __init__(self, query: str, suggestions: list[str]):
        self.query, self.suggestions = query, suggestions
        hint = f"; closest: {', '.join(suggestions)}" if suggestions else ""
        super().__init__(f"unknown claim id {query!r}{hint}")

    def __str__(self) -> str:
        return self.args[0]


def normalise(claim_id: str) -> str:
    """'Lemma B.2' -> 'b.2', 'Eq. (6)' -> 'eq6', '4.1' -> '4.1'."""
    text = claim_id.strip().lower()
    text = re.sub(_KIND_WORDS, "", text)
    text = re.sub(r"^(equation|eqn|eq)\b\.?", "eq", text)
    return re.sub(r"[^0-9a-z.]", "", text).strip(".")


def natural_key(claim_id: str):
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", claim_id.lower()) if t]


class Registry:
    def __init__(self, claims: Iterable[Claim] = ()):
        self._claims: dict[str, Claim] = {}
        for c in claims:
            self.add(c)

    def add(self, claim: Claim) -> None:
        key = normalise(claim.id)
        if key in self._claims:
            raise ValueError(f"claim id {claim.id!r} registered twice")
        self._claims[key] = claim

    def __iter__(self):
        return iter(sorted(self._claims.values(), key=lambda c: (_section_rank(c.id), natural_key(c.id))))

    def __len__(self):
        return len(self._claims)

    def get(self, claim_id: str) -> Claim:
        key = normalise(claim_id)
        if key in self._claims:
            return self._claims[key]
        raise UnknownClaimError(claim_id, self.closest(claim_id))

    def find(self, paper: str, claim_id: str) -> Claim:
        claim = self.get(claim_id)
        if paper and claim.paper and claim.paper != paper:
            raise KeyError(claim_id)
        return claim

    def closest(self, claim_id: str, n: int = 3) -> list[str]:
        ids = [c.id for c in self]
        key = normalise(claim_id)
        by_norm = {normalise(i): i for i in ids}
        close = difflib.get_close_matches(key, list(by_norm), n=n, cutoff=0.3)
        return [by_norm[c] for c in close]

    @classmethod
    def from_package(cls, package_name: str) -> "Registry":
        """Every module-level ``claim`` or ``claims`` in a package and its subpackages."""
        reg = cls()
        for c in discover(package_name):
            reg.add(c)
        return reg


def discover(package_name: str) -> list[Claim]:
    pkg = importlib.import_module(package_name)
    found: list[Claim] = []
    modules = [pkg]
    if hasattr(pkg, "__path__"):
        for info in pkgutil.walk_packages(pkg.__path__, prefix=pkg.__name__ + "."):
            modules.append(importlib.import_module(info.name))
    for mod in modules:
        single = getattr(mod, "claim", None)
        if isinstance(single, Claim):
            found.append(single)
        for c in getattr(mod, "claims", ()) or ():
            if isinstance(c, Claim):
                found.append(c)
    return found


def _section_rank(claim_id: str) -> int:
    """Main-text ids (digits) before appendix ids (letters)."""
    return 0 if claim_id[:1].isdigit() else 1
