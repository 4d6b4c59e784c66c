"""The replay page of one game (`sim replay`): one offline HTML file stepping through it.

Rendering only: the steps, the continuations and the run's scores come from
`sim.table.replay.page_data`. The page holds them as JSON and draws every step in
the browser with the report's table drawing (`templates/board.js`), so a game of
a few hundred decisions is one file of a few hundred kB, with no network.
"""

from __future__ import annotations

import json
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

from sim.report.board import TEMPLATES, board_script
from sim.runs.paths import REPORT_MARK
from sim.runs.storage import write_text

REPLAY_JS = TEMPLATES / "replay.js"


def embedded_json(data: dict) -> Markup:
    """JSON that is safe inside a <script> element (no '</' can close it)."""
    text = json.dumps(data, separators=(",", ":"), allow_nan=False)
    return Markup(text.replace("</", "<\\/").replace("<!--", "<\\!--"))


def render_replay(data: dict) -> str:
    """The page's HTML."""
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["j2"]))
    return env.get_template("replay.html.j2").render(
        report_mark=Markup(REPORT_MARK),
        title=data["title"],
        lead=data.get("lead", ""),
        data=embedded_json(data),
        board_js=Markup(board_script()),
        replay_js=Markup(REPLAY_JS.read_text(encoding="utf-8")),
    )


def write_replay(data: dict, out_path: str | Path) -> Path:
    """Write the page (atomically) and return its path."""
    out = Path(out_path)
    write_text(out, render_replay(data))
    return out
