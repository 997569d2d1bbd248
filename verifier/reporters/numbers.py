"""Numbers formatted for people, the same in every reporter."""

from __future__ import annotations

import math


def fmt(x, digits=6) -> str:
    """A number at ``digits`` significant digits for people: None and non-finite are n/a, -0 is 0."""
    if x is None or not math.isfinite(float(x)):
        return "n/a"
    return f"{float(x) + 0.0:.{digits}g}"
