"""Sweeps and paired comparisons: common random numbers, one pool, resume, effects, reports."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sim.analysis.paired import compare_runs, sweep_result_stats
from sim.config import load_study
from sim.engine.game import Game
from sim.errors import SimError
from sim.report.study_report import build_compare_report, build_sweep_report
from sim.runs import Request, Workers
from sim.runs.lineup import engine_for
from sim.runs.results import TABLES
from sim.runs.storage import point_dir
from sim.studies import compare as C
from sim.studies import sweep as S
from sim.studies.compare import load_compare
from sim.studies.sweep import load_sweep, sweep_studies

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "configs" / "base.yaml"
MORE = ROOT / "configs" / "base_more_sprayers.yaml"
GAMES = 1000  # per point: enough for the known effects to be sharp


def run_sweep(study, *, jobs=-1, quiet=True, **request):
    """A sweep as its old keyword call: the request's and the workers' options together."""
    return S.run_sweep(study, Request.of(**request), Workers(jobs, quiet=quiet))


def run_compare(a, b, *, labels=("A", "B"), jobs=-1, quiet=True, independent=False, **request):
    """A comparison as its old keyword call."""
    return C.run_compare(a, b, labels, Request.of(**request), Workers(jobs, quiet=quiet),
                         independent)  # fmt: skip


def deck(study, index: int) -> list[str]:
    """The shuffled deck of game `index` of a study (before the start card and the deal)."""
    game = Game(engine_for(study.game), study.seed, index, log=True)
    return game.setup_event()["deck"]


@pytest.fixture(scope="module")
def base():
    return load_study(BASE)


@pytest.fixture(scope="module")
def sprayer_sweep(base, tmp_path_factory):
    study = base.with_overrides(games=GAMES, sweep={"deck.sprayers": [0, 8]})
    return run_sweep(study, jobs=2, out=tmp_path_factory.mktemp("s") / "sweep", quiet=True)


# ---------------------------------------------------------------- common random numbers


@pytest.mark.parametrize("index", [0, 1, 17, 523])
def test_same_shuffle_when_the_deck_does_not_change(base, index):
    study = base.with_overrides(sweep={"cats_per_player": [4, 6], "hand_size": [3, 4]})
    decks = [deck(s, index) for s in sweep_studies(study)]
    assert len(decks) == 4
    assert all(d == decks[0] for d in decks[1:])
    assert deck(base, index) != deck(base, index + 1)  # and games do differ from each other


@pytest.mark.parametrize(
    ("path", "values", "card"),
    [("deck.sprayers", [0, 4, 8], "sprayer"), ("deck.princesses", [1, 3], "princess")],
)
def test_common_cards_keep_their_order_when_a_count_changes(base, path, values, card):
    study = base.with_overrides(sweep={path: values})
    for index in (0, 5, 999):
        decks = [deck(s, index) for s in sweep_studies(study)]
        counts = [d.count(card) for d in decks]
        assert counts == values
        common = [[c for c in d if c != card] for d in decks]
        assert all(c == common[0] for c in common[1:])
        # a common card is in the same place relative to the others: the extra cards only
        # insert themselves between them
        assert decks[0] != decks[-1]


def test_sweep_points_share_games_and_seeds(sprayer_sweep):
    games = sprayer_sweep.games
    assert list(games.columns[:3]) == ["game", "point", "deck.sprayers"]
    assert sorted(games["deck.sprayers"].unique()) == [0, 8]
    for _, g in games.groupby("point"):
        assert g["game"].tolist() == list(range(GAMES))
        assert g["seed"].nunique() == 1 and g["seed"].iloc[0] == sprayer_sweep.study.seed
    # each point's rows carry its own config hash
    assert games.groupby("point")["config_hash"].nunique().eq(1).all()
    assert games["config_hash"].nunique() == 2
    # every point is a run folder of its own
    for i in range(2):
        meta = json.loads((point_dir(sprayer_sweep.out_dir, i) / "run.json").read_text())
        assert meta["status"] == "complete" and meta["config"]["deck"]["sprayers"] == [0, 8][i]


def test_load_sweep_gives_the_same_tables(sprayer_sweep):
    again = load_sweep(sprayer_sweep.out_dir)
    assert again.points == sprayer_sweep.points
    for name in TABLES:
        pd.testing.assert_frame_equal(getattr(again, name), getattr(sprayer_sweep, name))


def test_more_sprayers_lower_the_box_value(sprayer_sweep):
    stats = sweep_result_stats(sprayer_sweep, resamples=1000)
    t = stats.table.set_index(["metric", "point"])
    none, eight = t.loc[("box_value", 0)], t.loc[("box_value", 1)]
    print(
        f"\nbox points per box led: {none.value:.3f} [{none.lo:.3f}, {none.hi:.3f}] with 0,"
        f" {eight.value:.3f} [{eight.lo:.3f}, {eight.hi:.3f}] with 8;"
        f" paired change {eight['diff']:+.3f} [{eight.diff_lo:+.3f}, {eight.diff_hi:+.3f}]"
    )
    assert eight.value < none.value
    assert eight.diff_hi < 0 and bool(eight.real)  # real at 95%
    # and the direct count agrees: the sprayers' negative points are there
    p = sprayer_sweep.players
    assert p.loc[p["deck.sprayers"] == 0, "negative_points"].eq(0).all()
    assert p.loc[p["deck.sprayers"] == 8, "negative_points"].lt(0).any()


def test_resume_finishes_an_interrupted_sweep(sprayer_sweep, tmp_path):
    copy = tmp_path / "sweep"
    shutil.copytree(sprayer_sweep.out_dir, copy)
    # as if the last chunk of point 1 had died half written
    sorted((point_dir(copy, 1) / "players.parquet").glob("part-*.parquet"))[-1].unlink()
    meta = json.loads((copy / "study.json").read_text())
    (copy / "study.json").write_text(json.dumps({**meta, "status": "running"}))
    with pytest.raises(SimError, match="not complete"):
        load_sweep(copy)
    resumed = run_sweep(None, resume=copy, jobs=1, quiet=True)
    for name in TABLES:
        pd.testing.assert_frame_equal(getattr(resumed, name), getattr(sprayer_sweep, name))


def test_sweep_refuses_a_study_without_sweep_and_a_used_folder(base, sprayer_sweep):
    with pytest.raises(SimError, match="no 'sweep:' block"):
        run_sweep(base, quiet=True)
    with pytest.raises(SimError, match="not empty"):
        run_sweep(base.with_overrides(sweep={"deck.sprayers": [1, 2]}), out=sprayer_sweep.out_dir)


# ---------------------------------------------------------------- paired comparisons


def test_a_config_against_itself_shows_no_real_difference(base, tmp_path):
    a = base.with_overrides(games=GAMES)
    b = a.with_overrides(name="base_again")  # same settings, another label
    result = run_compare(a, b, labels=("A", "A again"), jobs=2, out=tmp_path / "aa", quiet=True)
    table = compare_runs(result.a, result.b, labels=result.labels, resamples=500)
    print(f"\nA/A: {int(table['real'].sum())} of {len(table)} metrics marked real")
    assert not table["real"].any()
    assert (table["diff"] == 0).all()  # common random numbers: the very same games
    assert load_compare(result.out_dir).labels == ("A", "A again")


@pytest.fixture(scope="module")
def sprayer_compare(base, tmp_path_factory):
    more = load_study(MORE)
    out = tmp_path_factory.mktemp("c") / "cmp"
    return run_compare(
        base, more, labels=("base", "6 sprayers"), games=GAMES, jobs=2, out=out, quiet=True
    )


def test_compare_plays_b_with_as_seed_and_games(base, tmp_path):
    b = base.with_overrides(seed=7, games=10, name="other_seed")
    result = run_compare(base, b, games=20, jobs=1, out=tmp_path / "c", quiet=True)
    assert len(result.b.games) == 20 and result.b.games["seed"].eq(base.seed).all()
    assert any("seed" in note for note in result.meta["notes"])


def test_paired_intervals_are_narrower_than_unpaired(sprayer_compare):
    table = compare_runs(sprayer_compare.a, sprayer_compare.b, labels=sprayer_compare.labels)
    t = table.set_index("metric")
    print("\nmetric: paired width / unpaired width (6 vs 4 sprayers, 1000 paired games)")
    for metric in ("box_value", "mean_score", "items_wasted", "margin", "first_player_advantage"):
        r = t.loc[metric]
        print(f"  {metric}: {r.width:.4f} / {r.unpaired_width:.4f} ({r.width_ratio:.0%})")
    assert bool(t.loc["box_value", "real"]) and t.loc["box_value", "diff"] < 0
    assert t.loc["items_wasted", "width"] < 0.7 * t.loc["items_wasted", "unpaired_width"]
    # over all metrics pairing never hurts much and helps on the median
    assert table["width_ratio"].median() < 1.0


# ---------------------------------------------------------------- reports


def test_sweep_report_is_self_contained(sprayer_sweep, tmp_path):
    path = build_sweep_report(sprayer_sweep, tmp_path / "sweep.html")
    html = path.read_text()
    assert html.count("<svg") >= 4
    assert not re.search(r"(src|href)=[\"']https?:", html)  # nothing fetched from a network
    for part in ("Balance", "Scores", "Game flow", "Card impact", "box points per box led"):
        assert part in html
    assert "sim sweep --resume SWEEP_DIR --kingmaking" in html  # not measured: how to ask


def test_two_d_sweep_report_and_verdict(base, tmp_path):
    study = base.with_overrides(
        games=150,
        sweep={"table.columns": [5, 10], "table.rows": [5, 10]},
        targets={"first_player_advantage": 0, "turns": [0, 1000]},
    )
    result = run_sweep(study, jobs=2, out=tmp_path / "grid", quiet=True)
    assert len(result.points) == 4 and set(result.games.columns) >= {"table.columns", "table.rows"}
    stats = sweep_result_stats(result, resamples=300)
    assert stats.verdict is not None and stats.verdict.best in range(4)
    assert "Best:" in stats.verdict.text
    html = build_sweep_report(result, tmp_path / "grid.html", stats=stats).read_text()
    assert html.count("<svg") >= 4 and "table.columns" in html


def test_compare_report(sprayer_compare, tmp_path):
    html = build_compare_report(sprayer_compare, tmp_path / "cmp.html").read_text()
    assert "deck.sprayers: 4 → 6" in html and "unpaired width" in html and "<svg" in html
    words = (">real<", ">within noise<", ">within noise after the correction<")
    assert np.sum([html.count(w) for w in words]) >= 20
    # one vocabulary (issue 50): no bare "noise", no "implied" as a verdict
    assert ">noise<" not in html and ">implied<" not in html
    assert "Glossary: every verdict word" in html
    # kingmaking was not asked for: the page says how to ask (a finished comparison resumes)
    assert "sim compare --resume COMPARE_DIR --kingmaking" in html


@pytest.mark.parametrize("backend", ["fork", "loky"])
def test_sim_compare_and_sweep_commands_run_on_either_local_backend(tmp_path, capsys, backend):
    from sim.cli import main

    # the pool is what differs between backends; the pages are built in this process from
    # the same tables whatever played them (their tests: the sweep page's, the verdict files')
    games = ["--games", "120", "--jobs", "2", "--backend", backend, "--quiet", "--no-report"]
    out = tmp_path / "compare"
    assert main(["compare", str(BASE), str(MORE), *games, "--out", str(out)]) == 0
    assert len(load_compare(out).a.games) == 120
    sweep = tmp_path / "sweep"
    assert main(["sweep", str(ROOT / "configs" / "sweep_sprayers.yaml"), *games,
                 "--out", str(sweep)]) == 0  # fmt: skip
    assert load_sweep(sweep).study.games == 120


# ---------------------------------------------------------------- machine-readable verdicts


def test_verdict_files_of_run_compare_and_sweep(tmp_path, capsys):
    """summary.json in a run folder, differences.csv in a comparison, points.csv in a sweep."""
    import json

    from sim.cli import main

    quick = ["--games", "150", "--jobs", "1", "--quiet", "--no-report"]  # the files, not pages
    run_dir = tmp_path / "run"
    assert main(["run", str(BASE), *quick, "--out", str(run_dir)]) == 0
    out = capsys.readouterr().out
    summary = json.loads((run_dir / "summary.json").read_text())
    # the terminal leads with the short answer; the long verdict stays in summary.json
    assert summary["headline"] in out and summary["verdict"] not in out
    assert summary["verdict"].startswith("seat 0 wins") and summary["lineup"] == "mixed"
    assert summary["answer"]["call"] in ("advantage", "disadvantage", "noise", "differ")
    assert summary["games"] == 150 and {m["metric"] for m in summary["metrics"]} >= {
        "first_player_advantage", "balance", "turns"}  # fmt: skip
    for m in summary["metrics"]:
        assert m["n"] == 150 and m["lo"] <= m["value"] <= m["hi"] and "95%" in m["interval"]
    assert "joint_test" in summary["seats"] and "p" in summary["seats"]["joint_test"]

    cmp_dir = tmp_path / "cmp"
    assert main(["compare", str(BASE), str(BASE), *quick, "--out", str(cmp_dir)]) == 0
    assert "very same" in capsys.readouterr().out  # an A/A on one seed says what it is
    diffs = pd.read_csv(cmp_dir / "differences.csv")
    assert {"metric", "a", "b", "diff", "lo", "hi", "p_adj", "real", "family"} <= set(diffs)
    assert not diffs["real"].any()

    ind_dir = tmp_path / "independent"
    assert main(["compare", str(BASE), str(BASE), *quick, "--independent", "--out",
                 str(ind_dir)]) == 0  # fmt: skip
    text = capsys.readouterr().out
    assert "independent games" in text and "headline metrics differ" in text
    b_seed = load_compare(ind_dir).b.games["seed"].iloc[0]
    assert b_seed == load_study(BASE).seed + 1

    sweep_dir = tmp_path / "sweep"
    assert main(["sweep", str(ROOT / "configs" / "sweep_sprayers.yaml"), *quick, "--out",
                 str(sweep_dir)]) == 0  # fmt: skip
    points = pd.read_csv(sweep_dir / "points.csv")
    assert len(points) == len(load_sweep(sweep_dir).points)
    assert {"turns", "turns:lo", "turns:hi", "in_best_set"} <= set(points.columns)
    assert points["in_best_set"].any()


def test_a_what_if_in_one_line(tmp_path, capsys):
    """`sim compare A --b-set KEY=VALUE`: B is A with the change; --set changes both."""
    from cli_helpers import cli

    out = tmp_path / "w"
    what_if = ["--b-set", "deck.sprayers=6", "--set", "games=60"]
    code, _, err = cli(capsys, "compare", BASE, *what_if, "--jobs", 1, "--out", out,
                       "--no-report", "--quiet")  # fmt: skip
    assert code == 0, err
    result = load_compare(out)
    assert result.labels == ("base", "deck.sprayers=6")
    a, b = result.studies
    assert a.game.deck.sprayers == 4 and b.game.deck.sprayers == 6
    assert a.games == b.games == 60  # --set reached both
    assert len(result.a.games) == 60
    from cli_helpers import one_error

    assert "--b-set" in one_error(capsys, "compare", BASE, "--quiet")


def test_the_compare_lead_says_what_its_own_table_says(sprayer_compare):
    """The lead's word for seat 0's edge is the table's call for that row (issue 50)."""
    from sim.analysis.findings import call_of, compare_headline
    from sim.analysis.paired import compare_runs

    r = sprayer_compare
    t = compare_runs(r.a, r.b, labels=("base", "6 sprayers"), resamples=200)
    row = t[t["metric"] == "first_player_advantage"].iloc[0]
    call = call_of(bool(row["real"]), row["lo"], row["hi"], row["family"] == "implied")
    from sim.analysis.findings import _edge_trend

    word = "a real change" if call == "real" else f"a change {call}"
    edge = _edge_trend(row["a"], row["b"], "in base", "in 6 sprayers", call)
    assert edge.endswith(word)
    lead = compare_headline(t, "deck.sprayers 4 → 6", "mixed players")
    if "seat 0's edge" in lead:  # the second sentence, when the lead has room for it
        assert lead.rstrip(".").endswith(word), (lead, call)
