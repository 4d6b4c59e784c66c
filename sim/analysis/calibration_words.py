"""`sim calibrate`'s sentences: fitted weights with their intervals, the held-out check,
and whether players differ."""

from __future__ import annotations

import pandas as pd

from sim import units


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
