"""The metric registry: every balance metric is declared here once, and only here.

A metric is a function of the *means* of per-game columns (one row per game,
defined and documented in `sim.analysis.values.game_values`): a win share is a
mean, a box value is a ratio of two means, a score spread needs the mean and
the mean square. Nothing else goes in. That is what lets every consumer share
one definition:

* the run report (`sim.analysis.balance.headline`, `check_targets`) evaluates
  `fn` on one run's column means and gets the interval by the metric's
  `interval` method;
* sweeps and comparisons (`sim.analysis.paired`) evaluate the same `fn` on
  bootstrap resamples of those means;
* the config check (`sim.config`) accepts the names in `TARGET_METRICS` under
  `targets:`;
* the reports format values by `unit` and draw `fair` as a reference line.

Because a metric only needs column means (and, for its interval, their
covariance), per-chunk partial sums of the columns in `columns` are enough to
compute it later without whole tables (`sim.analysis.moments`, `sim.runs.partials`).

This module is on the ground floor: numpy and the standard library only.
"""

from __future__ import annotations

import difflib
import fnmatch
import math
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from sim.units import card_label, pct, pp

UNITS = ("share", "points", "turns", "count", "number")
INF = math.inf
COUNT = (0.0, INF)  # the range of a per-game count (turns, points of a margin, items)
# How a single run's estimate gets its 95% interval (see sim.analysis.balance.estimate_metrics):
#   mean      the mean of `columns[0]` per game (sim.analysis.intervals.mean_bounds: the t
#             interval for spread-out values, Wilson's score interval on the observed range
#             for near-constant ones, never zero width, never outside `value_range`);
#   wilson    a share of games: Wilson score interval when every per-game value of
#             `columns[0]` is 0 or 1, else (win shares with ties) the mean's interval
#             inside [0, 1] (sim.analysis.intervals.share_bounds);
#   bootstrap for metrics that are not a plain mean: in a run's report the delta-method
#             interval from the moments of the per-game values (sim.analysis.moments), in
#             sweeps and comparisons the Poisson bootstrap over games (sim.analysis.replicates);
#   joint     the seat shares' joint 95% region projected onto the largest gap (balance:
#             sim.analysis.seats.balance_interval), which reaches 1 for a fair game.
# For "mean" and "wilson" the metric must be the mean of `columns[0]` plus terms that do
# not depend on it (a fixed offset such as 1/players); the interval is shifted by that.
# Comparisons and sweeps give these two kinds the same intervals on the per-game paired
# differences (Tango's for two 0/1 outcomes), the others the Poisson bootstrap.
INTERVALS = ("mean", "wilson", "bootstrap", "joint", "clustered")


class Means:
    """Means of game-value columns, one row per resample: m['turns'] is an array of rows."""

    def __init__(self, values: np.ndarray, columns: list[str]) -> None:
        self.values = values
        self.index = {c: i for i, c in enumerate(columns)}

    def __getitem__(self, column: str) -> np.ndarray:
        j = self.index.get(column)
        if j is None:
            return np.full(self.values.shape[0], np.nan)
        return self.values[:, j]

    def prefixed(self, prefix: str) -> np.ndarray:
        """All columns whose name starts with `prefix`, as resamples x columns."""
        cols = [j for c, j in self.index.items() if c.startswith(prefix)]
        return self.values[:, cols]


