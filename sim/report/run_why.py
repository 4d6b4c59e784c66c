"""The run page's sections that show why: turn structure (who takes more turns, who ends the
game, turns against deck size), tension over the game, and what each card does."""

from __future__ import annotations

import pandas as pd

from sim import analysis as A
from sim import units
from sim.analysis.findings import deck_parity_text
from sim.config import StudyConfig
from sim.report import figures as F
from sim.report.html import card_text, ci, ci_pp, num, pct, share, svg, table, text
from sim.studies.run_page import PagePlays, representative_game


def turns_section(
    games: pd.DataFrame,
    players: pd.DataFrame,
    study: StudyConfig,
    plays: PagePlays,
    split: pd.DataFrame | None = None,
) -> dict:
    """Section 3: turns per seat, who ends the game, and the seat edge split by turn parity
    (`split`: the games' `turn_decomposition`, when the caller has it)."""
    counts = A.turns_per_seat(players)
    split = A.turn_decomposition(games, players) if split is None else split
    wins = A.turn_wins(players)
    end = A.end_structure(games)
    scan = plays.deck_scan
    final = end["final"].iloc[0]
    return {
        "note": A.parity_note(games, players, split),
        "split": table(
            split,
            [
                ("seat", text("seat")),
                ("extra-turn share", pct("extra_share")),
                ("edge: win share − 1/n [95%]", ci_pp("edge", "edge_lo", "edge_hi")),
                ("at equal turns [95%]", ci_pp("equal_part", "equal_lo", "equal_hi")),
                ("from extra turns [95%]", ci_pp("turn_part", "turn_lo", "turn_hi")),
                ("win share in equal-turn games [95%]", ci("win_level", "level_lo", "level_hi")),
                ("n equal-turn games", num("n_level", 0)),
            ],
        ),
        "wins": table(
            wins,
            [
                ("seat", text("seat")),
                ("mean turns", num("turns")),
                ("extra turn [95%]", ci("extra_share", "extra_lo", "extra_hi")),
                ("win share with it [95%]", ci("win_extra", "win_extra_lo", "win_extra_hi")),
                ("n with", num("n_extra", 0)),
                ("win share without [95%]", ci("win_equal", "win_equal_lo", "win_equal_hi")),
                ("n without", num("n_equal", 0)),
            ],
        ),
        "trigger": table(
            end["trigger"],
            [
                ("end trigger", text("end_trigger")),
                ("by seat", lambda r: "setup" if r["trigger_seat"] < 0 else str(r["trigger_seat"])),
                ("games", num("games", 0)),
                ("share [95%]", ci("share")),
            ],
        ),
        "last": table(
            end["last"],
            [
                ("seat", text("last_seat")),
                ("games", num("games", 0)),
                ("takes the last turn [95%]", ci("share")),
            ],
        ),
        "final": f"{final['mean']:.2f} [{final['lo']:.2f}, {final['hi']:.2f}] turns"
        f" (median {final['median']:g}, {final['min']:g}–{final['max']:g})",
        "figure": svg(F.turn_panels(counts, split, end["last"]), "turns"),
        "deck_figure": svg(F.turns_by_deck(scan), "turns-deck") if len(scan) else None,
        "deck": table(
            scan,
            [
                ("box cards", text("boxes")),
                ("turns per game", num("turns")),
                ("turns per seat", lambda r: " / ".join(f"{x:.2f}" for x in r["seat_turns"])),
                ("equal turns", pct("equal")),
                ("seat 0 extra", pct("extra0")),
                ("games", num("games", 0)),
            ],
        ),
        "deck_games": plays.deck_games,
        "deck_fix": deck_parity_text(scan, sum(study.game.deck.boxes.values())),
        "deck_replaced": bool(len(scan) and scan["replaced"].any()),
        "config_boxes": sum(study.game.deck.boxes.values()),
    }


