"""A study's findings in words: the sentences a designer reads first, from its tables.

Pure like the rest of `sim.analysis`: tables and numbers in, text out, every number
written by `sim.units`. The command line prints these lines and the pages show
them, so the terminal and the page always say the same.
"""

from __future__ import annotations

import pandas as pd

from sim import units
from sim.metrics import metric as registry_metric


def metric_text(metric: str, value: float, signed: bool = False, diff: bool | None = None) -> str:
    """A metric value as text by its registry unit (sim.units): shares in percent, a
    difference of shares (`signed`, or `diff` for an unsigned width) in pp, others to 3
    digits."""
    if pd.isna(value):
        return "–"
    unit = registry_metric(metric).unit
    return units.value(value, unit, diff=signed or bool(diff), signed=signed)


def metric_interval(metric: str, est: dict) -> str:
    """An estimate with its interval ({estimate, lo, hi}) by the metric's unit:
    '27.9% [27.3%, 28.5%]'."""
    return (
        f"{metric_text(metric, est['estimate'])} [{metric_text(metric, est['lo'])},"
        f" {metric_text(metric, est['hi'])}]"
    )


def sweep_findings(table: pd.DataFrame, limit: int = 6) -> list[str]:
    """Plain sentences for the biggest real changes from a sweep's first point to its last
    (`SweepStats.table`)."""
    t = table
    last = t["point"].max()
    if last == 0:
        return []
    end = t[(t["point"] == last) & t["real"] & (t["group"] != "cards")].copy()
    first = t[t["point"] == 0].set_index("metric")
    end["size"] = (end["diff"] / (end["diff_hi"] - end["diff_lo"])).abs()
    out = []
    for r in end.sort_values("size", ascending=False).head(limit).itertuples():
        a = first.loc[r.metric, "value"]
        out.append(
            f"{r.metric_label}: {metric_text(r.metric, a)} at {first.loc[r.metric, 'label']} → "
            f"{metric_text(r.metric, r.value)} at {r.label} (paired change "
            f"{metric_text(r.metric, r.diff, True)} [{metric_text(r.metric, r.diff_lo, True)}, "
            f"{metric_text(r.metric, r.diff_hi, True)}])"
        )
    return out


def compare_findings(t: pd.DataFrame, limit: int = 10) -> list[str]:
    """One sentence per real difference (card impacts left to the table), largest first."""
    la, lb = t.attrs.get("labels", ("A", "B"))
    real = t[t["real"] & (t["group"] != "cards")].copy()
    real["size"] = (real["diff"] / real["width"]).abs()
    return [
        f"{r.label}: {metric_text(r.metric, r.a)} ({la}) → {metric_text(r.metric, r.b)} ({lb}),"
        f" change {metric_text(r.metric, r.diff, True)} [{metric_text(r.metric, r.lo, True)},"
        f" {metric_text(r.metric, r.hi, True)}], adjusted p {r.p_adj:.2g} ({r.family})"
        for r in real.sort_values("size", ascending=False).head(limit).itertuples()
    ]


def value_verdict(
    values: pd.DataFrame, seat: int, seat_label: str, top: int = 5
) -> tuple[str, list[str]]:
    """The value study's headline and one line per most valuable option (`values.csv` rows:
    value, lo, hi in percentage points of win share)."""
    n = int(values["n"].iloc[0]) if len(values) else 0
    head = (
        f"Restricted play of line-up slot {seat} ({seat_label}) on {n:,} paired games per"
        f" option; the most valuable options first."
    )
    lines = [
        f"{units.card_label(r.option)}: win share"
        f" {units.interval(r.value / 100, r.lo / 100, r.hi / 100, 'share', diff=True)},"
        f" {units.number(r.score_loss, signed=True)} points;"
        f" {'real' if r.real else 'not shown'} (Holm p {r.p_adj:.2g})"
        for r in values.head(top).itertuples()
    ]
    return head, lines


def ladder_verdict(
    depth: int,
    depth_ci: tuple[float, float],
    chain_depth: int,
    chain_ci: tuple[float, float],
    steps: int,
    threshold: float,
) -> str:
    """Two sentences: the depth and the rating chain depth, with intervals and rules."""
    lo, hi = depth_ci
    clo, chi = chain_ci
    th = units.pct(threshold)
    return (
        f"Depth {depth} of {steps} steps (bootstrap 95% interval {lo:.0f}–{hi:.0f}):"
        f" consecutive rungs from the bottom whose upper rung wins at least {th} of heads-up"
        f" games with its 95% interval above 50%. Rating chain depth {chain_depth}"
        f" ({clo:.0f}–{chi:.0f}): the longest chain of rungs each beating the previous with at"
        f" least {th} by the heads-up ratings."
    )


