"""The `sim map` page: the answer in a designer's words, a what-if panel that answers as a
count moves (the emulators evaluated in the page's own script, no server, no network),
which counts matter for which metric, the region and its confirmed points, and the design."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from markupsafe import Markup, escape

from sim import units
from sim.config import dump_yaml
from sim.errors import SimError
from sim.metrics import metric as registry_metric
from sim.report.html import keep_together, num, table, text, words_table, write_page
from sim.runs.paths import STUDY_FILE, page_path
from sim.runs.storage import read_study_meta, saved_study
from sim.space_map.design import axes_of
from sim.space_map.predict import load_map
from sim.space_map.study import LINEUP, MapResult, map_lines

TOP = 3  # counts named per metric in the answer
MATTERS = 0.05  # a total Sobol index below this: the setting does nothing the map can see


def build_map_report(result: MapResult, out_path=None, force: bool = False) -> Path:
    """Write the map's page (default reports/<name>-map.html) and return its path."""
    study = result.study
    return write_page(
        page_path("map", study, out_path), force, "map.html.j2", lambda: _page(result)
    )


def rebuild_map_report(folder, out_path=None, force: bool = False) -> Path:
    """The page of a finished map folder again (`sim report MAP_DIR`), from map.json."""
    folder = Path(folder)
    meta = read_study_meta(folder, "map")
    if meta.get("status") != "complete":
        raise SimError(f"{folder}: this map is not finished; go on with sim map --resume {folder}")
    data = load_map(folder).data
    study = saved_study(meta, folder / STUDY_FILE, plugins=False)
    return build_map_report(MapResult(folder, data, map_lines(data), study), out_path, force)


def _page(result: MapResult) -> dict:
    data = result.data
    return {
        "title": f"{data['name']}: design-space map",
        "summary": answer(data),
        "lines": result.lines,
        "sensitivity": _sensitivity_table(data),
        "region": _region_table(data),
        "confirmed": _confirmed_table(data),
        "held_out": _held_out_table(data),
        "design": _design_table(data),
        "whatif": Markup(
            # inside <script>: no "</" may close it early, whatever a name or a path holds
            json.dumps(_whatif(data, result.out_dir.resolve()), separators=(",", ":")).replace(
                "<", "\\u003c"
            )
        ),
        "config": dump_yaml(result.study.to_yaml_dict()),
    }


def _drivers(data: dict, metric: str) -> list[tuple[str, float]]:
    rows = data["sensitivity"].get(metric, {})
    pairs = [(k, v["total"]["estimate"] or 0.0) for k, v in rows.items()]
    return sorted(pairs, key=lambda kv: -kv[1])


def answer(data: dict) -> str:
    """The page's first paragraph: what drives the edge, whether the config meets the
    targets, and the smallest move that does, confirmed or not; how a feel target was
    judged, where the config has one."""
    feel = data.get("feel")
    said = _answer(data)
    return f"{said} {feel[:1].upper()}{feel[1:]}." if feel else said


def _answer(data: dict) -> str:
    reg = data["region"]
    edge = _worst_edge(data)
    drivers = [(k, v) for k, v in _drivers(data, edge)[:TOP] if v >= MATTERS]
    where = f"{edge}, the line-up where the config's is largest"
    if drivers:
        top = ", ".join(f"{k} (total Sobol index {v:.2f})" for k, v in drivers)
        parts = [f"The first player's edge ({where}) moves most with {top}."]
    else:
        parts = [
            f"The first player's edge ({where}) moves with no setting of the space by more"
            f" than its noise (every total Sobol index below {MATTERS:g})."
        ]
    judged = {n: i for n, i in reg["start"]["implausibility"].items() if i is not None}
    start_bad = [n for n, i in judged.items() if i > reg["cutoff"]]
    if not judged:
        parts.append("The config's own settings lie outside the space, so it is not judged.")
    elif start_bad:
        parts.append(
            f"The config is ruled out by {len(start_bad)} target(s) ({', '.join(start_bad[:3])})."
        )
    else:
        parts.append("The config is not ruled out by any target.")
    if not reg["not_ruled_out"]:
        pull = ", ".join(n for n, _ in reg.get("pulling_apart", [])[:3])
        parts.append(f"No point of the space meets every target: {pull} pull apart.")
        return " ".join(parts)
    parts.append(
        f"{reg['not_ruled_out']:,} of {reg['judged']:,} points are not ruled out (the emulators"
        " cannot yet say they miss a target; only games on fresh seeds confirm one)."
    )
    done = reg.get("confirmed") or []
    met = [c for c in done if c["met"]]
    if met:
        parts.append(
            f"Smallest confirmed move: {_moved(data, met[0]['point'])} (every target met on"
            " fresh games)."
        )
    elif done:
        first = done[0]
        missed = [r for r in first["targets"] if not r["met"]]
        shown = "; ".join(
            f"{r['target']} {_interval(r['target'], r['estimate'], r['lo'], r['hi'])}"
            for r in missed[:3]
        )
        parts.append(
            f"The nearest such point, {_moved(data, first['point'])}, is not confirmed on fresh"
            f" games: {len(missed)} of {len(first['targets'])} targets not inside their band"
            f" ({shown})."
        )
    return " ".join(parts)


def _unit(name: str) -> tuple[str, bool]:
    """A map metric's registry unit and whether it is a difference of shares."""
    m = registry_metric(name.split("@")[0])
    return m.unit, m.diff


