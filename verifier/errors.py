"""The root of the verifier's errors.

Every error the verifier raises on purpose -- a bad file, a bad option, a claim defined wrongly,
a pack that does not load, a worker that did not come back, a proof method that does not apply
-- is a :class:`VerifierError`, so a caller (the command line, a notebook, a CI script) can tell
the verifier's own words from a bug.  Each keeps the builtin class it always had as a second
base (``ValueError``, ``KeyError``, ``OSError``, ...), so code that caught those still does.

Signals the engine raises to itself and catches again (a counterexample found mid-batch, a
budget spent, a box that needs splitting, a watchdog's deadline) are not errors and are not
here.
"""

from __future__ import annotations


class VerifierError(Exception):
    """An error the verifier raises on purpose; its message says what it is about, in one line."""


__all__ = ["VerifierError"]
