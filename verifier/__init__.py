"""A numeric verifier for the claims of machine-learning theory papers.

Public API for stating claims::

    from verifier import Claim, Part, Reading, Hypothesis, Dim, Matrix, Vector, Scalar, ProofDomain
    from verifier import Simplex, Stochastic, DoublyStochastic, UnitVector, Sphere, Ordered, Orthogonal, Derived, Ball, Pieces, Quadric  # constrained kinds
"""

from ._version import __version__
from .claims import Check, Claim, ClaimDefinitionError, Dim, Hypothesis, Matrix, Part, ProofDomain, Reading, Scalar, Variable, Vector
from .kinds import Ball, Derived, DoublyStochastic, Ordered, Orthogonal, Pieces, Quadric, Simplex, Sphere, Stochastic, UnitVector
from .results import CheckResult, Counterexample, RunResult, Verdict

__all__ = [
    "__version__",
    "Ball",
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
    "Pieces",
    "Quadric",
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
