"""Micro-benchmarks: batched float64 evaluation rate and certification time.

    python benchmarks/microbench.py [--claim 4.1] [--n 8] [--d 8] [--batch 4096] [--seconds 3]
    python benchmarks/microbench.py --tanh [--n 8] [--d 8]
    python benchmarks/microbench.py --contexts [--against /tmp/before] [--rounds 3]

Reports candidates per second per core of the *engine's* float path (sampling excluded,
the margin, its hypotheses and the engine's filtering included), and the time of
``Certifier(50).certify`` on a counterexample the search found.

``--tanh`` instead compares one claim written with ``ctx.tanh`` against the same claim
written with ``ctx.exp`` (tanh x = (e^2x - 1)/(e^2x + 1)): evaluation rate and a whole
search, so that a new function is known not to slow a claim down.

``--contexts`` times one evaluation of a pack claim in the object contexts (exact rationals,
``mpmath`` at 50 digits, balls at 200 bits) on the same sampled points, CPU milliseconds per
call.  With ``--against TREE`` a worker importing that tree's ``verifier`` and one importing
this tree's take the rounds in turn, so the machine's load hits both alike.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lemmas import REGISTRY  # noqa: E402
from verifier.certify import Certifier  # noqa: E402
from verifier.engine import SearchConfig, run_check, tune_allocator  # noqa: E402
from verifier.search.evaluate import ChunkSearch  # noqa: E402
from verifier.sampling import Sampler, exactify  # noqa: E402
from verifier.evidence import parse_exact  # noqa: E402
from benchmarks.baselines import Margin  # noqa: E402


def evaluation_rate(check, dims, batch, seconds):
    # rechecks and deep step off: this measures the float path (margin, hypotheses, filtering, elites) alone
    search = ChunkSearch(check, SearchConfig(seed=0, budget=10**12, time_limit=10**6, max_rechecks=0, deep=False), None)
    rng = np.random.default_rng(0)
    data = Sampler(check).sample(dims, rng, batch)
    search.evaluate(data, dims)  # warm-up
    rates, wall = [], []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        t, c = time.perf_counter(), time.process_time()
        search.evaluate(data, dims)
        # CPU time of this process: other work on the shared cores does not count against it
        rates.append(batch / max(time.process_time() - c, 1e-9))
        wall.append(batch / (time.perf_counter() - t))
    return statistics.median(rates), statistics.median(wall), len(rates)


def certification_time(check, repeats):
    r = run_check(check, SearchConfig(seed=0, shrink=False))
    cx = r.counterexample
    if cx is None:
        return None, None
    exact = {k: np.asarray(_nested(v), dtype=object)[None] for k, v in cx.vars.items()}
    from verifier.contexts import ExactContext

    ctx = ExactContext()
    exact = {k: ctx.asarray(v) for k, v in exact.items()}
    certifier = Certifier(50)
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        cert = certifier.certify(check, exact, cx.dims)
        times.append(time.perf_counter() - t)
    assert cert.violated
    return statistics.median(times), cx


def certification_time_at(check, dims, repeats):
    """Certify a float64 suspect at the given dims (53-bit entries, as the search meets them)."""
    rng = np.random.default_rng(1)
    margin = Margin(check)
    for _ in range(50):
        data = Sampler(check).sample(dims, rng, 2048)
        rel, suspect = margin.rel(data, dims)
        idx = np.nonzero(suspect)[0]
        for i in idx[np.argsort(rel[idx])][:5]:
            exact = exactify(check, data, int(i), dims)
            certifier = Certifier(50)
            if certifier.certify(check, exact, dims).violated:
                times = []
                for _ in range(repeats):
                    t = time.perf_counter()
                    certifier.certify(check, exact, dims)
                    times.append(time.perf_counter() - t)
                return statistics.median(times)
    return None


def soft_capping_claims():
    """Logit soft-capping ``|cap tanh(S / cap)| <= |S|`` entrywise over an n x d score
    matrix, once with ``ctx.tanh`` and once with ``ctx.exp``; false in the exp form only
    where overflow makes nan, so both search their whole budget."""
    from verifier.claims import Claim, Dim, Matrix, Part, Scalar

    def with_tanh(ctx, v):
        cap = v.cap[:, None, None]
        return ctx.max_all(ctx.abs(cap * ctx.tanh(v.S / cap)) - ctx.abs(v.S))

    def with_exp(ctx, v):
        cap = v.cap[:, None, None]
        e = ctx.exp(2 * v.S / cap)
        return ctx.max_all(ctx.abs(cap * (e - 1) / (e + 1)) - ctx.abs(v.S))

    def claim(name, fn):
        part = Part("main", fn, lambda ctx, v: 0)
        variables = (Scalar("cap", lo=1, hi=50), Matrix("S", "n", "d", lo=-30, hi=30))
        return Claim(name, name, "|cap tanh(S/cap)| <= |S|", variables, (Dim("n", 1, 8), Dim("d", 1, 8)), (part,))

    return claim("tanh", with_tanh), claim("exp", with_exp)


def compare_tanh(dims, batch, seconds, budget):
    rows = {}
    for claim in soft_capping_claims():
        check = claim.checks()[0]
        rate, wall, k = evaluation_rate(check, dims, batch, seconds)
        t = time.perf_counter()
        result = run_check(check, SearchConfig(seed=0, budget=budget))
        search_seconds = time.perf_counter() - t
        rows[claim.id] = (rate, search_seconds, result)
        print(f"{claim.id:5s} float64 evaluation, batch {batch}: {rate:,.0f} candidates per CPU-second "
              f"(median of {k}); search of {result.stats.evaluations:,} evaluations: {search_seconds:.2f} s, {result.verdict.value}")
    ratio = rows["tanh"][0] / rows["exp"][0]
    print(f"tanh / exp evaluation rate: {ratio:.2f} (search time exp / tanh: {rows['exp'][1] / rows['tanh'][1]:.2f})")
    return ratio


#: pack checks evaluated by ``--contexts``: elementwise, matrix, softmax, norm and exp claims
CONTEXT_CHECKS = (("4.1", "main", "as-printed"), ("5.1", "main", "as-printed"), ("B.4", "main", "midrange"),
                  ("C.1", "1", "attention"), ("D.7", "main", "as-printed"), ("eq9", "main", "as-printed"))


def context_points(points: int) -> list:
    """``points`` exact points per check of :data:`CONTEXT_CHECKS`, drawn by this tree's sampler.

    Every tree is timed on these same points (as ``[numerator, denominator]`` pairs), since
    another tree's sampler would draw others.
    """
    from flint import fmpq

    from verifier.sampling import exactify

    out = []
    for claim, part, reading in CONTEXT_CHECKS:
        check = REGISTRY.get(claim).checks(part=part, reading=reading)[0]
        dims = {d.name: min(d.hi, 4) for d in check.dims}
        data = Sampler(check).sample(dims, np.random.default_rng(0), 4 * points)
        drawn = []
        for i in range(4 * points):
            try:
                exact = exactify(check, data, i, dims)
            except ValueError:
                continue
            to_pair = np.frompyfunc(lambda q: [int(fmpq(q).p), int(fmpq(q).q)], 1, 1)
            drawn.append({k: [list(np.shape(v)), to_pair(np.asarray(v, dtype=object)).reshape(-1).tolist()] for k, v in exact.items()})
            if len(drawn) == points:
                break
        out.append([claim, part, reading, dims, drawn])
    return out


def context_times(tree: str, tasks: list) -> dict[str, float]:
    """CPU ms per ``check.evaluate`` in each object context, with the engine of ``tree``.

    Imports only what every tree since 95e3fcd has, so an older tree can be timed too.
    """
    sys.path.insert(0, tree)
    for name in [m for m in sys.modules if m == "verifier" or m.startswith(("verifier.", "lemmas"))]:
        del sys.modules[name]
    from flint import fmpq

    from lemmas import REGISTRY
    from verifier.contexts import BallContext, ExactContext, MPContext

    contexts = {"exact": ExactContext(), "mpmath": MPContext(50), "ball": BallContext(200)}
    spent = {name: [0.0, 0] for name in contexts}
    for claim, part, reading, dims, drawn in tasks:
        check = REGISTRY.get(claim).checks(part=part, reading=reading)[0]
        for point in drawn:
            exact = {}
            for k, (shape, pairs) in point.items():
                arr = np.empty(len(pairs), dtype=object)
                arr[:] = [fmpq(p, q) for p, q in pairs]
                exact[k] = arr.reshape(shape)
            for name, ctx in contexts.items():
                start = time.process_time()
                try:
                    with ctx.precision():  # as the engine of 95e3fcd converted; later trees scope it anyway
                        values = ctx.convert(exact)
                    check.evaluate(ctx, values, dims)
                except (ArithmeticError, ValueError):
                    pass  # leaving the rationals (exact) or the domain costs its time too
                spent[name][0] += time.process_time() - start
                spent[name][1] += 1
    return {name: 1e3 * t / max(k, 1) for name, (t, k) in spent.items()}


def compare_contexts(against: str | None, rounds: int, points: int) -> None:
    trees = {"this": str(Path(__file__).resolve().parent.parent)}
    if against:
        trees = {"before": str(Path(against).resolve()), **trees}
    tasks = json.dumps(context_points(points))
    rows: dict[str, list[dict[str, float]]] = {label: [] for label in trees}
    for r in range(rounds):
        for label, tree in trees.items():
            out = subprocess.run([sys.executable, __file__, "--context-worker", tree], input=tasks,
                                 check=True, capture_output=True, text=True).stdout
            rows[label].append(json.loads(out))
            print(f"round {r}, {label}: " + ", ".join(f"{k} {v:.2f} ms" for k, v in rows[label][-1].items())
                  + f"; load {os.getloadavg()[0]:.1f}", flush=True)
    medians = {label: {k: statistics.median(x[k] for x in runs) for k in runs[0]} for label, runs in rows.items()}
    for label, m in medians.items():
        print(f"{label:6s} median ms per evaluation: " + ", ".join(f"{k} {v:.2f}" for k, v in m.items()))
    if against:
        print("ratio this/before: " + ", ".join(f"{k} {medians['this'][k] / medians['before'][k]:.2f}" for k in medians["this"]))


def _nested(v):
    if isinstance(v, list):
        return [_nested(x) for x in v]
    return parse_exact(v)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--claim", default="4.1")
    p.add_argument("--n", type=int, default=8)
    p.add_argument("--d", type=int, default=8)
    p.add_argument("--batch", type=int, nargs="+", default=[1024, 2048, 4096, 16384])
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--default-malloc", action="store_true", help="measure without the engine's allocator tuning")
    p.add_argument("--tanh", action="store_true", help="compare a claim written with ctx.tanh against the same claim with ctx.exp")
    p.add_argument("--budget", type=int, default=SearchConfig.budget, help="search budget for --tanh")
    p.add_argument("--contexts", action="store_true", help="time evaluations in the object contexts")
    p.add_argument("--against", help="with --contexts: a tree to time side by side (git archive COMMIT | tar -x -C DIR)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--points", type=int, default=20, help="with --contexts: points per check")
    p.add_argument("--context-worker", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.context_worker:
        print(json.dumps(context_times(args.context_worker, json.loads(sys.stdin.read()))))
        return
    if args.contexts:
        print(f"# object-context evaluations, {args.points} points x {len(CONTEXT_CHECKS)} checks; load {os.getloadavg()}")
        compare_contexts(args.against, args.rounds, args.points)
        return
    if args.tanh:
        if not args.default_malloc:
            tune_allocator()
        print(f"# soft-capping claim at n = {args.n}, d = {args.d}; pid {os.getpid()}, load {os.getloadavg()}")
        compare_tanh({"n": args.n, "d": args.d}, args.batch[-1] if len(args.batch) == 1 else 4096, args.seconds, args.budget)
        return
    check = REGISTRY.get(args.claim).checks()[0]
    if not args.default_malloc:
        tune_allocator()  # as run_check does
    dims = {"n": args.n, "d": args.d}
    print(f"# {check.label} at n = {args.n}, d = {args.d}; pid {os.getpid()}, load {os.getloadavg()}")
    for b in args.batch:
        rate, wall, k = evaluation_rate(check, dims, b, args.seconds)
        print(f"float64 evaluation, batch {b}: {rate:,.0f} candidates per CPU-second ({wall:,.0f}/s wall; median of {k} batches, one core)")
    t = certification_time_at(check, dims, args.repeats)
    if t is not None:
        print(f"Certifier(50).certify on a float64 suspect at n = {args.n}, d = {args.d}: {t * 1e3:.2f} ms (median of {args.repeats})")
    t, cx = certification_time(check, args.repeats)
    if t is not None:
        print(f"Certifier(50).certify on the unshrunk counterexample (dims {dict(cx.dims)}): {t * 1e3:.2f} ms (median of {args.repeats})")


if __name__ == "__main__":
    main()
