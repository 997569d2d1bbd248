"""What a context raises when a claim leaves what it can compute."""

from ..errors import VerifierError


class NotRational(VerifierError, ArithmeticError):
    """Raised by the exact context when a claim leaves the rationals (exp, log, sqrt)."""


class FunctionDomainError(VerifierError, ArithmeticError):
    """A function was applied outside its domain of definition (log of a negative number, say).

    Every rigorous context raises it where the float context gives nan, and the
    certifier treats it as it treats a division by zero: the point is outside the claim's
    hypotheses, never a violation.  (Not the domain of a proof: that is
    :class:`verifier.prove.domain.ProofBoxError`.)
    """


#: the name claim code written before the rename catches (a pack's function may raise it too)
DomainError = FunctionDomainError


class FloatLiteralError(VerifierError, TypeError):
    """A float literal reached an exact context: its value is not the decimal written."""
