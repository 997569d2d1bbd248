"""Every building block of verifier.library in every context, on seeded random inputs and on
values known by hand.

Inputs are exact rationals; each context converts them itself, so float64, mpmath (50
digits), exact rationals, Arb balls and sympy all see the same numbers.  float64 must agree
with mpmath to 1e-9 (relative); the ball must enclose the mpmath value; the exact value,
where the block stays rational, must equal mpmath's and lie inside the ball; sympy's value
must agree with mpmath to 30 digits.
"""

from __future__ import annotations

import random
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy
from flint import arb, fmpq

from verifier import Claim, Dim, Matrix
from verifier import library as lib
from verifier.certify import Certifier
from verifier.contexts import EXACT, FLOAT, BallContext, MPContext, NotRational, SymbolicContext
from verifier.engine import SearchConfig, run_check
from verifier.prove.z3ctx import Z3Context
from verifier.results import Verdict

MP = MPContext(50)
BALL = BallContext(200)
SYM = SymbolicContext()


def rational_array(rng: random.Random, shape, scale=3):
    flat = [Fraction(rng.randint(-4 * scale, 4 * scale), rng.choice([1, 2, 3, 4])) for _ in range(int(np.prod(shape)))]
    return np.array(flat, dtype=object).reshape((1,) + tuple(shape))


