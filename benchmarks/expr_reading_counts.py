"""How ``verify expr`` reads the generated pairs of tests/quality/latex_pairs.py: read right, refused, misread.

    python benchmarks/expr_reading_counts.py [--seed 0] [--count 300] [--show misread]

Each pair is a compact expression as papers print it (``2xy^2``, ``\\sin 2x``, ``ab^2``) and
its fully explicit form; the compact one is read right when its reading has the explicit
one's value at random exact points.  Run it with the verifier of any tree on ``PYTHONPATH``
to compare two trees on the same pairs (docs/authoring.md section 11 gives the figures).
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "quality"))

from latex_pairs import classify, pairs, scope  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--show", choices=["right", "refused", "misread", "explicit-unread"], action="append", default=[])
    opts = parser.parse_args()
    rng = random.Random(opts.seed)
    where = scope()
    counts = collections.Counter()
    for pair in pairs(opts.seed, opts.count):
        kind = classify(pair, where, rng)
        counts[kind] += 1
        if kind in opts.show:
            print(f"{kind:10s} {pair.compact}    ||    {pair.explicit}")
    print(", ".join(f"{k} {counts[k]}" for k in ("right", "refused", "misread", "explicit-unread")) + f" of {opts.count}")


if __name__ == "__main__":
    main()
