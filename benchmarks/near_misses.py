"""The near-miss families of issue 27, run by the engine of any tree: found or not, and at what cost.

    git archive <commit> | tar -x -C /tmp/before
    python benchmarks/near_misses.py --tree /tmp/before --seeds 5 --json before.json
    python benchmarks/near_misses.py --seeds 5 --json after.json

The families (``tests/quality/near_miss_families.py``) are always this tree's; ``--tree``
names the tree whose ``verifier`` searches them.  Member ``s`` is searched from seed ``s`` at
the default budget without shrinking, as ``tests/quality/test_near_misses.py`` does; the
tighten family runs ``tighten`` at 20,000 and 200,000 evaluations.  Printed: per family and
seed, the verdict, the phase and the evaluations of the counterexample (or of the run) and
the seconds.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEARCHED = ("irrational_peak", "aligned_hyperparameter", "largest_size_only", "rugged_position", "spread_vectors")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", default=str(ROOT), help="the tree whose engine runs (default: this one)")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--families", default=",".join(SEARCHED + ("strict_boundary_ratio",)))
    parser.add_argument("--json")
    args = parser.parse_args()
    sys.path.insert(0, args.tree)
    from verifier.engine import SearchConfig, run_check
    from verifier.tighten import tighten

    spec = importlib.util.spec_from_file_location("near_miss_families", ROOT / "tests" / "quality" / "near_miss_families.py")
    families = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(families)
    rows = []
    for name in args.families.split(","):
        for seed in range(args.seeds):
            made = getattr(families, name)(seed)
            claim = made[0] if isinstance(made, tuple) else made
            start = time.monotonic()
            if name in SEARCHED:
                r = run_check(claim.checks()[0], SearchConfig(seed=seed, shrink=False))
                found = r.counterexample.found_by if r.counterexample is not None else None
                row = {"family": name, "seed": seed, "verdict": r.verdict.value, "phase": found.phase if found else None,
                       "evaluations": found.evaluations if found else r.stats.evaluations}
            else:
                bounds = []
                for budget in (20_000, 200_000):
                    t = tighten(claim.checks()[0], SearchConfig(seed=seed, budget=budget))
                    bounds.append(None if t.lower_bound is None else float(t.lower_bound))
                row = {"family": name, "seed": seed, "bounds": bounds}
            row["seconds"] = round(time.monotonic() - start, 2)
            rows.append(row)
            print(json.dumps(row), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
