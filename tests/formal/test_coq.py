"""Kernel-checked refutations: every stored counterexample re-proved by coqc, and coqc really checks.

Skips when coqc is absent outside CI; under CI (env CI set) its absence is a failure, and
.ci/run installs Debian's coq and libcoq-interval.
"""

import json
import os
import random
import shutil
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

from lemmas import REGISTRY
from verifier import Claim, Dim, Part, Scalar, Vector
from verifier.certify import Certifier
from verifier.cli import main
from verifier.coq import CoqContext, NotExportable, RefutationFalse, export_counterexample, kernel_check_files, kernel_check_locked
from verifier.kernel_evidence import pinned_files
from verifier.lock import read as read_lock
from verifier.coq.runner import KERNEL_CHECKED, REFUTATION_FALSE, REJECTED, run_coqc
from verifier.evidence import load

ROOT = Path(__file__).resolve().parents[2]
PACK = sorted((ROOT / "counterexamples").rglob("*.json"))


def find_claim(paper, cid):
    return REGISTRY.find(paper, cid)


@pytest.fixture(scope="module")
def coqc():
    if shutil.which("coqc") is None:
        if os.environ.get("CI"):
            pytest.fail("coqc is missing under CI: .ci/run must install it (apt-get install -y coq libcoq-interval)")
        pytest.skip("coqc is not installed (apt-get install coq libcoq-interval)")


# ------------------------------------------------------------------------------ the pack
def test_every_stored_counterexample_is_kernel_checked(coqc, tmp_path):
    """coqc accepts the proof of every counterexample the lock cites, each written from the formula
    the lock pins beside it (no claim code runs), the equality cases with irrational sides
    included (4.2 (3), B.1 (1), (2) as printed: a strict claim refuted where lhs = rhs = e - 1),
    whose proof rewrites both sides to rational functions of exp(1/D) for ``field``."""
    lock = read_lock(ROOT / "claims.lock")
    files = pinned_files(lock)
    assert sorted(f.counterexample.resolve() for f in files) == [p.resolve() for p in PACK]
    checks = kernel_check_locked(files, tmp_path, jobs=os.cpu_count() or 2)
    problems = [(k.file, k.status, k.reason) for k in checks if k.status != KERNEL_CHECKED]
    assert not problems
    assert all(k.formula.endswith(".formula") for k in checks)
    equalities = [k for k in checks if "symbolic" in json.loads((ROOT / k.file).read_text())["certificate"]]
    assert len(equalities) >= 3
    assert all("Lemma conclusion_fails : claim_lhs = claim_rhs." in Path(k.script).read_text() for k in equalities)


# ------------------------------------------------------------------------------ coqc checks
def _tampered(script: str, variable: str) -> str:
    """The script with one of the counterexample's values moved by 1/3 everywhere it is stated."""
    definition = next(line for line in script.splitlines() if line.startswith(f"Definition {variable} : R := "))
    old = definition.split(":= ", 1)[1].rstrip(".")
    return script.replace(f"{variable} : R := {old}.", f"{variable} : R := ({old} + IZR 1 / IZR 3).").replace(
        f"{variable}_val : {variable} = {old}.", f"{variable}_val : {variable} = ({old} + IZR 1 / IZR 3).")


@pytest.mark.parametrize("name, variable", [
    ("3.3/3-as-printed-seed0.json", "v_B_0_0"),  # rational: lra
    ("5.1/main-as-printed-seed0.json", "v_X_0_0"),  # exp: interval
])
def test_an_edited_counterexample_is_rejected_by_coqc(coqc, tmp_path, name, variable):
    loaded = load(ROOT / "counterexamples/alman-song-2025" / name, find_claim)
    script = export_counterexample(loaded)
    good, bad = tmp_path / "Good.v", tmp_path / "Bad.v"
    good.write_text(script.text)
    tampered = _tampered(script.text, variable)
    assert tampered != script.text
    bad.write_text(tampered)
    assert run_coqc(good)[0] == KERNEL_CHECKED
    status, message, _ = run_coqc(bad)
    assert status == REJECTED and "Error" in message


