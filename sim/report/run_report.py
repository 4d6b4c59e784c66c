"""The HTML balance report of one run folder: `build_report(run_dir)`.

One self-contained file (inline CSS, inline SVG figures, no scripts, no
network). The numbers come from `sim.analysis`; this module only formats them.
"""

from __future__ import annotations

import html
import re
import sys
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pandas as pd
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

from sim import analysis as A
from sim import units
from sim.analysis.moments import Moments
from sim.analysis.values import game_values
from sim.config import StudyConfig, dump_yaml
from sim.engine.state import ENGINE_VERSION
from sim.errors import SimError
from sim.parallel import parallel_results
from sim.parity import deck_scan
from sim.partials import chunk_moments, run_chunks, run_moments, sample_chunks, sampled_run
from sim.report import figures as F
from sim.report.table_picture import draw_position
from sim.storage import REPORT_MARK, RunResult, check_report_path, load_run, saved_study, write_text

SECTIONS = (
    ("summary", "Summary"),
    ("seats", "Seat balance"),
    ("turns", "Turn structure"),
    ("policies", "Policies"),
    ("scores", "Scores"),
    ("flow", "Game flow"),
    ("tension", "Tension over the game"),
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
    "dead",
)
POLICY_FIGURES = ("policies", "matchup-share", "matchup-beats")
TEMPLATES = Path(__file__).parent / "templates"


def default_path(study: StudyConfig) -> Path:
    """Where the report goes: the config's report.path, else reports/<name>.html."""
    return Path(study.report_path or f"reports/{study.name}.html")


def build_report(
    run_dir: str | Path,
    out_path: str | Path | None = None,
    force: bool = False,
    *,
    quiet: bool = False,
) -> Path:
    """Write the HTML report of a finished run folder and return its path."""
    return write_report(load_run(run_dir), out_path, force, quiet=quiet)


def write_report(
    run: RunResult,
    out_path: str | Path | None = None,
    force: bool = False,
    *,
    quiet: bool = False,
) -> Path:
    """Write the report of a finished run (what `sim run` holds at its end).

    The registry metrics, seat tests and targets come from the run's per-chunk
    partial results (`sim.partials`), merged: every game counts, and no table is
    loaded whole. The other sections read the rows of at most SAMPLE_GAMES games
    (evenly spaced whole chunks), and the page says so. The page is written
    atomically; a path that would overwrite something that is not a report is
    refused unless `force` (see `sim.storage.check_report_path`). The run's plug-in
    policies are not imported: the report needs no player. Unless `quiet`, what it
    is doing goes to stderr.
    """
    t0 = time.perf_counter()

    def say(message: str) -> None:
        if not quiet and run.meta.get("games", 0) >= PROGRESS_GAMES:
            print(f"report: {message} ({time.perf_counter() - t0:.1f} s)", file=sys.stderr)

    study = saved_study(run.meta, Path(run.run_dir) / "run.json", plugins=False)
    out = check_report_path(out_path if out_path is not None else default_path(study), force)
    moments, view = report_data(run, say)
    say("analysing")
    context = report_context(view, study, moments)
    context["build_s"] = f"{time.perf_counter() - t0:.1f}"
    context["run_stamp"] = f"{run_finished(run.meta, run.run_dir)} {Path(run.run_dir).resolve()}"
    say("writing the page")
    write_text(out, render(context))
    return out


SAMPLE_GAMES = 20_000  # at most this many games' rows are read for the row-level sections
PROGRESS_GAMES = 100_000  # from this many games on, the report says what it is doing


def report_data(run: RunResult, say=None) -> tuple[Moments, RunResult]:
    """The merged moments of every game, and the run or a sample of its chunks' rows
    (computed once per run object: `sim run` and `sim report` also write summary.json)."""
    if "report" not in run.derived:
        run.derived["report"] = _report_data(run, say)
    return run.derived["report"]


def _report_data(run: RunResult, say) -> tuple[Moments, RunResult]:
    moments = run_moments(Path(run.run_dir), run.meta, compute=_parallel_moments(run), say=say)
    chunks = run_chunks(run.meta)
    sample = sample_chunks(chunks, SAMPLE_GAMES)
    if len(sample) == len(chunks):
        return moments, run
    if say:
        say(f"reading the rows of {sum(n for _, n in sample):,} games ({len(sample)} chunks)")
    return moments, sampled_run(run, sample)


def _parallel_moments(run: RunResult):
    """Compute missing chunk moments on local worker processes (an older run folder)."""

    def compute(firsts: list[int]) -> list[Moments]:
        from joblib import delayed

        folder = Path(run.run_dir)
        tasks = (delayed(_one_chunk)(folder, first) for first in firsts)
        done = dict(parallel_results(tasks, len(firsts), -1 if len(firsts) > 8 else 1))
        return [done[first] for first in firsts]

    return compute


def _one_chunk(folder: Path, first: int) -> tuple[int, Moments]:
    return first, chunk_moments(folder, first)


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