def _interval(name: str, value: float, lo: float, hi: float) -> str:
    """'+1.6 pp [+0.5, +2.8]', '27.9% [27.3%, 28.5%]', '2.26 [2.24, 2.28]'."""
    return units.interval(value, lo, hi, *_unit(name))


def _start(data: dict) -> dict:
    """The config's own settings (a map.json before they were saved apart: its first point)."""
    return data.get("start") or data["points"][0]["point"]


def _worst_edge(data: dict) -> str:
    """The first player's edge at the line-up where the config's is largest."""
    names = [m for m in data["sensitivity"] if m.split("@")[0] == "seat_edge.seat0"]
    first = data["points"][0]
    if first["point"] != _start(data):  # the config's own point is not in the design
        return names[0]
    return max(names, key=lambda m: abs(first["metrics"][m]["estimate"]))


def _moved(data: dict, point: dict) -> str:
    start = _start(data)
    moves = [f"{k} {start[k]}→{v}" for k, v in point.items() if v != start[k]]
    return ", ".join(moves) or "the config itself"


def _sensitivity_table(data: dict) -> Markup:
    """The heat map: a row a metric, a column a count, each cell its total Sobol index
    [95%] and first-order index, shaded by the total (white: the count does nothing)."""
    names = list(data["space"])
    head = "".join(f"<th>{escape(k)}</th>" for k in names)
    rows = []
    for metric, by in data["sensitivity"].items():
        cells = []
        for k in names:
            t, f = by[k]["total"], by[k]["first"]
            shade = min(max(t["estimate"] or 0.0, 0.0), 1.0)
            label = f"{_idx(t['estimate'])} [{_idx(t['lo'])}, {_idx(t['hi'])}]"
            label += f" (first {_idx(f['estimate'])})"
            style = f"background: rgba(31, 95, 168, {0.75 * shade:.2f})"
            cells.append(
                f'<td style="{style}" data-total="{shade:.3f}">{escape(keep_together(label))}</td>'
            )
        rows.append(f"<tr><th>{escape(metric)}</th>{''.join(cells)}</tr>")
    return Markup(
        f'<table class="t heat"><thead><tr><th>metric</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _idx(value: float | None) -> str:
    """A Sobol index (None where the metric does not vary: no share to give)."""
    return "–" if value is None else f"{value:.2f}"


def _region_table(data: dict) -> Markup | None:
    rows = [
        {"move": _moved(data, n["point"]), "size": n["move"], "imp": n["implausibility"]}
        for n in data["region"]["nearest"]
    ]
    if not rows:
        return None
    cols = [
        ("change from the config", text("move")),
        ("counts moved", num("size", 0)),
        ("largest implausibility", num("imp")),
    ]
    return table(pd.DataFrame(rows), cols)


def _confirmed_table(data: dict) -> Markup | None:
    rows = [
        {
            "point": _moved(data, c["point"]),
            "target": r["target"],
            "estimate [1 − 0.05/m]": _interval(r["target"], r["estimate"], r["lo"], r["hi"]),
            "verdict": "met" if r["met"] else "not met",
        }
        for c in data["region"].get("confirmed", [])
        for r in c["targets"]
    ]
    return words_table(rows)


def _held_out_table(data: dict) -> Markup:
    rows = [
        {
            "metric": n,
            "covered": f"{c['covered']} of {c['points']}",
            "width": c["width"],
            "spread": c["spread"],
        }
        for n, c in data["held_out"].items()
    ]
    cols = [
        ("metric", text("metric")),
        ("held-out points inside", text("covered")),
        ("mean 95% width", num("width", 4)),
        ("spread over the points (sd)", num("spread", 4)),
    ]
    return table(pd.DataFrame(rows), cols)


def _design_table(data: dict) -> Markup:
    names = list(data["space"])
    rows = []
    for i, p in enumerate(data["points"]):
        row = {"point": "config" if i == 0 else str(i), **{k: str(p["point"][k]) for k in names}}
        for m in ("seat_edge.seat0", "mean_score", "turns"):
            c = p["metrics"].get(m)
            row[m] = "–" if c is None else f"{c['estimate']:.3f}"
        rows.append(row)
    cols = [("point", text("point"))] + [(k, text(k)) for k in names]
    cols += [(m, text(m)) for m in ("seat_edge.seat0", "mean_score", "turns")]
    return table(pd.DataFrame(rows), cols)


def _js_unit(name: str) -> str:
    """How the page's script writes a metric: 'pp', '%' or 'number'."""
    unit, diff = _unit(name)
    return ("pp" if diff else "%") if unit == "share" else "number"


def _whatif(data: dict, result_folder: Path) -> dict:
    """What the page's script needs: the counts, how each moves the hand cards (the
    extra-turn inputs), the training inputs and every emulator."""
    start = _start(data)
    game = data["game"]
    bands = {b["name"]: [b["lo"], b["hi"]] for b in data["region"]["targets"]}
    return {
        "axes": [
            {"name": a.name, "values": list(a.values), "start": start[a.name]}
            for a in axes_of(data["space"])
        ],
        "hand": {
            "base": sum(game["deck"]["boxes"].values()) + game["deck"]["princesses"],
            "players": game["players"],
            "hand_size": game["hand_size"],
        },
        "x": data["inputs"],
        "emulators": data["emulators"],
        "units": {n: _js_unit(n) for n in data["emulators"]},
        "points": [
            {k: p[k] for k in ("point", "metrics", "runs") if k in p} for p in data["points"]
        ],
        "cutoff": data["region"]["cutoff"],
        "folder": str(result_folder),
        "bands": bands,
        "lineup": LINEUP,
    }
