"""A numeric verifier for the claims of machine-learning theory papers.

Public API for stating claims::

    from verifier import Claim, Part, Reading, Hypothesis, Dim, Matrix, Vector, Scalar, ProofDomain
    from verifier import Simplex, Stochastic, DoublyStochastic, UnitVector, Sphere, Ordered, Orthogonal, Derived, Ball, Pieces, Quadric  # constrained kinds
"""

from ._version import __version__
from .claims import Check, Claim, ClaimDefinitionError, Dim, Hypothesis, Matrix, Part, ProofDomain, Reading, Scalar, Variable, Vector
from . import kinds
from .kinds import *  # noqa: F401,F403 -- every kind's factory (verifier.kinds.FACTORIES)
from .results import CheckResult, Counterexample, RunResult, Verdict

__all__ = [
    "__version__",
    "Check",
    "CheckResult",
    "Claim",
    "ClaimDefinitionError",
    "Counterexample",
    "Dim",
    "Hypothesis",
    "Matrix",
    "Part",
    "ProofDomain",
    "Reading",
    "RunResult",
    "Scalar",
    "Variable",
    "Vector",
    "Verdict",
] + list(kinds.FACTORIES)
