"""Proofs a kernel checks (issue 35): a proved check's certificate is re-proved by coqc, and a broken one is rejected.

Mutation tests: each thing a proof rests on is broken on purpose -- a hypothesis flipped, the
domain's box widened, a case cut from the case analysis, a constant of the statement moved --
and the kernel rejects the certificate that results.  The claims are generated from a seed
(piecewise linear bounds with a hypothesis the proof needs), none of them looked at.
"""

import dataclasses
import json
import os
import random
import shutil
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction

import pytest

from verifier import Claim, Hypothesis, Part, Scalar, Vector
from verifier.coq.runner import KERNEL_CHECKED, REJECTED, UNCHECKED, kernel_check_proof
from verifier.formula import export_formula
from verifier.kernel_evidence import ProofEvidence, _flat, _nested, kernel_hints, sha256_of

from .test_coq import coqc  # noqa: F401  (the fixture that skips without coqc, fails under CI)


def _claim(rng):
    """|x - c| + max(y, -y) <= |x| + |c| + k y under y >= 0 with k >= 1 (true: max(y, -y) = y <= k y
    needs y >= 0), and x in [-L, L]."""
    c, k = Fraction(rng.randint(-5, 5), rng.randint(1, 3)), rng.randint(1, 3)

    def lhs(ctx, v):
        return ctx.abs(v.x - c) + ctx.maximum(v.y, -v.y)

    def rhs(ctx, v):
        return ctx.abs(v.x) + abs(c) + k * v.y

    return Claim(id="gen", title="generated", statement="generated", paper="generated", dims=[],
                 variables=[Scalar("x", lo=-4, hi=4), Scalar("y")],
                 hypotheses=(Hypothesis("y >= 0", lambda ctx, v: v.y),),
                 parts=[Part("main", lhs=lhs, rhs=rhs)])


def _evidence(claim) -> ProofEvidence:
    formula = export_formula(claim.checks()[0], {})
    boxes = {"x": (Fraction(-4), Fraction(4)), "y": None}
    domain = {"dims": {}, "boxes": {"x": ["-4", "4"], "y": None}, "relations": []}
    return ProofEvidence(formula, "smt", domain, "x \u2208 [-4, 4], y \u2208 \u211d", None, kernel_hints(formula, boxes))


def _flipped_hypothesis(ev: ProofEvidence) -> ProofEvidence:
    """y >= 0 read as -y >= 0: the margin node negated (the claim is false there)."""
    f = ev.formula
    nodes = f.nodes + tuple(("neg", h.entries[0]) for h in f.hypotheses if h.text == "y >= 0")
    hypotheses = tuple(dataclasses.replace(h, entries=(len(nodes) - 1,)) if h.text == "y >= 0" else h for h in f.hypotheses)
    return dataclasses.replace(ev, formula=dataclasses.replace(f, nodes=nodes, hypotheses=hypotheses))


def _dropped_hypothesis(ev: ProofEvidence) -> ProofEvidence:
    kept = tuple(h for h in ev.formula.hypotheses if h.text != "y >= 0")
    assert len(kept) == len(ev.formula.hypotheses) - 1
    return dataclasses.replace(ev, formula=dataclasses.replace(ev.formula, hypotheses=kept))


def _cut_case(ev: ProofEvidence) -> ProofEvidence:
    """The first split of the first goal replaced by its first branch: a case left unproved."""
    tree = _nested(ev.kernel["trees"][0])
    assert tree[0] in ("split", "exp"), tree
    return dataclasses.replace(ev, kernel={**ev.kernel, "trees": [_flat(tree[2])] + list(ev.kernel["trees"][1:])})


def _moved_constant(ev: ProofEvidence) -> ProofEvidence:
    """The statement's rhs moved down by a half: the claim is false at x = c, y = 0."""
    f = ev.formula
    nodes = f.nodes + (("const", Fraction(1, 2)), ("-", f.rhs[0], len(f.nodes)))
    return dataclasses.replace(ev, formula=dataclasses.replace(f, nodes=nodes, rhs=(len(nodes) - 1,)))


MUTATIONS = {"flip a hypothesis": _flipped_hypothesis, "drop a hypothesis": _dropped_hypothesis,
             "cut a case": _cut_case, "move a constant": _moved_constant}


