"""The ``verify`` command.  Commands parse options and hand over; reporters present.

The group and what commands share are in :mod:`.common`; each command family is a module of
its own, imported here so that its commands join the group.
"""

from . import all_claims, check, claims, experiment, expr, formal, init, report  # noqa: F401  (each registers its commands)
from .common import main

__all__ = ["main"]
