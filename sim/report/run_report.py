"""The HTML balance report of one run folder: `write_report(run, plays)` (`sim report RUN_DIR`).

One self-contained file (inline CSS, inline SVG figures, no scripts, no
network). The numbers come from `sim.analysis`; this module only formats them.
"""

from __future__ import annotations

import html
import re
import sys
import time
from collections.abc import Callable
from concurrent.futures import Future
from datetime import datetime
from pathlib import Path

import pandas as pd
from markupsafe import Markup

from sim import analysis as A
from sim import units
from sim.analysis.answers import seat_answer
from sim.analysis.findings import run_headline
from sim.analysis.moments import Moments
from sim.analysis.stopping import page_lines
from sim.analysis.values import game_values
from sim.config import StudyConfig, dump_yaml
from sim.report import figures as F
from sim.report.html import (
    card_text,
    ci,
    ci_pp,
    metric_ci,
    num,
    pct,
    pp,
    share,
    svg,
    table,
    text,
    write_page,
)
from sim.report.run_feel import feel_section
from sim.report.run_why import tension_section, turns_section, usage_section
from sim.report.table_picture import draw_position
from sim.runs.chances import page_feel
from sim.runs.partials import run_data
from sim.runs.paths import KINGMAKING_FILE, RUN_FILE, page_path, replay_file
from sim.runs.storage import RunResult, read_json, saved_study
from sim.studies.run_page import PagePlays

SECTIONS = (
    ("summary", "Summary"),
    ("seats", "Seat balance"),
    ("turns", "Turn structure"),
    ("policies", "Policies"),
    ("scores", "Scores"),
    ("flow", "Game flow"),
    ("tension", "Tension over the game"),
    ("feel", "How it feels"),
    ("cards", "Card impact"),
    ("usage", "What each card does"),
    ("game", "A representative game"),
    ("config", "Config"),
)
# Every figure's key (its element id is fig-KEY); the policy ones only with several policies.
FIGURES = (
    "seats",
    "policies",
    "matchup-share",
    "matchup-beats",
    "score-dist",
    "margins",
    "points",
    "flow",
    "cards",
    "table",
    "turns",
    "turns-deck",
    "tension",
    "feel",
    "dead",
)
POLICY_FIGURES = ("policies", "matchup-share", "matchup-beats")


def write_report(
    run: RunResult,
    plays: PagePlays | Future,
    out_path: str | Path | None = None,
    force: bool = False,
    *,
    quiet: bool = False,
    feel: bool = True,
) -> Path:
    """Write the report of a finished run (what `sim run` holds at its end), with the played
    parts of its page (`sim.studies.run_page.page_plays`), and return its path.

    The registry metrics, seat tests and targets come from the run's per-chunk
    partial results (`sim.runs.partials`), merged: every game counts, and no table is
    loaded whole. The other sections read the rows of at most SAMPLE_GAMES games
    (evenly spaced whole chunks), and the page says so. The page is written
    atomically; a path that would overwrite something that is not a report is
    refused unless `force` (see `sim.runs.paths.check_report_path`). The run's plug-in
    policies are not imported: the report needs no player. Unless `quiet`, what it
    is doing goes to stderr.
    """
    say = progress(run, time.perf_counter(), quiet)
    study = saved_study(run.meta, Path(run.run_dir) / RUN_FILE, plugins=False)

    def context() -> dict:
        moments, view = run_data(run, say)
        say("analysing")
        felt = page_feel(run, view) if feel else None
        filled = report_context(view, study, moments, plays, feel, felt)
        filled["run_stamp"] = f"{run_finished(run.meta, run.run_dir)} {Path(run.run_dir).resolve()}"
        say("writing the page")
        return {"sections": SECTIONS, **filled}

    return write_page(page_path("run", study, out_path), force, "run.html.j2", context)


PROGRESS_GAMES = 100_000  # from this many games on, the report says what it is doing


def progress(run: RunResult, t0: float, quiet: bool) -> Callable[[str], None]:
    """What the report says on stderr while it works on a large run (nothing when quiet)."""

    def say(message: str) -> None:
        if not quiet and run.meta.get("games", 0) >= PROGRESS_GAMES:
            print(f"report: {message} ({time.perf_counter() - t0:.1f} s)", file=sys.stderr)

    return say