def tension_section(games: pd.DataFrame, turns: pd.DataFrame) -> dict:
    """Section 7: lead changes, when the game was decided, comebacks, the trace's shape."""
    summary = A.tension_summary(games)
    index = representative_game(games)
    fmt_value = {
        "lead_changes": False,
        "decided_at": True,
        "comeback": True,
        "open_before_last": True,
    }
    labels = {
        "lead_changes": "lead changes per game",
        "decided_at": "decided at",
        "comeback": "comeback rate",
        "open_before_last": "still open before the last round",
    }
    summary["label"] = summary["metric"].map(labels)
    return {
        "table": table(
            summary,
            [
                ("per game", text("label")),
                ("mean [95%]", lambda r: ci("mean", as_pct=fmt_value[r["metric"]])(r)),
                ("n games", num("n", 0)),
                ("definition", text("meaning")),
            ],
        ),
        "figure": svg(
            F.tension_panels(A.game_trace(turns, index), index, A.margin_bands(turns), games),
            "tension",
        ),
        "rounds": f"{games['rounds'].mean():.1f}",
    }


def _first_turn(r: dict) -> str:
    """Mean turn of a seat's first play of the card, and that as a share of the game."""
    if pd.isna(r["first_turn"]):
        return "–"
    return f"{r['first_turn']:.1f} ({units.pct(r['first_share'])})"


def usage_section(cards: pd.DataFrame, games: pd.DataFrame, players: pd.DataFrame) -> dict:
    """Section 9: what happens to each card kind: held, played, stuck in hand, dead, wasted."""
    usage = A.card_usage(cards, games)
    princess = A.eviction_summary(players)
    items = usage[usage["kind"].isin(["toy", "sprayer"])]
    return {
        "notes": A.dead_card_notes(usage),
        "table": table(
            usage,
            [
                ("card", card_text()),
                ("held per game", num("held")),
                ("dealt", num("dealt")),
                ("drawn", num("drawn")),
                ("played", num("played")),
                ("in hand at the final phase", num("final_hand")),
                ("dead per game", num("dead")),
                ("dead rate (of copies) [95%]", ci("dead_rate", "dead_lo", "dead_hi")),
                ("seat-games with a dead copy [95%]", ci("dead_games", "dg_lo", "dg_hi")),
                ("n seat-games held", num("n_held", 0)),
                ("first played, turn (share of game)", _first_turn),
            ],
        ),
        "landing": table(
            items,
            [
                ("item", card_text()),
                ("placed per game", num("played")),
                ("into a box the drawer leads", pct("into_led")),
                ("into a rival's box", pct("into_rival")),
                ("into a box nobody leads", pct("into_nobody")),
                ("wasted per game", num("dead")),
                ("n seat-games drawn", num("n_held", 0)),
            ],
        ),
        "evictions": table(
            A.evictions(players),
            [
                ("seat", text("seat")),
                (
                    "Princesses played per game",
                    ci(
                        "princesses_played",
                        "princesses_played_lo",
                        "princesses_played_hi",
                        as_pct=False,
                    ),
                ),
                (
                    "on its own cat",
                    ci("self_evictions", "self_evictions_lo", "self_evictions_hi", as_pct=False),
                ),
                (
                    "its cats evicted",
                    ci("cats_evicted", "cats_evicted_lo", "cats_evicted_hi", as_pct=False),
                ),
                ("n games", num("n", 0)),
            ],
        ),
        "princess": f"{princess['per_game']:.2f} [{princess['per_game_lo']:.2f},"
        f" {princess['per_game_hi']:.2f}] evictions per game;"
        + (
            f" {share(princess['own_share'])} [{share(princess['own_lo'])},"
            f" {share(princess['own_hi'])}] of them on the evicting seat's own cat"
            if not pd.isna(princess["own_share"])
            else " no Princess was played"
        ),
        "figure": svg(F.dead_card_bars(usage), "dead"),
    }
