"""Constrained variable kinds: sets a variable lies on that are not boxes.

One module per family of kinds, each owning its set, its samples, its exact points and
charts, and its proof map (:mod:`.base` says what a kind answers).  A new kind is a class
(and its factory) in a module of its own, its import here and its factory's name in
``FACTORIES``: ``verifier`` and ``verifier.domains`` export what ``FACTORIES`` names.
"""

from .ball import Ball, BallSet
from .base import Chart, ChartAtlas, Kind, NoChart, ProofMap
from .derived import Derived, DerivedValue, IrrationalDerivedValue
from .doubly_stochastic import DoublyStochastic, DoublyStochasticMatrix
from .ordered import Ordered, OrderedEntries
from .orthogonal import Orthogonal, OrthogonalMatrix
from .pieces import Pieces, PiecesSet
from .quadric import Quadric, QuadricSet
from .simplex import Simplex, SimplexRows, Stochastic, StochasticRows
from .sphere import EuclideanSphere, Sphere, UnitSphere, UnitVector
from .variables import domain_of, is_derived, kind_text, membership_errors, variable_kinds

#: the factories a claim states its variables with: what ``from verifier.kinds import *`` gives
#: (``verifier`` and ``verifier.domains`` re-export them); the classes and helpers above are
#: imported by name
FACTORIES = ("Simplex", "Stochastic", "DoublyStochastic", "UnitVector", "Sphere", "Ordered", "Orthogonal", "Derived", "Ball", "Pieces", "Quadric")

__all__ = list(FACTORIES)
