"""One unit convention for everything the tool prints, draws or writes (ground floor).

* A share or rate (a win share, the share of games ending by deck-out) is shown
  in percent with one decimal: `27.9%`; near 0% or 100% two decimals, so that
  99.98% is not shown as `100.0%`.
* A difference of two shares is in percentage points: `+3.6 pp`.
* Everything else (points, turns, counts) is a plain number, to three
  significant digits, with its unit word where one is wanted: `1 point`,
  `2.5 points`, `1 game/s`.
* CSV files keep fractions (0-1), as read by programs; a column holding a
  share says so in its name (`win_share`) and the file's first line says
  "shares are fractions 0-1; the reports show them in %".

Metric units are those of `sim.metrics.UNITS`: "share", "points", "turns",
"count", "number".
"""

from __future__ import annotations

import math

PP = "pp"  # percentage points: the difference of two shares
# The least span of a figure's value axis, in display units (shares in %): a panel never
# zooms in so far that noise fills it (turns 56.97-56.995 looked dramatic).
MIN_SPAN = {"share": 5.0, "points": 1.0, "turns": 2.0, "count": 0.5, "number": 0.1}


def pct(value: float, signed: bool = False) -> str:
    """A share as a percentage with one decimal: '27.9%'; two decimals when one would
    round a share that is not 0 or 1 to '0.0%' or '100.0%' (99.98% stays '99.98%')."""
    if not _finite(value):
        return "–"
    sign = "+" if signed else ""
    one = round(value * 100, 1)
    digits = 2 if value not in (0, 1, -1) and abs(one) in (0.0, 100.0) else 1
    return f"{value * 100:{sign}.{digits}f}%"


def pp(value: float, signed: bool = True) -> str:
    """A difference of two shares in percentage points: '+3.6 pp' ('3.6 pp' unsigned, for
    an interval's width)."""
    if not _finite(value):
        return "–"
    return f"{value * 100:{'+' if signed else ''}.1f} {PP}"


def pp_tick(value: float, scale: float = 100.0) -> str:
    """An axis tick of a difference of shares: '+2 pp', '0', '-1.5 pp'; `scale` takes the
    drawn value to pp (100 for fractions, 1 for values already in percent)."""
    v = round(value * scale, 6)
    return "0" if v == 0 else f"{v:+g} {PP}"


def number(value: float, signed: bool = False) -> str:
    """A plain number: three significant digits, thousands separated: '2.26', '1,234'."""
    if not _finite(value):
        return "–"
    sign = "+" if signed else ""
    if abs(value) >= 1000:
        return f"{value:{sign},.0f}"
    return f"{value:{sign}.3g}"


def value(x: float, unit: str, diff: bool = False, signed: bool | None = None) -> str:
    """A metric value by its registry unit: a share in %, a difference of shares (`diff`)
    in pp, anything else a number. Differences are signed unless `signed=False` (a width)."""
    signed = diff if signed is None else signed
    if unit == "share":
        return pp(x, signed) if diff else pct(x, signed)
    return number(x, signed)


def interval(x: float, lo: float, hi: float, unit: str, diff: bool = False) -> str:
    """'27.9% [27.3%, 28.5%]', '+3.6 pp [+1.2, +6.0]', '2.26 [2.24, 2.28]'."""
    if unit == "share" and diff:
        return f"{pp(x)} [{_bare_pp(lo)}, {_bare_pp(hi)}]"
    return f"{value(x, unit, diff)} [{value(lo, unit, diff)}, {value(hi, unit, diff)}]"


def _bare_pp(x: float) -> str:
    return f"{x * 100:+.1f}" if _finite(x) else "–"


def _finite(x) -> bool:
    try:
        return x is not None and math.isfinite(x)
    except TypeError:
        return False


def scale(unit: str) -> float:
    """What to multiply a value by to draw it in display units (shares in %)."""
    return 100.0 if unit == "share" else 1.0


def axis_label(label: str, unit: str, diff: bool = False) -> str:
    """An axis title with its display unit: 'win share (%)', 'first-player advantage (pp)'
    for a difference of shares (`diff`)."""
    if unit != "share":
        return label
    return f"{label} ({PP})" if diff else f"{label} (%)"


def plural(n: float, word: str, many: str | None = None) -> str:
    """'1 point', '2 points', '1,000 games', '1 game/s', '2.5 games/s'."""
    text = f"{n:,}" if isinstance(n, int) else number(n)
    one = n == 1
    if one:
        return f"{text} {word}"
    if many is None:
        head, slash, tail = word.partition("/")
        many = f"{head}s{slash}{tail}"
    return f"{text} {many}"


NO_WALLS = "(no walls)"


def card_label(card: str) -> str:
    """A card's name for people: the box card without walls, named 'box:' in the data, is
    'box:(no walls)'; every other name is shown as it is."""
    card = str(card)
    return card + NO_WALLS if card == "box:" else card
