"""The constrained kinds under their first name: ``from verifier.domains import Simplex`` keeps working.

Packs and the modules ``verify expr --save-claim`` wrote import the kinds' factories from
here; the kinds live in :mod:`verifier.kinds`, one module per kind.
"""

from .kinds import (Ball, Derived, DoublyStochastic, IrrationalDerivedValue, Ordered, Orthogonal, Pieces, Quadric, Simplex, Sphere, Stochastic, UnitVector, domain_of,
                    is_derived, kind_text, membership_errors, variable_kinds)

__all__ = ["Ball", "Simplex", "Stochastic", "DoublyStochastic", "UnitVector", "Sphere", "Ordered", "Orthogonal", "Derived", "Pieces", "Quadric", "IrrationalDerivedValue",
           "domain_of", "is_derived", "kind_text", "membership_errors", "variable_kinds"]
