"""The house style of the figures still drawn with matplotlib (study, tune, causal and
calibration pages): `Figure` objects (no pyplot, no global backend) written as inline SVG.

The run page's figures are written directly (`sim.report.chart`): a page of fifteen
matplotlib figures cost more than its games (issue 54).
"""

from __future__ import annotations

import functools
import io

import matplotlib as mpl
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from sim import units

STYLE = {
    "font.size": 8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "svg.fonttype": "none",  # text stays text: a few kB per figure instead of glyph paths
    # Labels are the user's words (rung labels, policy names): '$' is a dollar sign, never
    # the start of math text, so 'a $x^$ b' is drawn as written instead of failing to parse.
    "text.parse_math": False,
}


def styled(draw):
    """Draw under the report style (rc settings are read while artists are made)."""

    @functools.wraps(draw)
    def wrapper(*args, **kwargs) -> Figure:
        with mpl.rc_context(STYLE):
            return draw(*args, **kwargs)

    return wrapper


def to_svg(fig, key: str) -> str:
    """The figure as an `<svg>` element; `key` salts its ids so inline figures never clash."""
    buf = io.StringIO()
    with mpl.rc_context({**STYLE, "svg.hashsalt": key}):
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buf.getvalue()
    return text[text.index("<svg") :]


def pp_formatter(scale: float = 100.0) -> FuncFormatter:
    """Ticks of a difference of shares in percentage points ('+2 pp', '0', '-1.5 pp'); `scale`
    takes the drawn values to pp (100 for fractions, 1 for values already in percent)."""
    return FuncFormatter(lambda value, _pos: units.pp_tick(value, scale))
