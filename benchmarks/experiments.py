"""Run time and peak memory of the two experiments at their default (BERT-base / full sweep)
sizes, each in a fresh process so its peak resident memory is its own.

    python benchmarks/experiments.py                      # both, JSON on stdout
    python benchmarks/experiments.py rank-collapse --append benchmarks/results-experiments.json
    python benchmarks/experiments.py --kernels            # the operations, on 1 and 2 BLAS threads

The goals (issue 10): rank collapse at BERT-base (4 variants x 3 measures x 2 precisions)
under 2 minutes on 2 cores; the layer-collapse sweep under 5 minutes.  The load average is
recorded before and after each run, and the CPU time (user + system) next to the wall time:
on a shared machine the wall time says as much about the neighbours as about the code, the
CPU time far less (wall >= CPU / 2 on two cores; CPU / 2 is what an idle machine would give
if both cores stayed busy).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import subprocess
import sys
import time


def _run(kind, queue):
    from verifier.experiments import LayerCollapseConfig, RankCollapseConfig, run_layer_collapse, run_rank_collapse

    started = time.perf_counter()
    if kind == "rank-collapse":
        config = RankCollapseConfig()
        result = run_rank_collapse(config)
    else:
        config = LayerCollapseConfig()
        result = run_layer_collapse(config)
    wall = time.perf_counter() - started
    usage = resource.getrusage(resource.RUSAGE_SELF)
    row = {
        "experiment": kind,
        "seconds": round(wall, 2),
        "engine_seconds": round(result.seconds, 2),
        "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 2),
        "peak_rss_mib": round(usage.ru_maxrss / 1024, 1),
    }
    if kind == "rank-collapse":
        row["sweep_cpu_seconds"] = round(result.sweep_cpu_seconds, 2)
    queue.put(row)


def measure(kind: str) -> dict:
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    load_before = os.getloadavg()
    process = context.Process(target=_run, args=(kind, queue))
    process.start()
    row = queue.get()
    process.join()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()
    row.update(commit=commit or None, utc=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    row.update(cores=os.cpu_count(), load_average_before=[round(x, 2) for x in load_before],
               load_average_after=[round(x, 2) for x in os.getloadavg()])
    return row


def kernel_timings(repeats: int = 3) -> list[dict]:
    """Seconds per call of the operations the rank-collapse run is made of, at BERT-base's shape
    (32 sequences of 128 tokens, d = 768, 12 heads), on one and on two BLAS threads: why the run
    reshapes to one large GEMM, avoids the SVD and keeps every worker on one BLAS thread."""
    import numpy as np
    from threadpoolctl import threadpool_limits

    from verifier.experiments.rank_collapse import _rank_one_residual

    rng = np.random.default_rng(0)
    X = rng.standard_normal((32, 128, 768))
    W = rng.standard_normal((768, 768))
    q, k = (rng.standard_normal((32, 12, 128, 64)) for _ in range(2))
    heads = rng.standard_normal((144, 128 * 768))
    operations = {
        "stacked matmul (32 x 128 x 768) @ (768 x 768)": lambda: X @ W,
        "one GEMM (4096 x 768) @ (768 x 768)": lambda: X.reshape(-1, 768) @ W,
        "per-head scores (32 x 12 x 128 x 64) @ k^T": lambda: q @ np.swapaxes(k, -1, -2),
        "rank-1 residual of 32 matrices 128 x 768 by SVD": lambda: np.sqrt(np.sum(np.linalg.svd(X, compute_uv=False)[:, 1:] ** 2, axis=-1)),
        "rank-1 residual of 32 matrices 128 x 768 by the Gram matrix's top eigenvector": lambda: _rank_one_residual(X),
        "Gram matrix of 144 head outputs (144 x 98304)": lambda: heads @ heads.T,
    }
    rows = []
    for name, operation in operations.items():
        for threads in (1, 2):
            with threadpool_limits(limits=threads, user_api="blas"):
                operation()
                started = time.perf_counter()
                for _ in range(repeats):
                    operation()
                rows.append({"operation": name, "blas_threads": threads,
                             "seconds": round((time.perf_counter() - started) / repeats, 4)})
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("experiments", nargs="*", help="rank-collapse, layer-collapse (default: both).")
    parser.add_argument("--json", dest="json_path", help="Also write the rows to this file.")
    parser.add_argument("--append", dest="append_path", help="Also append the rows to the JSON list in this file.")
    parser.add_argument("--kernels", action="store_true", help="Instead, time the run's operations on one and two BLAS threads.")
    args = parser.parse_args(argv)
    if args.kernels:
        load_before = os.getloadavg()
        rows = kernel_timings()
        for row in rows:
            print(f"{row['seconds']:8.4f} s  {row['blas_threads']} thread(s)  {row['operation']}", file=sys.stderr)
        print(json.dumps({"load_average_before": load_before, "load_average_after": os.getloadavg(), "rows": rows}, indent=1))
        return 0
    unknown = set(args.experiments) - {"rank-collapse", "layer-collapse"}
    if unknown:
        parser.error(f"unknown experiment {sorted(unknown)[0]!r}; choose rank-collapse or layer-collapse")
    rows = []
    for kind in args.experiments or ["rank-collapse", "layer-collapse"]:
        row = measure(kind)
        rows.append(row)
        print(f"{kind}: {row['seconds']} s ({row['cpu_seconds']} s CPU), peak {row['peak_rss_mib']} MiB, load {row['load_average_before']} -> {row['load_average_after']}", file=sys.stderr)
    text = json.dumps(rows, indent=1)
    print(text)
    if args.json_path:
        with open(args.json_path, "w", encoding="utf-8") as out:
            out.write(text + "\n")
    if args.append_path:
        try:
            with open(args.append_path, encoding="utf-8") as existing:
                earlier = json.load(existing)
        except FileNotFoundError:
            earlier = []
        with open(args.append_path, "w", encoding="utf-8") as out:
            out.write(json.dumps(earlier + rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
