"""The run page's "How it feels": each seat's chance of winning round by round (`sim.feel`),
what the curves say per game, and how well the chances are calibrated."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from sim.analysis.stats import mean_ci, wilson
from sim.feel.curves import COMEBACK, DECIDED, game_feel
from sim.feel.winprob import fit_chances
from sim.report.html import ci, num, svg, table, text

MEANINGS = {
    "suspense": "how much the chances were expected to move, summed over the rounds",
    "surprise": "how much the chances did move, summed over the rounds",
    "decisive_moment": f"share of the game after which the winner's chance stayed at or above"
    f" {DECIDED:.0%}",
    "largest_swing": "the largest change of one seat's chance in one round",
    "comeback": f"games whose winner's chance was once below {COMEBACK:.0%} of a fair share",
}


FEEL_GAMES = 2000  # games the section reads at most (evenly spaced): the chances' fit is costly
MIN_GAMES = 200  # fewer: each half's model would learn from too few games to judge the other


def feel_section(games: pd.DataFrame, players: pd.DataFrame, turns: pd.DataFrame) -> dict:
    """Section 8: the sentence, the per-game table, the calibration check and the figure."""
    ids = games["game"].to_numpy()
    if len(ids) < MIN_GAMES:
        return {
            "few": f"The chances are fitted to the outcomes of at least {MIN_GAMES} games (each"
            f" half of them judged by a model of the other half); this page reads {len(ids):,}."
        }
    keep = ids[:: max(1, len(ids) // FEEL_GAMES)][:FEEL_GAMES]
    games = games[games["game"].isin(keep)]
    players, turns = players[players["game"].isin(keep)], turns[turns["game"].isin(keep)]
    chances = fit_chances(turns, games, players)
    per = game_feel(chances.table)
    rows = []
    for name in ("suspense", "surprise", "decisive_moment", "largest_swing"):
        e = mean_ci(per[name].to_numpy(float))
        rows.append({"metric": name, "mean": e.value, "lo": e.lo, "hi": e.hi, "n": e.n})
    w = wilson(float(per["comeback"].sum()), len(per))
    rows.append({"metric": "comeback", "mean": w.value, "lo": w.lo, "hi": w.hi, "n": w.n})
    frame = pd.DataFrame(rows).assign(meaning=lambda f: f["metric"].map(MEANINGS))
    pct = {"decisive_moment", "comeback"}
    decided, comeback = rows[2], rows[4]
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
                ("mean [95%]", lambda r: ci("mean", as_pct=r["metric"] in pct)(r)),
                ("n games", num("n", 0)),
                ("definition", text("meaning")),
            ],
        ),
        "calibration": (
            f"Chances checked on held-out games (each half of the games judged by the model of"
            f" the other half): expected calibration error {chances.ece:.3f} over"
            f" {len(chances.calibration)} bins; Brier score {chances.brier:.3f} against"
            f' {chances.brier_lead:.3f} for "the leaders share the win".'
        ),
        "figure": svg(feel_figure(chances, per), "feel"),
        "games": len(per),
    }


def feel_figure(chances, per: pd.DataFrame) -> Figure:
    """Left: the chance curves of the games of least, median and most suspense; right: the
    reliability of the chances (predicted against observed, by bin)."""
    fig = Figure(figsize=(7.6, 2.6), layout="constrained")
    axes = fig.subplots(1, 4)
    order = per.sort_values("suspense")["game"].to_numpy()
    picks = [order[0], order[len(order) // 2], order[-1]]
    titles = ("least suspense", "median suspense", "most suspense")
    for ax, game, title in zip(axes[:3], picks, titles, strict=True):
        g = chances.table[chances.table["game"] == game]
        for seat, line in g.groupby("seat"):
            ax.plot(line["round"], line["p"], lw=1, label=f"seat {seat}")
        ax.set_title(f"game {game}: {title}", fontsize=8)
        ax.set_ylim(0, 1)
        ax.set_xlabel("round")
    axes[0].set_ylabel("chance of winning")
    axes[0].legend(fontsize=6, frameon=False)
    cal = chances.calibration
    ax = axes[3]
    ax.plot([0, 1], [0, 1], color="#999", lw=0.8)
    ax.plot(cal["predicted"], cal["observed"], marker="o", ms=3)
    ax.set_title("calibration", fontsize=8)
    ax.set_xlabel("predicted")
    ax.set_ylabel("observed")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    return fig
