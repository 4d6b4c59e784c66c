"""`sim value`: what each option is worth (restricted play) and what each card does (ablation).

Restricted play (Jaffe et al. 2012): for every option of `value.options`
(default: every one of `sim.config.ban_options`), the line-up is played with
one line-up slot (`value.seat`, default 0) banned from that option, on the
same game indices and seed as the unrestricted line-up. Seats rotate (forced
on, in both), so the restricted player sits in every seat equally often. The
option's value is the win share (and score) the slot loses, game by game.

Deck ablation: for every card kind of `value.ablate` (default: every kind in
the deck; `false`: none), one copy is removed and the same games are played.
Each physical card keeps its own shuffle key, so the other cards keep their
order (paired games).

Folder: like a sweep's, `study.json` and one run folder per point under
`points/` (p00 is the unrestricted base), then `values.csv`, `ablation.csv`
and `summary.json` (`sim.cli.commands`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from sim.analysis import restricted as R
from sim.config import NO_BLOCKS, StudyConfig
from sim.errors import ConfigError, SimError
from sim.runs.options import Request, Workers
from sim.runs.storage import RunResult
from sim.specs import is_plugin
from sim.studies.common import Points, open_study, play_points


@dataclass(frozen=True)
class ValuePoint:
    """One point of a value study: the base, an option banned, or a card copy removed."""

    kind: str  # "base", "restrict" or "ablate"
    name: str  # the option or card ("" for the base)
    study: StudyConfig


@dataclass
class ValueResult:
    """A finished value study: its points, their runs and the two effect tables."""

    study: StudyConfig
    out_dir: Path
    points: list[ValuePoint]
    runs: list[RunResult]
    values: pd.DataFrame
    ablation: pd.DataFrame
    seat: int
    meta: dict = field(default_factory=dict)


def value_points(study: StudyConfig, games: int | None = None) -> list[ValuePoint]:
    """The base point, one restricted point per option, one ablated point per card."""
    block = study.value
    n = games or block.point_games(study.games)
    base = study.with_overrides(games=n, rotate_seats=True, **NO_BLOCKS)
    slot = block.seat
    if is_plugin(base.seats[slot].policy):
        raise SimError(f"{study.source}: value.seat {slot} is a plug-in; restrict a built-in seat")
    if base.seats[slot].ban:
        raise SimError(f"{study.source}: seats[{slot}] already has a ban; value plays it without")
    points = [ValuePoint("base", "", base.with_overrides(name=f"{study.name}[base]"))]
    for option in block.option_names(study.game):
        seats = [s.to_dict() for s in base.seats]
        seats[slot]["ban"] = [option]
        name = f"{study.name}[-{option}]"
        points.append(ValuePoint("restrict", option, base.with_overrides(seats=seats, name=name)))
    for card in block.cards(study.game):
        points.append(ValuePoint("ablate", card, _without_one(base, card)))
    return points


def _without_one(study: StudyConfig, card: str) -> StudyConfig:
    """The study with one copy of `card` removed from the deck."""
    name = f"{study.name.removesuffix('[base]')}[{card} -1]"
    return study.with_overrides(name=name, **one_fewer(study, card))


def one_fewer(study: StudyConfig, card: str) -> dict:
    """The setting change that removes one copy of `card` ('box:N', 'toy:yarn', 'princess',
    'sprayer')."""
    deck = study.game.deck
    if card.startswith("box:"):
        boxes = dict(deck.boxes)
        boxes[card[4:]] -= 1
        change = {"deck.boxes": boxes}
    elif card.startswith("toy:"):
        toys = dict(deck.toys)
        toys[card[4:]] -= 1
        change = {"deck.toys": toys}
    else:
        key = {"princess": "deck.princesses", "sprayer": "deck.sprayers"}[card]
        change = {key: getattr(deck, key.split(".")[1]) - 1}
    return change


def cause_lines(study: StudyConfig, ablation: pd.DataFrame) -> list[str]:
    """The ablation grouped by what one copy fewer acts on (`sim.studies.fix_candidates
    .group_of`, the groups `sim advise` names its fixes by): each group's cards and the range
    of seat 0's win-share change they make, so a designer sees one cause, not ten cards."""
    from sim.studies.fix_candidates import group_of

    rows = ablation[ablation["measure"] == "first_player"] if len(ablation) else ablation
    groups: dict[str, list] = {}
    for r in rows.itertuples():
        try:
            groups.setdefault(group_of(study, one_fewer(study, r.card)), []).append(r)
        except ConfigError:  # a deck the config refuses (too few cards to deal)
            continue
    out = []
    for group, members in groups.items():
        lo, hi = min(m.change for m in members), max(m.change for m in members)
        real = sum(bool(m.real) for m in members)
        span = f"{lo:+.1f} pp" if len(members) == 1 else f"{lo:+.1f} to {hi:+.1f} pp"
        out.append(
            f"  {group}: {len(members)} card kind(s), seat 0's win share {span} ({real} real)"
        )
    if out:
        out.insert(
            0,
            "one copy fewer, by what it acts on (the groups of sim advise's fixes; this"
            " measures each card at the config's line-up, and which change fixes an edge is"
            " advise's question, screened, raced and confirmed by its one engine):",
        )
    return out


