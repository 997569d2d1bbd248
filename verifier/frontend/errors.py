"""The one error of the front end: bad input, with the place it points at."""

from __future__ import annotations

from ..errors import VerifierError

#: characters of the input quoted on each side of the place an error points at
QUOTED = 40


class ExpressionError(VerifierError, ValueError):
    """A statement, ``--var``, ``--dim`` or ``--where`` the front end cannot read.

    ``source`` names the input (``statement``, ``--where 'a + b = 3'``), ``column`` is 1-based
    (None when the problem has no single place); ``str()`` is one line that quotes the input
    with the place marked, so a user sees what to fix without a traceback.  A long input is
    quoted around the place only (a 100,000-digit number is not printed back).
    """

    def __init__(self, message: str, text: str = "", column: int | None = None, source: str = "statement"):
        self.message, self.text, self.column, self.source = message, text, column, source
        super().__init__(self._line())

    def _line(self) -> str:
        if self.column is None or not self.text:
            quoted = self.text and self.source == "statement"  # an option's source already quotes its text
            return f"{self.source}: {self.message}" + (f": {_excerpt(self.text, 0)}" if quoted else "")
        i = max(0, min(len(self.text), self.column - 1))
        marked = f"{self.text[:i]}\u25b6{self.text[i:]}"  # a marker before the offending character
        return f"{self.source}, column {self.column}: {self.message}: {_excerpt(marked, i)}"

    def located(self, text: str, source: str) -> "ExpressionError":
        """The same error, naming the input it came from (a bound inside ``--var`` is parsed alone)."""
        return ExpressionError(self.message, text, None, source) if not self.text else ExpressionError(self.message, self.text, self.column, source)


def shorten(text: str, keep: int = 24) -> str:
    """A piece of the input quoted inside a message, cut when long (a number of 100,000 digits)."""
    return text if len(text) <= keep else text[:keep] + "\u2026"


def _excerpt(text: str, at: int) -> str:
    """``text`` on one line, cut to QUOTED characters either side of ``at``."""
    text = text.replace("\n", " ").replace("\r", " ")
    if len(text) <= 2 * QUOTED + 20:
        return text
    start, end = max(0, at - QUOTED), min(len(text), at + QUOTED)
    return ("\u2026" if start else "") + text[start:end] + ("\u2026" if end < len(text) else "")
