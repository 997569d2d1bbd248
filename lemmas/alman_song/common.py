"""The paper's names for the verifier's building blocks, and the definitions only it uses.

Softmax, attention and ``Res`` are written once in :mod:`verifier.library`; this module
gives them the names the paper prints (``softm``, ``satt``) and adds what is particular to
Alman & Song: ``alpha`` (Definition 3.1) and theta-balance (Definition 3.5).
"""

from __future__ import annotations

from verifier.library import (  # noqa: F401  (re-exported under the paper's names)
    RES_ADVERSARIAL,
    RES_MIDRANGE,
    attention_head,
    minimiser_choices,
    res,
    res_midrange,
    res_minimiser,
    res_minimiser_bounds,
    res_readings,
    softmax,
    softmax_literal,
)

#: Definition 3.1's row softmax (stable; the shift is exact mathematics by Fact 3.2)
softm = softmax
#: softm(x) := alpha(x)^{-1} exp(x), literally, for claims that test the shift itself
softm_by_definition = softmax_literal
#: Res(Z) with the minimiser chosen by t in [0, 1]^d among all minimisers of Definition 3.4
res_chosen = res_minimiser
#: the lowest and highest minimisers of Definition 3.4
res_bounds = res_minimiser_bounds


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
    """
    return attention_head(ctx, X, Wq, Wk, Wv, beta)


def split_res(ctx, v, X, t_name):
    """X = 1_n x^T + R with R = Res(X) under the reading; returns (x^T as a 1 x d row, R)."""
    R = res(ctx, v, X, t_name)
    return (X - R)[:, :1, :], R
