"""The HTML report in a real headless browser: rendered, a row per check, no console errors.

Skips when chromium is absent outside CI; under CI (env CI set) its absence is a failure,
and .ci/run installs Debian's chromium.
"""

import os
from pathlib import Path

import pytest

from ..cli.lock_project import CHECKS, CLAIMS, locked_template, project, run  # noqa: F401  (fixtures)
from lemmas import REGISTRY

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


def test_statements_are_mathml_and_every_check_links_back(browser, project):
    r = run("report", "--format", "html", "-o", "report.html")
    assert r.exit_code == 0, r.stderr
    page = browser.open((project / "report.html").as_uri())
    # every claim with LaTeX has a typeset display of real size (MathML Core, no script involved)
    widths = page.evaluate("[...document.querySelectorAll('article.claim > math')].map(m => m.firstElementChild.getBoundingClientRect().width)")
    assert len(widths) == sum(1 for c in REGISTRY if c.id in CLAIMS and c.latex) > 0 and 50 < min(widths) and max(widths) < 900
    assert page.evaluate("document.querySelectorAll('math mi, math mo').length") > 20
    # a section per check, reachable from its row, with a way back to the summary
    ids = page.evaluate("[...document.querySelectorAll('section.check')].map(s => s.id)")
    assert len(ids) == len(set(ids)) == len(CHECKS)
    targets = page.evaluate("[...document.querySelectorAll('tr.claim-row a')].map(a => a.getAttribute('href').slice(1))")
    assert set(ids) <= set(targets)
    assert page.evaluate("[...document.querySelectorAll('section.check')].every(s => s.querySelector('a[href=\"#summary\"]'))")
    assert page.evaluate("!!document.getElementById('summary')")


def test_the_filter_hides_sections_of_other_verdicts(browser, project):
    run("report", "--format", "html", "-o", "report.html")
    page = browser.open((project / "report.html").as_uri())
    page.evaluate("(() => { const s = document.getElementById('filter'); s.value = 'refuted'; s.dispatchEvent(new Event('change')); })()")
    shown = page.evaluate("[...document.querySelectorAll('section.check')].filter(s => s.offsetParent !== null).map(s => s.dataset.verdict)")
    assert shown and set(shown) == {"refuted"}
    # a claim with no refuted check (B.2) is hidden as a whole, heading and statement too
    claims = page.evaluate("""[...document.querySelectorAll('article.claim')].map(a => [a.id, a.offsetParent === null,
        a.querySelectorAll('section.check[data-verdict=refuted]').length])""")
    assert all(hidden == (refuted == 0) for _, hidden, refuted in claims), claims
    assert any(hidden for _, hidden, _ in claims)


def test_fifty_digit_numbers_are_rounded_on_one_line_with_the_exact_value_on_demand(browser, project):
    run("report", "--format", "html", "-o", "report.html")
    page = browser.open((project / "report.html").as_uri(), width=700)
    nums = page.evaluate("""[...document.querySelectorAll('details.num')].map(d => ({
        exact: d.title, shown: d.querySelector('summary').textContent,
        lines: d.querySelector('summary').getBoundingClientRect().height / parseFloat(getComputedStyle(d).lineHeight || 18)}))""")
    long = [n for n in nums if len(n["exact"]) >= 40]
    assert long, "the report has no 50-digit value (Lemma 4.2's e - 1 should be one)"
    for n in long:
        assert len(n["shown"]) < 20 and n["lines"] < 1.6, n  # rounded, and on one line at 700 px
    # opening one shows the exact digits, on one line (scrolled, not wrapped)
    page.evaluate("document.querySelector('details.num').open = true")
    box = page.evaluate("(() => { const c = document.querySelector('details.num > code'); return [c.textContent, c.getBoundingClientRect().height]; })()")
    assert box[0] == page.evaluate("document.querySelector('details.num').title") and box[1] < 40
    assert page.console_errors() == []
