"""The three commands of issue 28, timed as a user runs them.

    python benchmarks/expr_commands.py [--repeats 3]

Each command runs as a subprocess (``verify expr ... --json``), so the time includes Python's
start, the imports, parsing the statement into a claim (sympy, z3's consistency check), the
search at the default budget (200,000 evaluations), the certificate, the shrinker and the
proof attempt for a survivor.  Reported per command: the verdict, wall seconds and CPU
seconds of the child (user + system), median over the repeats, and the load average before
the runs (a busy machine stretches wall time, CPU time much less).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

COMMANDS = [
    ("nesbitt", [r"\frac{a}{b+c}+\frac{b}{c+a}+\frac{c}{a+b} \geq \frac{3}{2}", "--var", "a,b,c > 0"]),
    ("sum-on-simplex", ["a*b + b*c + c*a <= 3", "--var", "a,b,c >= 0", "--where", "a + b + c = 3"]),
    ("bernoulli-reversed", ["x**p <= 1 + p*(x - 1)", "--var", "x in [0, 4]", "--var", "p in [1, 2]"]),
]


def run_once(args):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "verifier", "expr", *args, "--json"], capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    verdicts = [item["verdict"] for item in json.loads(out.stdout)] if out.stdout.strip() else [f"exit {out.returncode}"]
    return wall, cpu, verdicts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    opts = parser.parse_args()
    print(f"load average before: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for name, args in COMMANDS:
        runs = [run_once(args) for _ in range(opts.repeats)]
        walls, cpus = [r[0] for r in runs], [r[1] for r in runs]
        print(f"{name:20s} {'/'.join(runs[0][2]):10s} wall {statistics.median(walls):6.2f} s   cpu {statistics.median(cpus):6.2f} s"
              f"   (wall {min(walls):.2f}-{max(walls):.2f})")


if __name__ == "__main__":
    main()
