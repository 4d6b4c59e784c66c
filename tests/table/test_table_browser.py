"""The web table and the replay page in real headless Chromium (Debian's, as the report's
browser test launches it): a whole game played by clicks, every JSON the page received
inspected, the log replayed; the replay page stepped through with the keyboard."""

from __future__ import annotations

import json
import time

import playwright.sync_api as playwright
import pytest
from browser_helpers import ARGS, CHROMIUM
from table_helpers import two_player_study

from sim.table.logfile import check_log
from sim.table.pages import replay_command
from sim.table.views import is_item

TURN = "document.body.dataset.turn"
# A refused action answers 409: the browser notes the status, which is not a page error.
REFUSED = "the server responded with a status of 409"


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


class Watched:
    """A page with its errors, its requests and every JSON answer of the table's API."""

    def __init__(self, browser, url: str | None = None) -> None:
        self.page = browser.new_page(viewport={"width": 1300, "height": 1000})
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.answers: list = []
        self.page.on(
            "console",
            lambda m: (
                self.errors.append(m.text) if m.type == "error" and REFUSED not in m.text else None
            ),
        )
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("response", lambda r: self.answers.append(r) if "/api/" in r.url else None)
        if url:
            self.page.goto(url)

    def bodies(self) -> list[dict]:
        return [r.json() for r in self.answers]


def _wait_turn(pg, timeout=30_000) -> str:
    pg.wait_for_function(f"['mine', 'over'].includes({TURN})", timeout=timeout)
    return pg.evaluate(TURN)


def _click_once(pg) -> None:
    """One click of a person: the decision's buttons, a target on the table, or a hand card
    (to discard, when nothing can be played)."""
    step = int(pg.evaluate("document.body.dataset.step"))
    for what in ("#act-box", "svg.board .target >> nth=0", "#act-no-cat", "#hand button >> nth=0"):
        if pg.locator(what).count():
            pg.click(what)
            break
    pg.wait_for_function(
        f"Number(document.body.dataset.step) > {step} || {TURN} === 'over'", timeout=30_000
    )


def _states(bodies: list[dict]) -> list[dict]:
    return [b.get("state", b) for b in bodies if "error" not in b]


def test_a_whole_game_by_clicks_replays_from_its_log(browser, serve):
    """Two players, a greedy bot at seat 1: the person clicks only (buttons, targets on the
    table, cards); at the end the page shows the scored table, and the log replays exactly
    to the scores shown. No JSON the page received holds the bot's hand."""
    served = serve(two_player_study(), humans=(0,), seed=31)
    w = Watched(browser, served.url)
    pg = w.page
    t0 = time.perf_counter()
    clicks = 0
    while _wait_turn(pg) == "mine":
        _click_once(pg)
        clicks += 1
        assert clicks < 400
    seconds = time.perf_counter() - t0
    shown = [int(x) for x in pg.inner_text("#final-scores").split()[2:]]
    assert pg.locator("#final-table").is_visible()
    checked = check_log(served.session.log_path)
    assert checked.finished and list(checked.recorded.game.outcome().scores) == shown
    people = [d for d in checked.recorded.decisions if d.seat == 0]
    assert len(people) == clicks and all(d.ms is not None for d in people)
    assert w.errors == []
    assert all(u.startswith(served.url) for u in w.requests), w.requests
    states = _states(w.bodies())
    assert len(states) >= clicks
    for state in states:
        assert '"hands"' not in json.dumps(state)
        assert state.get("seat", 0) == 0  # only the person's own seat was ever asked for
        for line in state["feed"]:
            if line.startswith("seat 1 drew "):
                card = line.removeprefix("seat 1 drew ")
                assert card == "a card" or is_item(card), line
    print(f"\n  a whole game: {clicks} clicks, {seconds:.1f} s")


