"""`sim calibrate`: the heuristic fitted to logged decisions, checked on held-out games.

The decisions (`sim.analysis.choice.Choices`, made from logs by `sim.table.choices`)
are split by game: a share of the games (`holdout`, drawn from `seed`) is kept out.
The seat written (`calibrated.yaml`) and its intervals come from every game; the
held-out figures come from the same fit made on the other games only, beside random
play, greedy and every heuristic preset, each of those at its own best temperature on
the same training games (a bot at temperature 0 gives a move it would never make
probability 0). With `by_player`, each player gets a fit of their own, and a
likelihood-ratio test asks whether one model fits them all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from sim.analysis.calibration_words import calibration_lines, players_line
from sim.analysis.choice import Choices, LogitFit, fit_logit, fit_scale, players_differ
from sim.analysis.choice_scale import (
    MIN_DECISIONS,
    Model,
    Scale,
    data_warnings,
    heldout_table,
    seat_spec,
    weight_table,
)
from sim.errors import SimError
from sim.specs import FEATURE_NAMES, PRESETS
from sim.units import plural

HOLDOUT = 0.25
MIN_HELDOUT_GAMES = 4  # fewer games than this: no held-out check (said, not hidden)
LABEL = "calibrated"


@dataclass(frozen=True)
class GroupFit:
    """One fit: all fitted decisions, or one player's."""

    name: str
    label: str
    fit: LogitFit
    table: pd.DataFrame
    scale: Scale
    spec: dict
    warnings: list[str]
    heldout: pd.DataFrame | None
    train_games: int
    test_games: int


@dataclass(frozen=True)
class Calibration:
    """Everything `sim calibrate` found: the pooled fit, the players' fits and their test."""

    pooled: GroupFit
    players: list[GroupFit] = field(default_factory=list)
    differ: dict | None = None
    holdout: float = HOLDOUT
    seed: int = 0
    min_decisions: int = MIN_DECISIONS
    kinds: dict[str, int] = field(default_factory=dict)


def split_games(c: Choices, holdout: float, seed: int) -> np.ndarray:
    """A boolean per decision: is its game held out? round(holdout x games) games, drawn
    from `seed` (none when there are fewer than MIN_HELDOUT_GAMES games)."""
    games = np.unique(c.game)
    k = int(round(holdout * len(games)))
    if len(games) < MIN_HELDOUT_GAMES or k < 1 or k >= len(games):
        return np.zeros(c.n, bool)
    out = np.random.default_rng(seed).choice(games, size=k, replace=False)
    return np.isin(c.game, out)


def baselines(train: Choices, test: Choices, theta: np.ndarray) -> list[Model]:
    """The fitted model (first: the one the others are compared with), random, greedy and
    every preset, each bot at its best temperature on the training games."""
    models = [Model("calibrated (fitted on the other games)", test.x @ theta)]
    models.append(Model("random", np.zeros(len(test.row_alt)), 1.0, "uniform over legal actions"))
    bots = [("greedy", train.greedy[train.row_alt], test.greedy[test.row_alt])]
    for preset, weights in PRESETS.items():
        w = np.array([weights.get(name, 0.0) for name in FEATURE_NAMES])
        bots.append((f"heuristic:{preset}", train.x @ w, test.x @ w))
    for name, on_train, on_test in bots:
        scale, _ = fit_scale(train, on_train)
        note = (
            f"at its best-fitting temperature {1 / scale:.3g}"
            if scale > 0
            else "no temperature fits: its choices go against the player's"
        )
        models.append(Model(name, on_test, max(scale, 0.0), note))
    return models


def fit_group(
    c: Choices,
    name: str,
    label: str,
    test_mask: np.ndarray,
    min_decisions: int,
    seed: int,
) -> GroupFit:
    """Fit every decision of `c`; score the fit of the training part on the held-out part."""
    if c.n == 0:
        raise SimError(f"{name}: no decisions with a choice to fit")
    fit = fit_logit(c)
    table, scale = weight_table(fit, min_decisions=min_decisions)
    warnings = data_warnings(table, fit, min_decisions)
    train, test = c.subset(~test_mask), c.subset(test_mask)
    heldout = None
    if test.n and train.n:
        held = fit_logit(train)
        heldout = heldout_table(test, baselines(train, test, held.theta), seed=seed)
    else:
        warnings.append(
            f"no held-out check: {len(np.unique(c.game))} games (it needs at least"
            f" {MIN_HELDOUT_GAMES}, and a holdout share that leaves games on both sides)"
        )
    if not scale.points:
        warnings.append(f"the seat is on the utility scale: {scale.unit}")
    return GroupFit(
        name=name,
        label=label,
        fit=fit,
        table=table,
        scale=scale,
        spec=seat_spec(table, scale, label),
        warnings=warnings,
        heldout=heldout,
        train_games=len(np.unique(train.game)),
        test_games=len(np.unique(test.game)),
    )


