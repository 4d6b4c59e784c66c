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
CSV_NOTE = "# shares are fractions 0-1 (x 100 = the % the reports show); differences likewise"


def pct(value: float, signed: bool = False) -> str:
    """A share as a percentage with one decimal (two very near 0% or 100%): '27.9%'."""
    if value is None or not math.isfinite(value):
        return "–"
    digits = 2 if 0 < abs(value) < 0.001 or 0.999 < abs(value) < 1 else 1
    return f"{value * 100:{'+' if signed else ''}.{digits}f}%"


def pp(value: float) -> str:
    """A difference of two shares in percentage points, signed: '+3.6 pp'."""
    if value is None or not math.isfinite(value):
        return "–"
    return f"{value * 100:+.1f} {PP}"


def number(value: float, signed: bool = False) -> str:
    """A plain number: three significant digits, thousands separated: '2.26', '1,234'."""
    if value is None or not math.isfinite(value):
        return "–"
    sign = "+" if signed else ""
    if abs(value) >= 1000:
        return f"{value:{sign},.0f}"
    return f"{value:{sign}.3g}"


def value(x: float, unit: str, signed: bool = False) -> str:
    """A metric value by its registry unit: a share in %, a signed share difference in pp
    (`signed` marks a difference), anything else a number."""
    if unit == "share":
        return pp(x) if signed else pct(x)
    return number(x, signed)


def interval(x: float, lo: float, hi: float, unit: str, signed: bool = False) -> str:
    """'27.9% [27.3%, 28.5%]', '+3.6 pp [+1.2, +6.0] pp', '2.26 [2.24, 2.28]'."""
    if unit == "share" and signed:
        return f"{pp(x)} [{_bare_pp(lo)}, {_bare_pp(hi)}] {PP}"
    return f"{value(x, unit, signed)} [{value(lo, unit, signed)}, {value(hi, unit, signed)}]"


def _bare_pp(x: float) -> str:
    return "–" if x is None or not math.isfinite(x) else f"{x * 100:+.1f}"


def scale(unit: str) -> float:
    """What to multiply a value by to draw it in display units (shares in %)."""
    return 100.0 if unit == "share" else 1.0


def axis_label(label: str, unit: str) -> str:
    """An axis title with its display unit: 'first-player advantage (%)'."""
    return f"{label} (%)" if unit == "share" else label


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
