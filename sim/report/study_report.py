"""HTML reports of a sweep (`build_sweep_report`) and a paired comparison (`build_compare_report`).

Same spirit as the run report: one self-contained page, figures inline as SVG,
no network. The numbers come from `sim.analysis.paired`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd
from markupsafe import Markup

from sim import units
from sim.analysis.findings import (
    call_of,
    compare_findings,
    metric_interval,
    metric_text,
    sweep_findings,
)
from sim.analysis.paired import (
    SweepStats,
    compare_runs,
    family_of,
    headline_count,
    sweep_result_stats,
)
from sim.analysis.sampled import kingmaking_change_words, kingmaking_sweep_words
from sim.analysis.stopping import page_lines
from sim.config import dump_yaml
from sim.errors import SimError
from sim.report.html import keep_together, svg_markup, table, text, write_page
from sim.report.interval_figures import compare_forest
from sim.report.run_report import runtime
from sim.runs.partials import stream_runs
from sim.runs.paths import KINGMAKING_FILE, STUDY_FILE, page_path
from sim.runs.storage import read_json
from sim.studies.compare import CompareResult, load_compare
from sim.studies.leads import compare_lead, sweep_lead
from sim.studies.sweep import SweepResult, load_sweep

# Metric panels of the sweep page, by section; a list draws several metrics in one panel.
SWEEP_SECTIONS = (
    ("balance", "Balance", ["first_player_advantage", "balance", "shared_wins"]),
    ("scores", "Scores", ["margin", "mean_score", "score_sd", "box_value"]),
    (
        "flow",
        "Game flow",
        ["turns", "deck_empty", "items_wasted", "closed_share", "dead_card_rate"],
    ),
    ("turns", "Turn parity", ["unequal_turns", "final_phase"]),
    ("tension", "Tension", ["lead_changes", "decided_at", "comeback", "open_before_last"]),
)


_svg = svg_markup


# ---------------------------------------------------------------- sweeps


def build_sweep_report(
    result: SweepResult | str | Path,
    out_path: str | Path | None = None,
    stats: SweepStats | None = None,
    force: bool = False,
) -> Path:
    """Write the sweep page (a SweepResult or a sweep folder) and return its path.

    Default path: the study's report.path, else reports/<name>-sweep.html.
    """
    if not isinstance(result, SweepResult):
        result = load_sweep(result)

    def context() -> dict:
        streamed = stream_runs(result.runs)
        return sweep_context(result, stats or sweep_result_stats(result, streamed=streamed))

    where = page_path("sweep", result.study, out_path)
    return write_page(where, force, "study_sweep.html.j2", context)


def sweep_context(result: SweepResult, stats: SweepStats) -> dict:
    """Every table, figure and sentence of the sweep page."""
    from sim.report import study_figures as SF  # the sweep page's figures only

    study, t = result.study, stats.table
    points = result.point_frame()
    best = stats.verdict.best if stats.verdict else None
    params = result.params
    metric_names = t["metric"].unique().tolist()
    seats = [m for m in metric_names if m.startswith("win_share.seat")]
    policies = [m for m in metric_names if m.startswith("win_share.") and m not in seats]
    per_point = result.study.games
    sections = []
    for key, name, names in SWEEP_SECTIONS:
        panels = [(_label(t, m), [m]) for m in names if m in metric_names]
        if key == "balance":
            panels.append(("win share by seat", seats))
            if len(policies) > 1:
                panels.append(("win share per seat, by policy", policies))
        if key == "turns":
            for family, label in (
                ("equal_turn_edge", "edge at equal turns, by seat"),
                ("turn_edge", "edge from extra turns, by seat"),
            ):
                members = [m for m in metric_names if m.startswith(family + ".")]
                if members:
                    panels.append((label, members))
        title = (
            f"{name} against {' × '.join(params)} (95% intervals, {per_point:,} games per point)"
        )
        if len(params) == 1:
            fig = SF.sweep_lines(t, points, params[0], panels, title, best)
        else:
            flat = [m for _, panel in panels for m in panel]
            fig = SF.sweep_heatmaps(t, points, params, flat, title, best)
        sections.append({"id": key, "name": name, "figure": _svg(fig, f"sweep-{key}")})
    cards = None
    if (t["group"] == "cards").any():
        cards = _svg(SF.card_impact_grid(t, result.labels), "sweep-cards")
    return {
        "title": f"{study.name}: sweep of {' × '.join(params)}",
        "lead": sweep_lead(result, stats),
        "sets": list(result.meta.get("sets") or study.sets),
        "facts": _sweep_facts(result),
        "verdict": stats.verdict.text if stats.verdict else None,
        "ranking": _ranking(stats) if stats.verdict else None,
        "findings": sweep_findings(stats.table),
        "kingmaking": _kingmaking_words(result.out_dir, kingmaking_sweep_words),
        "kingmaking_ask": any(run.meta["config"]["players"] > 2 for run in result.runs),
        "sections": sections,
        "cards": cards,
        "values": _wide(t, result.labels, "value"),
        "changes": _wide(t, result.labels, "diff") if len(points) > 1 else None,
        "baseline": result.labels[0],
        "config": dump_yaml(study.to_yaml_dict()),
        "resamples": t.attrs.get("resamples"),
        "families": t.attrs.get("families", {}),
        "stopped": page_lines(result.meta),  # a sweep stopped when decided (issue 24)
    }


def _label(t: pd.DataFrame, metric: str) -> str:
    return t.loc[t["metric"] == metric, "metric_label"].iloc[0]


def _sweep_facts(result: SweepResult) -> list[tuple[str, str]]:
    study, meta = result.study, result.meta
    swept = "; ".join(f"{k}: {', '.join(map(str, v))}" for k, v in study.sweep.items())
    return [
        ("Config", f"{study.name} ({study.source})"),
        ("Swept", swept),
        ("Points", str(len(result.points))),
        ("Games per point", f"{study.games:,} (the same game indices and seed at every point)"),
        ("Seed", str(study.seed)),
        ("Seats (line-up)", ", ".join(s.label for s in study.seats)),
        ("Runtime", _runtime(meta)),
        ("Sweep folder", str(result.out_dir)),
    ]


def _runtime(meta: dict) -> str:
    return runtime(meta)


def _ranking(stats: SweepStats) -> Markup:
    r = stats.verdict.ranking
    skip = {"point", "label", "miss", "gap", "gap_lo", "gap_hi", "within_noise", "in_best_set"}
    targets = [c for c in r.columns if c not in skip and not c.endswith(":status")]
    cols: list[tuple[str, Callable]] = [("point", text("label"))]
    cols += [
        (m, lambda row, m=m: f"{metric_text(m, row[m])} ({row[m + ':status']})") for m in targets
    ]
    cols += [
        ("miss (sd units)", lambda row: f"{row['miss']:.2f}"),
        (
            "miss − best [95%]",
            lambda row: f"{row['gap']:+.2f} [{row['gap_lo']:+.2f}, {row['gap_hi']:+.2f}]",
        ),
        (
            "call",
            lambda row: (
                ("best" if len(stats.verdict.best_set) == 1 else "in the best set")
                if row["in_best_set"]
                else "worse"
            ),
        ),
    ]
    return table(r, cols)


WIDE_POINTS = 6  # points (columns) per table of the sweep's numbers


def _wide(t: pd.DataFrame, labels: list[str], what: str) -> Markup:
    """Metrics down, points across: 'value [lo, hi]' or the paired change from point 0; a
    sweep of more than WIDE_POINTS points gets one table per WIDE_POINTS of them."""
    rows = []
    for metric, g in t.groupby("metric", sort=False):
        row = {"metric": g["metric_label"].iloc[0]}
        for r in g.itertuples():
            if what == "value":
                cell = metric_interval(metric, {"estimate": r.value, "lo": r.lo, "hi": r.hi})
            elif r.point == 0:
                continue
            else:
                mark = " ●" if r.real else ""
                cell = (
                    f"{metric_text(metric, r.diff, True)} [{metric_text(metric, r.diff_lo, True)},"
                    f" {metric_text(metric, r.diff_hi, True)}]{mark}"
                )
            row[labels[r.point]] = keep_together(cell)
        rows.append(row)
    frame = pd.DataFrame(rows).fillna("–")
    points = [c for c in frame.columns if c != "metric"]
    # Stacked, WIDE_POINTS points to a table: a sweep of many points never scrolls sideways.
    return Markup(
        "\n".join(
            frame[["metric", *points[i : i + WIDE_POINTS]]].to_html(
                index=False, border=0, classes="t", escape=True
            )
            for i in range(0, len(points), WIDE_POINTS)
        )
    )


# ---------------------------------------------------------------- comparisons


def build_compare_report(
    result: CompareResult | str | Path,
    out_path: str | Path | None = None,
    table_: pd.DataFrame | None = None,
    force: bool = False,
) -> Path:
    """Write the comparison page (a CompareResult or a comparison folder); returns its path.

    Default path: reports/compare-<A>-<B>.html.
    """
    if not isinstance(result, CompareResult):
        result = load_compare(result)

    def context() -> dict:
        if table_ is not None:
            return compare_context(result, table_)
        compared = compare_runs(
            result.a,
            result.b,
            labels=result.labels,
            paired=not result.meta.get("independent", False),
            primary=result.studies[0].primary,
            streamed=stream_runs([result.a, result.b], unpaired=True),
        )
        return compare_context(result, compared)

    where = page_path("compare", given=out_path, labels=result.labels)
    return write_page(where, force, "study_compare.html.j2", context)


def _kingmaking_words(out_dir: Path, words: Callable[[dict], object]):
    """A sweep's or comparison's kingmaking in `words` (`sim sweep|compare --kingmaking`), or
    None if it was not measured."""
    path = Path(out_dir) / KINGMAKING_FILE
    return words(read_json(path)) if path.is_file() else None


def compare_context(result: CompareResult, t: pd.DataFrame) -> dict:
    """Every table, figure and sentence of the comparison page."""
    la, lb = result.labels
    a, b = result.studies
    main = t[t["group"] != "cards"]
    ratio = t["width_ratio"].replace([float("inf")], float("nan")).dropna()
    facts = [
        (la, f"{a.name} ({a.source})"),
        (lb, f"{b.name} ({b.source})"),
        (
            "Games",
            f"{len(result.a.games):,} per side, "
            + (
                f"independent games (seeds {a.seed} and {b.seed}: unpaired intervals)"
                if t.attrs.get("paired") is False
                else f"the same game indices and seed {a.seed}"
            ),
        ),
        ("Differences in config", config_diff(a, b) or "none (an A/A comparison)"),
        ("Runtime", f"{result.meta.get('wall_time_s', '?')} s"),
        ("Folder", str(result.out_dir)),
    ]
    cols = [
        ("metric", text("label")),
        (la, lambda r: metric_text(r["metric"], r["a"])),
        (lb, lambda r: metric_text(r["metric"], r["b"])),
        (
            f"{lb} − {la} [95%]",
            lambda r: (
                f"{metric_text(r['metric'], r['diff'], True)} "
                f"[{metric_text(r['metric'], r['lo'], True)},"
                f" {metric_text(r['metric'], r['hi'], True)}]"
            ),
        ),
        ("paired width", lambda r: metric_text(r["metric"], r["width"], diff=True)),
        ("unpaired width", lambda r: metric_text(r["metric"], r["unpaired_width"], diff=True)),
        (
            "paired / unpaired",
            lambda r: "–" if pd.isna(r["width_ratio"]) else units.pct(r["width_ratio"]),
        ),
        ("adjusted p", lambda r: "–" if pd.isna(r["p_adj"]) else f"{r['p_adj']:.2g}"),
        ("call", _call),
    ]
    families = t.attrs.get("families", {})
    groups = [
        {"name": name, "table": table(g, cols), "family": families.get(family_of(name), "")}
        for name, g in t.groupby("group", sort=False)
    ]
    real, tested = headline_count(t)
    sets = [f"{la}: {x}" for x in a.sets] + [f"{lb}: {x}" for x in b.sets]
    return {
        "title": f"{lb} vs {la}: paired comparison",
        "lead": compare_lead((a, b), t, config_diff(a, b)),
        "sets": sets,
        "labels": (la, lb),
        "facts": facts,
        "notes": result.meta.get("notes", []),
        "summary": compare_findings(t),
        "kingmaking": _kingmaking_words(result.out_dir, kingmaking_change_words),
        "kingmaking_ask": max(a.game.players, b.game.players) > 2,  # none to crown with two
        "n_real": real,
        "n_metrics": tested,
        "headline_family": families.get("headline", ""),
        "identical": bool(t.attrs.get("identical")),
        "paired": t.attrs.get("paired", True) is not False,
        "primary": t.attrs.get("primary"),
        "median_ratio": units.pct(ratio.median()) if len(ratio) else "–",
        "forest": _svg(
            compare_forest(main, f"{lb} − {la}: paired vs unpaired intervals"), "forest"
        ),
        "groups": groups,
        "configs": [(lab, dump_yaml(s.to_yaml_dict())) for lab, s in ((la, a), (lb, b))],
        "resamples": t.attrs.get("resamples"),
        "stopped": page_lines(result.meta),  # a comparison stopped when decided (issue 24)
    }


def _call(r) -> str:
    """A row's verdict in the one vocabulary (`sim.analysis.findings.call_of`)."""
    return call_of(bool(r["real"]), r["lo"], r["hi"], r["family"] == "implied")


