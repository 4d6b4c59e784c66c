"""The `sim advise` page: the answer first (at most two short sentences, then the advice's
lines), how it was decided folded below it, then each level's seats, the causes, the fixes
and how the game plays. It renders `advice.json`'s data: nothing here plays or decides."""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd
import yaml
from markupsafe import Markup

from sim import units
from sim.analysis.findings import advice_summary, play_text
from sim.report.html import render_template, table, text
from sim.runs.paths import check_report_path, page_path
from sim.runs.storage import write_text
from sim.studies.advise import Advice


def _edge(e: dict) -> str:
    mark = {"met": "", "missed": " ✗", "unclear": " ?"}[e["verdict"]]
    return units.interval(e["estimate"], e["lo"], e["hi"], "share", diff=True) + mark


def _seats_table(data: dict) -> Markup:
    """Seats down, levels across: each seat's edge over a fair share at each level."""
    seats = [n for n in data["bands"] if n.startswith("seat_edge.")]
    rows = []
    for name in seats:
        row = {"seat": name.removeprefix("seat_edge.seat")}
        for level in data["levels"]:
            row[level] = _edge(data["diagnosis"][level][name])
        rows.append(row)
    cols = [("seat", text("seat")), *((lv, text(lv)) for lv in data["levels"])]
    return table(pd.DataFrame(rows), cols)


def _why_table(data: dict) -> Markup:
    rows = []
    for level in data["levels"]:
        for r in data["why"][level]["split"]:
            rows.append(
                {"level": level, "seat": str(r["seat"]), "extra": units.pct(r["extra_share"]),
                 "turn": units.interval(r["turn_part"], r["turn_lo"], r["turn_hi"], "share", True),
                 "equal": units.interval(r["equal_part"], r["equal_lo"], r["equal_hi"], "share",
                                         True)}
            )  # fmt: skip
    cols = [("level", text("level")), ("seat", text("seat")),
            ("takes an extra turn", text("extra")), ("edge from extra turns (pp)", text("turn")),
            ("edge at equal turns (pp)", text("equal"))]  # fmt: skip
    return table(pd.DataFrame(rows), cols)


def _fix_table(data: dict) -> Markup | None:
    rows = []
    for f in data["findings"]:
        fix = f["fix"]
        if fix is None:
            continue
        problem, change = f["metric"].replace("seat_edge.", ""), "; ".join(fix["text"])
        for level, targets in fix["levels"].items():
            seats = {n: e for n, e in targets.items() if n.startswith("seat_edge.")}
            after = "; ".join(
                f"{n.removeprefix('seat_edge.')} {_edge(e)}" for n, e in seats.items()
            )
            rows.append({"problem": problem, "fix": change, "level": level, "after": after})
    if not rows:
        return None
    cols = [("problem", text("problem")), ("fix", text("fix")), ("level", text("level")),
            ("every seat after the fix (pp, ✗ outside the band)", text("after"))]  # fmt: skip
    return table(pd.DataFrame(rows), cols)


def _play_table(data: dict) -> Markup:
    rows = [{"level": lv, "play": play_text(data["play"][lv])} for lv in data["levels"]]
    return table(pd.DataFrame(rows), [("level", text("level")), ("how it plays", text("play"))])


def build_advise_report(result: Advice, out_path=None, force: bool = False) -> Path:
    """Write the `sim advise` page (default reports/<name>-advise.html) and return its path."""
    t0 = time.perf_counter()
    data, study = result.data, result.state.study
    out = check_report_path(page_path("advise", study, out_path), force)
    games = data["games"]
    spent = ", ".join(f"{k} {v:,}" for k, v in games.items() if k not in ("total", "budget"))
    sections = [
        {"id": "seats", "title": "Is it fair between equal players?", "table": _seats_table(data),
         "intro": "Every seat plays the same policy, one skill level at a time, seats rotated;"
                  " each cell is the seat's win share minus a fair share, in percentage points,"
                  " with its 95% interval (✗: outside the band, ?: unclear)."},
        {"id": "why", "title": "Why", "table": _why_table(data),
         "intro": "Each seat's edge split into the part its extra turns add and the part at equal"
                  " turns (the engine's turn parity, R7)."},
        {"id": "fix", "title": "The smallest fix", "table": _fix_table(data),
         "intro": "For each problem, the one-setting change chosen on fresh games and confirmed"
                  " on other fresh games; what it does to every seat."},
        {"id": "play", "title": "How it plays", "table": _play_table(data)},
    ]  # fmt: skip
    context = {
        "title": f"{study.name}: advice",
        "summary": advice_summary(data),
        "lines": data["answer"],
        "family": data["family"][:1].upper() + data["family"][1:],
        "facts": [
            ("Levels", ", ".join(data["levels"])),
            ("Games", f"{games['total']:,} of a budget of {games['budget']:,} ({spent})"),
            ("Seeds", ", ".join(f"{k} {v}" for k, v in data["seeds"].items())),
            ("Changes that cannot matter here", "; ".join(data["inert"]) or "none"),
            ("Folder", str(result.state.out_dir)),
        ],
        "sections": [s for s in sections if s.get("table") is not None],
        "config": yaml.safe_dump(study.to_yaml_dict(), sort_keys=False),
    }
    context["build_s"] = f"{time.perf_counter() - t0:.1f}"
    write_text(out, render_template("advise.html.j2", context))
    return out
