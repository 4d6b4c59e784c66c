"""`sim ladder`: a skill ladder of policies, one rating model over all results, and depth.

Rungs come from the config's `ladder.rungs` (seats: {policy, ...params, label})
or `sim.config.DEFAULT_RUNGS`: random, the heuristic presets, greedy, the look-ahead at
doubling rollout budgets and ismcts. Any built-in policy of `sim.specs.POLICIES` can be a
rung, so a new search player joins the ladder by naming it in the config.

Every rung plays the rung below it in two matches, each a study of its own
with rotated seats on the same game indices and seed: heads-up (2 players)
and at the config's player count (seats alternate upper, lower, ...). The
analysis (`sim.analysis.ladder`) gives each match's share with its interval,
one Bradley-Terry fit over all matches, and the depth.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim.analysis import ladder as L
from sim.analysis.findings import ladder_verdict
from sim.config import NO_BLOCKS, StudyConfig, rung_label, rung_seat
from sim.runs.options import Request, Workers
from sim.runs.storage import RunResult
from sim.studies.common import Points, open_study, play_points


@dataclass(frozen=True)
class Match:
    """One match: an upper rung against a lower one, at a table size."""

    step: int  # the upper rung's index
    lower: int  # the lower rung's index: step - 1, or step - 2 for a transitivity check
    players: int
    upper_slots: tuple[int, ...]
    study: StudyConfig


@dataclass
class LadderResult:
    """A finished ladder: its rungs, matches and runs, and the analysis tables."""

    study: StudyConfig
    out_dir: Path
    labels: list[str]
    matches: list[Match]
    runs: list[RunResult]
    steps: pd.DataFrame
    ratings: pd.DataFrame
    depth: int
    depth_ci: tuple[float, float]
    chain_depth: int
    chain_ci: tuple[float, float]
    threshold: float
    meta: dict = field(default_factory=dict)

    def verdict(self) -> str:
        """The ladder's verdict: its depth and rating chain depth, with intervals."""
        steps = len(self.labels) - 1
        return ladder_verdict(
            self.depth, self.depth_ci, self.chain_depth, self.chain_ci, steps, self.threshold
        )


def rungs_of(study: StudyConfig) -> tuple[list[str], list[dict[str, Any]]]:
    """(labels, seat dicts) of the ladder's rungs, bottom first."""
    raw = study.ladder.rung_list()
    labels = [r.get("label") or rung_label(rung_seat(r)) for r in raw]
    seats = [rung_seat(r).to_dict() for r in raw]
    return labels, seats


def ladder_matches(study: StudyConfig, games: int | None = None) -> list[Match]:
    """Every step's matches: heads-up, then at the study's player count (if it is not 2);
    then, unless `ladder.skip` is false, each rung heads-up against the rung two below (the
    rating model predicts those from the steps, so non-transitive results show)."""
    labels, seats = rungs_of(study)
    n = games or study.ladder.games
    base = study.with_overrides(games=n, rotate_seats=True, **NO_BLOCKS)
    sizes = [2] if study.game.players == 2 else [2, study.game.players]
    matches = []
    pairs = [(step, step - 1, players) for step in range(1, len(labels)) for players in sizes]
    if study.ladder.skip:
        pairs += [(step, step - 2, 2) for step in range(2, len(labels))]
    for step, lower, players in pairs:
        line = [seats[step] if q % 2 == 0 else seats[lower] for q in range(players)]
        name = f"{study.name}[{labels[step]} v {labels[lower]}, {players}p]"
        s = base.with_overrides(players=players, seats=line, name=name)
        matches.append(Match(step, lower, players, tuple(range(0, players, 2)), s))
    return matches


def run_ladder(study: StudyConfig | None, request: Request, workers: Workers) -> LadderResult:
    """Play every match of the ladder in one pool and analyse the results. With
    `request.resume`, finish the ladder folder a stopped call left (its matches kept)."""

    def build(study: StudyConfig, games: int | None) -> Points:
        labels, _ = rungs_of(study)
        matches = ladder_matches(study, games)
        head = {
            "rungs": labels,
            "points": [
                {
                    "label": match_label(labels, m),
                    "values": {"step": m.step, "lower": m.lower, "players": m.players},
                }
                for m in matches
            ],
        }
        names = [match_label(labels, m) for m in matches]
        return Points(matches, [m.study for m in matches], names, head)

    study, out_dir, built, runs, meta = play_points("ladder", study, request, workers, build)
    labels, matches = rungs_of(study)[0], built.items
    threshold = study.ladder.threshold
    tables = ladder_tables(labels, matches, runs, threshold, study.seed)
    return LadderResult(study, out_dir, labels, matches, runs, *tables, threshold, meta)


