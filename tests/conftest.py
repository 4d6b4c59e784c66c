"""Suite-wide collection order: the slowest folders first.

Spread over the cores (`-n auto --dist loadfile`, as .ci/run runs it), each test file is
one unit of work handed to the next free worker in collection order; a slow file handed
out last keeps one worker busy while the other idles. So the slowest folders (measured,
warm: tests/studies about 130 s, tests/runs 117 s and tests/report 94 s of the suite's 606
worker-seconds, 331 s on two cores) are collected first, the rest after them in their usual
order. Within a file the order is unchanged, and no test depends on another file's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

FIRST = ("studies", "runs", "report")  # slowest first (longest-processing-time first)
TESTS = Path(__file__).resolve().parent


def _rank(item) -> int:
    parts = Path(str(item.path)).resolve().relative_to(TESTS).parts
    return FIRST.index(parts[0]) if len(parts) > 1 and parts[0] in FIRST else len(FIRST)


def pytest_collection_modifyitems(session, config, items) -> None:
    items.sort(key=_rank)  # stable: each file's tests stay in their order


@pytest.fixture
def study(tmp_path):
    """Write a study file into the test's folder: `study(text=the base study, name=...)`
    returns its path (a module may define its own `study`, which wins)."""
    from cli_helpers import BASE_TEXT

    def write(text: str = BASE_TEXT, name: str = "study.yaml") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path

    return write
