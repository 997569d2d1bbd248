"""The constrained kinds under their first name: ``from verifier.domains import Simplex`` keeps working.

Packs and the modules ``verify expr --save-claim`` wrote import the kinds' factories from
here; the kinds live in :mod:`verifier.kinds`, one module per kind.
"""

from .kinds import *  # noqa: F401,F403 -- every kind's factory (verifier.kinds.FACTORIES)
from .kinds import FACTORIES, IrrationalDerivedValue, domain_of, is_derived, kind_text, membership_errors, variable_kinds

__all__ = list(FACTORIES) + ["IrrationalDerivedValue", "domain_of", "is_derived", "kind_text", "membership_errors", "variable_kinds"]