def config_diff(a, b) -> str:
    """'deck.sprayers: 4 → 6; seats[2].policy: random → greedy' (game settings and line-up)."""
    ignore = {"name", "games", "seed", "targets", "report", "sweep"}
    fa = _flatten({k: v for k, v in a.to_yaml_dict().items() if k not in ignore})
    fb = _flatten({k: v for k, v in b.to_yaml_dict().items() if k not in ignore})
    keys = list(dict.fromkeys([*fa, *fb]))
    return "; ".join(
        f"{k}: {fa.get(k, '–')} → {fb.get(k, '–')}" for k in keys if fa.get(k) != fb.get(k)
    )


def _flatten(data, prefix: str = "") -> dict[str, object]:
    out: dict[str, object] = {}
    items = data.items() if isinstance(data, dict) else enumerate(data)
    for key, value in items:
        name = f"{prefix}[{key}]" if isinstance(key, int) else f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict | list) and value:
            out.update(_flatten(value, name))
        else:
            out[name] = value
    return out


def build_study_report(
    folder: str | Path, out_path: str | Path | None = None, force: bool = False
) -> Path:
    """The page of a sweep or comparison folder, whichever it is (for `sim report FOLDER`)."""
    meta_path = Path(folder) / STUDY_FILE
    if not meta_path.exists():
        raise SimError(f"{folder}: not a sweep or comparison folder (no {STUDY_FILE})")
    kind = read_json(meta_path).get("kind")
    if kind == "sweep":
        return build_sweep_report(folder, out_path, force=force)
    if kind == "compare":
        return build_compare_report(folder, out_path, force=force)
    raise SimError(f"{meta_path}: unknown kind {str(kind)[:40]!r}")
