"""``ctx.sign`` in Coq: written ``x / Rabs x`` (the sign in Coq's reals at 0 too, ``Rinv_0``),
kernel-checked at a zero argument, a rational one and an irrational one."""

import json
from pathlib import Path

from verifier import Claim, Part, Scalar
from verifier.certify import Certifier
from verifier.coq import kernel_check_files
from verifier.coq.runner import KERNEL_CHECKED
from verifier.evidence import load

from .test_coq import coqc  # noqa: F401 -- the fixture: coqc is there, or the test skips (fails under CI)


CASES = {  # name: (lhs, rhs, relation, the counterexample)
    "zero": (lambda ctx, v: ctx.sign(v.x) * ctx.sign(v.x), lambda ctx, v: ctx.const(1), ">=", {"x": "0", "t": "0"}),
    "rational": (lambda ctx, v: ctx.sign(v.x - v.t) * v.x, lambda ctx, v: ctx.const(0), "<=", {"x": "1/3", "t": "-1/2"}),
    "irrational": (lambda ctx, v: ctx.sign(ctx.exp(v.x) - 2) + v.t, lambda ctx, v: ctx.const(1) / 2, "<=", {"x": "1", "t": "0"}),
}


def test_sign_counterexamples_are_kernel_checked(coqc, tmp_path):
    claims, paths = {}, []
    for name, (lhs, rhs, relation, values) in CASES.items():
        claim = Claim(f"sign-{name}", "sign", "sign", dims=[], variables=[Scalar("x"), Scalar("t")],
                      parts=[Part("main", lhs=lhs, rhs=rhs, relation=relation)])
        claims[claim.id] = claim
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({"schema": "claim-verifier/counterexample", "schema_version": 1, "paper": "generated",
                                    "claim": claim.id, "part": "main", "reading": "as-printed", "dims": {}, "vars": values,
                                    "lhs": "0", "rhs": "0", "margin": "0", "dps": 50, "method": "interval"}))
        assert Certifier(30).certify(claim.checks()[0], load(path, lambda *_, c=claim: c).data, {}).violated, name
        paths.append(path)
    checks = kernel_check_files(paths, lambda paper, cid: claims[cid], tmp_path / "v")
    assert [k.status for k in checks] == [KERNEL_CHECKED] * len(CASES), [k.reason for k in checks]
    script = Path(checks[0].script).read_text()
    assert "(v_x / t" in script and "(Rabs v_x)" in script  # the claim's sign, as Coq states it
