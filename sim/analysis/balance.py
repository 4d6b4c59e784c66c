"""Balance tables from a run's `games` and `players` frames: DataFrame in, DataFrame out.

Win shares count a k-way tie as 1/k of a win (R8.6). Rows of one game are not
independent (only one seat can win), so every interval over player rows is
clustered by game; see `sim.analysis.stats` for which interval is used where.

The balance metrics, the target metrics (`headline`) and the registry rows of
`flow_summary` are the metrics of `sim.metrics`, each estimated by its declared
interval method from `sim.analysis.values.game_values` (`estimate_metrics`), so
a run report shows the same value a sweep or a comparison does.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from sim.analysis.intervals import Z95
from sim.analysis.moments import Moments, estimate_from_moments, mean_estimate, share_estimate
from sim.analysis.sampled import kingmaking_row
from sim.analysis.seats import (
    balance_from_moments,
    fairness_from_moments,
    seat_effects,
)
from sim.analysis.stats import (
    Estimate,
    clustered_mean_ci,
    win_share_ci,
)
from sim.analysis.values import game_values
from sim.metrics import (
    SAMPLED_TARGETS,
    TARGET_METRICS,
    Metric,
    describe_target,
    metric,
    needs,
    target_band,
    target_status,
)

# ---------------------------------------------------------------- registry metrics


def estimate_metrics(values: pd.DataFrame, metrics: list[Metric]) -> pd.DataFrame:
    """Each metric's value on one run's game values, with the 95% interval its `interval` names.

    The value is the metric's function of the column means (as in sweeps and
    comparisons). "mean" and "wilson" metrics are the mean of their first
    column plus a fixed offset: the interval of that column's mean, shifted by
    the offset. "bootstrap" metrics get the delta-method interval (the gradient
    of the metric's function at the means and the per-game covariance: one pass
    over the games, so chunk moments merged give the same; within a few percent
    of the percentile bootstrap's width at run sizes), balance its joint
    interval. Columns: metric, label, unit, interval, value, lo, hi, n (games).
    """
    return metrics_from_moments(Moments.of(values), metrics)


def metrics_from_moments(moments: Moments, metrics: list[Metric]) -> pd.DataFrame:
    """`estimate_metrics` from the moments of the game values (merged chunk by chunk)."""
    return estimate_from_moments(moments, metrics, balance_from_moments)


def moment_metrics(moments: Moments, names: Iterable[str]) -> pd.DataFrame:
    """`metrics_from_moments` of the named registry metrics."""
    return metrics_from_moments(moments, [metric(n) for n in names])


def _seat_no(column: str) -> int:
    return int(column.removeprefix("seat"))


def run_metrics(
    games: pd.DataFrame, players: pd.DataFrame | None, names: Iterable[str]
) -> pd.DataFrame:
    """`estimate_metrics` of the named registry metrics, reading only the columns they need."""
    metrics = [metric(n) for n in names]
    values = game_values(games, players, columns=needs(metrics))
    return estimate_metrics(values, metrics)


def n_seats(players: pd.DataFrame) -> int:
    """Number of seats (players per game) in a players frame."""
    return int(players["seat"].nunique())


def _share_row(values, clusters=None) -> dict:
    """win_share, lo, hi, n of win-share values (clustered by game when given)."""
    e = win_share_ci(values) if clusters is None else clustered_mean_ci(values, clusters)
    return {"win_share": e.value, "lo": max(0.0, e.lo), "hi": min(1.0, e.hi), "n": e.n}


def seat_win_shares(players: pd.DataFrame, moments: Moments | None = None) -> pd.DataFrame:
    """Win share per seat with its 95% interval, n games, the fair 1/n and the gap to it
    (from `moments` of every game when given)."""
    fair = 1 / n_seats(players)
    if moments is not None:
        rows = []
        for seat in sorted(players["seat"].unique()):
            e = share_estimate(moments, f"seat{seat}")
            rows.append({"seat": seat, "win_share": e.value, "lo": e.lo, "hi": e.hi, "n": e.n})
    else:
        rows = [
            {"seat": seat, **_share_row(g["win_share"].to_numpy())}
            for seat, g in players.groupby("seat", sort=True)
        ]
    out = pd.DataFrame(rows)
    out["fair"] = fair
    out["vs_fair"] = out["win_share"] - fair
    return out


def policy_win_shares(players: pd.DataFrame, moments: Moments | None = None) -> pd.DataFrame:
    """Win share per seat of each policy (clustered by game); n counts seat-games.

    With `moments` of every game (players may then be a sample): the mean over games
    of each game's mean share of the policy's seats, with the t interval over games
    (the same as the clustered row mean when every game seats the policy equally often,
    as a line-up does), n its seat-games."""
    fair = 1 / n_seats(players)
    rows = []
    sampled = players["game"].nunique()
    for policy, g in players.groupby("policy", sort=True, observed=True):
        if moments is not None and f"policy:{policy}" in moments.columns:
            e = mean_estimate(moments, f"policy:{policy}", (0.0, 1.0))
            per_game = len(g) / sampled  # seats the policy plays in a game
            row = {
                "win_share": e.value,
                "lo": max(0.0, e.lo),
                "hi": min(1.0, e.hi),
                "n": int(round(per_game * moments.n)),
            }
            games = int(round(g["game"].nunique() / sampled * moments.n))
        else:
            row = _share_row(g["win_share"].to_numpy(), g["game"].to_numpy())
            games = int(g["game"].nunique())
        rows.append({"policy": policy, **row, "games": games})
    out = pd.DataFrame(rows)
    out["fair"] = fair
    out["vs_fair"] = out["win_share"] - fair
    return out


def matchups(players: pd.DataFrame) -> pd.DataFrame:
    """Policy x opponent policy: row's win share in games where the opponent also sits.

    `beats` is how often a seat of the row policy finishes above a seat of the
    opponent policy in the same game (a tie counts 1/2), which exposes
    rock-paper-scissors that one overall ranking hides. On the diagonal the
    opponent is another seat of the same policy (win share only). Every ordered pair of
    seats comes from a games x seats grid of the table (no join of the table with itself).
    """
    policy = pd.Categorical(players["policy"])  # the policies in the table's order
    games, row = np.unique(players["game"].to_numpy(), return_inverse=True)
    seat = players["seat"].to_numpy(np.int64)
    grid = np.full((len(games), int(seat.max()) + 1 if len(seat) else 0), -1)
    grid[row, seat] = policy.codes  # each game's seats' policies (-1: no such seat)
    score = np.zeros(grid.shape)
    score[row, seat] = players["score"].to_numpy(float)
    win = np.zeros(grid.shape)
    win[row, seat] = players["win_share"].to_numpy(float)
    beats = np.sign(score[:, :, None] - score[:, None, :]) / 2 + 0.5  # [game, seat, other]
    other = ~np.eye(grid.shape[1], dtype=bool)
    kinds = len(policy.categories)
    counts = (grid[:, :, None] == np.arange(kinds)).sum(axis=1)  # [game, policy]
    rows = []
    for a, name_a in enumerate(policy.categories):
        for b, name_b in enumerate(policy.categories):
            need = 2 if a == b else 1
            met = (counts[:, a] >= 1) & (counts[:, b] >= need)
            mine = (grid == a) & met[:, None]
            share = _share_row(win[mine], np.broadcast_to(games[:, None], grid.shape)[mine])
            row = {"policy": name_a, "opponent": name_b, "games": int(met.sum()), **share}
            pair = (grid == a)[:, :, None] & (grid == b)[:, None, :] & other
            if a != b and pair.any():
                at = np.broadcast_to(games[:, None, None], pair.shape)[pair]
                e = clustered_mean_ci(beats[pair], at)
                row.update(beats=e.value, beats_lo=e.lo, beats_hi=e.hi, pairs=e.n)
            rows.append(row)
    return pd.DataFrame(rows)


def matchup_matrix(table: pd.DataFrame, value: str = "win_share") -> pd.DataFrame:
    """The long `matchups` table as a policy x opponent grid of one column."""
    return table.pivot(index="policy", columns="opponent", values=value)


def seat_share_matrix(players: pd.DataFrame) -> np.ndarray:
    """Games x seats array of win shares (seat order), for bootstraps over games."""
    return players.pivot(index="game", columns="seat", values="win_share").to_numpy()


def first_player_advantage(players: pd.DataFrame) -> Estimate:
    """Seat 0's win share minus the fair 1/n, with its interval and n games (the registry's)."""
    games = pd.DataFrame({"game": np.sort(players["game"].unique())})
    r = run_metrics(games, players, ["first_player_advantage"]).iloc[0]
    return Estimate(float(r["value"]), float(r["lo"]), float(r["hi"]), int(r["n"]))


_MEANING = {
    "balance": "1 − largest gap between two seats' win shares (1 = perfectly even)",
    "first_player_advantage": "seat 0's win share minus the fair 1/n",
    "shared_wins": "share of games won jointly by two or more seats",
}


def balance_metrics(
    games: pd.DataFrame, players: pd.DataFrame, *, moments: Moments | None = None
) -> pd.DataFrame:
    """Ludii-style metrics: balance, first-player advantage, shared wins (value, lo, hi, n).

    Balance, as Ludii defines it: 1 minus the largest gap between two seats' win
    rates. All three come from the registry (`estimate_metrics`).
    """
    if moments is not None:  # of every game, where games and players are a sample
        out = moment_metrics(moments, list(_MEANING))
    else:
        out = run_metrics(games, players, list(_MEANING))
    out["meaning"] = out["metric"].map(_MEANING)
    return out


def seats_confounded(players: pd.DataFrame) -> bool:
    """True when each seat always plays one policy and policies differ (no seat rotation)."""
    fixed = players.groupby("seat")["policy"].nunique().eq(1).all()
    return bool(fixed and players["policy"].nunique() > 1)


def seat_moments(moments: Moments) -> tuple[np.ndarray, np.ndarray, int]:
    """The seat shares' mean vector, per-game covariance and games, from game-value moments."""
    seats = sorted((c for c in moments.columns if c.startswith("seat")), key=_seat_no)
    mean, cov = moments.select(seats)
    return mean, cov, moments.n