def runtime(meta: dict) -> str:
    """'52.1 s, 1,234 games/s' (the engine's start-up, given apart, not counted in games/s)."""
    speed = units.plural(round(meta.get("games_per_s") or 0), "game/s")
    startup = meta.get("startup_s") or 0
    extra = f" (engine start-up {startup:.0f} s not counted)" if startup >= 1 else ""
    return f"{meta.get('wall_time_s', '?')} s, {speed}{extra}"


def run_finished(meta: dict, run_dir: str | Path) -> str:
    """When a run finished (ISO time, from run.json; for a run from before that was recorded,
    the time run.json was last written)."""
    if meta.get("finished_at"):
        return str(meta["finished_at"])
    stamp = (Path(run_dir) / "run.json").stat().st_mtime
    return datetime.fromtimestamp(stamp).isoformat(timespec="seconds")


_STAMP = re.compile(r'<meta name="sim-run" content="(\S+) ([^"]*)">')


def report_run(path: str | Path) -> tuple[str, str] | None:
    """(finished at, run folder) of the run whose report a page is, if it is a run report."""
    try:
        with open(path, "rb") as page:
            head = page.read(16384).decode("utf-8", "replace")
    except OSError:
        return None
    found = _STAMP.search(head)
    return (found.group(1), html.unescape(found.group(2))) if found else None


def report_context(
    run: RunResult,
    study: StudyConfig,
    moments: Moments | None,
    plays: PagePlays | Future,
    feel: bool = True,
    felt: tuple[pd.DataFrame, pd.DataFrame] | None = None,
) -> dict:
    """Every table, figure and sentence of the page, keyed by section. `moments` are those
    of every game's values; `run` may then hold a sample of the games (see `write_report`);
    `plays` are the page's played parts (the deck scan, the representative game), or the
    Future of them (`sim.runs.parallel.side_process`), waited for last; `felt`
    the feel columns of its games and the chances of some (`sim.runs.chances.page_feel`)."""
    games, players = run.games, run.players
    if moments is None:
        moments = Moments.of(game_values(games, players, run.cards))
    metrics = A.balance_metrics(games, players, moments=moments)
    sampled = games["game"].nunique()
    note = None
    if sampled < moments.n:
        note = (
            f"This run has {moments.n:,} games. The summary, the targets, the seat win shares,"
            " the joint seat test, the balance metrics and the split of each seat's edge into"
            " equal turns and extra turns use all of them (merged per-chunk partial results);"
            f" every other number, table and figure uses a sample of {sampled:,}"
            " games (evenly spaced chunks of consecutive game indices), so its intervals are"
            " those of that many games."
        )
    split = A.turn_decomposition(games, players, moments)  # the summary's and section 3's
    sections = {
        "title": f"{study.name}: balance report",
        "sets": list(run.meta.get("sets") or ()),
        "sample_note": note,
        "summary": _summary(run, study, metrics, moments, split),
        "seats": _seats(players, metrics, moments),
        "policies": _policies(players),
        "scores": _scores(games, players),
        "flow": _flow(games),
        "tension": tension_section(games, run.turns),
        "feel": feel_section(felt, run.turns, _kingmaking(run)) if feel else None,
        "cards": _cards(run.cards, players),
        "usage": usage_section(run.cards, games, players),
        "config": dump_yaml(run.meta["config"]),
    }
    # last: the played parts may still be on their way from a side process
    plays = plays.result() if isinstance(plays, Future) else plays
    return {
        **sections,
        "turns": turns_section(games, players, study, plays, split),
        "game": _game(run, plays),
    }


# ---------------------------------------------------------------- sections


def _kingmaking(run: RunResult) -> dict | None:
    """The run's kingmaking sample (`sim run --kingmaking`), if it has one."""
    path = Path(run.run_dir) / KINGMAKING_FILE
    return read_json(path) if path.is_file() else None


