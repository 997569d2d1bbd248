"""Search power and speed, side by side: this tool, Hypothesis, SciPy's differential
evolution and uniform random search, on every refuted claim of the registry.

    python benchmarks/run.py --seeds 5                      # discover refuted claims, run all
    python benchmarks/run.py --seeds 5 --claims 4.1 5.1     # only these claim ids
    python benchmarks/run.py --seeds 5 --out docs/benchmarks.md --json benchmarks/results.json

Refuted claims are discovered by running the tool (seed 0, default budget) over the
registry; a benchmark-local copy of Lemma 5.1 (``benchmarks/local_claims.py``) is added
while the registry has no 5.1.  For every (claim, part, reading) and seed it measures the
wall time to the first *certified* counterexample and success within the budget.  The
tool's time includes its certificate and shrinking; the baselines' time stops at their
first certified violation (Hypothesis's time with its shrinking is reported separately).
Needs the ``bench`` extra (hypothesis, scipy).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import baselines  # noqa: E402
from benchmarks.local_claims import CLAIMS as LOCAL_CLAIMS  # noqa: E402
from lemmas import REGISTRY  # noqa: E402
from verifier.contexts import ExactContext  # noqa: E402
from verifier.engine import SearchConfig, run_check  # noqa: E402
from verifier.registry import UnknownClaimError  # noqa: E402
from verifier.results import Verdict  # noqa: E402
from verifier.store import parse_exact  # noqa: E402

METHODS = ("tool", "hypothesis", "scipy-de", "random")


def all_claims():
    claims = list(REGISTRY)
    have = {c.id for c in claims}
    return claims + [c for c in LOCAL_CLAIMS if c.id not in have]


def refuted_checks(ids, config):
    claims = all_claims()
    if ids:
        wanted = []
        for cid in ids:
            try:
                wanted.append(REGISTRY.get(cid))
            except UnknownClaimError:
                local = [c for c in LOCAL_CLAIMS if c.id == cid]
                if not local:
                    raise SystemExit(f"error: unknown claim id {cid!r}")
                wanted.append(local[0])
        claims = wanted
    out = []
    for claim in claims:
        for check in claim.checks():
            r = run_check(check, config)
            status = "refuted" if r.verdict is Verdict.REFUTED else r.verdict.value
            print(f"# discovery: {check.label}: {status}", file=sys.stderr, flush=True)
            if r.verdict is Verdict.REFUTED:
                out.append(check)
    return out


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


def measure(checks, seeds, budget, hyp_examples, cap, methods):
    rows = []
    for check in checks:
        for seed in range(seeds):
            for method in methods:
                if method == "tool":
                    res = run_tool(check, seed, budget)
                elif method == "hypothesis":
                    res = baselines.hypothesis_search(check, seed, hyp_examples, cap)
                elif method == "scipy-de":
                    res = baselines.differential_evolution(check, seed, budget, cap)
                else:
                    res = baselines.uniform_random(check, seed, budget, cap)
                res.update(check=check.label, seed=seed, method=method)
                rows.append(res)
                print(json.dumps(res), file=sys.stderr, flush=True)
    return rows


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


def summarise(rows, seeds):
    by = {}
    for r in rows:
        by.setdefault((r["check"], r["method"]), []).append(r)
    checks = list(dict.fromkeys(r["check"] for r in rows))
    out = []
    for check in checks:
        entry = {"check": check}
        for m in METHODS:
            rs = by.get((check, m), [])
            ok = [r for r in rs if r["ok"]]
            # a failed seed counts at its full time: the median is over all seeds
            entry[m] = dict(ok=len(ok), runs=len(rs), median=_median([r["seconds"] for r in rs]) if len(ok) * 2 > len(rs) else None,
                            median_ok=_median([r["seconds"] for r in ok]),
                            size=_median([r["size"][0] for r in ok if "size" in r]), digits=_median([r["size"][1] for r in ok if "size" in r]))
            if m == "hypothesis":
                entry[m]["median_shrunk"] = _median([r["seconds_with_shrink"] for r in ok])
            if m == "tool":
                entry[m]["phases"] = sorted({f'{r["phase"]}' for r in ok})
                entry[m]["evals"] = _median([r["evaluations"] for r in ok])
                entry[m]["first"] = _median([r["first_seconds"] for r in ok])
        out.append(entry)
    return out


def markdown(summary, info, args, wall):
    lines = []
    add = lines.append
    add("Generated by `benchmarks/run.py`; the numbers are from one run on the machine described.\n")
    add("### Machine and conditions\n")
    add(f"- `nproc` = {info['nproc']}; CPU: {info['cpu']}; memory: {info['memory']}")
    add(f"- Python {info['python']}, numpy {info['numpy']}, scipy {info['scipy']}, hypothesis {info['hypothesis']}")
    add(f"- load average at start: {', '.join(f'{x:.2f}' for x in info['load'])}. **Caveat:** other engineers ran test "
        "suites on the same 2 cores during this run, so absolute times are noisy (ratios less so); every method ran "
        "in the same process, one after another, under the same conditions.")
    add(f"- total wall time of the run: {wall:.0f} s\n")
    add("### Command\n")
    add(f"    python benchmarks/run.py {' '.join(args)}\n")
    if "--reuse" in args:
        add("(`--reuse`: the rows of the methods not named by `--methods` are those of the earlier run stored in that file, "
            "measured on the same machine with the same seeds, budget and cap.)\n")
    add("### Time to the first certified counterexample (median over seeds) and success rate\n")
    add("The tool's time includes its certificate and shrinking; *tool, first hit* is when its first certificate "
        "succeeded (before shrinking), comparable with the baselines' times. Baselines stop at their first certified violation "
        "(their float64 suspects go through the same `Certifier(50)`); Hypothesis with its own shrinking is in its own "
        "column. A median is shown only when more than half of the seeds succeeded (failed seeds count at the time they "
        "used). Ratio = baseline median / tool median.\n")
    add("| claim | tool | tool, first hit | found by | Hypothesis | ratio | Hyp. + shrink | SciPy DE | ratio | random | ratio |")
    add("|---|---|---|---|---|---|---|---|---|---|---|")
    for e in summary:
        t = e["tool"]

        def cell(m):
            x = e[m]
            return f"{_fmt_s(x['median'])} ({x['ok']}/{x['runs']})"

        def ratio(m):
            if t["median"] and e[m]["median"]:
                return f"{e[m]['median'] / t['median']:.1f}×"
            if t["median"] and e[m]["ok"] * 2 <= e[m]["runs"]:
                return "fails"
            return "—"

        found = ", ".join(t.get("phases", [])) + (f" ({t['evals']:,.0f} evals)" if t.get("evals") else "")
        add(f"| {e['check']} | {cell('tool')} | {_fmt_s(t.get('first'))} | {found} | {cell('hypothesis')} | {ratio('hypothesis')} | "
            f"{_fmt_s(e['hypothesis'].get('median_shrunk'))} | {cell('scipy-de')} | {ratio('scipy-de')} | {cell('random')} | {ratio('random')} |")
    add("\n### Size of the counterexample shown (median over successful seeds)\n")
    add("Dimensions = sum of the dims; digits = bits of numerators and denominators over all entries "
        "(the shrinker's measure). The tool's counterexample is shrunk; Hypothesis's is its shrinker's final example; "
        "DE's and random search's are unshrunk.\n")
    add("| claim | tool dims | tool digits | Hypothesis dims | Hypothesis digits | DE digits | random digits |")
    add("|---|---|---|---|---|---|---|")
    for e in summary:
        def v(m, k):
            x = e[m][k]
            return "—" if x is None else f"{x:g}"

        add(f"| {e['check']} | {v('tool', 'size')} | {v('tool', 'digits')} | {v('hypothesis', 'size')} | {v('hypothesis', 'digits')} | "
            f"{v('scipy-de', 'digits')} | {v('random', 'digits')} |")
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
    p.add_argument("--claims", nargs="*", help="claim ids (default: every refuted claim of the registry)")
    p.add_argument("--budget", type=int, default=SearchConfig.budget, help="float64 evaluations for the tool, DE and random search")
    p.add_argument("--hypothesis-examples", type=int, default=100_000)
    p.add_argument("--cap", type=float, default=180.0, help="seconds per baseline run")
    p.add_argument("--methods", nargs="*", default=list(METHODS), choices=METHODS)
    p.add_argument("--out", type=Path, help="write the markdown report here")
    p.add_argument("--json", type=Path, help="write the raw rows here")
    p.add_argument("--reuse", type=Path, help="take the rows of methods not run now from this earlier --json file "
                   "(e.g. re-run only --methods tool after an engine change)")
    p.add_argument("--from-json", type=Path, help="measure nothing: rebuild the report from an earlier --json file")
    args = p.parse_args(argv)
    from verifier.store import write_atomic

    if args.from_json:
        stored = json.loads(args.from_json.read_text(encoding="utf-8"))
        report = markdown(summarise(stored["rows"], args.seeds), stored["machine"], stored.get("command", ["?"]), stored.get("wall", 0.0))
        if args.out:
            write_atomic(args.out, splice(args.out, report))
        print(report)
        return
    t0 = time.perf_counter()
    info = machine()
    checks = refuted_checks(args.claims, SearchConfig(seed=0, budget=args.budget))
    rows = measure(checks, args.seeds, args.budget, args.hypothesis_examples, args.cap, args.methods)
    if args.reuse:
        labels = {c.label for c in checks}
        old = json.loads(args.reuse.read_text(encoding="utf-8"))["rows"]
        rows += [r for r in old if r["method"] not in args.methods and r["check"] in labels and r["seed"] < args.seeds]
    summary = summarise(rows, args.seeds)
    command = sys.argv[1:] if argv is None else list(argv)
    wall = time.perf_counter() - t0
    report = markdown(summary, info, command, wall)
    if args.json:
        write_atomic(args.json, json.dumps(dict(machine=info, command=command, wall=wall, rows=rows), indent=1, default=str))
    if args.out:
        write_atomic(args.out, splice(args.out, report))
    print(report)


if __name__ == "__main__":
    main()