def _moments_of_seats(players: pd.DataFrame) -> Moments:
    """The moments of the seat columns of a players table (its games are every game)."""
    games = pd.DataFrame({"game": np.sort(players["game"].unique())})
    return Moments.of(game_values(games, players, columns=("n_players", "seat*")))


def fairness(players: pd.DataFrame, moments: Moments | None = None) -> pd.DataFrame:
    """`seat_fairness` of the players table, or of every game's `moments` when given. Each
    seat's edge over the others, (n·share − 1)/(n − 1), gets its interval from the seat's
    own share interval (`seat_win_shares`), so the two never disagree."""
    m = _moments_of_seats(players) if moments is None else moments
    out = fairness_from_moments(*seat_moments(m))
    n = len(out)
    shares = [share_estimate(m, f"seat{seat}") for seat in out["seat"]]
    out["lo"] = [(n * e.lo - 1) / (n - 1) for e in shares]
    out["hi"] = [(n * e.hi - 1) / (n - 1) for e in shares]
    return out


@dataclass(frozen=True)
class SeatVerdict:
    """The seat verdict as data: seat 0's share with the interval the call rests on, its call
    ('advantage', 'disadvantage', 'within noise', or None without seat rotation), the
    joint test that all seats win equally (p, None with two seats: the same question), and
    whether the two agree; `text` is the sentence of the report and summary.json."""

    share: Estimate
    fair: float
    call: str | None
    joint_p: float | None
    agree: bool
    text: str


