"""RMSNorm is invariant to re-scaling its input (Zhang & Sennrich 2019), not to re-centering.

As printed (B. Zhang and R. Sennrich, "Root Mean Square Layer Normalization", NeurIPS 2019,
Abstract; read at https://deep.ai/publication/root-mean-square-layer-normalization):
    RMSNorm regularizes the summed inputs to a neuron in one layer according to root mean
    square (RMS), giving the model re-scaling invariance property

Reading.  RMSNorm(x) = x / RMS(x), RMS(x) = sqrt(mean(x_i^2)), without the gain; x != 0.
``as-printed``: RMSNorm(a x) = RMSNorm(x) for every a > 0.  ``with-eps``: the same with
RMS(x) = sqrt(mean(x_i^2) + eps), eps = 1e-6 (LLaMA's value), as implemented.
``re-centering``: the misreading that RMSNorm keeps LayerNorm's re-centering invariance,
RMSNorm(x + c 1) = RMSNorm(x).

Hand derivation.  RMS(a x) = a RMS(x) for a > 0, so the factor cancels (true).  With eps:
RMSNorm(a x) = a x / sqrt(a^2 m + eps) with m = mean(x^2), which equals x / sqrt(m + eps)
only if eps (a^2 - 1) = 0: false for every a != 1 (x = (1), a = 2: 2/sqrt(4 + 1e-6) !=
1/sqrt(1 + 1e-6)).  Re-centering: x = (1, -1), c = 1 gives (sqrt 2, 0) != (1, -1): false.

Verdict.  ``as-printed`` survives; ``with-eps`` (seed 0: x = (1), a = 2) and
``re-centering`` (x = (0, -1), c = 1: RMSNorm(x + c 1) = (sqrt 2, 0) against
RMSNorm(x) = (0, -sqrt 2))
are refuted from scratch, each with a ball-arithmetic certificate.  ``verify prove`` on
n = 2, x in [-2, 2]^2, a in [1/2, 2] proves it as an identity (sympy rewrites lhs - rhs to 0;
no enclosure could, the margin being 0 everywhere).
"""

from verifier import Claim, Dim, Hypothesis, Part, Reading, Scalar, Vector
from verifier.library import max_norm, rms_norm


def _eps(v):
    return v.params.get("eps", 0)


claim = Claim(
    id="rmsnorm-invariance",
    kind="property",
    paper="zhang-sennrich-2019",
    location="NeurIPS 2019, Abstract",
    title="RMSNorm is invariant to re-scaling",
    statement="RMSNorm ... giving the model re-scaling invariance property",
    dims=[Dim("n", 1, 6)],
    variables=[Vector("x", "n"), Scalar("a", lo=0), Scalar("c")],
    hypotheses=[
        Hypothesis("x != 0", lambda ctx, v: max_norm(ctx, v.x), strict=True),
        Hypothesis("a > 0", lambda ctx, v: v.a, strict=True),
    ],
    parts=[
        Part(
            "re-scaling",
            lhs=lambda ctx, v: rms_norm(ctx, v.a[:, None] * v.x, _eps(v)),
            rhs=lambda ctx, v: rms_norm(ctx, v.x, _eps(v)),
            relation="==",
            lhs_text="RMSNorm(a x)_i",
            rhs_text="RMSNorm(x)_i",
        ),
        Part(
            "re-centering",
            lhs=lambda ctx, v: rms_norm(ctx, v.x + v.c[:, None], _eps(v)),
            rhs=lambda ctx, v: rms_norm(ctx, v.x, _eps(v)),
            relation="==",
            lhs_text="RMSNorm(x + c 1)_i",
            rhs_text="RMSNorm(x)_i",
        ),
    ],
    readings=[
        Reading("as-printed", "RMSNorm(a x) = RMSNorm(x), a > 0, no eps.", parts=("re-scaling",)),
        Reading("with-eps", "As implemented: eps = 1e-6 inside the square root.", params={"eps": "1e-6"}, parts=("re-scaling",)),
        Reading("re-centering", "Misreading: RMSNorm(x + c 1) = RMSNorm(x), as for LayerNorm.", parts=("re-centering",)),
    ],
)
