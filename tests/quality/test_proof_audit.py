"""Proofs in the audit: survivors of generated claim families are proved, refuted or partly decided
on the domain each claim states, and the result says which and where."""

import dataclasses
import random
from fractions import Fraction

import pytest

from verifier import Claim, Part, ProofDomain, Scalar
from verifier.audit import Audit, AuditOptions, run_checks
from verifier.engine import SearchConfig
from verifier.proof_audit import MIN_ATTEMPT_SECONDS, ProofBudget, attempt, volume_percent
from verifier.runner import ForkedRunner
from verifier.results import ProofStatus, Verdict
from verifier.evidence import parse_exact

SEEDS = range(4)


def prove_all(checks, budget, jobs=1):
    """Each check's proof attempt, in order, in forked workers (as the audit runs them)."""
    with ForkedRunner(jobs) as runner:
        return list(Audit(AuditOptions(proofs=budget), runner, jobs).prove(checks))
QUICK = SearchConfig(seed=0, budget=600, time_limit=20)


def _q(rng, lo=-9, hi=9):
    num = rng.randint(lo, hi)
    return Fraction(num if num else 1, rng.randint(1, 5))


def triangle_claim(seed):
    """|a x + b y + c| <= |a||x| + |b||y| + |c| with random a, b, c: true, and piecewise linear (z3)."""
    rng = random.Random(seed)
    a, b, c = (_q(rng) for _ in range(3))
    lo = -rng.randint(1, 6)
    box = (lo, lo + rng.randint(1, 12))
    return Claim(
        id=f"tri{seed}", title="triangle", statement="triangle inequality", dims=[],
        variables=[Scalar("x"), Scalar("y")],
        parts=[Part("main",
                    lhs=lambda ctx, v: ctx.abs(ctx.const(a) * v.x + ctx.const(b) * v.y + ctx.const(c)),
                    rhs=lambda ctx, v: ctx.abs(ctx.const(a)) * ctx.abs(v.x) + ctx.abs(ctx.const(b)) * ctx.abs(v.y) + ctx.abs(ctx.const(c)))],
        prove_on=ProofDomain(box=box),
    ), box


def capped_claim(seed):
    """a x <= c on a box where a x exceeds c somewhere: false on the stated domain."""
    rng = random.Random(100 + seed)
    a = _q(rng, 1, 9)
    hi = rng.randint(2, 9)
    c = a * (hi - Fraction(1, rng.randint(2, 7)))  # exceeded only near the top of the box
    return Claim(
        id=f"cap{seed}", title="cap", statement="a x <= c", dims=[], variables=[Scalar("x")],
        parts=[Part("main", lhs=lambda ctx, v: ctx.const(a) * v.x, rhs=lambda ctx, v: ctx.const(c))],
        prove_on=ProofDomain(box=(-hi, hi)),
    ), (-hi, hi)