def verdict(
    players: pd.DataFrame, moments: Moments | None = None, games: pd.DataFrame | None = None
) -> str:
    """The seat verdict's sentence (`seat_verdict`)."""
    return seat_verdict(players, moments, games).text


def seat_verdict(
    players: pd.DataFrame, moments: Moments | None = None, games: pd.DataFrame | None = None
) -> SeatVerdict:
    """A plain sentence on seat fairness that says which test each of its words rests on.

    Two questions, each at 5%. Is there a first-player advantage? Seat 0's win share with
    its own 95% interval, the one printed (and `first_player_advantage`'s in summary.json,
    plus 1/n): real when the interval leaves out the fair 1/n. Do all seats win equally
    (more than two seats)? The joint Wald test, and the seats that stand apart by its
    step-down (`seat_fairness`). When the two answers differ (the joint test rejects
    while seat 0's interval holds its fair share, or the other way round), the sentence
    says so in plain words. With several policies, seat 0's edge adjusted for policy
    follows; without seat rotation no seat verdict is given at all. With `moments` (of
    every game; players may then be a sample) the seat numbers and tests come from the
    moments and only the policy adjustment from players. A real first-player edge is
    split into its extra-turn and equal-turn parts when seat 0 takes an extra turn in
    most games (from `moments`, else from `games` and players).
    """
    n = n_seats(players)
    fair = 1 / n
    m = _moments_of_seats(players) if moments is None else moments
    short, e, tests = seat_call(players, m)
    head = f"seat 0 wins {e.value:.1%} [{e.lo:.1%}, {e.hi:.1%}] against a fair {fair:.0%}"
    if short == "confounded":
        text = (
            f"{head} ({e.n:,} games); seats were not rotated and each seat always played the"
            " same policy, so seat and policy effects are mixed: no seat verdict is given"
        )
        return SeatVerdict(e, fair, None, None, True, text)
    call = "within noise" if short in ("noise", "differ") else short
    said = CALL_WORDS[call]
    joint_p, agree = None, True
    if tests is None:  # two seats: the joint test and seat 0's contrast are its interval
        text = f"{head}: {said} ({e.n:,} games, seat 0's 95% interval)"
    else:
        a, group, seat0 = tests.attrs, tests.attrs["group"], tests.iloc[0]
        joint_p = float(a["p"])
        rejects = joint_p < 0.05
        agree = rejects == (call != "within noise")
        text = (
            f"{head}: {said} by seat 0's own 95% interval ({e.n:,} games; seat 0 against the"
            f" others {_pp(seat0['vs_others'])} [{_num(seat0['lo'])}, {_num(seat0['hi'])}])"
        )
        joint = (
            f"the joint test that all {n} seats win equally (chi²({a['df']}) ="
            f" {a['chi2']:.1f}, p = {joint_p:.2g})"
        )
        apart = tests.loc[tests["apart"], "seat"].tolist()
        if agree:
            text += f"; {joint} {'rejects' if rejects else 'agrees: within noise'}"
        elif rejects:
            text += (
                f"; the two tests disagree: {joint} rejects, so the seats do differ, but seat"
                " 0's own interval holds its fair share: the gap lies among the other seats"
            )
        else:
            text += (
                f"; the two tests disagree: seat 0's own interval leaves out its fair share,"
                f" but {joint} does not reject: across all {n} seats the gap is within noise"
            )
        if rejects and apart:
            text += f"; seats apart from the rest by the step-down tests: {_seats(apart)}"
            if len(group["seats"]) > 1:
                text += (
                    f"; seats {_seats(group['seats'])} win equally among themselves"
                    f" (chi²({group['df']}) = {group['chi2']:.1f}, p = {group['p']:.2g})"
                )
    if call != "within noise" and (moments is not None or games is not None):
        text += _turn_parity_clause(moments, games, players)
    if players["policy"].nunique() > 1:
        text += "; " + _policy_adjusted(players)
        if moments is not None and players["game"].nunique() < moments.n:
            text += f" (from a sample of {players['game'].nunique():,} games)"
    return SeatVerdict(e, fair, call, joint_p, agree, text)