def ladder_lines(steps: pd.DataFrame, ratings: pd.DataFrame) -> list[str]:
    """One line per match (share with its interval, fair share, n) and one of the ratings."""
    lines = [
        f"  {r.upper} v {r.lower} ({r.players}p): "
        f"{units.interval(r.share, r.lo, r.hi, 'share')}"
        f" (fair {units.pct(r.fair)}, n {r.n:,})"
        for r in steps.itertuples()
    ]
    lines.append(
        "  ratings (Elo): "
        + ", ".join(
            f"{r.rung} {r.elo:.0f} [{r.elo_lo:.0f}, {r.elo_hi:.0f}]" for r in ratings.itertuples()
        )
    )
    return lines


def luck_lines(table: pd.DataFrame) -> list[str]:
    """One line per policy and outcome: the deal's share with its interval."""
    return [
        f"{r.policy}: the deal explains {units.interval(r.deal_share, r.lo, r.hi, 'share')} of"
        f" the variance of {'who wins' if r.outcome == 'win_share' else 'the lead'}"
        for r in table.itertuples()
    ]


# ---------------------------------------------------------------- sim advise


def _edge(e: dict) -> str:
    """A seat's edge with its interval, in percentage points: '+3.9 pp [+2.8, +5.0]'."""
    return units.interval(e["estimate"], e["lo"], e["hi"], "share", diff=True)


def _seat(name: str) -> str:
    k = name.removeprefix("seat_edge.seat")
    return "seat 0 (the first player)" if k == "0" else f"seat {k}"


def seat_edges_text(targets: dict[str, dict]) -> str:
    """Every seat's edge over a fair share at one level, flagging those outside the band."""
    parts = []
    for name, e in targets.items():
        if not name.startswith("seat_edge."):
            continue
        flag = {"met": "", "missed": " (outside the band)", "unclear": " (unclear)"}
        parts.append(f"{_seat(name).split(' (')[0]} {_edge(e)}{flag[e['verdict']]}")
    return "; ".join(parts)


def advice_lines(data: dict) -> list[str]:
    """`sim advise`'s answer in a designer's words: fair or not between equal players, why,
    the smallest confirmed fix of each problem (and what it does to the other seats), how to
    see it, and how the game plays at each level."""
    levels, bands = data["levels"], data["bands"]
    band = next(iter(bands.values()), [-0.025, 0.025])
    width = units.pp((band[1] - band[0]) / 2, signed=False)
    name, status = data["name"], data["status"]
    held = f"every seat held to within {width} of a fair share at {', '.join(levels)}"
    head = {
        "fair": f"{name}: fair between equal players ({held}). No change needed.",
        "unclear": f"{name}: no seat is shown outside its band, but not every one is shown inside"
        f" ({held}): more games would tell. No change proposed.",
        "not fair": f"{name}: not fair between equal players ({held}).",
    }[status]
    lines = [head]
    shown: list[dict] = []  # fixes already written out in full
    for f in data["findings"]:
        if f["metric"] != "every seat":
            lines += _finding_lines(f, levels, shown)
    every = next((f for f in data["findings"] if f["metric"] == "every seat"), None)
    if every is not None:
        lines.append(f"  every seat inside the band at every level: {_every_text(every)}")
    if data.get("unclear"):
        shown = ", ".join(f"{_seat(u['metric']).split(' (')[0]} at {u['level']}"
                          for u in data["unclear"])  # fmt: skip
        lines.append(f"  unclear (inside the band by its estimate, more games would tell): {shown}")
    for level in levels:
        lines.append(f"  how it plays ({level}): {play_text(data['play'][level])}")
    return lines