def render_template(name: str, context: dict) -> str:
    """Fill one of the report templates (they share `_head.html.j2`, which carries
    REPORT_MARK, the line that tells a later run this file is a report it may replace)."""
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["j2"]))
    return env.get_template(name).render(report_mark=Markup(REPORT_MARK), **context)


def render(context: dict) -> str:
    """Fill the run report's page template with a report context."""
    return render_template("run.html.j2", {"sections": SECTIONS, **context})


def report_context(run: RunResult, study: StudyConfig, moments: Moments | None = None) -> dict:
    """Every table, figure and sentence of the page, keyed by section. `moments` are those
    of every game's values; `run` may then hold a sample of the games (see `write_report`)."""
    games, players = run.games, run.players
    if moments is None:
        moments = Moments.of(game_values(games, players, run.cards))
    metrics = A.balance_metrics(games, players, moments=moments)
    sampled = games["game"].nunique()
    note = None
    if sampled < moments.n:
        note = (
            f"This run has {moments.n:,} games. The summary, the targets, the seat win shares,"
            " the joint seat test and the balance metrics use all of them (merged per-chunk"
            f" partial results); every other number, table and figure uses a sample of {sampled:,}"
            " games (evenly spaced chunks of consecutive game indices), so its intervals are"
            " those of that many games."
        )
    return {
        "title": f"{study.name}: balance report",
        "sample_note": note,
        "summary": _summary(run, study, metrics, moments),
        "seats": _seats(players, metrics, moments),
        "turns": _turns(games, players, study),
        "policies": _policies(players),
        "scores": _scores(games, players),
        "flow": _flow(games),
        "tension": _tension(games, run.turns),
        "cards": _cards(run.cards, players),
        "usage": _usage(run.cards, games, players),
        "game": _game(run, study),
        "config": dump_yaml(run.meta["config"]),
    }


# ---------------------------------------------------------------- formatting

Col = tuple[str, Callable[[dict], str]]


def table(frame: pd.DataFrame, cols: list[Col]) -> Markup:
    """An HTML table of `frame`, one column per (header, row dict -> text)."""
    rows = frame.to_dict("records")  # keeps each column's type (iterrows makes ints floats)
    body = pd.DataFrame({head: [fmt(row) for row in rows] for head, fmt in cols})
    return Markup(body.to_html(index=False, border=0, classes="t", escape=True))


def share(v: float, signed: bool = False) -> str:
    """A share as a percentage (sim.units.pct): 99.98% is not '100.0%'."""
    return units.pct(v, signed)


def pct(col: str, signed: bool = False) -> Callable[[dict], str]:
    """Format a share column as a percentage."""
    return lambda r: "–" if pd.isna(r[col]) else share(r[col], signed)


def ci(col: str, lo: str = "lo", hi: str = "hi", as_pct: bool = True) -> Callable:
    """Format a value with its interval: '27.9% [27.3%, 28.5%]' or '2.26 [2.24, 2.28]'."""

    def fmt(r: dict) -> str:
        if pd.isna(r[col]):
            return "–"
        f = share if as_pct else (lambda v: f"{v:.2f}")
        return f"{f(r[col])} [{f(r[lo])}, {f(r[hi])}]" if not pd.isna(r[lo]) else f(r[col])

    return fmt


def num(col: str, digits: int = 2) -> Callable[[dict], str]:
    """Format a number; integers get thousands separators."""
    return lambda r: f"{r[col]:,.0f}" if digits == 0 else f"{r[col]:,.{digits}f}"


def text(col: str) -> Callable[[dict], str]:
    """A column as plain text."""
    return lambda r: str(r[col])


def card_text(col: str = "card") -> Callable[[dict], str]:
    """A card column as people read it (sim.units.card_label: 'box:(no walls)')."""
    return lambda r: units.card_label(r[col])


def svg(fig, key: str) -> Markup:
    """A figure as inline SVG in a `<figure id="fig-KEY">` (KEY from FIGURES)."""
    return Markup(f'<figure id="fig-{key}">{F.to_svg(fig, key)}</figure>')


# ---------------------------------------------------------------- sections


