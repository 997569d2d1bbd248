from fractions import Fraction

from flint import fmpq

from verifier import Claim, Part, Scalar
from verifier.certify import Certifier
from verifier.contexts import ExactContext

# rhs is a plain Python int: in ball arithmetic it stays an int, not an arb ball
EXP_BELOW_ONE = Claim(
    id="T.exp",
    title="exp(x) <= 1 (false for x > 0; test only)",
    statement="exp(x) <= 1",
    dims=[],
    variables=[Scalar("x", lo=0, hi=1)],
    parts=[Part("main", lhs=lambda ctx, v: ctx.exp(v.x), rhs=lambda ctx, v: 1)],
)


def test_interval_certificate_with_a_constant_side():
    check = EXP_BELOW_ONE.checks()[0]
    cert = Certifier(30).certify(check, {"x": ExactContext().asarray([fmpq(1, 2)])}, {})
    assert cert.violated and cert.method == "interval"
    assert float(cert.rhs) == 1.0 and 1.64 < float(cert.lhs) < 1.65


THIRDS = Claim(
    id="T.thirds",
    title="x^2 <= x / 4 (test only)",
    statement="x^2 <= x / 4",
    dims=[],
    variables=[Scalar("x", lo=-1, hi=1)],
    parts=[Part("main", lhs=lambda ctx, v: v.x * v.x, rhs=lambda ctx, v: v.x / 4)],
)


def _digits(x, dps):
    import mpmath

    with mpmath.workdps(dps):
        return mpmath.nstr(x, dps)


def test_exact_certificates_show_the_exact_values_rounded_to_dps_digits():
    """Not a second evaluation at dps digits: the values shown are the exact ones, correctly rounded."""
    import mpmath

    check = THIRDS.checks()[0]
    for dps in (20, 50):
        cert = Certifier(dps).certify(check, {"x": ExactContext().asarray([fmpq(1, 3)])}, {})
        assert cert.violated and cert.method == "exact"
        assert (cert.exact_lhs, cert.exact_rhs) == (Fraction(1, 9), Fraction(1, 12))
        with mpmath.workdps(dps):
            for shown, exact in ((cert.lhs, (1, 9)), (cert.rhs, (1, 12)), (cert.margin, (-1, 36))):
                assert shown == mpmath.mpf(exact[0]) / exact[1]
        assert _digits(cert.lhs, dps) == "0." + "1" * dps
    assert Certifier(50).certify(check, {"x": ExactContext().asarray([fmpq(1, 3)])}, {}, display=False).lhs is None


def test_ball_certificates_show_the_enclosures_middles():
    check = EXP_BELOW_ONE.checks()[0]
    cert = Certifier(40).certify(check, {"x": ExactContext().asarray([fmpq(1, 3)])}, {})
    assert cert.violated and cert.method == "interval"
    lhs, _, _ = cert.ball_values
    assert lhs.rad() < 1e-40 and abs(float(cert.lhs) - float(lhs.mid())) == 0


def test_points_decided_without_values_are_shown_at_dps_digits_from_their_exact_inputs():
    """A hypothesis that fails decides without values; the shown ones then come from an
    evaluation at dps digits, whose inputs are converted at that precision (not 53 bits)."""
    import mpmath

    from verifier import Hypothesis

    claim = Claim(id="T.hyp", title="t", statement="x <= 2 if x < 0", dims=[], variables=[Scalar("x", lo=-1, hi=1)],
                  parts=[Part("main", lhs=lambda ctx, v: v.x, rhs=lambda ctx, v: 2)],
                  hypotheses=[Hypothesis("x < 0", lambda ctx, v: -v.x, strict=True)])
    x = fmpq(1, 3)
    cert = Certifier(50).certify(claim.checks()[0], {"x": ExactContext().asarray([x])}, {})
    assert cert.status == "hypothesis-fails"
    with mpmath.workdps(50):
        assert abs(cert.lhs - mpmath.mpf(1) / 3) < mpmath.mpf(10) ** -49  # 53 bits would be off by 1e-17