def _summary(
    run: RunResult, study: StudyConfig, metrics: pd.DataFrame, moments, split: pd.DataFrame
) -> dict:
    """Section 1: what ran, how fast, and the one-sentence verdict (`split`: the games'
    `turn_decomposition`)."""
    meta, players = run.meta, run.players
    lineup = ", ".join(seat.label for seat in study.seats)
    variants = study.game.rules.switched_on()
    facts = [
        ("Config", f"{study.name} ({meta.get('source', '')})"),
        ("Games", f"{moments.n:,}"),
        ("Players", str(study.game.players)),
        (
            "Seats (line-up)",
            lineup + (" — rotated round the seats" if study.rotate_seats else " — not rotated"),
        ),
        (
            "Rule variants on",
            ", ".join(f"{k} = {v}" for k, v in variants.items()) or "none (canonical rules)",
        ),
        ("Seed", str(study.seed)),
        ("Engine / package version", f"{meta['engine_version']} / {meta['package_version']}"),
        ("Config hash", meta["config_hash"]),
        (
            "Runtime",
            runtime(meta),
        ),
        ("Run folder", str(run.run_dir)),
    ]
    head = A.headline(
        run.games,
        players,
        moments=moments,
        noise=meta.get("feel_noise"),
        kingmaking=_kingmaking(run),
        sampled="kingmaking" in study.targets,
    )
    targets = None
    if study.targets:
        checks = A.check_targets(head, study.targets)
        targets = table(
            checks,
            [
                ("metric", text("metric")),
                ("target", text("wanted")),
                ("measured [95%]", metric_ci()),
                ("status", text("status")),
            ],
        )
    answer = seat_answer(players, moments, run.games)
    return {
        "lead": run_headline(answer, [seat.label for seat in study.seats], study.rotate_seats),
        "facts": facts,
        "verdict": A.verdict(players, moments),
        "parity": A.parity_note(run.games, players, split),
        "warnings": _warnings(run),
        "targets": targets,
        "stopped": page_lines(meta),  # a run stopped when decided (issue 24)
    }


def _warnings(run: RunResult) -> list[str]:
    """Anything that makes the numbers suspect: mixed configs or engines."""
    out = []
    for name in ("games", "players", "cards", "turns"):
        frame = getattr(run, name)
        if (
            frame["config_hash"].nunique() > 1
            or frame["config_hash"].iloc[0] != run.meta["config_hash"]
        ):
            out.append(f"{name} rows carry more than one config hash")
        if frame["engine_version"].nunique() > 1:
            out.append(f"{name} rows come from more than one engine version")
    return out


def _seats(players: pd.DataFrame, metrics: pd.DataFrame, moments) -> dict:
    """Section 2: win share per seat, the joint fairness test, seat 0's edge per policy."""
    seats = A.seat_win_shares(players, moments)
    confounded = A.seats_confounded(players)
    joint = adjusted = None
    if not confounded and len(seats) > 1:
        fairness = A.fairness(players, moments)
        seats = seats.merge(fairness[["seat", "vs_others", "apart"]], on="seat")
        seats["vs_lo"] = fairness["lo"].to_numpy()
        seats["vs_hi"] = fairness["hi"].to_numpy()
        a, g = fairness.attrs, fairness.attrs["group"]
        apart = ", ".join(map(str, fairness.loc[fairness["apart"], "seat"])) or "none"
        joint = (
            f"Joint test that all {len(seats)} seats win equally (Wald, games independent):"
            f" chi²({a['df']}) = {a['chi2']:.1f}, p = {a['p']:.2g}. Seats apart from the rest"
            f" ({a['method']}): {apart};"
            f" the seats left together ({', '.join(map(str, g['seats']))}) test as equal"
            f" among themselves: chi²({g['df']}) = {g['chi2']:.1f}, p = {g['p']:.2g}."
        )
        if players["policy"].nunique() > 1:
            effects = A.seat_effects(players)
            effects["policy"] = effects["policy"].fillna("adjusted for policy")
            adjusted = table(
                effects,
                [
                    ("policy", text("policy")),
                    ("seat 0's edge [95%]", ci_pp("edge")),
                    ("p", lambda r: f"{r['p']:.2g}"),
                    ("n seat-games", num("n", 0)),
                ],
            )
    cols = [
        ("seat", text("seat")),
        ("win share [95%]", ci("win_share")),
        ("fair", pct("fair")),
        ("vs fair", pp("vs_fair")),
        ("n games", num("n", 0)),
    ]
    if joint is not None:
        cols += [
            ("vs the other seats [95%]", ci_pp("vs_others", "vs_lo", "vs_hi")),
            ("apart", lambda r: "apart" if r["apart"] else "–"),
        ]
    return {
        "table": table(seats, cols),
        "joint": joint,
        "adjusted": adjusted,
        "figure": svg(F.win_share_bars(seats, "seat", "Win share by seat"), "seats"),
        "metrics": table(
            metrics,
            [
                ("metric", text("metric")),
                ("value [95%]", metric_ci()),
                ("n games", num("n", 0)),
                ("meaning", text("meaning")),
            ],
        ),
        "confounded": confounded,
    }


