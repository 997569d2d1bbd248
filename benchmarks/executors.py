"""Executors side by side: boxes per second of a proof, chunks per second of a search.

    pip install -e '.[dask]'
    python benchmarks/executors.py [--rounds 2] [--json benchmarks/results-executors.json]

Each executor -- in-process, the forked process pool with 1 and 2 workers, a Dask
``LocalCluster`` with 1 and 2 worker processes (one thread each) -- takes the same two jobs:

* the branch-and-bound proof of Lemma B.2 at n = 3 on the README box (a in [-5, 5]^3,
  eps in [0.01, 2]): boxes examined per second;
* the search of Lemma B.2 at n <= 6 (the check survives, so the whole budget is spent),
  200,000 evaluations, seed 0: chunks (seed-addressed tasks) and evaluations per second.

Rounds interleave the executors, in reverse every other round (the machine is shared, so
its load hits all alike); the median over rounds is reported with the lowest and highest, and
the ``uptime`` load before and after.  Starting an executor
(forking a pool, starting a cluster, and a small warm-up search so that a spawned worker's
first imports are paid there) is timed on its own and not counted in the rates.
Every executor must give the same proof and the same search result: the run stops if not.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BOX = {"a": (Fraction(-5), Fraction(5)), "eps": (Fraction(1, 100), Fraction(2))}
EXECUTORS = [("serial", 1), ("process", 1), ("process", 2), ("dask-local", 1), ("dask-local", 2)]


class Counting:
    """An executor that counts the tasks it hands on."""

    def __init__(self, inner):
        self.inner, self.jobs, self.tasks = inner, inner.jobs, 0

    def ref(self, check):
        return self.inner.ref(check)

    def imap(self, fn, tasks):
        for result in self.inner.imap(fn, tasks):
            self.tasks += 1
            yield result


def open_executor(kind: str, workers: int):
    from verifier.runner import ForkedRunner as ProcessExecutor, SerialRunner as SerialExecutor
    from verifier.runner.dask import DaskRunner as DaskExecutor

    if kind == "serial":
        return SerialExecutor()
    if kind == "process":
        return ProcessExecutor(workers)
    return DaskExecutor.local(workers)


def prove_b2(executor):
    from lemmas import REGISTRY
    from verifier.prove import make_proof_box, prove

    check = REGISTRY.get("B.2").checks()[0]
    domain = make_proof_box(check, {"n": 3}, None, BOX)  # n = 2 is proved in 5 boxes since the jets improved; n = 3 takes 771
    start = time.monotonic()
    proof = prove(check, domain, "branch-and-bound", 120.0, executor=executor)
    seconds = time.monotonic() - start
    summary = (proof.result.verdict.value, proof.details.boxes_examined, proof.details.volume_proved)
    return summary, {"boxes": proof.details.boxes_examined, "seconds": seconds, "boxes_per_s": proof.details.boxes_examined / seconds}


def search_b2(executor):
    from lemmas import REGISTRY
    from verifier.engine import SearchConfig, run_check

    check = REGISTRY.get("B.2").checks()[0]
    counting = Counting(executor)
    start = time.monotonic()
    result = run_check(check, SearchConfig(seed=0, budget=200_000, time_limit=600.0), runner=counting)
    seconds = time.monotonic() - start
    summary = (result.verdict.value, dataclasses.astuple(result.stats))
    return summary, {"chunks": counting.tasks, "evaluations": result.stats.evaluations, "seconds": seconds,
                     "chunks_per_s": counting.tasks / seconds, "evaluations_per_s": result.stats.evaluations / seconds}


def warm_up(executor) -> None:
    """A small search, so that a spawned worker's imports count in its start, not in the rates."""
    from lemmas import REGISTRY
    from verifier.engine import SearchConfig, run_check

    for check in REGISTRY.get("B.2").checks()[:1] * executor.jobs:
        run_check(check, SearchConfig(seed=1, budget=4096, batch=1024, deep=False), runner=executor)


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> None:
    import lemmas, verifier.engine, verifier.runner, verifier.prove  # noqa: F401,E401  (imports are not an executor's start)

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--json", default=None, help="write the measurements here")
    args = ap.parse_args()
    load_before = uptime()
    print(load_before, file=sys.stderr)
    runs: dict[str, list[dict]] = {}
    reference: dict[str, tuple] = {}
    for round_ in range(args.rounds):
        order = EXECUTORS if round_ % 2 == 0 else EXECUTORS[::-1]
        for kind, workers in order:
            name = kind if kind == "serial" else f"{kind} {workers}"
            t0 = time.monotonic()
            executor = open_executor(kind, workers)
            warm_up(executor)
            started = time.monotonic() - t0
            try:
                row = {"executor": name, "round": round_ + 1, "start_s": started}
                for job, run in (("prove", prove_b2), ("search", search_b2)):
                    summary, figures = run(executor)
                    if reference.setdefault(job, summary) != summary:
                        raise SystemExit(f"{name}: the {job} result differs from the first executor's: {summary[:2]} vs {reference[job][:2]}")
                    row[job] = figures
            finally:
                executor.close()
            print(f"round {round_ + 1} {name:12} start {started:5.2f} s  proof {row['prove']['boxes_per_s']:7.1f} boxes/s "
                  f"({row['prove']['seconds']:.1f} s)  search {row['search']['chunks_per_s']:6.1f} chunks/s "
                  f"{row['search']['evaluations_per_s']:9.0f} evals/s ({row['search']['seconds']:.1f} s)", file=sys.stderr, flush=True)
            runs.setdefault(name, []).append(row)
    load_after = uptime()
    print(load_after, file=sys.stderr)

    def spread(rows, job, key, fmt):
        values = sorted(r[job][key] if job else r[key] for r in rows)
        return f"{fmt(statistics.median(values))} ({fmt(values[0])}-{fmt(values[-1])})" if len(values) > 1 else fmt(values[0])

    print(f"median of {args.rounds} rounds (lowest-highest)\n")
    print("| executor | start + warm-up, s | proof B.2 n=3: boxes/s | search B.2: chunks/s | search: evaluations/s |")
    print("|---|---|---|---|---|")
    for name, rows in runs.items():
        print(f"| {name} | {spread(rows, None, 'start_s', lambda v: f'{v:.1f}')} | {spread(rows, 'prove', 'boxes_per_s', lambda v: f'{v:.0f}')} | "
              f"{spread(rows, 'search', 'chunks_per_s', lambda v: f'{v:.1f}')} | {spread(rows, 'search', 'evaluations_per_s', lambda v: f'{v / 1000:.0f}k')} |")
    first = next(iter(runs.values()))[0]
    print(f"\nproof: {reference['prove'][0]}, {reference['prove'][1]} boxes; search: {reference['search'][0]}, "
          f"{first['search']['chunks']} chunks, {first['search']['evaluations']:,} evaluations; the same on every executor")
    if args.json:
        Path(args.json).write_text(json.dumps({"load_before": load_before, "load_after": load_after, "rounds": args.rounds,
                                               "runs": runs}, indent=1) + "\n")


if __name__ == "__main__":  # the Dask workers are spawned: they import this file without running it
    main()