def match_label(labels: list[str], m: Match) -> str:
    """A match as study.json names it: 'greedy v random (2p)'."""
    return f"{labels[m.step]} v {labels[m.lower]} ({m.players}p)"


def ladder_tables(
    labels: list[str],
    matches: list[Match],
    runs: list[RunResult],
    threshold: float,
    seed: int = 0,
) -> tuple[pd.DataFrame, pd.DataFrame, int, tuple[float, float]]:
    """(matches table, ratings, depth, its interval, chain depth, its interval) of a ladder.

    Each match row has the upper rung's share of the wins against its fair share, its
    pairwise share (its seats' results against the lower rung's seats, as the rating model
    sees them) and the model's prediction of that share."""
    rows, pairs, heads_up = [], [], []
    for m, run in zip(matches, runs, strict=True):
        players = run.columns("players", L.MATCH_COLUMNS)  # what the matches read, no more
        shares = L.team_shares(players, list(m.upper_slots))
        fair = len(m.upper_slots) / m.players
        rung_of = {q: m.step if q in m.upper_slots else m.lower for q in range(m.players)}
        pair = L.pair_outcomes(players, rung_of)
        pairs.append(pair)
        upper_wins = np.where(pair["a"] == m.step, pair["win"], 1 - pair["win"])
        per_game = pd.Series(upper_wins).groupby(pair["game"].to_numpy()).mean()
        pw = L.match_row(per_game, 0.5)
        rows.append(
            {
                "step": m.step,
                "lower_step": m.lower,
                "upper": labels[m.step],
                "lower": labels[m.lower],
                "players": m.players,
                **L.match_row(shares, fair),
                "pair_share": pw["share"],
                "pair_lo": pw["lo"],
                "pair_hi": pw["hi"],
            }
        )
        if m.players == 2 and m.lower == m.step - 1:
            heads_up.append(shares)
    steps = pd.DataFrame(rows)
    ratings, _ = L.ratings(pairs, labels, seed=seed)  # the one model over every result
    steps["bt_pooled"] = _predicted(steps, ratings["rating"].to_numpy(), ratings.attrs["scale"])
    # Skill can matter more heads-up than at a full table, so each table size also gets a
    # model of its own; a match is predicted by its own size's model, and the chain depth
    # is read from the heads-up one (depth is a heads-up notion).
    steps["bt_predicted"] = np.nan
    chain, chain_ci = 0, (0.0, 0.0)
    for size in sorted(set(steps["players"])):
        mine = [i for i, m in enumerate(matches) if m.players == size]
        fit, draws = L.ratings([pairs[i] for i in mine], labels, seed=seed)
        for col in ("elo", "elo_lo", "elo_hi"):
            ratings[f"{col}_{size}p"] = fit[col]
        at = steps["players"] == size
        steps.loc[at, "bt_predicted"] = _predicted(steps[at], fit["rating"].to_numpy())
        if size == 2:
            chain = L.chain_depth(fit["rating"].to_numpy(), threshold)
            chain_ci = L.chain_depth_interval(draws, threshold)
    steps["agrees"] = (steps["bt_predicted"] >= steps["pair_lo"]) & (
        steps["bt_predicted"] <= steps["pair_hi"]
    )
    adjacent = steps["lower_step"] == steps["step"] - 1
    two = steps[(steps["players"] == 2) & adjacent].reset_index(drop=True)
    steps["counts_for_depth"] = (
        (steps["players"] == 2) & adjacent & (steps["share"] >= threshold) & (steps["lo"] > 0.5)
    )
    depth, depth_ci = L.depth(two, threshold), L.depth_interval(heads_up, threshold, seed)
    return steps, ratings, depth, depth_ci, chain, chain_ci


def _predicted(steps: pd.DataFrame, theta: np.ndarray, scale=None) -> list[float]:
    """The Bradley-Terry chance of each match's upper rung against its lower one (at its
    table size's factor, `scale`, of the model over every result)."""
    scale = scale or {}
    return [
        L.bt_prob(theta[u], theta[lo], scale.get(n, 1.0))
        for u, lo, n in zip(steps["step"], steps["lower_step"], steps["players"], strict=True)
    ]


def load_ladder(out_dir: str | Path) -> LadderResult:
    """Open a finished ladder folder (for `sim report`) and analyse it again."""
    o = open_study(out_dir, "ladder")
    matches = []
    for i, p in enumerate(o.meta["points"]):
        v = p["values"]
        upper = tuple(range(0, v["players"], 2))
        matches.append(Match(v["step"], v["lower"], v["players"], upper, o.point_study(i)))
    threshold, labels = o.study.ladder.threshold, o.meta["rungs"]
    tables = ladder_tables(labels, matches, o.runs, threshold, o.study.seed)
    return LadderResult(o.study, o.out_dir, labels, matches, o.runs, *tables, threshold, o.meta)
