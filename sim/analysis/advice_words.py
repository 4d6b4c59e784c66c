"""`sim advise`'s answer in a designer's words, from advice.json's data alone.

One vocabulary (`sim.analysis.whole_game`): a seat-level is ✓ inside its band, ✗ outside it
or ? unclear (its interval straddles an edge). The game is "not fair" only with at least one
✗; with none, but some ?, it is "unclear" and the line says how many cells more games would
settle; "fair" needs every cell ✓. A fix is named with the group it belongs to (what it acts
on), its worst seat-level edge on fresh games, and how many others are as good.
"""

from __future__ import annotations

from sim import units
from sim.analysis.findings import metric_interval, metric_text
from sim.analysis.turn_split import from_turns
from sim.metrics import metric as registry_metric

STATUS_WORD = {"fair": "Fair", "not fair": "Not fair", "unclear": "Unclear"}


def _pp(x: float) -> str:
    return units.pp(x, signed=True)


def _cell_text(c: dict) -> str:
    return f"{units.interval(c['estimate'], c['lo'], c['hi'], 'share', diff=True)} {c['mark']}"


def seat_cells_text(cells: list[dict]) -> str:
    """One level's seats: 'seat 0 +3.2 pp [+2.2, +4.3] ?; seat 1 -2.4 pp [...] ✓; ...'."""
    return "; ".join(f"seat {c['seat']} {_cell_text(c)}" for c in cells)


def _band(data: dict) -> str:
    band = next(iter(data["bands"].values()), [-0.025, 0.025])
    return f"±{units.pp((band[1] - band[0]) / 2, signed=False)}"


def _counts(data: dict) -> str:
    k = data["counts"]
    marks = (("outside", "✗"), ("unclear", "?"))
    parts = [f"{k['inside']} ✓"] + [f"{k[w]} {m}" for w, m in marks if k[w]]
    return f"{', '.join(parts)} of {k['cells']} seat-levels"


def _short(data: dict) -> str:
    """'1 ✗, 2 ? of 12': the cells that are not inside."""
    k = data["counts"]
    # "unclear" in words: a "?" before a space would read as the end of a sentence
    marks = [f"{k[w]} {m}" for w, m in (("outside", "✗"), ("unclear", "unclear")) if k[w]]
    return f"{', '.join(marks)} of {k['cells']}"


def _worst_problem(data: dict) -> dict | None:
    """The problem cell with the largest edge (✗ first)."""
    cells = data["problems"]
    if not cells:
        return None
    return max(cells, key=lambda c: (c["verdict"] == "missed", abs(c["estimate"])))


def _way(c: dict) -> str:
    by = units.pp(abs(c["estimate"]), signed=False)
    way = "ahead" if c["estimate"] > 0 else "behind"
    return f"seat {c['seat']} is {way} by {by} at {c['level']}"


def _from_turns(data: dict, cell: dict) -> bool:
    """Does the seat's extra turn make most of its edge (clear of 0, larger than the rest)?"""
    split = next(
        (s for s in data["why"][cell["level"]]["split"] if s["seat"] == cell["seat"]), None
    )
    return split is not None and from_turns(split) and split["turn_part"] > 0


def why_text(data: dict, cell: dict) -> str | None:
    """The extra turn's part of a seat's edge at its level, from the diagnosis's split."""
    split = next(
        (s for s in data["why"][cell["level"]]["split"] if s["seat"] == cell["seat"]), None
    )
    if split is None:
        return None
    turn = units.interval(split["turn_part"], split["turn_lo"], split["turn_hi"], "share", True)
    equal = units.interval(split["equal_part"], split["equal_lo"], split["equal_hi"], "share", True)
    where = f"seat {cell['seat']} at {cell['level']}"
    if abs(split["turn_part"]) < abs(split["equal_part"]):
        return f"{where}: mostly play at equal turns, {equal}; its turns add {turn}"
    if split["turn_part"] > 0:
        return (
            f"{where} takes an extra turn in {units.pct(split['extra_share'])} of games:"
            f" {turn} of its edge comes from that turn, {equal} from play at equal turns"
        )
    return (
        f"{where} takes fewer turns than the first seats: {turn} of its edge comes from the"
        f" turns it lacks, {equal} from play at equal turns"
    )