def _summary(run: RunResult, study: StudyConfig, metrics: pd.DataFrame, moments) -> dict:
    """Section 1: what ran, how fast, and the one-sentence verdict."""
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
    head = A.headline(run.games, players, moments=moments)
    targets = None
    if study.targets:
        checks = A.check_targets(head, study.targets)
        targets = table(
            checks,
            [
                ("metric", text("metric")),
                ("target", text("wanted")),
                ("measured [95%]", ci("value", as_pct=False)),
                ("status", text("status")),
            ],
        )
    return {
        "facts": facts,
        "verdict": A.verdict(players, moments),
        "parity": A.parity_note(run.games, players),
        "warnings": _warnings(run),
        "targets": targets,
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
                    ("seat 0's edge [95%]", ci("edge")),
                    ("p", lambda r: f"{r['p']:.2g}"),
                    ("n seat-games", num("n", 0)),
                ],
            )
    cols = [
        ("seat", text("seat")),
        ("win share [95%]", ci("win_share")),
        ("fair", pct("fair")),
        ("vs fair", pct("vs_fair", signed=True)),
        ("n games", num("n", 0)),
    ]
    if joint is not None:
        cols += [
            ("vs the other seats [95%]", ci("vs_others", "vs_lo", "vs_hi")),
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
                ("value [95%]", _by_unit("value", with_ci=True)),
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
    impact = A.card_impact(cards, players)
    adjusted = A.card_impact_adjusted(cards, players)
    return {
        "adjusted": table(
            adjusted,
            [
                ("card", card_text()),
                ("adjusted impact [95%]", ci("adjusted", "adj_lo", "adj_hi")),
                ("q (BH)", lambda r: "–" if pd.isna(r["adj_q"]) else f"{r['adj_q']:.2g}"),
                ("flag", lambda r: "●" if r["adj_flag"] else "–"),
                ("raw improvement [95%]", ci("improvement")),
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
                ("improvement [95%]", ci("improvement")),
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


def replay_file(index: int) -> str:
    """The name of game `index`'s replay page in its run folder (`sim replay`)."""
    return f"replay-{index}.html"


def representative_game(games: pd.DataFrame) -> int:
    """The first game whose winning margin is the median margin."""
    gap = (games["margin"] - games["margin"].median()).abs()
    return int(games.loc[gap == gap.min(), "game"].min())


def _game(run: RunResult, study: StudyConfig) -> dict:
    """Section 7: the median-margin game replayed, its table drawn and its scores."""
    from sim.play import play_one

    index = representative_game(run.games)
    row = run.games.loc[run.games["game"] == index].iloc[0]
    seats = run.players.loc[run.players["game"] == index].sort_values("seat")
    note = ""
    try:  # a plug-in policy replays here too: if it cannot, the page says so
        game = play_one(study, int(row["seed"]), index)
    except SimError as exc:
        note = f"The game could not be replayed here, so it is not drawn: {exc}"
        replayed, same, picture = ["–"] * len(seats), True, Markup("")
    else:
        replayed = list(game.outcome().scores)
        same = replayed == seats["score"].tolist() and run.meta["engine_version"] == ENGINE_VERSION
        picture = svg(draw_position(game.position(), f"Game {index}: the final table"), "table")
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
        "replay_ok": same,
        "note": note,
    }


# ---------------------------------------------------------------- turns, tension, card use

DECK_SCAN_GAMES = 200  # games per deck size in the report's turns-against-deck-size figure


def _ci_signed(col: str, lo: str, hi: str) -> Callable[[dict], str]:
    """'+4.3% [+3.0%, +5.6%]' (a signed share with its interval)."""
    return lambda r: (
        "–"
        if pd.isna(r[col])
        else f"{share(r[col], True)} [{share(r[lo], True)}, {share(r[hi], True)}]"
    )


def _turns(games: pd.DataFrame, players: pd.DataFrame, study: StudyConfig) -> dict:
    """Section 3: turns per seat, who ends the game, and the seat edge split by turn parity."""
    counts = A.turns_per_seat(players)
    split = A.turn_decomposition(games, players)
    wins = A.turn_wins(players)
    end = A.end_structure(games)
    scan = deck_scan(study, players=[study.game.players], games=DECK_SCAN_GAMES)
    final = end["final"].iloc[0]
    return {
        "note": A.parity_note(games, players),
        "split": table(
            split,
            [
                ("seat", text("seat")),
                ("extra-turn share", pct("extra_share")),
                ("edge: win share − 1/n [95%]", _ci_signed("edge", "edge_lo", "edge_hi")),
                ("at equal turns [95%]", _ci_signed("equal_part", "equal_lo", "equal_hi")),
                ("from extra turns [95%]", _ci_signed("turn_part", "turn_lo", "turn_hi")),
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
        "deck_games": DECK_SCAN_GAMES,
        "deck_replaced": bool(len(scan) and scan["replaced"].any()),
        "config_boxes": sum(study.game.deck.boxes.values()),
    }


def _tension(games: pd.DataFrame, turns: pd.DataFrame) -> dict:
    """Section 7: lead changes, when the game was decided, comebacks, the trace's shape."""
    summary = A.tension_summary(games)
    index = representative_game(games)
    fmt_value = {"lead_changes": False, "decided_at": True, "comeback": True,
                 "open_before_last": True}  # fmt: skip
    labels = {"lead_changes": "lead changes per game", "decided_at": "decided at",
              "comeback": "comeback rate",
              "open_before_last": "still open before the last round"}  # fmt: skip
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
    return f"{r['first_turn']:.1f} ({r['first_share']:.0%})"


def _usage(cards: pd.DataFrame, games: pd.DataFrame, players: pd.DataFrame) -> dict:
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
        ),  # fmt: skip
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
