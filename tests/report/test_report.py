"""The HTML report built from a small real run: sections, figures, self-containment."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from sim import build_report, load_run, run
from sim.config import load_study
from sim.report.run_report import FIGURES, POLICY_FIGURES, SECTIONS, report_context
from sim.runs.partials import run_data
from sim.studies.run_page import page_plays, representative, representative_game

BASE = Path(__file__).resolve().parents[2] / "configs" / "base.yaml"


class _Tables(HTMLParser):
    """Collects every table's header cells, per section id."""

    def __init__(self):
        super().__init__()
        self.section = None
        self.tables: list[tuple[str, list[str]]] = []
        self._in_th = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "section":
            self.section = attrs.get("id")
        elif tag == "table":
            self.tables.append((self.section, []))
        elif tag == "th":
            self._in_th = True

    def handle_endtag(self, tag):
        if tag == "th":
            self._in_th = False

    def handle_data(self, data):
        if self._in_th and self.tables:
            self.tables[-1][1].append(data.strip())


@pytest.fixture(scope="module")
def html(report_path):
    return report_path.read_text(encoding="utf-8")


def test_every_section_in_order(html):
    ids = re.findall(r'<section id="([a-z]+)">', html)
    assert ids == [sid for sid, _ in SECTIONS]
    assert ids == ["summary", "seats", "turns", "policies", "scores", "flow", "tension", "feel",
                   "cards", "usage", "game", "config"]  # fmt: skip
    numbers = [int(n) for n in re.findall(r"<h2>(\d+) ", html)]
    assert numbers == list(range(1, len(SECTIONS) + 1))


def test_every_figure_is_inline_svg(html):
    for key in FIGURES:
        match = re.search(
            rf'<figure id="fig-{key}"><svg [^>]*viewBox="0 0 ([\d.]+) ([\d.]+)"', html
        )
        assert match, f"figure {key} missing"
        assert float(match[1]) > 50 and float(match[2]) > 50
    assert html.count("<svg ") == len(FIGURES)


def test_self_contained(html, report_path):
    assert "<script" not in html and "<link" not in html and "@import" not in html
    assert not re.search(r'(src|href)="(https?:)?//', html)
    assert "url(http" not in html
    assert report_path.stat().st_size < 2_000_000


def test_summary_facts(html, small_run):
    summary = html[html.index("<h1>") : html.index('id="seats"')]  # the lead, details, facts
    for fact in (
        "base",
        "400",
        "greedy, greedy, random, random",
        "none (canonical rules)",
        str(small_run.meta["seed"]),
        small_run.meta["config_hash"],
        "games/s",
    ):
        assert fact in summary
    tests = summary[summary.index('<details class="tests">') : summary.index("</details>")]
    assert re.search(r"seat 0 wins \d+\.\d% \[\d+\.\d%, \d+\.\d%\] against a fair 25%: ", tests)
    assert 'class="warn"' not in summary


def test_the_page_opens_with_the_short_answer(html, small_run):
    """The first paragraph: at most two short sentences naming the line-up and seat 0's
    share, the same as summary.json's headline; the long verdict waits in the details."""
    from sim.analysis.findings import LEAD_LIMIT

    body = html[html.index("<h1>") :]
    first = re.search(r"<p( class=\"[^\"]*\")?>(.*?)</p>", body, re.S)
    assert first[1] == ' class="lead"'
    lead = first[2]
    assert len(lead) <= LEAD_LIMIT and len(re.findall(r"[.!?](?:\s|$)", lead)) <= 2
    assert lead.startswith("Mixed players (2 greedy, 2 random, seats rotated): seat 0 wins ")
    assert body.index('class="lead"') < body.index('<details class="tests">')
    assert body.index("</details>") < body.index('id="summary"')


def test_every_table_shows_n(html):
    parser = _Tables()
    parser.feed(html)
    assert len(parser.tables) >= 12
    for section, headers in parser.tables:
        if section == "game":  # one game's seats
            continue
        assert any(h.startswith("n ") or h == "games" for h in headers), (section, headers)


def test_card_section_says_association_not_cause(html):
    cards = html[html.index('id="cards"') : html.index('id="game"')]
    assert "Associations, not causes" in cards
    assert "toy:yarn" in cards and "princess" in cards


