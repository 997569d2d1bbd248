"""How fast the command line answers: this tree against another, with z3's own command line as the yardstick.

    git archive <commit> | tar -x -C /tmp/before
    python benchmarks/startup.py --before /tmp/before --runs 7 [--json benchmarks/results-startup.json]

Each command runs as a whole process (start-up, imports, the work, exit), once under each tree
in turn (before, after, before, ...), ``--runs`` times; reported per command: the median CPU
seconds (user + system, the process and every child it waited for: the workers included) and
the median wall seconds, and the ratios after / before.  The yardstick is ``z3 -smt2`` on a
one-line problem: the per-call start-up of a solver's own command line.

Commands: ``verify --version``, ``--help``, ``list``; ``verify expr`` on Nesbitt's inequality (a
small polynomial claim: z3 proves it on its whole search domain, so the audit does not search it)
and on a false AM-GM twin (refuted by the search); ``verify lemma`` on a small polynomial pack claim.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PACK = '''
from verifier import Claim, Part, Scalar

claim = Claim(id="amgm2", title="AM-GM for two numbers", paper="startup", statement="x^2 + y^2 >= 2xy",
              dims=[], variables=[Scalar("x", lo=-10, hi=10), Scalar("y", lo=-10, hi=10)],
              parts=[Part("main", relation=">=", lhs=lambda ctx, v: v.x * v.x + v.y * v.y, rhs=lambda ctx, v: 2 * v.x * v.y)])
'''

NESBITT = r"\frac{a}{b+c}+\frac{b}{c+a}+\frac{c}{a+b} \geq \frac{3}{2}"

COMMANDS = {
    "--version": ["--version"],
    "--help": ["--help"],
    "list": ["list"],
    "expr (Nesbitt, true)": ["expr", NESBITT, "--var", "a,b,c > 0"],
    "expr (a^2 + b^2 >= 3ab, false)": ["expr", "a*a + b*b >= 3*a*b", "--var", "a,b in [0, 10]"],
    "lemma (small polynomial pack claim)": ["lemma", "amgm2", "--pack", "{pack}"],
}


def _timed(argv: list[str], cwd: Path) -> tuple[float, float, int]:
    """(CPU seconds of the process and its waited-for children, wall seconds, exit status)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    proc = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, proc.returncode


def _verify(tree: Path, args: list[str]) -> list[str]:
    code = f"import sys; sys.path.insert(0, {str(tree)!r}); from verifier.cli import main; sys.argv = ['verify', *sys.argv[1:]]; main()"
    return [sys.executable, "-c", code, *args]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--before", type=Path, required=True, help="a tree holding the verifier to compare against")
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        (cwd / "pack.py").write_text(PACK)
        (cwd / "one.smt2").write_text("(declare-const x Real)(assert (> (* x x) (- 1)))(check-sat)\n")
        z3 = shutil.which("z3") or str(Path(sys.executable).parent / "z3")
        samples = {"z3 -smt2 (one-line problem)": [_timed([z3, "-smt2", "one.smt2"], cwd) for _ in range(args.runs)]}
        for label, command in COMMANDS.items():
            command = [a.replace("{pack}", str(cwd / "pack.py")) for a in command]
            runs = {"before": [], "after": []}
            for k in range(args.runs + 1):  # the first pair warms the caches, and is not counted
                order = [("before", args.before), ("after", ROOT)]
                for name, tree in order if k % 2 == 0 else order[::-1]:
                    timed = _timed(_verify(tree, command), cwd)
                    if k:
                        runs[name].append(timed)
            for name in ("before", "after"):
                samples[f"{label} [{name}]"] = runs[name]
            b = [statistics.median(x[i] for x in runs["before"]) for i in (0, 1)]
            a = [statistics.median(x[i] for x in runs["after"]) for i in (0, 1)]
            rows.append({"command": label, "cpu_before": b[0], "cpu_after": a[0], "wall_before": b[1], "wall_after": a[1],
                         "exit_before": runs["before"][0][2], "exit_after": runs["after"][0][2]})
            print(f"{label}: CPU {b[0]:.2f} -> {a[0]:.2f} s, wall {b[1]:.2f} -> {a[1]:.2f} s", file=sys.stderr, flush=True)
        z3_cpu = statistics.median(x[0] for x in samples["z3 -smt2 (one-line problem)"])
        z3_wall = statistics.median(x[1] for x in samples["z3 -smt2 (one-line problem)"])
    load = os.getloadavg()[0]
    lines = [f"load (1 min) {load:.1f}; {args.runs} runs each, medians; z3 -smt2 on a one-line problem: CPU {z3_cpu:.3f} s, wall {z3_wall:.3f} s",
             "", "| command | CPU s before | CPU s after | after/before | wall s before | wall s after | exit before / after |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['command']} | {r['cpu_before']:.2f} | {r['cpu_after']:.2f} | {r['cpu_after'] / r['cpu_before']:.2f} | "
                     f"{r['wall_before']:.2f} | {r['wall_after']:.2f} | {r['exit_before']} / {r['exit_after']} |")
    print("\n".join(lines))
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "z3": {"cpu": z3_cpu, "wall": z3_wall}, "load": load, "runs": args.runs}, indent=1))


if __name__ == "__main__":
    main()
