"""The `sim calibrate` page: the fitted seat, its weights with intervals and the decisions
behind each, the fit on held-out games beside the bots, and the players' fits.

Rendering only: the numbers come from `sim.studies.calibrate` (a Calibration), the
sentences from `sim.analysis.findings`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from markupsafe import Markup, escape

from sim import units
from sim.analysis.calibration_words import bound, players_line, weight_interval
from sim.analysis.choice_scale import UNIT
from sim.analysis.findings import lead
from sim.config.yamlio import dump_yaml
from sim.report.html import svg_markup, table, write_page
from sim.report.interval_figures import interval_bars
from sim.studies.calibrate import Calibration, GroupFit, flow_spec


def _interval(value: str, lo: str, hi: str):
    return lambda r: "–" if pd.isna(r[value]) else weight_interval(r[value], r[lo], r[hi])


def _share(value: str, lo: str, hi: str, diff: bool = False):
    return lambda r: units.interval(r[value], r[lo], r[hi], "share", diff=diff)


def _weights_figure(g: GroupFit) -> Markup:
    """Each fitted weight with its 95% interval (an unbounded end drawn at the frame)."""
    t = g.table[g.table["fitted"]]
    if g.scale.points:
        t = t[t["feature"] != "own_points"]
    if not len(t):
        return Markup("")
    lo, hi = t["weight_lo"].to_numpy(float), t["weight_hi"].to_numpy(float)
    finite = np.concatenate([t["weight"], lo[np.isfinite(lo)], hi[np.isfinite(hi)]])
    edge = max(float(np.abs(finite).max()) * 1.2, 0.5)
    unit = "points (own points = 1)" if g.scale.points else "utility per unit of the feature"
    fig = interval_bars(
        list(t["feature"]),
        t["weight"],
        np.clip(lo, -edge, edge),
        np.clip(hi, -edge, edge),
        f"weight, {unit}",
        f"{g.name}: fitted weights (95% intervals)",
    )
    return svg_markup(fig, "calibrate-weights")


def _weights_section(g: GroupFit) -> dict:
    def unit(fmt):
        return lambda r: "1 (the unit)" if g.scale.points and r["feature"] == UNIT else fmt(r)

    cols = [
        ("feature", lambda r: r["feature"]),
        ("weight", unit(_interval("weight", "weight_lo", "weight_hi"))),
        (
            "simultaneous 95%",
            unit(lambda r: f"[{bound(r['weight_sim_lo'])}, {bound(r['weight_sim_hi'])}]"),
        ),
        ("utility per unit", _interval("utility", "lo", "hi")),
        ("se (model)", lambda r: "–" if pd.isna(r["se_model"]) else f"{r['se_model']:.3g}"),
        ("decisions", lambda r: f"{r['n_decisions']:,}"),
        ("note", lambda r: r["note"]),
    ]
    note = (
        f"Weights on the seat's scale ({g.scale.unit}), each with its 95% interval (Fieller's"
        " for a ratio of utilities; ∞: unbounded) and the simultaneous one (Bonferroni over"
        f" the {g.fit.k} fitted parameters: all at once at 95%). Utility = weight /"
        f" temperature, what the choices identify; standard errors {g.fit.se_kind}."
        " Decisions: those at which the feature took more than one value among the actions"
        " offered, the only ones that say anything about its weight."
    )
    return {
        "id": "weights",
        "title": "Weights",
        "figure": _weights_figure(g),
        "table": table(g.table, cols),
        "note": note,
    }


def _heldout_section(g: GroupFit) -> dict:
    reference = g.heldout["model"].iloc[0]

    def other(fmt):
        return lambda r: "–" if r["model"] == reference else fmt(r)

    cols = [
        ("model", lambda r: r["model"]),
        ("top-1 matching", _share("top1", "top1_lo", "top1_hi")),
        ("log-likelihood / decision", _interval("loglik", "loglik_lo", "loglik_hi")),
        (
            "calibrated's top-1 gain",
            other(_share("gain_top1", "gain_top1_lo", "gain_top1_hi", True)),
        ),
        (
            "calibrated's log-lik. gain",
            other(_interval("gain_loglik", "gain_loglik_lo", "gain_loglik_hi")),
        ),
        ("note", lambda r: r["note"]),
    ]
    first = g.heldout.iloc[0]
    note = (
        f"{first['games']:,} held-out games ({first['decisions']:,} decisions), never used to"
        f" fit the models scored on them; the fit used the other {g.train_games:,}. Top-1"
        " matching: the share of decisions at which the model's best action is the one"
        " taken (ties shared). Intervals: percentile bootstrap over held-out games; gains"
        " are paired (the same resampled games)."
    )
    return {
        "id": "heldout",
        "title": "Held-out games",
        "table": table(g.heldout, cols),
        "note": note,
    }


def _players_section(result: Calibration) -> dict:
    """Each player's own fit: what was fitted down, the players across (a few players, many
    features: the table stays within the page's column at 1280 px)."""
    columns: dict[str, dict[str, str]] = {}
    for g in result.players:
        col = {"decisions": f"{g.fit.n:,}", "games": f"{g.fit.games:,}"}
        s = g.scale
        col["temperature"] = (
            weight_interval(s.temperature, s.lo, s.hi) if s.points else "no temperature (utility)"
        )
        for r in g.table.itertuples():
            unit = s.points and r.feature == UNIT
            text = weight_interval(r.weight, r.weight_lo, r.weight_hi) if r.fitted else "–"
            col[r.feature] = "1 (the unit)" if unit else text
        if g.heldout is not None:
            first = g.heldout.iloc[0]
            col["held-out top-1"] = units.interval(
                first["top1"], first["top1_lo"], first["top1_hi"], "share"
            )
        columns[g.name] = col
    names = list(dict.fromkeys(k for col in columns.values() for k in col))
    frame = pd.DataFrame(
        [
            {"fitted": name, **{p: col.get(name, "–") for p, col in columns.items()}}
            for name in names
        ]
    )
    cols = [(c, lambda r, c=c: str(r[c])) for c in frame.columns]
    note = (
        players_line(result.differ) + ". Each player's own fit, on the same scale as the"
        " pooled one; the test compares one model for all with one per player."
    )
    return {"id": "players", "title": "Players", "table": table(frame, cols), "note": note}


