"""Every page fits a 1280 px window: the page never scrolls sideways and no table is wider than
the content column (cells wrap; no sideways scroll box), for every kind of page, in real
headless Chromium (as test_browser.py). Each page also opens with its short answer."""

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


QUICK = ["--jobs", "1", "--quiet"]
TUNE = {  # a tune small enough for a test (as tests/studies/test_tune.py's known answer)
    "name": "tiny",
    "seed": 7,
    "seats": [{"policy": "random"}] * 4,
    "tune": {"space": {"deck.sprayers": [0, 10]},
             "targets": {"mean_score": {"value": 0.57, "within": 0.15}},
             "budget": {"games": 8000, "first": 300, "confirm": 1500, "finalists": 2}},
}  # fmt: skip
LADDER = "ladder={rungs: [{policy: random}, {policy: greedy}, {policy: heuristic}]}"


def _sweep(out: Path) -> list[str]:
    return ["sweep", str(ROOT / "configs" / "sweep_sprayers.yaml"), "--games", "120"]


def _compare(out: Path) -> list[str]:
    more = ROOT / "configs" / "base_more_sprayers.yaml"
    return ["compare", str(BASE), str(more), "--games", "120"]


def _tune(out: Path) -> list[str]:
    import yaml

    config = out / "tiny.yaml"
    config.write_text(yaml.safe_dump(TUNE, sort_keys=False))
    return ["tune", str(config)]


def _value(out: Path) -> list[str]:
    return ["value", str(BASE), "--games", "60"]


def _ladder(out: Path) -> list[str]:
    return ["ladder", str(BASE), "--games", "60", "--set", LADDER]


def _luck(out: Path) -> list[str]:
    return ["luck", str(BASE), "--deals", "20", "--replays", "3"]


# The command line of every study page, by kind: each page is measured and its first
# paragraph read. `sim advise` (issue 23) adds its page here: "advise": its command.
STUDY_PAGES = {"sweep": _sweep, "compare": _compare, "tune": _tune, "value": _value,
               "ladder": _ladder, "luck": _luck}  # fmt: skip
PAGE_KINDS = ("run", *STUDY_PAGES)


@pytest.fixture(scope="module")
def pages(report_path, tmp_path_factory) -> dict[str, Path]:
    """A small page of every kind: the run's (conftest) and each study's."""
    from sim.cli import main

    out = tmp_path_factory.mktemp("study-pages")
    found = {"run": report_path}
    for kind, command in STUDY_PAGES.items():
        page = out / f"{kind}.html"
        args = [*command(out), "--out", str(out / kind), "--report", str(page), *QUICK]
        assert main(args) == 0, kind
        found[kind] = page
    return found


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
    """The page never scrolls sideways and no table is wider than the content column, nor
    scrolls in a box of its own."""
    assert found["view"] == WIDTH
    assert found["page"] <= WIDTH, f"the page scrolls sideways: {found['page']} px"
    assert found["tables"], "a page without tables"
    for t in found["tables"]:
        assert t["left"] >= 0 and t["right"] <= found["column"] + 1, t
        assert t["inner"] <= t["box"] + 1, f"a table wider than its box: {t}"
        assert t["overflow"] not in ("auto", "scroll") and not t["scrolls"], t


@pytest.mark.parametrize("kind", PAGE_KINDS)
def test_every_page_fits_1280_px(pages, kind):
    check_fits(measure(pages[kind]))


@pytest.mark.parametrize("kind", PAGE_KINDS)
def test_every_page_opens_with_at_most_two_short_sentences(pages, kind):
    """The first paragraph under the title is the lead: at most LEAD_LIMIT characters and two
    sentences, the tests behind it folded in the details block right after it."""
    import html
    import re

    from sim.analysis.findings import LEAD_LIMIT

    text = pages[kind].read_text(encoding="utf-8")
    body = text[text.index("<h1>") :]
    first = re.search(r"<p( class=\"[^\"]*\")?>(.*?)</p>", body, re.S)
    assert first[1] == ' class="lead"', (kind, first[0][:200])
    lead = html.unescape(re.sub(r"<[^>]+>", "", first[2])).strip()
    assert 40 <= len(lead) <= LEAD_LIMIT, (kind, len(lead), lead)
    assert len(re.findall(r"[.!?](?:\s|$)", lead)) <= 2, (kind, lead)
    after = body[body.index('class="lead"') :]
    assert after.index('<details class="tests">') < after.index("<h2>"), kind