def status_sentence(data: dict) -> str:
    """The first sentence: fair, not fair or unclear, in the cells' own words."""
    band, counts = _band(data), _counts(data)
    status = data["status"]
    if status == "fair":
        return (
            f"Fair between equal players: every seat is within {band} of a fair share at"
            f" every level ({counts})."
        )
    worst = _worst_problem(data)
    if status == "not fair":
        cause = ", mostly from its extra turn" if _from_turns(data, worst) else ""
        return f"Not fair between equal players: {_way(worst)}{cause} ({_short(data)})."
    head = (
        f"Unclear: no seat is shown outside its band of {band}, {data['counts']['unclear']}"
        f" of {data['counts']['cells']} seat-levels straddle it (?); more games would tell"
    )
    if worst is not None:
        return f"{head}; {_way(worst).replace(' is ', ' is probably ', 1)}."
    return head + "."


def _others(fixes: list[dict]) -> str:
    rest = len(fixes) - 1
    return f"; {rest} other{'s' if rest > 1 else ''} as good" if rest else ""


def fix_sentence(data: dict) -> str:
    """The second sentence: the best confirmed change, its worst seat-level edge on fresh
    games, how many others of its group are as good; or why there is none."""
    if data["status"] == "fair" or not data["problems"]:
        return "No change needed."
    offered = [f for f in data["fixes"] if f["offered"]]
    if not offered:
        if data["fixes"]:
            return (
                "No single change tried helps the whole game: on fresh games each leaves a"
                " seat further outside its band, or the worst edge no smaller."
            )
        return "No single change tried comes close enough to confirm."
    lead = offered[0]
    same = [f for f in offered if f.get("as_good_as_lead")] or [lead]
    worst = units.pp(abs(lead["worst_edge_pp"]) / 100, signed=False)
    tail = f"{lead['inside']} of {lead['cells']} ✓"
    if lead["confirmed"]:
        return (
            f"Fix: {lead['text'][0]}, confirmed on fresh games: every seat within {worst}"
            f" ({tail}){_others(same)}."
        )
    return (
        f"Best change: {lead['text'][0]}, worst seat-level {worst} on fresh games"
        f" ({tail}){_others(same)}."
    )


def _tell(lead: dict, other: dict) -> str:
    """How far apart two fixes' worst edges are, and about how many more games would tell
    them apart (the intervals shrink as one over the square root of the games)."""
    gap = abs(abs(other["worst_edge_pp"]) - abs(lead["worst_edge_pp"]))
    half = max((lead["worst_abs_pp"][1] - lead["worst_abs_pp"][0]) / 2, 1e-9)
    if gap < 0.05:
        return "the same worst edge to 0.1 pp: no affordable number of games would tell them apart"
    times = (2 * half / gap) ** 2
    return (
        f"worst edges {gap:.1f} pp apart within intervals of about ±{half:.1f} pp; about"
        f" {times:.0f} times the confirmation's games would tell them apart"
    )


def advice_summary(data: dict) -> str:
    """The page's first paragraph: at most two sentences."""
    return f"{status_sentence(data)} {fix_sentence(data)}"