def build_calibrate_report(
    result: Calibration, out: Path, folder: Path, about: dict, force: bool = False
) -> Path:
    """Write the page of a calibration to `out` (checked like every report path)."""
    return write_page(out, force, "causal.html.j2", lambda: _calibrate_page(result, folder, about))


def _calibrate_page(result: Calibration, folder: Path, about: dict) -> dict:
    g = result.pooled
    block = escape(dump_yaml(g.spec).strip())
    seat = {
        "id": "seat",
        "title": "The seat",
        "table": Markup(f"<pre>{block}</pre><pre>{escape(flow_spec(g.spec))}</pre>"),
        "note": f"Paste it into a line-up, or write {{calibrated: {folder / 'calibrated.yaml'}}}."
        f" Unit: {g.scale.unit}.",
    }
    sections = [seat, _weights_section(g)]
    if g.heldout is not None:
        sections.append(_heldout_section(g))
    if result.players:
        sections.append(_players_section(result))
    kinds = ", ".join(f"{k} {n:,}" for k, n in result.kinds.items())
    s = g.scale
    said = (
        f"Temperature {weight_interval(s.temperature, s.lo, s.hi)} points: players like these"
        " value each feature as the weights below."
        if s.points
        else "These players do not clearly value their own points: " + s.unit + "."
    )
    held = ""
    if g.heldout is not None:
        first = g.heldout.iloc[0]
        held = (
            "On held-out games the fit matches"
            f" {units.interval(first['top1'], first['top1_lo'], first['top1_hi'], 'share')} of"
            " the moves."
        )
    verdict = f"{said} {held}".strip()
    context = {
        "title": f"{about.get('name', 'calibrate')}: a heuristic fitted to logged games",
        "command": "sim calibrate",
        "intro": "The heuristic's weights and temperature fitted by maximum likelihood"
        " (conditional logit) to the logged decisions of the chosen seats.",
        "verdict": verdict,
        "lead": lead(said, held),  # the page's first paragraph, as every page's
        "findings": [f"warning: {w}" for w in g.warnings],
        "facts": [
            ("folder", str(folder)),
            ("logs", f"{about.get('logs', 0):,}"),
            ("games", f"{g.fit.games:,}"),
            ("decisions", f"{g.fit.n:,} ({kinds})"),
            ("seats fitted", str(about.get("seats", ""))),
            ("standard errors", g.fit.se_kind),
        ],
        "sections": sections,
        "config": "\n".join(about.get("studies_yaml", [])),
    }
    return context