def _finding_lines(f: dict, levels: list[str], shown: list[dict]) -> list[str]:
    """A seat problem: where it is off and by how much, why, its smallest fix, the fix's side
    effects and the command that shows it (a fix already written out for another seat: only
    what it does to this one)."""
    name = f["metric"]
    at = {lv: f["levels"][lv][name] for lv in levels}
    off = [f"{'ahead' if at[lv]['estimate'] > 0 else 'behind'} at {lv} ({_edge(at[lv])})"
           for lv in f["problem_at"]]  # fmt: skip
    rest = [f"{lv} {_edge(at[lv])}" for lv in levels if lv not in f["problem_at"]]
    lines = [f"  {_seat(name)} is {' and '.join(off)}" + (f"; {', '.join(rest)}" if rest else "")]
    why = _why_line(f)
    if why:
        lines.append(f"    why: {why}")
    fix = f["fix"]
    if fix is None:
        lines.append("    fix: no single change tried comes close enough to confirm")
        return lines
    after = {lv: t[name] for lv, t in fix["levels"].items()}
    inside = [lv for lv, e in after.items() if e["verdict"] == "met"]
    where = ("inside the band at every level" if len(inside) == len(after)
             else f"inside the band at {', '.join(inside)} only" if inside
             else "not shown inside the band at any level")  # fmt: skip
    values = ", ".join(f"{units.pp(e['estimate'])} at {lv}" for lv, e in after.items())
    if fix["changes"] in shown:
        lines.append(f"    the same fix, {'; '.join(fix['text'])}: then {values}; {where}")
        return lines
    shown.append(fix["changes"])
    lines.append(f"    smallest fix: {'; '.join(fix['text'])}: then {values}; {where}"
                 " (confirmed on fresh games)")  # fmt: skip
    side = sorted(((lv, n, e) for lv, t in fix["levels"].items() for n, e in t.items()
                   if n != name and n.startswith("seat_edge.") and e["verdict"] != "met"),
                  key=lambda x: -abs(x[2]["estimate"]))  # fmt: skip
    if side:
        worst = "; ".join(f"{_seat(n).split(' (')[0]} {_edge(e)} at {lv}" for lv, n, e in side[:2])
        more = f" and {len(side) - 2} more" if len(side) > 2 else ""
        lines.append(f"    but then: {worst}{more} not shown inside the band")
    lines.append(f"    see it: {fix['command']}")
    return lines


def _every_text(every: dict) -> str:
    fix = every["fix"]
    if fix is None:
        return "no single change tried comes close"
    if fix["meets_band"]:
        return f"{'; '.join(fix['text'])} does it (confirmed on fresh games)"
    met = sum(e["verdict"] == "met" for t in fix["levels"].values() for n, e in t.items()
              if n in every["targets"])  # fmt: skip
    total = len(every["targets"]) * len(fix["levels"])
    return (f"no single change tried does it; closest: {'; '.join(fix['text'])} ({met} of"
            f" {total} seats and levels inside the band)")  # fmt: skip


def _why_line(finding: dict) -> str | None:
    """The extra turn's part of a seat's edge at the level where the edge is largest."""
    name = finding["metric"]
    seat = f"seat{name.removeprefix('seat_edge.seat')}"
    worst = max(finding["levels"], key=lambda lv: abs(finding["levels"][lv][name]["estimate"]))
    split = finding["cause"].get(worst, {}).get(seat)
    if not split:
        return None
    turn = units.interval(split["turn_part"], split["turn_lo"], split["turn_hi"], "share", True)
    equal = units.interval(split["equal_part"], split["equal_lo"], split["equal_hi"], "share",
                           True)  # fmt: skip
    extra = split["extra_share"]
    if abs(split["turn_part"]) < abs(split["equal_part"]):
        return f"mostly play at equal turns ({worst}): {equal}; the turns add {turn}"
    if split["turn_part"] > 0:
        return (f"it takes an extra turn in {units.pct(extra)} of games ({worst}): {turn} of its"
                f" edge comes from that turn, {equal} from play at equal turns")  # fmt: skip
    return (f"it takes fewer turns than the first seats ({worst}): {turn} of its edge comes from"
            f" the turns it lacks, {equal} from play at equal turns")  # fmt: skip


def play_text(play: dict[str, dict]) -> str:
    """How a game plays, in one line: length, spread, when it is decided, lead changes,
    comebacks, items wasted (a target's verdict where the config gives one)."""
    words = {"turns": "turns", "score_sd": "score spread", "decided_at": "decided at",
             "lead_changes": "lead changes", "comeback": "comebacks",
             "items_wasted": "items wasted"}  # fmt: skip
    parts = []
    for name, e in play.items():
        text = f"{words.get(name, name)} {metric_text(name, e['estimate'])}"
        if e.get("verdict"):
            text += f" ({e['verdict']})"
        parts.append(text)
    return ", ".join(parts)