def run(ctx, fn, *args):
    """fn(ctx, *args) with every array argument converted by ctx, inside its precision."""
    with ctx.precision():
        converted = [ctx.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
        out = fn(ctx, *converted)
    return np.asarray(out, dtype=object)


def mpf_of(x):
    if isinstance(x, arb):
        return mpmath.mpf(x.mid().str(60, radius=False))
    if isinstance(x, fmpq):
        return mpmath.mpf(int(x.p)) / int(x.q)
    if isinstance(x, sympy.Basic):
        return mpmath.mpf(str(sympy.N(x, 40)))
    return mpmath.mpf(x)


def _dyadic(x: arb) -> Fraction:
    m, e = x.man_exp()
    return Fraction(int(m)) * Fraction(2) ** int(e)


def ball_contains(b: arb, q: fmpq) -> bool:
    """Exactly: q lies in b (converting q to a ball would round it)."""
    return _dyadic(b.lower()) <= Fraction(int(q.p), int(q.q)) <= _dyadic(b.upper())


def assert_agree(fn, *args, exact=False, symbolic=True):
    with mpmath.workdps(50):
        ref = run(MP, fn, *args)
        fl = run(FLOAT, fn, *[a.astype(np.float64) if isinstance(a, np.ndarray) else a for a in args])
        ball = run(BALL, fn, *args)
        assert ref.shape == fl.shape == ball.shape
        for r, f, b in zip(ref.flat, fl.flat, ball.flat):
            assert abs(float(f) - float(r)) <= 1e-9 * max(1.0, abs(float(r))), (f, r)
            assert b.rad() < arb("1e-40"), b
            assert abs(mpf_of(b) - r) <= mpmath.mpf(b.rad().str(20, radius=False).strip("[]")) + mpmath.mpf("1e-45"), (b, r)
        if exact:
            ex = run(EXACT, fn, *args)
            for e, r, b in zip(ex.flat, ref.flat, ball.flat):
                assert isinstance(e, fmpq)
                assert abs(mpf_of(e) - r) < mpmath.mpf("1e-45")
                assert ball_contains(b, e)
        if symbolic:
            sym = run(SYM, fn, *args)
            for s, r in zip(sym.flat, ref.flat):
                assert abs(mpf_of(s) - r) < mpmath.mpf("1e-30") * max(1, abs(r)), (s, r)


SEEDS = range(6)


def shapes(seed):
    rng = random.Random(seed)
    return rng, rng.randint(1, 3), rng.randint(1, 3)


@pytest.mark.parametrize("seed", SEEDS)
def test_softmax_and_logsumexp_agree_in_every_context(seed):
    rng, n, d = shapes(seed)
    X = rational_array(rng, (n, d))
    assert_agree(lib.softmax, X)
    assert_agree(lib.softmax_literal, X)
    assert_agree(lib.logsumexp, X)


@pytest.mark.parametrize("seed", SEEDS)
def test_attention_blocks_agree_in_every_context(seed):
    rng, n, d = shapes(seed)
    X = rational_array(rng, (n, d), scale=1)
    W = [rational_array(rng, (d, d), scale=1) for _ in range(3)]
    assert_agree(lib.attention_head, X, *W, symbolic=n * d <= 4)
    assert_agree(lambda ctx, *a: lib.attention_head(ctx, *a, beta=Fraction(1, 2)), X, *W, symbolic=False)
    H, L = rng.randint(1, 2), 2
    heads = [rational_array(rng, (H, d, d), scale=1) for _ in range(3)]
    assert_agree(lib.multi_head, X, *heads, symbolic=False)
    layers = [rational_array(rng, (L, 1, d, d), scale=1) for _ in range(3)]
    for skip in (True, False):
        assert_agree(lambda ctx, *a: lib.self_attention_network(ctx, *a, skip=skip)[-1], X, *layers, symbolic=False)


@pytest.mark.parametrize("seed", SEEDS)
def test_normalisations_agree_in_every_context(seed):
    rng, n, d = shapes(seed)
    X = rational_array(rng, (n, d + 1))
    for eps in (Fraction(1, 10), "1e-5"):
        assert_agree(lambda ctx, x: lib.layer_norm(ctx, x, eps), X)
        assert_agree(lambda ctx, x: lib.rms_norm(ctx, x, eps), X)
    if all(len(set(row)) > 1 for row in X[0]):  # eps = 0 needs a nonzero variance
        assert_agree(lib.layer_norm, X)
    eps_variable = np.array([Fraction(1, 3)], dtype=object)
    assert_agree(lambda ctx, x, e: lib.layer_norm(ctx, x, e), X, eps_variable)


@pytest.mark.parametrize("seed", SEEDS)
def test_res_and_rational_norms_are_exact_and_agree(seed):
    rng, n, d = shapes(seed)
    Z = rational_array(rng, (n, d))
    t = rational_array(rng, (d,), scale=1)
    t = np.vectorize(lambda x: abs(x) / 4, otypes=[object])(t)  # in [0, 1]
    assert_agree(lib.res_midrange, Z, exact=True)
    assert_agree(lib.res_minimiser, Z, t, exact=True)
    assert_agree(lambda ctx, z: lib.res_minimiser_bounds(ctx, z)[0], Z, exact=True)
    assert_agree(lambda ctx, z: lib.res_minimiser_bounds(ctx, z)[1], Z, exact=True)
    for norm in (lib.max_norm, lib.induced_norm_1, lib.induced_norm_inf):
        assert_agree(norm, Z, exact=True)
    assert_agree(lib.frobenius_norm, Z)
    x = rational_array(rng, (n + 1,))
    for p in (1, "inf"):
        assert_agree(lambda ctx, v: lib.vector_norm(ctx, v, p), x, exact=True)
    assert_agree(lambda ctx, v: lib.vector_norm(ctx, v, 2), x)


@pytest.mark.parametrize("seed", SEEDS)
def test_spectral_norm_is_enclosed_and_agrees(seed):
    rng, m, k = shapes(seed)
    A = rational_array(rng, (m, k))
    assert_agree(lib.spectral_norm, A, symbolic=min(m, k) <= 2)
    # the 2-norm of a vector seen as a one-column matrix
    assert_agree(lambda ctx, a: lib.spectral_norm(ctx, a[..., None]) - lib.vector_norm(ctx, a, 2), A[..., 0], symbolic=False)


def test_spectral_norm_hand_values():
    cases = [
        ([[3, 0], [0, -4]], lambda: 4),
        ([[1, 1], [1, 1]], lambda: 2),
        ([[1, 0, 0], [0, 1, 0], [0, 0, 1]], lambda: 1),  # a triple eigenvalue of A^T A
        ([[0, 0], [0, 0]], lambda: 0),
        ([[1, 2], [3, 4]], lambda: mpmath.sqrt((30 + mpmath.sqrt(884)) / 2)),
    ]
    with mpmath.workdps(50):
        for rows, value in cases:
            A = np.array([[Fraction(x) for x in r] for r in rows], dtype=object)[None]
            ball = run(BALL, lib.spectral_norm, A)[0]
            assert abs(mpf_of(ball) - value()) < mpmath.mpf("1e-40"), (rows, ball)
            assert float(run(FLOAT, lib.spectral_norm, A.astype(float))[0]) == pytest.approx(float(value()), abs=1e-12)


def test_spectral_norm_of_an_overflowed_float_candidate_is_nan_not_an_error():
    A = np.array([[[1.0, 2.0], [3.0, 4.0]], [[np.nan, 0.0], [0.0, 1.0]], [[np.inf, 0.0], [0.0, 1.0]]])
    out = lib.spectral_norm(FLOAT, A)
    assert out[0] == pytest.approx(5.4649857042190426) and np.isnan(out[1:]).all()


def test_spectral_norm_says_where_a_context_cannot_give_it():
    A = np.array([[[Fraction(1), Fraction(2)], [Fraction(3), Fraction(4)]]], dtype=object)
    with pytest.raises(NotRational, match="algebraic"):
        run(EXACT, lib.spectral_norm, A)
    with pytest.raises(lib.SpectralNormUnavailable, match="z3 context cannot give the spectral norm"):
        run(Z3Context(), lib.spectral_norm, A)


def test_hand_known_values():
    def arr(*rows):
        return np.array([[Fraction(x) for x in r] for r in rows], dtype=object)[None]

    # equal scores: uniform softmax, exactly (exp(0) = 1 is the one rational exp)
    assert list(run(EXACT, lib.softmax, arr([5, 5, 5], [1, 1, 1]))[0, 0]) == [fmpq(1, 3)] * 3
    with mpmath.workdps(50):
        assert run(MP, lib.logsumexp, arr([2, 2, 2]))[0, 0] == pytest.approx(2 + mpmath.log(3))
        # the stable and the literal softmax differ only in float64 overflow
        big = arr([1000, 0]).astype(float)
        assert run(FLOAT, lib.softmax, big)[0, 0, 0] == 1.0
        assert np.isnan(float(run(FLOAT, lib.softmax_literal, big)[0, 0, 0]))
    # LayerNorm / RMSNorm
    assert list(run(EXACT, lib.layer_norm, arr([1, -1]))[0, 0]) == [1, -1]
    assert list(run(EXACT, lambda c, x: lib.layer_norm(c, x, 3), arr([1, -1]))[0, 0]) == [fmpq(1, 2), fmpq(-1, 2)]
    assert list(run(EXACT, lambda c, x: lib.rms_norm(c, x, 5), arr([2, 2]))[0, 0]) == [fmpq(2, 3)] * 2
    with mpmath.workdps(50):
        ln = run(MP, lib.layer_norm, arr([1, 2, 3]))[0, 0]
        assert [float(x) for x in ln] == pytest.approx([-1.5**0.5, 0, 1.5**0.5])
    with pytest.raises(TypeError, match="float"):
        run(EXACT, lambda c, x: lib.layer_norm(c, x, 1e-5), arr([1, -1]))
    # norms of [[1, -2], [3, 4]]
    A = arr([1, -2], [3, 4])
    assert run(EXACT, lib.max_norm, A)[0] == 4
    assert run(EXACT, lib.induced_norm_1, A)[0] == 6
    assert run(EXACT, lib.induced_norm_inf, A)[0] == 7
    with BALL.precision():
        assert run(BALL, lib.frobenius_norm, A)[0].overlaps(arb(30).sqrt())
    # Res: the argmin of Definition 3.4 for Z = [[1, 0], [0, 0]] is y_1 = 1/2, y_2 in [-1/2, 1/2]
    lo, hi = (run(EXACT, lambda c, z: lib.res_minimiser_bounds(c, z)[i], arr([1, 0], [0, 0]))[0, 0] for i in (0, 1))
    assert list(lo) == [fmpq(1, 2), fmpq(-1, 2)] and list(hi) == [fmpq(1, 2), fmpq(1, 2)]


def test_attention_hand_values():
    def arr(*rows):
        return np.array([[Fraction(x) for x in r] for r in rows], dtype=object)[None]

    X = arr([1, 0], [3, 2])
    zero, eye = arr([0, 0], [0, 0]), arr([1, 0], [0, 1])
    # zero queries: uniform attention, every row the mean row of X Wv
    out = run(EXACT, lib.attention_head, X, zero, eye, eye)[0]
    assert [list(r) for r in out] == [[2, 1], [2, 1]]
    # identical rows are a fixed point of pure attention; a skip doubles them each layer
    X0 = arr([1, 2], [1, 2])
    W = [np.broadcast_to(eye[:, None, None], (1, 3, 1, 2, 2)).copy() for _ in range(3)]
    assert [list(r) for r in run(EXACT, lambda c, *a: lib.self_attention_network(c, *a, skip=False)[-1], X0, *W)[0]] == [[1, 2], [1, 2]]
    assert [list(r) for r in run(EXACT, lambda c, *a: lib.self_attention_network(c, *a, skip=True)[-1], X0, *W)[0]] == [[8, 16], [8, 16]]


def _argmin_claim():
    return Claim(
        id="argmin",
        title="the minimax centre is unique",
        statement="argmin_y ||Z - 1 y^T||_max is a single point",
        dims=[Dim("n", 1, 3), Dim("d", 1, 3)],
        variables=[Matrix("Z", "n", "d")],
        parts=[
            lib.unique_argmin(
                "unique",
                lambda ctx, v: tuple(b[:, 0, :] for b in lib.res_minimiser_bounds(ctx, v.Z)),
                lambda ctx, v, y: lib.max_norm(ctx, v.Z - y[:, None, :]),
                objective_text="||Z - 1 {y}^T||_max",
            )
        ],
        refuted_verdict="ill-posed",
    )


def test_unique_argmin_flags_an_ill_posed_definition_with_its_witness():
    check = _argmin_claim().checks()[0]
    assert check.part.relation == "=="
    witness = {"Z": np.array([[[Fraction(1), Fraction(0)], [Fraction(0), Fraction(0)]]], dtype=object)}
    assert Certifier().certify(check, witness, {"n": 2, "d": 2}).status == "violated"
    one_column = {"Z": np.array([[[Fraction(1)], [Fraction(-3)]]], dtype=object)}
    assert Certifier().certify(check, one_column, {"n": 2, "d": 1}).status in ("holds", "tight")
    result = run_check(check, SearchConfig(seed=3, budget=5000))
    assert result.verdict is Verdict.ILL_POSED
    shown = result.counterexample.derived
    assert set(shown) == {"minimiser y_lo", "minimiser y_hi", "||Z - 1 y_lo^T||_max", "||Z - 1 y_hi^T||_max"}
    assert shown["minimiser y_lo"] != shown["minimiser y_hi"]
    assert shown["||Z - 1 y_lo^T||_max"] == shown["||Z - 1 y_hi^T||_max"]


def probability_rows(rng: random.Random, n, zeros=True):
    """A row of rationals >= 0 summing to 1, with some exact zeros (where 0 log 0 = 0 matters)."""
    weights = [0 if zeros and rng.random() < 0.3 else rng.randint(1, 6) for _ in range(n)]
    if not any(weights):
        weights[rng.randrange(n)] = 1
    total = sum(weights)
    return np.array([[Fraction(w, total) for w in weights]], dtype=object)


@pytest.mark.parametrize("seed", SEEDS)
def test_entropy_cross_entropy_and_kl_agree_in_every_context(seed):
    rng = random.Random(seed)
    n = rng.randint(2, 4)
    p, q = probability_rows(rng, n), probability_rows(rng, n, zeros=False)
    assert_agree(lib.entropy, p)
    assert_agree(lib.cross_entropy, p, q)
    assert_agree(lib.kl_divergence, p, q)


def test_information_hand_values():
    """H(1/2, 1/2, 0) = log 2, a point mass has entropy 0 exactly, D(p || p) = 0, D((1, 0) || (1/2, 1/2)) = log 2."""
    half = np.array([[Fraction(1, 2), Fraction(1, 2), 0]], dtype=object)
    with mpmath.workdps(50):
        assert abs(mpf_of(run(MP, lib.entropy, half)[0]) - mpmath.log(2)) < mpmath.mpf("1e-45")
    point = np.array([[0, 1, 0]], dtype=object)
    assert run(EXACT, lib.entropy, point)[0] == 0
    assert run(BALL, lib.kl_divergence, half, half)[0].contains(0)
    mass = np.array([[1, 0]], dtype=object)
    with mpmath.workdps(50):
        assert abs(mpf_of(run(MP, lib.kl_divergence, mass, np.array([[Fraction(1, 2)] * 2], dtype=object))[0]) - mpmath.log(2)) < mpmath.mpf("1e-45")
    assert float(run(FLOAT, lib.entropy, point.astype(float))[0]) == 0.0


def test_kl_with_a_zero_where_p_is_positive_is_outside_the_domain():
    p, q = np.array([[Fraction(1, 2), Fraction(1, 2)]], dtype=object), np.array([[1, 0]], dtype=object)
    assert np.isinf(run(FLOAT, lib.kl_divergence, p.astype(float), q.astype(float))[0])
    for ctx in (EXACT, MP, BALL):
        with pytest.raises((ArithmeticError, ZeroDivisionError, ValueError)):
            run(ctx, lib.kl_divergence, p, q)


def test_gibbs_inequality_survives_and_its_reversal_is_refuted():
    """KL >= 0 on the simplex (Gibbs); KL <= 0 is refuted, certified, from a fresh seed."""
    from verifier.domains import Simplex

    def kl(ctx, v):
        return lib.kl_divergence(ctx, v.p, v.q)

    gibbs = Claim(id="gibbs", title="Gibbs", statement="D(p||q) >= 0", dims=[Dim("n", 2, 4)],
                  variables=[Simplex("p", "n"), Simplex("q", "n")],
                  parts=[lib.Part("ge", relation=">=", lhs=kl, rhs=lambda ctx, v: 0),
                         lib.Part("le", relation="<=", lhs=kl, rhs=lambda ctx, v: 0)])
    ge, le = (run_check(c, SearchConfig(seed=3, budget=4000)) for c in gibbs.checks())
    assert ge.verdict is Verdict.SURVIVED
    assert le.verdict is Verdict.REFUTED and le.counterexample.certificate
