"""The run page's "How it feels": what the chance curves say per game (the feel columns of
`games.parquet`, `sim.feel.chances`), a few games' curves and how well the chances are
calibrated (`winprob.parquet`: the chances of a sample of the run's games, which the model,
fitted on pilot games of their own, never saw)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from sim.analysis.stats import mean_ci, wilson
from sim.feel.chances import COMEBACK, DECIDED
from sim.metrics import FEEL_COLUMNS
from sim.report.chart import Chart
from sim.report.figures import PALETTE
from sim.report.html import ci, num, svg, table, text

MEANINGS = {
    "suspense": "how much the chances were expected to move, summed over the rounds",
    "surprise": "how much the chances did move, summed over the rounds",
    "decisive_moment": f"share of the game after which the winner's chance stayed at or above"
    f" {DECIDED:.0%}",
    "largest_swing": "the largest change of one seat's chance in one round",
    "comeback_by_chance": f"games whose winner's chance was once below {COMEBACK:.0%} of a fair"
    " share",
}
SHARES = {"decisive_moment", "comeback_by_chance"}
BINS = 10  # of the reliability check


def feel_section(
    felt: tuple[pd.DataFrame, pd.DataFrame] | None,
    turns: pd.DataFrame,
    kingmaking: dict | None = None,
) -> dict:
    """Section 8 from `felt` (the games with their feel columns, and the chances of some:
    `sim.runs.chances.page_feel`): the sentence, the per-game table, the calibration check
    and the figure."""
    if felt is None:
        return {
            "few": "The chances of winning come from games played by the run's own players;"
            " a page never imports a designer's own policy, so this line-up's are not shown."
        }
    games, chances = felt
    rows = []
    for name in FEEL_COLUMNS:
        values = games[name].to_numpy(float)
        e = wilson(float(values.sum()), len(values)) if name in SHARES else mean_ci(values)
        rows.append({"metric": name, "mean": e.value, "lo": e.lo, "hi": e.hi, "n": e.n})
    frame = pd.DataFrame(rows).assign(meaning=lambda f: f["metric"].map(MEANINGS))
    decided, comeback = rows[2], rows[4]
    check = calibration(chances, turns)
    lead = (
        f"A game is decided, by the chances a spectator would give, {decided['mean']:.0%} of the"
        f" way through on average (95% [{decided['lo']:.0%}, {decided['hi']:.0%}]); in"
        f" {comeback['mean']:.0%} of games [{comeback['lo']:.0%}, {comeback['hi']:.0%}] the"
        f" winner's chance was once below {COMEBACK:.0%} of a fair share."
    )
    return {
        "lead": lead,
        "table": table(
            frame,
            [
                ("per game", text("metric")),
                ("mean [95%]", lambda r: ci("mean", as_pct=r["metric"] in SHARES)(r)),
                ("n games", num("n", 0)),
                ("definition", text("meaning")),
            ],
        ),
        "calibration": (
            f"the chances of {check['games']:,} games (held out: the model learnt from pilot"
            f" games of its own) against what happened: expected calibration error"
            f" {check['ece']:.3f} over {len(check['bins'])} bins; Brier score"
            f" {check['brier']:.3f} against {check['brier_lead']:.3f} for"
            ' "the leaders share the win".'
        ),
        "figure": svg(feel_figure(chances, games, check["bins"]), "feel"),
        "games": len(games),
        "kingmaking": kingmaking_text(kingmaking),
    }


def kingmaking_text(data: dict | None) -> str:
    """The kingmaking sample (`kingmaking.json`, `sim.table.kingmaking`) in a sentence, or
    how to measure it."""
    if data is None:
        return (
            "Kingmaking (does a seat that can no longer win decide who does?) is measured on"
            " request: sim report RUN_DIR --kingmaking (about a minute)."
        )
    if data["players"] <= 2:
        return "Kingmaking: none with two players (there is no other seat to crown)."
    if not data["examined"]:
        return (
            f"Kingmaking: in {data['games']} sampled games no seat decided with a chance"
            f" below {data['epsilon']:.0%}."
        )
    typical = ", ".join(
        f"{s['decision']} in the {s['phase']} phase ({s['count']})" for s in data["situations"]
    )
    return (
        f"Kingmaking: of {data['examined']} decisions taken by seats whose chance was below"
        f" {data['epsilon']:.0%} ({data['games']} sampled games), {data['rate']:.0%}"
        f" [{data['lo']:.0%}, {data['hi']:.0%}] crowned another winner: the actions led"
        f" clearly to different most-likely winners ({data['continuations']} paired"
        f" continuations per action, up to {data['actions']} actions)."
        + (f" Typically: {typical}." if typical else "")
    )


def outcome_rows(chances: pd.DataFrame) -> tuple[pd.DataFrame, pd.Series]:
    """The chances before each game's end (rows of `winprob.parquet`), and each row's
    outcome (the seat's win share: its chance at the game's last step)."""
    last = chances.groupby("game")["step"].transform("max").to_numpy()
    at_end = chances["step"].to_numpy() == last
    width = int(chances["seat"].max()) + 1 if len(chances) else 1
    key = chances["game"].to_numpy(np.int64) * width + chances["seat"].to_numpy(np.int64)
    end = pd.Series(chances["p"].to_numpy()[at_end], index=key[at_end])
    live = chances[~at_end]
    won = end.reindex(key[~at_end]).to_numpy()
    return live, pd.Series(won, index=live.index)


def calibration(chances: pd.DataFrame, turns: pd.DataFrame) -> dict:
    """States binned by predicted chance (mean predicted, mean outcome, count), the expected
    calibration error, the Brier score, and the Brier score of "the leaders share the win"
    (from the scores at the same steps)."""
    live, won = outcome_rows(chances)
    p = live["p"].to_numpy()
    bins = np.minimum((p * BINS).astype(int), BINS - 1)
    frame = pd.DataFrame({"bin": bins, "p": p, "won": won.to_numpy()})
    cal = frame.groupby("bin").agg(
        predicted=("p", "mean"), observed=("won", "mean"), n=("p", "size")
    )
    ece = float((cal["n"] * (cal["predicted"] - cal["observed"]).abs()).sum() / cal["n"].sum())
    # each live row's table score at its step (the turns rows of its round; step 0: 0)
    game, step, seat = (live[name].to_numpy() for name in ("game", "step", "seat"))
    mine = turns[np.isin(turns["game"].to_numpy(), np.unique(game))]
    rounds = int(max(mine["round"].max() if len(mine) else 0, step.max() if len(step) else 0))
    seats = int(max(mine["seat"].max() if len(mine) else 0, seat.max() if len(seat) else 0))

    def key(g, r, s) -> np.ndarray:
        return (np.asarray(g, np.int64) * (rounds + 1) + r) * (seats + 1) + s

    score = pd.Series(
        mine["score"].to_numpy(), index=key(mine["game"], mine["round"], mine["seat"])
    )
    s = pd.Series(score.reindex(key(game, step, seat)).fillna(0.0).to_numpy(), index=live.index)
    at = key(game, step, 0) // (seats + 1)  # each row's (game, step)
    lead = (s == s.groupby(at).transform("max")).astype(float)
    lead /= lead.groupby(at).transform("sum")
    return {
        "bins": cal.reset_index(),
        "ece": ece,
        "brier": float(np.mean((p - won.to_numpy()) ** 2)),
        "brier_lead": float(np.mean((lead.to_numpy() - won.to_numpy()) ** 2)),
        "games": int(chances["game"].nunique()),
    }


def feel_figure(chances: pd.DataFrame, games: pd.DataFrame, bins: pd.DataFrame) -> Chart:
    """The chance curves of the sampled games of least, median and most suspense; the
    reliability of the chances; the decisive moment against the game's length."""
    chart = Chart(9.5, 2.6, cols=5)
    sampled = games[games["game"].isin(chances["game"].unique())]
    order = sampled.sort_values(["suspense", "game"])["game"].to_numpy()
    picks = [order[0], order[len(order) // 2], order[-1]]
    titles = ("least suspense", "median suspense", "most suspense")
    for p, game, title in zip(chart.panels[:3], picks, titles, strict=True):
        g = chances[chances["game"] == game]
        for seat, line in g.groupby("seat"):
            p.line(line["step"], line["p"], PALETTE[seat % len(PALETTE)], 1, label=f"seat {seat}")
        p.title, p.y.limits, p.x.label, p.x.integer = f"game {game}: {title}", (0, 1), "round", True
    first = chart.panels[0]
    first.y.label, first.legend, first.legend_size = "chance of winning", "upper left", 6
    p = chart.panels[3]
    p.line([0, 1], [0, 1], "#999", 0.8)
    p.line(bins["predicted"], bins["observed"], PALETTE[0], marker="o")
    p.title, p.x.label, p.y.label = "calibration", "predicted", "observed"
    p.x.limits = p.y.limits = (0, 1)
    p = chart.panels[4]
    by = games.groupby("rounds")["decisive_moment"].agg(["mean", "size"]).reset_index()
    sizes = np.sqrt(np.clip(by["size"] / by["size"].max() * 40, 4, 40)) * 1.2  # area ~ games
    p.points(by["rounds"], by["mean"], PALETTE[0], sizes)
    p.title, p.x.label, p.y.limits, p.x.integer = (
        "decisive moment by length",
        "rounds",
        (0, 1),
        True,
    )
    return chart
