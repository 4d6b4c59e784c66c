"""How the game feels: the chances round by round (a model fitted on pilot games of the
config and line-up), what their curves say, and where they are written."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_helpers import one_error

from sim.feel.chances import COMEBACK, DECIDED, summaries
from sim.feel.forest import Forest
from sim.metrics import FEEL_COLUMNS
from sim.report.run_feel import calibration
from sim.runs.chances import MODEL_FILE, WINPROB_FILE, chances_of_tables, load_model, page_feel


@pytest.fixture(scope="module")
def played(tmp_path_factory, base_study):
    """3,000 games of the base study, its feel measured (the default of `sim run`)."""
    from sim import run

    study = base_study.with_overrides(games=3000)
    return run(study, jobs=1, out=tmp_path_factory.mktemp("feel") / "run", quiet=True), study


@pytest.fixture(scope="module")
def base_study():
    from pathlib import Path

    from sim.config import load_study

    return load_study(Path(__file__).resolve().parents[2] / "configs" / "base.yaml")


@pytest.fixture(scope="module")
def felt(played):
    result, _ = played
    return page_feel(result, result)


def test_the_compiled_trees_predict_what_scikit_learn_predicts(monkeypatch):
    """The copy of the fitted trees reads scikit-learn's node table (not public API): on
    fresh inputs it must give model.predict's values, by numpy's walk and the compiled one."""
    from sim.feel import kernel

    monkeypatch.setattr(kernel, "LOADED", False)  # as in a process that played nothing
    from sklearn.ensemble import HistGradientBoostingRegressor

    rng = np.random.default_rng(1)
    x = rng.normal(size=(3000, 5))
    y = x[:, 0] * x[:, 1] + np.sin(x[:, 2]) + rng.normal(0, 0.1, 3000)
    model = HistGradientBoostingRegressor(max_iter=30, max_leaf_nodes=15, random_state=0)
    model.fit(x, y)
    fresh = rng.normal(size=(2000, 5))
    assert np.allclose(Forest.of(model).predict(fresh), model.predict(fresh), atol=1e-9)
    # a few rows are walked by numpy, many by the compiled loop: the same values, bit for bit
    from sim.feel.forest import NUMPY_ROWS

    forest = Forest.of(model)
    walked = []
    predict = kernel.predict
    monkeypatch.setattr(kernel, "predict", lambda f, x: walked.append(len(x)) or predict(f, x))
    few = forest.predict(fresh)
    assert walked == [] and not kernel.LOADED  # numpy's walk, and numba not needed
    many = np.concatenate([fresh, rng.normal(size=(NUMPY_ROWS, 5))])
    compiled = forest.predict(many)  # loads the kernel, then walks the rows compiled
    assert walked == [len(many)] and kernel.LOADED
    arrays = (forest.feature, forest.threshold, forest.left, forest.right, forest.value)
    assert np.array_equal(compiled[:2000], few)
    assert np.array_equal(compiled, kernel.walk(many, *arrays, forest.roots, forest.baseline))
    # where the kernel is loaded (a process that plays), a few rows are walked compiled too
    assert np.array_equal(forest.predict(fresh), few) and walked[-1] == len(fresh)


def _reference_public_states(trace, rounds, player, usual):
    """The inputs as their definition reads, over every step of [game, step, seat] table
    scores (steps past a game's end repeating its final scores), then the live ones: the
    independent check of `public_states`, which builds the live steps alone."""
    count, most, seats = trace.shape
    s = np.zeros((count, most + 1, seats), np.float64)
    s[:, 1:] = trace
    n = rounds.astype(np.int64)[:, None]
    last = np.take_along_axis(s, n[:, :, None].repeat(seats, axis=2), axis=1)
    s = np.where((np.arange(most + 1)[None, :] > n)[:, :, None], last, s)
    top = s.max(axis=2, keepdims=True)
    tied = (s == top).sum(axis=2, keepdims=True)
    second = np.sort(s, axis=2)[:, :, -2:-1] if seats > 1 else np.zeros_like(top)
    best_other = np.where((s == top) & (tied == 1), second, top)
    rank = (s[:, :, None, :] > s[:, :, :, None]).sum(axis=3)
    live = np.arange(most + 1)[None, :] < rounds.astype(np.int64)[:, None]
    step = np.broadcast_to(np.arange(most + 1)[None, :, None], s.shape)
    seat = np.broadcast_to(np.arange(seats)[None, None, :], s.shape)
    who = np.broadcast_to(player[:, None, :], s.shape)
    score, other, rank, step, seat, who = (
        np.broadcast_to(c, s.shape)[live].reshape(-1)
        for c in (s, best_other, rank, step, seat, who)
    )
    columns = (score, other, score - other, rank, step / max(usual, 1.0), seat, seats, who)
    rows = np.stack([np.broadcast_to(c, (len(score),)) for c in columns], axis=-1)
    return rows.astype(np.float64), live


@pytest.mark.parametrize("seats", [1, 2, 4, 5])
def test_public_states_are_their_definition_bit_for_bit(seats):
    """The live steps' inputs, built from the live steps alone, are those of the whole
    [game, step, seat] table (ties at the top, a lone leader, one seat)."""
    from sim.feel.chances import public_states

    rng = np.random.default_rng(seats)
    trace = np.cumsum(rng.integers(0, 3, (200, 12, seats)), axis=1).astype(np.int16)
    rounds = rng.integers(1, 13, 200)
    player = rng.integers(0, 3, (200, seats))
    x, live = public_states(trace, rounds, player, 11.0)
    ref, ref_live = _reference_public_states(trace, rounds, player, 11.0)
    assert np.array_equal(live, ref_live) and np.array_equal(x, ref)


def test_each_distinct_state_is_evaluated_once_and_gathered_exactly():
    """`distinct_states` gives the very rows of `public_states`, each distinct one once (the
    model evaluates those and gathers); a key too wide for 62 bits keeps every row."""
    from sim.feel.chances import distinct_states, public_states

    rng = np.random.default_rng(3)
    trace = np.cumsum(rng.integers(0, 3, (300, 12, 4)), axis=1).astype(np.int16)
    rounds = rng.integers(6, 13, 300)
    player = rng.integers(0, 2, (300, 4))
    x, live = public_states(trace, rounds, player, 11.0)
    rows, inverse, live2 = distinct_states(trace, rounds, player, 11.0)
    assert np.array_equal(live, live2) and len(rows) < len(x) / 2
    assert np.array_equal(rows[inverse], x)  # bit for bit
    huge = player * 2**55  # player numbers no key can hold: every row as it is
    rows, inverse, _ = distinct_states(trace, rounds, huge, 11.0)
    assert inverse is None and np.array_equal(rows, public_states(trace, rounds, huge, 11.0)[0])


def test_first_and_inverse_is_numpys_unique_by_table_and_by_sort():
    """The keys' first rows and inverse, by a table over a small room and by numpy's sort
    over a large one, are `np.unique`'s."""
    from sim.feel.chances import _first_and_inverse

    rng = np.random.default_rng(5)
    for room, n in ((50, 400), (10**9, 400), (7, 0), (3, 1)):
        key = rng.integers(0, room, n)
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        got = _first_and_inverse(key, room)
        assert np.array_equal(got[0], first) and np.array_equal(got[1], inverse), room


def test_seat_maxima_without_a_sort_are_the_sorts():
    """The largest and second largest over the seats (ties, -inf, integers, 2 to 5 seats) and
    the seats' maximum are numpy's sort's and max's."""
    from sim.feel.chances import _seat_max, _top_two

    rng = np.random.default_rng(11)
    for seats in (2, 3, 4, 5):
        x = rng.integers(0, 4, (300, 7, seats)).astype(float) / 4  # many ties
        x[rng.random(x.shape) < 0.1] = -np.inf
        top, second = _top_two(x, -np.inf)
        down = -np.sort(-x, axis=2)
        assert np.array_equal(top, down[..., 0]) and np.array_equal(second, down[..., 1])
        assert np.array_equal(_seat_max(x), x.max(axis=2))
        ints = rng.integers(-3, 9, (200, seats))
        top, second = _top_two(ints, np.iinfo(np.int64).min)
        assert np.array_equal(second, np.sort(ints, axis=1)[:, -2])


def test_steps_with_the_same_seat_states_share_one_expected_move(played, base_study):
    """A real chunk's states made distinct and gathered are `public_states`' rows bit for bit,
    and its feel columns with each distinct step's expected move evaluated once are those
    with every step's evaluated (the same seats' states: the same chances)."""
    from sim.feel.chances import distinct_rows, distinct_states, public_states
    from sim.runs.chances import load_model, player_codes
    from sim.runs.play import play_arrays

    result, study = played
    model = load_model(Path(result.run_dir) / MODEL_FILE)
    chunk = play_arrays(study, 3000, 800)
    player, won = player_codes(model.players, study, chunk.slots), chunk.win_shares()
    rows, inverse, live = distinct_states(chunk.trace, chunk.rounds, player, model.usual)
    x, live2 = public_states(chunk.trace, chunk.rounds, player, model.usual)
    assert np.array_equal(rows[inverse], x) and np.array_equal(live, live2)
    p, live, seats = model._chances(chunk.trace, chunk.rounds, player, won)
    first, back = distinct_rows(seats)
    assert len(first) < len(seats) and np.array_equal(seats[first][back], seats)
    every = model.curves(p, live, chunk.rounds, won)  # no seats: every step evaluated
    once = model.per_game(chunk.trace, chunk.rounds, player, won)
    assert all(np.array_equal(once[k], every[k]) for k in every)
    assert distinct_rows(np.full((3, 5), 2**13)) is None  # no key in 62 bits: not made distinct


def test_every_game_gets_its_feel_columns_and_the_run_keeps_its_model(played):
    result, _ = played
    games = result.games
    for name in FEEL_COLUMNS:
        assert games[name].notna().all(), name
    assert ((games["decisive_moment"] >= 0) & (games["decisive_moment"] <= 1)).all()
    assert result.meta["feel"] is True
    assert load_model(result.run_dir / MODEL_FILE) is not None


def test_the_chances_are_calibrated_on_held_out_games(played, felt):
    """The model learnt from pilot games of its own seed: the run's games are held out.
    Binned by chance (ten bins), the outcomes match them (expected calibration error at
    most 0.02), and the Brier score is well below that of 'the leaders share the win'."""
    result, _ = played
    _, chances = felt
    check = calibration(chances, result.turns)
    assert check["ece"] <= 0.02 and len(check["bins"]) == 10
    assert check["brier"] < 0.8 * check["brier_lead"]
    sums = chances.groupby(["game", "step"])["p"].sum()
    assert np.allclose(sums, 1.0)


def test_at_the_end_every_chance_is_the_outcome(played):
    result, study = played
    model = load_model(result.run_dir / MODEL_FILE)
    ids, p, rounds, won = chances_of_tables(model, study, result.players, result.turns)
    assert np.array_equal(p[np.arange(len(ids)), rounds], won)
    assert np.isnan(p[0, rounds[0] + 1 :]).all()


def test_surprise_from_winprob_parquet_is_the_per_game_column(played, felt):
    """The chances the page saves, summed move by move, give games.parquet's surprise."""
    result, _ = played
    saved = pd.read_parquet(result.run_dir / WINPROB_FILE)
    games = result.games.set_index("game")
    for game, rows in list(saved.groupby("game"))[:40]:
        wide = rows.pivot(index="step", columns="seat", values="p").to_numpy()
        moved = np.sqrt((np.diff(wide, axis=0) ** 2).sum(axis=1)).sum()
        assert games.loc[game, "surprise"] == pytest.approx(moved, rel=1e-9)


def test_suspense_matches_surprise_in_expectation(played):
    """Ely-Frankel-Kamenica: with beliefs a martingale, the expected squared moves sum to the
    realised ones on average; the expected-move model keeps that within 15%."""
    from sim.feel.chances import move_inputs, move_states, next_moves

    result, study = played
    model = load_model(result.run_dir / MODEL_FILE)
    ids, p, rounds, won = chances_of_tables(model, study, result.players, result.turns)
    live = np.arange(p.shape[1])[None, :] < rounds[:, None]
    states = move_states(p, rounds, model.usual)
    expected = model.move.predict(move_inputs(states, live))
    assert expected.sum() == pytest.approx(next_moves(states, live).sum(), rel=0.15)


def _curve(p0: list[float]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One game of two seats: seat 0's chance at each step (the last is the outcome)."""
    p = np.array([[[a, 1 - a] for a in p0]], float)
    rounds = np.array([len(p0) - 1])
    won = p[:, -1, :]
    live = np.arange(len(p0))[None, :] < rounds[:, None]
    return p, rounds, won, live


def test_a_game_decided_for_certain_has_no_suspense_after_it():
    """From step 3 on seat 0's chance is 1: however large a move the regression expects, the
    outcome's variance (0) caps it, so only the first three steps add suspense."""
    p, rounds, won, live = _curve([0.5, 0.3, 0.6, 1.0, 1.0, 1.0, 1.0])
    huge = np.full(live.sum(), 10.0)
    per = summaries(p, rounds, won, huge, live)
    spread = [0.25, 0.21, 0.24]  # p (1 - p) of each seat at steps 0, 1, 2; then 0
    assert per["suspense"][0] == pytest.approx(sum(np.sqrt(2 * np.array(spread))))
    assert per["decisive_moment"][0] == pytest.approx(2 / 6)  # below 50% last at step 1
    moves = np.sqrt(2) * (0.2 + 0.3 + 0.4)
    assert per["surprise"][0] == pytest.approx(moves)


def test_decisive_moment_and_comeback_by_hand():
    """Seat 1 wins: its chance 0.4, 0.1 (below half a fair share of two: a comeback), 0.6,
    0.7, then the outcome 1.0: decided after step 1 (never below DECIDED from step 2)."""
    p, rounds, won, live = _curve([0.6, 0.9, 0.4, 0.3, 0.0])
    per = summaries(p, rounds, won, np.zeros(live.sum()), live)
    assert DECIDED == 0.5 and COMEBACK / 2 == 0.25
    assert per["decisive_moment"][0] == pytest.approx(2 / 4)
    assert per["comeback_by_chance"][0] == 1.0
    assert per["largest_swing"][0] == pytest.approx(0.5)
    steady, *_ = _curve([0.5, 0.6, 0.7, 0.8, 1.0])
    per = summaries(steady, rounds, steady[:, -1, :], np.zeros(live.sum()), live)
    assert per["comeback_by_chance"][0] == 0.0 and per["decisive_moment"][0] == 0.0


def test_all_chances_needs_the_feel(capsys, tmp_path, base_study):
    line = one_error(capsys, "run", base_study.source, "--no-feel", "--all-chances")
    assert "--all-chances" in line and "--no-feel" in line


def test_the_run_page_feels_unless_told_not_to(tmp_path):
    """With --no-feel the run page's section says it was left out; without, a run saved
    before the feel was measured gets it at report time (the golden run: its page text holds
    the section, tests/report/test_golden_folders.py)."""
    import shutil
    from pathlib import Path

    from cli_helpers import sim_cli

    golden = Path(__file__).resolve().parents[1] / "golden_folders"
    assert "expected calibration error" in (golden / "run.txt").read_text()
    folder = tmp_path / "run"
    shutil.copytree(golden / "run", folder)
    sim_cli("report", folder, "--out", tmp_path / "b.html", "--quiet", "--no-feel")
    without = (tmp_path / "b.html").read_text()
    assert 'id="fig-feel"' not in without and "Left out (<code>--no-feel</code>)" in without
    assert not (folder / WINPROB_FILE).exists()


def test_a_feel_target_adds_the_models_own_noise(tmp_path, capsys):
    """A run holds suspense to a target with an interval wider than its games' alone (the
    model's refits, sim.feel.model.model_noise); --no-feel with a feel target is one line
    (tune, map and advise hold one too: tests/studies/test_tune_feel.py and its kin)."""
    import json

    from cli_helpers import cli

    config = tmp_path / "ft.yaml"
    base = Path(__file__).resolve().parents[2] / "configs" / "base.yaml"
    config.write_text(f"extends: {base}\nname: ft\ngames: 600\ntargets: {{suspense: [1.0, 4.0]}}\n")
    code, _, _ = cli(capsys, "run", config, "--out", tmp_path / "r", "--no-report", "--quiet")
    assert code == 0
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    row = next(m for m in summary["metrics"] if m["metric"] == "suspense")
    assert row["interval"].endswith("the model's own noise") and row["verdict"] == "met"
    games = pd.read_parquet(tmp_path / "r" / "games.parquet")["suspense"]
    half = 1.96 * games.std() / np.sqrt(len(games))
    assert row["hi"] - row["lo"] > 2 * half
    assert "--no-feel" in one_error(capsys, "run", config, "--no-feel")


def test_a_sweep_holds_each_point_to_a_feel_target_with_the_models_noise(tmp_path, capsys):
    """A sweep's feel target: one model judges every point, and each point's interval adds
    that model's own noise (recorded in study.json), as a run's does; the verdict says so."""
    import json

    from cli_helpers import cli

    config = tmp_path / "fs.yaml"
    base = Path(__file__).resolve().parents[2] / "configs" / "base.yaml"
    config.write_text(
        f"extends: {base}\nname: fs\ngames: 400\nsweep: {{deck.sprayers: [2, 6]}}\n"
        "targets: {suspense: [1.0, 4.0]}\n"
    )
    code, out, _ = cli(capsys, "sweep", config, "--out", tmp_path / "s", "--no-report", "--quiet")
    assert code == 0 and "suspense add the chance model's own noise" in out
    noise = json.loads((tmp_path / "s" / "study.json").read_text())["feel_noise"]["suspense"]
    assert noise > 0
    points = pd.read_csv(tmp_path / "s" / "points.csv")
    for p, row in points.iterrows():
        games = pd.read_parquet(tmp_path / "s" / "points" / f"p{p:02d}" / "games.parquet")
        half = 1.96 * games["suspense"].std() / np.sqrt(len(games))
        width = row["suspense:hi"] - row["suspense:lo"]
        assert width > 2 * half  # the games' interval alone is narrower
        assert width >= 2 * 1.96 * noise - 1e-9  # the model's noise is in it


def test_a_damaged_cached_model_is_fitted_again(tmp_path, monkeypatch, base_study):
    """A truncated or foreign file where the cached model should be is not an error: the
    model is fitted again (the same, from the same pilot games) and the cache mended."""
    from sim.runs.chances import cache_path, feel_model, model_key

    small = base_study.with_overrides(**{"deck.sprayers": 3})
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = cache_path(model_key([small]))
    first = feel_model([small])
    for junk in (b"PK\x03\x04 truncated", b"\x93NUMPY junk"):
        path.write_bytes(junk)
        again = feel_model([small])
        assert np.array_equal(again.chance.value, first.chance.value)
        assert load_model(path) is not None


def test_all_chances_are_every_games_and_agree_with_the_sample(played, felt):
    """--all-chances: every game's chances, streamed chunk by chunk; the page's sample (2,000
    of the 3,000 games) is among them unchanged."""
    from sim.runs.chances import write_all_chances

    result, _ = played
    _, sampled = felt
    path = write_all_chances(result)
    every = pd.read_parquet(path)
    assert every["game"].nunique() == 3000
    both = sampled.merge(every, on=["game", "step", "seat"], suffixes=("", "_all"))
    assert len(both) == len(sampled) and np.array_equal(both["p"], both["p_all"])