def calibrate(
    c: Choices,
    *,
    holdout: float = HOLDOUT,
    seed: int = 0,
    min_decisions: int = MIN_DECISIONS,
    by_player: bool = False,
    say: Callable[[str], None] | None = None,
) -> Calibration:
    """The pooled fit (and with `by_player` one per player and the test that they differ)."""
    if not 0 <= holdout < 1:
        raise SimError(f"--holdout must be a share of the games from 0 to below 1, got {holdout}")
    if c.n == 0:
        raise SimError("no decisions to fit: the chosen seats never had more than one legal move")
    say = say or (lambda text: None)
    test_mask = split_games(c, holdout, seed)
    say(f"fitting {c.n:,} decisions of {len(np.unique(c.game)):,} games")
    pooled = fit_group(c, "all players", LABEL, test_mask, min_decisions, seed)
    kinds = {str(k): int(v) for k, v in zip(*np.unique(c.kind, return_counts=True), strict=True)}
    if not by_player:
        return Calibration(
            pooled, holdout=holdout, seed=seed, min_decisions=min_decisions, kinds=kinds
        )
    players = []
    for p, name in enumerate(c.players):
        mine = c.player == p
        say(f"fitting player {name}: {int(mine.sum()):,} decisions")
        players.append(
            fit_group(c.subset(mine), name, f"{LABEL}:{name}", test_mask[mine], min_decisions, seed)
        )
    differ = players_differ(pooled.fit, [g.fit for g in players]) if len(players) > 1 else None
    return Calibration(pooled, players, differ, holdout, seed, min_decisions, kinds)


# ---------------------------------------------------------------- what is printed


def summary_lines(result: Calibration, about: dict, out_dir, files: list) -> list[str]:
    """What `sim calibrate` prints: where, from what, each fit's lines, the players' test,
    the seat to paste and the files."""
    g = result.pooled
    head = f"{about['name']}: {plural(g.fit.n, 'decision')} of {plural(g.fit.games, 'game')}"
    lines = [f"{head} from {plural(about['logs'], 'log')}; fitted {about['seats']} -> {out_dir}"]
    lines += calibration_lines(g.name, g.table, g.scale, g.heldout, g.warnings)
    for p in result.players:
        lines += calibration_lines(f"player {p.name}", p.table, p.scale, p.heldout, p.warnings)
    if result.players:
        lines.append(players_line(result.differ))
    lines.append(f"seat: {flow_spec(g.spec)}")
    lines.append("files: " + ", ".join(str(f) for f in files))
    return lines


# ---------------------------------------------------------------- calibration.json


def flow_spec(spec: dict) -> str:
    """A seat on one line, ready to paste into a line-up: {policy: heuristic, ...}."""
    import yaml

    return yaml.safe_dump(spec, default_flow_style=True, sort_keys=False, width=10_000).strip()


def _finite(value):
    """A number for strict JSON: an unbounded or missing value is null."""
    if isinstance(value, float | np.floating):
        return float(value) if np.isfinite(value) else None
    if isinstance(value, np.integer | np.bool_):
        return value.item()
    return value


def _records(frame: pd.DataFrame | None) -> list[dict] | None:
    if frame is None:
        return None
    return [{k: _finite(v) for k, v in row.items()} for row in frame.to_dict("records")]


def group_record(g: GroupFit) -> dict:
    """One fit as calibration.json holds it."""
    s = g.scale
    return {
        "group": g.name,
        "label": g.label,
        "seat": g.spec,
        "unit": s.unit,
        "temperature": {
            "value": _finite(s.temperature) if s.points else None,
            "lo": _finite(s.lo),
            "hi": _finite(s.hi),
            "simultaneous_lo": _finite(s.sim_lo),
            "simultaneous_hi": _finite(s.sim_hi),
        },
        "weights": _records(g.table),
        "decisions": g.fit.n,
        "games": g.fit.games,
        "loglik": g.fit.loglik,
        "converged": g.fit.converged,
        "standard_errors": g.fit.se_kind,
        "heldout": {
            "train_games": g.train_games,
            "test_games": g.test_games,
            "models": _records(g.heldout),
        },
        "warnings": g.warnings,
    }


def calibration_record(result: Calibration, about: dict) -> dict:
    """calibration.json: what was fitted from what (`about`: logs, seats, studies), the
    pooled fit, each player's, and the test that they differ. Intervals are 95%; an
    unbounded end is null."""
    out = {
        "kind": "calibrate",
        **about,
        "level": 0.95,
        "holdout": result.holdout,
        "seed": result.seed,
        "min_decisions": result.min_decisions,
        "decision_kinds": result.kinds,
        **group_record(result.pooled),
    }
    if result.players:
        out["players"] = [group_record(g) for g in result.players]
        out["players_differ"] = {k: _finite(v) for k, v in (result.differ or {}).items()} or None
    return out