@dataclass(frozen=True)
class Metric:
    """A named statistic of the game-value means, with everything its readers need.

    `columns` are the game-value columns `fn` reads (`seat*` stands for every
    seat column); `unit` tells reports how to format a value; `interval` is the
    interval method of a single run's estimate (INTERVALS); `fair` is the value
    in a perfectly fair game, if there is one; `target` says whether a config may
    name the metric under `targets:`; `within` is the margin a bare-number target
    gets (a target is met only when the whole interval lies within it, see
    `target_band`); `value_range` is the range one game's value of `columns[0]` can take
    (a share's [0, 1], a count's [0, ∞)): a "mean" or "wilson" interval never leaves it;
    `diff` marks a difference of two shares (seat 0's share minus 1/n, a card's win rate
    held minus never held), which people read in percentage points.
    """

    name: str
    label: str
    group: str
    fn: Callable[[Means], np.ndarray]
    unit: str = "number"
    columns: tuple[str, ...] = ()
    interval: str = "bootstrap"
    fair: float | None = None
    target: bool = False
    within: float | None = None  # default margin of a target given as a bare number
    value_range: tuple[float, float] = (-INF, INF)
    diff: bool = False  # a difference of shares: written in pp (sim.units), not in %

    def __post_init__(self) -> None:
        if self.interval == "wilson":  # a share of games: each game's value is in [0, 1]
            object.__setattr__(self, "value_range", (0.0, 1.0))
        if self.unit not in UNITS:
            raise ValueError(f"metric {self.name}: unit {self.unit!r} not in {UNITS}")
        if self.interval not in INTERVALS:
            raise ValueError(f"metric {self.name}: interval {self.interval!r} not in {INTERVALS}")
        if self.interval != "bootstrap" and not self.columns:
            raise ValueError(f"metric {self.name}: a {self.interval!r} interval needs columns")
        if self.target and not (self.within and self.within > 0):
            raise ValueError(f"metric {self.name}: a target metric needs a default margin")


def needs(metrics: Iterable[Metric]) -> tuple[str, ...]:
    """The game-value columns (and `seat*`-style families) a list of metrics reads."""
    return tuple(dict.fromkeys(c for m in metrics for c in m.columns))


def matches(column: str, patterns: Iterable[str]) -> bool:
    """Does a game-value column name match one of `patterns` (names or `prefix*`)?"""
    return any(fnmatch.fnmatchcase(column, p) for p in patterns)


# ---------------------------------------------------------------- the functions


def ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den where den > 0, else NaN (no warning)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


class quiet_nan:
    """Silence numpy's 'All-NaN slice' warnings (a card kind absent from a deck)."""

    def __enter__(self):
        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore", RuntimeWarning)

    def __exit__(self, *exc):
        return self._w.__exit__(*exc)


def _column(name: str) -> Callable[[Means], np.ndarray]:
    return lambda m: m[name]


def _first_player(m: Means) -> np.ndarray:
    """Seat 0's win share minus the fair 1/players."""
    return m["seat0"] - 1.0 / m["n_players"]


def _balance(m: Means) -> np.ndarray:
    """1 - largest win-share gap between seats (1 is perfectly even)."""
    seats = m.prefixed("seat")
    with np.errstate(invalid="ignore"), quiet_nan():
        return 1.0 - (np.nanmax(seats, axis=1) - np.nanmin(seats, axis=1))


def _score_sd(m: Means) -> np.ndarray:
    """Spread of seat scores: sqrt(mean square - square mean)."""
    return np.sqrt(np.maximum(m["score_sq"] - m["score"] ** 2, 0.0))


def _box_value(m: Means) -> np.ndarray:
    return ratio(m["box_points"], m["boxes_led"])


def _closed_share(m: Means) -> np.ndarray:
    return ratio(m["closed_boxes"], m["boxes"])


def _card_impact(kind: str) -> Callable[[Means], np.ndarray]:
    """Win share of seats that held the kind minus that of seats that never held it."""

    def fn(m: Means) -> np.ndarray:
        had, had_win, n = m[f"had:{kind}"], m[f"had_win:{kind}"], m["n_players"]
        return ratio(had_win, had) - ratio(1.0 - had_win, n - had)

    return fn


def _fair_share_edge(column: str) -> Callable[[Means], np.ndarray]:
    """A seat's share in `column` minus the fair 1/players."""
    return lambda m: m[column] - 1.0 / m["n_players"]


def _edge_metric(name: str, label: str, group: str, column: str, **kw) -> Metric:
    """A seat's share (a win share column) minus the fair 1/players, 0 when fair."""
    cols = (column, "n_players")
    return Metric(
        name, label, group, _fair_share_edge(column), "share", cols, "wilson", fair=0.0, **kw
    )


def _dead_rate(kind: str) -> Callable[[Means], np.ndarray]:
    return lambda m: ratio(m[f"dead:{kind}"], m[f"got:{kind}"])


def _dead_card_rate(m: Means) -> np.ndarray:
    return ratio(m["dead_cards"], m["hand_cards"])


# ---------------------------------------------------------------- the registry

