"""The target phase's local search: the home-made evolution strategy against CMA-ES, side by side.

    python benchmarks/target_optimisers.py --seeds 5 --thin 10 --json rows.json

One process runs every task with ``SearchConfig(target="es")`` and then with
``target="cmaes"`` (CMA-ES from the ``cmaes`` package, IPOP restarts), task after task, so
the machine's load hits both alike.  Tasks: every refuted check of ``claims.lock`` (plus C.2
part 1 as printed) and ``--thin`` members of the thin-set family (:mod:`benchmarks.thin_sets`,
drawn from ``--family-seed``), each from seeds 0 .. seeds-1 at the default budget without
shrinking.  The generate phase is the same for both, so only runs that reach the target
phase can differ: the table shows the tasks where some run did.  Reported per task and
strategy: refuted runs, median evaluations to the first certificate (the whole budget when
none) and median seconds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.thin_sets import thin_set_claim  # noqa: E402

STRATEGIES = ("es", "cmaes")


def tasks(args):
    from lemmas import REGISTRY

    lock = json.loads((ROOT / "claims.lock").read_text(encoding="utf-8"))
    keys = [(c["claim"], c["part"], c["reading"]) for c in lock["checks"] if c["verdict"] == "refuted"]
    if ("C.2", "1", "as-printed") not in keys:
        keys.append(("C.2", "1", "as-printed"))
    out = [(f"{cid} {part} [{reading}]", REGISTRY.get(cid).checks(part=part, reading=reading)[0]) for cid, part, reading in keys]
    import numpy as np

    for member in np.random.default_rng(args.family_seed).integers(0, 10**6, size=args.thin):
        out.append((f"thin-set #{int(member)}", thin_set_claim(int(member)).checks()[0]))
    return out


def run(args):
    from verifier.engine import SearchConfig, run_check

    rows = []
    generate_budget = int(SearchConfig().budget * SearchConfig().generate_fraction)
    for label, check in tasks(args):
        for seed in range(args.seeds):
            for strategy in STRATEGIES:
                start = time.monotonic()
                r = run_check(check, SearchConfig(seed=seed, shrink=False, target=strategy))
                found = r.counterexample.found_by if r.counterexample is not None else None
                rows.append({"label": label, "seed": seed, "strategy": strategy, "verdict": r.verdict.value,
                             "evaluations": found.evaluations if found else r.stats.evaluations,
                             "reached_target": r.stats.evaluations > generate_budget,
                             "seconds": time.monotonic() - start})
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1))
        print(label, file=sys.stderr, flush=True)
    return rows


def report(rows) -> str:
    labels = list(dict.fromkeys(r["label"] for r in rows))
    lines = ["| check | refuted es | refuted cmaes | median evaluations es | median evaluations cmaes | median s es | median s cmaes |",
             "|---|---|---|---|---|---|---|"]
    totals = {s: [0, 0] for s in STRATEGIES}
    ratios = []
    for label in labels:
        mine = [r for r in rows if r["label"] == label]
        for s in STRATEGIES:
            rs = [r for r in mine if r["strategy"] == s]
            totals[s][0] += sum(r["verdict"] == "refuted" for r in rs)
            totals[s][1] += len(rs)
        if not any(r["reached_target"] for r in mine):
            continue
        cells = []
        for s in STRATEGIES:
            rs = [r for r in mine if r["strategy"] == s]
            cells.append((sum(r["verdict"] == "refuted" for r in rs), len(rs), statistics.median(r["evaluations"] for r in rs),
                          statistics.median(r["seconds"] for r in rs)))
        ratios.append(cells[1][3] / cells[0][3] if cells[0][3] else float("nan"))
        lines.append(f"| {label} | {cells[0][0]}/{cells[0][1]} | {cells[1][0]}/{cells[1][1]} | {cells[0][2]:,.0f} | {cells[1][2]:,.0f} | "
                     f"{cells[0][3]:.2f} | {cells[1][3]:.2f} |")
    lines.append("")
    lines.append("refuted runs: " + "; ".join(f"{s} {t[0]}/{t[1]}" for s, t in totals.items()) +
                 (f"; median time ratio cmaes/es over the tasks shown {statistics.median(ratios):.2f}" if ratios else ""))
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--thin", type=int, default=10, help="thin-set family members")
    p.add_argument("--family-seed", type=int, default=2026)
    p.add_argument("--json", type=Path, help="write the raw rows here")
    args = p.parse_args(argv)
    wall = time.monotonic()
    rows = run(args)
    print(report(rows))
    print(f"wall time {(time.monotonic() - wall) / 60:.1f} min")


if __name__ == "__main__":
    main()
