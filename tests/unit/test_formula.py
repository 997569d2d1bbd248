"""The formula as data (verifier/formula.py): exported once, read back from untrusted JSON, evaluated exactly.

The exact evaluator decides a stored refutation without the claim's code: on seeded claims
not tuned to, it agrees with the certifier (which runs the claim's code) at every point.
"""

import json
import math
import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from flint import fmpq

from verifier import Claim, Dim, Hypothesis, Part, Scalar, Vector
from verifier.certify import Certifier
from verifier.coq import Namer
from verifier.formula import HOLDS, REFUTES, Formula, FormulaFileError, NotExportable, export_formula
from verifier.evidence import load

from ..conftest import check_of

ROOT = Path(__file__).resolve().parents[2]


def _batch(values):
    arr = np.empty((1,) + np.shape(values), dtype=object)
    for idx in np.ndindex(*np.shape(values)):
        q = Fraction(np.asarray(values, dtype=object)[idx])
        arr[(0,) + idx] = fmpq(q.numerator, q.denominator)
    return arr


# ------------------------------------------------------------------------------ the file
def test_a_formula_reads_back_as_itself_and_its_text_is_stable():
    check = check_of("4.1", reading="repaired")
    formula = export_formula(check, {"n": 3, "d": 2})
    text = formula.to_json()
    assert Formula.from_json(text) == formula
    assert Formula.from_json(text).to_json() == text
    assert export_formula(check, {"n": 3, "d": 2}).to_json() == text  # exported twice, the same bytes
    doc = json.loads(text)
    assert doc["schema"] == "ml-claim-verifier/formula" and doc["relation"] == "<="
    assert {op for op, *_ in doc["nodes"]} <= {"var", "const", "+", "-", "*", "/", "neg", "abs", "max", "min"}


def _document():
    return json.loads(export_formula(check_of("4.1", reading="repaired"), {"n": 2, "d": 1}).to_json())


@pytest.mark.parametrize("edit, where", [
    (lambda d: d["nodes"].append(["exp", len(d["nodes"])]), "nodes["),  # refers to itself: not an earlier node
    (lambda d: d["nodes"].append(["erf", 0]), "nodes["),
    (lambda d: d["nodes"].append(["const", "1e5"]), "nodes["),
    (lambda d: d["nodes"].append(["const", "\u09ea"]), "nodes["),  # a Bengali digit four
    (lambda d: d["nodes"].append(["var", "A", [9, 0]]), "nodes["),  # outside the shape
    (lambda d: d["nodes"].append(["var", "nope", []]), "nodes["),
    (lambda d: d.update(lhs=[10 ** 6]), "lhs"),
    (lambda d: d.update(rhs=[]), "rhs"),
    (lambda d: d.update(relation="=<"), "relation"),
    (lambda d: d["variables"].append({"name": "A", "shape": [1]}), "variables["),
    (lambda d: d.update(schema_version=2), "schema_version"),
])
def test_a_malformed_formula_is_refused_naming_the_field(edit, where):
    doc = _document()
    edit(doc)
    with pytest.raises(FormulaFileError) as info:
        Formula.from_json(json.dumps(doc))
    assert info.value.where.startswith(where)


def test_duplicate_keys_and_non_finite_numbers_are_refused():
    text = json.dumps(_document())
    with pytest.raises(FormulaFileError, match="duplicate key 'relation'"):
        Formula.from_json(text[:-1] + ', "relation": ">="}')
    with pytest.raises(FormulaFileError, match="non-finite"):
        Formula.from_json(text[:-1] + ', "extra": NaN}')


def test_a_float_constant_or_a_branch_in_python_is_not_exported():
    floaty = Claim(id="f", title="t", statement="s", dims=[], variables=[Scalar("x")],
                   parts=[Part("main", lhs=lambda ctx, v: v.x * 0.5, rhs=lambda ctx, v: v.x)])
    with pytest.raises(NotExportable, match="float"):
        export_formula(floaty.checks()[0], {})
    branchy = Claim(id="b", title="t", statement="s", dims=[], variables=[Scalar("x")],
                    parts=[Part("main", lhs=lambda ctx, v: v.x if v.x > 0 else -v.x, rhs=lambda ctx, v: v.x)])
    with pytest.raises(NotExportable, match="branch"):
        export_formula(branchy.checks()[0], {})


# ------------------------------------------------------------------------------ evaluation
def _random_claim(rng):
    """max_i |exp(a x_i) - c x_i| + |c| (or its square) against t, under h >= |x_1|: a family not looked at."""
    a = Fraction(rng.randint(-3, 3), rng.randint(1, 3))
    square = rng.random() < 0.5

    def lhs(ctx, v):
        gap = ctx.abs(ctx.exp(a * v.x) - v.c * v.x) if a else ctx.abs(v.c * v.x)
        tail = v.c * v.c if square else ctx.abs(v.c)
        return ctx.max(gap, -1) + tail

    return Claim(id="gen", title="generated", statement="generated", dims=[Dim("n", 1, 3)],
                 variables=[Vector("x", "n", lo=-2, hi=2), Scalar("c"), Scalar("t"), Scalar("h")],
                 hypotheses=(Hypothesis("h >= |x_1|", lambda ctx, v: v.h - ctx.abs(v.x[:, 0])),),
                 parts=[Part("main", lhs=lhs, rhs=lambda ctx, v: v.t, relation=rng.choice(["<=", "<", ">=", ">"]))])