def test_decimal_strings_are_exact_when_they_terminate():
    """Seeded rationals: a terminating decimal is written out exactly (checked with the
    decimal module), one that does not is rounded to dps digits."""
    import decimal

    import numpy as np

    from verifier.certify import decimal_string

    rng = np.random.default_rng(11)
    for _ in range(500):
        num = int(rng.integers(-10**12, 10**12))
        den = 2 ** int(rng.integers(0, 80)) * 5 ** int(rng.integers(0, 40)) * (3 if rng.random() < 0.3 else 1)
        f = Fraction(num, den)
        text = decimal_string(f, 50)
        if f.denominator % 3 == 0:
            assert len(text.replace("-", "").replace(".", "").lstrip("0")) <= 50 or "e" in text
            continue
        with decimal.localcontext() as c:
            c.prec = 400
            exact = decimal.Decimal(f.numerator) / decimal.Decimal(f.denominator)
        if len(str(abs(f.numerator) * (10**200 // f.denominator)).rstrip("0").lstrip("0")) <= 50:
            assert Fraction(text) == f, (f, text)
            assert decimal.Decimal(text) == exact


# ---------------------------------------------------------------------------- a claim that disagrees with itself
def _drifting(offset):
    """x + offset() <= x: violated wherever offset() > 0; offset is called once per evaluation."""
    return Claim(id="T.drift", title="drifting (test only)", statement="x + r <= x", dims=[], variables=[Scalar("x", lo=-1, hi=1)],
                 parts=[Part("main", lhs=lambda ctx, v: v.x + ctx.const(offset()), rhs=lambda ctx, v: v.x)])


def test_a_violation_that_changes_between_two_evaluations_is_not_deterministic():
    import itertools

    import pytest

    from verifier.certify import NotDeterministic

    counter = itertools.count(1)  # no random generator: a value that grows with each call
    point = {"x": ExactContext().asarray([fmpq(1, 3)])}
    with pytest.raises(NotDeterministic, match="T.drift is not deterministic.*lhs was 4/3, then 7/3"):
        Certifier(30).certify(_drifting(lambda: Fraction(next(counter))).checks()[0], point, {})
    # one from the OS's entropy, through the ball context (exp makes it irrational)
    import os

    def from_urandom():
        return Fraction(1 + int.from_bytes(os.urandom(8), "big"), 2**64)

    claim = _drifting(from_urandom)
    exp_claim = Claim(id="T.drift2", title="drifting (test only)", statement="exp(x) + r <= exp(x)", dims=[], variables=[Scalar("x", lo=-1, hi=1)],
                      parts=[Part("main", lhs=lambda ctx, v: ctx.exp(v.x) + ctx.const(from_urandom()), rhs=lambda ctx, v: ctx.exp(v.x))])
    for c in (claim, exp_claim):
        with pytest.raises(NotDeterministic, match="evaluated twice at the same exact point"):
            Certifier(30).certify(c.checks()[0], point, {})


def test_a_claim_drawing_from_the_global_generator_is_caught_even_when_its_draws_agree():
    import random

    from verifier.certify import NotDeterministic
    from verifier.runner import run_isolated

    # two draws that always agree (a coin's two tosses agree half the time): the draw itself gives
    # it away.  Certified in a worker of one thread, as checks are (this test process may hold
    # other tests' threads, which may draw from random themselves: there draws are not looked at)
    same_draw = _drifting(lambda: random.choice([1, 1]))
    outcome = run_isolated(lambda _: Certifier(30).certify(same_draw.checks()[0], {"x": ExactContext().asarray([fmpq(0)])}, {}))
    assert outcome.exception == NotDeterministic.__name__ and "drew random numbers" in outcome.detail, outcome


def test_a_deterministic_violation_is_certified_as_before():
    cert = Certifier(30).certify(_drifting(lambda: Fraction(1, 7)).checks()[0], {"x": ExactContext().asarray([fmpq(2, 5)])}, {})
    assert cert.violated and cert.exact_margin == Fraction(-1, 7)


def test_a_replay_confirms_a_point_that_holds_too():
    import itertools

    import pytest

    from verifier.certify import NotDeterministic

    counter = itertools.count(-5)  # -5 then -4: holds both times, with two different values
    check = _drifting(lambda: Fraction(next(counter))).checks()[0]
    point = {"x": ExactContext().asarray([fmpq(0)])}
    assert Certifier(30).certify(check, point, {}).status == "holds"  # a search keeps what holds as it is
    with pytest.raises(NotDeterministic):
        Certifier(30, confirm="always").certify(check, point, {})


# ---------------------------------------------------------------------------- the clock
def test_escalation_and_the_symbolic_proof_stop_at_the_deadline():
    import time

    # 1/(1 + exp(-a)) < 1 at a = 10^8: no enclosure below ~10^8 bits separates the sides, and
    # sympy's proof of (in)equality computes log 2 to millions of digits
    claim = Claim(id="T.big", title="large logit (test only)", statement="1/(1+exp(-a)) < 1", dims=[], variables=[Scalar("a")],
                  parts=[Part("main", lhs=lambda ctx, v: 1 / (1 + ctx.exp(-v.a)), rhs=lambda ctx, v: 1, relation="<")])
    point = {"a": ExactContext().asarray([fmpq(10**8)])}
    start = time.monotonic()
    cert = Certifier(50, deadline=start + 1.0).certify(claim.checks()[0], point, {})
    assert cert.status == "tight" and cert.method == "none"  # undecided: never signed either way
    assert time.monotonic() - start < 20
    start = time.monotonic()
    cert = Certifier(50, deadline=start - 1).certify(claim.checks()[0], point, {})
    assert "the time limit stopped the escalation" in cert.detail and str(int(50 * 3.33) + 32) + " bits" in cert.detail
