"""The deep phase: a local search below float64's spacing on exact rationals, evaluated exactly where
the claim stays rational, else at dps digits."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..contexts import ExactContext, to_fraction
from ..sampling import project
from .evaluate import UNDEFINED_AT_POINT, _exact_violation, _precise_relative

EXACT = ExactContext()


def run_deep_chunk(search, chunk, rng) -> None:
    """(1+1) evolution strategy below float64's spacing from one near-miss.

    Steps are relative to each entry and may be far below float64's spacing: the
    point is a rational, perturbed by rationals, and evaluated exactly where the claim
    stays rational, else at dps digits.
    """
    config, check = search.config, search.check
    fx, x, dims = chunk.start
    sigma = 2.0**-52  # float64 already searched above its own spacing
    for _ in range(config.deep_steps):
        if search.out_of_time():
            return
        cand = {}
        for name, arr in x.items():
            g = rng.standard_normal(np.shape(arr))
            mean = sum((to_fraction(q) for q in np.ravel(arr)), Fraction(0))
            mean = abs(mean) / max(np.size(arr), 1)
            cand[name] = perturb(arr, g, sigma, mean, int(3.33 * config.dps))
        try:
            cand = project(EXACT, check, cand, dims)
            ev, ctx = search._precise_evaluation(cand, dims, look=True)
        except UNDEFINED_AT_POINT:
            sigma /= 4
            continue
        search.stats["deep_evaluations"] += 1
        if any(h[0] < 0 for h in ev.hypotheses):
            sigma /= 2
            continue
        rel = _precise_relative(ev, ctx)
        if rel is None:
            continue
        cert = search.deep_verdict(cand, dims, rel, phase="deep", explored=True, violated=_exact_violation(check, ev, ctx))
        if cert is not None and cert.status in ("undecided", "hypothesis-fails"):
            sigma *= 0.7
            continue
        if cert is not None:
            rel = 0.0 if cert.status != "holds" else abs(rel)  # the sign was noise at dps digits
        if rel < fx:
            x, fx, sigma = cand, rel, min(sigma * 2, 2.0**-20)
        else:
            sigma = max(sigma * 0.7, 2.0 ** (-3.3 * config.dps))


def perturb(arr, g, sigma, mean, bits):
    """arr + (|arr| + mean) * sigma * g, rounded to a binary rational of ``bits`` bits.

    Binary rationals keep the certificate's ball arithmetic exact on the point itself
    (the ball precision exceeds ``bits``), so relations such as ``|b| <= eps`` that hold
    with equality are still certified, and steps far below float64's spacing survive.
    """
    import mpmath
    from flint import fmpq

    out = np.empty(np.shape(arr), dtype=object)
    with mpmath.workprec(bits):
        m = mpmath.mpf(mean.numerator) / mean.denominator if mean else mpmath.mpf(0)
        for idx in np.ndindex(np.shape(arr)):
            q = to_fraction(arr[idx])
            x = mpmath.mpf(q.numerator) / q.denominator
            mag = abs(x) + m or mpmath.mpf(1)
            v = x + mag * float(g[idx]) * sigma
            man, exp = mpmath.mpf(v).man_exp
            man, exp = int(man), int(exp)
            out[idx] = fmpq(man * 2**exp) if exp >= 0 else fmpq(man, 2 ** (-exp))
    return out
