"""Before and after, side by side in one run: the engine of another tree against this one.

    git archive <commit> | tar -x -C /tmp/before
    python benchmarks/before_after.py --before /tmp/before --seeds 5 --thin 5 --json benchmarks/before_after.json

    python benchmarks/before_after.py --pipeline --before /tmp/before --json benchmarks/results-pipeline.json

``--pipeline`` compares what a user sees instead of one engine call: ``verify all --json`` of each
tree -- the whole pipeline, search, certificates, shrinking and proofs -- on the paper's pack,
the second pack (``examples/attention-classics``) and a pack of ``--thin`` seeded thin-set
members, and lists every (claim, part, reading) whose verdict, counterexample (dims, inputs,
lhs, rhs, method, certificate) or proof (status, domain, method) differs.

Two worker processes, one importing the ``verifier`` of ``--before`` and one this tree's,
take the same tasks in turn (so the machine's load hits both alike): every refuted check of
``claims.lock`` (plus C.2 part 1 as printed) and ``--thin`` members of the thin-set family
(:mod:`benchmarks.thin_sets`, drawn from ``--family-seed``), each from seeds 0 .. seeds-1 at
the default budget without shrinking.  Reported: refuted runs per engine, and per check the
median seconds of each and their ratio (after / before).  ``--repeat R`` times each (check,
seed) R times per engine, alternating, and counts the median: checks that take a few
milliseconds move by +-30 % from one run to the next otherwise.  Both workers run on one
CPU (``--cpu``): on this 2-core virtual machine a worker the OS kept on the slower core was
up to 2x slower for a whole run, whatever the engine.
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


def _thin_module():
    spec = importlib.util.spec_from_file_location("thin_sets", ROOT / "benchmarks" / "thin_sets.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def worker(tree: str, cpu: int | None = None) -> None:
    """Answer tasks from stdin, one JSON line each, with the engine of ``tree`` (on ``cpu`` if given)."""
    if cpu is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {cpu})
    sys.path.insert(0, tree)
    from lemmas import REGISTRY
    from verifier.engine import SearchConfig, run_check

    thin = _thin_module()
    for line in sys.stdin:
        task = json.loads(line)
        try:
            if task["kind"] == "thin":
                check = thin.thin_set_claim(task["member"]).checks()[0]
            else:
                check = REGISTRY.get(task["claim"]).checks(part=task["part"], reading=task["reading"])[0]
        except Exception as exc:  # a check added since that tree (a new reading): nothing to compare
            print(json.dumps({"missing": f"{type(exc).__name__}: {exc}"}), flush=True)
            continue
        start = time.monotonic()
        r = run_check(check, SearchConfig(seed=task["seed"], shrink=False))
        found = r.counterexample.found_by if r.counterexample is not None else None
        print(json.dumps({"verdict": r.verdict.value, "evaluations": r.stats.evaluations,
                          "seconds": time.monotonic() - start, "phase": found.phase if found else None}), flush=True)


def tasks(args):
    lock = json.loads((ROOT / "claims.lock").read_text(encoding="utf-8"))
    keys = [(c["claim"], c["part"], c["reading"]) for c in lock["checks"] if c["verdict"] == "refuted"]
    if ("C.2", "1", "as-printed") not in keys:
        keys.append(("C.2", "1", "as-printed"))
    out = []
    for cid, part, reading in keys:
        out.append(({"kind": "pack", "claim": cid, "part": part, "reading": reading}, f"{cid} {part} [{reading}]"))
    import numpy as np

    for member in np.random.default_rng(args.family_seed).integers(0, 10**6, size=args.thin):
        out.append(({"kind": "thin", "member": int(member)}, f"thin-set #{int(member)}"))
    return out


FAMILY_PACK = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("thin_sets", {thin!r})
thin = importlib.util.module_from_spec(spec)
spec.loader.exec_module(thin)
claims = [thin.thin_set_claim(m) for m in {members!r}]
"""

#: what must not move when only the architecture moves: the fields a reader is shown
_COUNTEREXAMPLE = ("dims", "vars", "lhs", "rhs", "method", "certificate")
_PROOF = ("status", "domain", "method")


def _pipeline_rows(tree: Path, pack_args: list[str], cwd: Path) -> dict:
    code = (f"import sys; sys.path.insert(0, {str(tree)!r}); from verifier.cli import main; "
            f"sys.argv = ['verify', 'all', '--json', '--quick', *{pack_args!r}]; main()")
    proc = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=3600)
    if not proc.stdout.strip():
        raise SystemExit(f"{tree}: verify all {' '.join(pack_args)} printed no JSON (exit {proc.returncode}): {proc.stderr[-2000:]}")
    rows = {}
    for r in json.loads(proc.stdout):
        cx = r.get("counterexample") or {}
        proof = r.get("proof") or {}
        rows[f"{r['claim']} {r['part']} [{r['reading']}]"] = {
            "verdict": r["verdict"], "counterexample": {k: cx.get(k) for k in _COUNTEREXAMPLE} if cx else None,
            "proof": {k: proof.get(k) for k in _PROOF} if proof else None}
    return rows