def test_a_refused_click_is_explained_in_one_line(browser, serve):
    served = serve(two_player_study(), humans=(0,), seed=5)
    pg = Watched(browser, served.url).page
    _wait_turn(pg)
    pg.click("#act-box")
    pg.wait_for_function("document.body.dataset.step === '1'")
    step = pg.evaluate("document.body.dataset.step")
    box = pg.locator("svg.board").bounding_box()
    pg.mouse.click(box["x"] + 3, box["y"] + 3)  # an empty corner, no card next to it
    pg.wait_for_function("document.getElementById('message').textContent.length > 0")
    message = pg.inner_text("#message")
    assert "\n" not in message and "(R1.4)" in message
    assert pg.evaluate("document.body.dataset.step") == step


def test_the_server_outlives_a_closed_tab(browser, serve):
    served = serve(two_player_study(), humans=(0,), seed=6)
    first = Watched(browser, served.url).page
    for _ in range(3):
        _wait_turn(first)
        _click_once(first)
    step = served.session.recorded.step
    first.close()
    again = Watched(browser, served.url).page
    again.wait_for_function(f"Number(document.body.dataset.step) >= {step}")
    assert int(again.evaluate("document.body.dataset.game")) == 0
    _wait_turn(again)
    _click_once(again)
    assert served.session.recorded.step > step


def test_two_people_hand_over_the_screen(browser, serve):
    """Hot seat: when the turn passes to the other person, the cover hides the table's hands
    until that person asks; while it is up the page holds no hand and asked for none."""
    served = serve(two_player_study(), humans=(0, 1), seed=8)
    w = Watched(browser, served.url)
    pg = w.page
    pg.wait_for_selector("#cover:not([hidden])")
    assert "Seat 0's turn" in pg.inner_text("#cover-text")
    assert pg.locator("#hand button").count() == 0
    pg.click("#reveal")
    seats_seen = set()
    for _ in range(12):
        pg.wait_for_function(f"{TURN} === 'mine'")
        seat = served.session.recorded.game.seat
        seats_seen.add(seat)
        assert pg.locator("#hand button").count() == len(served.session.recorded.game.hand(seat))
        _click_once(pg)
        if served.session.recorded.game.seat != seat:
            pg.wait_for_selector("#cover:not([hidden])")
            asked = len(w.answers)
            assert pg.locator("#hand button").count() == 0
            assert all("hand" not in s for s in _states([r.json() for r in w.answers[asked - 1 :]]))
            pg.click("#reveal")
    assert seats_seen == {0, 1}
    assert w.errors == []


def test_the_replay_page_steps_through_a_runs_game(browser, small_run, tmp_path):
    """Arrow keys and buttons move through the steps; the last step shows the run's final
    scores and the scored boxes; marked steps show their win chances."""
    out = tmp_path / "replay.html"
    replay_command(str(small_run.run_dir), 5, out=str(out), n=20)
    w = Watched(browser)
    pg = w.page
    t0 = time.perf_counter()
    pg.goto(out.as_uri(), wait_until="load")
    load = time.perf_counter() - t0
    assert pg.evaluate("document.body.dataset.step") == "0"
    assert pg.locator("#whatif-table").count() == 1  # step 0 is a marked step
    pg.keyboard.press("ArrowRight")
    pg.keyboard.press("ArrowRight")
    assert pg.evaluate("document.body.dataset.step") == "2"
    assert "chose:" in pg.inner_text("#decision")
    pg.keyboard.press("Shift+ArrowRight")
    assert int(pg.evaluate("document.body.dataset.step")) > 2
    pg.keyboard.press("End")
    rows = small_run.players[small_run.players["game"] == 5].sort_values("seat")
    scores = [int(x) for x in pg.inner_text("#final-table tr:last-child").split()[2:]]
    assert scores == rows["score"].tolist()
    shown = [int(r.split("\t")[2]) for r in pg.inner_text("#score-table").splitlines()[1:]]
    assert shown == scores
    pg.click("#first")
    assert pg.evaluate("document.body.dataset.step") == "0"
    # move by move: a curve and each seat's chance at the start of the turn shown
    assert pg.locator("#moves svg path.trace-seat").count() == 4
    assert "continuations, every hand and the deck re-dealt" in pg.inner_text("#moves-note")
    assert w.errors == [] and all(u.startswith("file://") for u in w.requests)
    print(f"\n  replay page: {out.stat().st_size:,} bytes, loaded in {load:.2f} s")