def _seats(seats) -> str:
    return ", ".join(str(k) for k in seats)


# The seat verdict's calls on seat 0 as the long verdict writes them.
CALL_WORDS = {
    "advantage": "a real first-player advantage",
    "disadvantage": "a real first-player disadvantage",
    "within noise": "within noise",
}


def seat_call(
    players: pd.DataFrame, moments: Moments | None = None
) -> tuple[str, Estimate, pd.DataFrame | None]:
    """The seat verdict's call, seat 0's win share and the fairness tests it rests on (the
    one rule `seat_verdict` and the pages' first sentences share, so they never disagree).

    The call is "confounded" (seats not rotated, each seat always one policy: no
    verdict), "advantage" or "disadvantage" (seat 0's own 95% interval leaves out the
    fair 1/n), "differ" (seat 0's interval holds its fair share but the joint test that
    all seats win equally rejects at 5%: the gap lies among the other seats) or "noise".
    The tests (`fairness`) are None with two seats (the same question) or confounded seats.
    """
    fair = 1 / n_seats(players)
    m = _moments_of_seats(players) if moments is None else moments
    e = share_estimate(m, "seat0")
    if seats_confounded(players):
        return "confounded", e, None
    call = "advantage" if e.lo > fair else "disadvantage" if e.hi < fair else "noise"
    if n_seats(players) == 2:
        return call, e, None
    tests = fairness(players, m)
    if call == "noise" and tests.attrs["p"] < 0.05:
        call = "differ"
    return call, e, tests


