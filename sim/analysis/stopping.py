"""How a study run with `--until decided` stopped: the record its files keep, and its words.

`stop_record` turns a monitor's last look into plain data (run.json and study.json keep
it under "stopped", summary.json repeats it); `stop_lines` says it: how many games, at
most how many, why it stopped, and each question's estimate with its anytime-valid
interval and decision (or its forecast). The record is all a page or a later command
needs: nothing is computed again from the games.
"""

from __future__ import annotations

import math

from sim import units
from sim.analysis.sequential import Answer, Monitor
from sim.metrics import metric

ANYTIME = "anytime-valid"  # how the record's intervals are marked


def answer_record(a: Answer) -> dict:
    """One question's answer as plain data."""
    q = a.question
    out = {
        "question": q.name,
        "metric": q.metric,
        "kind": q.kind,
        "point": q.point,
        "family": q.family,
        "level": a.level,
        "games": a.games,
        "value": _plain(a.value),
        "lo": _plain(a.lo),
        "hi": _plain(a.hi),
        "decision": a.decision,
        "interval": a.method,
    }
    if q.kind == "target":
        out["band"] = list(q.band)
    else:
        out["null"] = q.null
        out["margin"] = q.margin
    if a.decision is None:
        out["more_games"] = a.more_games
    return out


def stop_record(
    monitor: Monitor, max_games: int, played_all: bool, min_games: int = 0, points: int = 1
) -> dict:
    """How the monitoring ended: games per point (of `points`), the cap, whether every
    question was decided, the reason in words and each question's answer (with a forecast
    when open)."""
    decided = monitor.decided
    answers = monitor.answers if decided else monitor.forecast()
    open_, total = sum(a.decision is None for a in answers), len(answers)
    if decided and monitor.games > min_games:
        reason = "every question decided"
    elif decided:
        reason = f"every question decided within the {min_games:,} games it already held"
    elif played_all:
        reason = f"{open_} of {total} questions still open at the cap"
    else:
        reason = f"{open_} of {total} questions still open"
    return {
        "until": "decided",
        "status": "stopped",
        "games": monitor.games,
        "points": points,
        "min_games": min_games,
        "max_games": max_games,
        "decided": decided,
        "reason": reason,
        "intervals": ANYTIME,
        "alpha": monitor.alpha,
        "looks": "after every chunk, in game-index order",
        "multiplicity": "each family's share of alpha split by Bonferroni over its questions;"
        " the primary metric's family alone at alpha",
        "questions": [answer_record(a) for a in answers],
    }


def answer_text(r: dict) -> str:
    """'first-player advantage: +3.4 pp [+1.1, +5.8] (anytime-valid at 95%), real: higher'
    or '... undecided: about 6,000 more games'."""
    m = metric(r["metric"])
    diff = r["kind"] == "difference" or m.fair == 0.0
    nan = math.nan
    shown = units.interval(
        *(nan if r[k] is None else r[k] for k in ("value", "lo", "hi")), m.unit, diff=diff
    )
    level = f"{(1 - r['level']) * 100:.4g}%"
    text = f"{r['question']}: {shown} ({ANYTIME} at {level})"
    if r["decision"] is not None:
        return f"{text}, {r['decision']}"
    more = r.get("more_games")
    return f"{text}, undecided" + (f": about {about(more)} more games" if more else "")


def about(games: int) -> str:
    """A forecast of games to two significant figures: '81,000', '6,300', '450'."""
    if games < 100:
        return f"{games:,}"
    step = 10 ** (len(str(int(games))) - 2)
    return f"{round(games / step) * step:,}"


def stop_lines(record: dict | None) -> list[str]:
    """The stop in words: one line for the run, one per question (empty: not monitored)."""
    if not record:
        return []
    each = " per point" if record.get("points", 1) > 1 else ""
    head = (
        f"Stopped after {record['games']:,} games{each} (at most {record['max_games']:,}):"
        f" {record['reason']}; the intervals below are {ANYTIME} confidence sequences,"
        " looked at after every chunk"
    )
    return [head, *(f"  {answer_text(r)}" for r in record["questions"])]


def _plain(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def stopped_record(meta: dict) -> dict | None:
    """The record of how a run or study stopped when decided, from its run.json or
    study.json (None: a fixed number of games, or still running)."""
    record = meta.get("until")
    return record if isinstance(record, dict) and record.get("status") == "stopped" else None


def annotate_summary(summary: dict, record: dict | None) -> dict:
    """A run's summary.json with how it stopped: the record under "stopped", its sentence,
    and beside each metric a question decided (its fixed-n interval stays as it was) that
    question's anytime-valid interval and decision under "anytime"."""
    if not record:
        return summary
    lines = stop_lines(record)
    summary["stopped"] = {**record, "sentence": lines[0], "lines": lines[1:]}
    by_metric = {r["metric"]: r for r in record["questions"] if r["point"] == 0}
    for item in summary.get("metrics", []):
        r = by_metric.get(item["metric"])
        if r is not None:
            item["anytime"] = {k: r[k] for k in ("lo", "hi", "level", "decision", "interval")}
    return summary


def page_lines(meta: dict) -> list[str]:
    """`stop_lines` of a run.json's or study.json's record, for a page (no indentation)."""
    return [line.strip() for line in stop_lines(stopped_record(meta))]