def advice_summary(data: dict) -> str:
    """The advice in at most two short sentences (about 250 characters): the page's first
    paragraph."""
    levels = data["levels"]
    if data["status"] == "fair":
        return (f"Fair between equal players: at every level ({', '.join(levels)}) every seat"
                " wins within its band of a fair share. No change needed.")  # fmt: skip
    if data["status"] == "unclear":
        return ("No seat is shown outside its band of a fair share, but not every one is shown"
                " inside: more games would tell. No change proposed.")  # fmt: skip
    seats = [f for f in data["findings"] if f["metric"] != "every seat"]
    first = max(seats, key=lambda f: max(abs(f["levels"][lv][f["metric"]]["estimate"])
                                         for lv in f["problem_at"]))  # fmt: skip
    worst = max(first["problem_at"], key=lambda lv: abs(first["levels"][lv][first["metric"]][
        "estimate"]))  # fmt: skip
    e = first["levels"][worst][first["metric"]]
    way = "ahead" if e["estimate"] > 0 else "behind"
    why = _why_line(first) or ""
    cause = ", from its extra turn" if "comes from that turn" in why else ""
    more = len(seats) - 1
    others = f" ({units.plural(more, 'more seat')} off)" if more else ""
    seat = _seat(first["metric"]).split(" (")[0]
    by = units.pp(abs(e["estimate"]), signed=False)
    head = f"Not fair between equal players: {seat} is {way} by {by} at {worst}{cause}{others}."
    fix = first["fix"]
    if fix is not None and fix["meets_band"]:
        tail = f"Smallest fix, confirmed at every level: {fix['text'][0]}."
    elif fix is not None:
        tail = f"Closest single change: {fix['text'][0]} (not at every level)."
    else:
        tail = "No single change tried brings it inside the band."
    return f"{head} {tail}"


# ---------------------------------------------------------------- sim calibrate


def bound(x: float) -> str:
    """One end of an interval of weights: three digits, '-∞' or '+∞' when unbounded."""
    if pd.isna(x):
        return "–"
    if x in (float("inf"), float("-inf")):
        return "+∞" if x > 0 else "-∞"
    return units.number(x)


def weight_interval(value: float, lo: float, hi: float) -> str:
    """'-0.417 [-0.481, -0.354]', with unbounded ends as ∞."""
    return f"{units.number(value)} [{bound(lo)}, {bound(hi)}]"


def calibration_lines(
    name: str, table: pd.DataFrame, scale, heldout: pd.DataFrame | None, warnings: list[str]
) -> list[str]:
    """What a fit found, in a few lines: the temperature and the unit, each weight with its
    interval and the decisions behind it, the held-out comparison, the warnings."""
    lines = []
    if scale.points:
        temp = weight_interval(scale.temperature, scale.lo, scale.hi)
        lines.append(f"{name}: temperature {temp} points ({scale.unit})")
    else:
        lines.append(f"{name}: {scale.unit}")
    lines.append(f"  {'feature':<18} {'weight':>8}  {'95% interval':<22} decisions")
    for r in table.itertuples():
        if not r.fitted:
            text = "not fitted (0)"
        elif scale.points and r.feature == "own_points":
            text = f"{1:>8}  {'(the unit)':<22}"
        else:
            span = f"[{bound(r.weight_lo)}, {bound(r.weight_hi)}]"
            text = f"{units.number(r.weight):>8}  {span:<22}"
        lines.append(f"  {r.feature:<18} {text} {r.n_decisions:,}")
    if heldout is not None:
        lines.append(heldout_line(heldout))
    lines += [f"  warning: {w}" for w in warnings]
    return lines


def heldout_line(heldout: pd.DataFrame) -> str:
    """The fit on held-out games against the best of the other models, by top-1 matching."""
    first = heldout.iloc[0]
    others = heldout.iloc[1:]
    best = others.loc[others["top1"].idxmax()]
    gain = units.interval(
        best["gain_top1"], best["gain_top1_lo"], best["gain_top1_hi"], "share", diff=True
    )
    return (
        f"  held out ({first['games']:,} games, {first['decisions']:,} decisions): top-1"
        f" {units.interval(first['top1'], first['top1_lo'], first['top1_hi'], 'share')},"
        f" log-likelihood {first['loglik']:.3f} per decision; best other model {best['model']}"
        f" {units.pct(best['top1'])}: calibrated {gain}"
    )


def players_line(differ: dict | None) -> str:
    """The likelihood-ratio test of 'one model fits every player', in a sentence."""
    if differ is None:
        return "players: one player only, nothing to compare"
    p = differ["p"]
    shown = "< 1e-4" if p < 1e-4 else f"{p:.2g}"
    verdict = "the players differ" if p < 0.05 else "no evidence that the players differ"
    return (
        f"{verdict}: likelihood ratio {differ['lr']:.1f} on {differ['df']} degrees of freedom,"
        f" p {shown} ({differ['players']} players; a test at 5% that assumes each plays as a"
        " logit player)"
    )