EXTRA_TURN_MOST = 0.5  # seat 0 takes an extra turn in at least this share of games


def seat0_turn_split(
    moments: Moments | None, games: pd.DataFrame | None = None, players: pd.DataFrame | None = None
) -> dict | None:
    """Seat 0's edge split by turn parity, when it takes an extra turn in most games (else
    None, and None when turns taken were not recorded): `extra` (the share of games with
    its extra turn), `turn` and `equal` (the parts of its edge from the extra turn and at
    equal turns: registry metrics `turn_edge.seat0` and `equal_turn_edge.seat0`, each
    {value, lo, hi}; they add up to the edge) and `mostly_turn` (the turn part is real and
    larger than the equal-turn part: a deck-size or end-rule matter, not a card-value one)."""
    names = ["extra_turn_share.seat0", "turn_edge.seat0", "equal_turn_edge.seat0"]
    if moments is not None and "extra0" not in moments.columns:
        return None  # turns taken were not recorded (tables of older runs, hand-made frames)
    if moments is None and (games is None or "turns_taken" not in players.columns):
        return None
    if moments is not None:
        est = moment_metrics(moments, names).set_index("metric")
    else:
        est = run_metrics(games, players, names).set_index("metric")
    extra, turn, equal = (
        {k: float(est.loc[name, k]) for k in ("value", "lo", "hi")} for name in names
    )
    if not extra["value"] >= EXTRA_TURN_MOST:
        return None
    turn_real = turn["lo"] > 0 or turn["hi"] < 0
    mostly = bool(turn_real and abs(turn["value"]) > abs(equal["value"]))
    return {"extra": extra["value"], "turn": turn, "equal": equal, "mostly_turn": mostly}


def _turn_parity_clause(
    moments: Moments | None, games: pd.DataFrame | None = None, players: pd.DataFrame | None = None
) -> str:
    """'; of that edge, its extra turn ... at equal turns ...' when seat 0 takes an extra turn
    in most games: what looks like a first-player edge may be turn parity (a deck-size
    matter, not card values); see `seat0_turn_split`."""
    split = seat0_turn_split(moments, games, players)
    if split is None:
        return ""
    turn, equal = split["turn"], split["equal"]
    text = (
        f"; seat 0 takes an extra turn in {split['extra']:.0%} of games: of its edge,"
        f" {_pp(turn['value'])} [{_num(turn['lo'])}, {_num(turn['hi'])}] comes from the extra"
        f" turn and {_pp(equal['value'])} [{_num(equal['lo'])}, {_num(equal['hi'])}] is left at"
        " equal turns"
    )
    if split["mostly_turn"]:
        text += " (mostly turn parity: a deck-size or end-rule matter, not a card-value one)"
    return text


