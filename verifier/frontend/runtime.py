"""What a claim written by ``verify expr`` calls beyond ``ctx``: a running index's values, a product,
and ``xlogy`` (``y log y`` is printed as ``xlogy(ctx, y, y)``, 0 at ``y = 0``).

A saved claim module imports these, so it keeps working wherever the verifier is installed.
"""

from __future__ import annotations

import numpy as np

from ..library import xlogy


def index_values(ctx, size: int, position: int, depth: int):
    """The values 1..size of a running index, on its own axis among ``depth`` index axes."""
    shape = [1] * (depth + 1)
    shape[position + 1] = size
    values = np.arange(1, size + 1)
    if ctx.name == "float64":
        return values.astype(np.float64).reshape(shape)
    return ctx.asarray(values.astype(object).reshape(shape))


def product(ctx, x, axis: int):
    """The product over one axis, by the context's own multiplication (no ctx reduction has it)."""
    x = np.moveaxis(x, axis, 0)
    out = x[0]
    for k in range(1, x.shape[0]):
        out = out * x[k]
    return out


__all__ = ["index_values", "product", "xlogy"]
