"""What a counterexample is: the certified point as a reader and a stored file see it.

Built beside the certificate, from it: exact values as strings (``"3/7"``), both sides and
the margin exactly where they are rational (else at ``dps`` digits), the part's ``show``
quantities, each variable's kind.  The search, the prover and ``verify tighten`` all report
what they found through :func:`make_counterexample`.
"""

from __future__ import annotations

import numpy as np

from .certify import Certificate, decimal_string
from .claims import Check
from .contexts import ExactContext, MPContext, NotRational
from .domains import variable_kinds
from .results import Counterexample
from .sampling import fractions_of


def make_counterexample(check: Check, data, dims, cert: Certificate, dps: int, seed=None, found_by=None, shrunk=False) -> Counterexample:
    def show(exact, approx):
        return decimal_string(exact if exact is not None else approx, dps)

    return Counterexample(
        claim=check.claim.id,
        part=check.part.name,
        reading=check.reading.name,
        paper=check.claim.paper,
        dims=dict(dims),
        vars={name: exact_strings(arr) for name, arr in data.items()},
        lhs=show(cert.exact_lhs, cert.lhs),
        rhs=show(cert.exact_rhs, cert.rhs),
        margin=show(cert.exact_margin, cert.margin),
        dps=dps,
        method=cert.method,
        certificate=cert.detail,
        seed=seed,
        found_by=found_by,
        shrunk=shrunk,
        derived=derived_values(check, data, dims, dps),
        kinds=variable_kinds(check.variables, dims),
    )


def derived_values(check: Check, data, dims, dps: int) -> dict:
    """The part's ``show`` quantities at the counterexample: exact where rational, else at dps digits."""
    out = {}
    for name, fn in check.part.show:
        exact = ExactContext()
        try:
            with exact.precision():
                value = np.asarray(fn(exact, check.values(exact.convert(data), dims)), dtype=object)
            out[name] = exact_strings(value)
        except NotRational:
            mp = MPContext(dps)
            with mp.precision():
                value = np.asarray(fn(mp, check.values(mp.convert(data), dims)), dtype=object)[0]
            out[name] = np.vectorize(lambda x: decimal_string(x, dps), otypes=[object])(value).tolist() if np.ndim(value) else decimal_string(value, dps)
    return out


def exact_strings(arr):
    fr = fractions_of(np.asarray(arr, dtype=object))[0]  # drop the batch axis
    if np.ndim(fr) == 0:
        return str(fr)
    return np.vectorize(str, otypes=[object])(fr).tolist()


__all__ = ["make_counterexample", "derived_values", "exact_strings"]
