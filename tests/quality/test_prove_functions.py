"""Every function of the ``ctx`` table proves: a true claim with it is proved on a small box,
a false one refuted with a certificate, and nothing aborts the process (issue 26, item 1).

Before the table gave the jets every function, tanh and expm1 made FLINT abort the process
(arb's functions read a Jet's memory as a ball), sigmoid, softplus, log1p, lambertw and
power(x, 1/2) raised AttributeErrors, erf/sin/cos returned garbage balls (a GELU claim
segfaulted), and power(x, -1/3) said "only positive integer powers".  The proofs run in one
child process, so an abort or a segfault is an exit code here, not the end of the suite.

The true claims keep a little room (``+ 1/10``): a claim tangent to its bound at the edge of
the box (tanh(x) <= x at 0) needs second-order enclosures, which the jets do not have.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from verifier.contexts import FUNCTIONS

#: function -> (box of x, true claim "lhs REL rhs", false claim), written against ctx as c, x (and p), F = Fraction
CLAIMS = {
    "exp": (("-1", "1"), "c.exp(x) >= x + F(1, 2)", "c.exp(x) <= 1 + x + x * x / 2"),
    "log": (("1/2", "3"), "c.log(x) <= x - F(1, 2)", "c.log(x) >= x - 1"),
    "sqrt": (("0", "4"), "c.sqrt(x) <= (x + 1) / 2 + F(1, 10)", "c.sqrt(x) <= x"),
    "tanh": (("0", "2"), "c.tanh(x) <= x + F(1, 10)", "c.tanh(x) >= x"),
    "sigmoid": (("0", "4"), "c.sigmoid(x) <= F(1, 2) + x / 4 + F(1, 100)", "c.sigmoid(x) >= F(1, 2) + x / 4"),
    "softplus": (("-2", "2"), "c.softplus(x) >= c.maximum(x, 0)", "c.softplus(x) <= x + F(1, 10)"),
    "erf": (("0", "2"), "c.erf(x) <= 2 * x + F(1, 100)", "c.erf(x) >= x"),
    "sin": (("0", "3"), "c.sin(x) <= x + F(1, 10)", "c.sin(x) >= x / 2"),
    "cos": (("-1", "1"), "c.cos(x) >= 1 - x * x / 2 - F(1, 10)", "c.cos(x) >= 1 - x * x / 4"),
    "log1p": (("-1/2", "2"), "c.log1p(x) <= x + F(1, 10)", "c.log1p(x) >= x"),
    "expm1": (("-2", "2"), "c.expm1(x) >= x - F(1, 10)", "c.expm1(x) <= x"),
    "lambertw": (("-1/4", "2"), "c.lambertw(x) <= x + F(1, 10)", "c.lambertw(x) >= x / 2"),
    "power": (("0", "3"), "c.power(x, F(1, 3)) <= (x + 2) / 3 + F(1, 10)", "c.power(x, F(1, 3)) <= x"),
}
#: further forms of power: a negative real exponent, and a variable exponent p in [0, 1]
MORE = {
    "power-negative": (("1", "2"), "c.power(x, F(-1, 3)) >= F(1, 2)", "c.power(x, F(-1, 3)) >= F(9, 10)"),
    "power-variable": (("1/2", "2"), "c.power(x, p) <= 1 + p * (x - 1) + F(1, 10)", "c.power(x, p) >= x"),
}

SCRIPT = textwrap.dedent('''
    import json, sys
    from fractions import Fraction as F
    from verifier import Claim, Part, Scalar
    from verifier.prove import make_proof_box, prove

    cases = json.loads(sys.argv[1])
    for name, (box, true, false) in cases.items():
        for truth, text in (("true", true), ("false", false)):
            lhs, rel, rhs = text.partition(" <= ") if " <= " in text else text.partition(" >= ")
            variables = [Scalar("x", lo=F(box[0]), hi=F(box[1]))]
            if ", p)" in text:
                variables.append(Scalar("p", lo=0, hi=1))
            env = lambda c, v: {"c": c, "x": v.x, "p": getattr(v, "p", None), "F": F}
            part = Part("main", lhs=lambda c, v, e=lhs: eval(e, env(c, v)), rhs=lambda c, v, e=rhs: eval(e, env(c, v)),
                        relation=rel.strip())
            claim = Claim(id=f"{name}-{truth}", kind="property", paper="t", location="-", title=text, statement=text,
                          dims=[], variables=variables, parts=[part])
            check = claim.checks()[0]
            proof = prove(check, make_proof_box(check, {}, None, {}), time_limit=60, max_boxes=4000)
            print(json.dumps([name, truth, proof.result.verdict.value, proof.result.message]), flush=True)
''')


@pytest.fixture(scope="module")
def proofs():
    """Every claim proved in one child process: (exit code, {(function, truth): (verdict, message)})."""
    cases = {**CLAIMS, **MORE}
    run = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(cases)], capture_output=True, text=True, timeout=600)
    out = {}
    for line in run.stdout.splitlines():
        name, truth, verdict, message = json.loads(line)
        out[name, truth] = (verdict, message)
    return run.returncode, out, run.stderr[-2000:]


def test_the_table_is_covered():
    smooth = {f.name for f in FUNCTIONS if not f.piecewise}
    assert smooth == set(CLAIMS)


@pytest.mark.parametrize("name", list(CLAIMS) + list(MORE))
def test_a_true_claim_is_proved_and_a_false_one_refuted(proofs, name):
    code, out, stderr = proofs
    assert code == 0, f"the proving process ended with exit code {code}: {stderr}"
    assert out[name, "true"][0] == "proved", out[name, "true"]
    assert out[name, "false"][0] == "refuted", out[name, "false"]
