"""Issue 13, part 1: a certificate that cannot sign the margin at its highest precision is
reported as such -- inconclusive, with the precision tried -- never folded into survived.

(e^x + 1)^2 - e^(2x) - 2 e^x = 1 exactly, so the claim below holds with equality at every
point; float64 loses the 1 to cancellation, the re-check's enclosure of the margin straddles
zero at every precision, and sympy cannot compare the entries' margins (each is exactly 0 but
not simplified to it), so no symbolic proof of the equality is found either.
"""

from verifier import Claim, Dim, Part, Vector
from verifier.engine import SearchConfig, run_check
from verifier.results import Verdict

CANCELS = Claim(
    id="T.cancel", kind="claim", title="(e^x + 1)^2 - e^(2x) - 2 e^x <= 1, entrywise (test only)",
    statement="(e^x_i + 1)^2 - e^(2 x_i) - 2 e^x_i <= 1 for x in [30, 45]^2", dims=[Dim("n", 2, 2)],
    variables=[Vector("x", "n", lo=30, hi=45)],
    parts=[Part("main", lhs=lambda ctx, v: (ctx.exp(v.x) + 1) ** 2 - ctx.exp(2 * v.x) - 2 * ctx.exp(v.x), rhs=lambda ctx, v: v.x * 0 + 1, elementwise=True)],
)


def test_an_undecided_tie_is_inconclusive_with_the_precision_tried():
    r = run_check(CANCELS.checks()[0], SearchConfig(seed=0, budget=4_000))
    assert r.verdict is Verdict.INCONCLUSIVE, (r.verdict, r.message)
    assert r.stats.tight_undecided > 0
    assert "tight" in r.message and "bits" in r.message and "digits tried" in r.message
