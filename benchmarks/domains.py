"""Constrained kinds: share of samples on the boundary, and time to first certificate.

    python benchmarks/domains.py [--seeds 5]

For each kind, the share of the structured sampler's float samples that land on the set's
boundary (as :func:`verifier.sampling.on_boundary` defines it) at dims 2, 3 and 5; for each
generated claim family of ``tests/quality/domain_families.py`` and for the paper claims stated
with a kind (Alman & Song D.8 ``any-attention``, Dong et al. ``l1``), the wall time and the
number of evaluations until the first certificate (shrinking off), median and worst over seeds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from tests.quality.domain_families import (CONFIGURATION_FAMILIES, KNOWN_PATTERN_FAMILIES, LARGE_DENOMINATOR_FAMILIES,  # noqa: E402
                                           REFUTED_FAMILIES, SCALED_FAMILIES)
from verifier import Claim, Dim, DoublyStochastic, Ordered, Orthogonal, Part, Simplex, Sphere, Stochastic, UnitVector  # noqa: E402
from verifier.engine import SearchConfig, run_check  # noqa: E402
from verifier.sampling import Sampler, on_boundary  # noqa: E402

KINDS = {
    "Simplex": Simplex("x", "n"),
    "Stochastic (n x n)": Stochastic("x", "n", "n"),
    "UnitVector norm 2": UnitVector("x", "n"),
    "UnitVector norm inf": UnitVector("x", "n", norm="inf"),
    "UnitVector norm 1": UnitVector("x", "n", norm=1),
    "Ordered [-1, 2]": Ordered("x", "n", lo=-1, hi=2),
    "Orthogonal": Orthogonal("x", "n"),
    "Simplex total 5/2": Simplex("x", "n", "5/2"),
    "Sphere radius^2 2": Sphere("x", "n", 2),
    "DoublyStochastic": DoublyStochastic("x", "n"),
}


def boundary_shares(seeds):
    for label, var in KINDS.items():
        claim = Claim("b", "b", "b", variables=(var,), dims=(Dim("n", 2, 5),),
                      parts=(Part("main", lambda ctx, v: ctx.sum_all(v.x), lambda ctx, v: ctx.const(100)),))
        sampler = Sampler(claim.checks()[0])
        shares = [float(np.mean(on_boundary(var, sampler.sample({"n": n}, np.random.default_rng(s), 4096)["x"])))
                  for s in range(seeds) for n in (2, 3, 5)]
        print(f"| {label} | {np.mean(shares):.0%} | {min(shares):.0%}-{max(shares):.0%} |")


def _paper_checks():
    """Paper claims stated with a kind: Alman & Song D.8 (any-attention) and Dong et al. (l1)."""
    import importlib.util

    from lemmas.alman_song.lemma_d_8 import claim as d8

    path = os.path.join(os.path.dirname(__file__), "..", "examples", "attention-classics", "attention_classics", "row_stochastic_norm.py")
    spec = importlib.util.spec_from_file_location("row_stochastic_norm", path)
    dong = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dong)
    return {
        "D.8 part 1 [any-attention]": lambda seed: d8.checks(part="1", reading="any-attention")[0],
        "D.8 part 2 [any-attention]": lambda seed: d8.checks(part="2", reading="any-attention")[0],
        "dong-P-norm [l1]": lambda seed: dong.claim.checks(reading="l1")[0],
    }


def first_certificates(seeds):
    every = {**REFUTED_FAMILIES, **SCALED_FAMILIES, **LARGE_DENOMINATOR_FAMILIES, **KNOWN_PATTERN_FAMILIES, **CONFIGURATION_FAMILIES}
    families = {name: (lambda seed, make=make: make(seed).checks()[0]) for name, make in every.items()}
    for name, make_check in {**families, **_paper_checks()}.items():
        times, evals, refuted = [], [], 0
        for seed in range(seeds):
            check = make_check(seed)
            start = time.perf_counter()
            result = run_check(check, SearchConfig(seed=seed, shrink=False))
            times.append(time.perf_counter() - start)
            if result.verdict.value == "refuted":
                refuted += 1
                evals.append(result.counterexample.found_by.evaluations)
        print(f"| {name} | {refuted}/{seeds} | {statistics.median(times):.2f} s | {max(times):.2f} s | "
              f"{int(statistics.median(evals)) if evals else '-'} | {max(evals) if evals else '-'} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    print("| kind | share of samples on the boundary (mean) | range over seeds and dims |\n|---|---|---|")
    boundary_shares(args.seeds)
    print("\n| family | refuted | median time to first certificate | worst | median evaluations | worst |\n|---|---|---|---|---|---|")
    first_certificates(args.seeds)


if __name__ == "__main__":
    main()
