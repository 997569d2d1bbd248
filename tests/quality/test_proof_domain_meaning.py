"""Proof domains that mean something: claims without ``prove_on``, drawn from a seed.

Before, a claim stated without a proof domain was proved at the smallest sizes its dimensions
allow -- at n = 1 a weighted Cauchy-Schwarz inequality compares (w x)^2 with w^2 x^2, the same
function -- on the default box cut to the claim's own bounds, and the audit said "proved on
n = 1" as if that meant something.  Now the default is the smallest non-degenerate size (2
where the range allows), each variable's own bounds, larger sizes where the budget allows
(said which), and a proof that holds only because both sides coincide says so.
"""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

from verifier import Claim, Dim, Part, Scalar, Vector
from verifier.cli import main
from verifier.proof_audit import ProofBudget, attempt, domain_of
from verifier.reporters.proof_text import proof_sentence, result_verdict
from verifier.results import ProofStatus

BUDGET = ProofBudget(per_check=60, total=120)


def _rng(seed, salt):
    return np.random.default_rng([seed, salt])


def cauchy_schwarz(seed, dims=None):
    """(sum w_i x_i)^2 <= (sum w_i)(sum w_i x_i^2), random weights: identical sides at n = 1."""
    rng = _rng(seed, 1)
    w = [int(x) for x in rng.integers(1, 6, 6)]

    def weights(v):
        return np.asarray(w[: v.dims["n"]], dtype=object)

    return Claim(f"cs-{seed}", "weighted Cauchy-Schwarz", "(sum w x)^2 <= (sum w)(sum w x^2)", dims=dims or (Dim("n", 1, 6),),
                 variables=(Vector("x", "n"),),
                 parts=(Part("main", lambda ctx, v: ctx.sum(v.x * weights(v), -1) ** 2,
                             lambda ctx, v: sum(weights(v)) * ctx.sum(v.x * v.x * weights(v), -1)),))


@pytest.mark.parametrize("seed", range(3))
def test_a_claim_without_a_proof_domain_is_proved_where_it_says_something(seed):
    check = cauchy_schwarz(seed).checks()[0]
    proof, _ = attempt(check, BUDGET)
    assert proof.status is ProofStatus.PROVED, proof.message
    assert proof.domain.startswith("n = 2;") and not proof.identical_sides
    # z3 decides the larger sizes at once: the attempt goes on and says how far
    assert proof.also == ("n = 3", "n = 4")
    assert result_verdict("survived", proof).startswith("proved (z3) on n = 2; x \u2208 [-2, 2]^2 (also at n = 3; n = 4)")


@pytest.mark.parametrize("seed", range(3))
def test_a_proof_where_both_sides_coincide_is_labelled(seed):
    """When the range allows only n = 1 the claim is proved there, by its identity, and says it compares nothing."""
    check = cauchy_schwarz(seed, dims=(Dim("n", 1, 1),)).checks()[0]
    proof, _ = attempt(check, BUDGET)
    assert proof.status is ProofStatus.PROVED and proof.identical_sides and proof.method == "identity"
    assert proof.domain.startswith("n = 1;") and proof.also == ()
    assert "both sides are the same function" in result_verdict("survived", proof)


def test_an_equality_whose_sides_are_constants_at_its_size_is_labelled():
    """softmax(x + c) = softmax(x): at n = 1 both sides are the constant 1 (Eq. (9) of the pack at
    d = 1 was proved so); at n = 2 it is the shift invariance itself."""
    def softmax(ctx, z):
        e = ctx.exp(z)
        return e / ctx.sum(e, -1)[:, None]

    def shift(n):
        from verifier import ProofDomain

        return Claim("shift", "shift", "softmax(x + c) = softmax(x)", dims=(Dim("n", 1, 3),), variables=(Vector("x", "n"), Scalar("c")),
                     prove_on=ProofDomain(dims={"n": n}),
                     parts=(Part("main", lambda ctx, v: softmax(ctx, v.x + v.c[:, None]), lambda ctx, v: softmax(ctx, v.x), "==", elementwise=True),))

    one, _ = attempt(shift(1).checks()[0], BUDGET)
    two, _ = attempt(shift(2).checks()[0], BUDGET)
    assert one.status is two.status is ProofStatus.PROVED and one.method == two.method == "identity"
    assert one.identical_sides and not two.identical_sides
    assert result_verdict("survived", two).startswith("proved (identity) on n = 2;")
    sentence = proof_sentence(two)  # what verify lemma prints: the rewriting that closed it
    assert sentence.startswith("Proved (identity) on n = 2;") and " = 0 by " in sentence and sentence.count("proved (identity)") == 0


def test_a_variables_own_bounds_are_its_box():
    """sigmoid(x) <= 1/2 + x/4 on x in [0, 4] is proved on [0, 4], not on the default box cut to [0, 2];
    a bound beyond the default box moves the box to it instead of leaving nothing."""
    claim = Claim("sig", "sigmoid", "sigmoid(x) <= 1/2 + x/4 for x in [0, 4]", dims=(), variables=(Scalar("x", lo=0, hi=4), Scalar("y", lo=5)),
                  parts=(Part("main", lambda ctx, v: ctx.sigmoid(v.x), lambda ctx, v: ctx.const(Fraction(1, 2)) + v.x / 4 + 0 * v.y),))
    domain = domain_of(claim.checks()[0])
    assert domain.boxes == {"x": (Fraction(0), Fraction(4)), "y": (Fraction(5), Fraction(9))}
    assert "x \u2208 [0, 4]" in domain.describe(claim.checks()[0])


def test_rows_and_the_summary_line_count_a_proved_check_alike(tmp_path):
    """`verify all` shows a check whose proof went through as PROVED; its summary line counts it so."""
    pack = tmp_path / "cs_pack.py"
    pack.write_text(
        "from verifier import Claim, Dim, Part, Vector\n"
        "claim = Claim('cs', 't', 't', dims=(Dim('n', 1, 3),), variables=(Vector('x', 'n'),), paper='p',\n"
        "              parts=(Part('main', lambda ctx, v: ctx.sum_all(v.x) ** 2, lambda ctx, v: v.dims['n'] * ctx.sum_all(v.x * v.x)),))\n")
    r = CliRunner().invoke(main, ["all", "--quick", "--pack", str(pack), "--prove-time", "20", "--jobs", "1"], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    rows = [line for line in r.stderr.splitlines() if line.startswith("cs ")]
    assert len(rows) == 1 and "PROVED" in rows[0] and "on n = 2;" in rows[0], r.stderr
    summary = r.stderr.strip().splitlines()[-1]
    assert summary.startswith("1 checks: 1 proved;"), summary
    r = CliRunner().invoke(main, ["all", "--quick", "--pack", str(pack), "--prove-time", "20", "--jobs", "1", "--json"])
    (row,) = json.loads(r.stdout)
    assert row["proof"]["status"] == "proved" and row["audit"].startswith("proved (z3) on n = 2;")
