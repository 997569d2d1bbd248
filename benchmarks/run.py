"""Search power and speed, side by side: this tool, Hypothesis, SciPy's differential
evolution and uniform random search, on the refuted checks of the registry's claim pack.

    python benchmarks/run.py --seeds 5 --out docs/benchmarks.md --json benchmarks/results.json
    python benchmarks/run.py --seeds 5 --claims 4.1 5.1       # only these claim ids

The refuted checks (claim, part, reading) are those the lock file (``claims.lock``, written
by ``verify lock``) records as refuted, plus ``--also`` (default: C.2 part 1 as printed,
which the tool refutes on other seeds but not on the lock's seed 0).  Coverage:

* the tool and uniform random search run on *every* refuted check;
* Hypothesis and differential evolution run on ONE representative reading per
  (claim, part): ``as-printed`` when it is refuted, else the first refuted reading
  (``--baselines-everywhere`` runs them on every check).

For every covered check and seed it measures the wall time to the first *certified*
counterexample and success within the budget.  The tool's time includes its certificate and
shrinking; the baselines' time stops at their first certified violation (Hypothesis's time
with its shrinking is reported separately).  Each baseline run is capped in wall time
(``--cap``; ``--long-cap`` for the ``--long`` claim ids, by default Lemma 5.1, the issue's
reference point).  Rows are written to ``--json`` after every run, so an interrupted run
can be reported with ``--from-json``.  Needs the ``bench`` extra (hypothesis, scipy).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import baselines  # noqa: E402
from lemmas import REGISTRY  # noqa: E402
from verifier.contexts import ExactContext  # noqa: E402
from verifier.engine import SearchConfig, run_check  # noqa: E402
from verifier.registry import UnknownClaimError  # noqa: E402
from verifier.results import Verdict  # noqa: E402
from verifier.evidence import parse_exact  # noqa: E402

METHODS = ("tool", "hypothesis", "scipy-de", "random")


def refuted_checks(ids, also, lock_path):
    """The refuted checks of the lock file (plus ``also``), in registry order."""
    lock = json.loads(lock_path.read_text(encoding="utf-8"))
    refuted = {(c["claim"], c["part"], c["reading"]) for c in lock["checks"] if c["verdict"] == "refuted"}
    for spec in also or ():
        try:
            cid, part, reading = spec.split(":")
        except ValueError:
            raise SystemExit(f"error: --also takes claim:part:reading, got {spec!r}") from None
        refuted.add((cid, part, reading))
    out = []
    for claim in REGISTRY:
        if ids and claim.id not in ids:
            continue
        out += [c for c in claim.checks() if c.key in refuted]
    unknown = set(ids or ()) - {c.claim.id for c in out}
    if unknown:
        raise SystemExit(f"error: no refuted check for claim id(s) {sorted(unknown)}")
    return out


def representatives(checks):
    """One check per (claim, part): the as-printed reading if refuted, else the first refuted."""
    chosen = {}
    for c in checks:
        k = (c.claim.id, c.part.name)
        if k not in chosen or (c.reading.name == "as-printed" and chosen[k].reading.name != "as-printed"):
            chosen[k] = c
    return [c for c in checks if chosen[(c.claim.id, c.part.name)] is c]


def run_tool(check, seed, budget):
    t0 = time.perf_counter()
    r = run_check(check, SearchConfig(seed=seed, budget=budget))
    seconds = time.perf_counter() - t0
    if r.verdict is not Verdict.REFUTED:
        return dict(ok=False, seconds=seconds, evaluations=r.stats.evaluations)
    cx = r.counterexample
    exact = {k: ExactContext().asarray(_nested(v)) for k, v in cx.vars.items()}
    return dict(ok=True, seconds=seconds, first_seconds=cx.found_by.seconds, phase=cx.found_by.phase,
                evaluations=cx.found_by.evaluations, size=baselines.size_of(exact, cx.dims))


def _nested(v):
    import numpy as np

    def conv(x):
        return [conv(y) for y in x] if isinstance(x, list) else parse_exact(x)

    return np.asarray(conv(v), dtype=object)[None] if isinstance(v, list) else np.asarray([parse_exact(v)], dtype=object)


def measure(plan, seeds, budget, hyp_examples, caps, save):
    """``plan``: (method, checks) in the order they run; ``caps``: check -> seconds."""
    rows = []
    for method, checks in plan:
        for check in checks:
            cap = caps(check, method)
            for seed in range(seeds):
                try:
                    res = function_of(method, check, seed, budget, hyp_examples, cap)
                except Exception as exc:  # a crash is a result to report, not the end of the run
                    res = dict(ok=False, seconds=0.0, error=f"{type(exc).__name__}: {exc}")
                res.update(check=check.label, seed=seed, method=method, cap=None if method == "tool" else cap)
                rows.append(res)
                print(json.dumps(res), file=sys.stderr, flush=True)
                save(rows)
    return rows


def function_of(method, check, seed, budget, hyp_examples, cap):
    if method == "tool":
        return run_tool(check, seed, budget)
    if method == "hypothesis":
        return baselines.hypothesis_search(check, seed, hyp_examples, cap)
    if method == "scipy-de":
        return baselines.differential_evolution(check, seed, budget, cap)
    return baselines.uniform_random(check, seed, budget, cap)


def machine():
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "unknown"
    try:
        kb = int(next(line for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal")).split()[1])
        mem = f"{kb / 2**20:.1f} GiB"
    except (OSError, StopIteration):
        pass
    import hypothesis
    import numpy
    import scipy

    return dict(nproc=os.cpu_count(), cpu=cpu, memory=mem, python=platform.python_version(), numpy=numpy.__version__,
                scipy=scipy.__version__, hypothesis=hypothesis.__version__, load=os.getloadavg())


def _median(xs):
    return statistics.median(xs) if xs else None


def _fmt_s(x):
    if x is None:
        return "—"
    return f"{x * 1000:.0f} ms" if x < 1 else f"{x:.2f} s"


def summarise(rows, plan=None):
    by = {}
    for r in rows:
        by.setdefault((r["check"], r["method"]), []).append(r)
    order = (plan or {}).get("checks") or list(dict.fromkeys(r["check"] for r in rows))
    reps = set((plan or {}).get("representatives") or order)
    out = []
    for check in order:
        entry = {"check": check, "representative": check in reps}
        for m in METHODS:
            rs = by.get((check, m), [])
            ok = [r for r in rs if r["ok"]]
            # failed seeds count at the time they used (a lower bound of their time): the median is over all seeds,
            # shown when more than half succeeded, and marked as a lower bound when any seed failed
            entry[m] = dict(ok=len(ok), runs=len(rs), median=_median([r["seconds"] for r in rs]) if len(ok) * 2 > len(rs) else None,
                            lower=len(ok) < len(rs), used=_median([r["seconds"] for r in rs]), cap=max((r.get("cap") or 0 for r in rs), default=None),
                            evals_used=_median([r["evaluations"] for r in rs if "evaluations" in r]),
                            median_ok=_median([r["seconds"] for r in ok]),
                            size=_median([r["size"][0] for r in ok if "size" in r]), digits=_median([r["size"][1] for r in ok if "size" in r]))
            if m == "hypothesis":
                entry[m]["median_shrunk"] = _median([r["seconds_with_shrink"] for r in ok])
            if m == "tool":
                entry[m]["phases"] = sorted({f'{r["phase"]}' for r in ok})
                entry[m]["evals"] = _median([r["evaluations"] for r in ok])
                entry[m]["first"] = _median([r["first_seconds"] for r in ok])
                entry[m]["failed_seeds"] = sorted(r["seed"] for r in rs if not r["ok"])
        out.append(entry)
    return out


def _cell(x):
    if not x["runs"]:
        return "not run"
    if x["median"] is None:
        return f"— ({x['ok']}/{x['runs']})"
    return f"{'≥ ' if x['lower'] else ''}{_fmt_s(x['median'])} ({x['ok']}/{x['runs']})"


def _ratio(e, m):
    """Baseline median / tool median; a lower bound ("> ") when the baseline failed on most seeds."""
    t, x = e["tool"], e[m]
    if not x["runs"] or not t["median"]:
        return "—"
    if x["median"] is not None:
        return f"{'≥ ' if x['lower'] else ''}{x['median'] / t['median']:.1f}×"
    if x["cap"] and x["used"] < 0.99 * x["cap"]:
        return "fails"  # stopped by its budget, not by the cap: no time to compare
    return f"> {math.floor(x['used'] / t['median'])}×"  # rounded down: a lower bound


def markdown(summary, info, args, wall, plan=None):
    plan = plan or {}
    lines = []
    add = lines.append
    add("Generated by `benchmarks/run.py`; the numbers are from one run on the machine described.\n")
    add("### Machine and conditions\n")
    add(f"- `nproc` = {info['nproc']}; CPU: {info['cpu']}; memory: {info['memory']}")
    add(f"- Python {info['python']}, numpy {info['numpy']}, scipy {info['scipy']}, hypothesis {info['hypothesis']}")
    add(f"- load average at start: {', '.join(f'{x:.2f}' for x in info['load'])}. **Caveat:** another engineer's search ran on "
        "the same 2 cores during this run (about one core busy), so absolute times are noisy (ratios less so); every method ran "
        "serially in the same process, one after another, under the same conditions.")
    add(f"- total wall time of the run: {wall:.0f} s\n")
    add("### Command and coverage\n")
    add(f"    python benchmarks/run.py {' '.join(args)}\n")
    if plan:
        add(f"- {len(plan['checks'])} refuted checks (claim, part, reading), {plan['seeds']} seeds each (0–{plan['seeds'] - 1}).")
        add(f"- The tool and uniform random search ran on all {len(plan['checks'])}; Hypothesis and SciPy DE on the "
            f"{len(plan['representatives'])} representatives, one reading per (claim, part): `as-printed` when refuted, "
            "else the first refuted reading (marked **bold** below).")
        add(f"- Budgets: the tool, DE and random search {plan['budget']:,} float64 evaluations; Hypothesis "
            f"{plan['hypothesis_examples']:,} examples. Wall-time cap per baseline run: {plan['cap']:g} s, except Hypothesis on claim(s) "
            f"{', '.join(plan['long'] or [])}: {plan['long_cap']:g} s (the issue's reference point). Hypothesis's shrinking runs inside the same cap. The tool runs with its "
            "default configuration (`SearchConfig()`: its own 60 s time limit, never reached here).\n")
    reps = [e for e in summary if e["representative"]]
    add("### Headline: time to the first certified counterexample, median over seeds (successes/seeds)\n")
    add("Representatives only (all four methods). The tool's time includes its certificate and shrinking; *tool, first hit* "
        "is when its first certificate succeeded (before shrinking). Baselines stop at their first certified violation "
        "(their float64 suspects go through the same `Certifier(50)`); Hypothesis with its own shrinking is in its own "
        "column. A median is shown only when more than half of the seeds succeeded; failed seeds count at the time they "
        "used, so a median marked ≥ is a lower bound. Ratio = baseline median / tool median; `> N×` when the baseline "
        "failed on most seeds (N from the time it used before the cap or budget stopped it).\n")
    add("| check | tool | tool, first hit | Hypothesis | ratio | Hyp. + shrink | SciPy DE | ratio | random | ratio |")
    add("|---|---|---|---|---|---|---|---|---|---|")
    for e in reps:
        t = e["tool"]
        add(f"| {e['check']} | {_cell(t)} | {_fmt_s(t.get('first'))} | {_cell(e['hypothesis'])} | {_ratio(e, 'hypothesis')} | "
            f"{_fmt_s(e['hypothesis'].get('median_shrunk'))} | {_cell(e['scipy-de'])} | {_ratio(e, 'scipy-de')} | "
            f"{_cell(e['random'])} | {_ratio(e, 'random')} |")
    add("\n### Every refuted check: the tool and uniform random search\n")
    add("| check | tool | tool, first hit | found by (median evals) | failed seeds | random | ratio |")
    add("|---|---|---|---|---|---|---|")
    for e in summary:
        t = e["tool"]
        name = f"**{e['check']}**" if e["representative"] else e["check"]
        found = ", ".join(t.get("phases", [])) + (f" ({t['evals']:,.0f})" if t.get("evals") else "")
        failed = ", ".join(map(str, t["failed_seeds"])) or "none"
        add(f"| {name} | {_cell(t)} | {_fmt_s(t.get('first'))} | {found} | {failed} | {_cell(e['random'])} | {_ratio(e, 'random')} |")
    add("\n### Size of the counterexample shown (median over successful seeds)\n")
    add("Dimensions = sum of the dims; digits = bits of numerators and denominators over all entries "
        "(the shrinker's measure). The tool's counterexample is shrunk; Hypothesis's is its shrinker's final example; "
        "DE's and random search's are unshrunk.\n")
    add("| check | tool dims | tool digits | Hypothesis dims | Hypothesis digits | DE digits | random digits |")
    add("|---|---|---|---|---|---|---|")
    for e in reps:
        def v(m, k):
            x = e[m][k]
            return "—" if x is None else f"{x:g}"

        add(f"| {e['check']} | {v('tool', 'size')} | {v('tool', 'digits')} | {v('hypothesis', 'size')} | {v('hypothesis', 'digits')} | "
            f"{v('scipy-de', 'digits')} | {v('random', 'digits')} |")
    add("\n### Totals\n")
    for m, label in (("tool", "tool"), ("hypothesis", "Hypothesis"), ("scipy-de", "SciPy DE"), ("random", "uniform random")):
        for name, group in (("representatives", reps), ("all refuted checks", summary)):
            runs = [e[m] for e in group if e[m]["runs"]]
            if not runs or (name != "representatives" and len(runs) == len([e for e in reps if e[m]["runs"]])):
                continue
            full = sum(1 for x in runs if x["ok"] == x["runs"])
            add(f"- {label}, {name}: {sum(x['ok'] for x in runs)}/{sum(x['runs'] for x in runs)} runs succeeded; "
                f"{full}/{len(runs)} checks found on every seed.")
    add("")
    return "\n".join(lines)


BEGIN, END = "<!-- benchmarks/run.py: begin -->", "<!-- benchmarks/run.py: end -->"


def splice(path: Path, report: str) -> str:
    """Replace the generated section of an existing report, keeping the hand-written rest."""
    block = f"{BEGIN}\n{report}\n{END}"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return block + "\n"
    if BEGIN in text and END in text:
        return text[: text.index(BEGIN)] + block + text[text.index(END) + len(END) :]
    return block + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--claims", nargs="*", help="claim ids (default: every claim with a refuted check)")
    p.add_argument("--lock", type=Path, default=ROOT / "claims.lock", help="which checks are refuted")
    p.add_argument("--also", nargs="*", default=["C.2:1:as-printed"], metavar="CLAIM:PART:READING",
                   help="refuted checks the lock's seed-0 run does not refute")
    p.add_argument("--budget", type=int, default=SearchConfig.budget, help="float64 evaluations for the tool, DE and random search")
    p.add_argument("--hypothesis-examples", type=int, default=100_000)
    p.add_argument("--cap", type=float, default=20.0, help="seconds per baseline run")
    p.add_argument("--long", nargs="*", default=["5.1"], help="claim ids whose Hypothesis runs get --long-cap")
    p.add_argument("--long-cap", type=float, default=90.0)
    p.add_argument("--baselines-everywhere", action="store_true",
                   help="run Hypothesis and DE on every refuted check, not one reading per (claim, part)")
    p.add_argument("--only", nargs="*", metavar="LABEL", help="keep only the checks with these labels, e.g. '5.1 [midrange]'")
    p.add_argument("--methods", nargs="*", default=list(METHODS), choices=METHODS)
    p.add_argument("--out", type=Path, help="write the markdown report here")
    p.add_argument("--json", type=Path, help="write the raw rows here (after every run)")
    p.add_argument("--reuse", type=Path, help="take the rows of methods not run now from this earlier --json file "
                   "(e.g. re-run only --methods tool after an engine change)")
    p.add_argument("--from-json", type=Path, help="measure nothing: rebuild the report from an earlier --json file")
    args = p.parse_args(argv)
    from verifier.safe_files import write_atomic

    if args.from_json:
        stored = json.loads(args.from_json.read_text(encoding="utf-8"))
        report = markdown(summarise(stored["rows"], stored.get("plan")), stored["machine"], stored.get("command", ["?"]),
                          stored.get("wall", 0.0), stored.get("plan"))
        if args.out:
            write_atomic(args.out, splice(args.out, report))
        print(report)
        return
    t0 = time.perf_counter()
    info = machine()
    command = sys.argv[1:] if argv is None else list(argv)
    checks = refuted_checks(args.claims, args.also, args.lock)
    if args.only:
        checks = [c for c in checks if c.label in args.only]
    reps = checks if args.baselines_everywhere else representatives(checks)
    everywhere = {"tool", "random"}
    order = ("tool", "random", "hypothesis", "scipy-de")  # cheap ones first: an interrupted run still covers them
    plan = [(m, checks if m in everywhere else reps) for m in order if m in args.methods]
    caps = lambda c, m: args.long_cap if m == "hypothesis" and c.claim.id in (args.long or ()) else args.cap  # noqa: E731
    plan_info = dict(
        checks=[c.label for c in checks], representatives=[c.label for c in reps], cap=args.cap,
        long=args.long, long_cap=args.long_cap, budget=args.budget, hypothesis_examples=args.hypothesis_examples, seeds=args.seeds,
    )
    print(f"# {len(checks)} refuted checks, {len(reps)} representatives", file=sys.stderr, flush=True)

    def save(rows):
        if args.json:
            doc = dict(machine=info, command=command, wall=time.perf_counter() - t0, plan=plan_info, rows=rows)
            write_atomic(args.json, json.dumps(doc, indent=1, default=str))

    rows = measure(plan, args.seeds, args.budget, args.hypothesis_examples, caps, save)
    if args.reuse:
        labels = {c.label for c in checks}
        old = json.loads(args.reuse.read_text(encoding="utf-8"))["rows"]
        rows += [r for r in old if r["method"] not in args.methods and r["check"] in labels and r["seed"] < args.seeds]
    save(rows)
    report = markdown(summarise(rows, plan_info), info, command, time.perf_counter() - t0, plan_info)
    if args.out:
        write_atomic(args.out, splice(args.out, report))
    print(report)


if __name__ == "__main__":
    main()
