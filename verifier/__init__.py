"""A numeric verifier for the claims of machine-learning theory papers.

Public API for stating claims::

    from verifier import Claim, Part, Reading, Hypothesis, Dim, Matrix, Vector, Scalar, ProofDomain
    from verifier import Simplex, Stochastic, DoublyStochastic, UnitVector, Sphere, Ordered, Orthogonal, Derived, Ball, Pieces, Quadric  # constrained kinds
"""

from ._version import __version__

#: where each public name lives: imported on first use, so that ``verify --version`` and the
#: modules of a command that needs none of them do not load numpy, sympy and the contexts;
#: every kind's factory comes from :mod:`verifier.kinds` (its ``FACTORIES``)
_PUBLIC = {
    **dict.fromkeys(("Check", "Claim", "ClaimDefinitionError", "Dim", "Hypothesis", "Matrix", "Part", "ProofDomain", "Reading",
                     "Scalar", "Variable", "Vector"), "claims"),
    **dict.fromkeys(("CheckResult", "Counterexample", "RunResult", "Verdict"), "results"),
}


def _kind_factories() -> tuple[str, ...]:
    import importlib

    return tuple(importlib.import_module(".kinds", __name__).FACTORIES)


def __getattr__(name):
    import importlib

    if name == "__all__":
        return ["__version__", *_PUBLIC, *_kind_factories()]
    if name in _PUBLIC:
        module = _PUBLIC[name]
    elif name == "kinds" or name in _kind_factories():
        module = "kinds"
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    found = importlib.import_module(f".{module}", __name__)
    value = found if name == module else getattr(found, name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_PUBLIC) | set(_kind_factories()))
