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
