"""Behaviour unchanged: every saved study folder of the golden set reads and renders the same.

`tests/golden_folders/` holds one small folder of each kind that `sim report` renders (a
run, a sweep, a comparison, a value, a luck gauge, a tune and an advice), written by the
code of commit ff743e6 (`make.sh` beside them says how), and the visible text of the page
that code rendered from each (`<kind>.txt`: the words and numbers, without figures,
scripts and styles; times and the folder's path masked). The tune and advise folders keep
only their study files, which is all their pages read. A refactor that changes how a saved
folder is read, or what its page says, fails here; a deliberate change of a page renders
the snapshots again with `make.sh` and says so in its commit.
"""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import pytest
from cli_helpers import sim_cli

GOLDEN = Path(__file__).resolve().parents[1] / "golden_folders"
KINDS = ("run", "sweep", "compare", "value", "luck", "tune", "advise")


def visible(page: str, folder: str) -> str:
    """A page's words and numbers, one line per line of text, times and the folder masked."""
    page = re.sub(r"(?is)<(script|style|svg)\b.*?</\1>", " ", page)
    text = html.unescape(re.sub(r"(?s)<[^>]+>", " ", page)).replace(folder, "FOLDER")
    text = re.sub(r"\b\d+(\.\d+)? s\b", "T s", text)  # build and run times
    text = re.sub(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2})?", "DATE", text)
    return "\n".join(" ".join(line.split()) for line in text.splitlines() if line.strip())


@pytest.mark.parametrize("kind", KINDS)
def test_a_saved_folder_renders_the_same_page(kind, tmp_path):
    folder = tmp_path / kind
    shutil.copytree(GOLDEN / kind, folder)
    page = tmp_path / f"{kind}.html"
    sim_cli("report", folder, "--out", page, "--quiet")
    want = (GOLDEN / f"{kind}.txt").read_text().splitlines()
    got = visible(page.read_text(), str(folder)).splitlines()
    changed = [(i, w, g) for i, (w, g) in enumerate(zip(want, got, strict=False)) if w != g]
    assert len(got) == len(want) and not changed, changed[:5] or (len(got), len(want))