@pytest.mark.parametrize("seed", range(6))
def test_the_exact_evaluator_agrees_with_the_certifier_on_claims_not_tuned_to(seed):
    rng = random.Random(seed)
    claim = _random_claim(rng)
    check = claim.checks()[0]
    n = rng.randint(1, 3)
    formula = Formula.from_json(export_formula(check, {"n": n}).to_json())  # through the file, as the kernel reads it
    certifier = Certifier(30)
    agreed = 0
    for _ in range(12):
        x = [Fraction(rng.randint(-8, 8), rng.randint(1, 4)) for _ in range(n)]
        c = Fraction(rng.randint(-5, 5), rng.randint(1, 3))
        h = Fraction(rng.randint(-2, 8), 4)
        lhs = certifier.certify(check, {"x": _batch(x), "c": _batch(c), "t": _batch(0), "h": _batch(h)}, {"n": n}).lhs
        t = Fraction(str(lhs)) + Fraction(rng.choice([-1, 1]), 10 ** rng.randint(2, 8))
        point = {"x": _batch(x), "c": _batch(c), "t": _batch(t), "h": _batch(h)}
        violated = certifier.certify(check, point, {"n": n}).violated
        decision = formula.decide(point)
        assert decision.status == (REFUTES if violated else HOLDS), (decision, violated)
        agreed += 1
    assert agreed == 12


def test_evaluate_exact_gives_rationals_where_rational_and_balls_elsewhere():
    claim = Claim(id="e", title="t", statement="s", dims=[], variables=[Scalar("x"), Scalar("y")],
                  parts=[Part("main", lhs=lambda ctx, v: ctx.abs(v.x - v.y) / 3, rhs=lambda ctx, v: ctx.exp(v.x) + ctx.exp(v.y - v.y))])
    formula = export_formula(claim.checks()[0], {})
    values = formula.evaluate_exact({"x": _batch(Fraction(1, 2)), "y": _batch(Fraction(-1))})
    assert values.lhs == (fmpq(1, 2),)
    (rhs,) = values.rhs
    assert not isinstance(rhs, fmpq) and rhs.rad() < 1e-60 and abs(float(rhs.mid()) - (1 + math.exp(0.5))) < 1e-12


def test_a_stored_counterexample_is_decided_from_its_formula_alone():
    loaded = load(ROOT / "counterexamples/alman-song-2025/4.1/reviewer.json", lambda p, c: check_of("4.1", reading="repaired").claim)
    formula = Formula.from_json(export_formula(loaded.check, loaded.dims).to_json())
    assert formula.decide(loaded.data).status == REFUTES
    moved = {k: v.copy() for k, v in loaded.data.items()}
    moved["eps"][0] = fmpq(5)
    assert formula.decide(moved).status == HOLDS


# ------------------------------------------------------------------------------ kernel names
def test_kernel_names_never_clash():
    """A vector ``a`` beside a scalar ``a_0``, ``x`` beside ``x_val``: every name and every lemma
    name derived from it is given once."""
    namer = Namer()
    names = [namer.fresh(w) for w in ("v_a_0", "v_a_1", "v_a_0", "v_x", "v_x_val", "v_x_val", "v_\u03b5", "t1", "claim_lhs")]
    assert len(set(names)) == len(names)
    lemmas = {n + s for n in names for s in ("", "_val", "_bnd", "_eq", "_holds")}
    assert len(lemmas) == 5 * len(names)
    assert all(n.isascii() and n.replace("_", "a").isalnum() for n in names)


# ------------------------------------------------------------------------------ proof certificates
def _proof_evidence():
    from verifier.kernel_evidence import ProofEvidence, kernel_hints

    check = check_of("3.5", part="norm-bound")
    formula = export_formula(check, {"n": 2})
    return ProofEvidence(formula, "smt", {"dims": {"n": 2}, "boxes": {"E": None}, "relations": []}, "n = 2; E \u2208 \u211d^(2\u00d72)",
                         None, kernel_hints(formula, {"E": None}))


def test_a_proof_certificate_reads_back_as_itself():
    from verifier.kernel_evidence import ProofEvidence

    ev = _proof_evidence()
    assert ev.kernel["strategy"] == "cases" and len(ev.kernel["trees"]) == 1
    assert ProofEvidence.from_json(ev.to_json()) == ev
    assert all(isinstance(x, (str, int)) for x in ev.kernel["trees"][0])  # flat: no nesting for a hostile file to deepen


@pytest.mark.parametrize("edit, where", [
    (lambda d: d["kernel"].update(trees=[]), "kernel.trees"),  # one tree per goal
    (lambda d: d["kernel"].update(trees=[["split", 0, "lra", "lra"]]), "kernel.trees[0]"),  # node 0 is a variable, not abs/max/min
    (lambda d: d["kernel"].update(trees=[["split"]]), "kernel.trees[0]"),
    (lambda d: d["kernel"].update(trees=[["lra", "lra"]]), "kernel.trees[0]"),
    (lambda d: d["kernel"].update(strategy="trust-me"), "kernel.strategy"),
    (lambda d: d["domain"]["boxes"].update(E=["1", "0"]), "domain.boxes.E"),
    (lambda d: d["domain"]["boxes"].update(F=None), "domain.boxes.F"),
])
def test_a_malformed_proof_certificate_is_refused_naming_the_field(edit, where):
    from verifier.kernel_evidence import ProofEvidence

    doc = json.loads(_proof_evidence().to_json())
    edit(doc)
    with pytest.raises(FormulaFileError) as info:
        ProofEvidence.from_json(json.dumps(doc))
    assert info.value.where == where
