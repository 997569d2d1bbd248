"""``verify expr``: the issue's three commands, JSON, --tighten, --save-claim to a locked pack, bad input."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from .packs_helpers import verify

NESBITT = r"\frac{a}{b+c}+\frac{b}{c+a}+\frac{c}{a+b} \geq \frac{3}{2}"
QUICK = ("--budget", "20000", "--prove-time", "10")


def _json(result):
    return json.loads(result.stdout)


def test_nesbitt_survives_and_is_proved_on_its_box():
    r = verify("expr", NESBITT, "--var", "a,b,c > 0", *QUICK, "--json")
    assert r.exit_code == 0, r.output
    (item,) = _json(r)
    assert item["verdict"] in ("survived", "proved") and item["counterexample"] is None


def test_the_constrained_sum_of_products_survives():
    r = verify("expr", "a*b + b*c + c*a <= 3", "--var", "a,b,c >= 0", "--where", "a + b + c = 3", *QUICK, "--json")
    assert r.exit_code == 0, r.output
    assert _json(r)[0]["verdict"] in ("survived", "proved")


def test_bernoulli_reversed_is_refuted_with_a_certified_point():
    r = verify("expr", "x**p <= 1 + p*(x - 1)", "--var", "x in [0, 4]", "--var", "p in [1, 2]", *QUICK, "--json")
    assert r.exit_code == 1, r.output
    (item,) = _json(r)
    assert item["verdict"] == "refuted"
    cx = item["counterexample"]
    x, p = Fraction(cx["vars"]["x"]), Fraction(cx["vars"]["p"])
    assert 0 <= x <= 4 and 1 <= p <= 2
    assert p.denominator == 1 and x ** int(p) > 1 + p * (x - 1)  # checked again here, by hand, for the shrunk integer p


def test_the_panel_is_the_lemma_panel_with_the_notes():
    r = verify("expr", NESBITT, "--var", "a,b,c > 0", *QUICK)
    assert r.exit_code == 0
    assert "searched on (0, 10000]" in r.stderr and "homogeneous of degree 0" in r.stderr
    assert "SURVIVED" in r.stderr


def test_tighten_estimates_the_constant():
    r = verify("expr", "ab + bc + ca <= C (a^2 + b^2 + c^2)", "--var", "a,b,c >= 0", "--tighten", "C",
               "--budget", "4000", "--rounds", "3", "--json")
    assert r.exit_code == 0, r.output
    (item,) = _json(r)
    assert Fraction(item["lower_bound"]) == 1  # at a = b = c, and no point does better


def test_save_claim_then_lock_and_check(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = verify("expr", "x**p <= 1 + p*(x - 1)", "--var", "x in [0, 4]", "--var", "p in [1, 2]", "--save-claim", "bernoulli.py", *QUICK)
    assert r.exit_code == 1, r.output
    source = (tmp_path / "bernoulli.py").read_text()
    assert source.startswith('"""x**p <= 1 + p*(x - 1)') and "id='bernoulli'" in source
    assert "verify expr 'x**p <= 1 + p*(x - 1)' --var 'x in [0, 4]' --var 'p in [1, 2]'" in source
    r = verify("lock", "--pack", "bernoulli.py", "--budget", "5000")
    assert r.exit_code == 0, r.output
    lock = json.loads((tmp_path / "claims.lock").read_text())
    assert [(c["claim"], c["verdict"]) for c in lock["checks"]] == [("bernoulli", "refuted")]
    r = verify("check", "--pack", "bernoulli.py")
    assert r.exit_code == 0, r.output
    (stored,) = lock["checks"][0]["counterexamples"]
    r = verify("replay", stored, "--pack", "bernoulli.py")
    assert r.exit_code == 1, r.output


def test_a_statement_may_start_with_a_minus_sign():
    r = verify("expr", r"-\sum_i p_i \ln p_i \le \ln n - 0.001", "--var", "p: simplex n", "--dim", "n in 2..4", *QUICK, "--json")
    assert r.exit_code == 1, r.output
    cx = _json(r)[0]["counterexample"]
    assert len(set(cx["vars"]["p"])) == 1  # the uniform point, where the entropy is exactly ln n


