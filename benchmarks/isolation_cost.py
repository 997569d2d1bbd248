"""What isolation costs a run: the same checks in-process and in an isolated worker, side by side.

    python benchmarks/isolation_cost.py [--seeds 3] [--repeat 3] [--cpu 0] [--json rows.json]

``verify all``, ``lemma``, ``lock`` and ``check`` hand their checks to ``run_checks``, which
runs them in a worker forked once for the run (:mod:`verifier.isolation`).  This script takes
the tasks of ``benchmarks/before_after.py`` (every refuted check of ``claims.lock`` plus C.2
part 1, each from seeds 0 .. seeds-1 at the default budget, without shrinking) and runs, in
turn, the whole list in-process (``run_check`` one after another) and through ``run_checks``
(one isolated worker for the list), ``--repeat`` times, alternating, on one CPU.

Per check, the time through ``run_checks`` is the time between its result and the one before
(so the fork at the start and the transfer of every result count); the ratio reported is the
median over checks of (isolated / in-process), each the median of the repeats, and the ratio
of the whole lists' wall times.  Results must be the same both ways (verdict, evaluations).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def checks_of(seeds: int):
    from lemmas import REGISTRY

    lock = json.loads((ROOT / "claims.lock").read_text(encoding="utf-8"))
    keys = [(c["claim"], c["part"], c["reading"]) for c in lock["checks"] if c["verdict"] == "refuted"]
    if ("C.2", "1", "as-printed") not in keys:
        keys.append(("C.2", "1", "as-printed"))
    checks = [REGISTRY.get(cid).checks(part=part, reading=reading)[0] for cid, part, reading in keys]
    return [(check, seed) for seed in range(seeds) for check in checks]


def in_process(tasks):
    from verifier.engine import SearchConfig, run_check

    out = []
    for check, seed in tasks:
        start = time.monotonic()
        r = run_check(check, SearchConfig(seed=seed, shrink=False))
        out.append((r.verdict.value, r.stats.evaluations, time.monotonic() - start))
    return out


def isolated(tasks):
    """One run_checks per seed (a run's checks share a config), timed between results."""
    from verifier.audit import run_checks
    from verifier.engine import SearchConfig

    out = []
    for seed in sorted({s for _, s in tasks}):
        checks = [c for c, s in tasks if s == seed]
        marks = [time.monotonic()]
        run = run_checks(checks, SearchConfig(seed=seed, shrink=False), on_result=lambda r: marks.append(time.monotonic()))
        out.extend((r.verdict.value, r.stats.evaluations, b - a) for r, a, b in zip(run.results, marks, marks[1:]))
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--cpu", type=int, default=None, help="run on this CPU (default: the first this process may use); -1: any")
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    cpu = args.cpu if args.cpu is not None else min(os.sched_getaffinity(0))
    if cpu >= 0:
        os.sched_setaffinity(0, {cpu})
    tasks = checks_of(args.seeds)
    in_process(tasks[:3])  # warm both ways alike: imports, caches
    runs = {"in-process": [], "isolated": []}
    walls = {"in-process": [], "isolated": []}
    load = [os.getloadavg()[0]]
    for k in range(args.repeat):
        order = [("in-process", in_process), ("isolated", isolated)]
        for name, fn in order if k % 2 == 0 else order[::-1]:
            start = time.monotonic()
            runs[name].append(fn(tasks))
            walls[name].append(time.monotonic() - start)
    load.append(os.getloadavg()[0])
    for a, b in zip(runs["in-process"][0], runs["isolated"][0]):
        assert a[:2] == b[:2], (a, b)
    ratios = []
    rows = []
    for i, (check, seed) in enumerate(tasks):
        here = statistics.median(run[i][2] for run in runs["in-process"])
        apart = statistics.median(run[i][2] for run in runs["isolated"])
        ratios.append(apart / here)
        rows.append({"check": f"{check.label} [{check.reading.name}]", "seed": seed, "in_process": here, "isolated": apart})
    wall = statistics.median(walls["isolated"]) / statistics.median(walls["in-process"])
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "walls": walls, "load": load}, indent=1))
    print(f"{len(tasks)} (check, seed) tasks x {args.repeat} repeats, CPU {cpu}, load (1 min) {load[0]:.1f} -> {load[1]:.1f}")
    print(f"median per-check time: in-process {statistics.median(r['in_process'] for r in rows) * 1000:.1f} ms, "
          f"isolated {statistics.median(r['isolated'] for r in rows) * 1000:.1f} ms")
    print(f"median of the per-check ratios isolated/in-process: {statistics.median(ratios):.3f}; "
          f"whole list (median wall): {wall:.3f} ({statistics.median(walls['in-process']):.1f} s in-process, "
          f"{statistics.median(walls['isolated']):.1f} s isolated)")


if __name__ == "__main__":
    main()
