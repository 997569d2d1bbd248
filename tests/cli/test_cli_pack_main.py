"""CLI behaviour the main-text pack relies on: equation ids, ill-posed witnesses, readings."""

import json

from click.testing import CliRunner

from verifier.cli import main


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_equation_ids_resolve_however_they_are_written():
    for spelling in ("eq6", "Eq. (6)", "equation 6"):
        r = run("show", spelling)
        assert r.exit_code == 0, r.stderr
        assert "Eq. (6)" in r.stdout


def test_ill_posed_definition_exits_1_and_shows_both_minimisers(tmp_path):
    r = run("lemma", "3.4", "--reading", "as-printed", "--budget", "20000", "--save", "--store", str(tmp_path))
    assert r.exit_code == 1
    assert "ILL-POSED" in r.stderr and "minimiser y_lo" in r.stderr and "minimiser y_hi" in r.stderr
    assert list(tmp_path.rglob("*.json"))  # the witness is kept like a refutation


def test_lemma_runs_every_reading_unless_one_is_named():
    r = run("lemma", "eq9", "--budget", "4000", "--json")
    assert r.exit_code == 1
    assert {d["reading"] for d in json.loads(r.stdout)} == {"as-printed", "adversarial", "rowwise-res", "attention"}
    r = run("lemma", "eq9", "--reading", "rowwise-res", "--budget", "4000", "--json")
    assert r.exit_code == 0 and [d["verdict"] for d in json.loads(r.stdout)] == ["survived"]
