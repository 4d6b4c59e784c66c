"""Every page fits a 1280 px window: the page never scrolls sideways and no table is wider than
the content column (cells wrap; no sideways scroll box), for every kind of page, in real
headless Chromium (as test_browser.py). Each page also opens with its short answer."""

from __future__ import annotations

from pathlib import Path

import pytest
from page_helpers import check_fits, lead_of, measure

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "configs" / "base.yaml"

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
# paragraph read. The advice page is measured the same way by tests/studies/test_advise.py,
# on the page its own fixture builds (an advice is the dearest study to play).
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


@pytest.mark.parametrize("kind", PAGE_KINDS)
def test_every_page_fits_1280_px(pages, kind):
    check_fits(measure(pages[kind]))


@pytest.mark.parametrize("kind", PAGE_KINDS)
def test_every_page_opens_with_at_most_two_short_sentences(pages, kind):
    """The first paragraph under the title is the lead: at most LEAD_LIMIT characters and two
    sentences, the tests behind it folded in the details block right after it."""
    lead_of(pages[kind].read_text(encoding="utf-8"), kind)