def _policies(players: pd.DataFrame) -> dict:
    """Section 3: win share per policy and the matchup grids (only with several policies)."""
    if players["policy"].nunique() < 2:
        return {
            "note": f"Every seat played {players['policy'].iloc[0]!r}: there is nothing to"
            " compare between policies in this run."
        }
    pol = A.policy_win_shares(players)
    m = A.matchups(players)
    fair = pol["fair"].iloc[0]
    return {
        "table": table(
            pol,
            [
                ("policy", text("policy")),
                ("win share per seat [95%]", ci("win_share")),
                ("fair", pct("fair")),
                ("n seat-games", num("n", 0)),
                ("games", num("games", 0)),
            ],
        ),
        "figure": svg(F.win_share_bars(pol, "policy", "Win share by policy"), "policies"),
        "share_grid": svg(
            F.matchup_heatmap(
                A.matchup_matrix(m), fair, "Row's win share per seat, in games with the column"
            ),
            "matchup-share",
        ),
        "beats_grid": svg(
            F.matchup_heatmap(
                A.matchup_matrix(m, "beats"), 0.5, "Row finishes above column (head to head)"
            ),
            "matchup-beats",
        ),
        "matchups": table(
            m,
            [
                ("policy", text("policy")),
                ("opponent", text("opponent")),
                ("win share [95%]", ci("win_share")),
                ("n seat-games", num("n", 0)),
                ("games", num("games", 0)),
                ("beats [95%]", ci("beats", "beats_lo", "beats_hi")),
                ("n pairs", lambda r: "–" if pd.isna(r["pairs"]) else f"{r['pairs']:,.0f}"),
            ],
        ),
    }


def _scores(games: pd.DataFrame, players: pd.DataFrame) -> dict:
    """Section 4: score spreads, winning margins and where points come from."""
    by = "policy" if players["policy"].nunique() > 1 else "seat"
    cols = [
        ("mean [95%]", ci("mean", as_pct=False)),
        ("sd", num("sd")),
        ("min", num("min", 0)),
        ("p10", num("p10", 0)),
        ("median", num("median", 0)),
        ("p90", num("p90", 0)),
        ("max", num("max", 0)),
        ("n seat-games", num("n", 0)),
    ]
    points = A.points_breakdown(players, by)
    margins = A.distribution(games["margin"], "margin")
    return {
        "by_seat": table(A.score_summary(players, "seat"), [("seat", text("seat")), *cols]),
        "by_policy": table(A.score_summary(players, "policy"), [("policy", text("policy")), *cols]),
        "distribution": svg(F.score_distribution(players, by), "score-dist"),
        "margin_figure": svg(F.margin_bars(games), "margins"),
        "margins": table(
            margins,
            [("margin", text("margin")), ("games", num("count", 0)), ("share", pct("share"))],
        ),
        "points": table(
            points,
            [
                (by, text(by)),
                ("score", num("score")),
                ("box points", num("box_points")),
                ("cat bonus", num("cat_bonus")),
                ("of box: doubling", num("doubling_points")),
                ("of box: negative boxes", num("negative_points")),
                ("boxes led", num("boxes_led")),
                ("closed boxes led", num("closed_boxes_led")),
                ("n seat-games", num("n", 0)),
            ],
        ),
        "points_figure": svg(F.points_bars(points, by), "points"),
        "by": by,
    }


