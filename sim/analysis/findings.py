"""A study's findings in words: the sentences a designer reads first, from its tables.

Pure like the rest of `sim.analysis`: tables and numbers in, text out, every number
written by `sim.units`. The command line prints these lines and the pages show
them, so the terminal and the page always say the same.
"""

from __future__ import annotations

from collections import Counter

import pandas as pd

from sim import units
from sim.metrics import metric as registry_metric

# A page's first paragraph (and the terminal's first answer): at most two short sentences.
LEAD_LIMIT = 250  # characters


def lead(*sentences: str) -> str:
    """The first paragraph: the first sentence, then each next one while the whole stays
    within LEAD_LIMIT characters (a sentence that does not fit is left to the details)."""
    out = ""
    for sentence in (s for s in sentences if s):
        joined = f"{out} {sentence}" if out else sentence
        if out and len(joined) > LEAD_LIMIT:
            break
        out = joined
    return out


def lineup_text(labels: list[str], rotated: bool = True) -> str:
    """Which line-up a seat result belongs to: 'equal players (every seat greedy)' or
    'mixed players (2 greedy, 2 random, seats rotated)'."""
    counts = Counter(labels)
    if len(counts) == 1:
        return f"equal players (every seat {labels[0]})"
    mix = ", ".join(f"{n} {label}" for label, n in counts.items())
    return f"mixed players ({mix}, seats {'rotated' if rotated else 'not rotated'})"


def run_headline(answer: dict, labels: list[str], rotated: bool = True) -> str:
    """The run's answer in at most two short sentences, from `sim.analysis.answers.
    seat_answer`: seat 0's share and its edge over a fair share (one number), named for its
    line-up, whether that is real and mostly its extra turn, then the other seats.

    'Mixed players (2 greedy, 2 random, seats rotated): seat 0 wins 28.6% of games, 3.6 pp
    more than a fair share, mostly from its extra turn. Every other seat is within 1.8 pp
    of a fair share.'
    """
    who = lineup_text(labels, rotated)
    who = who[0].upper() + who[1:]
    call, s0, others = answer["call"], answer["seat0"], answer["others"]
    share, fair = units.pct(s0["share"]), units.pct(answer["fair"])
    gap = units.pp(abs(s0["edge"]), signed=False)
    if call == "confounded":
        pol = answer["policies"]
        best = f"{pol[0]['policy']} wins {units.pct(pol[0]['share'])} per seat" if pol else ""
        return lead(
            f"{who}: each seat always played the same policy, so seat and policy effects"
            " cannot be told apart and no seat verdict is given.",
            f"{best[0].upper() + best[1:]}, against a fair {fair}." if best else "",
        )
    if call in ("advantage", "disadvantage"):
        more = "more" if call == "advantage" else "less"
        cause = ""
        turn = answer.get("turn")
        if turn is not None and turn["mostly_turn"]:
            cause = ", mostly from its extra turn"
        elif turn is not None and (turn["equal"]["lo"] > 0 or turn["equal"]["hi"] < 0):
            cause = ", even at equal turns"
        first = f"{who}: seat 0 wins {share} of games, {gap} {more} than a fair share{cause}."
    elif call == "differ":
        first = (
            f"{who}: seat 0 wins {share} of games, close to a fair {fair}, but the seats differ."
        )
    else:
        first = f"{who}: seat 0 wins {share} of games against a fair {fair}, within noise."
    if answer["players"] == 2:  # seat 1's gap is seat 0's: nothing more to say
        second = ""
    elif others["apart"]:
        second = "; ".join(
            f"seat {a['seat']} wins {units.pct(a['share'])} ({units.pp(a['edge'])})"
            for a in others["apart"]
        )
        second = f"Also apart from the rest: {second}."
    else:
        within = units.pp(others["gap"], signed=False)
        second = f"Every other seat is within {within} of a fair share."
    return lead(first, second)


def metric_text(metric: str, value: float, signed: bool = False, diff: bool | None = None) -> str:
    """A metric value as text by its registry unit (sim.units): shares in percent, a
    difference of shares (`signed`, or `diff` for an unsigned width) in pp, others to 3
    digits. A metric that is itself a difference of shares (`Metric.diff`: first-player
    advantage, card impact) is in signed pp even as a plain value."""
    if pd.isna(value):
        return "–"
    m = registry_metric(metric)
    if m.diff and diff is None:
        return units.value(value, m.unit, diff=True)
    return units.value(value, m.unit, diff=signed or bool(diff), signed=signed)


def metric_interval(metric: str, est: dict) -> str:
    """An estimate with its interval ({estimate, lo, hi}) by the metric's unit:
    '27.9% [27.3%, 28.5%]', '+3.6 pp [+2.8, +4.4]' (a difference of shares), '56.9 [56.8, 57]'."""
    m = registry_metric(metric)
    if pd.isna(est["estimate"]):
        return "–"
    return units.interval(est["estimate"], est["lo"], est["hi"], m.unit, diff=m.diff)


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