# A table of constants, one metric a row as the registry reads: the formatter leaves it.
# fmt: off
CORE_METRICS: tuple[Metric, ...] = (
    Metric("first_player_advantage", "first-player advantage", "balance", _first_player,
           "share", ("seat0", "n_players"), "wilson", fair=0.0, target=True, within=0.01,
           diff=True),
    Metric("balance", "balance (1 − largest seat gap)", "balance", _balance,
           "share", ("seat*",), "joint", fair=1.0, target=True, within=0.02),
    Metric("shared_wins", "share of shared wins", "balance", _column("tie"),
           "share", ("tie",), "wilson", target=True, within=0.01),
    Metric("margin", "winning margin", "scores", _column("margin"),
           "points", ("margin",), "mean", target=True, within=0.5, value_range=COUNT),
    Metric("mean_score", "mean score", "scores", _column("score"),
           "points", ("score",), "mean", target=True, within=0.5),
    Metric("score_sd", "score spread (sd)", "scores", _score_sd,
           "points", ("score", "score_sq"), "bootstrap", target=True, within=0.5),
    Metric("box_value", "box points per box led", "scores", _box_value,
           "points", ("box_points", "boxes_led"), "bootstrap", target=True, within=0.2),
    Metric("turns", "turns per game", "flow", _column("turns"),
           "turns", ("turns",), "mean", target=True, within=1.0, value_range=COUNT),
    Metric("deck_empty", "share ended by empty deck", "flow", _column("deck_empty"),
           "share", ("deck_empty",), "wilson", target=True, within=0.02),
    Metric("items_wasted", "items wasted per game", "flow", _column("items_wasted"),
           "count", ("items_wasted",), "mean", target=True, within=0.2, value_range=COUNT),
    Metric("closed_share", "closed share of boxes (all closed / all boxes)", "flow",
           _closed_share, "share", ("closed_boxes", "boxes"), "bootstrap", target=True,
           within=0.02),
    Metric("dead_card_rate", "dead card rate (box and Princess cards discarded unplayed)",
           "flow", _dead_card_rate, "share", ("dead_cards", "hand_cards"), "bootstrap"),
    Metric("unequal_turns", "share of games with unequal turns per seat", "turns",
           _column("unequal_turns"), "share", ("unequal_turns",), "wilson", fair=0.0,
           target=True, within=0.01),
    Metric("final_phase", "final-phase turns per game", "turns", _column("final_phase"),
           "turns", ("final_phase",), "mean", value_range=COUNT),
    Metric("lead_changes", "lead changes per game", "tension", _column("lead_changes"),
           "count", ("lead_changes",), "mean", target=True, within=0.2, value_range=COUNT),
    Metric("decided_at", "decided at (share of the game)", "tension", _column("decided_at"),
           "share", ("decided_at",), "mean", target=True, within=0.02, value_range=(0.0, 1.0)),
    Metric("comeback", "comeback rate", "tension", _column("comeback"),
           "share", ("comeback",), "wilson", target=True, within=0.01),
    Metric("open_before_last", "still open before the last round", "tension",
           _column("open_before_last"), "share", ("open_before_last",), "wilson", target=True,
           within=0.02),
)
# The per-game columns of the chance curves (sim.feel.chances defines them), where a study
# measured them; the feel metrics below are means of three of them.
FEEL_COLUMNS = ("suspense", "surprise", "decisive_moment", "largest_swing", "comeback_by_chance")
# By the chances a spectator would give (sim.feel.chances): only where a study measured them
# (the games hold their columns); a family of tests of their own in a comparison.
FEEL_METRICS: tuple[Metric, ...] = (
    Metric("suspense", "suspense (expected moves of the chances, summed)", "feel",
           _column("suspense"), "number", ("suspense",), "mean", target=True, within=0.1,
           value_range=COUNT),
    Metric("surprise", "surprise (moves of the chances, summed)", "feel", _column("surprise"),
           "number", ("surprise",), "mean", target=True, within=0.1, value_range=COUNT),
    Metric("decisive_moment", "decisive moment (share of the game, by chances)", "feel",
           _column("decisive_moment"), "share", ("decisive_moment",), "mean", target=True,
           within=0.02, value_range=(0.0, 1.0)),
)
# Measured on a sample of a run's games after they are played (`sim run --kingmaking`,
# `sim.table.kingmaking`): the share of low-chance seats' decisions that crown another winner,
# a Wilson interval on the decisions' effective number (clustered by game). No game-value
# column holds it, so no study computes it from its games: a run may hold it to a target
# (`sim run` then measures it); the commands that compare or search configs refuse one.
KINGMAKING = Metric("kingmaking", "kingmaking (low-chance decisions that crown another winner)",
                    "feel", _column("kingmaking"), "share", ("kingmaking",), "clustered",
                    target=True, within=0.02, value_range=(0.0, 1.0))
