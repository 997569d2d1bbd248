"""Tight claims, before and after: the share of true claims proved and the time per proof (issue 34).

    git archive 250fb82 | tar -x -C /tmp/prove-before
    python benchmarks/tight_claims.py --before /tmp/prove-before [--seeds 26] [--json out.json]

Two worker processes, one importing the ``verifier`` (and ``lemmas``) of ``--before`` and one
this tree's, take the same proofs in turn, so the machine's load hits both alike:

* ``nine``: the nine one-variable facts of issue 34 on their stated intervals (auto);
* ``one-variable``: the seeded family of tests/quality/tight_families.py, a function of the ctx
  table against its tangent at a random rational point, and its false twin (auto);
* ``polynomial``: polynomials with an equality case and their false twins (branch and bound
  alone: z3 decides them outright, which measures nothing here);
* ``pack``: every check of the paper's pack that ``claims.lock`` records a proof for, on its
  declared proof domain and box budget (auto), as ``verify lock`` proves it.

Reported per group and engine: true claims proved (share), false twins refuted, and CPU seconds
per proof (median and total), with the load average (``uptime``) before and after.  A proof's
time limit is 60 s; a true claim not proved counts as not proved whatever it decided.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FAMILIES = ROOT / "tests" / "quality" / "tight_families.py"
NINE = [
    ("tanh(x) <= x", "x - c.tanh(x)", [("x", "0", "3")]),
    ("sigmoid(x) <= 1/2 + x/4", "F(1, 2) + x / 4 - c.sigmoid(x)", [("x", "0", "4")]),
    ("log1p(x) <= x", "x - c.log1p(x)", [("x", "0", "3")]),
    ("sin(x) <= x", "x - c.sin(x)", [("x", "0", "3")]),
    ("lambertw(x) <= x", "x - c.lambertw(x)", [("x", "0", "3")]),
    ("expm1(x) >= x", "c.expm1(x) - x", [("x", "-2", "2")]),
    ("cos(x) >= 1 - x^2/2", "c.cos(x) - 1 + x * x / 2", [("x", "-3", "3")]),
    ("x^(1/2) >= x", "c.power(x, F(1, 2)) - x", [("x", "0", "1")]),
    ("x^p <= x", "x - c.power(x, p)", [("x", "0", "1"), ("p", "1", "2")]),
]


def worker(tree: str) -> None:
    """Answer proofs from stdin, one JSON line each, with the prover of ``tree``."""
    sys.path.insert(0, tree)
    from fractions import Fraction as F

    from verifier import Claim, Part, Scalar
    from verifier.prove import make_proof_box, prove

    spec = importlib.util.spec_from_file_location("tight_families", FAMILIES)
    families = sys.modules["tight_families"] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(families)
    registry = None
    for line in sys.stdin:
        task = json.loads(line)
        kind, method, max_boxes = task["kind"], "auto", 2500
        if kind == "nine":
            title, margin, variables = NINE[task["index"]]
            fn = eval(f"lambda c, v: (lambda x, p: {margin})(v.x, getattr(v, 'p', None))", {"F": F})  # noqa: S307 -- our table
            claim = Claim(id="fact", kind="property", paper="t", location="-", title=title, statement=title, dims=[],
                          variables=[Scalar(n, lo=F(lo), hi=F(hi)) for n, lo, hi in variables],
                          parts=[Part("main", lhs=fn, rhs=lambda c, v: 0, relation=">=")])
            check = claim.checks()[0]
            domain = make_proof_box(check, {}, None, {})
        elif kind in ("one-variable", "polynomial"):
            make = families.one_variable if kind == "one-variable" else families.polynomial
            tight = make(task["seed"])
            claim = tight.true if task["truth"] else tight.false
            check = claim.checks()[0]
            domain = make_proof_box(check, {}, None, {})
            method = "auto" if kind == "one-variable" else "branch-and-bound"
        else:
            if registry is None:
                from lemmas import REGISTRY as registry
                from verifier.proof_audit import ProofBudget, box_budget, domain_of
            check = registry.get(task["claim"]).checks(part=task["part"], reading=task["reading"])[0]
            domain = domain_of(check)
            max_boxes = box_budget(check, ProofBudget())
        wall, cpu = time.monotonic(), time.process_time()
        try:
            p = prove(check, domain, method, 60.0, max_boxes=max_boxes)
            verdict, message = p.result.verdict.value, p.result.message
        except Exception as exc:  # noqa: BLE001 -- a crash is a row, not the end of the benchmark
            verdict, message = "crashed", f"{type(exc).__name__}: {exc}"
        print(json.dumps({"verdict": verdict, "cpu": time.process_time() - cpu, "seconds": time.monotonic() - wall,
                          "message": message[:300]}), flush=True)


def _load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def _tasks(seeds: int) -> list[dict]:
    out = [{"kind": "nine", "index": k, "truth": True, "name": NINE[k][0]} for k in range(len(NINE))]
    for kind in ("one-variable", "polynomial"):
        for seed in range(seeds):
            for truth in (True, False):
                out.append({"kind": kind, "seed": seed, "truth": truth, "name": f"{kind} {seed}{'' if truth else ' (false twin)'}"})
    lock = json.loads((ROOT / "claims.lock").read_text())
    for c in lock["checks"]:
        if c.get("proof"):
            out.append({"kind": "pack", "claim": c["claim"], "part": c["part"], "reading": c["reading"], "truth": True,
                        "name": f"{c['claim']} {c['part']} [{c['reading']}]"})
    return out


def _summary(rows: list[dict], engine: str) -> dict:
    out = {}
    for kind in ("nine", "one-variable", "polynomial", "pack"):
        mine = [r for r in rows if r["task"]["kind"] == kind]
        true = [r[engine] for r in mine if r["task"]["truth"]]
        false = [r[engine] for r in mine if not r["task"]["truth"]]
        cpu = [r["cpu"] for r in true + false]
        out[kind] = {
            "true": len(true), "proved": sum(r["verdict"] == "proved" for r in true),
            "false": len(false), "refuted": sum(r["verdict"] == "refuted" for r in false),
            "wrongly proved": sum(r["verdict"] == "proved" for r in false),
            "cpu median": round(statistics.median(cpu), 3) if cpu else None, "cpu total": round(sum(cpu), 2),
            "proved cpu median": round(statistics.median([r["cpu"] for r in true if r["verdict"] == "proved"]), 3)
            if any(r["verdict"] == "proved" for r in true) else None,
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="a tree of the verifier to compare against (git archive of a commit)")
    ap.add_argument("--seeds", type=int, default=26, help="seeds per family (each with its false twin)")
    ap.add_argument("--only", default="", help="comma-separated groups: nine, one-variable, polynomial, pack")
    ap.add_argument("--json", default=None, help="write the rows and the summary here")
    args = ap.parse_args()
    engines = {"before": args.before, "after": str(ROOT)}
    procs = {name: subprocess.Popen([sys.executable, __file__, "--worker", tree], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    text=True, env={**os.environ, "PYTHONPATH": tree})
             for name, tree in engines.items()}
    only = set(filter(None, args.only.split(",")))
    tasks = [t for t in _tasks(args.seeds) if not only or t["kind"] in only]
    load_start = _load()
    rows = []
    for k, task in enumerate(tasks):
        row = {"task": task}
        order = ("before", "after") if k % 2 == 0 else ("after", "before")  # neither always first
        for name in order:
            proc = procs[name]
            proc.stdin.write(json.dumps(task) + "\n")
            proc.stdin.flush()
            row[name] = json.loads(proc.stdout.readline())
        rows.append(row)
        print(f"{task['name']:<40} before {row['before']['verdict']:<13} {row['before']['cpu']:7.2f} s   "
              f"after {row['after']['verdict']:<13} {row['after']['cpu']:7.2f} s", flush=True)
    for proc in procs.values():
        proc.stdin.close()
        proc.wait()
    for r in rows:
        r["cpu"] = r["before"]["cpu"]
    summary = {}
    for engine in ("before", "after"):
        for r in rows:
            r["cpu"] = r[engine]["cpu"]
        summary[engine] = _summary(rows, engine)
    load_end = _load()
    print(f"\nload at start: {load_start}\nload at end:   {load_end}")
    for kind in summary["after"]:
        b, a = summary["before"][kind], summary["after"][kind]
        if not a["true"] and not a["false"]:
            continue
        print(f"{kind:<13} true proved {b['proved']}/{b['true']} -> {a['proved']}/{a['true']};  false refuted "
              f"{b['refuted']}/{b['false']} -> {a['refuted']}/{a['false']} (wrongly proved {b['wrongly proved']} -> "
              f"{a['wrongly proved']});  CPU s per proof, median {b['cpu median']} -> {a['cpu median']}, total "
              f"{b['cpu total']} -> {a['cpu total']}")
    if args.json:
        Path(args.json).write_text(json.dumps({"load": [load_start, load_end], "summary": summary, "rows": rows}, indent=1))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2])
    else:
        main()
