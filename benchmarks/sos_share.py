"""Which share of polynomial claims gets an exactly checked sum-of-squares certificate, and in what time.

    python benchmarks/sos_share.py [--seeds N] [--json out.json]

Two sets, each check on its own box:

* the pack's checks (``alman-song-2025``) on the domains their claims state: how many are
  polynomial at all (no abs, max, min, exp, sets), and of those how many get a certificate;
* seeded families with equality cases, each with a false twin (shifted below 0 at its
  touching point, which lies in the box): a weighted AM-GM in three variables (equality on the diagonal), sums of
  squares of random linear forms vanishing at a random rational centre, the same with a random
  quadratic irrational centre (touching points not rational: the kernel equations cannot use
  them), and random products of two squared forms.  A false twin that gets a certificate would
  be a soundness bug: the run says so.

Times are wall-clock on whatever the machine is doing: compare runs side by side only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from fractions import Fraction

import numpy as np

from verifier import Claim, Part, Scalar
from verifier.proof_audit import domain_of
from verifier.prove import make_proof_box
from verifier.prove import smt
from verifier.prove.sos import check_certificate, polynomial_claim, sos_certificate
from verifier.registry import load_installed


def _claim(name, variables, lhs, rhs):
    return Claim(id=name, title=name, statement=name, dims=[], variables=[Scalar(v, lo=-2, hi=2) for v in variables],
                 parts=[Part("main", relation=">=", lhs=lhs, rhs=rhs)]).checks()[0]


def am_gm(rng, shift):
    w = int(rng.integers(1, 6))
    return _claim("amgm", "abc", lambda ctx, v: w * (v.a**4 + v.b**4 + v.c**4) + shift, lambda ctx, v: w * v.a * v.b * v.c * (v.a + v.b + v.c))


def linear_squares(rng, shift, irrational=False):
    centre = [Fraction(int(rng.integers(-4, 5)), int(rng.integers(2, 5))) for _ in range(3)]
    forms = [[int(x) for x in rng.integers(-3, 4, size=3)] for _ in range(3)]
    if irrational:  # the centre's first coordinate moved to the root of t^2 = r: written through r only
        r = int(rng.integers(2, 4))  # sqrt(r) < 2: inside the box

        def lhs(ctx, v):
            d = [v.x * v.x - r, v.y - centre[1], v.z - centre[2]]
            return sum((a * d[0] + b * d[1] + c * d[2]) ** 2 for a, b, c in forms) + shift
    else:
        def lhs(ctx, v):
            d = [v.x - centre[0], v.y - centre[1], v.z - centre[2]]
            return sum((a * d[0] + b * d[1] + c * d[2]) ** 2 for a, b, c in forms) + shift
    return _claim("squares", "xyz", lhs, lambda ctx, v: ctx.const(0))


def product_of_squares(rng, shift):
    a, b = (Fraction(int(rng.integers(-3, 4)), int(rng.integers(2, 4))) for _ in range(2))  # inside the box
    return _claim("product", "xy", lambda ctx, v: (v.x - a) ** 2 * (v.y - b) ** 2 + (v.x + v.y - a - b) ** 2 + shift,
                  lambda ctx, v: ctx.const(0))


FAMILIES = {
    "weighted AM-GM, a = b = c": am_gm,
    "squared linear forms, rational centre": linear_squares,
    "squared linear forms, centre sqrt(r)": lambda rng, shift: linear_squares(rng, shift, irrational=True),
    "product of squares + a square": product_of_squares,
}


def _positive(name, variables, lhs, rhs):
    return Claim(id=name, title=name, statement=name, dims=[], variables=[Scalar(v, lo=0, hi=2) for v in variables],
                 parts=[Part("main", relation=">=", lhs=lhs, rhs=rhs)]).checks()[0]


#: classic competition inequalities with equality cases, on [0, 2]^n (polynomial or rational)
CLASSICS = {
    "a^2+b^2+c^2 >= ab+bc+ca": _positive("q", "abc", lambda ctx, v: v.a**2 + v.b**2 + v.c**2, lambda ctx, v: v.a * v.b + v.b * v.c + v.c * v.a),
    "(a+b)(b+c)(c+a) >= 8abc": _positive("p", "abc", lambda ctx, v: (v.a + v.b) * (v.b + v.c) * (v.c + v.a), lambda ctx, v: 8 * v.a * v.b * v.c),
    "Schur t=1": _positive("s", "abc", lambda ctx, v: v.a * (v.a - v.b) * (v.a - v.c) + v.b * (v.b - v.a) * (v.b - v.c) + v.c * (v.c - v.a) * (v.c - v.b),
                           lambda ctx, v: ctx.const(0)),
    "a^3+b^3+c^3 >= 3abc": _positive("c", "abc", lambda ctx, v: v.a**3 + v.b**3 + v.c**3, lambda ctx, v: 3 * v.a * v.b * v.c),
    "Nesbitt (b+c, c+a, a+b > 0)": Claim(
        id="n", title="n", statement="n", dims=[], variables=[Scalar(v, lo=Fraction(1, 10), hi=2) for v in "abc"],
        parts=[Part("main", relation=">=", lhs=lambda ctx, v: v.a / (v.b + v.c) + v.b / (v.c + v.a) + v.c / (v.a + v.b),
                    rhs=lambda ctx, v: Fraction(3, 2))]).checks()[0],
    "x^4+y^4+z^4 >= xyz(x+y+z) on [0,2]": _positive("m", "xyz", lambda ctx, v: v.x**4 + v.y**4 + v.z**4, lambda ctx, v: v.x * v.y * v.z * (v.x + v.y + v.z)),
}


def timed(check, domain, seconds):
    start = time.monotonic()
    sos = sos_certificate(check, domain, seconds)
    took = time.monotonic() - start
    if sos is not None and check_certificate(sos) is not None:
        raise AssertionError("a certificate failed its own exact re-check")
    return sos, took


def run(seeds: int, seconds: float) -> dict:
    out = {"load": os.getloadavg()[0], "families": {}, "pack": {}}
    for name, family in FAMILIES.items():
        proved, times, false_proved = 0, [], 0
        for seed in range(seeds):
            check = family(np.random.default_rng(seed), Fraction(0))
            domain = make_proof_box(check, {}, named={v.name: (-2, 2) for v in check.variables})
            sos, took = timed(check, domain, seconds)
            proved += sos is not None
            times.append(took)
            twin = family(np.random.default_rng(seed), Fraction(-1, 100))
            false_proved += sos_certificate(twin, make_proof_box(twin, {}, named={v.name: (-2, 2) for v in twin.variables}), seconds) is not None
        out["families"][name] = {"certified": proved, "of": seeds, "false twins certified": false_proved,
                                 "median seconds": float(np.median(times)), "max seconds": max(times)}
        print(f"{name}: {proved}/{seeds} certified, false twins certified {false_proved}, median {np.median(times):.2f} s", file=sys.stderr)
    out["classics"] = {}
    for name, check in CLASSICS.items():
        domain = make_proof_box(check, {}, named={v.name: (v.lo.exact, v.hi.exact) for v in check.variables})
        sos, took = timed(check, domain, seconds)
        start = time.monotonic()
        smt.SOS_AFTER_SMT_SECONDS = 0  # z3 alone (its proofs attach a certificate of this kind otherwise)
        z3 = smt.prove_smt(check, domain, seconds).result.verdict.value
        out["classics"][name] = {"certified": sos is not None, "seconds": took, "z3": z3, "z3 seconds": time.monotonic() - start}
        print(f"{name}: {'certified' if sos else 'no certificate'} in {took:.2f} s; z3 {z3} in {time.monotonic() - start:.2f} s", file=sys.stderr)
    polynomial, proved, times, reasons = 0, 0, [], {}
    checks = [c for claim in load_installed() if claim.paper == "alman-song-2025" for c in claim.checks()]
    for check in checks:
        try:
            domain = domain_of(check)
        except Exception as exc:  # noqa: BLE001  a domain the prover refuses
            reasons[f"no proof domain ({type(exc).__name__})"] = reasons.get(f"no proof domain ({type(exc).__name__})", 0) + 1
            continue
        claim = polynomial_claim(check, domain)
        if isinstance(claim, str):
            reasons[claim] = reasons.get(claim, 0) + 1
            continue
        polynomial += 1
        sos, took = timed(check, domain, seconds)
        proved += sos is not None
        times.append(took)
    out["pack"] = {"checks": len(checks), "polynomial": polynomial, "certified": proved, "seconds": times, "not polynomial": reasons}
    print(f"pack: {len(checks)} checks, {polynomial} polynomial, {proved} certified; not polynomial: {reasons}", file=sys.stderr)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--json")
    args = parser.parse_args()
    result = run(args.seeds, args.seconds)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(result, fh, indent=2)
            fh.write("\n")


if __name__ == "__main__":
    main()