def _pp(share: float) -> str:
    """A difference of shares in percentage points: '+1.2 pp'."""
    return f"{share * 100:+.1f} pp"


def _num(share: float) -> str:
    """An interval end of a difference of shares, in percentage points without the unit."""
    return f"{share * 100:+.1f}"


def _policy_adjusted(players: pd.DataFrame) -> str:
    """Seat 0's edge adjusted for policy, and per policy when the edge differs between them."""
    effects = seat_effects(players)
    pooled = effects[effects["policy"].isna()].iloc[0]
    text = (
        f"adjusted for policy (each policy against itself in the other seats), seat 0's edge is"
        f" {_pp(pooled['edge'])} [{_num(pooled['lo'])}, {_num(pooled['hi'])}]"
    )
    per = effects[effects["policy"].notna()]
    p = effects.attrs["interaction_p"]
    parts = ", ".join(f"{r.policy} {_pp(r.edge)}" for r in per.itertuples())
    if p < 0.05:
        text += f"; it differs between policies (interaction p = {p:.2g}): {parts}"
    else:
        text += f" ({parts}; no evidence it differs between policies, p = {p:.2g})"
    return text


def headline(
    games: pd.DataFrame,
    players: pd.DataFrame,
    *,
    moments: Moments | None = None,
    noise: dict[str, float] | None = None,
    kingmaking: dict | None = None,
    sampled: bool = False,
) -> pd.DataFrame:
    """Every metric a config may target (sim.metrics.TARGET_METRICS), by its registry definition
    (from `moments` of every game when given: then games and players may be a sample).
    `noise` (a feel model's own noise: `sim.feel.model.model_noise`) widens the interval of
    each metric it names (`with_model_noise`). With `kingmaking` (a run's `kingmaking.json`,
    `sim.table.kingmaking`), or `sampled` (a target names it), a kingmaking row as well: the
    sample's rate, or no value where it was not measured.

    Columns as `estimate_metrics`: metric, label, unit, interval, value, lo, hi, n.
    """
    if moments is not None:
        head = moment_metrics(moments, TARGET_METRICS)
    else:
        head = run_metrics(games, players, TARGET_METRICS)
    head = with_model_noise(head, noise or {})
    if kingmaking is not None or sampled:
        head = pd.concat([head, pd.DataFrame([kingmaking_row(kingmaking)])], ignore_index=True)
    return head


def with_model_noise(head: pd.DataFrame, noise: dict[str, float]) -> pd.DataFrame:
    """The rows of metrics measured with a fitted yardstick (the feel: each game's chances
    come from a model), their interval widened by the yardstick's own noise: each side's
    half-width and z * sd added in quadrature (sd: the standard deviation of the metric
    between models fitted alike)."""
    head = head.copy()
    for i, row in head.iterrows():
        sd = noise.get(row["metric"])
        if sd is None or not np.isfinite(row["value"]):
            continue
        extra = (Z95 * sd) ** 2
        head.loc[i, "lo"] = row["value"] - np.sqrt((row["value"] - row["lo"]) ** 2 + extra)
        head.loc[i, "hi"] = row["value"] + np.sqrt((row["hi"] - row["value"]) ** 2 + extra)
        head.loc[i, "interval"] = f"{row['interval']} + the model's own noise"
    return head


