"""The candidates a search keeps between phases: the elite pool and the near-misses.

The elite pool feeds the target phase its start points; the near-misses (points float64
called violations that dps digits did not, and points equal to dps digits) feed the deep
phase.  Both are plain lists of ``(key, point, dims)`` so chunk results pickle and merge.
"""

from __future__ import annotations


class ElitePool:
    """The best-ranked candidates, by search key (smaller is closer to a violation)."""

    def __init__(self, size: int, entries=()):
        self.size = size
        self.entries: list[tuple[float, dict, dict]] = list(entries)

    def add(self, key: float, point: dict, dims: dict) -> None:
        self.entries.append((key, point, dims))
        self.entries.sort(key=lambda e: e[0])
        del self.entries[self.size * 4 :]

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

    def __init__(self, entries=()):
        self.entries: list[tuple[float, dict, dict]] = list(entries)

    def record(self, rel: float, exact_point: dict, dims: dict) -> None:
        self.entries.append((rel, exact_point, dict(dims)))

    def best(self, k: int) -> list[tuple[float, dict, dict]]:
        return sorted(self.entries, key=lambda t: t[0])[:k]
