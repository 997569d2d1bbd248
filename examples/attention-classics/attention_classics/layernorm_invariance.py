"""LayerNorm is invariant to re-centering and re-scaling its input; with eps it is not.

As printed (B. Zhang and R. Sennrich, "Root Mean Square Layer Normalization", NeurIPS 2019,
Abstract; read at https://deep.ai/publication/root-mean-square-layer-normalization):
    Layer normalization (LayerNorm) has been successfully applied to various deep neural
    networks to help stabilize training and boost model convergence because of its
    capability in handling re-centering and re-scaling of both inputs and weight matrix.

Reading.  LN(x) = (x - mean(x)) / sqrt(var(x)) (biased variance, Ba et al. 2016), no gain
or bias; the inputs' half: LN(a x + c 1) = LN(x) for a > 0, any c, var(x) > 0.
``with-eps``: as implemented, sqrt(var(x) + eps) with eps = 1e-5 (PyTorch's default,
https://mlverse.github.io/torch/reference/nn_layer_norm.html: "Default: 1e-5").

Hand derivation.  mean(a x + c) = a mean(x) + c and var(a x + c) = a^2 var(x), so the
shift cancels and the factor a > 0 cancels (true).  With eps the factor does not cancel:
LN_eps(a x) = a (x - mean) / sqrt(a^2 v + eps) != (x - mean) / sqrt(v + eps) when a != 1,
v = var(x) > 0 (x = (1, -1), a = 2: 2/sqrt(4 + 1e-5) != 1/sqrt(1 + 1e-5)): false.

Verdict.  ``as-printed`` survives; ``with-eps`` is refuted from scratch (seed 0: x = (0, 1),
a = 2, ball arithmetic).  ``verify prove`` proves it as an identity (sympy rewrites
lhs - rhs to 0; no enclosure could, the margin being 0 everywhere).
"""

from verifier import Claim, Dim, Hypothesis, Part, Reading, Scalar, Vector
from verifier.library import layer_norm


def _variance(ctx, x):
    centred = x - ctx.sum(x, -1, keepdims=True) / x.shape[-1]
    return ctx.sum(centred * centred, -1) / x.shape[-1]


claim = Claim(
    id="layernorm-invariance",
    kind="property",
    paper="zhang-sennrich-2019",
    location="NeurIPS 2019, Abstract",
    title="LayerNorm is invariant to re-centering and re-scaling of its input",
    statement="LayerNorm ... handling re-centering and re-scaling of both inputs and weight matrix",
    dims=[Dim("n", 2, 6)],
    variables=[Vector("x", "n"), Scalar("a", lo=0), Scalar("c")],
    hypotheses=[
        Hypothesis("var(x) > 0", lambda ctx, v: _variance(ctx, v.x), strict=True),
        Hypothesis("a > 0", lambda ctx, v: v.a, strict=True),
    ],
    parts=[
        Part(
            "inputs",
            lhs=lambda ctx, v: layer_norm(ctx, v.a[:, None] * v.x + v.c[:, None], v.params.get("eps", 0)),
            rhs=lambda ctx, v: layer_norm(ctx, v.x, v.params.get("eps", 0)),
            relation="==",
            lhs_text="LN(a x + c 1)_i",
            rhs_text="LN(x)_i",
        )
    ],
    readings=[
        Reading("as-printed", "LN(a x + c 1) = LN(x) for a > 0, no eps."),
        Reading("with-eps", "As implemented: eps = 1e-5 added to the variance.", params={"eps": "1e-5"}),
    ],
)
