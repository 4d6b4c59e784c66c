"""Kingmaking: does a seat that can no longer win decide who does?

Among the decisions of a seat whose own chance of winning (as a spectator would give it,
`sim.feel`) is below EPSILON, the share whose legal choices lead to different most-likely
winners among the other seats. Per examined decision (at most DECISIONS a game, evenly
spaced among its low-chance decisions with two or more legal actions), up to ACTIONS of the
legal actions (the one taken and others drawn at random) are each played on CONTINUATIONS
times, on common random numbers: continuation j of every action re-deals the unseen deck
alike and gives every seat the same random stream, so the actions differ by what they do
and not by luck. Each action's favourite is the other seat with the largest mean win share.
The decision is **kingmaking** when two actions have different favourites and the first
action's favourite wins clearly more under it than under the second: a coin flip between
near-equal seats does not count. The favourites are chosen on the first half of the
continuations and the difference is tested on the second (`crowns_clearly`): choosing and
testing on the same continuations flagged 10-19% of decisions whose actions all lead to
the same winner chances (simulated, three or two near-equal favourites; 5% was the level),
a winner's curse. The test is McNemar's exact sign test of the favourite's paired wins
(one-sided, at 5% Bonferroni-split over the ordered pairs of actions with different
favourites): under that null it flags at most 5% (measured 0.1-0.7%). With two players
there is no other seat to crown: exactly zero, by definition.

A sample of games (`SAMPLE_GAMES`, evenly spaced) gives the rate, with a 95% interval
clustered by game (`sim.analysis.stats.clustered_mean_ci`); the typical situations (decision
kind and phase of the kingmaking decisions) are counted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from sim.analysis.intervals import Z95
from sim.analysis.sampled import kingmaking_by_point, kingmaking_difference
from sim.analysis.stats import Estimate, clustered_mean_ci, wilson
from sim.config import StudyConfig
from sim.engine.game import Game
from sim.engine.rng import spawn_words
from sim.engine.turns import apply_action
from sim.errors import SimError
from sim.feel.model import FeelModel
from sim.runs.chances import MODEL_FILE, feel_model, load_model
from sim.runs.lineup import engine_for, seat_lineup
from sim.runs.paths import KINGMAKING_FILE, KINGMAKING_GAMES, RUN_FILE
from sim.runs.storage import read_json, saved_study, write_bytes, write_json
from sim.specs import is_plugin
from sim.studies.compare import CompareResult
from sim.studies.sweep import SweepResult
from sim.table.record import play_recorded
from sim.table.replay import chances_by_step
from sim.table.whatif import Kit, quick_to_play_on, win_shares

EPSILON = 0.10  # a seat whose chance is below this can no longer win, practically
CONTINUATIONS = 32  # per action: 16 choose the favourites, 16 test them
ACTIONS = 6  # legal actions played on per decision, the one taken among them
DECISIONS = 4  # examined decisions per game at most
SAMPLE_GAMES = 100  # games examined per run
SLOW_SAMPLE_GAMES = 10  # ... with a search player at the table (look-ahead, ISMCTS)
KING_KEY = 0x4B494E47  # the continuations' own spawn key ("KING")
ALPHA = 0.05  # of the clear-difference test, shared by a decision's pairs of actions


@dataclass(frozen=True)
class Kingmaking:
    """The examined decisions (`rows`: game, step, seat, chance, decision, phase, actions,
    kingmaking) and the rate (share of them that are kingmaking) over `games` games."""

    rows: pd.DataFrame
    rate: Estimate
    games: int
    players: int

    def to_json(self) -> dict:
        kings = self.rows[self.rows["kingmaking"].astype(bool)]
        situations = []
        if len(kings):
            counts = kings.groupby(["decision", "phase"]).size().sort_values(ascending=False)
            situations = [
                {"decision": d, "phase": ph, "count": int(n)}
                for (d, ph), n in counts.head(5).items()
            ]
        per_game = self.rows.groupby("game")["kingmaking"].mean() if len(self.rows) else []
        return {
            "epsilon": EPSILON,
            "continuations": CONTINUATIONS,
            "actions": ACTIONS,
            "decisions_per_game": DECISIONS,
            "games": self.games,
            "players": self.players,
            "examined": len(self.rows),
            "kingmaking": int(self.rows["kingmaking"].sum()) if len(self.rows) else 0,
            "rate": _plain(self.rate.value),
            "lo": _plain(self.rate.lo),
            "hi": _plain(self.rate.hi),
            "games_with_kingmaking": int(sum(v > 0 for v in per_game)),
            "situations": situations,
            # every examined decision: per game, the share that is kingmaking follows
            "decisions": self.rows.assign(kingmaking=self.rows["kingmaking"].astype(bool))
            .astype({"chance": float})
            .round({"chance": 4})
            .to_dict(orient="records"),
        }


def _plain(x: float) -> float | None:
    return None if x != x else float(x)


def measure(
    study: StudyConfig,
    seed: int,
    indices: list[int],
    model: FeelModel,
    progress: Callable[[int], None] | None = None,
) -> Kingmaking:
    """Kingmaking in games `indices` of (study, seed) (see the module)."""
    players = study.game.players
    rows: list[dict] = []
    for done, index in enumerate(indices):
        if players > 2:
            rows += _game_rows(study, seed, index, model)
        if progress is not None:
            progress(done + 1)
    frame = pd.DataFrame(
        rows,
        columns=["game", "step", "seat", "chance", "decision", "phase", "actions", "kingmaking"],
    )
    if players <= 2:
        rate = Estimate(0.0, 0.0, 0.0, 0)  # no other seat to crown: zero by definition
    else:
        rate = clustered_share(frame["kingmaking"].to_numpy(bool), frame["game"].to_numpy())
    return Kingmaking(frame, rate, len(indices), players)


def clustered_share(hits: np.ndarray, games: np.ndarray) -> Estimate:
    """The share of decisions that are kingmaking, with a Wilson interval on the effective
    number of decisions: n over the design effect of their clustering in games (the
    clustered variance over the binomial one, at least 1). Where every decision agrees the
    clustered variance is 0 and tells nothing, so each game counts as one decision: the
    interval never shrinks to a point at 0% or 100%, however rare the event."""
    n, games_count = len(hits), len(np.unique(games))
    if n == 0:
        return wilson(0.0, 0)
    p = float(hits.mean())
    clustered = clustered_mean_ci(hits.astype(float), games)
    binomial = np.sqrt(p * (1 - p) / n)
    if binomial > 0 and clustered.hi > clustered.lo:
        effect = ((clustered.hi - clustered.lo) / (2 * Z95 * binomial)) ** 2
    else:
        effect = n / games_count
    effective = n / max(effect, 1.0)
    e = wilson(p * effective, effective)
    return Estimate(p, e.lo, e.hi, n)


def _game_rows(study: StudyConfig, seed: int, index: int, model: FeelModel) -> list[dict]:
    """The examined decisions of one game."""
    recorded = play_recorded(study, seed, index)
    actions = [d.action for d in recorded.decisions]
    game = Game(engine_for(study.game), seed, index)
    turns, scores, seats, legal, kinds = [], [], [], [], []
    for k in range(len(actions) + 1):
        turns.append(game.turns)
        scores.append(list(game.outcome().scores))
        if k == len(actions):
            break
        seats.append(game.seat)
        legal.append([int(a) for a in game.legal()])
        kinds.append((game.decision, game.phase))
        apply_action(game.s, game.pr, np.int32(actions[k]))
    chances = chances_by_step(model, study, index, turns, scores, True)
    if chances is None:
        return []
    low = [k for k in range(len(actions)) if chances[k, seats[k]] < EPSILON and len(legal[k]) > 1]
    picked = [low[i] for i in np.linspace(0, len(low) - 1, DECISIONS).astype(int)] if low else []
    rows = []
    for k in sorted(set(picked)):
        king = _is_kingmaking(study, seed, index, actions, k, legal[k], seats[k])
        rows.append(
            {
                "game": index,
                "step": k,
                "seat": seats[k],
                "chance": float(chances[k, seats[k]]),
                "decision": kinds[k][0],
                "phase": kinds[k][1],
                "actions": len(legal[k]),
                "kingmaking": king,
            }
        )
    return rows


def _is_kingmaking(study, seed, index, actions, step, legal, mover) -> bool:
    """Do the decision's actions crown different seats, clearly (see the module)?"""
    rng = np.random.default_rng([seed, index, KING_KEY, step])
    others = [a for a in legal if a != actions[step]]
    chosen = [actions[step], *rng.permutation(others)[: ACTIONS - 1].tolist()]
    shares = _continuations(study, seed, index, actions, step, chosen)  # [action, j, seat]
    return crowns_clearly(shares, mover)