def test_save_without_a_claim_module_is_refused():
    r = verify("expr", "x <= 1", "--var", "x in [0, 2]", "--save")
    assert r.exit_code == 2 and "--save-claim" in r.stderr


@pytest.mark.parametrize("args, fragment", [
    ([r"\frac{a}{\foo b} < 1", "--var", "a, b > 0"], r"unknown command \foo"),
    ([r"\frac{a}{b <1", "--var", "a, b > 0"], "unbalanced '{'"),
    (["a + d <= 1", "--var", "a > 0"], "d is used but not declared"),
    (["a <= 1", "--var", "a > 0", "--var", "b > 0"], "b is declared but not used"),
    (["a + 1", "--var", "a > 0"], "a relation is missing"),
    (["x <= 1", "--var", "x in [0, 1]", "--where", "x > 3"], "contradict each other or the box"),
    (["x <= 1", "--var", "x in [0, 1", ], "interval"),
    (["x <= 1", "--var", "x in [0, 1]", "--save-claim", "out.txt"], "a pack module is a .py file"),
])
def test_bad_input_is_one_line_and_exit_2(args, fragment, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = verify("expr", *args)
    assert r.exit_code == 2, r.output
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1 and fragment in r.stderr
    assert "Traceback" not in r.output


# ------------------------------------------------------------------ what was read is shown
def test_the_headline_misreading_is_gone_and_the_reading_is_shown():
    """2xy^2 is 2·x·y² (true by AM-GM), not 2·(xy)² (refuted at x = -2, y = -1)."""
    r = verify("expr", r"2xy^2 \leq x^2 + y^4", "--var", "x,y", "--budget", "2000")
    assert r.exit_code == 0, r.output
    assert "read as: 2\u00b7x\u00b7y\u00b2 \u2264 x\u00b2 + y\u2074" in r.stderr
    r = verify("expr", r"2xy^2 \leq x^2 + y^4", "--var", "x,y", *QUICK, "--json")
    (item,) = _json(r)
    assert item["verdict"] in ("survived", "proved") and item["read_as"] == "2*x*y**2 <= x**2 + y**4"


def test_trigonometry_on_an_interval_of_pi():
    """Jordan's inequality sin x >= 2x/π on [0, π/2], and its reverse refuted in ball arithmetic."""
    r = verify("expr", r"\sin x \geq \frac{2}{\pi} x", "--var", r"0 \le x \le \frac{\pi}{2}", *QUICK, "--json")
    assert r.exit_code == 0, r.output
    (item,) = _json(r)
    assert item["verdict"] in ("survived", "proved") and item["read_as"] == "sin(x) >= 2*x/pi"
    r = verify("expr", r"\sin x \leq \frac{2}{\pi} x", "--var", r"0 < x < \pi", *QUICK, "--json")
    assert r.exit_code == 1, r.output
    cx = _json(r)[0]["counterexample"]
    assert cx["certificate"].startswith("ball arithmetic") and 0 < Fraction(cx["vars"]["x"]) < Fraction(355, 113)


def test_save_claim_refuses_an_existing_file_without_force(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "analysis.py").write_text("mine = 1\n")
    r = verify("expr", "x <= 1", "--var", "x in [0, 1]", "--save-claim", "analysis.py", "--budget", "200")
    assert r.exit_code == 2 and "the file exists; add --force" in r.stderr
    assert (tmp_path / "analysis.py").read_text() == "mine = 1\n"
    r = verify("expr", r"2ab^2 \le a^2 + b^4", "--var", "a, b", "--save-claim", "analysis.py", "--force", "--budget", "200")
    assert r.exit_code == 0, r.output
    source = (tmp_path / "analysis.py").read_text()
    assert "Read as: 2\u00b7a\u00b7b\u00b2 \u2264 a\u00b2 + b\u2074" in source and "read_as='2*a*b**2 <= a**2 + b**4'" in source
