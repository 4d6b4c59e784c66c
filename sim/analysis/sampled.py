"""Metrics measured on a sample of a run's games once they are played, not from every game's
values: kingmaking (`sim.table.kingmaking` measures it; a run keeps it in `kingmaking.json`).
Their headline rows sit beside the registry metrics' (`sim.analysis.balance.headline`), so
a target on them is judged like any other (`check_targets`).
"""

from __future__ import annotations

import numpy as np

from sim.metrics import KINGMAKING
from sim.units import interval, plural


def kingmaking_row(data: dict | None) -> dict:
    """The kingmaking metric's headline row from a run's kingmaking sample (None: not
    measured, no value). With two players there is no other seat to crown: exactly 0."""
    m = KINGMAKING
    row = {"metric": m.name, "label": m.label, "unit": m.unit}
    if data is None:
        return {
            **row,
            "interval": "not measured",
            "value": np.nan,
            "lo": np.nan,
            "hi": np.nan,
            "n": 0,
        }
    if data["players"] <= 2:
        exact = "exact: no other seat to crown with two players"
        return {**row, "interval": exact, "value": 0.0, "lo": 0.0, "hi": 0.0, "n": 0}
    nan = lambda v: np.nan if v is None else float(v)  # noqa: E731  (no such decision: None)
    return {
        **row,
        "interval": f"clustered Wilson over {data['examined']} decisions in {data['games']}"
        " sampled games",
        "value": nan(data["rate"]),
        "lo": nan(data["lo"]),
        "hi": nan(data["hi"]),
        "n": int(data["examined"]),
    }


KING_RESAMPLES = 4000  # bootstrap draws of the sampled games for a kingmaking difference


def kingmaking_difference(
    a: dict, b: dict, paired: bool = True, level: float = 0.95, seed: int = 0
) -> dict:
    """B − A of two runs' kingmaking samples (their `kingmaking.json`), with its interval.

    The rate is kingmaking decisions over examined decisions in a side's sampled games; its
    interval resamples whole games (a game's decisions are not independent: the cluster
    bootstrap), `KING_RESAMPLES` times. On common random numbers (`paired`) both sides
    sampled the same games, and each draw takes the same games on both, so the game's own
    luck cancels; otherwise each side's games are drawn on their own. A family of one test:
    `real` when the interval leaves out 0 (its p the two-sided bootstrap share). None of it
    with two players (zero on both by definition) or a side with no examined decision."""
    out = {"paired": paired, "level": level, "resamples": KING_RESAMPLES}
    if a["players"] <= 2 or b["players"] <= 2:
        return {
            **out,
            "diff": 0.0,
            "lo": 0.0,
            "hi": 0.0,
            "p": 1.0,
            "real": False,
            "why": "exact: no other seat to crown with two players",
        }
    ka, na, ga = _per_game(a)
    kb, nb, gb = _per_game(b)
    if not na.sum() or not nb.sum():
        return {
            **out,
            "diff": None,
            "lo": None,
            "hi": None,
            "p": None,
            "real": False,
            "why": "a side examined no decision of a seat that could no longer win",
        }
    rng = np.random.default_rng(seed)
    if paired:
        if not np.array_equal(ga, gb):
            raise ValueError("paired kingmaking samples must examine the same games")
        pick = rng.integers(0, len(ga), (KING_RESAMPLES, len(ga)))
        pick_a = pick_b = pick
    else:
        pick_a = rng.integers(0, len(ga), (KING_RESAMPLES, len(ga)))
        pick_b = rng.integers(0, len(gb), (KING_RESAMPLES, len(gb)))
    with np.errstate(invalid="ignore", divide="ignore"):  # a draw of only empty games: NaN
        draws = kb[pick_b].sum(1) / nb[pick_b].sum(1) - ka[pick_a].sum(1) / na[pick_a].sum(1)
    draws = draws[np.isfinite(draws)]
    diff = kb.sum() / nb.sum() - ka.sum() / na.sum()
    tail = (1 - level) / 2
    lo, hi = np.quantile(draws, [tail, 1 - tail])
    p = min(1.0, 2 * min(np.mean(draws <= 0), np.mean(draws >= 0)))
    real = bool(lo > 0 or hi < 0)
    return {
        **out,
        "diff": float(diff),
        "lo": float(lo),
        "hi": float(hi),
        "p": float(p),
        "real": real,
        "why": "",
    }


