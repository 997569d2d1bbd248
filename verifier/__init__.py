"""A numeric verifier for the claims of machine-learning theory papers.

Public API for stating claims::

    from verifier import Claim, Part, Reading, Hypothesis, Dim, Matrix, Vector, Scalar
"""

from ._version import __version__
from .claims import Check, Claim, ClaimDefinitionError, Dim, Hypothesis, Matrix, Part, Reading, Scalar, Variable, Vector
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
    "Reading",
    "RunResult",
    "Scalar",
    "Variable",
    "Vector",
    "Verdict",
]