# fmt: on

SAMPLED_TARGETS = (KINGMAKING.name,)

_CORE = {m.name: m for m in (*CORE_METRICS, *FEEL_METRICS)}

# The names a config may give under `targets:`, in the order error messages list them.
TARGET_METRICS: tuple[str, ...] = tuple(m.name for m in _CORE.values() if m.target)


# The band `sim advise` holds every seat to when the config gives no target for it: within
# 2.5 pp of a fair share (seat 0's edge is the first-player advantage).
FAIR_BAND = 0.025
# How a game plays, as `sim advise` shows it (against the config's targets where given).
PLAY_METRICS = ("turns", "score_sd", "decided_at", "lead_changes", "comeback", "items_wasted")
# how tense a game is, by the chances of winning (`sim.feel`): beside PLAY_METRICS where a
# study's games hold the feel (advise's diagnosis)
FEEL_PLAY = ("suspense", "decisive_moment")


def seat_edge_metric(seat: int) -> Metric:
    """Seat k's win share minus the fair 1/players (seat 0's is the first-player advantage);
    a target, by default within FAIR_BAND."""
    label = f"edge over a fair share, seat {seat}"
    return _edge_metric(
        f"seat_edge.seat{seat}",
        label,
        "seats",
        f"seat{seat}",
        target=True,
        within=FAIR_BAND,
        diff=True,
    )


def is_target(name: str) -> bool:
    """May a config name this metric under `targets:`? The core targets (TARGET_METRICS), the
    sampled ones (SAMPLED_TARGETS: kingmaking) and each seat's edge (`seat_edge.seat<k>`)."""
    family, _, member = name.partition(".")
    seat = member.removeprefix("seat")
    return (
        name in TARGET_METRICS
        or name in SAMPLED_TARGETS
        or (family == "seat_edge" and member != seat and seat.isdigit())
    )


def _seat_column_metric(name: str, label: str, group: str, column: str, interval: str, **kw):
    """A per-seat metric that is the mean of one game-value column."""
    return Metric(name, label, group, _column(column), "share", (column,), interval, **kw)


def seat_metric(seat: int) -> Metric:
    """Seat k's win share (a k-way tie counts 1/k, R8.6)."""
    return _seat_column_metric(
        f"win_share.seat{seat}", f"win share, seat {seat}", "seats", f"seat{seat}", "wilson"
    )


def extra_turn_metric(seat: int) -> Metric:
    """Share of games in which seat k takes more turns than the seat with the fewest."""
    label = f"extra-turn share, seat {seat}"
    return _seat_column_metric(
        f"extra_turn_share.seat{seat}", label, "turns", f"extra{seat}", "wilson"
    )


def turn_edge_metric(seat: int) -> Metric:
    """What seat k's turns after the last equal-turn point added to its win share."""
    label = f"edge from extra turns, seat {seat}"
    return _seat_column_metric(
        f"turn_edge.seat{seat}",
        label,
        "turns",
        f"turn_gain{seat}",
        "mean",
        fair=0.0,
        value_range=(-1.0, 1.0),
        diff=True,
    )


def equal_turn_edge_metric(seat: int) -> Metric:
    """Seat k's win share minus 1/n, scored when every seat had taken the same number of
    turns (`level<k>`); with `turn_edge` (`turn_gain<k>`) it adds up to the seat's whole edge."""
    label = f"edge at equal turns, seat {seat}"
    return _edge_metric(f"equal_turn_edge.seat{seat}", label, "turns", f"level{seat}", diff=True)


def dead_rate_metric(kind: str) -> Metric:
    """Copies of a card kind that died (discarded unplayed; items: wasted) per copy held."""
    cols = (f"dead:{kind}", f"got:{kind}")
    return Metric(
        f"dead_rate.{kind}",
        f"dead rate, {card_label(kind)}",
        "cards",
        _dead_rate(kind),
        "share",
        cols,
        "bootstrap",
    )


