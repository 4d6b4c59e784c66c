"""Kingmaking: decisions of seats that can no longer win, whose actions crown different
seats (sim.table.kingmaking)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_helpers import cli, one_error

from sim.config import load_study
from sim.runs.chances import feel_model
from sim.studies.compare import load_compare
from sim.table.kingmaking import _continuations, compare_kingmaking, measure
from sim.table.record import play_recorded

BASE = Path(__file__).resolve().parents[2] / "configs" / "base.yaml"


@pytest.fixture(scope="module")
def base():
    return load_study(BASE)


def test_two_players_have_no_kingmaking_by_definition(base):
    two = base.with_overrides(players=2, seats=[{"policy": "greedy"}, {"policy": "random"}])
    result = measure(two, two.seed, [0, 1, 2], feel_model([two]))
    assert result.rate.value == 0.0 and result.rate.hi == 0.0 and len(result.rows) == 0
    assert result.to_json()["kingmaking"] == 0


def test_the_same_action_twice_plays_the_same_continuations(base):
    """Common random numbers: continuation j re-deals and seeds alike for every action, so an
    action compared with itself differs in nothing (no kingmaking from luck)."""
    actions = [d.action for d in play_recorded(base, base.seed, 4).decisions]
    step = len(actions) // 2
    shares = _continuations(base, base.seed, 4, actions, step, [actions[step]] * 2)
    assert np.array_equal(shares[0], shares[1])
    assert np.allclose(shares.sum(axis=2), 1.0)


def test_sim_run_kingmaking_writes_its_sample_and_the_page_says_it(tmp_path, capsys):
    from sim.report.run_feel import kingmaking_text

    config = tmp_path / "k.yaml"
    config.write_text(f"extends: {BASE}\nname: k\ngames: 12\n")
    code, out, _ = cli(
        capsys, "run", config, "--out", tmp_path / "r", "--kingmaking", "--no-report", "--quiet"
    )
    assert code == 0 and "kingmaking:" in out
    data = json.loads((tmp_path / "r" / "kingmaking.json").read_text())
    assert data["games"] == 12 and len(data["decisions"]) == data["examined"] <= 4 * 12
    if data["examined"]:
        assert 0 <= data["lo"] <= data["rate"] <= data["hi"] <= 1
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["kingmaking"]["examined"] == data["examined"]
    games = pd.read_parquet(tmp_path / "r" / "kingmaking.parquet")  # one row a sampled game
    assert games["game"].tolist() == data["sampled"] == list(range(12))
    assert games["examined"].sum() == data["examined"]
    assert games["kingmaking"].sum() == data["kingmaking"]
    some = games["examined"] > 0
    assert games["share"][~some].isna().all()
    assert np.allclose(games["share"][some], games["kingmaking"][some] / games["examined"][some])
    assert kingmaking_text(data).startswith("Kingmaking:")  # the page's sentence
    assert "sim report RUN_DIR --kingmaking" in kingmaking_text(None)
    line = one_error(capsys, "run", config, "--kingmaking", "--no-feel")
    assert "--kingmaking" in line and "--no-feel" in line


def test_sim_compare_kingmaking_measures_both_sides_and_their_difference(
    tmp_path, capsys, monkeypatch
):
    """`sim compare --kingmaking`: each side's sample in its run folder, B − A with its
    paired interval in the comparison's kingmaking.json, the line and the page; measured once
    (a page rebuilt reads it); refused in one line before any game with --no-feel."""
    config = tmp_path / "k.yaml"
    config.write_text(f"extends: {BASE}\nname: k\ngames: 6\n")
    out_dir, page = tmp_path / "c", tmp_path / "c.html"
    code, out, _ = cli(
        capsys,
        "compare",
        config,
        "--b-set",
        "deck.princesses=0",
        "--kingmaking",
        "--out",
        out_dir,
        "--report",
        page,
        "--quiet",
    )
    assert code == 0 and "Kingmaking (decisions of seats below a 10% chance" in out
    data = json.loads((out_dir / "kingmaking.json").read_text())
    a, b = data["sides"]
    assert a["sampled"] == b["sampled"] == list(range(6))
    diff = data["difference"]
    assert diff["paired"] and diff["resamples"] == 4000
    if diff["diff"] is not None:
        assert diff["lo"] <= diff["diff"] <= diff["hi"]
        assert "a family of its own, one test at 95%" in out
    html = page.read_text(encoding="utf-8")
    assert '<p id="kingmaking">Kingmaking' in html
    code, _, _ = cli(capsys, "report", out_dir, "--out", tmp_path / "again.html")
    assert code == 0 and '<p id="kingmaking">' in (tmp_path / "again.html").read_text("utf-8")
    import sim.table.kingmaking as king

    monkeypatch.setattr(king, "run_kingmaking", lambda *a: pytest.fail("measured again"))
    assert compare_kingmaking(load_compare(out_dir)) == data  # the sides' samples are kept
    line = one_error(
        capsys, "compare", config, "--b-set", "deck.princesses=0", "--kingmaking", "--no-feel"
    )
    assert "--kingmaking" in line and "--no-feel" in line


def test_sim_sweep_kingmaking_measures_every_point_against_the_first(tmp_path, capsys):
    """`sim sweep --kingmaking`: each point's sample in its folder, each later point against
    the first (one family, Bonferroni), in the sweep's kingmaking.json, the lines and the
    page; refused in one line before any game with --no-feel."""
    config = tmp_path / "s.yaml"
    config.write_text(f"extends: {BASE}\nname: s\ngames: 6\nsweep: {{deck.sprayers: [0, 3]}}\n")
    out_dir, page = tmp_path / "s", tmp_path / "s.html"
    code, out, _ = cli(
        capsys, "sweep", config, "--kingmaking", "--out", out_dir, "--report", page, "--quiet"
    )
    assert code == 0 and "Kingmaking by point (each point against deck.sprayers=0, 1 test," in out
    data = json.loads((out_dir / "kingmaking.json").read_text())
    assert [p["label"] for p in data["points"]] == ["deck.sprayers=0", "deck.sprayers=3"]
    assert [d["label"] for d in data["against"]] == ["deck.sprayers=3"]
    for point in sorted((out_dir / "points").iterdir()):
        assert json.loads((point / "kingmaking.json").read_text())["sampled"] == list(range(6))
    assert '<div id="kingmaking"><p>Kingmaking by point' in page.read_text(encoding="utf-8")
    assert "sim sweep --resume SWEEP_DIR --kingmaking" not in page.read_text(encoding="utf-8")
    line = one_error(capsys, "sweep", config, "--kingmaking", "--no-feel")
    assert "--kingmaking" in line and "--no-feel" in line


def test_a_rare_kingmaking_rate_keeps_an_honest_interval():
    """No kingmaking in eight decisions of two games: 0%, but the interval is not a point
    (each game counts as one decision when the clustered variance says nothing)."""
    from sim.table.kingmaking import clustered_share

    none = clustered_share(np.zeros(8, bool), np.repeat([0, 1], 4))
    assert none.value == 0.0 and none.lo == 0.0 and none.hi > 0.3
    rng = np.random.default_rng(0)
    some = clustered_share(rng.random(400) < 0.1, np.repeat(np.arange(100), 4))
    assert some.lo < some.value < some.hi and some.n == 400


def _decisions(chances: list[list[float]], coupled: float, reps: int, seed: int) -> np.ndarray:
    """Simulated `shares[rep, action, continuation, seat]` (one winner a continuation) where
    action i gives each seat the winning chances `chances[i]`; continuation j of every action
    starts from the same random number with probability `coupled` (common random numbers
    that the game's paths then part), else from its own."""
    from sim.table.kingmaking import CONTINUATIONS

    rng = np.random.default_rng(seed)
    cum = np.cumsum(np.asarray(chances, float), axis=1)
    actions, seats = cum.shape
    shared = rng.random((reps, 1, CONTINUATIONS))
    own = rng.random((reps, actions, CONTINUATIONS))
    u = np.where(rng.random((reps, actions, CONTINUATIONS)) < coupled, shared, own)
    winner = np.minimum((u[..., None] >= cum[None, :, None, :]).sum(axis=-1), seats - 1)
    return np.eye(seats)[winner]


@pytest.mark.parametrize(
    "chances",
    [[0.04, 0.32, 0.32, 0.32], [0.02, 0.49, 0.49, 0.0], [0.05, 0.6, 0.25, 0.1]],
    ids=["three-near-equal", "two-equal", "one-ahead"],
)
@pytest.mark.parametrize("coupled", [0.0, 0.5])
def test_actions_that_change_nothing_are_rarely_called_kingmaking(chances, coupled):
    """A true null: six actions that all leave the same winning chances (near-equal
    favourites are where choosing and testing on the same continuations flagged 10-19%).
    The rule keeps its 5% level: at most 3% of 1,500 such decisions are flagged."""
    from sim.table.kingmaking import crowns_clearly

    shares = _decisions([chances] * 6, coupled, 1500, seed=len(chances) + int(10 * coupled))
    flagged = np.mean([crowns_clearly(s, mover=0) for s in shares])
    assert flagged <= 0.03


def test_an_action_that_crowns_another_seat_is_found():
    """The power side: the action taken makes seat 1 the clear favourite (90%), another makes
    seat 2 (90%): kingmaking in at least 95% of 300 such decisions, coupled or not."""
    from sim.table.kingmaking import crowns_clearly

    one, two = [0.02, 0.9, 0.05, 0.03], [0.02, 0.05, 0.9, 0.03]
    for coupled in (0.0, 0.5):
        shares = _decisions([one, two, one, one, one, one], coupled, 300, seed=7)
        assert np.mean([crowns_clearly(s, mover=0) for s in shares]) >= 0.95


def test_a_kingmaking_target_is_measured_and_judged_like_any_other(tmp_path, capsys):
    """A config's target on kingmaking: sim run measures the sample (as --kingmaking does)
    before summary.json, whose row is the sample's rate with its verdict; the commands that
    compare or search configs, --until decided and --no-feel refuse it in one line."""
    config = tmp_path / "kt.yaml"
    config.write_text(f"extends: {BASE}\nname: kt\ngames: 8\ntargets: {{kingmaking: [0.0, 1.0]}}\n")
    code, out, _ = cli(capsys, "run", config, "--out", tmp_path / "r", "--no-report", "--quiet")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("kt: 8 games")  # the sample is said with the run's lines
    assert any(line.startswith("  kingmaking:") for line in lines[1:])
    data = json.loads((tmp_path / "r" / "kingmaking.json").read_text())
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    row = next(m for m in summary["metrics"] if m["metric"] == "kingmaking")
    assert row["n"] == data["examined"] and row["band"] == [0.0, 1.0]
    if data["examined"]:
        assert (row["value"], row["lo"], row["hi"]) == (data["rate"], data["lo"], data["hi"])
        assert row["verdict"] == "met"  # any rate's interval lies in [0, 1]
    else:
        assert row["value"] is None and row["verdict"] == "unclear"
    sweep = one_error(capsys, "sweep", config, "--set", "sweep={deck.sprayers: [2, 4]}")
    assert "targets.kingmaking" in sweep and "sim run can" in sweep
    for command in ("advise", "map", "tune"):  # they check targets on games, not on a sample
        assert "targets.kingmaking" in one_error(capsys, command, config)
    assert "--until" in one_error(capsys, "run", config, "--until", "decided")
    assert "--no-feel" in one_error(capsys, "run", config, "--no-feel")


def test_per_game_kingmaking_is_zero_with_two_players_and_nan_where_none_was_examined():
    from sim.table.kingmaking import per_game

    data = {
        "players": 4,
        "sampled": [0, 5, 9],
        "decisions": [
            {"game": 5, "kingmaking": True},
            {"game": 5, "kingmaking": False},
            {"game": 9, "kingmaking": False},
        ],
    }
    games = per_game(data).set_index("game")
    assert games["examined"].tolist() == [0, 2, 1] and games["kingmaking"].tolist() == [0, 1, 0]
    assert np.isnan(games.at[0, "share"]) and games.at[5, "share"] == 0.5
    two = per_game({"players": 2, "sampled": [0, 1], "decisions": []})
    assert two["share"].tolist() == [0.0, 0.0] and two["examined"].tolist() == [0, 0]


def test_sim_report_refuses_a_page_path_before_measuring_kingmaking(tmp_path, capsys):
    """The page's path is checked before any game of the report is played."""
    config = tmp_path / "k.yaml"
    config.write_text(f"extends: {BASE}\nname: k\ngames: 8\n")
    run = tmp_path / "r"
    assert cli(capsys, "run", config, "--out", run, "--no-report", "--quiet")[0] == 0
    theirs = tmp_path / "theirs.html"
    theirs.write_text("a designer's own page")
    line = one_error(capsys, "report", run, "--kingmaking", "--all-chances", "--out", theirs)
    assert "not a report made by sim" in line
    assert not (run / "kingmaking.json").exists() and not (run / "winprob.parquet").exists()
    assert theirs.read_text() == "a designer's own page"
