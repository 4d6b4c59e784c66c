"""Open the report in real headless Chromium: no console errors, every section and figure drawn.

Needs Debian's `chromium` (/usr/bin/chromium) and the Python `playwright` package
(its own browser download is not used).
"""

from __future__ import annotations

import playwright.sync_api as playwright
import pytest
from browser_helpers import ARGS, CHROMIUM

from sim.report.run_report import FIGURES, SECTIONS

SIZES = """() => Array.from(document.querySelectorAll('svg, img')).map(e => {
    const r = e.getBoundingClientRect();
    return {figure: e.closest('figure') ? e.closest('figure').id : null,
            width: r.width, height: r.height};
})"""


@pytest.fixture(scope="module")
def page(report_path, tmp_path_factory):
    """The report loaded in Chromium, with its console errors and any network requests."""
    errors, requests = [], []
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            pg = browser.new_page(viewport={"width": 1200, "height": 900})
            pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            pg.on("pageerror", lambda exc: errors.append(str(exc)))
            pg.on("request", lambda r: requests.append(r.url))
            pg.goto(report_path.as_uri(), wait_until="load")
            yield pg, errors, requests
        finally:
            browser.close()


def test_loads_without_errors_or_network(page):
    pg, errors, requests = page
    assert pg.title().endswith("balance report")
    assert errors == []
    assert all(url.startswith("file://") for url in requests), requests


def test_every_section_is_rendered(page):
    pg, _, _ = page
    for sid, name in SECTIONS:
        box = pg.locator(f"section#{sid}").bounding_box()
        assert box and box["height"] > 50, sid
        assert name in pg.locator(f"section#{sid} h2").inner_text()


def test_every_figure_has_a_size(page):
    pg, _, _ = page
    sizes = pg.evaluate(SIZES)
    assert sorted(s["figure"] for s in sizes) == sorted(f"fig-{k}" for k in FIGURES)
    for s in sizes:
        assert s["width"] > 100 and s["height"] > 50, s


def test_screenshot(page, tmp_path):
    pg, _, _ = page
    shot = tmp_path / "report.png"
    pg.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 20_000
