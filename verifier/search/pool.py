"""The candidates a search keeps between phases: the elite pool and the near-misses.

The elite pool feeds the target phase its start points; the near-misses (points float64
called violations that dps digits did not, and points equal to dps digits) feed the deep
phase.  Both are plain lists of ``(key, point, dims)`` so chunk results pickle and merge.
"""

from __future__ import annotations

import bisect

import numpy as np

#: two points of the same dims closer than about this (relative to their size, in every
#: entry) lie in one basin: a local search from either finds the same thing
BASIN = 1e-3


def flat(point: dict) -> np.ndarray | None:
    """A point's entries as one float vector (None when they are not numbers float64 can hold)."""
    try:
        return np.concatenate([np.asarray(v, dtype=float).ravel() for v in point.values()] or [np.zeros(0)])
    except (TypeError, ValueError, OverflowError):
        return None


def _grid_cells(rows: np.ndarray) -> np.ndarray:
    """Grid cells of step BASIN in sign(x) log(1 + |x|), one row per point."""
    with np.errstate(invalid="ignore", over="ignore"):
        return np.round(np.sign(rows) * np.log1p(np.abs(rows)) / BASIN).astype(np.int64)


def basin_of(point: dict, dims: dict):
    """A hashable cell: entries on a grid of step BASIN in sign(x) log(1 + |x|), so about
    1e-3 absolute near 0 and 1e-3 relative far from it.  Points of one cell share a basin."""
    f = flat(point)
    if f is None or not np.all(np.isfinite(f)):
        return None
    return tuple(sorted(dims.items())), _grid_cells(f).tobytes()


def same_basin(p: dict, q: dict, dims: dict | None = None) -> bool:
    a = basin_of(p, dims or {})
    return a is not None and a == basin_of(q, dims or {})


class _Basins:
    """Entries (key, point, dims), sorted by key, at most ``limit``, one per basin: the best."""

    def __init__(self, limit: int):
        self.limit = limit
        self.entries: list[tuple[float, dict, dict]] = []
        self._cells: list = []
        self._keys: list[float] = []
        self._occupied: set = set()  # the cells in _cells other than None: a hash lookup, not a scan

    def _insert(self, entry: tuple) -> None:
        if not self._may_enter(entry[0]):
            return
        self._place(entry, basin_of(entry[1], entry[2]))

    def cells(self, k: int | None = None) -> list:
        """The basin cells of the first ``k`` entries (all by default), in entry order."""
        return list(self._cells[:k])

    def merge(self, entries, cells) -> None:
        """Entries another pool kept, with the cells it worked out for them (so none is worked out twice)."""
        for entry, cell in zip(entries, cells):
            if self._may_enter(entry[0]):
                self._place(entry, cell)

    def _may_enter(self, key: float) -> bool:
        """False when the pool is full and ``key`` is no better than the worst kept (whatever its basin)."""
        return len(self.entries) < self.limit or key < self._keys[-1]

    def _place(self, entry: tuple, cell) -> None:
        key = entry[0]
        if cell is not None and cell in self._occupied:
            i = self._cells.index(cell)
            if key >= self._keys[i]:
                return
            del self.entries[i], self._cells[i], self._keys[i]
            self._occupied.discard(cell)
        at = bisect.bisect_right(self._keys, key)
        self.entries.insert(at, entry)
        self._cells.insert(at, cell)
        self._keys.insert(at, key)
        if cell is not None:
            self._occupied.add(cell)
        if len(self.entries) > self.limit:
            self.entries.pop(), self._keys.pop()
            self._occupied.discard(self._cells.pop())


class ElitePool(_Basins):
    """The best-ranked candidates, by search key (smaller is closer to a violation), one per basin,
    and the best one of every dims seen.

    Distinct floats are not distinct starts: 32 slots once held 32 floats of one box corner,
    so the target phase ran one local search eight times.  Nor do the best keys give every
    size a start: where random points of a small size rank better than those of the largest
    (the claim fails only there, at one point), the small sizes filled every slot and the
    largest size never had a local search.  Each dims therefore keeps its own best point.
    """

    def __init__(self, size: int, entries=()):
        super().__init__(size * 4)
        self.size = size
        self.leaders: dict = {}  # dims (sorted items) -> the best entry of that dims
        for e in entries:
            self.add(*e)

    def add(self, key: float, point: dict, dims: dict) -> None:
        self._lead((key, point, dims))
        self._insert((key, point, dims))

    def _lead(self, entry: tuple) -> None:
        tag = tuple(sorted(entry[2].items()))
        held = self.leaders.get(tag)
        if held is None or entry[0] < held[0]:
            self.leaders[tag] = entry

    def merge_leaders(self, entries) -> None:
        """The best entry of each dims another pool kept."""
        for entry in entries:
            self._lead(entry)

    def add_rows(self, keys: np.ndarray, rows: np.ndarray, data: dict, dims: dict) -> None:
        """Rows ``rows`` of the batch ``data`` (same dims), in order, as ``add`` would take them.

        A batch's cells come from one array operation, and a row's point is copied out
        only once it enters: a search records a few dozen rows per batch, most of them
        no better than the worst kept once the pool is full.
        """
        try:
            matrix = np.concatenate([np.asarray(v[rows], dtype=float).reshape(len(rows), -1) for v in data.values()]
                                    or [np.zeros((len(rows), 0))], axis=1)
        except (TypeError, ValueError, OverflowError):
            for key, j in zip(keys, rows):
                self.add(float(key), {k: v[j : j + 1].copy() for k, v in data.items()}, dims)
            return
        finite = np.all(np.isfinite(matrix), axis=1)
        cells = _grid_cells(np.where(np.isfinite(matrix), matrix, 0.0))
        tag = tuple(sorted(dims.items()))
        held = self.leaders.get(tag)
        for n, (key, j) in enumerate(zip(keys, rows)):
            key = float(key)
            leads = held is None or key < held[0]
            if not (leads or self._may_enter(key)):
                continue
            entry = (key, {k: v[j : j + 1].copy() for k, v in data.items()}, dims)
            if leads:
                self.leaders[tag] = held = entry
            if self._may_enter(key):
                self._place(entry, (tag, cells[n].tobytes()) if finite[n] else None)

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
        leaders = sorted(self.leaders.values(), key=lambda e: e[0])
        seen = {(tuple(sorted(e[2].items())), round(e[0], 12)) for e in leaders}
        rest = []
        for key, point, dims in self.entries:
            tag = (tuple(sorted(dims.items())), round(key, 12))
            if tag not in seen:
                seen.add(tag)
                rest.append((key, point, dims))
        return (leaders + rest)[:k]


class NearMisses(_Basins):
    """Points float64 cannot settle, ranked by their relative margin at dps digits.

    The one place where ties and near-misses are recorded: the deep phase starts from the
    best of them, and whatever else wants to try nearby points (simple rationals near a tie,
    say) reads them here.
    """

    def __init__(self, entries=(), limit: int = 16):
        super().__init__(limit)
        for e in entries:
            self.record(*e)

    def record(self, rel: float, exact_point: dict, dims: dict) -> None:
        self._insert((rel, exact_point, dict(dims)))

    def best(self, k: int) -> list[tuple[float, dict, dict]]:
        """The ``k`` best near-misses, one per basin."""
        return self.entries[:k]
