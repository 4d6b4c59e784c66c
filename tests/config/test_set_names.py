"""A `--set` what-if is named for its change and records it, so it never takes over the
config's own folders and pages (sim.config.load.apply_sets)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from sim.config import load_study
from sim.config.load import SUFFIX_CHARS, set_suffix

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "configs" / "base.yaml"


def test_a_set_that_changes_the_game_names_the_study():
    study = load_study(BASE, ["deck.sprayers=6", "hand_size=2"])
    assert study.name == "base[deck.sprayers=6,hand_size=2]"
    assert study.sets == ("deck.sprayers=6", "hand_size=2")
    # the name is not a setting: the games (and their hash) are those of the same change
    plain = load_study(BASE).with_overrides(**{"deck.sprayers": 6, "hand_size": 2})
    assert study.config_hash() == plain.config_hash()
    assert study.with_overrides(games=5).sets == study.sets  # carried through overrides


def test_sets_that_leave_the_games_alone_keep_the_name_but_are_recorded():
    study = load_study(BASE, ["games=50", "seed=3", "targets={turns: [40, 60]}"])
    assert study.name == "base" and study.sets == (
        "games=50", "seed=3", "targets={turns: [40, 60]}")  # fmt: skip
    assert load_study(BASE, ["name=mine", "deck.sprayers=6"]).name == "mine"
    assert load_study(BASE).sets == ()


def test_a_configured_page_gets_the_same_suffix():
    study = load_study(BASE, ["report.path=out/page.html"])
    assert study.report_path == "out/page.html" and study.name == "base"
    changed = load_study(BASE, ["report.path=out/page.html", "deck.sprayers=6"])
    assert changed.report_path == "out/page.html"  # set on the command line: as given
    sweep = ROOT / "configs" / "sweep_sprayers.yaml"
    assert load_study(sweep, ["hand_size=2"]).name == "sweep_sprayers[hand_size=2]"


def test_the_suffix_is_safe_in_a_file_name_and_short():
    assert set_suffix(["deck.boxes={N: 7}"]) == "deck.boxes=_N_7"
    assert set_suffix(["seats.0.policy=heuristic:aggressive"]) == (
        "seats.0.policy=heuristic_aggressive")  # fmt: skip
    long = set_suffix([f"deck.toys.kind{i}={i}" for i in range(30)])
    assert len(long) == SUFFIX_CHARS and re.fullmatch(r"[A-Za-z0-9._=+,-]+~[0-9a-f]{8}", long)
    other = set_suffix([f"deck.toys.kind{i}={i + 1}" for i in range(30)])
    assert other != long  # the hash tells two long suffixes apart


def test_a_set_run_keeps_its_own_page_and_records_its_sets(tmp_path, monkeypatch, capsys):
    """`sim run base --set deck.sprayers=6` writes reports/base[deck.sprayers=6].html, lists
    the change in run.json, summary.json and the page header, leaves reports/base.html alone,
    and resumes under the same name."""
    from tests.cli_helpers import cli

    monkeypatch.chdir(tmp_path)
    shared = tmp_path / "reports" / "base.html"
    shared.parent.mkdir()
    shared.write_text('<meta name="generator" content="ifitfits-sim"> the base page')
    quick = ["--games", "40", "--jobs", "1", "--quiet", "--no-feel"]  # the page, not its feel
    code, out, _ = cli(capsys, "run", BASE, "--set", "deck.sprayers=6", "--out", "r", *quick)
    assert code == 0, out
    page = tmp_path / "reports" / "base[deck.sprayers=6].html"
    assert page.exists() and "the base page" in shared.read_text()
    meta = json.loads((tmp_path / "r" / "run.json").read_text())
    assert meta["name"] == "base[deck.sprayers=6]" and meta["sets"] == ["deck.sprayers=6"]
    assert json.loads((tmp_path / "r" / "summary.json").read_text())["sets"] == meta["sets"]
    html = page.read_text(encoding="utf-8")
    assert "Changed on the command line" in html and "<code>deck.sprayers=6</code>" in html
    again = ["--games", "60", "--jobs", "1", "--quiet", "--no-feel"]  # its name, not its feel
    code, out, _ = cli(capsys, "run", "--resume", "r", *again)
    assert code == 0, out
    meta = json.loads((tmp_path / "r" / "run.json").read_text())
    assert meta["games"] == 60 and meta["sets"] == ["deck.sprayers=6"]
    assert "base[deck.sprayers=6]" in out and "the base page" in shared.read_text()