TURN_FAMILIES = {
    "extra_turn_share": extra_turn_metric,
    "turn_edge": turn_edge_metric,
    "equal_turn_edge": equal_turn_edge_metric,
}


def policy_metric(policy: str) -> Metric:
    """Mean win share per seat of one policy."""
    col = f"policy:{policy}"
    return Metric(
        f"win_share.{policy}",
        f"win share per seat, {policy}",
        "policies",
        _column(col),
        "share",
        (col,),
        "wilson",
    )


def card_metric(kind: str) -> Metric:
    """Card impact of one card kind: win share when held minus when never held."""
    cols = (f"had:{kind}", f"had_win:{kind}", "n_players")
    label = f"card impact, {card_label(kind)}"
    return Metric(
        f"card_impact.{kind}",
        label,
        "cards",
        _card_impact(kind),
        "share",
        cols,
        "bootstrap",
        diff=True,
    )


def metrics_for(columns: Iterable[str]) -> list[Metric]:
    """The core metrics plus one per seat, per policy and per card kind present in `columns`."""
    cols = list(columns)
    seats = sorted(int(c[4:]) for c in cols if c.startswith("seat"))
    policies = [c.split(":", 1)[1] for c in cols if c.startswith("policy:")]
    kinds = [c.split(":", 1)[1] for c in cols if c.startswith("had:")]
    dead = [c.split(":", 1)[1] for c in cols if c.startswith("dead:")]
    turn_seats = sorted(int(c[5:]) for c in cols if c.startswith("extra") and c[5:].isdigit())
    out = list(CORE_METRICS)
    out += [m for m in FEEL_METRICS if m.columns[0] in cols]
    out += [seat_metric(k) for k in seats]
    out += [family(k) for family in TURN_FAMILIES.values() for k in turn_seats]
    out += [policy_metric(p) for p in policies]
    out += [card_metric(c) for c in kinds]
    out += [dead_rate_metric(c) for c in dead]
    return out


def metric(name: str) -> Metric:
    """The metric called `name`: a core metric or one of the seat, policy and card families."""
    if name in _CORE:
        return _CORE[name]
    if name == KINGMAKING.name:
        return KINGMAKING
    family, _, member = name.partition(".")
    if family == "win_share" and member:
        seat = member.removeprefix("seat")
        if member != seat and seat.isdigit():
            return seat_metric(int(seat))
        return policy_metric(member)
    if family == "card_impact" and member:
        return card_metric(member)
    if family == "seat_edge" and member.startswith("seat") and member[4:].isdigit():
        return seat_edge_metric(int(member[4:]))
    if family == "dead_rate" and member:
        return dead_rate_metric(member)
    seat = member.removeprefix("seat")
    if family in TURN_FAMILIES and member != seat and seat.isdigit():
        return TURN_FAMILIES[family](int(seat))
    close = difflib.get_close_matches(name, list(_CORE), n=1)
    hint = f"did you mean {close[0]!r}?" if close else f"known: {', '.join(_CORE)}"
    raise ValueError(
        f"unknown metric {name!r}; {hint} (or win_share.seat<k>, win_share.<policy>,"
        " card_impact.<card>, dead_rate.<card>, extra_turn_share.seat<k>, turn_edge.seat<k>,"
        " equal_turn_edge.seat<k>, seat_edge.seat<k>)"
    )


# ---------------------------------------------------------------- families of tests

# Groups whose metrics form the headline family of a comparison or a sweep (Holm); every
# other group (seats, policies, cards) is a long table of its own (Benjamini-Hochberg).
HEADLINE_GROUPS = ("balance", "scores", "flow", "turns", "tension")


def family_of(group: str) -> str:
    """The multiplicity family of a metric group: 'headline', or the long table's name."""
    return "headline" if group in HEADLINE_GROUPS else group


def _seat_rows(names: list[str], family: str) -> list[str]:
    """The `<family>.seat<k>` names present, in seat order."""
    found = [n for n in names if n.startswith(f"{family}.seat") and n[len(family) + 5 :].isdigit()]
    return sorted(found, key=lambda n: int(n[len(family) + 5 :]))


