"""Benchmark-local copies of claims that are not (yet) in the registry on this branch.

Only used when the registry has no claim of the same id: after the claim pack is merged the
benchmark runs the registry's own Lemma 5.1.  Not part of the pack (``lemmas/`` owns that).

Lemma 5.1 (Section 5.1), as printed: with W = W_q W_k^T, E = beta Res(X) W Res(X)^T
theta-balanced and K = (e^theta - 1) ||W_v||_inf, ||Res(SAtt(X))||_inf <= K ||Res(X)||_inf.
Reading for the benchmark: beta = 1 (d_0 = 1), theta >= balance(E) (the search sits on the
bound), Res by per-column midrange, norms entrywise.  The proof drops the 1_n r^T term of
the scores (r = beta R (W^T x + b)), which a common row offset x makes large while E stays
small: that is where it fails.
"""

from verifier import Claim, Dim, Matrix, Part, Scalar

from lemmas.alman_song.common import balance, res_midrange, satt


def _E(ctx, v):
    R = res_midrange(ctx, v.X)
    return R @ v.Wq @ ctx.T(v.Wk) @ ctx.T(R)


lemma_5_1 = Claim(
    id="5.1",
    kind="lemma",
    paper="alman-song-2025",
    location="Section 5.1 (benchmark-local copy)",
    title="Res of one attention layer (benchmark copy)",
    statement="If E = beta Res(X) W Res(X)^T is theta-balanced, K = (e^theta - 1)||W_v||_inf, then ||Res(SAtt(X))||_inf <= K ||Res(X)||_inf.",
    notes="Benchmark-local copy, beta = 1; theta on or above balance(E).",
    dims=[Dim("n", 2, 4), Dim("d", 1, 3)],
    variables=[
        Matrix("X", "n", "d"),
        Matrix("Wq", "d", "d"),
        Matrix("Wk", "d", "d"),
        Matrix("Wv", "d", "d"),
        Scalar("theta", lower=lambda ctx, v: balance(ctx, _E(ctx, v)), lower_text="balance(E)"),
    ],
    parts=[
        Part(
            "main",
            lhs=lambda ctx, v: ctx.norm_inf(res_midrange(ctx, satt(ctx, v.X, v.Wq, v.Wk, v.Wv))),
            rhs=lambda ctx, v: (ctx.exp(v.theta) - 1) * ctx.norm_inf(v.Wv) * ctx.norm_inf(res_midrange(ctx, v.X)),
            lhs_text="||Res(SAtt(X))||_inf",
            rhs_text="K ||Res(X)||_inf",
        )
    ],
)

CLAIMS = [lemma_5_1]
