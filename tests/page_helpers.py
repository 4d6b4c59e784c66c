"""Pages measured in real headless Chromium at 1280 px, and their first paragraph read: shared
by the width test of every page kind (tests/report/test_report_width.py) and the studies whose
pages are built by their own tests' fixtures (tests/studies/test_advise.py)."""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"]  # fmt: skip
WIDTH = 1280

MEASURE = """() => ({
    page: document.documentElement.scrollWidth,
    view: window.innerWidth,
    column: document.body.getBoundingClientRect().right
            - parseFloat(getComputedStyle(document.body).paddingRight),
    tables: Array.from(document.querySelectorAll('table')).map(t => {
        const r = t.getBoundingClientRect();
        let scrolls = false;  // a box around the table that scrolls it sideways
        for (let e = t.parentElement; e && e !== document.body; e = e.parentElement) {
            const o = getComputedStyle(e).overflowX;
            if ((o === 'auto' || o === 'scroll') && e.scrollWidth > e.clientWidth) scrolls = true;
        }
        return {left: r.left, right: r.right, inner: t.scrollWidth, box: t.clientWidth,
                overflow: getComputedStyle(t).overflowX, scrolls: scrolls,
                head: (t.querySelector('th') || {}).textContent};
    }),
})"""


def measure(path: Path) -> dict:
    """The page's width, the content column's right edge and every table's box, at 1280 px."""
    import playwright.sync_api as playwright

    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": WIDTH, "height": 900})
            page.goto(Path(path).as_uri(), wait_until="load")
            return page.evaluate(MEASURE)
        finally:
            browser.close()


def check_fits(found: dict) -> None:
    """The page never scrolls sideways and no table is wider than the content column, nor
    scrolls in a box of its own."""
    assert found["view"] == WIDTH
    assert found["page"] <= WIDTH, f"the page scrolls sideways: {found['page']} px"
    assert found["tables"], "a page without tables"
    for t in found["tables"]:
        assert t["left"] >= 0 and t["right"] <= found["column"] + 1, t
        assert t["inner"] <= t["box"] + 1, f"a table wider than its box: {t}"
        assert t["overflow"] not in ("auto", "scroll") and not t["scrolls"], t


def lead_of(text: str, kind: str = "page") -> str:
    """The first paragraph under the page's title, checked to be its lead: at most
    LEAD_LIMIT characters and two sentences, the tests behind it folded in the details block
    right after it (before the first section)."""
    from sim.analysis.findings import LEAD_LIMIT

    body = text[text.index("<h1>") :]
    first = re.search(r"<p( class=\"[^\"]*\")?>(.*?)</p>", body, re.S)
    assert first[1] == ' class="lead"', (kind, first[0][:200])
    lead = html.unescape(re.sub(r"<[^>]+>", "", first[2])).strip()
    assert 40 <= len(lead) <= LEAD_LIMIT, (kind, len(lead), lead)
    assert len(re.findall(r"[.!?](?:\s|$)", lead)) <= 2, (kind, lead)
    after = body[body.index('class="lead"') :]
    assert after.index('<details class="tests">') < after.index("<h2>"), kind
    return lead
