"""What a counterexample is: the certified point as a reader and a stored file see it.

Built beside the certificate, from it: exact values as strings (``"3/7"``), both sides and
the margin exactly where they are rational (else at ``dps`` digits), the part's ``show``
quantities, each variable's kind.  The search, the prover and ``verify tighten`` all report
what they found through :func:`make_counterexample`.
"""

from __future__ import annotations

import numpy as np

from .algebraic import AlgebraicContext, AlgebraicNumber, FieldElement, field_of, is_algebraic_data
from .certify import Certificate, decimal_string
from .claims import Check
from .contexts import ExactContext, MPContext, NotRational, to_fraction
from .domains import variable_kinds
from .results import Counterexample


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
    algebraic = is_algebraic_data(data)
    for name, fn in check.part.show:
        try:
            exact = AlgebraicContext(field_of(_numbers(data))) if algebraic else ExactContext()
            with exact.precision():
                value = np.asarray(fn(exact, check.values(exact.convert(data), dims)), dtype=object)
            out[name] = exact_strings(np.frompyfunc(_exact_value, 1, 1)(value))
        except NotRational:
            mp = MPContext(dps)
            with mp.precision():
                value = np.asarray(fn(mp, check.values(mp.convert(_as_mp(data, dps)), dims)), dtype=object)[0]
            out[name] = np.vectorize(lambda x: decimal_string(x, dps), otypes=[object])(value).tolist() if np.ndim(value) else decimal_string(value, dps)
    return out


def exact_strings(arr):
    """Exact strings of an object array with a batch axis: ``"3/7"``, or for an irrational
    algebraic entry its closed form, polynomial and isolating interval
    (``"sqrt(2)/2 = root of 2*x**2 - 1 in [7/10, 4/5]"``, see :mod:`verifier.algebraic`)."""
    fr = np.frompyfunc(lambda x: x if isinstance(x, AlgebraicNumber) else to_fraction(x), 1, 1)(np.asarray(arr, dtype=object))[0]
    if np.ndim(fr) == 0:
        return str(fr)
    return np.vectorize(str, otypes=[object])(fr).tolist()


def _numbers(data) -> list:
    return [x if isinstance(x, AlgebraicNumber) else to_fraction(x) for arr in data.values() for x in np.asarray(arr, dtype=object).ravel()]


def _exact_value(x):
    """A field element as an exact number: a Fraction when rational, else the algebraic number it is."""
    if not isinstance(x, FieldElement):
        return x
    q = x.rational()
    if q is not None:
        return q
    raise NotRational("an irrational value of a shown quantity")  # shown at dps digits instead


def _as_mp(data, dps):
    """A point's entries as numbers MPContext converts: algebraic ones at dps + 10 digits."""
    return {k: np.frompyfunc(lambda x: x.mpf(dps + 10) if isinstance(x, AlgebraicNumber) else x, 1, 1)(np.asarray(v, dtype=object))
            for k, v in data.items()}


__all__ = ["make_counterexample", "derived_values", "exact_strings"]
