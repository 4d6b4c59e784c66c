"""The pieces every page is made of: its template, tables of formatted cells, inline figures.

Cells are written by `sim.units` (shares in %, differences in pp, plain numbers).
"""

from __future__ import annotations

import html
import re
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

from sim import units
from sim.analysis.findings import metric_interval
from sim.runs import pulse
from sim.runs.paths import REPORT_MARK, check_report_path
from sim.runs.storage import write_text

TEMPLATES = Path(__file__).parent / "templates"


def render_template(name: str, context: dict) -> str:
    """Fill one of the report templates (they share `_head.html.j2`, which carries
    REPORT_MARK, the line that tells a later run this file is a report it may replace)."""
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["j2"]))
    from sim.analysis.glossary import GLOSSARY

    return env.get_template(name).render(
        report_mark=Markup(REPORT_MARK), glossary=GLOSSARY, **context
    )


def write_page(where: Path, force: bool, template: str, context: Callable[[], dict]) -> Path:
    """Every study page's scaffold: refuse a path it may not write before any work
    (`check_report_path`), build the context, stamp its build time, fill the template and
    write the page atomically (a full disk leaves the old page, not half a new one)."""
    t0 = time.perf_counter()
    out = check_report_path(where, force)
    pulse.doing("building the page")
    filled = context()
    filled["build_s"] = f"{time.perf_counter() - t0:.1f}"
    write_text(out, render_template(template, filled))
    return out


Col = tuple[str, Callable[[dict], str]]


def table(frame: pd.DataFrame, cols: list[Col]) -> Markup:
    """An HTML table of `frame`, one column per (header, row dict -> text); a cell wraps
    between a value and its interval, never inside '[lo, hi]' or '3.6 pp' (`keep_together`)."""
    rows = frame.to_dict("records")  # keeps each column's type (iterrows makes ints floats)
    cols = list(dict(cols).items())  # a header given twice is one column, as in a frame
    head = "".join(f"      <th>{_escape(h)}</th>\n" for h, _ in cols)
    body = "".join(
        "    <tr>\n"
        + "".join(f"      <td>{_escape(keep_together(fmt(row)))}</td>\n" for _, fmt in cols)
        + "    </tr>\n"
        for row in rows
    )
    # pandas' DataFrame.to_html(index=False, border=0, classes="t") byte for byte, written
    # here: its formatter cost a page about 0.05 CPU-s for two dozen small tables
    return Markup(
        '<table class="dataframe t">\n  <thead>\n    <tr style="text-align: right;">\n'
        f"{head}    </tr>\n  </thead>\n  <tbody>\n{body}  </tbody>\n</table>"
    )


def _escape(cell: str) -> str:
    """A cell's text in HTML, escaped as pandas' to_html escapes it (&, <, >; quotes kept)."""
    return html.escape(str(cell), quote=False)


def words_table(rows: list[dict[str, str]]) -> Markup | None:
    """A table of rows already in words, one column per key of the first row (its header, in
    that order); None without rows."""
    if not rows:
        return None
    return table(pd.DataFrame(rows), [(head, text(head)) for head in rows[0]])


NBSP = "\u00a0"
_BRACKETS = re.compile(r"\[[^\[\]]*\]")


def keep_together(cell: str) -> str:
    """A cell's text with no line break inside an interval ('[+2.8, +4.4]') or between a
    number and its unit ('3.6 pp'): narrow columns then wrap only where a reader expects."""
    cell = _BRACKETS.sub(lambda m: m.group(0).replace(" ", NBSP), str(cell))
    return cell.replace(" pp", NBSP + "pp").replace(
        units.NO_WALLS, units.NO_WALLS.replace(" ", NBSP)
    )


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


def pp(col: str) -> Callable[[dict], str]:
    """Format a difference of shares in percentage points: '+3.6 pp'."""
    return lambda r: units.pp(r[col])


def ci_pp(col: str, lo: str = "lo", hi: str = "hi") -> Callable[[dict], str]:
    """A difference of shares with its interval, in percentage points: '+3.6 pp [+2.8, +4.4]'."""
    return lambda r: (
        "–" if pd.isna(r[col]) else units.interval(r[col], r[lo], r[hi], "share", diff=True)
    )


def metric_ci(col: str = "value", lo: str = "lo", hi: str = "hi") -> Callable[[dict], str]:
    """A registry metric's value (its row's `metric`) with its interval, by the metric's
    unit (sim.analysis.findings.metric_interval): '27.9% [..]', '+3.6 pp [..]', '56.9 [..]'."""
    return lambda r: metric_interval(r["metric"], {"estimate": r[col], "lo": r[lo], "hi": r[hi]})


def num(col: str, digits: int = 2) -> Callable[[dict], str]:
    """Format a number; integers get thousands separators."""
    return lambda r: f"{r[col]:,.0f}" if digits == 0 else f"{r[col]:,.{digits}f}"


def text(col: str) -> Callable[[dict], str]:
    """A column as plain text."""
    return lambda r: str(r[col])


def card_text(col: str = "card") -> Callable[[dict], str]:
    """A card column as people read it (sim.units.card_label: 'box:(no walls)')."""
    return lambda r: units.card_label(r[col])


def svg_markup(fig, key: str) -> Markup:
    """A figure (`sim.report.chart.Chart`, or the drawn table's `Canvas`) as an inline
    `<svg>` element."""
    return Markup(fig.to_svg(key))


def svg(fig, key: str) -> Markup:
    """A figure as inline SVG in a `<figure id="fig-KEY">` (KEY from FIGURES)."""
    return Markup(f'<figure id="fig-{key}">{svg_markup(fig, key)}</figure>')
