"""``verify experiment``: JSON on stdout, tables on stderr, figures with --out, usage errors."""

import json

from click.testing import CliRunner

from verifier.cli import main


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_layer_collapse_json():
    r = run("experiment", "layer-collapse", "--small", "--widths", "2", "--depths", "2", "--seed", "3", "--json")
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["experiment"] == "layer-collapse" and doc["config"]["seed"] == 3
    assert {s["surrogate"] for s in doc["slopes"]} == {"parallel", "fitted", "identity"}
    assert len(doc["gaps"]) == 3 * len(doc["config"]["etas"])


def test_rank_collapse_table_on_stderr_and_figures(tmp_path):
    r = run("experiment", "rank-collapse", "--small", "--precisions", "float32", "--out", tmp_path)
    assert r.exit_code == 0, r.stderr
    assert r.stdout == ""
    tables = r.stderr.split("Layer collapse")[0]
    assert "Rank collapse at initialisation" in tables and "float32" in tables and "float64" not in tables
    assert {p.name for p in tmp_path.iterdir()} == {f"rank_collapse_{n}.{e}" for n in ("residuals", "weight_scale") for e in ("png", "svg")}


def test_bad_sizes_are_one_line_usage_errors():
    r = run("experiment", "rank-collapse", "--small", "--width", "30")
    assert r.exit_code == 2 and r.stderr.strip() == "error: width 30 is not a multiple of heads 4"
    r = run("experiment", "layer-collapse", "--etas", "1,x")
    assert r.exit_code == 2 and "'1,x' is not a comma-separated list of floats" in r.stderr