def test_representative_game_replays_exactly(small_run):
    study = load_study(BASE).with_overrides(games=400)
    moments, view = run_data(small_run)
    context = report_context(view, study, moments, page_plays(small_run, representative(view)))
    game = context["game"]
    assert game["replay_ok"]
    games = small_run.games
    index = representative_game(games)
    assert game["index"] == index
    median = games["margin"].median()
    assert abs(games.loc[games.game == index, "margin"].iloc[0] - median) == min(
        abs(games["margin"] - median)
    )


def test_config_section_is_the_resolved_yaml(html):
    config = html[html.index('id="config"') :]
    assert "cat_entry: friend_or_empty" in config
    assert "sleeping_card_walls: &#39;&#39;" in config or "sleeping_card_walls: ''" in config


def test_one_policy_and_a_variant(tmp_path, monkeypatch):
    """All-random seats: no policy figures, a note instead; switched-on variants are listed."""
    study = load_study(BASE).with_overrides(
        games=60, seats=[{"policy": "random"}] * 4, **{"rules.cat_entry": "any"}
    )
    result = run(study, jobs=1, out=tmp_path / "r", quiet=True)
    monkeypatch.chdir(tmp_path)
    path = build_report(result.run_dir)  # default place: reports/<name>.html
    assert path == Path("reports/base.html") and path.exists()
    html = path.read_text(encoding="utf-8")
    assert "cat_entry = any" in html
    assert "nothing to compare between policies" in html
    # the chances come from pilot games of their own: a run of 60 games has them too
    assert "expected calibration error" in html and "the chances of 60 games" in html
    for key in FIGURES:
        assert (f'id="fig-{key}"' in html) == (key not in POLICY_FIGURES)


def test_report_path_from_config(tmp_path, monkeypatch):
    """report.path in the config decides where the page goes; its targets are checked."""
    overrides = {"report.path": "out/mine.html", "targets.turns": [0, 1000], "targets.balance": 2}
    study = load_study(BASE).with_overrides(games=30, **overrides)
    result = run(study, jobs=1, out=tmp_path / "r", quiet=True)
    monkeypatch.chdir(tmp_path)
    assert build_report(result.run_dir) == Path("out/mine.html")
    html = (tmp_path / "out" / "mine.html").read_text(encoding="utf-8").replace("\u00a0", " ")
    assert "Targets from the config" in html and "<td>[0, 1000]</td>" in html
    assert re.search(r"<td>turns</td>(?:(?!</tr>).)*<td>met</td>", html, re.S)
    assert re.search(r"<td>balance</td>(?:(?!</tr>).)*<td>missed</td>", html, re.S)


def test_write_report_from_memory_equals_build(small_run, report_path, tmp_path):
    from sim.report.run_report import write_report

    built = report_path.read_text(encoding="utf-8")
    plays = page_plays(small_run, representative(run_data(small_run)[1]))
    written = write_report(small_run, plays, tmp_path / "w.html").read_text(encoding="utf-8")
    strip = re.compile(r"Report built in [\d.]+ s")
    assert strip.sub("", built) == strip.sub("", written)


def test_incomplete_run_is_refused(tmp_path, small_run):
    from sim.errors import SimError

    (tmp_path / "run.json").write_text((small_run.run_dir / "run.json").read_text())
    with pytest.raises(SimError, match="not complete"):
        build_report(tmp_path, tmp_path / "x.html")
    assert load_run(small_run.run_dir).games.shape[0] == 400


def test_summary_names_turn_parity_when_it_drives_the_result(html):
    summary = html[html.index("<h1>") : html.index('id="seats"')]
    assert re.search(
        r"Turn parity: seat 0 takes one more turn than seats 1, 2, 3 in \d+% of games; at equal"
        r" turns its edge is [+-]\d+\.\d pp \[[+-]\d+\.\d, [+-]\d+\.\d\], the extra turn adds",
        summary,
    )


def test_turn_tension_and_card_use_sections(html):
    turns = html[html.index('id="turns"') : html.index('id="policies"')]
    for words in ("at equal turns", "from extra turns", "takes the last turn", "box cards",
                  "Who ends the game", "deck_empty"):  # fmt: skip
        assert words in turns, words
    tension = html[html.index('id="tension"') : html.index('id="cards"')]
    for words in ("lead changes per game", "decided at", "comeback rate",
                  "still open before the last round", "definition"):  # fmt: skip
        assert words in tension, words
    usage = html[html.index('id="usage"') : html.index('id="game"')]
    for words in ("dead rate", "into a box nobody leads", "Princesses played per game",
                  "in hand at the final phase"):  # fmt: skip
        assert words in usage, words
