"""Branch and bound, before and after, side by side in one run.

    git archive 9e8f030 | tar -x -C /tmp/prove-before
    python benchmarks/prove_bnb.py --before /tmp/prove-before [--jobs 2] [--json out.json]

Two worker processes, one importing the ``verifier`` of ``--before`` and one this tree's,
take the same proofs in turn (so the machine's load hits both alike): Lemma B.2 at n = 2 and
n = 3 on the README box (a in [-5, 5]^n, eps in [0.01, 2]) and Lemma 4.2 (intended) parts
(1)-(4) at n = 1 on the same box.  Reported per proof and engine: the verdict, seconds, boxes
examined, boxes per second, the share of the volume decided and volume decided per second,
with the load average (``uptime``) before and after (the machine is shared).  ``--jobs``
runs this tree's boxes on a process pool (the before tree has no executor).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOX = {"a": ("-5", "5"), "eps": ("1/100", "2")}
CASES = [
    ("B.2", "main", None, {"n": 2}, 60),
    ("B.2", "main", None, {"n": 3}, 60),
    ("4.2", "1", "intended", {"n": 1}, 20),
    ("4.2", "2", "intended", {"n": 1}, 20),
    ("4.2", "3", "intended", {"n": 1}, 20),
    ("4.2", "4", "intended", {"n": 1}, 20),
]


def worker(tree: str, jobs: int) -> None:
    """Answer proofs from stdin, one JSON line each, with the prover of ``tree``."""
    sys.path.insert(0, tree)
    import inspect

    from lemmas import REGISTRY
    from verifier.prove import make_proof_box, prove

    executor = None
    if jobs > 1 and "executor" in inspect.signature(prove).parameters:
        from verifier.runner import make_runner as make_executor

        executor = make_executor(jobs)
    for line in sys.stdin:
        task = json.loads(line)
        check = REGISTRY.get(task["claim"]).checks(part=task["part"], reading=task["reading"])[0]
        boxes = {k: (Fraction(lo), Fraction(hi)) for k, (lo, hi) in BOX.items()}
        domain = make_proof_box(check, task["dims"], None, boxes)
        kwargs = {"executor": executor} if executor is not None else {}
        start = time.monotonic()
        p = prove(check, domain, "branch-and-bound", task["time"], **kwargs)
        seconds = time.monotonic() - start
        d = p.details
        print(json.dumps({"verdict": p.result.verdict.value, "seconds": seconds, "boxes": d.boxes_examined,
                          "volume": d.volume_proved, "message": p.result.message}), flush=True)


def _load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="a tree of the verifier to compare against (git archive of a commit)")
    ap.add_argument("--jobs", type=int, default=1, help="workers for this tree's boxes")
    ap.add_argument("--only", default="", help="comma-separated claim ids (default: every case)")
    ap.add_argument("--json", default=None, help="write the rows here")
    args = ap.parse_args()
    engines = {"before": (args.before, 1), "after": (str(ROOT), args.jobs)}
    procs = {name: subprocess.Popen([sys.executable, __file__, "--worker", tree, str(jobs)], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": tree})
             for name, (tree, jobs) in engines.items()}
    only = set(filter(None, args.only.split(",")))
    rows = []
    load_before = _load()
    print(load_before, file=sys.stderr)
    for claim, part, reading, dims, limit in CASES:
        if only and claim not in only:
            continue
        task = {"claim": claim, "part": part, "reading": reading, "dims": dims, "time": limit}
        for name, proc in procs.items():
            proc.stdin.write(json.dumps(task) + "\n")
            proc.stdin.flush()
            out = json.loads(proc.stdout.readline())
            label = f"{claim} ({part}{', ' + reading if reading else ''}) {', '.join(f'{k}={v}' for k, v in dims.items())}"
            row = {"case": label, "engine": name, **out, "boxes_per_s": out["boxes"] / out["seconds"],
                   "volume_per_s": (out["volume"] or 0) / out["seconds"]}
            rows.append(row)
            print(f"{label:28} {name:6} {out['verdict']:12} {out['seconds']:7.2f} s {out['boxes']:7d} boxes "
                  f"{row['boxes_per_s']:8.1f} boxes/s  volume {100 * (out['volume'] or 0):7.3f} %  {100 * row['volume_per_s']:8.3f} %/s",
                  file=sys.stderr, flush=True)
    for proc in procs.values():
        proc.stdin.close()
        proc.wait()
    load_after = _load()
    print(load_after, file=sys.stderr)
    if args.json:
        Path(args.json).write_text(json.dumps({"load_before": load_before, "load_after": load_after, "jobs": args.jobs, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2], int(sys.argv[3]))
    else:
        main()
