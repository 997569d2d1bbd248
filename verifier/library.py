"""Building blocks of attention papers, written once against ``ctx``.

Every function takes the numeric context first and arrays whose first axis is the batch
axis, so one definition runs in float64 batches (search), at arbitrary precision
(re-check), exactly where the result stays rational, in ball arithmetic (certificates) and
as sympy expressions.  Shapes below leave the batch axis out: "an n x d matrix" is an
array of shape ``(batch, n, d)``.

A scalar argument such as ``eps`` or ``beta`` may be a Python int, a ``Fraction``, a
decimal string (``"1e-5"`` means exactly 1/10^5) or a scalar variable (shape ``(batch,)``).

Contents: softmax (stable and literal), logsumexp, one attention head, multi-head
attention, a Self-Attention Network with and without skip connections, LayerNorm and
RMSNorm, the ``Res`` operator of a minimax argmin with its midrange and every other
minimiser, matrix and vector norms (the spectral norm rigorously enclosed in ball
arithmetic), entropy, cross-entropy and KL divergence (``0 log 0 = 0``), and
:func:`unique_argmin`, a part stating that an argmin is a single point.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

import mpmath
import numpy as np

from .errors import VerifierError
from . import contexts
from .claims import Part, Reading, Vector
from .contexts import NotRational

__all__ = [
    "attention_head",
    "column_ranges",
    "cross_entropy",
    "entropy",
    "kl_divergence",
    "xlogy",
    "frobenius_norm",
    "induced_norm_1",
    "induced_norm_inf",
    "layer_norm",
    "logsumexp",
    "max_norm",
    "minimiser_choices",
    "multi_head",
    "res",
    "res_midrange",
    "res_minimiser",
    "res_minimiser_bounds",
    "res_readings",
    "rms_norm",
    "self_attention_network",
    "softmax",
    "softmax_literal",
    "spectral_norm",
    "SpectralNormUnavailable",
    "unique_argmin",
    "vector_norm",
]


class SpectralNormUnavailable(VerifierError, ArithmeticError):
    """The context cannot give the spectral norm (names the context and what to use)."""


def _scalar(ctx, value, ndim: int):
    """A scalar argument shaped to broadcast against arrays of ``ndim`` axes (batch first)."""
    if isinstance(value, np.ndarray):
        if value.ndim == 1:
            return value.reshape(value.shape + (1,) * (ndim - 1))
        if value.ndim == ndim and all(s == 1 for s in value.shape[1:]):
            return value
        raise ValueError(f"a scalar argument must be a constant or a scalar variable of shape (batch,), got shape {value.shape}")
    if isinstance(value, float):
        raise TypeError(f"float {value!r} would round the exact value: pass a Fraction, an int or a string such as '1e-5'")
    return ctx.const(Fraction(value))


# ---------------------------------------------------------------------------- softmax
def softmax(ctx, X):
    """Softmax of each row (last axis), with the row maximum subtracted first.

    The shift leaves the value unchanged (exp(x - m) / sum exp(x - m) = exp(x) / sum exp(x))
    and keeps float64 from overflowing.  A claim about the shift itself should use
    :func:`softmax_literal`.
    """
    E = ctx.exp(X - ctx.max(X, -1, keepdims=True))
    return E / ctx.sum(E, -1, keepdims=True)


def softmax_literal(ctx, X):
    """exp(x) / sum_j exp(x_j) of each row, literally (overflows in float64 for x > 709)."""
    E = ctx.exp(X)
    return E / ctx.sum(E, -1, keepdims=True)


def logsumexp(ctx, X):
    """log sum_j exp(x_j) over the last axis (one value per row), computed as
    m + log sum_j exp(x_j - m) with m the row maximum."""
    m = ctx.max(X, -1, keepdims=True)
    return (m + ctx.log(ctx.sum(ctx.exp(X - m), -1, keepdims=True)))[..., 0]


# -------------------------------------------------------------------------- attention
def attention_head(ctx, X, Wq, Wk, Wv, beta=1):
    """softmax(beta X Wq Wk^T X^T) X Wv for an n x d input X and d x d weights.

    ``beta`` scales the scores (1/sqrt(d) in Vaswani et al.; 1 when a paper has none).
    """
    scores = X @ Wq @ np.swapaxes(Wk, -1, -2) @ np.swapaxes(X, -1, -2)
    if not (isinstance(beta, int) and beta == 1):
        # the array on the left: a scalar on the left would have to know numpy arrays
        scores = scores * _scalar(ctx, beta, scores.ndim)
    return softmax(ctx, scores) @ X @ Wv


def multi_head(ctx, X, Wq, Wk, Wv, beta=1):
    """sum_h attention_head(X; Wq_h, Wk_h, Wv_h) for weights of shape H x d x d.

    The heads' outputs are summed, which is concatenation followed by an output projection
    made of stacked identities; a paper with its own W_O multiplies the result by it.
    """
    out = attention_head(ctx, X, Wq[:, 0], Wk[:, 0], Wv[:, 0], beta)
    for h in range(1, Wq.shape[1]):
        out = out + attention_head(ctx, X, Wq[:, h], Wk[:, h], Wv[:, h], beta)
    return out


def self_attention_network(ctx, X0, Wq, Wk, Wv, skip=True, beta=1, layers=None):
    """[X_0, X_1, ..., X_L] for weights of shape L x H x d x d.

    With ``skip``: X_{l+1} = X_l + multi_head(X_l); without: X_{l+1} = multi_head(X_l) (the
    pure-attention network whose rank collapses).  ``layers`` stops after that many layers.
    """
    L = Wq.shape[1] if layers is None else layers
    xs = [X0]
    for l in range(L):
        out = multi_head(ctx, xs[-1], Wq[:, l], Wk[:, l], Wv[:, l], beta)
        xs.append(xs[-1] + out if skip else out)
    return xs


# ----------------------------------------------------------------------- normalisation
def layer_norm(ctx, X, eps=0):
    """(x - mean(x)) / sqrt(var(x) + eps) of each row (last axis), without gain or bias.

    The variance is the biased one (divided by the row length), as in Ba et al. (2016) and
    in every deep-learning framework.  ``eps = 0`` is the definition as printed; a row of
    equal entries then divides by zero (nan in float64, ZeroDivisionError exactly).
    """
    n = ctx.const(X.shape[-1])
    centred = X - ctx.sum(X, -1, keepdims=True) / n
    var = ctx.sum(centred * centred, -1, keepdims=True) / n
    if not (isinstance(eps, int) and eps == 0):
        var = var + _scalar(ctx, eps, X.ndim)
    return centred / ctx.sqrt(var)


def rms_norm(ctx, X, eps=0):
    """x / sqrt(mean(x^2) + eps) of each row (last axis), without gain (Zhang & Sennrich 2019)."""
    ms = ctx.sum(X * X, -1, keepdims=True) / ctx.const(X.shape[-1])
    if not (isinstance(eps, int) and eps == 0):
        ms = ms + _scalar(ctx, eps, X.ndim)
    return X / ctx.sqrt(ms)


# -------------------------------------------------------------------------------- Res
def column_ranges(ctx, Z):
    """Per-column maximum and minimum over the rows of an n x d matrix (each 1 x d)."""
    return ctx.max(Z, -2, keepdims=True), ctx.min(Z, -2, keepdims=True)


def res_midrange(ctx, Z):
    """Z - 1_n y^T with y the per-column midrange: one minimiser of ||Z - 1_n y^T||_max.

    For a single column (d = 1) it is the only minimiser; for d >= 2 the argmin is an
    interval in every column narrower than the widest (see :func:`res_minimiser_bounds`).
    """
    hi, lo = column_ranges(ctx, Z)
    return Z - (hi + lo) / 2


def res_minimiser_bounds(ctx, Z):
    """The lowest and highest minimisers y_lo <= y_hi of ||Z - 1_n y^T||_max (each 1 x d).

    The optimal value is m = max_j range_j / 2, and y is a minimiser exactly when
    max_i Z_ij - m <= y_j <= min_i Z_ij + m for every column j.
    """
    hi, lo = column_ranges(ctx, Z)
    m = ctx.max(hi - lo, -1, keepdims=True) / 2
    return hi - m, lo + m


def res_minimiser(ctx, Z, t):
    """Z - 1_n y^T with the minimiser y = y_lo + t (y_hi - y_lo), t in [0, 1]^d (shape d).

    As t ranges over [0, 1]^d this is every minimiser; t = 1/2 is the midrange.
    """
    lower, upper = res_minimiser_bounds(ctx, Z)
    return Z - (lower + t[:, None, :] * (upper - lower))


#: ``v.params["res"]`` of the two readings of a claim that applies Res
RES_MIDRANGE = {"res": "midrange"}
RES_ADVERSARIAL = {"res": "adversarial"}


def res(ctx, v, Z, t_name):
    """Res(Z) under the reading: the midrange, or the minimiser chosen by the variable ``t_name``
    when ``v.params["res"] == "adversarial"`` (see :func:`res_readings`)."""
    if v.params.get("res") == "adversarial":
        return res_minimiser(ctx, Z, v[t_name])
    return res_midrange(ctx, Z)


def minimiser_choices(*names, dim="d"):
    """One variable t in [0, 1]^dim per application of Res: the adversary's choice of minimiser."""
    return tuple(Vector(n, dim, lo=0, hi=1, description="which minimiser Res picks") for n in names)


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


