"""The docs site in step with the code: a short README that points into it, a page for
every command of the parser, every config key on the config page, the advise block's keys
and every verdict word, and no table cell too long to read. (`mkdocs build --strict` in
.ci/run checks every link and anchor.)"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README_WORDS = 2000
CELL = 300  # characters in one table cell


def _pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md")) + [ROOT / "README.md"]


def test_the_readme_is_short_and_its_links_land():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.split()) <= README_WORDS
    assert "pip install -e . && sim run configs/base.yaml" in text and "bash .ci/run" in text
    for target in re.findall(r"\]\(([^)#\s]+)", text):
        if not target.startswith("http"):
            assert (ROOT / target).exists(), target


def test_every_command_has_its_page():
    from sim.cli.parser import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for name in sub.choices:
        page = DOCS / "commands" / f"{name}.md"
        assert page.exists(), f"{name}: no docs/commands/{name}.md"
        assert f"sim {name}" in page.read_text(encoding="utf-8")
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in (DOCS / "commands").glob("*.md"):
        assert f"commands/{page.name}" in nav, page


def test_every_config_key_is_on_the_config_page():
    from sim.config.blocks import AdviseBlock
    from sim.config.models import GAME_KEYS, STUDY_KEYS

    text = (DOCS / "config.md").read_text(encoding="utf-8")
    for key in (*STUDY_KEYS, *GAME_KEYS):
        assert f"`{key}`" in text or f"`{key}." in text, key
    advice = (DOCS / "guide" / "advice.md").read_text(encoding="utf-8")
    for key in AdviseBlock.model_fields:
        assert f"`{key}`" in advice or f"advise.{key}" in advice or f"`{key}:" in advice, key


def test_the_glossary_page_is_the_codes():
    from sim.analysis.glossary import glossary_markdown

    assert (DOCS / "glossary.md").read_text(encoding="utf-8") == glossary_markdown()


@pytest.mark.parametrize("page", _pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_table_cell_is_too_long_to_read(page):
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("|"):
            cells = line.strip().strip("|").split("|")
            assert max(len(c) for c in cells) <= CELL, (page.name, line[:80])
