"""Fuzzing the command line with hypothesis: whatever a config or a position file holds,
`sim validate`, `sim score` and `sim run` end with exit code 0, or 2 and one line
`error: ...` -- never a traceback, and quickly.

Commands run in process (`sim.cli.main`), their output captured.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import tempfile
import time
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.cli import main

ROOT = Path(__file__).resolve().parents[1]
BASE = yaml.safe_load((ROOT / "configs" / "base.yaml").read_text())
POSITION = json.loads((ROOT / "configs" / "positions" / "worked_example.json").read_text())
SLOW_LIMIT_S = 10  # a generous bound per command; a hang or an explosion takes far longer

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-10, 60),
    st.integers(),
    st.sampled_from([10**30, -(10**30), 2**63, 10**400]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["random", "greedy", "heuristic", "lookahead", "NE", "any", "x:Y", "../a"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
CONFIG_PATHS = [
    ("name",),
    ("games",),
    ("seed",),
    ("players",),
    ("hand_size",),
    ("table",),
    ("table", "rows"),
    ("deck", "boxes"),
    ("deck", "boxes", "NE"),
    ("deck", "toys", "yarn"),
    ("deck", "sprayers"),
    ("deck", "princesses"),
    ("rules", "match_sides"),
    ("seats",),
    ("seats", 0),
    ("seats", 0, "policy"),
    ("seats", 1, "temperature"),
    ("seats", 1, "weights"),
    ("seats", 2, "preset"),
    ("sweep",),
    ("targets",),
    ("targets", "balance"),
    ("report",),
    ("report", "path"),
    ("rotate_seats",),
    ("no_such_key",),
]
SNIPPETS = [
    "players: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n",
    "targets: {balance: &a [*a]}\n",
    "x: !!python/object/apply:os.system ['true']\n",
    "games: 1" + "0" * 5000 + "\n",
    "seats: &s [{policy: random}, *s]\n",
    "players: 4\nplayers: 5\n",
    "\t- :\n",
    "%YAML 1.1\n---\n",
    "\x00\x01",
]


def _set(data, path, value):
    """Set `value` at `path`, making the missing mappings (lists stay as they are)."""
    node = data
    for key in path[:-1]:
        if isinstance(node, dict):
            node = node.setdefault(key, {})
        elif isinstance(node, list) and isinstance(key, int) and key < len(node):
            node = node[key]
        else:
            return
    last = path[-1]
    if isinstance(node, dict) or (
        isinstance(node, list) and isinstance(last, int) and last < len(node)
    ):
        node[last] = value


def run_cli(*args) -> tuple[int, str, float]:
    out, err = io.StringIO(), io.StringIO()
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, err.getvalue(), time.perf_counter() - t0


def assert_clean(code: int, err: str, seconds: float) -> None:
    """Exit 0, or 2 with one line `error: ...`; never a traceback; bounded time."""
    assert "Traceback" not in err, err
    assert code in (0, 2), (code, err)
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), err
        assert len(lines[0]) < 2000
    assert seconds < SLOW_LIMIT_S


@st.composite
def config_texts(draw):
    if draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from(SNIPPETS)) + draw(st.text(max_size=30))
    data = copy.deepcopy(BASE)
    for _ in range(draw(st.integers(1, 3))):
        _set(data, draw(st.sampled_from(CONFIG_PATHS)), draw(values))
    text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False)
    if draw(st.booleans()):
        text += draw(st.sampled_from(SNIPPETS))
    return text


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)  # fmt: skip
@given(text=config_texts())
def test_validate_never_crashes(text):
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "study.yaml"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        assert_clean(*run_cli("validate", path))


POSITION_PATHS = [
    ("players",),
    ("rules",),
    ("cards",),
    ("cards", 0),
    ("cards", 0, "at"),
    ("cards", 0, "walls"),
    ("cards", 1, "sleeping"),
    ("cats",),
    ("cats", 0, "player"),
    ("cats", 0, "at"),
    ("princesses",),
    ("items",),
    ("items", 0, "kind"),
    ("items", 0, "between"),
    ("extra",),
]


@st.composite
def position_texts(draw):
    kind = draw(st.integers(0, 9))
    if kind == 0:
        depth = draw(st.integers(1, 3000))
        return "[" * depth + "]" * depth
    if kind == 1:
        return draw(st.text(max_size=40))
    data = copy.deepcopy(POSITION)
    for _ in range(draw(st.integers(1, 3))):
        value = draw(values)
        try:
            json.dumps(value, allow_nan=True)
        except (TypeError, ValueError):
            continue
        _set(data, draw(st.sampled_from(POSITION_PATHS)), value)
    return json.dumps(data)


@settings(max_examples=120, deadline=None)
@given(text=position_texts())
def test_score_never_crashes(text):
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "position.json"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        assert_clean(*run_cli("score", path))


RUN_PATHS = [
    ("players",),
    ("hand_size",),
    ("deck", "sprayers"),
    ("deck", "princesses"),
    ("deck", "toys"),
    ("table", "columns"),
    ("rules", "evicted_cat"),
    ("seats", 0),
    ("seats", 1, "temperature"),
]
run_values = st.one_of(
    st.integers(-1, 8),
    st.sampled_from(["discard", "any", {"policy": "heuristic", "preset": "spoiler"}]),
    st.sampled_from([{"policy": "lookahead", "rollouts": 1, "candidates": 1}, {"yarn": 0}]),
    st.floats(allow_nan=True),
)


@settings(max_examples=10, deadline=None)
@given(changes=st.lists(st.tuples(st.sampled_from(RUN_PATHS), run_values), max_size=3))
def test_run_never_crashes(changes):
    data = copy.deepcopy(BASE)
    for path, value in changes:
        _set(data, path, value)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "study.yaml"
        path.write_text(yaml.safe_dump(data, sort_keys=False))
        args = ("--games", "3", "--jobs", "1", "--quiet", "--no-report", "--out", Path(d) / "r")
        assert_clean(*run_cli("run", path, *args))
