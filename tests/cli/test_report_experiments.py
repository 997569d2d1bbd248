"""``verify report --format html --experiments``: recorded experiment runs drawn into the one-file report."""

import json
from html.parser import HTMLParser

from verifier.reporters.numbers import fmt

from .lock_project import locked_template, project, run  # noqa: F401  (fixtures)


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.external = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        a = dict(attrs)
        for key in ("src", "href"):
            if a.get(key) and not a[key].startswith("#"):
                self.external.append(a[key])


def _record(path, *args):
    r = run("experiment", *args, "--small", "--json")
    assert r.exit_code == 0, r.stderr
    path.write_text(r.stdout)
    return json.loads(r.stdout)


def test_experiments_from_a_directory_are_embedded_as_inline_svg(project):
    results = project / "experiments"
    results.mkdir()
    _record(results / "layer.json", "layer-collapse", "--widths", "2", "--depths", "2", "--seed", "4")
    rank = _record(results / "rank.json", "rank-collapse", "--seed", "6")
    r = run("report", "--format", "html", "--experiments", results, "-o", "report.html")
    assert r.exit_code == 0, r.stderr
    page = (project / "report.html").read_text()
    experiments = page[page.index('<section id="experiments">'):page.index("</section>", page.index('<section id="experiments">'))]
    assert experiments.count("<svg") == 4 and "Layer collapse (Theorem D.1)" in experiments
    assert "verify experiment rank-collapse --seed 6" in experiments
    # the table shows the recorded numbers, not a new run's
    first_fitted = next(s for s in rank["sweep"] if s["surrogate"] == "fitted")
    assert f"<td>fitted</td><td>{fmt(first_fitted['relative_to_input'], 3)}</td><td>{fmt(first_fitted['relative_to_output'], 3)}</td>" in experiments
    parser = _Page()
    parser.feed(page)
    assert parser.external == [] and "img" not in parser.tags  # one self-contained file


def test_bad_experiment_files_are_one_line_usage_errors(project):
    (project / "not-an-experiment.json").write_text('{"claims": []}')
    r = run("report", "--format", "html", "--experiments", "not-an-experiment.json")
    assert r.exit_code == 2
    assert r.stderr.strip().splitlines() == ['error: not-an-experiment.json is not the JSON of `verify experiment ... --json` (no "experiment" field)']
    (project / "broken.json").write_text("{")
    r = run("report", "--format", "html", "--experiments", "broken.json")
    assert r.exit_code == 2 and r.stderr.startswith("error: broken.json: not valid JSON") and len(r.stderr.strip().splitlines()) == 1
    _record(project / "rank.json", "rank-collapse")
    r = run("report", "--format", "markdown", "--experiments", "rank.json")
    assert r.exit_code == 2 and "use it with --format html" in r.stderr