def tangent_claim(seed):
    """exp(x) >= 1 + x + x|x|/2: true, and touching at x = 0 to second order, which no split of the
    box (-k, 2k) lands on, so a first-order branch and bound decides most of the volume but never
    all of it.  (exp(x) >= 1 + x itself is now proved by SMT with exp abstracted.)"""
    k = random.Random(200 + seed).randint(1, 3)
    return Claim(
        id=f"tan{seed}", title="tangent", statement="exp(x) >= 1 + x + x|x|/2", dims=[], variables=[Scalar("x")],
        parts=[Part("main", lhs=lambda ctx, v: ctx.exp(v.x), rhs=lambda ctx, v: 1 + v.x + v.x * ctx.abs(v.x) / 2, relation=">=")],
        prove_on=ProofDomain(box=(-k, 2 * k)),
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_true_claims_are_proved_on_the_domain_they_state(seed):
    claim, box = triangle_claim(seed)
    proof, refuting = attempt(claim.checks()[0], ProofBudget(per_check=20, total=60))
    assert proof.status is ProofStatus.PROVED and refuting is None, proof.message
    assert proof.method == "smt" and proof.volume_percent == 100.0
    assert f"x \u2208 [{box[0]}, {box[1]}]" in proof.domain
    assert proof.spec["boxes"]["x"] == [str(box[0]), str(box[1])]


@pytest.mark.parametrize("seed", SEEDS)
def test_a_survivor_false_on_its_domain_is_refuted_with_a_certified_counterexample(seed):
    claim, (lo, hi) = capped_claim(seed)
    check = claim.checks()[0]
    proof, refuting = attempt(check, ProofBudget(per_check=20, total=60))
    assert proof.status is ProofStatus.REFUTED
    cx = refuting.counterexample
    assert refuting.verdict is Verdict.REFUTED and refuting.certified and cx.method == "exact"
    x = parse_exact(cx.vars["x"])
    assert lo <= x <= hi and parse_exact(cx.margin) < 0


@pytest.mark.parametrize("seed", SEEDS)
def test_an_undecided_proof_says_how_much_of_the_volume_it_decided(seed):
    proof, refuting = attempt(tangent_claim(seed).checks()[0], ProofBudget(per_check=5, total=20))
    assert proof.status is ProofStatus.INCONCLUSIVE and refuting is None
    assert proof.method == "branch-and-bound"
    assert 50 <= proof.volume_percent < 100


@pytest.mark.parametrize("seed", SEEDS)
def test_a_box_budget_decides_the_same_volume_however_fast_the_machine(seed):
    """The box budget, not the clock, stops an undecided proof: the same boxes, the same share, every time."""
    from verifier.proof_audit import domain_of
    from verifier.prove import prove

    k = random.Random(300 + seed).randint(1, 3)
    # exp(x) + exp(y) >= 2 + x + y + (x|x| + y|y|)/2 touches at the origin to second order: hundreds of
    # boxes before any is left open (without the squares, SMT with exp abstracted proves it: its tangent fact)
    claim = Claim(
        id=f"tan2d{seed}", title="tangent plane", statement="exp(x) + exp(y) >= 2 + x + y + (x|x| + y|y|)/2", dims=[],
        variables=[Scalar("x"), Scalar("y")],
        parts=[Part("main", lhs=lambda ctx, v: ctx.exp(v.x) + ctx.exp(v.y),
                    rhs=lambda ctx, v: 2 + v.x + v.y + (v.x * ctx.abs(v.x) + v.y * ctx.abs(v.y)) / 2, relation=">=")],
        prove_on=ProofDomain(box=(-k, 2 * k)),
    )
    check = claim.checks()[0]
    boxes = 64 * random.Random(400 + seed).randint(1, 3)
    runs = [prove(check, domain_of(check), "auto", 60.0, max_boxes=boxes) for _ in range(2)]
    assert [r.result.stop_reason for r in runs] == ["box budget reached"] * 2
    assert runs[0].details.boxes_examined == runs[1].details.boxes_examined >= boxes
    assert runs[0].details.volume_proved == runs[1].details.volume_proved < 1
    proof, _ = attempt(check, ProofBudget(per_check=60, total=60, boxes=boxes))
    assert proof.volume_percent == volume_percent(runs[0].details.volume_proved)
    declared = dataclasses.replace(claim, prove_on=dataclasses.replace(claim.prove_on, max_boxes=boxes))
    proof, _ = attempt(declared.checks()[0], ProofBudget())  # the claim's own budget of work beats --prove-boxes
    assert proof.volume_percent == volume_percent(runs[0].details.volume_proved)


def test_volume_is_rounded_down_never_up():
    assert volume_percent(0.99999) == 99.9
    assert volume_percent(1.0) == 100.0
    assert volume_percent(0.8762) == 87.6
    assert volume_percent(None) is None


def test_survivors_get_proofs_and_refutations_keep_their_own_result():
    claims = [triangle_claim(0)[0], tangent_claim(0), capped_claim(0)[0]]
    checks = [ch for c in claims for ch in c.checks()]
    run = run_checks(checks, QUICK)
    assert [r.verdict for r in run.results][:2] == [Verdict.SURVIVED, Verdict.SURVIVED]
    with ForkedRunner(1) as runner:
        proved, _ = Audit(AuditOptions(QUICK, ProofBudget(per_check=5, total=30)), runner).prove_survivors(checks, run.results)
    for before, after in zip(run.results, proved):
        if before.verdict is Verdict.REFUTED:
            assert after == before  # nothing to prove
        else:
            assert after.proof is not None and after.verdict is before.verdict
    assert [r.proof.status for r in proved[:2]] == [ProofStatus.PROVED, ProofStatus.INCONCLUSIVE]


def test_checks_past_the_total_cap_are_not_attempted():
    checks = [triangle_claim(s)[0].checks()[0] for s in SEEDS]
    out = prove_all(checks, ProofBudget(per_check=5, total=MIN_ATTEMPT_SECONDS / 2))
    assert [p.status for p, _ in out] == [ProofStatus.NOT_ATTEMPTED] * len(checks)
    assert all(p.domain for p, _ in out)  # still says where it would have proved


def test_proofs_on_worker_processes_match_proofs_in_process():
    checks = [c.checks()[0] for c in [triangle_claim(s)[0] for s in SEEDS] + [capped_claim(s)[0] for s in SEEDS]]
    budget = ProofBudget(per_check=20, total=120)
    one = [(p.status, p.domain, p.method) for p, _ in prove_all(checks, budget, jobs=1)]
    two = [(p.status, p.domain, p.method) for p, _ in prove_all(checks, budget, jobs=2)]
    assert one == two


def test_the_total_time_is_shared_so_every_check_gets_an_attempt():
    """exp(x^2) + exp(y^2) >= 2 exp((x^2 + y^2)/2) is tight along the lines x = +-y, where its
    margin is of second order: first-order enclosures straddle 0 there, so a branch and bound
    runs until it is stopped (and it is no identity a symbolic step would close, nor are its
    exponents linear, which the exponential basis would decide: exp(x) + exp(y) >= 2 exp((x + y)/2)
    is u^2 + v^2 >= 2uv there with u = exp(x/2), proved at once); three such proofs share a
    total smaller than one's own limit."""
    tight = Claim(
        id="amgm", title="AM-GM of exp", statement="exp(x^2) + exp(y^2) >= 2 exp((x^2 + y^2)/2)", dims=[],
        variables=[Scalar("x"), Scalar("y")],
        parts=[Part("main", relation=">=", lhs=lambda ctx, v: ctx.exp(v.x * v.x) + ctx.exp(v.y * v.y),
                    rhs=lambda ctx, v: 2 * ctx.exp((v.x * v.x + v.y * v.y) / 2))],
        prove_on=ProofDomain(box=(-1, 3)),
    )
    out = prove_all([tight.checks()[0]] * 3, ProofBudget(per_check=60, total=4.5, boxes=None))  # time alone stops them
    assert [p.status for p, _ in out] == [ProofStatus.INCONCLUSIVE] * 3
    assert all(p.time_limit <= 1.6 for p, _ in out)
