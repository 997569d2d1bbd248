"""Multi-head, multi-layer Self-Attention Networks (Definitions 3.6, 3.7, A.1).

Weights of a whole network carry the shape ``batch x L x H x d x d`` (layer, head); the
weights of one layer ``batch x H x d x d``.  The networks themselves are
:func:`verifier.library.multi_head` and :func:`verifier.library.self_attention_network`
(with skip connections, Definition 3.7; no beta, Definition 1.1).
"""

from __future__ import annotations

from verifier import Variable
from verifier.library import multi_head, self_attention_network

#: SAtt_H(X) = sum_h softm(X Q_h K_h^T X^T) X V_h (Definition 3.6) for one layer's weights
heads = multi_head


def weights(layers: str, bounded=("Wq", "Wk", "Wv")) -> list[Variable]:
    """The variables Wq, Wk, Wv of a network (shape layers x H x d x d); the ``bounded`` ones
    have every entry within eta (a scalar variable ``eta`` declared before them)."""
    return [Variable(name, (layers, "H", "d", "d"), radius="eta" if name in bounded else None) for name in ("Wq", "Wk", "Wv")]


def layer(ctx, X, Wq, Wk, Wv):
    """One layer with its residual connection: X + SAtt_H(X) (Definition 3.7)."""
    return X + heads(ctx, X, Wq, Wk, Wv)


def outputs(ctx, X0, Wq, Wk, Wv, layers=None):
    """[X_0, X_1, ..., X_L]: the input and every layer's output (Definition 3.7)."""
    return self_attention_network(ctx, X0, Wq, Wk, Wv, skip=True, layers=layers)


def parallel_surrogate(ctx, X, Wq, Wk, Wv):
    """One layer holding every head of every layer, all applied to the input:

    S'(X) = X + sum_l sum_h SAtt_{l,h}(X).
    """
    out = X
    for l in range(Wq.shape[1]):
        out = out + heads(ctx, X, Wq[:, l], Wk[:, l], Wv[:, l])
    return out
