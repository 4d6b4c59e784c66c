"""Balance analysis of a run's tables: pure functions, DataFrame in, DataFrame out.

In a notebook: `run = sim.runner.load_run("runs/base-...")`, then e.g.
`seat_win_shares(run.players)` or `card_impact(run.cards, run.players)`.
"""

from __future__ import annotations

from sim.analysis.balance import (
    balance_metrics,
    check_targets,
    distribution,
    end_triggers,
    first_player_advantage,
    flow_summary,
    headline,
    matchup_matrix,
    matchups,
    points_breakdown,
    policy_win_shares,
    score_summary,
    seat_win_shares,
    seats_confounded,
    verdict,
)
from sim.analysis.cards import card_impact, card_impact_adjusted, held, played
from sim.analysis.seats import balance_interval, seat_effects, seat_fairness
from sim.analysis.stats import (
    Estimate,
    bootstrap_ci,
    clustered_diff_ci,
    clustered_mean_ci,
    mean_ci,
    wilson,
    win_share_ci,
)

__all__ = [
    "Estimate",
    "balance_metrics",
    "bootstrap_ci",
    "balance_interval",
    "card_impact",
    "card_impact_adjusted",
    "check_targets",
    "clustered_diff_ci",
    "clustered_mean_ci",
    "distribution",
    "end_triggers",
    "first_player_advantage",
    "flow_summary",
    "headline",
    "held",
    "matchup_matrix",
    "matchups",
    "mean_ci",
    "played",
    "points_breakdown",
    "policy_win_shares",
    "score_summary",
    "seat_effects",
    "seat_fairness",
    "seat_win_shares",
    "seats_confounded",
    "verdict",
    "wilson",
    "win_share_ci",
]
