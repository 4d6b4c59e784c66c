"""The `sim tune` page: the recommendation as a YAML diff, each target before and after, the
search trace, each parameter's effect, and the Pareto set."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from markupsafe import Markup

from sim.analysis.findings import metric_interval
from sim.analysis.tuning import parameter_effects, target_misses
from sim.config import dump_yaml, parse_study
from sim.errors import SimError, one_line
from sim.metrics import describe_target
from sim.report import causal_report
from sim.report import tune_figures as TF
from sim.report.html import svg_markup, table, text, write_page
from sim.report.study_report import build_study_report, config_diff
from sim.runs.paths import STUDY_FILE, page_path
from sim.runs.storage import read_json
from sim.studies.leads import tune_lead
from sim.units import pct

TUNE_FILE = "tune.json"


def build_tune_report(
    folder: str | Path, out_path: str | Path | None = None, force: bool = False
) -> Path:
    """Write the page of a finished tune folder; default path reports/<name>-tune.html."""
    folder = Path(folder)
    if not (folder / TUNE_FILE).exists():
        raise SimError(f"{folder}: tuning not finished (no {TUNE_FILE}); sim tune --resume it")
    meta, verdict = read_json(folder / STUDY_FILE), read_json(folder / TUNE_FILE)
    study = parse_study(meta["config"], str(folder / STUDY_FILE))
    where = page_path("tune", study, out_path)
    return write_page(where, force, "tune.html.j2", lambda: tune_context(folder, meta, verdict))


def build_folder_report(
    folder: str | Path, out_path: str | Path | None = None, force: bool = False
) -> Path:
    """The page of a sweep, comparison, tune, advise, map, value, ladder or luck folder, whichever
    it is (`sim report FOLDER`). A study file that is not what this version writes (damaged, cut
    short, edited) ends in one line naming it, not a traceback."""
    meta_path = Path(folder) / STUDY_FILE
    kind = read_json(meta_path).get("kind") if meta_path.exists() else None
    try:
        if kind == "tune":
            return build_tune_report(folder, out_path, force=force)
        if kind == "advise":
            from sim.report.advise_report import build_advise_report
            from sim.studies.advice import load_advice

            return build_advise_report(load_advice(folder), out_path, force=force)
        if kind in causal_report.KINDS:
            return causal_report.build_causal_report(folder, kind, out_path, force=force)
        if kind == "map":
            from sim.report.map_report import rebuild_map_report

            return rebuild_map_report(folder, out_path, force=force)
        return build_study_report(folder, out_path, force=force)
    except DAMAGED as exc:  # a key missing, a value of the wrong type, ...
        files = f"{meta_path} (or {TUNE_FILE})" if kind == "tune" else str(meta_path)
        raise SimError(
            f"{files}: damaged or not written by this version ({one_line(exc, 80)}); play the"
            " study again into a new folder"
        ) from None


# What reading a damaged study file raises where the page expects its keys and types.
DAMAGED = (KeyError, IndexError, TypeError, ValueError, AttributeError)


def tune_context(folder: Path, meta: dict, verdict: dict) -> dict:
    """Every table, figure and sentence of the tune page."""
    study = parse_study(meta["config"], str(folder / STUDY_FILE))
    tune = study.tune
    targets, params = tune.targets, list(tune.space)
    start = study.with_overrides(tune=None)
    chosen = start.with_overrides(**verdict["chosen_params"])
    # no candidate at all when the start meets every target (nothing was searched): the
    # frame keeps its columns so every table below is simply empty
    frame = pd.DataFrame(
        [
            {"id": c["id"], "first_distance": c["first_distance"], **c["params"]}
            for c in meta["candidates"]
            if c["first_distance"] is not None
        ],
        columns=["id", "first_distance", *params],
    )
    effects = parameter_effects(frame.rename(columns={"first_distance": "distance"}), params)
    trace = pd.DataFrame(meta["trace"])
    checked = [verdict["start_check"], *verdict["finalists"]]
    misses = pd.DataFrame(
        {
            r["label"]: target_misses({n: r["targets"][n]["estimate"] for n in targets}, targets)
            for r in checked
        }
    ).T
    pareto = None
    if len(targets) > 1:
        pareto = svg_markup(TF.pareto_scatter(misses, verdict["pareto"], list(targets)), "tp")
    return {
        "title": f"{study.name}: tuning {', '.join(params)}",
        "lead": tune_lead(study, verdict),
        "sets": list(meta.get("sets") or ()),
        "verdict": verdict["text"][0],
        "status": verdict["status"],
        "diff": config_diff(start, chosen) or "no change",
        "targets": _targets_table(verdict, targets),
        "finalists": _finalists_table(checked, targets, params),
        "family": ". ".join(
            t[:1].upper() + t[1:] for t in (verdict["family"], verdict.get("feel")) if t
        ),
        "trace": svg_markup(TF.search_trace(trace), "tt") if len(trace) else None,
        "slices": svg_markup(TF.parameter_slices(frame, params), "ts") if len(frame) else None,
        "effects": table(
            effects,
            [
                ("parameter", text("parameter")),
                ("importance", lambda r: pct(r["importance"])),
                ("lowest mean D at", text("best_value")),
                ("values tried", text("levels")),
            ],
        ),
        "pareto": pareto,
        "pareto_members": verdict["pareto"],
        "facts": _facts(study, meta, verdict, folder),
        "yaml": dump_yaml(chosen.to_yaml_dict()),
    }


def _targets_table(verdict: dict, targets: dict) -> Markup:
    rows = []
    for name, t in verdict["targets"].items():
        s = t["start"]
        rows.append(
            {
                "target": name,
                "band": describe_target(name, targets[name]),
                "start": metric_interval(name, s),
                "start_v": s["verdict"],
                "after": metric_interval(name, t),
                "after_v": t["verdict"],
            }
        )
    after = f"{verdict['chosen']} [95% interval]"
    cols = [
        ("target", text("target")),
        ("band", text("band")),
        ("start [95% interval]", text("start")),
        ("verdict", text("start_v")),
        (after, text("after")),
        ("verdict ", text("after_v")),
    ]
    return table(pd.DataFrame(rows), cols)


def _finalists_table(checked: list[dict], targets: dict, params: list[str]) -> Markup:
    rows = []
    for r in checked:
        row = {
            "config": r["label"],
            **{p: str(r["params"].get(p)) for p in params},
            "games": f"{r['games']:,} (seed {r['seed']})",
            "met": f"{r['met']} of {len(targets)}",
            "D": f"{r['distance']:.2f}",
        }
        for n in targets:
            e = r["targets"][n]
            row[n] = f"{metric_interval(n, e)} {e['verdict']}"
        rows.append(row)
    cols = [(c, text(c)) for c in ["config", *params, "games", *targets, "met", "D"]]
    return table(pd.DataFrame(rows), cols)


def _facts(study, meta: dict, verdict: dict, folder: Path) -> list[tuple[str, str]]:
    search, conf, sel, games = (verdict[k] for k in ("search", "confirm", "select", "games"))
    limits = study.tune.constraints
    spent = ", ".join(f"{k} {v:,}" for k, v in games.items() if k not in ("total", "budget"))
    return [
        ("Config", f"{study.name} ({study.source})"),
        ("Space", "; ".join(f"{p}: {json.dumps(s)}" for p, s in study.tune.space.items())),
        ("Constraints", json.dumps(limits) if limits else "none"),
        ("Games", f"{games['total']:,} of a budget of {games['budget']:,} ({spent})"),
        (
            "Search",
            f"{search['candidates']} candidates in {search['rounds']} rounds, "
            f"{search['games']:,} games, seed {study.seed}; "
            f"{search['wall_time_s']:.0f} s in all",
        ),
        ("Inert settings", ", ".join(verdict["inert"]) or "none"),
        ("Selection", f"{sel['games']:,} games per finalist on seed {sel['seed']}"),
        ("Start check and confirmation", f"{conf['games']:,} games each on seed {conf['seed']}"),
        ("Seats (line-up)", ", ".join(s.label for s in study.seats)),
        ("Tune folder", str(folder)),
    ]
