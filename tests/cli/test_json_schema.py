"""Every command's ``--json`` output, and every stored file, validates against its documented schema.

The schemas are docs/schema/*.schema.json (the guide is docs/json.md).  They forbid fields they
do not describe, so a field added to an output without its documentation fails here, naming it;
and every field they describe carries a description, so a reader writing a runner from the
documentation alone knows what each means.  The outputs come from a pack made by the test (a
claim that fails, one that holds) and from the paper's own lock and stored counterexamples.
"""

import json
import textwrap
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from verifier.reporters.json_schema import SCHEMA_PREFIX, VERSIONS

from .packs_helpers import locked_project, verify

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "docs" / "schema"

PACK = textwrap.dedent("""
    from verifier import Claim, Dim, Part, ProofDomain, Scalar, Vector

    false_claim = Claim(id="f1", title="a false sum", paper="schema-paper", statement="sum x <= 0",
                        dims=[Dim("n", 1, 2)], variables=[Vector("x", "n")],
                        parts=[Part("main", lhs=lambda ctx, v: ctx.sum_all(v.x), rhs=lambda ctx, v: 0)])
    true_claim = Claim(id="t1", title="a true square", paper="schema-paper", statement="0 <= x^2 + y^2",
                       dims=[], variables=[Scalar("x"), Scalar("y")],
                       parts=[Part("main", lhs=lambda ctx, v: 0, rhs=lambda ctx, v: v.x * v.x + v.y * v.y)],
                       prove_on=ProofDomain(boxes={"x": (-2, 2), "y": (-2, 2)}))
    claims = [false_claim, true_claim]
""")


def registry() -> Registry:
    return Registry().with_resources((p.name, Resource.from_contents(json.loads(p.read_text()))) for p in SCHEMAS.glob("*.schema.json"))


def validate(schema_name: str, doc) -> None:
    schema = json.loads((SCHEMAS / schema_name).read_text())
    errors = sorted(Draft202012Validator(schema, registry=registry()).iter_errors(doc), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}" for e in errors[:10])


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return locked_project(tmp_path_factory.mktemp("schema") / "project", "schemapack", PACK, "--budget", 500, "--prove-time", 10, "--jobs", 1)


def run_json(project, monkeypatch, *args, codes=(0, 1)):
    monkeypatch.chdir(project)
    r = verify(*args, "--json")
    assert r.exit_code in codes, r.output
    return json.loads(r.stdout)


@pytest.mark.parametrize("schema_name, args", [
    ("check-result.schema.json", ("lemma", "f1", "--budget", 500, "--save")),
    ("check-result.schema.json", ("all", "--budget", 500, "--prove-time", 10)),
    ("check-result.schema.json", ("expr", "x*y <= x^2 + y^2", "--var", "x,y in [-1, 1]", "--budget", 500)),
    ("tighten.schema.json", ("expr", "x*y <= C*(x^2 + y^2)", "--var", "x,y in [-1, 1]", "--budget", 500, "--tighten", "C")),
    ("tighten.schema.json", ("tighten", "f1", "--budget", 500, "--rounds", 2)),
    ("claim.schema.json", ("list",)),
    ("claim.schema.json", ("show", "t1")),
    ("check.schema.json", ("check", "--jobs", 1)),
    ("prove.schema.json", ("prove", "t1", "--box", "-1:1")),
    ("prove.schema.json", ("prove", "f1", "--dims", "n=2", "--box", "-1:1")),
])
def test_every_commands_json_validates(project, monkeypatch, schema_name, args):
    doc = run_json(project, monkeypatch, *args)
    validate(schema_name, doc)
    items = doc if isinstance(doc, list) else [doc]
    assert items and all(i["schema"].startswith(SCHEMA_PREFIX) and i["schema_version"] == VERSIONS[i["schema"][len(SCHEMA_PREFIX):]]
                         for i in items)


def test_report_json_validates(project, monkeypatch):
    monkeypatch.chdir(project)
    r = verify("report", "--format", "json", "--jobs", 1)
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    validate("report.schema.json", doc)
    assert {s["claim"]["id"] for s in doc} == {"f1", "t1"} and all(c["status"] == "match" for s in doc for c in s["checks"])


def test_replay_json_validates_and_the_stored_files_and_lock_too(project, monkeypatch):
    files = sorted((project / "counterexamples").rglob("*.json"))
    assert files
    for path in files:
        validate("replay.schema.json", run_json(project, monkeypatch, "replay", path))
        validate("counterexample.schema.json", json.loads(path.read_text()))
    validate("lock.schema.json", json.loads((project / "claims.lock").read_text()))


def test_the_papers_lock_and_stored_counterexamples_validate():
    validate("lock.schema.json", json.loads((ROOT / "claims.lock").read_text()))
    files = sorted((ROOT / "counterexamples").rglob("*.json"))
    assert len(files) > 40
    for path in files:
        validate("counterexample.schema.json", json.loads(path.read_text()))


@pytest.mark.parametrize("kind", ["layer-collapse", "rank-collapse"])
def test_experiment_json_validates(tmp_path, monkeypatch, kind):
    validate("experiment.schema.json", run_json(tmp_path, monkeypatch, "experiment", kind, "--small", codes=(0,)))


def test_the_schemas_are_valid_and_describe_every_field():
    undescribed = []

    def walk(node, where):
        if isinstance(node, dict):
            for name, sub in node.get("properties", {}).items():
                if isinstance(sub, dict) and not sub.get("description") and "$ref" not in sub:
                    undescribed.append(f"{where}/{name}")
            for key, sub in node.items():
                walk(sub, f"{where}/{key}")
        elif isinstance(node, list):
            for i, sub in enumerate(node):
                walk(sub, f"{where}[{i}]")

    for path in SCHEMAS.glob("*.schema.json"):
        schema = json.loads(path.read_text())
        Draft202012Validator.check_schema(schema)
        walk(schema, path.name)
    assert not undescribed, undescribed


def test_a_field_the_schema_does_not_describe_is_named():
    doc = json.loads((ROOT / "counterexamples" / "alman-song-2025" / "4.1" / "reviewer.json").read_text())
    with pytest.raises(AssertionError, match="surprise"):
        validate("counterexample.schema.json", {**doc, "surprise": 1})
