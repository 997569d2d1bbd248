"""Definitions shared by the claims of Alman & Song, written once against a numeric context.

Each function takes the context first and arrays with a leading batch axis, so it runs in
float64 batches, at arbitrary precision, exactly and in ball arithmetic alike.
"""

from __future__ import annotations

from verifier import Reading, Vector


def column_ranges(ctx, Z):
    """Per-column maximum and minimum over the rows of Z (shape batch x n x d)."""
    return ctx.max(Z, -2, keepdims=True), ctx.min(Z, -2, keepdims=True)


def res_midrange(ctx, Z):
    """Res(Z) = Z - 1_n y^T with y the per-column midrange.

    Definition 3.4 takes y := argmin_y ||Z - 1_n y^T||_inf (entrywise max norm).  The
    midrange of every column is always one minimiser; for d = 1 it is the only one.
    """
    hi, lo = column_ranges(ctx, Z)
    return Z - (hi + lo) / 2


def res_chosen(ctx, Z, t):
    """Res(Z) with the minimiser chosen by t in [0, 1]^d among *all* valid minimisers.

    The optimal value is m = max_j (range_j / 2).  Column j's y_j is a valid choice
    exactly when max_i Z_ij - m <= y_j <= min_i Z_ij + m; t_j picks a point of that
    interval (t_j = 1/2 is the midrange).  ``t`` has shape batch x d.
    """
    hi, lo = column_ranges(ctx, Z)
    m = ctx.max(hi - lo, -1, keepdims=True) / 2
    lower, upper = hi - m, lo + m
    y = lower + t[:, None, :] * (upper - lower)
    return Z - y


def softm(ctx, X):
    """Row-wise softmax (Definition 3.1), evaluated with the row maximum subtracted.

    The shift is exact mathematics (Fact 3.2) and keeps float64 from overflowing.  Claims
    that test shift-invariance itself use :func:`softm_by_definition`.
    """
    Z = X - ctx.max(X, -1, keepdims=True)
    E = ctx.exp(Z)
    return E / ctx.sum(E, -1, keepdims=True)


def softm_by_definition(ctx, X):
    """softm(x) := alpha(x)^{-1} exp(x), literally (Definition 3.1)."""
    E = ctx.exp(X)
    return E / ctx.sum(E, -1, keepdims=True)


def alpha(ctx, x):
    """alpha(x) := <exp(x), 1_n> for vectors x (batch x n)."""
    return ctx.sum(ctx.exp(x), -1)


def balance(ctx, E):
    """max_i max_{j,l} |E_ij - E_il|: the smallest theta for which E is theta-balanced (Def. 3.5)."""
    row_range = ctx.max(E, -1) - ctx.min(E, -1)
    return ctx.max(row_range, -1)


def satt(ctx, X, Wq, Wk, Wv, beta=1):
    """One attention head (Definition 1.1 / 3.6): softm(beta X Wq Wk^T X^T) X Wv.

    Definition 1.1 has no beta; Lemma 5.1 introduces beta = 1/sqrt(d_0) on the scores.
    Pass ``beta=1`` for the definition as printed.
    """
    scores = beta * (X @ Wq @ ctx.T(Wk) @ ctx.T(X))
    return softm(ctx, scores) @ X @ Wv


def res_bounds(ctx, Z):
    """The two extreme minimisers of Definition 3.4: y_lo <= y <= y_hi (entrywise, shape batch x 1 x d).

    Every y between them is a minimiser, and only those; the argmin is unique exactly when
    y_lo = y_hi, i.e. when every column of Z has the same range.
    """
    hi, lo = column_ranges(ctx, Z)
    m = ctx.max(hi - lo, -1, keepdims=True) / 2
    return hi - m, lo + m


# --- the two readings of Res for every claim that applies it ------------------------------
#: ``v.params["res"]`` is "midrange" (the natural choice) or "adversarial" (a minimiser picked
#: by extra variables t in [0, 1]^d, one per application of Res)
RES_MIDRANGE = {"res": "midrange"}
RES_ADVERSARIAL = {"res": "adversarial"}


def res(ctx, v, Z, t_name):
    """Res(Z) under the reading: the midrange minimiser, or the one chosen by ``v[t_name]``."""
    if v.params.get("res") == "adversarial":
        return res_chosen(ctx, Z, v[t_name])
    return res_midrange(ctx, Z)


def minimiser_choices(*names, dim="d"):
    """The extra variables of an adversarial reading: one t in [0, 1]^dim per Res application."""
    return tuple(Vector(n, dim, lo=0, hi=1, description="which minimiser Res picks") for n in names)


def split_res(ctx, v, X, t_name):
    """X = 1_n x^T + R with R = Res(X) under the reading; returns (x^T as a 1 x d row, R)."""
    R = res(ctx, v, X, t_name)
    return (X - R)[:, :1, :], R


def res_readings(*t_names):
    """The ``midrange`` and ``adversarial`` readings of a claim that applies Res."""
    return (
        Reading("midrange", "Res picks the per-column midrange minimiser of Definition 3.4.", params=RES_MIDRANGE),
        Reading(
            "adversarial",
            f"Res picks any minimiser of Definition 3.4 (chosen adversarially by {', '.join(t_names)} in [0, 1]^d).",
            params=RES_ADVERSARIAL,
            extra_variables=minimiser_choices(*t_names),
        ),
    )