def exact_relations(names: Iterable[str]) -> dict[str, str]:
    """Rows that are exact functions of other rows present, with the relation: a family shows
    them but never tests them again (one finding, one test).

    * seat 0's win share is the first-player advantage plus 1/n;
    * the seats' win shares sum to 1 (the last seat's follows), and so do the policies'
      (each plays the same seats in every game of a line-up: the last policy's follows);
    * with two seats, balance is 1 − 2·|first-player advantage|;
    * a seat's edge at equal turns is its win share − 1/n − its edge from extra turns;
    * the edges from extra turns sum to 0 over the seats (the last seat's follows);
    * seat 0 moves first (R2.5), so it has an extra turn exactly when the seats' turns
      differ (= unequal_turns), and the last seat never has one (always 0).
    """
    names = list(dict.fromkeys(names))
    out: dict[str, str] = {}
    seats = _seat_rows(names, "win_share")
    if "first_player_advantage" in names and "win_share.seat0" in seats:
        out["win_share.seat0"] = "first_player_advantage + 1/n"
    if seats:
        out.setdefault(seats[-1], "1 − the other seats' win shares")
    policies = [n for n in names if n.startswith("win_share.") and n not in seats]
    if policies:
        out[policies[-1]] = "1 − the other policies' seats' win shares"
    if len(seats) == 2 and "balance" in names and "first_player_advantage" in names:
        out["balance"] = "1 − 2·|first_player_advantage| (two seats)"
    for name in _seat_rows(names, "equal_turn_edge"):
        out[name] = f"win_share.{name.split('.')[1]} − 1/n − turn_edge.{name.split('.')[1]}"
    turn_edges = _seat_rows(names, "turn_edge")
    if turn_edges:
        out[turn_edges[-1]] = "0 − the other seats' edges from extra turns"
    extra = _seat_rows(names, "extra_turn_share")
    if "unequal_turns" in names and "extra_turn_share.seat0" in extra:
        out["extra_turn_share.seat0"] = "unequal_turns (seat 0 moves first, R2.5)"
    if len(extra) > 1:
        out[extra[-1]] = "0 (the last seat never takes an extra turn, R2.5)"
    return out


def target_band(name: str, target) -> tuple[float, float]:
    """The band a target's interval must lie inside to be met (an equivalence test).

    A number v means v within the metric's default margin (`Metric.within`);
    `{value: v, within: m}` means [v - m, v + m]; `[lo, hi]` is the band itself.
    """
    if isinstance(target, dict):
        return target["value"] - target["within"], target["value"] + target["within"]
    if isinstance(target, tuple | list):
        return float(target[0]), float(target[1])
    margin = metric(name).within or 0.0
    return float(target) - margin, float(target) + margin


def target_centre(target) -> float | tuple[float, float]:
    """What a sweep ranks points by: the value aimed at, or the range as written."""
    if isinstance(target, dict):
        return target["value"]
    return tuple(target) if isinstance(target, tuple | list) else float(target)


def describe_target(name: str, target) -> str:
    """A target as a designer reads it: '+0.0 pp ± 1.0 pp', '5.0% ± 1.0 pp', '[40, 60]' (bare
    numbers show their margin; shares in %, differences of shares and every margin in
    percentage points, as sim.units writes them)."""
    lo, hi = target_band(name, target)
    if metric(name).diff:  # a difference of shares: every part in percentage points
        if isinstance(target, tuple | list):
            return f"[{pp(lo)}, {pp(hi)}]"
        return f"{pp((lo + hi) / 2)} ± {pp((hi - lo) / 2, signed=False)}"
    if metric(name).unit == "share":
        if isinstance(target, tuple | list):
            return f"[{pct(lo)}, {pct(hi)}]"
        return f"{pct((lo + hi) / 2)} ± {pp((hi - lo) / 2, signed=False)}"
    if isinstance(target, tuple | list):
        return f"[{lo:g}, {hi:g}]"
    return f"{(lo + hi) / 2:g} ± {(hi - lo) / 2:g}"


def target_status(lo: float, hi: float, band: tuple[float, float]) -> str:
    """'met' when the interval [lo, hi] lies inside the band, 'missed' when wholly outside it,
    else 'unclear' (more games would tell)."""
    b_lo, b_hi = band
    if b_lo <= lo and hi <= b_hi:
        return "met"
    if hi < b_lo or lo > b_hi:
        return "missed"
    return "unclear"