def advice_lines(data: dict) -> list[str]:
    """The details under the summary: each level's seats, why, the fixes (each with its
    group, worst edge and cells, and the command that shows it), how the game plays."""
    lines = [
        f"{data['name']}: {data['status']} between equal players"
        f" ({_counts(data)}, band {_band(data)})"
    ]
    if people := people_line(data):
        lines.append(f"  {people}")
    for level in data["levels"]:
        cells = [c for c in data["cells"] if c["level"] == level]
        games = data.get("diagnosis_games", {}).get(level)
        at = f" ({games:,} games)" if games else ""
        lines.append(f"  {level}{at}: {seat_cells_text(cells)}")
    worst = _worst_problem(data)
    if worst is not None and (why := why_text(data, worst)):
        lines.append(f"  why: {why}")
    for i, f in enumerate(data["fixes"]):
        word = (
            ("confirmed" if f["confirmed"] else "not every seat inside")
            if f["offered"]
            else "not offered: "
            + (
                "moves a problem to another seat-level"
                if f["moved"]
                else "no better than the start"
            )
        )
        lo, hi = f["worst_abs_pp"]
        lines.append(
            f"  {'fix' if i == 0 and f['offered'] else 'also'}: {'; '.join(f['text'])}"
            f" [{f['group']}]: worst seat-level {abs(f['worst_edge_pp']):.1f} pp"
            f" ({lo:.1f}-{hi:.1f}) at {f['worst_at']['level']} seat"
            f" {f['worst_at']['seat']}, {f['inside']} of {f['cells']} ✓; {word}"
        )
        if f.get("feel"):
            lines.append(f"    how it feels after it: {feel_after_text(f['feel'])}")
        if f["offered"]:
            lines.append(f"    see it: {f['command']}")
        if i and f.get("as_good_as_lead"):
            lines.append(f"    as good as the first: {_tell(data['fixes'][0], f)}")
    for level in data["levels"]:
        lines.append(f"  how it plays ({level}): {play_text(data['play'][level])}")
    return lines


def feel_after_text(feel: dict[str, dict[str, dict]]) -> str:
    """A fix's feel targets after it, level by level ({level: {metric: entry}}): 'suspense
    on target at every level', else each level's interval and verdict."""
    words = {"met": "on target", "missed": "off target", "unclear": "unclear"}
    names = list(dict.fromkeys(n for at in feel.values() for n in at))
    out = []
    for name in names:
        label = name
        at = {lv: e[name] for lv, e in feel.items() if name in e}
        if all(e["verdict"] == "met" for e in at.values()):
            out.append(f"{label} on target at every level")
            continue
        out.append(
            f"{label} "
            + ", ".join(
                f"{metric_interval(name, e)} {words[e['verdict']]} at {lv}" for lv, e in at.items()
            )
        )
    return "; ".join(out)


def level_verdicts(targets: dict[str, dict], play: dict[str, dict]) -> dict[str, str]:
    """One level's verdicts in words, by finding: each seat's edge ('real' outside its band,
    'within the band', 'unclear') and each play target the config gives ('on target', 'off
    target', 'unclear'): what `sim.analysis.flips` compares between people and bots."""
    seat_words = {"met": "within the band", "missed": "real", "unclear": "unclear"}
    play_words = {"met": "on target", "missed": "off target", "unclear": "unclear"}
    out = {}
    for name, e in targets.items():
        if name.startswith("seat_edge."):
            k = name.removeprefix("seat_edge.seat")
            finding = "first-player advantage" if k == "0" else f"seat {k}'s edge"
            out[finding] = seat_words[e["verdict"]]
    for name, e in play.items():
        if e.get("verdict") in play_words:
            out[registry_metric(name).label] = play_words[e["verdict"]]
    return out


def people_line(data: dict) -> str | None:
    """With a calibrated level: the findings whose verdict changes between the bots and
    players like yours, or that they all agree."""
    people = data.get("people")
    if people is None:
        return None
    if data.get("flips"):
        return data["flips"]
    return (
        f"Players like yours ({people}) and the bots ({', '.join(data['bots'])}) agree on"
        " every verdict."
    )


def play_text(play: dict[str, dict]) -> str:
    """How a game plays, in one line: length, spread, when it is decided, lead changes,
    comebacks, items wasted, and where measured its suspense and the moment the chances
    decide it (a target's verdict where the config gives one)."""
    words = {
        "turns": "turns",
        "score_sd": "score spread",
        "decided_at": "decided at",
        "lead_changes": "lead changes",
        "comeback": "comebacks",
        "items_wasted": "items wasted",
        "suspense": "suspense",
        "decisive_moment": "decided by the chances at",
    }
    parts = []
    for name, e in play.items():
        text = f"{words.get(name, name)} {metric_text(name, e['estimate'])}"
        if e.get("verdict"):
            text += f" ({e['verdict']})"
        parts.append(text)
    return ", ".join(parts)
