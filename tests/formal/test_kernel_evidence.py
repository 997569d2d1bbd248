"""The kernel judges the stored evidence, not the pack (issue 36, item 2 and the kernel's names).

Hostile packs are written by the test, locked and checked in a fresh process (a pack that
patches the verifier must not patch this test run): a refutation the claim's own formula
does not support fails ``verify check --coq`` (and ``verify check``), whatever the pack
did to the verifier's certifier or whatever its code computes in other contexts.
"""

import json
import os
import random
import subprocess
import sys
import textwrap
from fractions import Fraction

import pytest

from verifier import Claim, Dim, Part, Scalar, Vector
from verifier.certify import Certifier
from verifier.coq import kernel_check_files
from verifier.coq.runner import KERNEL_CHECKED
from verifier.evidence import load

from .test_coq import _batch, coqc  # noqa: F401  (coqc: the fixture that skips without coqc, fails under CI)


# ------------------------------------------------------------------------------ names
def _clashing_claim(rng):
    """A vector ``a`` beside a scalar ``a_0``, ``x`` beside ``x_val``: lhs = sum(a) + a_0 + |x - x_val| * c."""
    c = Fraction(rng.randint(1, 9), rng.randint(1, 4))

    def lhs(ctx, v):
        return ctx.sum(v.a, 1) + v.a_0 + ctx.abs(v.x - v.x_val) * c

    return Claim(id="clash", title="generated", statement="generated", dims=[Dim("n", 1, 3)],
                 variables=[Vector("a", "n"), Scalar("a_0"), Scalar("x"), Scalar("x_val"), Scalar("t")],
                 parts=[Part("main", lhs=lhs, rhs=lambda ctx, v: v.t, relation=rng.choice(["<=", "<"]))])


@pytest.mark.parametrize("seed", range(2))
def test_variables_whose_kernel_names_clashed_are_kernel_checked(coqc, tmp_path, seed):
    """Before: ``Error: v_a_0 already exists`` (the vector's first entry and the scalar), so two
    correct refutations were "rejected"."""
    rng = random.Random(seed)
    claim = _clashing_claim(rng)
    n = rng.randint(1, 3)
    values = {"a": [Fraction(rng.randint(-9, 9), rng.randint(1, 5)) for _ in range(n)],
              **{k: Fraction(rng.randint(-9, 9), rng.randint(1, 5)) for k in ("a_0", "x", "x_val")}}
    data = {k: _batch(v) for k, v in values.items()} | {"t": _batch(Fraction(0))}
    lhs = Certifier(30).certify(claim.checks()[0], data, {"n": n}).exact_lhs
    t = Fraction(lhs) - Fraction(1, rng.randint(2, 50))
    doc = {"schema": "claim-verifier/counterexample", "schema_version": 1, "paper": "generated", "claim": claim.id,
           "part": "main", "reading": "as-printed", "dims": {"n": n},
           "vars": {k: [str(q) for q in v] if isinstance(v, list) else str(v) for k, v in values.items()} | {"t": str(t)},
           "lhs": "0", "rhs": "0", "margin": "0", "dps": 50, "method": "exact"}
    path = tmp_path / "clash.json"
    path.write_text(json.dumps(doc))
    assert Certifier(30).certify(claim.checks()[0], load(path, lambda *_: claim).data, {"n": n}).violated
    (check,) = kernel_check_files([path], lambda *_: claim, tmp_path / "v")
    assert check.status == KERNEL_CHECKED, check.reason


# ------------------------------------------------------------------------------ hostile packs
HOSTILE_PACK = '''
import dataclasses
from verifier import Claim, Part, Scalar
from verifier import certify as _certify

# 1. a pack that patches the verifier at import: the true |x| <= |x| + 1 is certified against |x| - 1
_original = _certify.Certifier.certify


def _patched(self, check, data, dims, display=True):
    if check.claim.id == "patched":
        check = dataclasses.replace(check, part=dataclasses.replace(check.part, rhs=lambda ctx, v: ctx.abs(v.x) - 1))
    return _original(self, check, data, dims, display)


_certify.Certifier.certify = _patched

patched = Claim(id="patched", title="true", statement="|x| <= |x| + 1", paper="hostile", dims=[],
                variables=[Scalar("x", lo=-4, hi=4)],
                parts=[Part("main", lhs=lambda ctx, v: ctx.abs(v.x), rhs=lambda ctx, v: ctx.abs(v.x) + 1)])


# 2. a claim whose sides differ in the kernel's context only: 2 + |x| everywhere else, |x| there
def _lhs(ctx, v):
    return ctx.abs(v.x) if ctx.name in ("coq", "formula") else ctx.abs(v.x) + 2


two_faced = Claim(id="two-faced", title="true", statement="|x| <= |x| + 1", paper="hostile", dims=[],
                  variables=[Scalar("x", lo=-4, hi=4)], parts=[Part("main", lhs=_lhs, rhs=lambda ctx, v: ctx.abs(v.x) + 1)])
claims = [patched, two_faced]
'''


#: the values each hostile claim's own (patched) certificate gives at x = 0, so that the stored file
#: states exactly what its replay recomputes: only the kernel, from the pinned formula, can tell
PLANTED = {"patched": ("0", "-1", "-1"), "two-faced": ("2", "1", "-1")}


def _planted(claim: str) -> dict:
    """A counterexample a hostile author stores by hand: x = 0, where the claim holds (0 <= 1)."""
    lhs, rhs, margin = PLANTED[claim]
    return {"schema": "claim-verifier/counterexample", "schema_version": 1, "paper": "hostile", "claim": claim, "part": "main",
            "reading": "as-printed", "dims": {}, "vars": {"x": "0"}, "lhs": lhs, "rhs": rhs, "margin": margin, "dps": 50,
            "method": "exact"}


def _verify(project, *args):
    env = dict(os.environ, COLUMNS="200")
    return subprocess.run([sys.executable, "-m", "verifier", *args, "--pack", "hostile.py"], cwd=project, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_a_refutation_its_pinned_formula_does_not_support_fails_check_and_check_coq(coqc, tmp_path):
    """Before: ``verify lock`` recorded both planted refutations, ``verify check --coq`` exited 0
    (the exporter found lhs < rhs and said "not exported", which did not fail); now the kernel's
    outcome is ``refutation-false`` for both and the check fails, as plain ``verify check`` does
    (the deciding process re-checks each refutation from its pinned formula, no pack code)."""
    (tmp_path / "hostile.py").write_text(textwrap.dedent(HOSTILE_PACK))
    for claim in ("patched", "two-faced"):
        folder = tmp_path / "counterexamples" / "hostile" / claim
        folder.mkdir(parents=True)
        (folder / "planted.json").write_text(json.dumps(_planted(claim)))
    locked = _verify(tmp_path, "lock")
    assert locked.returncode == 0, locked.stderr
    entries = json.loads((tmp_path / "claims.lock").read_text())["checks"]
    assert [e["verdict"] for e in entries] == ["refuted", "refuted"]  # what the hostile pack made the verifier say
    checked = _verify(tmp_path, "check", "--coq", "--json")
    assert checked.returncode == 1, checked.stderr
    statuses = {o["claim"]: [cx["coq_status"] for cx in o["counterexamples"]] for o in json.loads(checked.stdout)}
    assert statuses == {"patched": ["refutation-false"], "two-faced": ["refutation-false"]}
    assert "its pinned formula does not confirm the refutation" in checked.stderr
