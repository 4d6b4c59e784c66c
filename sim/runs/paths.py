"""Where every output goes, decided in one place: the default page of each kind of study,
the default folder of each, and whether a file may be written at a path.

`page_path` and `folder_stem` read one table (STEMS), so `sim run`, every study
command, `sim report` and the pages themselves agree on the names. One rule
(`check_output_path`) guards every file the tool writes where the user says (a
page, a figure, a game's log), checked before any game: a path that cannot be
written, or an existing file that is not one of this tool's outputs of that
kind, is refused (the latter unless `--force`). Folders (runs, studies, tunes)
are new or empty (`sim.runs.folders.new_folder`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from sim.errors import SimError

RUN_FILE = "run.json"
STUDY_FILE = "study.json"
KINGMAKING_FILE = "kingmaking.json"  # a run's kingmaking sample (sim.table.kingmaking)
KINGMAKING_GAMES = "kingmaking.parquet"  # ... per sampled game: one row each, pandas-readable
# Every report page carries this line in its <head>; a file without it is not ours.
REPORT_MARK = '<meta name="generator" content="ifitfits-sim">'
# Every figure file (`sim turns --figure`) starts with this comment.
FIGURE_MARK = "<!-- generator: ifitfits-sim -->"
# Every game's log starts with its setup record (`sim play --log`, `sim table`).
LOG_MARK = '{"event": "setup"'
OUTPUT_KINDS = {"page": "report", "figure": "figure", "log": "game log"}

# The stem of each kind's default folder (runs/<stem>-<time>/) and page (reports/<stem>.html).
STEMS = {
    "run": "{name}",
    "sweep": "{name}-sweep",
    "compare": "compare-{a}-{b}",
    "tune": "{name}-tune",
    "value": "{name}-value",
    "ladder": "{name}-ladder",
    "luck": "{name}-luck",
    "advise": "{name}-advise",
    "calibrate": "{name}-calibrate",
    "map": "{name}-map",
}
# The kinds whose page follows the study's own `report: {path: ...}` when no path is given.
CONFIGURED_PAGE = ("run", "sweep")


def folder_stem(kind: str, name: str = "", labels: tuple[str, str] | None = None) -> str:
    """The stem of a study's default folder and page: 'base', 'base-sweep', 'compare-a-b'."""
    a, b = (slug(x) for x in labels) if labels is not None else ("", "")
    return STEMS[kind].format(name=name, a=a, b=b)


def page_path(
    kind: str,
    study=None,
    given: str | Path | None = None,
    labels: tuple[str, str] | None = None,
) -> Path:
    """Where a page goes: `given` (--report, or --out of sim report), else the study's
    report.path (a run's or sweep's page), else reports/<stem>.html."""
    if given is not None:
        return Path(given)
    if kind in CONFIGURED_PAGE and study is not None and study.report_path:
        return Path(study.report_path)
    name = study.name if study is not None else ""
    return Path("reports") / f"{folder_stem(kind, name, labels)}.html"


def check_page(request, kind: str, study=None, labels: tuple[str, str] | None = None) -> None:
    """Before any game: refuse the page a request would write (`Request.report`, else the
    kind's default) when it cannot be written or is not ours to replace (`check_report_path`);
    nothing when the request asks for no page."""
    if not request.no_report:
        check_report_path(page_path(kind, study, request.report, labels), request.force)


def replay_file(index: int) -> str:
    """The name of game `index`'s replay page in its run folder (`sim replay`)."""
    return f"replay-{index}.html"


def slug(text: str) -> str:
    """A label as a piece of a file name."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "x"


def check_report_path(path: str | Path, force: bool = False) -> Path:
    """Refuse, before any game is played, a report path that cannot be written or that
    would overwrite a file that is not one of our reports (a config, a run folder's
    files) or land inside a run folder's tables, unless `force`."""
    return check_output_path(path, force, "page")


def check_output_path(path: str | Path, force: bool = False, kind: str = "page") -> Path:
    """The one rule for a file written where the user says: refuse, before any game, a path
    that cannot be written, and (unless `force`) an existing file that is not this tool's
    output of `kind` ("page", "figure", "log"; see OUTPUT_KINDS) or a path inside a run
    folder's tables."""
    path = Path(path)
    example = {"page": "reports/base.html", "figure": "turns.svg", "log": "game.jsonl"}[kind]
    if path.name in ("", ".", ".."):
        raise SimError(f"{path}: not a file name; give one like {example}")
    if path.is_dir():
        raise SimError(f"{path}: is a folder; give a file name like {path / Path(example).name}")
    folder = next(p for p in (path.parent, *path.parent.parents) if p.exists() or p == p.parent)
    if not folder.is_dir():
        raise SimError(f"{path}: {folder} is a file, not a folder")
    if not os.access(folder, os.W_OK):
        raise SimError(f"{path}: cannot write in {folder} (read-only or no permission)")
    if force:
        return path
    if path.exists() and not _is_ours(path, kind):
        raise SimError(
            f"{path}: exists and is not a {OUTPUT_KINDS[kind]} made by sim; use --force to"
            " overwrite it"
        )
    for above in path.parents:
        if above != path.parent and any((above / f).exists() for f in (RUN_FILE, STUDY_FILE)):
            raise SimError(
                f"{path}: inside the run folder {above}; write the report elsewhere"
                " (or use --force)"
            )
    return path


def _is_ours(path: Path, kind: str) -> bool:
    """A file this package wrote, of `kind`: a page carries REPORT_MARK (or, written before
    the mark, the report's own style sheet), a figure starts with FIGURE_MARK, a log with
    its setup record. A device or a pipe is nobody's output."""
    if not path.is_file():
        return False
    try:
        with open(path, "rb") as page:  # a log's setup record holds the deck: read it whole
            head = (page.readline(1 << 20) if kind == "log" else page.read(16384)).decode(
                "utf-8", "replace"
            )
    except OSError:
        return False
    if kind == "figure":
        return head.startswith(FIGURE_MARK)
    if kind == "log":
        return head.startswith(LOG_MARK) and '"log_format"' in head
    old = head.startswith("<!DOCTYPE html>") and "table.t th, table.t td" in head
    return REPORT_MARK in head or old