def crowns_clearly(shares: np.ndarray, mover: int, alpha: float = ALPHA) -> bool:
    """Do two actions crown different seats, clearly? `shares[action, continuation, seat]`
    are win shares on common random numbers. Each action's favourite (the other seat with
    the largest mean share) is chosen on the first half of the continuations; on the second
    half, for each ordered pair (a, b) with different favourites, McNemar's exact one-sided
    sign test asks whether a's favourite wins more under a than under b, at alpha split
    over those pairs (Bonferroni). Chosen and tested apart, the test keeps its level."""
    half = shares.shape[1] // 2
    mean = shares[:, :half].mean(axis=1)
    mean[:, mover] = -1.0  # the favourite among the other seats
    favourite = mean.argmax(axis=1)
    pairs = [
        (a, b)
        for a in range(len(favourite))
        for b in range(len(favourite))
        if favourite[a] != favourite[b]
    ]
    for a, b in pairs:
        d = shares[a, half:, favourite[a]] - shares[b, half:, favourite[a]]
        if _sign_p(d) <= alpha / len(pairs):
            return True
    return False


def _sign_p(d: np.ndarray) -> float:
    """One-sided exact p-value of more positive than negative paired differences (ties, 0,
    dropped): scipy's binomial test of the positives among the nonzero, against 1/2."""
    from scipy.stats import binomtest

    n = int((d != 0).sum())
    return 1.0 if n == 0 else binomtest(int((d > 0).sum()), n, 0.5, alternative="greater").pvalue