# ------------------------------------------------------------------------------ norms
def max_norm(ctx, A):
    """max_{i,j} |A_ij| over every non-batch axis (called ||A||_inf by many papers)."""
    return ctx.norm_inf(A)


def induced_norm_1(ctx, A):
    """The operator norm ||A||_1 = max_j sum_i |A_ij| (largest column sum)."""
    return ctx.max(ctx.sum(ctx.abs(A), -2), -1)


def induced_norm_inf(ctx, A):
    """The operator norm ||A||_inf = max_i sum_j |A_ij| (largest row sum)."""
    return ctx.max(ctx.sum(ctx.abs(A), -1), -1)


def frobenius_norm(ctx, A):
    """sqrt(sum_{i,j} A_ij^2)."""
    return ctx.sqrt(ctx.sum_all(A * A))


# ----------------------------------------------------------------- information theory
def xlogy(ctx, x, y):
    """``x log y`` entrywise, with ``0 log y = 0`` where ``x`` is exactly 0 (the convention of
    entropy and KL divergence: a zero probability adds nothing, whatever ``y``).

    float64: ``scipy.special.xlogy``.  Other contexts: the entries of ``x`` that are exactly 0
    (a rational 0, an exact zero ball) give that 0; the rest ``x * ctx.log(y)``, so a ball
    around 0 or a symbolic term is not decided by a guess (z3 still says log is not decidable).
    """
    if isinstance(ctx, contexts.FloatContext):
        import scipy.special  # the float64 context has loaded it already

        with np.errstate(divide="ignore", invalid="ignore"):
            return scipy.special.xlogy(x, y)
    x, y = np.broadcast_arrays(x, y, subok=True)
    zero = np.frompyfunc(_exactly_zero, 1, 1)(np.asarray(x, dtype=object)).astype(bool)
    if not zero.any():
        return x * ctx.log(y)
    safe = np.where(zero, 1, np.asarray(y, dtype=object))  # log 1 = 0 in every context: no domain error
    out = np.array(x * ctx.log(safe), dtype=object)  # a plain array: ctx.log lifts its ints
    out[zero] = np.asarray(x, dtype=object)[zero]  # the context's own exact zero
    return ctx.wrap(out)


