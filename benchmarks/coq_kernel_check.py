"""Kernel-checking the stored counterexamples with coqc: time per file and for the whole pack.

    python benchmarks/coq_kernel_check.py [--jobs 2] [--store counterexamples]

Reports each file's status and coqc wall time, the pack's wall time, and the CPU time of
all coqc processes together (user + sys): on a shared machine the wall time measures the
load, the CPU time measures the proofs.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lemmas import REGISTRY  # noqa: E402
from verifier.coq import kernel_check_files  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--store", type=Path, default=Path("counterexamples"))
    args = parser.parse_args()
    files = sorted(args.store.rglob("*.json"))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    checks = kernel_check_files(files, REGISTRY.find, jobs=args.jobs)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    for k in checks:
        print(f"{k.status:15} {k.seconds:6.2f} s  {k.file}  {k.reason}")
    statuses = [k.status for k in checks]
    print(f"{len(files)} files: " + ", ".join(f"{statuses.count(s)} {s}" for s in sorted(set(statuses))))
    print(f"wall {wall:.1f} s with --jobs {args.jobs}; coqc CPU {after.ru_utime - before.ru_utime:.1f} s user "
          f"+ {after.ru_stime - before.ru_stime:.1f} s sys; slowest file {max(k.seconds for k in checks):.1f} s wall")


if __name__ == "__main__":
    main()