def check_targets(head: pd.DataFrame, targets: dict) -> pd.DataFrame:
    """Each config target as an equivalence test: 'met', 'missed' or 'unclear'.

    A target is met only when the whole 95% interval lies inside its band
    (`sim.metrics.target_band`: a number within the metric's default margin,
    `{value, within}`, or `[lo, hi]`): two one-sided tests at 2.5% each (TOST).
    It is missed when the whole interval lies outside the band, and unclear
    otherwise (more games would tell). `head` is `headline`'s table; a name that
    is not a target metric, or not in `head`, is a ValueError that says so.
    Columns: metric, target (as written), band_lo, band_hi, wanted (in words),
    value, lo, hi, status.
    """
    rows = []
    measured = head.set_index("metric")
    for name, target in targets.items():
        if name not in TARGET_METRICS and name not in SAMPLED_TARGETS:
            valid = ", ".join(TARGET_METRICS + SAMPLED_TARGETS)
            raise ValueError(f"targets.{name}: not a target metric; valid: {valid}")
        if name not in measured.index:
            raise ValueError(f"targets.{name}: not measured in this headline table")
        v, lo, hi = measured.loc[name, ["value", "lo", "hi"]]
        band = target_band(name, target)
        rows.append(
            {
                "metric": name,
                "target": target,
                "band_lo": band[0],
                "band_hi": band[1],
                "wanted": describe_target(name, target),
                "value": v,
                "lo": lo,
                "hi": hi,
                "status": target_status(lo, hi, band),
            }
        )
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- the run's verdicts, as data


def run_summary(
    games: pd.DataFrame,
    players: pd.DataFrame,
    targets: dict | None = None,
    *,
    moments: Moments | None = None,
    noise: dict[str, float] | None = None,
    kingmaking: dict | None = None,
) -> dict:
    """Every headline metric with its estimate, interval, n and verdict, as plain data.

    What `summary.json` in a run folder holds: each target metric (`headline`)
    with its value, 95% interval, n games and interval method, and where the
    study sets a target for it, the band and the equivalence verdict
    (`check_targets`); the seat fairness tests (`seat_fairness`: the joint test
    and the seats that stand apart, or no seat verdict without rotation); and
    the one-sentence verdict of the report. With `moments` of every game, games and
    players may be a sample (see `verdict`).
    """
    sampled = bool(set(SAMPLED_TARGETS) & set(targets or {}))  # a target on kingmaking
    head = headline(
        games, players, moments=moments, noise=noise, kingmaking=kingmaking, sampled=sampled
    )
    checks = check_targets(head, targets).set_index("metric") if targets else None
    metrics = []
    for row in head.itertuples():
        item = {
            "metric": row.metric,
            "label": row.label,
            "unit": row.unit,
            "value": _plain(row.value),
            "lo": _plain(row.lo),
            "hi": _plain(row.hi),
            "n": int(row.n),
            "interval": f"95% {row.interval}",
        }
        if checks is not None and row.metric in checks.index:
            c = checks.loc[row.metric]
            item.update(
                target=c["wanted"],
                band=[_plain(c["band_lo"]), _plain(c["band_hi"])],
                verdict=c["status"],
                verdict_test="equivalence (TOST): met only when the whole interval is in the band",
            )
        metrics.append(item)
    said = seat_verdict(players, moments, games)
    seats: dict = {"verdict": "none: seats not rotated"} if seats_confounded(players) else {}
    if not seats and n_seats(players) > 1:
        f = fairness(players, moments)
        a = f.attrs
        seats = {
            "joint_test": {"chi2": _plain(a["chi2"]), "df": int(a["df"]), "p": _plain(a["p"])},
            "apart": [int(k) for k in f.loc[f["apart"], "seat"]],
            "method": a["method"],
            "win_share": {int(r.seat): _plain(r.win_share) for r in f.itertuples()},
            "seat0": {
                "win_share": _plain(said.share.value),
                "lo": _plain(said.share.lo),
                "hi": _plain(said.share.hi),
                "fair": said.fair,
                "call": said.call,
                "test": "seat 0's own 95% interval (first_player_advantage's, plus 1/n)",
            },
            "tests_agree": said.agree,
        }
    return {
        "games": int(moments.n if moments is not None else len(games)),
        "verdict": said.text,
        "metrics": metrics,
        "seats": seats,
    }


def _plain(x) -> float | None:
    """A float for JSON (None for NaN)."""
    x = float(x)
    return None if np.isnan(x) else x
