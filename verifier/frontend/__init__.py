"""A new way in: a displayed inequality from a paper, as LaTeX or Python syntax, becomes a claim.

``verify expr`` (``verifier.cli.expr``) hands a :class:`ExprRequest` to :func:`build`, which
parses the statement and the ``--var``/``--dim``/``--where`` options (:mod:`.grammar`,
:mod:`.declarations`), reads them as sympy (:mod:`.translate`), solves equality constraints
(:mod:`.constraints`), prints every function against ``ctx`` (:mod:`.ctxcode`) into a pack
module and loads the :class:`~verifier.claims.Claim` from it.  Below this package nothing
knows the claim came from text.
"""

from .build import ExprClaim, ExprRequest, build, load_claim
from .errors import ExpressionError

__all__ = ["ExprClaim", "ExprRequest", "ExpressionError", "build", "load_claim"]