def _per_game(data: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Kingmaking decisions, examined decisions and index of each sampled game (games with no
    examined decision count, as zeros: they were drawn like the others)."""
    games = np.asarray(data["sampled"], np.int64)
    k, n = np.zeros(len(games)), np.zeros(len(games))
    at = {g: i for i, g in enumerate(games.tolist())}
    for row in data["decisions"]:
        n[at[int(row["game"])]] += 1
        k[at[int(row["game"])]] += bool(row["kingmaking"])
    return k, n, games


def kingmaking_change_words(data: dict) -> str:
    """A comparison's kingmaking (its `kingmaking.json`) in a designer's sentence, with the
    test behind it."""
    (la, lb), (a, b), d = data["labels"], data["sides"], data["difference"]
    if d["why"] and d["diff"] is not None:  # two players: nothing to compare
        return f"Kingmaking: none on either side ({d['why']})."

    def side(label: str, s: dict) -> str:
        if s["rate"] is None:
            return f"{label} no such decision in {s['games']} sampled games"
        rate = interval(s["rate"], s["lo"], s["hi"], "share")
        return f"{label} {rate} of {s['examined']} decisions"

    head = (
        f"Kingmaking (decisions of seats below a {a['epsilon']:.0%} chance that crown another"
        f" winner): {side(la, a)}, {side(lb, b)}"
    )
    if d["diff"] is None:
        return f"{head}; no difference to give ({d['why']})."
    change = interval(d["diff"], d["lo"], d["hi"], "share", diff=True)
    verdict = "a clear change" if d["real"] else "no clear change"
    how = "paired" if d["paired"] else "unpaired"
    return (
        f"{head}; {lb} − {la} {change}, {verdict} ({how} bootstrap over the"
        f" {a['games']} sampled games, {d['resamples']:,} draws; a family of its own, one test"
        f" at {d['level']:.0%}, outside the table's Holm and BH families)."
    )


def kingmaking_by_point(samples: list[dict], labels: list[str], paired: bool = True) -> dict:
    """A sweep's kingmaking: each point's sample (its `kingmaking.json`) and each later point
    against the first, B − first with an interval at 1 − 5%/m (Bonferroni over the m later
    points: one family, real when its interval leaves out 0, so the words match the table)."""
    m = max(len(samples) - 1, 1)
    level = 1 - 0.05 / m
    points = [
        {"label": label, **{k: s[k] for k in ("rate", "lo", "hi", "examined", "games")}}
        for label, s in zip(labels, samples, strict=True)
    ]
    against = [
        {"label": label, **kingmaking_difference(samples[0], s, paired, level)}
        for label, s in zip(labels[1:], samples[1:], strict=True)
    ]
    tests = plural(len(against), "test")
    family = (
        f"each point against {labels[0]}, {tests}, Bonferroni: each interval at {level:.2%},"
        " a point differs when its interval leaves out 0"
    )
    return {
        "points": points,
        "against": against,
        "family": family,
        "players": samples[0]["players"],
    }


def kingmaking_sweep_words(data: dict) -> list[str]:
    """A sweep's kingmaking (its `kingmaking.json`) in a few lines: the rate of each point
    and, for each later point, its change from the first, with the family behind them."""
    if data["players"] <= 2:
        return ["Kingmaking: none at any point (no other seat to crown with two players)."]
    first = data["points"][0]["label"]
    lines = [f"Kingmaking by point ({data['family']}):"]
    changes = {d["label"]: d for d in data["against"]}
    for p in data["points"]:
        rate = (
            "no such decision"
            if p["rate"] is None
            else f"{interval(p['rate'], p['lo'], p['hi'], 'share')} of {p['examined']} decisions"
        )
        d = changes.get(p["label"])
        if d is None:
            change = ""
        elif d["diff"] is None:
            change = f"; no change to give ({d['why']})"
        else:
            word = "a clear change" if d["real"] else "no clear change"
            change = interval(d["diff"], d["lo"], d["hi"], "share", diff=True)
            change = f"; {change} against {first}, {word}"
        lines.append(f"  {p['label']}: {rate}{change}")
    return lines
