"""A study's findings in words: the sentences a designer reads first, from its tables.

Pure like the rest of `sim.analysis`: tables and numbers in, text out, every number
written by `sim.units`. The command line prints these lines and the pages show
them, so the terminal and the page always say the same.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

import pandas as pd

from sim import units
from sim.metrics import metric as registry_metric

if TYPE_CHECKING:
    from sim.analysis.answers import SeatAnswer

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


def lineup_text(labels: list[str], rotated: bool = True, short: bool = False) -> str:
    """Which line-up a seat result belongs to: 'equal players (every seat greedy)' or
    'mixed players (2 greedy, 2 random, seats rotated)' ('mixed players' when `short`)."""
    counts = Counter(labels)
    if len(counts) == 1:
        return f"equal players (every seat {labels[0]})"
    if short:
        return "mixed players"
    mix = ", ".join(f"{n} {label}" for label, n in counts.items())
    return f"mixed players ({mix}, seats {'rotated' if rotated else 'not rotated'})"


def run_headline(answer: SeatAnswer, labels: list[str], rotated: bool = True) -> str:
    """The run's answer in at most two short sentences, from `sim.analysis.answers.
    seat_answer`: seat 0's share and its edge over a fair share (one number), named for its
    line-up, whether that is real and mostly its extra turn, then the other seats.

    'Mixed players (2 greedy, 2 random, seats rotated): seat 0 wins 28.6% of games, 3.6 pp
    more than a fair share, mostly from its extra turn. Every other seat is within 1.8 pp
    of a fair share.'
    """
    who = lineup_text(labels, rotated)
    who = who[0].upper() + who[1:]
    call, s0 = answer.call, answer.seat0
    share, fair = units.pct(s0.share), units.pct(answer.fair)
    gap = units.pp(abs(s0.edge), signed=False)
    if call == "confounded":
        pol = answer.policies
        best = f"{pol[0][0]} wins {units.pct(pol[0][1])} per seat" if pol else ""
        return lead(
            f"{who}: each seat always played the same policy, so seat and policy effects"
            " cannot be told apart and no seat verdict is given.",
            f"{best[0].upper() + best[1:]}, against a fair {fair}." if best else "",
        )
    if call in ("advantage", "disadvantage"):
        more = "more" if call == "advantage" else "less"
        cause = ""
        turn = answer.turn
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
    if answer.players == 2:  # seat 1's gap is seat 0's: nothing more to say
        second = ""
    elif answer.apart:
        second = "; ".join(
            f"seat {a.seat} wins {units.pct(a.share)} ({units.pp(a.edge)})" for a in answer.apart
        )
        second = f"Also apart from the rest: {second}."
    else:
        within = units.pp(answer.gap, signed=False)
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
        f"{r.label}: {pair_text(r.metric, r.a, r.b)[0]} ({la}) → {pair_text(r.metric, r.a, r.b)[1]}"
        f" ({lb}),"
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
        f" {'real' if r.real else 'within noise'} (Holm p {r.p_adj:.2g})"
        for r in values.head(top).itertuples()
    ]
    return head, lines


def ablation_change(r) -> str:
    """One ablation row's change with its interval by its unit: seat 0's win share in pp
    ('-6.2 pp [-9.3, -3.1]', the CSV holds pp), turns and points as numbers."""
    if r["unit"] == "pp":
        return units.interval(r["change"] / 100, r["lo"] / 100, r["hi"] / 100, "share", diff=True)
    return units.interval(r["change"], r["lo"], r["hi"], r["unit"], diff=True)


def ablation_lines(ablation: pd.DataFrame) -> list[str]:
    """The ablation as a terminal table: one row per card kind, one column per measure (the
    change with one copy fewer and its 95% interval, * where real after Holm)."""
    if not len(ablation):
        return []
    measures = list(dict.fromkeys(ablation["measure"]))
    heads = {m: ablation.loc[ablation["measure"] == m, "label"].iloc[0] for m in measures}
    cells: dict[str, dict[str, str]] = {}
    for r in ablation.to_dict("records"):
        mark = "*" if r["real"] else ""
        cells.setdefault(units.card_label(r["card"]), {})[r["measure"]] = ablation_change(r) + mark
    first = max(len("card"), *(len(c) for c in cells))
    width = {
        m: max(len(heads[m]), *(len(row.get(m, "")) for row in cells.values())) for m in measures
    }
    head = ["card".ljust(first), *(heads[m].ljust(width[m]) for m in measures)]
    title = (
        f"one copy fewer of each card: change [95% interval], * real ({len(ablation)} tests, Holm)"
    )
    lines = [title, ("  " + "  ".join(head)).rstrip()]
    for card, row in cells.items():
        parts = [card.ljust(first), *(row.get(m, "–").ljust(width[m]) for m in measures)]
        lines.append(("  " + "  ".join(parts)).rstrip())
    return lines


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


# ---------------------------------------------------------------- the pages' first sentences


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _size(frame: pd.DataFrame, diff: str, lo: str, hi: str) -> pd.Series:
    """How far a change lies from 0 in units of its interval's width (the findings' order)."""
    return (frame[diff] / (frame[hi] - frame[lo])).abs()


def call_of(real: bool, lo: float, hi: float, implied: bool = False) -> str:
    """A difference's verdict in the one vocabulary of every page: 'real' (its family's
    correction says so), 'within noise' (its interval holds 0), or 'within noise after the
    correction' (its own interval clears 0, its family's correction does not). A row that is
    an exact function of others (implied, not tested again) is called by its own interval."""
    clear = (lo > 0 or hi < 0) if lo == lo and hi == hi else False
    if implied:
        return "real" if clear else "within noise"
    if real:
        return "real"
    return "within noise after the correction" if clear else "within noise"


def pair_text(metric: str, a: float, b: float) -> tuple[str, str]:
    """Two values of a metric by its unit, with as many more digits as it takes for two
    different values not to read the same ('11.6 → 11.6' becomes '11.62 → 11.61')."""
    ta, tb = metric_text(metric, a), metric_text(metric, b)
    if ta != tb or a == b or registry_metric(metric).unit == "share":
        return ta, tb
    for digits in range(3, 8):
        ta, tb = f"{a:.{digits}g}", f"{b:.{digits}g}"
        if ta != tb:
            break
    return ta, tb


def _edge_trend(a: float, b: float, where_a: str, where_b: str, call: str | None) -> str:
    """'seat 0's edge goes from +3.7 pp at X to +2.0 pp at Y, a change within noise' (`call`
    is the change's own verdict, `call_of`, not that of either edge)."""
    tail = "" if call is None else f", a change {call}" if call != "real" else ", a real change"
    return (
        f"seat 0's edge goes from {metric_text('first_player_advantage', a)} {where_a} to"
        f" {metric_text('first_player_advantage', b)} {where_b}{tail}"
    )


def sweep_headline(
    table: pd.DataFrame,
    labels: list[str],
    lineup: str,
    best_set: list[int] | None = None,
    ranking: pd.DataFrame | None = None,
) -> str:
    """A sweep's answer in at most two sentences: the point(s) closest to the targets (with
    how many targets they meet) or, without targets, the largest real change; then seat 0's
    edge from the first point to the last, for its line-up (`lineup_text`)."""
    t = table
    last = int(t["point"].max())
    first_sentence = ""
    if best_set and ranking is not None:
        statuses = [c for c in ranking.columns if c.endswith(":status")]
        met = ranking.set_index("point")[statuses].eq("met").sum(axis=1)
        names = [labels[p] for p in best_set]
        k = int(met.loc[best_set[0]])
        if len(best_set) == 1:
            first_sentence = (
                f"Of {len(labels)} points, {names[0]} comes closest to the targets"
                f" ({k} of {len(statuses)} met); every other point is clearly"
                " worse."
            )
        else:
            first_sentence = (
                f"{', '.join(names[:-1])} and {names[-1]} come closest to the"
                f" targets (they cannot be told apart; the first meets {k} of"
                f" {len(statuses)})."
            )
    elif last > 0:
        end = t[(t["point"] == last) & t["real"] & (t["group"] != "cards")]
        if len(end):
            r = end.loc[_size(end, "diff", "diff_lo", "diff_hi").idxmax()]
            a = t[(t["point"] == 0) & (t["metric"] == r["metric"])].iloc[0]
            first_sentence = (
                f"From {labels[0]} to {labels[last]}, the largest real change is"
                f" {r['metric_label']}: {metric_text(r['metric'], a['value'])} →"
                f" {metric_text(r['metric'], r['value'])}."
            )
        else:
            first_sentence = f"From {labels[0]} to {labels[last]}, nothing changes for real."
    edge = ""
    fpa = t[t["metric"] == "first_player_advantage"].set_index("point")
    if len(fpa) and last > 0:
        r = fpa.loc[last]
        call = call_of(bool(r["real"]), r["diff_lo"], r["diff_hi"])
        trend = _edge_trend(
            fpa.loc[0, "value"], r["value"], f"at {labels[0]}", f"at {labels[last]}", call
        )
        edge = f"With {lineup}, {trend}."
    return lead(first_sentence, edge) if first_sentence else lead(_cap(edge))


def compare_headline(t: pd.DataFrame, change: str, lineup: str) -> str:
    """A comparison's answer in at most two sentences: what the change does (how many
    headline metrics move for real and the largest), then seat 0's edge on both sides for
    its line-up. `change` names B against A in words ('deck.sprayers: 4 → 6')."""
    la, lb = t.attrs.get("labels", ("A", "B"))
    if t.attrs.get("identical"):
        return lead(f"{lb} and {la} played the very same games: every difference is exactly 0.")
    head = t[t["family"] == "headline"]
    real = head[head["real"]]
    what = f"With {change}" if change and len(change) <= 60 else f"{lb} against {la}"
    first = (
        f"{what}, {len(real)} of {int(head['p'].notna().sum())} headline metrics change for real"
    )
    if len(real):
        r = real.loc[_size(real, "diff", "lo", "hi").idxmax()]
        ta, tb = pair_text(r["metric"], r["a"], r["b"])
        first += f"; the largest is {r['label']}, {ta} → {tb}."
    else:
        first += "."
    edge = ""
    fpa = t[t["metric"] == "first_player_advantage"]
    if len(fpa):
        r = fpa.iloc[0]
        call = call_of(bool(r["real"]), r["lo"], r["hi"], r["family"] == "implied")
        edge = f"With {lineup}, " + _edge_trend(r["a"], r["b"], f"in {la}", f"in {lb}", call) + "."
    return lead(first, edge)


def tune_headline(verdict: dict, lineup: str) -> str:
    """A tune's answer in at most two sentences: the change to make (or that none is needed,
    or the closest when nothing fits) with the confirmed targets; then the line-up they were
    measured with. `verdict` is tune.json."""
    targets = verdict["targets"]
    status = verdict["status"]

    def was(name: str, t: dict) -> str:
        start = t.get("start")
        if status == "no change needed" or not start:
            return ""
        return f", was {metric_text(name, start['estimate'])}"

    got = "; ".join(
        f"{registry_metric(name).label} {metric_text(name, t['estimate'])}{was(name, t)}"
        for name, t in targets.items()
    )
    n = len(targets)
    every = "both targets" if n == 2 else "the target" if n == 1 else f"all {n} targets"
    if status == "no change needed":
        first = f"No change needed: the start meets {every} on fresh games ({got})."
    elif status == "recommended":
        change = "; ".join(verdict["changes"])
        first = f"Change {change}: on fresh games it meets {every} ({got})."
    else:
        closest = verdict["chosen"]
        shown = next((r for r in verdict.get("finalists", []) if r.get("label") == closest), None)
        met = f"{shown['met']} of {n}" if shown else "not all"
        first = (
            f"Nothing tried meets {every} on fresh games; the closest, {closest},"
            f" meets {met} ({got})."
        )
    return lead(first, f"Measured with {lineup}.")


def value_headline(
    values: pd.DataFrame, ablation: pd.DataFrame, seat: int, label: str, lineup: str
) -> str:
    """The value study's answer in at most two sentences: the options worth most to the
    restricted slot (win share lost when banned, in pp), how many make no real difference;
    then the card whose one copy fewer moves seat 0's win share most (in pp)."""
    real = values[values["real"] & (values["value"] > 0)].sort_values("value", ascending=False)
    rest = len(values) - len(real)
    if len(real):
        worth = ", ".join(
            f"{units.card_label(r.option)} {units.pp(r.value / 100, signed=False)}"
            for r in real.head(3).itertuples()
        )
        first = (
            f"Banning an option from slot {seat} ({label}) costs it win share: {worth};"
            f" {units.plural(rest, 'other option')} make no real difference."
        )
    else:
        first = f"No option is worth a real share of wins to slot {seat} ({label})."
    second = ""
    if len(ablation):
        a = ablation[(ablation["measure"] == "first_player") & ablation["real"]]
        if len(a):
            r = a.loc[a["change"].abs().idxmax()]
            second = (
                f"With {lineup}, one {units.card_label(r['card'])} card fewer changes seat"
                f" 0's win share most: {units.pp(r['change'] / 100)}."
            )
        else:
            second = "Removing one copy of any card leaves seat 0's win share within noise."
    return lead(first, second)


def ladder_headline(
    steps: pd.DataFrame, ratings: pd.DataFrame, labels: list[str], depth: int, threshold: float
) -> str:
    """The ladder's answer in at most two sentences: how many rungs up from the bottom skill
    keeps paying (each beating the one below in at least `threshold` of heads-up games), where
    it stops, and the top rung's rating over the bottom's."""
    n = len(labels) - 1
    th = units.pct(threshold)
    heads = steps[(steps["players"] == 2) & (steps["lower_step"] == steps["step"] - 1)]
    if depth >= n:
        first = (
            f"Skill pays all the way up: each of the {n} rungs beats the one below in at"
            f" least {th} of heads-up games."
        )
    else:
        stop = heads[heads["step"] == depth + 1]
        share = f" ({units.pct(stop['share'].iloc[0])})" if len(stop) else ""
        upper, lower = labels[depth + 1], labels[depth]
        first = (
            f"Skill pays for {depth} of {n} steps up the ladder: {upper} does not clearly"
            f" win {th} of heads-up games against {lower}{share}."
        )
    top = ratings.sort_values("elo").iloc[-1]
    bottom = ratings[ratings["rung"] == labels[0]]
    second = ""
    if len(bottom):
        second = f"The ratings put {top['rung']} {top['elo'] - bottom['elo'].iloc[0]:.0f} Elo"
        second += f" above {labels[0]}."
    return lead(first, second)


def luck_headline(table: pd.DataFrame) -> str:
    """The luck gauge's answer in at most two sentences: the deal's share of the variance of
    who wins, per policy (in %), then what the rest is."""
    wins = table[table["outcome"] == "win_share"]
    if not len(wins):
        return "No policy was measured."
    parts = [f"{units.pct(r.deal_share)} with every seat {r.policy}" for r in wins.itertuples()]
    first = f"The deal (shuffle and hands) explains {parts[0]}".replace(
        " with", " of the variance of who wins with", 1
    )
    first += "".join(f", {p}" for p in parts[1:]) + "."
    return lead(
        first,
        "The rest changes between replays of the same deal, from the players' own random choices.",
    )


def deck_parity_text(scan: pd.DataFrame, boxes: int) -> str:
    """Which deck sizes give every seat the same turns, from a deck scan
    (`sim.studies.deck_parity.deck_scan`: boxes, equal, all_equal), against the config's: 'With
    47 or 51 box cards (this config: 48), every seat takes the same number of turns in
    100% and 99.5% of games.' Empty when the config's own deck already does, or none does."""
    if not len(scan):
        return ""
    rows = scan.sort_values("boxes")
    own = rows[rows["boxes"] == boxes]
    if len(own) and bool(own["all_equal"].iloc[0]):
        return ""
    fair = rows[rows["all_equal"].astype(bool)]
    if not len(fair):
        return ""
    sizes = [str(int(b)) for b in fair["boxes"]]
    shares = [units.pct(e) for e in fair["equal"]]
    both = " or ".join([", ".join(sizes[:-1]), sizes[-1]] if len(sizes) > 1 else sizes)
    also = " and ".join([", ".join(shares[:-1]), shares[-1]] if len(shares) > 1 else shares)
    return (
        f"With {both} box cards (this config: {boxes}), every seat takes the same number of"
        f" turns in {also} of games."
    )


END_WORDS = {  # R7.1's triggers, as a designer says them
    "deck_empty": "when the deck ran out",
    "last_cat": "when a player placed the last cat",
}


def replay_headline(
    labels: list[str],
    scores: list[int],
    winners: list[int],
    turns: int,
    trigger: str,
    finished: bool,
) -> str:
    """A replayed game in at most two sentences: who won, by how much, and how it ended."""
    if not finished or not winners:
        return lead(
            f"The log stops after {units.plural(turns, 'turn')}: the game was not finished."
        )
    who = " and ".join(f"seat {w} ({labels[w]})" for w in winners)
    best = scores[winners[0]]
    others = [x for k, x in enumerate(scores) if k not in winners]
    if len(winners) > 1:
        first = f"{_cap(who)} share the win with {units.plural(best, 'point')}."
    elif others:
        gap = best - max(others)
        first = (
            f"{_cap(who)} wins with {units.plural(best, 'point')},"
            f" {units.plural(gap, 'point')} ahead of the next seat."
        )
    else:
        first = f"{_cap(who)} wins with {units.plural(best, 'point')}."
    end = END_WORDS.get(trigger, f"by {trigger.replace('_', ' ')}")
    return lead(first, f"The game lasted {units.plural(turns, 'turn')} and ended {end}.")
