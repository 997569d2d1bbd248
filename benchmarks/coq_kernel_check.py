"""Kernel-checking the lock's evidence with coqc: time per counterexample and per proof, and for the whole pack.

    python benchmarks/coq_kernel_check.py [--jobs 2] [--lock claims.lock] [--no-proofs]

Every counterexample the lock cites is re-proved from the formula the lock pins beside it,
and every proof the lock records from its pinned certificate (as ``verify check --coq``
does).  Reports each file's status and coqc wall time, the share of proofs kernel-checked
per method, and the CPU time of all coqc processes together (user + sys): on a shared
machine the wall time measures the load, the CPU time measures the proofs.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from verifier.coq import kernel_check_locked  # noqa: E402
from verifier.coq.runner import kernel_check_locked_proofs  # noqa: E402
from verifier.kernel_evidence import pinned_files  # noqa: E402
from verifier.lock import read  # noqa: E402


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--lock", type=Path, default=Path("claims.lock"))
    parser.add_argument("--no-proofs", action="store_true")
    args = parser.parse_args()
    lock = read(args.lock)
    cpu, start = _cpu(), time.monotonic()
    checks = kernel_check_locked(pinned_files(lock), jobs=args.jobs)
    wall, used = time.monotonic() - start, _cpu() - cpu
    for k in checks:
        print(f"{k.status:15} {k.seconds:6.2f} s  {k.file}  {k.reason}")
    statuses = Counter(k.status for k in checks)
    print(f"{len(checks)} counterexamples: " + ", ".join(f"{n} {s}" for s, n in sorted(statuses.items())))
    print(f"wall {wall:.1f} s with --jobs {args.jobs}; coqc CPU {used:.1f} s; slowest file {max(k.seconds for k in checks):.1f} s wall")
    if args.no_proofs:
        return
    cpu, start = _cpu(), time.monotonic()
    proofs = kernel_check_locked_proofs(lock, jobs=args.jobs)
    wall, used = time.monotonic() - start, _cpu() - cpu
    methods = {e.key: e.proof.method for e in lock.entries if e.proof is not None}
    per_method: dict[str, Counter] = {}
    for c in proofs:
        k = c.check
        per_method.setdefault(methods.get(c.key, "?"), Counter())[k.status] += 1
        print(f"{k.status:15} {k.seconds:6.2f} s  proof of {c.key[0]} part {c.key[1]} [{c.key[2]}] ({methods.get(c.key)})  {k.reason}")
    checked = sum(c.check.kernel_checked for c in proofs)
    print(f"{checked} of {len(proofs)} proofs kernel-checked; per method: "
          + "; ".join(f"{m}: {n.get('kernel-checked', 0)} of {sum(n.values())}" for m, n in sorted(per_method.items())))
    print(f"wall {wall:.1f} s with --jobs {args.jobs}; coqc CPU {used:.1f} s")


if __name__ == "__main__":
    main()
