"""The pieces every page is made of: its template, tables of formatted cells, inline figures.

Cells are written by `sim.units` (shares in %, differences in pp, plain numbers).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

from sim import units
from sim.report import figures as F
from sim.runs.paths import REPORT_MARK

TEMPLATES = Path(__file__).parent / "templates"


def render_template(name: str, context: dict) -> str:
    """Fill one of the report templates (they share `_head.html.j2`, which carries
    REPORT_MARK, the line that tells a later run this file is a report it may replace)."""
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["j2"]))
    return env.get_template(name).render(report_mark=Markup(REPORT_MARK), **context)


Col = tuple[str, Callable[[dict], str]]


def table(frame: pd.DataFrame, cols: list[Col]) -> Markup:
    """An HTML table of `frame`, one column per (header, row dict -> text)."""
    rows = frame.to_dict("records")  # keeps each column's type (iterrows makes ints floats)
    body = pd.DataFrame({head: [fmt(row) for row in rows] for head, fmt in cols})
    return Markup(body.to_html(index=False, border=0, classes="t", escape=True))


def share(v: float, signed: bool = False) -> str:
    """A share as a percentage (sim.units.pct): 99.98% is not '100.0%'."""
    return units.pct(v, signed)


def pct(col: str, signed: bool = False) -> Callable[[dict], str]:
    """Format a share column as a percentage."""
    return lambda r: "–" if pd.isna(r[col]) else share(r[col], signed)


def ci(col: str, lo: str = "lo", hi: str = "hi", as_pct: bool = True) -> Callable:
    """Format a value with its interval: '27.9% [27.3%, 28.5%]' or '2.26 [2.24, 2.28]'."""

    def fmt(r: dict) -> str:
        if pd.isna(r[col]):
            return "–"
        f = share if as_pct else (lambda v: f"{v:.2f}")
        return f"{f(r[col])} [{f(r[lo])}, {f(r[hi])}]" if not pd.isna(r[lo]) else f(r[col])

    return fmt


def num(col: str, digits: int = 2) -> Callable[[dict], str]:
    """Format a number; integers get thousands separators."""
    return lambda r: f"{r[col]:,.0f}" if digits == 0 else f"{r[col]:,.{digits}f}"


def text(col: str) -> Callable[[dict], str]:
    """A column as plain text."""
    return lambda r: str(r[col])


def card_text(col: str = "card") -> Callable[[dict], str]:
    """A card column as people read it (sim.units.card_label: 'box:(no walls)')."""
    return lambda r: units.card_label(r[col])


def svg(fig, key: str) -> Markup:
    """A figure as inline SVG in a `<figure id="fig-KEY">` (KEY from FIGURES)."""
    return Markup(f'<figure id="fig-{key}">{F.to_svg(fig, key)}</figure>')
