"""Tight one-variable claims with an irrational touching point, and their strict twins: verdicts and times.

    python benchmarks/equality_families.py                  # this tree
    git archive REV | tar -x -C /tmp/before
    PYTHONPATH=/tmp/before python benchmarks/equality_families.py   # another tree, same families

Families (seeded, as in tests/quality/test_equality_exact.py): ``x + c/x >= 2 sqrt(c)`` for x > 0
with a random non-square c, and ``(x^2 - 2px + p^2 - q^2 r)^2 + 1 >= 1`` with a random quadratic
irrational centre p + q sqrt(r); each with its strict twin (false exactly at the touching
point).  Each check: the search (seed 0, 40,000 evaluations), then for a survivor the proof
(auto, 20 s).  Prints one row per check.
"""
import time
import numpy as np
from fractions import Fraction
from verifier import Claim, Hypothesis, Part, Scalar
from verifier.engine import SearchConfig, run_check
from verifier.prove import make_proof_box, prove
def non_square(rng, lo=2, hi=60):
    c = int(rng.integers(lo, hi))
    while int(round(c**0.5)) ** 2 == c: c += 1
    return c
def am_gm(c, rel):
    return Claim(id=f"T{c}", title="t", statement="s", dims=[], variables=[Scalar("x", lo=0, hi=100)], hypotheses=[Hypothesis("x > 0", lambda ctx, v: v.x, strict=True)],
                 parts=[Part("main", relation=rel, lhs=lambda ctx, v: v.x + c / v.x, rhs=lambda ctx, v: 2 * ctx.sqrt(c))])
def sq(p, q, r, rel):
    k = Fraction(p * p - q * q * r)
    return Claim(id="S", title="t", statement="s", dims=[], variables=[Scalar("x", lo=-20, hi=20)],
                 parts=[Part("main", relation=rel, lhs=lambda ctx, v: (v.x * v.x - 2 * p * v.x + k) ** 2 + 1, rhs=lambda ctx, v: 1)])
rows = []
for seed in range(3):
    c = non_square(np.random.default_rng(seed))
    for rel in (">", ">="):
        chk = am_gm(c, rel).checks()[0]
        t = time.time(); r = run_check(chk, SearchConfig(seed=0, budget=40000)); ts = time.time() - t
        t = time.time(); pr = prove(chk, make_proof_box(chk, {}), time_limit=20) if r.verdict.value == "survived" else None; tp = time.time() - t
        rows.append((f"x + {c}/x {rel} 2 sqrt({c})", r.verdict.value, round(ts, 2), pr and pr.result.verdict.value, pr and round(tp, 2), pr and pr.result.message[:60]))
for seed in range(3):
    rng = np.random.default_rng(100 + seed)
    p, q, r_ = int(rng.integers(-4, 5)), int(rng.integers(1, 3)), non_square(rng, 2, 12)
    for rel in (">", ">="):
        chk = sq(p, q, r_, rel).checks()[0]
        t = time.time(); r = run_check(chk, SearchConfig(seed=0, budget=40000)); ts = time.time() - t
        t = time.time(); pr = prove(chk, make_proof_box(chk, {}), time_limit=20) if r.verdict.value == "survived" else None; tp = time.time() - t
        rows.append((f"(x^2 - {2*p}x + {p*p-q*q*r_})^2 + 1 {rel} 1", r.verdict.value, round(ts, 2), pr and pr.result.verdict.value, pr and round(tp, 2), pr and pr.result.message[:60]))
for row in rows: print(" | ".join(map(str, row)))
