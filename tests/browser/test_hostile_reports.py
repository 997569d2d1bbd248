"""Each report format of a hostile pack, opened in a real browser: nothing of the pack runs.

The HTML report as it is, and the Markdown report and README summary as a Markdown viewer that
passes raw HTML through would show them.  Every payload of the pack (tests/cli/hostile_pack.py)
would set ``window.PWNED``, open a dialog, navigate, or load the secret file: none may happen.
"""

import os

import pytest

from ..cli.hostile_pack import lock_hostile_project, verify, write_hostile_project
from ..cli.test_report_hostile import rendered_markdown
from .test_html_report import browser  # noqa: F401  (fixture; skips without chromium outside CI)


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """The three pages a reader of the hostile pack's reports would open."""
    root = tmp_path_factory.mktemp("hostile-browser")
    secret, token = write_hostile_project(root)
    project = root / "project"
    cwd = os.getcwd()
    os.chdir(project)
    try:
        lock_hostile_project(project)
        assert verify("report", "--format", "html", "-o", "report.html", "--jobs", 1).exit_code == 0
        assert verify("report", "--format", "markdown", "-o", "report.md", "--jobs", 1).exit_code == 0
        summary = verify("report", "--summary")
        assert summary.exit_code == 0, summary.output
    finally:
        os.chdir(cwd)
    wrap = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>markdown</title></head><body>{}</body></html>"
    (project / "report-md.html").write_text(wrap.format(rendered_markdown((project / "report.md").read_text())))
    (project / "summary-md.html").write_text(wrap.format(rendered_markdown(summary.stdout)))
    return {name: project / name for name in ("report.html", "report-md.html", "summary-md.html")}, secret, token


@pytest.mark.parametrize("name", ["report.html", "report-md.html", "summary-md.html"])
def test_nothing_of_the_pack_runs_navigates_or_loads(browser, pages, name):
    files, secret, token = pages
    url = files[name].as_uri()
    page = browser.open(url, network=True)
    page.evaluate("new Promise(r => setTimeout(r, 300))")  # let any onerror/onload of the page fire
    assert browser.dialogs == [], browser.dialogs
    assert page.evaluate("typeof window.PWNED") == "undefined"
    assert page.evaluate("location.href") == url
    navigations = [e["frame"]["url"] for e in page.events("Page.frameNavigated")]
    assert navigations == [url], navigations
    requests = [e["request"]["url"] for e in page.events("Network.requestWillBeSent")]
    assert requests == [url], requests  # the page itself, and nothing it names
    assert page.evaluate("performance.getEntriesByType('resource').length") == 0
    assert page.evaluate("document.querySelectorAll('iframe, img, object, embed, svg:not(figure svg)').length") == 0
    assert token not in page.evaluate("document.documentElement.outerHTML")
    # the report's own script is the only one, and it still works on the HTML report
    scripts = page.evaluate("document.scripts.length")
    assert scripts == (1 if name == "report.html" else 0)
    assert page.console_errors() == []


def test_the_detector_sees_a_payload_run(browser, tmp_path):
    """The checks above can fail: a page that runs a pack's payload is caught."""
    bad = tmp_path / "bad.html"
    bad.write_text('<p>x</p><img src="x" onerror="window.PWNED=1; alert(1)">')
    page = browser.open(bad.as_uri(), network=True)
    page.evaluate("new Promise(r => setTimeout(r, 300))")
    assert page.evaluate("window.PWNED") == 1 and browser.dialogs
    assert len(page.events("Network.requestWillBeSent")) == 2
    browser.dialogs.clear()
