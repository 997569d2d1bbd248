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
    """BERT's GELU in its tanh form, 0.5 X (1 + tanh(c (X + 0.044715 X^3))), in place on ``X``
    (the MLP's hidden layer is the largest array of a run; temporaries would double the peak)."""
    inner = X * X
    inner *= X
    inner *= 0.044715
    inner += X
    inner *= np.asarray(np.sqrt(2.0 / np.pi), dtype=X.dtype)  # a float64 scalar would compute in float64
    np.tanh(inner, out=inner)
    inner += 1.0
    inner *= 0.5
    X *= inner
    return X


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


def _rows(X: np.ndarray) -> np.ndarray:
    """A batch x n x d array as one (batch n) x d matrix: a single large GEMM runs at BLAS speed,
    a stack of n x d products is several times slower."""
    return X.reshape(-1, X.shape[-1])


def attention_contexts(qkv: np.ndarray, heads: int, score_scale: float = 1.0, value_scale: float = 1.0) -> np.ndarray:
    """softm(scale q_h k_h^T / sqrt(d/H)) v_h of every head, batch x H x n x d/H.

    ``qkv`` is batch x n x 3d, the projections X [Wq Wk Wv].  The per-head products are small
    (n x d/H): on two BLAS threads they were 4 to 20 times slower than on one (the threads wait
    on each other), so callers run this on one.
    """
    batch, n, three_d = qkv.shape
    head_width = three_d // (3 * heads)
    q, k, v = qkv.reshape(batch, n, 3, heads, head_width).transpose(2, 0, 3, 1, 4)
    scale = np.asarray(score_scale / np.sqrt(head_width), dtype=qkv.dtype)
    weights = softmax_rows((q * scale) @ np.swapaxes(k, -1, -2))
    return weights @ (v * np.asarray(value_scale, dtype=qkv.dtype) if value_scale != 1.0 else v)


def merge_heads(contexts: np.ndarray) -> np.ndarray:
    """batch x H x n x d/H contexts as the batch x n x d concatenation of the heads."""
    batch, heads, n, head_width = contexts.shape
    return contexts.transpose(0, 2, 1, 3).reshape(batch, n, heads * head_width)


def bert_attention(X: np.ndarray, Wqkv: np.ndarray, Wo: np.ndarray, heads: int) -> np.ndarray:
    """BERT's multi-head attention (biases zero at initialisation), scores scaled by 1/sqrt(d/H).

    ``X`` is batch x n x d, ``Wqkv`` = [Wq Wk Wv] is d x 3d, ``Wo`` d x d; head h uses columns
    h*d/H ... (h+1)*d/H - 1 of each of Wq, Wk, Wv.
    """
    qkv = (_rows(X) @ Wqkv).reshape(*X.shape[:-1], Wqkv.shape[1])
    return (_rows(merge_heads(attention_contexts(qkv, heads))) @ Wo).reshape(X.shape)


def bert_mlp(X: np.ndarray, W1: np.ndarray, W2: np.ndarray) -> np.ndarray:
    """BERT's feed-forward block (biases zero at initialisation): GELU(X W1) W2."""
    return (gelu(_rows(X) @ W1) @ W2).reshape(X.shape)
