"""A numeric verifier for the claims of machine-learning theory papers.

Public API for stating claims::

    from verifier import Claim, Part, Reading, Hypothesis, Dim, Matrix, Vector, Scalar, ProofDomain
    from verifier import Simplex, Stochastic, DoublyStochastic, UnitVector, Sphere, Ordered, Orthogonal, Derived  # constrained kinds
"""

from ._version import __version__

#: where each public name lives: imported on first use, so that ``verify --version`` and the
#: modules of a command that needs none of them do not load numpy, sympy and the contexts
_PUBLIC = {
    **dict.fromkeys(("Check", "Claim", "ClaimDefinitionError", "Dim", "Hypothesis", "Matrix", "Part", "ProofDomain", "Reading",
                     "Scalar", "Variable", "Vector"), "claims"),
    **dict.fromkeys(("Derived", "DoublyStochastic", "Ordered", "Orthogonal", "Simplex", "Sphere", "Stochastic", "UnitVector"), "domains"),
    **dict.fromkeys(("CheckResult", "Counterexample", "RunResult", "Verdict"), "results"),
}


def __getattr__(name):
    if name in _PUBLIC:
        import importlib

        value = getattr(importlib.import_module(f".{_PUBLIC[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_PUBLIC))


__all__ = [
    "__version__",
    "Check",
    "CheckResult",
    "Claim",
    "ClaimDefinitionError",
    "Counterexample",
    "Derived",
    "Dim",
    "DoublyStochastic",
    "Hypothesis",
    "Matrix",
    "Ordered",
    "Orthogonal",
    "Part",
    "ProofDomain",
    "Reading",
    "RunResult",
    "Scalar",
    "Simplex",
    "Sphere",
    "Stochastic",
    "UnitVector",
    "Variable",
    "Vector",
    "Verdict",
]
