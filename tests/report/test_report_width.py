"""Every report fits a 1280 px window: the page never scrolls sideways, and a table too wide
for the column scrolls inside its own box (real headless Chromium, as test_browser.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import playwright.sync_api as playwright
import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"]  # fmt: skip

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "configs" / "base.yaml"
WIDTH = 1280

MEASURE = """() => ({
    page: document.documentElement.scrollWidth,
    view: window.innerWidth,
    tables: Array.from(document.querySelectorAll('table')).map(t => {
        const r = t.getBoundingClientRect();
        return {left: r.left, right: r.right, inner: t.scrollWidth, box: t.clientWidth,
                overflow: getComputedStyle(t).overflowX,
                head: (t.querySelector('th') || {}).textContent};
    }),
})"""


@pytest.fixture(scope="module")
def study_reports(tmp_path_factory):
    """A small sweep's and a small comparison's pages."""
    from sim.cli import main

    out = tmp_path_factory.mktemp("study-reports")
    quick = ["--games", "120", "--jobs", "1", "--quiet"]
    sweep = ROOT / "configs" / "sweep_sprayers.yaml"
    more = ROOT / "configs" / "base_more_sprayers.yaml"
    assert main(["sweep", str(sweep), "--out", str(out / "sweep"),
                 "--report", str(out / "sweep.html"), *quick]) == 0  # fmt: skip
    assert main(["compare", str(BASE), str(more), "--out", str(out / "compare"),
                 "--report", str(out / "compare.html"), *quick]) == 0  # fmt: skip
    return {"sweep": out / "sweep.html", "compare": out / "compare.html"}


def measure(path: Path) -> dict:
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": WIDTH, "height": 900})
            page.goto(Path(path).as_uri(), wait_until="load")
            return page.evaluate(MEASURE)
        finally:
            browser.close()


def check_fits(found: dict) -> None:
    assert found["view"] == WIDTH
    assert found["page"] <= WIDTH, f"the page scrolls sideways: {found['page']} px"
    assert found["tables"], "a report without tables"
    for t in found["tables"]:
        assert t["left"] >= 0 and t["right"] <= WIDTH, t
        if t["inner"] > t["box"]:  # wider than its box: it must scroll there
            assert t["overflow"] in ("auto", "scroll"), t


def test_the_run_report_fits_1280_px(report_path):
    check_fits(measure(report_path))


@pytest.mark.parametrize("kind", ["sweep", "compare"])
def test_the_sweep_and_comparison_reports_fit_1280_px(study_reports, kind):
    found = measure(study_reports[kind])
    check_fits(found)
    if kind == "sweep":  # its wide "Numbers" table is what this check is about
        assert any(t["inner"] > t["box"] for t in found["tables"]), "no table wider than its box"
