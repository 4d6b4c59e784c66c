"""The `sim advise` page: the answer first (at most two short sentences, then the advice's
lines), how it was decided folded below it, then each level's seats, the causes, the fixes
and how the game plays. It renders `advice.json`'s data: nothing here plays or decides."""

from __future__ import annotations

from pathlib import Path

import yaml
from markupsafe import Markup

from sim import units
from sim.analysis.advice_words import advice_summary, feel_after_text, people_line, play_text
from sim.feel.chances import DECIDED
from sim.report.html import words_table, write_page
from sim.runs.paths import page_path
from sim.studies.advice import Advice
from sim.studies.tune_fair import TUNE_BY_ADVICE


def _cell(c: dict) -> str:
    return units.interval(c["estimate"], c["lo"], c["hi"], "share", diff=True) + " " + c["mark"]


def _seats_table(data: dict) -> Markup:
    """Seats down, levels across: each seat's edge over a fair share at each level."""
    cells = {(c["seat"], c["level"]): c for c in data["cells"]}
    seats = sorted({c["seat"] for c in data["cells"]})
    rows = [{"seat": str(k), **{lv: _cell(cells[k, lv]) for lv in data["levels"]}} for k in seats]
    return words_table(rows)


def _why_table(data: dict) -> Markup:
    rows = []
    for level in data["levels"]:
        for r in data["why"][level]["split"]:
            rows.append(
                {
                    "level": level,
                    "seat": str(r["seat"]),
                    "takes an extra turn": units.pct(r["extra_share"]),
                    "edge from extra turns (pp)": units.interval(
                        r["turn_part"], r["turn_lo"], r["turn_hi"], "share", True
                    ),
                    "edge at equal turns (pp)": units.interval(
                        r["equal_part"], r["equal_lo"], r["equal_hi"], "share", True
                    ),
                }
            )
    return words_table(rows)


def _fix_table(data: dict) -> Markup | None:
    """Each confirmed member of the set: its group, worst seat-level, cells inside, and
    every seat at every level on the confirmation's fresh games."""
    rows = []
    for f in data["fixes"]:
        state = (
            ("confirmed" if f["confirmed"] else "not every seat inside")
            if f["offered"]
            else "not offered"
        )
        after = "; ".join(
            f"{c['level']} s{c['seat']} {units.pp(c['estimate'])} {c['mark']}"
            for c in f["cells_detail"]
        )
        rows.append(
            {
                "change": "; ".join(f["text"]),
                "acts on": f["group"],
                "worst seat-level": f"{abs(f['worst_edge_pp']):.1f} pp"
                f" ({f['worst_at']['level']}, seat {f['worst_at']['seat']})",
                "✓": f"{f['inside']} of {f['cells']}",
                "verdict": state,
                "every seat-level after it": after,
                **({"how it feels after it": feel_after_text(f["feel"])} if f.get("feel") else {}),
            }
        )
    return words_table(rows)


def _fate(row: dict) -> str:
    if not row["dropped"]:
        return "finalist"
    if row.get("selected"):  # dropped by the race, played beside a finalist it neighbours
        return f"{row['dropped']}; selected beside its neighbour"
    return row["dropped"]


def _screen_table(data: dict) -> Markup | None:
    rows = [
        {
            "change": r["label"],
            "acts on": r["group"],
            "games": f"{r['games']:,}",
            "worst edge so far (pp)": "–" if r["worst_pp"] is None else f"{r['worst_pp']:+.1f}",
            "fate": _fate(r),
        }
        for r in data.get("screened", [])
    ]
    return words_table(rows)


def _play_table(data: dict) -> Markup:
    return words_table(
        [{"level": lv, "how it plays": play_text(data["play"][lv])} for lv in data["levels"]]
    )


def _feel_intro(data: dict) -> str | None:
    """What the feel's words mean, when the levels were measured with it (advice.json's
    intervals of those hold the chances model's own noise)."""
    if not any("suspense" in data["play"][lv] for lv in data["levels"]):
        return None
    return (
        "How tense it is comes from each game's chances of winning, round by round (as the"
        ' run page\'s "How it feels"): suspense is how far each round is expected to move'
        ' the chances, summed over the game (higher: in doubt for longer); "decided by the'
        " chances at\" is the share of the game after which the winner's chance never falls"
        f" below {DECIDED:.0%}. Their intervals, in advice.json, hold the chances model's own"
        " noise."
    )


def build_advise_report(result: Advice, out_path=None, force: bool = False) -> Path:
    """Write the `sim advise` page (default reports/<name>-advise.html) and return its path."""
    kind = result.data.get("asked_by", "advise")  # "tune": its fairness question, advise's
    where = page_path(kind, result.state.study, out_path)
    return write_page(where, force, "advise.html.j2", lambda: _advise_page(result, kind))


def _advise_page(result: Advice, kind: str) -> dict:
    data, study = result.data, result.state.study
    games = data["games"]
    spent = ", ".join(f"{k} {v:,}" for k, v in games.items() if k not in ("total", "budget"))
    sections = [
        {
            "id": "seats",
            "title": "Is it fair between equal players?",
            "table": _seats_table(data),
            "intro": "Every seat plays the same policy, one skill level at a time, seats rotated;"
            " each cell is the seat's win share minus a fair share, in percentage points,"
            " with its 95% interval (✓: inside the band, ✗: outside, ?: unclear).",
        },
        {
            "id": "why",
            "title": "Why",
            "table": _why_table(data),
            "intro": "Each seat's edge split into the part its extra turns add and the part at"
            " equal turns (the engine's turn parity, R7).",
        },
        {
            "id": "fix",
            "title": "The fix, judged by the whole game",
            "table": _fix_table(data),
            "intro": "The set of changes chosen on the screen's and the selection's games, each"
            " confirmed on other fresh games at every level: every seat-level's edge"
            " (✓ inside the band, ✗ outside, ? unclear). Best first.",
        },
        {
            "id": "screen",
            "title": "Every change tried",
            "table": _screen_table(data),
            "intro": "The screen's race on common random numbers: how far each change got and"
            " why it stopped.",
        },
        {
            "id": "play",
            "title": "How it plays",
            "table": _play_table(data),
            "intro": _feel_intro(data),
        },
    ]
    context = {
        "title": f"{study.name}: {'tune, by advise' if kind == 'tune' else 'advice'}",
        "summary": advice_summary(data),
        "people": people_line(data),
        "flips": bool(data.get("flips")),
        "lines": data["lines"],
        "family": data["family"][:1].upper() + data["family"][1:],
        "facts": [
            *([("Asked by", f"sim tune: {TUNE_BY_ADVICE}")] if kind == "tune" else []),
            ("Levels", ", ".join(data["levels"])),
            ("Games", f"{games['total']:,} of a budget of {games['budget']:,} ({spent})"),
            ("Seeds", ", ".join(f"{k} {v}" for k, v in data["seeds"].items())),
            ("Changes that cannot matter here", "; ".join(data["inert"]) or "none"),
            ("Folder", str(result.state.out_dir)),
        ],
        "sections": [s for s in sections if s.get("table") is not None],
        "config": yaml.safe_dump(study.to_yaml_dict(), sort_keys=False),
    }
    return context
