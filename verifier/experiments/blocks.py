"""Numeric building blocks of the experiments, in plain numpy at the array's own dtype.

The claim-level mathematics (Definitions 3.4, 3.6, 3.7 and the surrogates of Theorem D.1,
written once against ``ctx``) lives in the claim pack; these experiments run the same
definitions in float64 or float32 batches only, because BERT-sized networks need BLAS
speed that the pack's context layer (built for exact and ball arithmetic) does not aim for.
"""

from __future__ import annotations

import numpy as np


def softmax_rows(scores: np.ndarray) -> np.ndarray:
    """Row-wise softmax with the row maximum subtracted (exact mathematics, no overflow)."""
    shifted = scores - scores.max(axis=-1, keepdims=True)
    np.exp(shifted, out=shifted)
    shifted /= shifted.sum(axis=-1, keepdims=True)
    return shifted


def layer_norm(X: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    """BERT's LayerNorm at initialisation (gain 1, bias 0, eps 1e-12), over the feature axis."""
    centred = X - X.mean(axis=-1, keepdims=True)
    variance = np.mean(centred * centred, axis=-1, keepdims=True)
    return centred / np.sqrt(variance + eps)


def gelu(X: np.ndarray) -> np.ndarray:
    """BERT's GELU in its tanh form."""
    c = np.asarray(np.sqrt(2.0 / np.pi), dtype=X.dtype)
    return 0.5 * X * (1.0 + np.tanh(c * (X + 0.044715 * X * X * X)))


def paper_heads(X: np.ndarray, Wq: np.ndarray, Wk: np.ndarray, Wv: np.ndarray) -> np.ndarray:
    """SAtt_H(X) = sum_h softm(X Q_h K_h^T X^T) X V_h (Definition 3.6, no 1/sqrt(d) factor).

    ``X`` is batch x n x d, the weights H x d x d.
    """
    out = np.zeros_like(X)
    for Q, K, V in zip(Wq, Wk, Wv):
        scores = (X @ (Q @ K.T)) @ np.swapaxes(X, -1, -2)
        out += softmax_rows(scores) @ (X @ V)
    return out


def paper_san(X: np.ndarray, Wq: np.ndarray, Wk: np.ndarray, Wv: np.ndarray) -> np.ndarray:
    """Definition 3.7: X_{l+1} = X_l + SAtt_H(X_l) for the L layers of weights L x H x d x d."""
    for layer in range(Wq.shape[0]):
        X = X + paper_heads(X, Wq[layer], Wk[layer], Wv[layer])
    return X


def paper_parallel_surrogate(X, Wq, Wk, Wv):
    """The one-layer network of Theorem D.1's proof: X + sum_l sum_h SAtt_{l,h}(X)."""
    return X + sum(paper_heads(X, Wq[layer], Wk[layer], Wv[layer]) for layer in range(Wq.shape[0]))


def bert_attention(X: np.ndarray, Wq, Wk, Wv, Wo, heads: int) -> np.ndarray:
    """BERT's multi-head attention (biases zero at initialisation), scores scaled by 1/sqrt(d/H).

    ``X`` is batch x n x d; Wq, Wk, Wv, Wo are d x d; head h uses columns h*d/H ... of Wq, Wk, Wv.
    """
    batch, n, d = X.shape
    head_width = d // heads

    def split(M):
        return (X @ M).reshape(batch, n, heads, head_width).transpose(0, 2, 1, 3)

    q, k, v = split(Wq), split(Wk), split(Wv)
    scale = np.asarray(1.0 / np.sqrt(head_width), dtype=X.dtype)
    weights = softmax_rows((q * scale) @ np.swapaxes(k, -1, -2))
    context = (weights @ v).transpose(0, 2, 1, 3).reshape(batch, n, d)
    return context @ Wo


def bert_mlp(X: np.ndarray, W1: np.ndarray, W2: np.ndarray) -> np.ndarray:
    """BERT's feed-forward block (biases zero at initialisation): GELU(X W1) W2."""
    return gelu(X @ W1) @ W2