def _exactly_zero(a) -> bool:
    try:
        return bool(a == 0)
    except Exception:  # a z3 term or an enclosure that cannot say: not known to be 0
        return False


def entropy(ctx, p, axis=-1):
    """Shannon entropy ``-sum_i p_i log p_i`` (natural log) over ``axis`` (a probability vector's entries)."""
    return -ctx.sum(xlogy(ctx, p, p), axis)


def cross_entropy(ctx, p, q, axis=-1):
    """Cross-entropy ``-sum_i p_i log q_i`` over ``axis``; ``q_i = 0`` where ``p_i > 0`` is outside its domain
    (``+inf`` in float64, a domain error elsewhere: never a counterexample)."""
    return -ctx.sum(xlogy(ctx, p, q), axis)


def kl_divergence(ctx, p, q, axis=-1):
    """KL divergence ``D(p || q) = sum_i p_i log(p_i / q_i)`` over ``axis``, with ``0 log(0/q) = 0``;
    ``q_i = 0`` where ``p_i > 0`` is outside its domain, as for :func:`cross_entropy`."""
    return ctx.sum(xlogy(ctx, p, p) - xlogy(ctx, p, q), axis)


def vector_norm(ctx, x, p):
    """The p-norm of a vector (shape n) for p = 1, 2 or "inf"."""
    if p == 1:
        return ctx.sum(ctx.abs(x), -1)
    if p == 2:
        return ctx.sqrt(ctx.sum(x * x, -1))
    if p in ("inf", np.inf):
        return ctx.max(ctx.abs(x), -1)
    raise ValueError(f"vector_norm: p must be 1, 2 or 'inf', got {p!r}")