def _checked(evidences, tmp_path):
    paths = []
    for name, ev in evidences.items():
        path = tmp_path / f"{name.replace(' ', '-')}.proof"
        path.write_text(ev.to_json())
        (tmp_path / name.replace(" ", "-")).mkdir()
        paths.append((name, path))
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        checks = pool.map(lambda p: kernel_check_proof(p[0], p[1], sha256_of(p[1]), tmp_path / p[0].replace(" ", "-"), 120), paths)
        return {name: k for (name, _), k in zip(paths, checks)}


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0])
def test_the_kernel_checks_a_proof_and_rejects_each_broken_certificate(coqc, tmp_path, seed):
    rng = random.Random(seed)
    ev = _evidence(_claim(rng))
    assert ev.kernel["strategy"] == "cases", ev.kernel
    assert ProofEvidence.from_json(ev.to_json()) == ev
    mutants = {name: mutate(ev) for name, mutate in MUTATIONS.items()}
    checks = _checked({"intact": ev, **mutants}, tmp_path)
    assert checks.pop("intact").status == KERNEL_CHECKED
    assert {name: k.status for name, k in checks.items()} == {name: REJECTED for name in MUTATIONS}, \
        {name: k.reason for name, k in checks.items()}


@pytest.mark.parametrize("lhs, function", [(lambda ctx, v: ctx.exp(v.x), "exp"), (lambda ctx, v: ctx.sin(v.x), "sin")])
def test_a_proof_the_kernel_has_no_strategy_for_is_labelled_unchecked_with_why(tmp_path, lhs, function):
    # exp(x) <= 1 + 2x on [0, 1] is true, but needs an upper bound of exp that exp's order, product
    # and tangent relations do not give; sin has no kernel strategy at all
    claim = Claim(id="e", title="t", statement="s", dims=[], variables=[Scalar("x", lo=0, hi=1)],
                  parts=[Part("main", lhs=lhs, rhs=lambda ctx, v: 1 + 2 * v.x)])
    formula = export_formula(claim.checks()[0], {})
    ev = ProofEvidence(formula, "branch-and-bound", {"dims": {}, "boxes": {"x": ["0", "1"]}, "relations": []}, "x \u2208 [0, 1]",
                       None, kernel_hints(formula, {"x": (Fraction(0), Fraction(1))}))
    path = tmp_path / "e.proof"
    path.write_text(ev.to_json())
    k = kernel_check_proof("e", path, sha256_of(path), tmp_path)
    assert k.status == UNCHECKED and function in k.reason and not k.kernel_checked, k.reason


def _exp_perturbation(rng, hypothesis=True, factor=1):
    """A seeded softmax-style perturbation bound: with |b_i| <= eps, either
    |exp(k x + b) - exp(k x)| <= (exp(eps) - 1) exp(k x) (one term), or
    sum_i exp(k_i x_i + b_i) <= exp(eps) sum_i exp(k_i x_i) (two terms); random k, boxes and
    eps range.  ``factor`` < 1 scales the rhs down (false at b = 0); without ``hypothesis`` b is free (false)."""
    ks = [Fraction(rng.randint(-3, 3) or 1, rng.randint(1, 2)) for _ in range(2)]
    centre, eps_hi = rng.randint(-2, 2), Fraction(rng.randint(1, 4), 2)
    two = rng.random() < 0.5

    def lhs(ctx, v):
        if two:
            return ctx.exp(ks[0] * v.x + v.b) + ctx.exp(ks[1] * v.y + v.c)
        return ctx.abs(ctx.exp(ks[0] * v.x + v.b) - ctx.exp(ks[0] * v.x))

    def rhs(ctx, v):
        if two:
            return factor * ctx.exp(v.eps) * (ctx.exp(ks[0] * v.x) + ctx.exp(ks[1] * v.y))
        return factor * (ctx.exp(v.eps) - 1) * ctx.exp(ks[0] * v.x)

    names = ["b", "c"] if two else ["b"]
    hypotheses = tuple(Hypothesis(f"|{n}| <= eps", lambda ctx, v, n=n: v.eps - ctx.abs(getattr(v, n))) for n in names) if hypothesis else ()
    variables = [Scalar("x", lo=centre - 1, hi=centre + 1), Scalar("y", lo=centre - 1, hi=centre + 1),
                 Scalar("eps", lo=Fraction(1, 100), hi=eps_hi)] + [Scalar(n) for n in names]
    claim = Claim(id="perturb", title="generated", statement="generated", paper="generated", dims=[],
                  variables=variables, hypotheses=hypotheses, parts=[Part("main", lhs=lhs, rhs=rhs)])
    formula = export_formula(claim.checks()[0], {})
    boxes = {"x": (Fraction(centre - 1), Fraction(centre + 1)), "y": (Fraction(centre - 1), Fraction(centre + 1)),
             "eps": (Fraction(1, 100), eps_hi), **{n: None for n in names}}
    domain = {"dims": {}, "boxes": {k: None if b is None else [str(b[0]), str(b[1])] for k, b in boxes.items()}, "relations": []}
    return ProofEvidence(formula, "smt", domain, "generated", None, kernel_hints(formula, boxes))


