"""Balance analysis of a run's tables: pure functions, DataFrame in, DataFrame out.

In a notebook: `run = sim.load_run("runs/base-...")`, then e.g.
`seat_win_shares(run.players)` or `card_impact(run.cards, run.players)`.
"""

from __future__ import annotations

from sim.analysis.balance import (
    balance_metrics,
    check_targets,
    fairness,
    first_player_advantage,
    headline,
    matchup_matrix,
    matchups,
    policy_win_shares,
    seat_win_shares,
    seats_confounded,
    verdict,
)
from sim.analysis.cards import card_impact, card_impact_adjusted, card_impacts, held, played
from sim.analysis.flow import (
    distribution,
    end_triggers,
    flow_summary,
    points_breakdown,
    score_summary,
)
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
from sim.analysis.tension import game_trace, margin_bands, tension_summary, trace_summary
from sim.analysis.turn_split import (
    end_structure,
    parity_note,
    turn_decomposition,
    turn_wins,
    turns_per_seat,
)
from sim.analysis.usage import card_usage, dead_card_notes, eviction_summary, evictions

__all__ = [
    "Estimate",
    "balance_metrics",
    "bootstrap_ci",
    "balance_interval",
    "card_impact",
    "card_impact_adjusted",
    "card_impacts",
    "card_usage",
    "check_targets",
    "clustered_diff_ci",
    "clustered_mean_ci",
    "dead_card_notes",
    "distribution",
    "end_structure",
    "fairness",
    "end_triggers",
    "eviction_summary",
    "evictions",
    "first_player_advantage",
    "flow_summary",
    "game_trace",
    "headline",
    "held",
    "margin_bands",
    "matchup_matrix",
    "matchups",
    "mean_ci",
    "parity_note",
    "played",
    "points_breakdown",
    "policy_win_shares",
    "score_summary",
    "seat_effects",
    "seat_fairness",
    "seat_win_shares",
    "seats_confounded",
    "tension_summary",
    "trace_summary",
    "turn_decomposition",
    "turn_wins",
    "turns_per_seat",
    "verdict",
    "wilson",
    "win_share_ci",
]