def pipeline(args) -> None:
    """``verify all --json`` of both trees on each pack, compared field by field."""
    import numpy as np
    import tempfile

    members = [int(m) for m in np.random.default_rng(args.family_seed).integers(0, 10**6, size=args.thin)]
    with tempfile.TemporaryDirectory() as tmp:
        family = Path(tmp) / "thin_family.py"
        family.write_text(FAMILY_PACK.format(thin=str(ROOT / "benchmarks" / "thin_sets.py"), members=members))
        packs = {"the paper's pack": [], "attention-classics": ["--pack", str(ROOT / "examples" / "attention-classics" / "attention_classics")],
                 f"thin-set family ({len(members)} members)": ["--pack", str(family)]}
        out, lines = {}, ["| pack | checks | same | different |", "|---|---|---|---|"]
        for label, pack_args in packs.items():
            runs = {name: _pipeline_rows(tree, pack_args, Path(tmp)) for name, tree in (("before", args.before), ("after", ROOT))}
            keys = sorted(set(runs["before"]) | set(runs["after"]))
            differ = [k for k in keys if runs["before"].get(k) != runs["after"].get(k)]
            out[label] = {"checks": len(keys), "different": {k: {"before": runs["before"].get(k), "after": runs["after"].get(k)} for k in differ}}
            lines.append(f"| {label} | {len(keys)} | {len(keys) - len(differ)} | {len(differ)} |")
            for k in differ:
                print(f"{label}: {k}\n  before {runs['before'].get(k)}\n  after  {runs['after'].get(k)}", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    print("\n".join(lines))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--before", type=Path, help="a tree holding the engine to compare against")
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--thin", type=int, default=5, help="thin-set family members")
    p.add_argument("--family-seed", type=int, default=2026)
    p.add_argument("--cpu", type=int, default=None,
                   help="run both engines on this CPU (default: the first this process may use); -1: let the OS place them")
    p.add_argument("--repeat", type=int, default=1,
                   help="time each (check, seed) this many times per engine, alternating; a run counts its median")
    p.add_argument("--json", type=Path, help="write the raw rows here")
    p.add_argument("--pipeline", action="store_true", help="compare `verify all --json` of both trees (see above)")
    args = p.parse_args(argv)
    if args.pipeline:
        if args.before is None:
            p.error("--before is required")
        return pipeline(args)
    if args.worker:
        return worker(args.worker, None if args.cpu is None or args.cpu < 0 else args.cpu)
    if args.before is None:
        p.error("--before is required")
    cpu = args.cpu
    if cpu is None and hasattr(os, "sched_getaffinity"):
        # one CPU for both: on a shared (virtual) machine one core can run slower than the
        # other for minutes, and a worker the OS keeps there is slow for the whole run
        cpu = min(os.sched_getaffinity(0))
    engines = {}
    for name, tree in (("before", args.before), ("after", ROOT)):
        engines[name] = subprocess.Popen([sys.executable, __file__, "--worker", str(tree), "--cpu", str(-1 if cpu is None else cpu)],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd="/tmp")
    rows, skipped = [], []
    wall = time.monotonic()
    for task, label in tasks(args):
        for seed in range(args.seeds):
            replies = {name: [] for name in engines}
            for _ in range(max(1, args.repeat)):
                for name, proc in engines.items():
                    proc.stdin.write(json.dumps({**task, "seed": seed}) + "\n")
                    proc.stdin.flush()
                    replies[name].append(json.loads(proc.stdout.readline()))
            missing = [f"{name}: {r[0]['missing']}" for name, r in replies.items() if "missing" in r[0]]
            if missing:
                skipped.append(f"{label} ({'; '.join(missing)})")
                break
            for name, runs in replies.items():
                # the search is deterministic: repeats differ only in time
                assert len({(r["verdict"], r["evaluations"]) for r in runs}) == 1, (label, seed, name, runs)
                rows.append({"label": label, "seed": seed, "engine": name, **runs[0],
                             "seconds": statistics.median(r["seconds"] for r in runs),
                             "repeats": [r["seconds"] for r in runs]})
        else:
            if args.json:
                args.json.write_text(json.dumps(rows, indent=1))
            print(_line(label, rows), file=sys.stderr, flush=True)
    for line in skipped:
        print(f"skipped, not in both trees: {line}", file=sys.stderr)
    for proc in engines.values():
        proc.stdin.close()
        proc.wait()
    print(report(rows, time.monotonic() - wall))


def _line(label, rows):
    mine = [r for r in rows if r["label"] == label]
    parts = []
    for name in ("before", "after"):
        rs = [r for r in mine if r["engine"] == name]
        parts.append(f"{name} {sum(r['verdict'] == 'refuted' for r in rs)}/{len(rs)} median {statistics.median(r['seconds'] for r in rs):.2f} s")
    return f"{label}: " + "; ".join(parts)


def report(rows, wall) -> str:
    labels = list(dict.fromkeys(r["label"] for r in rows))
    lines = ["| check | refuted before | refuted after | median s before | median s after | ratio after/before |", "|---|---|---|---|---|---|"]
    ratios, lost, totals = [], [], {"before": 0, "after": 0}
    for label in labels:
        cells = {}
        for name in ("before", "after"):
            rs = [r for r in rows if r["label"] == label and r["engine"] == name]
            ok = sum(r["verdict"] == "refuted" for r in rs)
            totals[name] += ok
            cells[name] = (ok, len(rs), statistics.median(r["seconds"] for r in rs))
        ratio = cells["after"][2] / cells["before"][2] if cells["before"][2] > 0 else float("nan")
        ratios.append(ratio)
        if cells["after"][0] < cells["before"][0]:
            lost.append(label)
        lines.append(f"| {label} | {cells['before'][0]}/{cells['before'][1]} | {cells['after'][0]}/{cells['after'][1]} | "
                     f"{cells['before'][2]:.2f} | {cells['after'][2]:.2f} | {ratio:.2f} |")
    lines.append("")
    lines.append(f"refuted runs: before {totals['before']}, after {totals['after']}; checks with fewer refuted runs after: "
                 f"{', '.join(lost) or 'none'}; median of the per-check time ratios {statistics.median(ratios):.2f}; "
                 f"wall time {wall / 60:.1f} min")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