def _continuations(study, seed, index, actions, step, chosen) -> np.ndarray:
    """[action, continuation, seat] win shares: each chosen action played on CONTINUATIONS
    times by the game's seats, continuation j alike for every action (common random
    numbers: the same re-dealt deck and seat streams)."""
    start = Game(engine_for(study.game), seed, index)
    for a in actions[:step]:
        apply_action(start.s, start.pr, np.int32(a))
    specs = [study.seats[slot] for slot in seat_lineup(study, index)]
    kit = Kit.of(study, start, seed, index, specs)
    game = kit.game
    players = study.game.players
    out = np.zeros((len(chosen), CONTINUATIONS, players))
    every = spawn_words(seed, (index, KING_KEY, step), np.arange(CONTINUATIONS), players + 1)
    for j, words in enumerate(every):
        for i, action in enumerate(chosen):
            game.s[:] = start.s[: game.pr.state_size]
            kit.reshuffle(words[0])  # the unseen deck, alike for every action
            apply_action(game.s, game.pr, np.int32(action))
            if not game.over:
                kit.play_on(words[1:])
            out[i, j] = win_shares(list(game.outcome().scores))
    return out


def sampled_games(study: StudyConfig, games: int) -> list[int]:
    """The indices of the games a run of `games` games examines: evenly spaced, SAMPLE_GAMES
    of them (SLOW_SAMPLE_GAMES with a search player at the table), all when fewer."""
    sample = SAMPLE_GAMES if quick_to_play_on(study) else SLOW_SAMPLE_GAMES
    return sorted({int(i) for i in np.linspace(0, games - 1, min(sample, games)).astype(int)})


