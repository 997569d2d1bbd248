"""The candidates a search keeps between phases: the elite pool and the near-misses.

The elite pool feeds the target phase its start points; the near-misses (points float64
called violations that dps digits did not, and points equal to dps digits) feed the deep
phase.  Both are plain lists of ``(key, point, dims)`` so chunk results pickle and merge.
"""

from __future__ import annotations

import numpy as np

#: two points of the same dims closer than this (relative to their size, in every entry)
#: lie in one basin: a local search from either finds the same thing
BASIN = 1e-3


def same_basin(p: dict, q: dict) -> bool:
    for name, a in p.items():
        b = q[name]
        try:
            a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        except (TypeError, ValueError):
            return False
        if a.shape != b.shape:
            return False
        with np.errstate(invalid="ignore", over="ignore"):
            if not np.all(np.abs(a - b) <= BASIN * (1.0 + np.abs(a) + np.abs(b))):
                return False
    return True


def add_distinct(entries: list, entry: tuple, limit: int) -> None:
    """Insert ``entry`` (key, point, dims) keeping one entry per basin, the best, and at most ``limit``."""
    key, point, dims = entry
    for i, (k, p, d) in enumerate(entries):
        if d == dims and same_basin(p, point):
            if key < k:
                entries[i] = entry
                entries.sort(key=lambda e: e[0])
            return
    entries.append(entry)
    entries.sort(key=lambda e: e[0])
    del entries[limit:]


class ElitePool:
    """The best-ranked candidates, by search key (smaller is closer to a violation), one per basin.

    Distinct floats are not distinct starts: 32 slots once held 32 floats of one box corner,
    so the target phase ran one local search eight times.
    """

    def __init__(self, size: int, entries=()):
        self.size = size
        self.entries: list[tuple[float, dict, dict]] = []
        for e in entries:
            self.add(*e)

    def add(self, key: float, point: dict, dims: dict) -> None:
        add_distinct(self.entries, (key, point, dims), self.size * 4)

    def dims_hint(self, k: int) -> list[dict]:
        """The dims of the best entries, up to ``k`` distinct ones, best first."""
        out = []
        for _, _, dims in self.entries:
            if dims not in out:
                out.append(dims)
            if len(out) >= k:
                break
        return out

    def starts(self, k: int) -> list[tuple[float, dict, dict]]:
        """Up to ``k`` start points: the best entry of each dims first, then the rest by rank.

        One dims' basin can hold every elite (Lemma C.2 part 1: five of eight starts at one
        dims and none at the dims of the counterexample); a start per dims spreads the target phase.
        """
        out, seen = [], set()
        for key, point, dims in self.entries:
            tag = (tuple(sorted(dims.items())), round(key, 12))
            if tag in seen:
                continue
            seen.add(tag)
            out.append((key, point, dims))
        leaders, first = [], set()
        for e in out:
            d = tuple(sorted(e[2].items()))
            if d not in first:
                first.add(d)
                leaders.append(e)
        rest = [e for e in out if not any(e is l for l in leaders)]
        return (leaders + rest)[:k]


class NearMisses:
    """Points float64 cannot settle, ranked by their relative margin at dps digits.

    The one place where ties and near-misses are recorded: the deep phase starts from the
    best of them, and whatever else wants to try nearby points (simple rationals near a tie,
    say) reads them here.
    """

    def __init__(self, entries=(), limit: int = 16):
        self.limit = limit
        self.entries: list[tuple[float, dict, dict]] = []
        for e in entries:
            self.record(*e)

    def record(self, rel: float, exact_point: dict, dims: dict) -> None:
        add_distinct(self.entries, (rel, exact_point, dict(dims)), self.limit)

    def best(self, k: int) -> list[tuple[float, dict, dict]]:
        """The ``k`` best near-misses, one per basin."""
        return self.entries[:k]
