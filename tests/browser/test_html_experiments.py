"""The report's Experiments section in headless Chromium: the inline SVG figures render, fit the
page's column, and raise no console errors.  Skips without chromium outside CI, as its neighbour."""

import os

from ..cli.lock_project import locked_template, project, run  # noqa: F401  (fixtures)
from .test_html_report import browser  # noqa: F401  (fixture)


def test_experiment_figures_render_inside_the_column(browser, project):
    for kind, extra in (("layer-collapse", ["--widths", "2", "--depths", "2"]), ("rank-collapse", [])):
        r = run("experiment", kind, "--small", "--json", *extra)
        assert r.exit_code == 0, r.stderr
        (project / f"{kind}.json").write_text(r.stdout)
    r = run("report", "--format", "html", "--experiments", "layer-collapse.json", "--experiments", "rank-collapse.json", "-o", "report.html")
    assert r.exit_code == 0, r.stderr
    page = browser.open((project / "report.html").as_uri())
    column = page.evaluate("document.getElementById('experiments').getBoundingClientRect().width")
    sizes = page.evaluate("[...document.querySelectorAll('#experiments figure svg')].map(s => { const b = s.getBoundingClientRect(); return [b.width, b.height]; })")
    assert len(sizes) == 4
    assert all(200 < w <= column + 0.5 and h > 100 for w, h in sizes), (column, sizes)
    # the plots drew their data: every figure has lines or markers, not just axes
    paths = page.evaluate("[...document.querySelectorAll('#experiments figure svg')].map(s => s.querySelectorAll('path').length)")
    assert min(paths) > 20
    if os.environ.get("VERIFY_SCREENSHOT_DIR"):
        page.evaluate("document.getElementById('experiments').scrollIntoView()")
        page.screenshot(os.path.join(os.environ["VERIFY_SCREENSHOT_DIR"], "report-experiments.png"))
    assert page.console_errors() == []
