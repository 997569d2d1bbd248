"""``verify prove`` and ``verify tighten`` through click's runner."""

import json

from click.testing import CliRunner

from verifier.cli import main


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_prove_repaired_4_1_json_carries_domain_and_method():
    r = run("prove", "4.1", "--reading", "repaired", "--dims", "n=3,d=2", "--box", "-5:5", "--json")
    assert r.exit_code == 0, r.stderr
    (item,) = json.loads(r.stdout)
    assert item["verdict"] == "proved" and item["method"] == "smt" and item["certified"] is True
    assert item["domain"].startswith("n = 3, d = 2") and "[-5, 5]" in item["domain"]
    assert item["proof"]["domain"]["dims"] == {"n": 3, "d": 2} and item["proof"]["solver"] == "unsat"


def test_prove_original_4_1_exits_1_with_a_counterexample():
    r = run("prove", "4.1", "--reading", "as-printed", "--dims", "n=3,d=1")
    assert r.exit_code == 1
    assert r.stdout == "" and "REFUTED" in r.stderr and "solver" in r.stderr


def test_prove_text_output_states_the_domain():
    r = run("prove", "B.2", "--dims", "n=1", "--box", "a=-5:5", "--box", "eps=0.01:2")
    assert r.exit_code == 0, r.stderr
    assert "PROVED" in r.stderr and "domain: n = 1" in r.stderr and "branch-and-bound" in r.stderr


def test_prove_usage_errors_exit_2_without_traceback():
    for args in (
        ["prove", "4.1", "--dims", "n=3"],
        ["prove", "4.1", "--dims", "n=3,d=x"],
        ["prove", "4.1", "--dims", "n=3,d=1", "--box", "5:-5"],
        ["prove", "4.1", "--dims", "n=3,d=1", "--box", "C=0:1"],
        ["prove", "5.1", "--dims", "n=2,d=1"],  # exp of a bilinear exponent: branch and bound needs a box
        ["prove", "B.2", "--dims", "n=2", "--box", "-1:1", "--method", "smt"],
        ["prove", "4.1", "--dims", "n=3,d=1", "--reading", "nope"],
    ):
        r = run(*args)
        assert r.exit_code == 2, (args, r.output)
        assert "error:" in r.stderr and "Traceback" not in r.stderr


def test_tighten_json():
    r = run("tighten", "4.1", "--reading", "as-printed", "--budget", "30000", "--json")
    assert r.exit_code == 0, r.stderr
    (item,) = json.loads(r.stdout)
    assert item["certified"] and float(item["lower_bound"]) >= 1.99 and item["last_verdict"] == "survived"
    assert item["witness"]["method"] == "exact" and item["rounds"][0]["verdict"] == "refuted"


def test_tighten_text_says_what_the_constant_must_be():
    r = run("tighten", "4.1", "--reading", "as-printed", "--budget", "30000")
    assert r.exit_code == 0
    assert "needs a constant of at least 2 (certified, exact)" in r.stderr and "no counterexample in" in r.stderr