def spectral_norm(ctx, A):
    """The largest singular value of an m x k matrix, sqrt(lambda_max(A^T A)).

    float64: numpy's SVD.  mpmath: its SVD at the working precision.  Ball: the eigenvalues
    of A^T A enclosed by Arb (python-flint ``acb_mat.eig(multiple=True)``, a verified
    enclosure computed in ball arithmetic on the entries' balls), so the result is rigorous.
    Symbolic: sympy's exact eigenvalues.  Exact: the value is algebraic, rational only by
    accident, so :class:`~verifier.contexts.NotRational` is raised and a certificate falls
    back to ball arithmetic.  Any other context raises :class:`SpectralNormUnavailable`.
    """
    if isinstance(ctx, contexts.FloatContext):
        A = np.asarray(A, dtype=np.float64)
        # a search batch may hold overflowed candidates; LAPACK's SVD fails on them
        finite = np.isfinite(A).all(axis=(-2, -1))
        out = np.full(A.shape[:-2], np.nan)
        out[finite] = np.linalg.norm(A[finite], 2, axis=(-2, -1))
        return out
    if isinstance(ctx, contexts.ExactContext):
        raise NotRational("the spectral norm is algebraic, not rational in general: use the ball context")
    if isinstance(ctx, contexts.MPContext):
        return _per_matrix(A, lambda M: max(mpmath.svd_r(mpmath.matrix(M.tolist()), compute_uv=False)))
    if isinstance(ctx, contexts.BallContext):
        return _per_matrix(A, _ball_spectral_norm)
    if isinstance(ctx, contexts.SymbolicContext):
        return _per_matrix(A, _symbolic_spectral_norm)
    raise SpectralNormUnavailable(f"the {ctx.name} context cannot give the spectral norm; bound it by frobenius_norm or state the claim without it")


def _per_matrix(A, fn):
    out = np.empty(A.shape[:-2], dtype=object)
    for idx in np.ndindex(*out.shape):
        out[idx] = fn(A[idx])
    return out


def _gram(M):
    """The smaller of M^T M and M M^T (same nonzero eigenvalues)."""
    return M.T @ M if M.shape[1] <= M.shape[0] else M @ M.T


def _ball_spectral_norm(M):
    from flint import acb_mat, arb

    G = _gram(M)
    try:
        eigs = acb_mat(G.tolist()).eig(multiple=True)
    except ValueError as exc:
        raise SpectralNormUnavailable(f"ball arithmetic could not isolate the eigenvalues of A^T A ({exc}); raise the precision") from None
    lam = eigs[0].real
    for e in eigs[1:]:
        lam = contexts.BallContext.max2(lam, e.real)
    # A^T A is positive semidefinite: the part of the ball below zero holds no eigenvalue
    lam = contexts.BallContext.max2(lam, arb(0))
    return lam.sqrt()


def _symbolic_spectral_norm(M):
    import sympy  # the symbolic context has loaded it already

    eigenvalues = list(sympy.Matrix(_gram(M).tolist()).eigenvals())
    return sympy.sqrt(sympy.Max(*eigenvalues))


# ------------------------------------------------------------------ a unique argmin
def unique_argmin(
    name: str,
    minimisers: Callable[[Any, Any], tuple[Any, Any]],
    objective: Callable[[Any, Any, Any], Any] | None = None,
    *,
    statement: str = "",
    names: tuple[str, str] = ("y_lo", "y_hi"),
    objective_text: str = "objective at {y}",
    lhs_text: str = "",
    rhs_text: str = "",
) -> Part:
    """A part stating that an argmin is a single point, so a definition built on it is well posed.

    ``minimisers(ctx, v)`` returns two minimisers that coincide exactly when the argmin is
    unique (the lowest and the highest, say, each with the batch axis first).  The part
    compares them entrywise with ``==``; a certified violation is a witness that the
    definition is ill-posed, and a reader sees both minimisers and, with ``objective(ctx,
    v, y)``, the optimal value each attains.  Give the claim ``refuted_verdict="ill-posed"``.
    """
    lo_name, hi_name = names
    show = [
        (f"minimiser {lo_name}", lambda ctx, v: minimisers(ctx, v)[0]),
        (f"minimiser {hi_name}", lambda ctx, v: minimisers(ctx, v)[1]),
    ]
    if objective is not None:
        show += [
            (objective_text.format(y=lo_name), lambda ctx, v: objective(ctx, v, minimisers(ctx, v)[0])),
            (objective_text.format(y=hi_name), lambda ctx, v: objective(ctx, v, minimisers(ctx, v)[1])),
        ]
    return Part(
        name,
        lhs=lambda ctx, v: minimisers(ctx, v)[0],
        rhs=lambda ctx, v: minimisers(ctx, v)[1],
        relation="==",
        statement=statement or f"the minimisers {lo_name} and {hi_name} coincide",
        lhs_text=lhs_text or lo_name,
        rhs_text=rhs_text or hi_name,
        show=tuple(show),
    )