def test_an_edited_file_that_no_longer_refutes_is_named_false(tmp_path):
    doc = json.loads((ROOT / "counterexamples/alman-song-2025/3.3/3-as-printed-seed0.json").read_text())
    doc["vars"]["B"] = [["0", "0"]]  # ||AB||_1 = 0 <= 0: the claim holds here
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(RefutationFalse, match="the refutation is false: the conclusion holds at every entry"):
        export_counterexample(load(path, find_claim))


# ------------------------------------------------------------------------------ claims not tuned to
def _random_claim(rng):
    """lhs = max_i |exp(x_i) - c x_i| + sqrt(c^2 + 1) / n  <=  rhs = t: a family none of whose members was looked at."""
    def lhs(ctx, v):
        gap = ctx.abs(ctx.exp(v.x) - v.c * v.x)
        return ctx.max(gap, -1) + ctx.sqrt(v.c * v.c + 1) / v.dims["n"]

    return Claim(id="gen", title="generated", statement="generated", dims=[Dim("n", 1, 4)],
                 variables=[Vector("x", "n", lo=-2, hi=2), Scalar("c"), Scalar("t")],
                 parts=[Part("main", lhs=lhs, rhs=lambda ctx, v: v.t, relation=rng.choice(["<=", "<"]))])


def _document(claim, x, c, t):
    return {"schema": "claim-verifier/counterexample", "schema_version": 1, "paper": "generated", "claim": claim.id,
            "part": "main", "reading": "as-printed", "dims": {"n": len(x)},
            "vars": {"x": [str(q) for q in x], "c": str(c), "t": str(t)},
            "lhs": "0", "rhs": "0", "margin": "0", "dps": 50, "method": "interval"}


@pytest.mark.parametrize("seed", range(4))
def test_generated_claims_are_kernel_checked_exactly_where_the_certifier_refutes(coqc, tmp_path, seed):
    rng = random.Random(seed)
    claim = _random_claim(rng)
    n = rng.randint(1, 4)
    x = [Fraction(rng.randint(-20, 20), rng.randint(10, 19)) for _ in range(n)]  # inside [-2, 2]
    c = Fraction(rng.randint(-9, 9), rng.randint(1, 5))
    check = claim.checks()[0]
    ctx_value = Certifier(30).certify(check, {"x": _batch(x), "c": _batch(c), "t": _batch(Fraction(0))}, {"n": n})
    lhs = Fraction(str(ctx_value.lhs))  # 30 digits: a threshold near lhs on either side
    offset = Fraction(1, 10 ** rng.randint(3, 12))
    paths = []
    for t in (lhs - offset, lhs + offset):  # refuted at the first, holds at the second
        path = tmp_path / f"t{len(paths)}.json"
        path.write_text(json.dumps(_document(claim, x, c, t)))
        paths.append(path)
    refutes = [Certifier(30).certify(check, load(p, lambda *_: claim).data, {"n": n}).violated for p in paths]
    assert refutes == [True, False]
    checks = kernel_check_files(paths, lambda *_: claim, tmp_path / "v")
    assert [k.status for k in checks] == [KERNEL_CHECKED, REFUTATION_FALSE], [k.reason for k in checks]