def run_value(study: StudyConfig | None, request: Request, workers: Workers) -> ValueResult:
    """Play every point of the value study on shared seeds (one pool) and analyse it;
    `request.games` is the games per point, `request.seed` replaces the study's seed. With
    `request.resume`, finish the value folder a stopped call left (its points kept)."""

    def build(study: StudyConfig, games: int | None) -> Points:
        points = value_points(study, games)
        labels = [p.name or "base" for p in points]
        head = {
            "seat": study.value.seat,
            "points": [{"label": p.name or "base", "kind": p.kind, "values": {}} for p in points],
        }
        return Points(points, [p.study for p in points], labels, head)

    study, out_dir, built, runs, meta = play_points("value", study, request, workers, build)
    points = built.items
    slot = study.value.seat
    values, ablation = value_tables(points, runs, slot)
    return ValueResult(study, out_dir, points, runs, values, ablation, slot, meta)


def value_tables(
    points: list[ValuePoint], runs: list[RunResult], slot: int
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(values, ablation): the restricted options' values and the ablated cards' changes,
    each family Holm-controlled; values sorted from the most valuable option."""
    # only the columns the analysis reads (`RunResult.columns`): a sixth of the tables' bytes
    base_players = runs[0].columns("players", R.PLAYER_COLUMNS)
    base = R.slot_outcomes(base_players, slot)
    base_measures = R.game_measures(runs[0].columns("games", R.GAME_COLUMNS), base_players)
    rows, ablated = [], []
    for point, run in zip(points[1:], runs[1:], strict=True):
        players = run.columns("players", R.PLAYER_COLUMNS)
        if point.kind == "restrict":
            cards = run.columns("cards", R.CARD_COLUMNS) if R.is_card(point.name) else None
            uses = R.option_uses(players, cards, slot, point.name)
            rows.append(R.value_row(point.name, base, R.slot_outcomes(players, slot), uses))
        else:
            games = run.columns("games", R.GAME_COLUMNS)
            ablated += R.ablation_rows(point.name, base_measures, R.game_measures(games, players))
    values = pd.DataFrame(rows, columns=VALUE_COLUMNS[:-2] + ["identical"])
    if len(values):
        values = R.holm(values).sort_values("value", ascending=False, ignore_index=True)
    ablation = pd.DataFrame(ablated)
    if len(ablation):
        ablation = R.holm(ablation)
    return values, ablation


VALUE_COLUMNS = [
    "option",
    "value",
    "lo",
    "hi",
    "n",
    "p",
    "score_loss",
    "score_lo",
    "score_hi",
    "score_p",
    "fallback_rate",
    "fallbacks_per_game",
    "p_adj",
    "real",
]


def load_value(out_dir: str | Path) -> ValueResult:
    """Open a finished value folder (for `sim report`) and analyse it again."""
    o = open_study(out_dir, "value")
    points = [
        ValuePoint(p["kind"], "" if p["kind"] == "base" else p["label"], o.point_study(i))
        for i, p in enumerate(o.meta["points"])
    ]
    values, ablation = value_tables(points, o.runs, o.meta["seat"])
    seat = o.meta["seat"]
    return ValueResult(o.study, o.out_dir, points, o.runs, values, ablation, seat, o.meta)