@pytest.mark.parametrize("seed", [1, 2])
def test_an_exp_inequality_is_kernel_checked_by_exps_order_and_products_and_a_forged_one_rejected(coqc, tmp_path, seed):
    # the hints (which of exp's order and product relations to split on) are found by z3; the
    # kernel proves each relation from exp_increasing and exp_plus, and every leaf by lra/nra
    rng = random.Random(seed)
    state = rng.getstate()
    true = _exp_perturbation(rng)
    assert true.kernel["strategy"] == "cases", true.kernel
    assert any("exp" in tree for tree in true.kernel["trees"]), true.kernel
    assert ProofEvidence.from_json(true.to_json()) == true
    rng.setstate(state)
    assert _exp_perturbation(rng, hypothesis=False).kernel["strategy"] == "none"  # no tree for a false claim
    rng.setstate(state)
    assert _exp_perturbation(rng, factor=Fraction(1, 2)).kernel["strategy"] == "none"
    # the true claim's tree kept on broken statements, and a case cut from it: the kernel rejects each
    f = true.formula
    nodes = f.nodes + (("const", Fraction(1, 2)), ("*", len(f.nodes), f.rhs[0]))
    mutants = {"halve the rhs": dataclasses.replace(true, formula=dataclasses.replace(f, nodes=nodes, rhs=(len(nodes) - 1,))),
               "drop the hypotheses": dataclasses.replace(true, formula=dataclasses.replace(f, hypotheses=())),
               "cut a case": _cut_case(true)}
    checks = _checked({"true": true, **mutants}, tmp_path)
    assert checks.pop("true").status == KERNEL_CHECKED
    assert {name: k.status for name, k in checks.items()} == {name: REJECTED for name in mutants}, \
        {name: k.reason for name, k in checks.items()}


# ------------------------------------------------------------------------------ the pipeline
PACK = '''
from fractions import Fraction
from verifier import Claim, Hypothesis, Part, ProofDomain, Scalar

claim = Claim(id="bound", title="a piecewise linear bound", statement="|x - 1/2| + max(y, -y) <= |x| + 1/2 + y for y >= 0",
              paper="mutants", dims=[], variables=[Scalar("x", lo=-4, hi=4), Scalar("y")],
              hypotheses=(Hypothesis("y >= 0", lambda ctx, v: v.y),),
              prove_on=ProofDomain(box=None),
              parts=[Part("main", lhs=lambda ctx, v: ctx.abs(v.x - Fraction(1, 2)) + ctx.maximum(v.y, -v.y),
                          rhs=lambda ctx, v: ctx.abs(v.x) + Fraction(1, 2) + v.y)])
'''


