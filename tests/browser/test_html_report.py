"""The HTML report in a real headless browser: rendered, a row per check, no console errors.

Skips when chromium is absent outside CI; under CI (env CI set) its absence is a failure,
and .ci/run installs Debian's chromium.
"""

import os
from pathlib import Path

import pytest

from ..cli.lock_project import CHECKS, CLAIMS, locked_template, project, run  # noqa: F401  (fixtures)
from .cdp import Browser, find_chromium

CHROMIUM = find_chromium()


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing under CI: .ci/run must install it (apt-get install -y chromium)")
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    with Browser(CHROMIUM) as b:
        yield b


def test_console_errors_are_detected(browser):
    """The detector itself can fail: a page with a broken script is caught."""
    page = browser.open("data:text/html,<p>x</p><script>console.error('boom'); no_such_function();</script>")
    errors = page.console_errors()
    assert any("boom" in e for e in errors) and any("no_such_function" in e for e in errors)


def test_html_report_renders_a_row_per_check_without_errors(browser, project):
    r = run("report", "--format", "html", "-o", "report.html")
    assert r.exit_code == 0, r.stderr
    page = browser.open((project / "report.html").as_uri())
    assert page.evaluate("document.title") == "Claim verifier report"
    assert page.evaluate("document.querySelectorAll('tr.claim-row').length") == len(CHECKS)
    claims = page.evaluate("[...new Set([...document.querySelectorAll('tr.claim-row')].map(r => r.dataset.claim))]")
    assert sorted(claims) == sorted(CLAIMS)
    # matrices are laid out as tables with visible size, not as raw text
    heights = page.evaluate("[...document.querySelectorAll('table.matrix')].map(t => t.getBoundingClientRect().height)")
    assert heights and min(heights) > 10
    # the verdict filter works: only refuted rows stay visible
    refuted = page.evaluate("document.querySelectorAll('tr.claim-row[data-verdict=refuted]').length")
    page.evaluate("(() => { const s = document.getElementById('filter'); s.value = 'refuted'; s.dispatchEvent(new Event('change')); })()")
    assert page.evaluate("[...document.querySelectorAll('tr.claim-row')].filter(r => !r.hidden).length") == refuted > 0
    shot = Path(os.environ.get("VERIFY_SCREENSHOT_DIR", project)) / "report.png"
    page.screenshot(shot)
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
    assert page.console_errors() == []