def _exp_equality_claim(rng):
    """exp(a x + b y) against exp(a x) exp(b y), or 1 / exp(a x - b y) against exp(b y) / exp(a x):
    equal at every point, so the strict claim (either way round) is refuted wherever both sides are irrational."""
    a, b = rng.randint(1, 4), rng.choice([-3, -2, -1, 1, 2, 3])
    if rng.random() < 0.5:
        lhs, rhs = (lambda ctx, v: ctx.exp(a * v.x + b * v.y)), (lambda ctx, v: ctx.exp(a * v.x) * ctx.exp(b * v.y))
    else:
        lhs, rhs = (lambda ctx, v: 1 / ctx.exp(a * v.x - b * v.y)), (lambda ctx, v: ctx.exp(b * v.y) / ctx.exp(a * v.x))
    return Claim(id="gen-eq", title="generated", statement="generated", dims=[], variables=[Scalar("x"), Scalar("y")],
                 parts=[Part("main", lhs=lhs, rhs=rhs, relation=rng.choice(["<", ">"]))])


@pytest.mark.parametrize("seed", range(3))
def test_generated_equalities_with_irrational_sides_are_kernel_checked(coqc, tmp_path, seed):
    """A strict claim refuted at lhs = rhs (both irrational) is re-proved by coqc, and a point
    moved off the equality is rejected: the rewriting is checked, not trusted."""
    rng = random.Random(seed)
    claim = _exp_equality_claim(rng)
    x, y = Fraction(rng.randint(-9, 9), rng.randint(1, 6)), Fraction(rng.choice([-7, -5, -3, 3, 5, 7]), rng.randint(1, 6))
    path = tmp_path / "equal.json"
    doc = _document(claim, [], 0, 0) | {"dims": {}, "vars": {"x": str(x), "y": str(y)}, "method": "exact"}
    path.write_text(json.dumps(doc))
    assert Certifier(30).certify(claim.checks()[0], load(path, lambda *_: claim).data, {}).violated
    (check,) = kernel_check_files([path], lambda *_: claim, tmp_path / "v")
    assert check.status == KERNEL_CHECKED, check.reason
    script = Path(check.script).read_text()
    assert "Lemma conclusion_fails : claim_lhs = claim_rhs." in script and "exp_pow_nat" in script
    wrong = tmp_path / "Wrong.v"  # every exp at m/D claimed to be exp(2/D)^m: the rewriting no longer holds
    assert script.count("Definition base : R := exp (") == 1
    wrong.write_text(script.replace("Definition base : R := exp (", "Definition base : R := exp (IZR 2 * "))
    assert run_coqc(wrong)[0] == REJECTED


def _batch(value):
    import numpy as np
    from flint import fmpq

    def q(f):
        return fmpq(f.numerator, f.denominator)

    arr = np.empty((1, len(value)) if isinstance(value, list) else (1,), dtype=object)
    if isinstance(value, list):
        for i, f in enumerate(value):
            arr[0, i] = q(f)
    else:
        arr[0] = q(value)
    return arr


def test_a_function_coq_lacks_is_named():
    ctx = CoqContext()
    x = ctx.convert({"x": _batch(Fraction(1, 2))})["x"]
    with pytest.raises(NotExportable, match="erf"):
        ctx.erf(x)


# ------------------------------------------------------------------------------ CLI
REPLAYED = "counterexamples/alman-song-2025/3.3/3-as-printed-seed0.json"


def test_replay_coq_reports_kernel_checked_in_json(coqc, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    r = CliRunner().invoke(main, ["replay", REPLAYED, "--coq", "--coq-dir", str(tmp_path), "--json"])
    assert r.exit_code == 1, r.stderr  # still refutes
    doc = json.loads(r.stdout)
    assert doc["kernel_checked"] is True and doc["coq_status"] == KERNEL_CHECKED
    assert Path(doc["coq_script"]).read_text().count("Theorem refutation") == 1


def test_replay_coq_without_coqc_is_a_one_line_usage_error(monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("PATH", str(tmp_path))
    r = CliRunner().invoke(main, ["replay", REPLAYED, "--coq"])
    assert r.exit_code == 2
    assert r.stderr.strip().splitlines()[-1] == ("error: coqc not found: install Coq and the Interval library "
                                                 "(Debian/Ubuntu: apt-get install coq libcoq-interval)")
    assert "Traceback" not in r.stderr