def _verify(project, *args):
    return subprocess.run([sys.executable, "-m", "verifier", *args, "--pack", "mutants.py"], cwd=project,
                          env=dict(os.environ, COLUMNS="200"), capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_check_coq_fails_when_a_locked_proof_certificate_no_longer_checks(coqc, tmp_path):
    """``verify lock --coq`` records the proof as kernel-checked; a certificate with a case cut out and
    its hash pinned anew (a prover's bug locked as if it were evidence) passes ``verify check`` --
    nothing but the kernel looks inside it -- and fails ``verify check --coq``.  Before the kernel
    checked proofs there was no certificate and ``--coq`` looked at refutations only."""
    (tmp_path / "mutants.py").write_text(textwrap.dedent(PACK))
    locked = _verify(tmp_path, "lock", "--coq", "--prove-time", "30")
    assert locked.returncode == 0, locked.stderr
    lock = json.loads((tmp_path / "claims.lock").read_text())
    (entry,) = lock["checks"]
    assert entry["proof"]["status"] == "proved" and entry["proof"]["kernel"] == "checked", entry
    (listed,) = [f for f in entry["evidence"] if f.endswith(".proof")]
    path = tmp_path / listed
    broken = _cut_case(ProofEvidence.from_json(path.read_text()))
    path.write_text(broken.to_json())
    edited = _verify(tmp_path, "check")  # the certificate edited, the lock's pin not: drift without the kernel
    assert edited.returncode == 1 and "kernel evidence moved since the lock" in edited.stderr, edited.stderr
    entry["evidence"][listed] = sha256_of(path)
    (tmp_path / "claims.lock").write_text(json.dumps(lock))
    plain = _verify(tmp_path, "check")
    assert plain.returncode == 0, plain.stderr
    kernel = _verify(tmp_path, "check", "--coq", "--json")
    assert kernel.returncode == 1, kernel.stderr
    (row,) = json.loads(kernel.stdout)
    assert row["proof_kernel"]["coq_status"] == REJECTED and row["proof_kernel"]["locked_kernel"] == "checked"
    assert "no longer as locked" in kernel.stderr
    shutil.rmtree(tmp_path / "counterexamples")


def _softmax_shift(rng, shift):
    """softmax(x + s) = softmax(x) entrywise, with s = c a the same for every entry (true) or s = c a x (false: a scaling)."""
    n, c = rng.randint(2, 3), Fraction(rng.randint(1, 5), rng.randint(1, 3))

    def shifted(ctx, v):
        e = ctx.exp(v.x + (c * v.a if shift == "constant" else c * v.a * v.x))
        return e / ctx.sum(e, -1, keepdims=True)

    def plain(ctx, v):
        e = ctx.exp(v.x)
        return e / ctx.sum(e, -1, keepdims=True)

    claim = Claim(id="shift", title="generated", statement="generated", paper="generated", dims=[],
                  variables=[Vector("x", n, lo=-2, hi=2), Scalar("a", lo=-1, hi=1)],
                  parts=[Part("main", lhs=shifted, rhs=plain, relation="==", elementwise=True)])
    formula = export_formula(claim.checks()[0], {})
    domain = {"dims": {}, "boxes": {"x": ["-2", "2"], "a": ["-1", "1"]}, "relations": []}
    return ProofEvidence(formula, "identity", domain, "x \u2208 [-2, 2]^n, a \u2208 [-1, 1]", None,
                         kernel_hints(formula, {"x": (Fraction(-2), Fraction(2)), "a": (Fraction(-1), Fraction(1))}))


def test_an_identity_with_exp_is_kernel_checked_by_rewriting_and_a_false_one_rejected(coqc, tmp_path):
    rng = random.Random(3)
    true, false = _softmax_shift(rng, "constant"), _softmax_shift(rng, "scaled")
    assert true.kernel == {"strategy": "exp-identity"} and false.kernel == {"strategy": "exp-identity"}
    checks = _checked({"true": true, "false": false}, tmp_path)
    assert checks["true"].status == KERNEL_CHECKED, checks["true"].reason
    assert checks["false"].status == REJECTED


def test_lock_coq_without_coqc_is_a_one_line_usage_error_before_any_work(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from verifier.cli import main

    (tmp_path / "mutants.py").write_text(textwrap.dedent(PACK))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path))
    r = CliRunner().invoke(main, ["lock", "--pack", "mutants.py", "--coq"])
    assert r.exit_code == 2 and r.stderr.strip().splitlines()[-1].startswith("error: coqc not found: install Coq")
    assert not (tmp_path / "claims.lock").exists() and not (tmp_path / "counterexamples").exists()