def run_kingmaking(run_dir, say: Callable[[str], None] | None = None) -> dict:
    """Kingmaking in SAMPLE_GAMES evenly spaced games of a run folder, written to its
    `kingmaking.json` (what the run page shows); returns what was written."""
    folder = Path(run_dir)
    meta = read_json(folder / RUN_FILE)
    study = saved_study(meta, folder / RUN_FILE)
    if any(is_plugin(seat.policy) for seat in study.seats):
        raise SimError("--kingmaking: the continuations play built-in policies only")
    model = load_model(folder / MODEL_FILE) or feel_model([study])
    indices = sampled_games(study, int(meta.get("games", 0)))
    if say and not quick_to_play_on(study):
        say(f"kingmaking: {len(indices)} games (a search player's continuations are slow)")
    step = max(1, len(indices) // 10)

    def progress(done: int) -> None:
        if say and (done % step == 0 or done == len(indices)):
            say(f"kingmaking: {done} of {len(indices)} games examined")

    result = measure(study, int(meta["seed"]), indices, model, progress)
    data = {**result.to_json(), "sampled": indices}  # games, for comparisons
    write_json(folder / KINGMAKING_FILE, data)
    write_bytes(folder / KINGMAKING_GAMES, per_game(data).to_parquet(index=False))
    return data


def per_game(data: dict) -> pd.DataFrame:
    """A kingmaking sample per game (`kingmaking.parquet`): every sampled game, the low-chance
    decisions it examined, how many were kingmaking and their share (NaN where none was
    examined: the game had no seat below EPSILON with a choice; 0 with two players, by
    definition)."""
    games = pd.Index(data.get("sampled") or [], name="game")
    rows = pd.DataFrame(data.get("decisions") or [], columns=["game", "kingmaking"])
    counts = rows.groupby("game")["kingmaking"].agg(["size", "sum"]).reindex(games, fill_value=0)
    examined, kings = counts["size"].astype(np.int16), counts["sum"].astype(np.int16)
    share = (kings / examined.where(examined > 0)).astype(np.float64)
    if data.get("players", 3) <= 2:
        share[:] = 0.0  # no other seat to crown: zero by definition
    return pd.DataFrame(
        {"examined": examined, "kingmaking": kings, "share": share}, index=games
    ).reset_index()


def kept_sample(run, label: str, say: Callable[[str], None] | None = None) -> dict:
    """A run folder's kingmaking sample: the one it keeps if it examined the games a run of its
    size examines (`sampled_games`), else measured now (and kept)."""
    folder = Path(run.run_dir)
    path = folder / KINGMAKING_FILE
    data = read_json(path) if path.is_file() else None
    study = saved_study(run.meta, folder / RUN_FILE, plugins=False)
    if data is None or data.get("sampled") != sampled_games(study, run.meta["games"]):
        if say:
            say(f"kingmaking: measuring {label}'s sampled games")
        data = run_kingmaking(folder, say)
    return data


def _without_decisions(data: dict) -> dict:
    return {k: v for k, v in data.items() if k != "decisions"}


def compare_kingmaking(result: CompareResult, say: Callable[[str], None] | None = None) -> dict:
    """Kingmaking on each side's sampled games (`kept_sample`) and B − A with its interval
    (`sim.analysis.sampled.kingmaking_difference`: paired on common random numbers, both
    sides examining the same games). Written to the comparison's `kingmaking.json`."""
    sides = [
        kept_sample(run, label, say)
        for label, run in zip(result.labels, (result.a, result.b), strict=True)
    ]
    paired = not result.meta.get("independent", False)
    out = {
        "labels": list(result.labels),
        "sides": [_without_decisions(d) for d in sides],
        "difference": kingmaking_difference(*sides, paired=paired),
    }
    write_json(result.out_dir / KINGMAKING_FILE, out)
    return out


def sweep_kingmaking(result: SweepResult, say: Callable[[str], None] | None = None) -> dict:
    """Kingmaking at every point of a sweep (`kept_sample`; the points play the same game
    indices on shared seeds, so each later point is paired with the first:
    `sim.analysis.sampled.kingmaking_by_point`). Written to the sweep's `kingmaking.json`."""
    samples = [
        kept_sample(run, label, say) for label, run in zip(result.labels, result.runs, strict=True)
    ]
    out = kingmaking_by_point(samples, list(result.labels))
    write_json(result.out_dir / KINGMAKING_FILE, out)
    return out