def _flow(games: pd.DataFrame) -> dict:
    """Section 5: turns, end triggers, wasted items, boxes and closure."""
    triggers = A.end_triggers(games)
    return {
        "table": table(
            A.flow_summary(games),
            [
                ("per game", text("label")),
                ("mean [95%]", _by_unit("mean", with_ci=True)),
                ("median", _by_unit("median")),
                ("min", _by_unit("min")),
                ("max", _by_unit("max")),
                ("n games", num("n", 0)),
            ],
        ),
        "triggers": table(
            triggers,
            [
                ("end trigger", text("end_trigger")),
                ("games", num("games", 0)),
                ("share [95%]", ci("share")),
                ("n games", num("n", 0)),
            ],
        ),
        "figure": svg(F.flow_panels(games, triggers), "flow"),
    }


def _by_unit(col: str, with_ci: bool = False) -> Callable[[dict], str]:
    """A value by its row's unit (sim.metrics): shares as percentages, others as numbers."""

    def fmt(r: dict) -> str:
        as_pct = r["unit"] == "share"
        if with_ci:
            return ci(col, as_pct=as_pct)(r)
        return share(r[col]) if as_pct else f"{r[col]:g}"

    return fmt


def _cards(cards: pd.DataFrame, players: pd.DataFrame) -> dict:
    """Section 6: card impact, adjusted for exposure first, then the raw table and chart."""
    impact, adjusted = A.card_impacts(cards, players)
    return {
        "adjusted": table(
            adjusted,
            [
                ("card", card_text()),
                ("adjusted impact [95%]", ci_pp("adjusted", "adj_lo", "adj_hi")),
                ("q (BH)", lambda r: "–" if pd.isna(r["adj_q"]) else f"{r['adj_q']:.2g}"),
                ("flag", lambda r: "●" if r["adj_flag"] else "–"),
                ("raw improvement [95%]", ci_pp("improvement")),
                ("raw q (BH)", lambda r: "–" if pd.isna(r["raw_q"]) else f"{r['raw_q']:.2g}"),
                ("raw flag", lambda r: "●" if r["raw_flag"] else "–"),
                ("n held", num("n_held", 0)),
                ("n never", num("n_never", 0)),
            ],
        ),
        "family": adjusted.attrs["family"],
        "table": table(
            impact,
            [
                ("card", card_text()),
                ("win when held", pct("win_held")),
                ("win when never", pct("win_never")),
                ("improvement [95%]", ci_pp("improvement")),
                ("n held", num("n_held", 0)),
                ("n never", num("n_never", 0)),
                ("win when played", pct("win_played")),
                (
                    "score when played",
                    lambda r: "–" if pd.isna(r["score_played"]) else f"{r['score_played']:.2f}",
                ),
                ("n played", num("n_played", 0)),
            ],
        ),
        "figure": svg(F.card_impact_bars(impact), "cards"),
    }


def _game(run: RunResult, plays: PagePlays) -> dict:
    """Section 7: the median-margin game replayed, its table drawn and its scores."""
    game = plays.game
    index = game.index
    row = run.games.loc[run.games["game"] == index].iloc[0]
    seats = run.players.loc[run.players["game"] == index].sort_values("seat")
    if game.position is None:
        replayed, picture = ["–"] * len(seats), Markup("")
    else:
        replayed = game.replayed
        picture = svg(draw_position(game.position, f"Game {index}: the final table"), "table")
    seats = seats.assign(replayed=replayed, winner=seats["win_share"] > 0)
    return {
        "index": index,
        "replay_href": (Path(run.run_dir).resolve() / replay_file(index)).as_uri(),
        "replay_cmd": f"sim replay {run.run_dir} --game {index}",
        "facts": f"margin {row['margin']}, {row['turns']} turns, ended by {row['end_trigger']},"
        f" {row['boxes']} boxes ({row['closed_boxes']} closed),"
        f" {row['items_wasted']} item(s) wasted",
        "median_margin": f"{run.games['margin'].median():g}",
        "picture": picture,
        "table": table(
            seats,
            [
                ("seat", text("seat")),
                ("policy", text("policy")),
                ("score", text("score")),
                ("box points", text("box_points")),
                ("cat bonus", text("cat_bonus")),
                ("winner", lambda r: "yes" if r["winner"] else ""),
                ("replayed score", text("replayed")),
            ],
        ),
        "replay_ok": game.matches,
        "note": game.note,
    }
