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
