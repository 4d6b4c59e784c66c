"""The package's layering: no import cycle, and no module imports a floor above its own.

Imports are read with `ast` from every module of `sim/`, including imports
inside functions, so a late import cannot hide a cycle. The floors are the
layout the README draws; a new module must be given its floor here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SIM = Path(__file__).resolve().parents[1] / "sim"

# Floor of each module or package (a package's floor covers its modules). A module may
# import from its own floor and the floors below, never from a floor above.
FLOORS: dict[str, int] = {
    # the ground: leaves that anything may use
    "sim.errors": 0,
    "sim.version": 0,
    "sim.walls": 0,
    "sim.variants": 0,
    "sim.specs": 0,
    "sim.metrics": 0,
    "sim.units": 0,  # how shares, differences and counts are written (one convention)
    "sim.parallel": 0,
    "sim.compile_watch": 0,  # the heartbeat while numba compiles (numba's events only)
    "sim.analysis": 0,  # pure: DataFrames in, DataFrames out
    # models and rules, which do not know each other
    "sim.config": 1,
    "sim.engine": 1,
    # the players, built on the engine
    "sim.policies": 2,
    # a study meets the engine; a finished game becomes rows
    "sim.lineup": 3,
    "sim.results": 3,
    # compiled chunks of games; run folders on disk
    "sim.loop": 4,
    "sim.storage": 4,
    "sim.play": 5,
    "sim.partials": 5,  # per-chunk partial results beside the parts, merged
    # one orchestration, and the thin layers over it
    "sim.orchestrate": 6,
    "sim.runner": 7,
    "sim.studies": 7,
    "sim.tune": 7,
    "sim.parity": 7,
    "sim.value": 7,  # restricted play and deck ablation (sim value)
    "sim.ladder": 7,  # skill ladder, ratings, depth (sim ladder)
    "sim.luck": 7,  # the luck gauge (sim luck)
    # rendering and measuring
    "sim.report": 8,
    "sim.bench": 8,
    "sim.tune_bench": 8,
    # whole commands, then the command line
    "sim.commands": 9,
    "sim.cli": 10,
}
# Pairs on one floor that must not import each other (either way).
STRANGERS = [("sim.config", "sim.engine")]
# The package root sets up the compile cache and offers `sim.run` as a facade over the
# runner; it is the top of the house, so it is left out of the floor check (not the cycles).
ROOT = "sim"


def module_name(path: Path) -> str:
    parts = path.relative_to(SIM.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(SIM.rglob("*.py"))}


def imports_of(name: str) -> set[str]:
    """The sim modules `name` imports anywhere in its file (functions included)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    return imports_in(path.read_text(), package) - {name}


def imports_in(source: str, package: str) -> set[str]:
    """The sim modules a source text imports, at any depth; `package` resolves relative ones."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # `from sim.x import y` imports sim.x.y when y is a module, else sim.x
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
                for alias in node.names
            ]
        else:
            continue
        found.update(t for t in targets if t in MODULES)
    return found


GRAPH = {name: imports_of(name) for name in MODULES}


def floor_of(name: str) -> int:
    """The floor of a module: its own entry or its package's."""
    while name not in FLOORS:
        if "." not in name:
            raise KeyError(name)
        name = name.rpartition(".")[0]
    return FLOORS[name]


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_import_graph_has_no_cycle():
    assert cycles(GRAPH) == []


def test_a_cycle_would_be_found():
    """The detector itself: a late import back up closes a loop it must report."""
    graph = {k: set(v) for k, v in GRAPH.items()}
    graph["sim.config"].add("sim.runner")  # runner -> ... -> config -> runner
    assert any({"sim.config", "sim.runner"} <= set(c) for c in cycles(graph))


def test_imports_inside_functions_and_relative_ones_are_read():
    source = (
        "def f():\n"
        "    from sim.runner import run\n"
        "    import sim.storage\n"
        "    from . import specs\n"
        "    from .engine import scoring\n"
    )
    found = imports_in(source, "sim")
    assert found == {"sim.runner", "sim.storage", "sim.specs", "sim.engine.scoring"}


def test_every_module_has_a_floor():
    assert [m for m in MODULES if m != ROOT and _no_floor(m)] == []


def _no_floor(name: str) -> bool:
    try:
        floor_of(name)
    except KeyError:
        return True
    return False


@pytest.mark.parametrize("name", sorted(m for m in MODULES if m != ROOT))
def test_no_module_imports_a_floor_above_its_own(name):
    mine = floor_of(name)
    above = sorted(t for t in GRAPH[name] if t != ROOT and floor_of(t) > mine)
    assert above == [], f"{name} (floor {mine}) imports {above}"
    assert ROOT not in GRAPH[name], f"{name} imports the package root (use a leaf module)"


@pytest.mark.parametrize(("a", "b"), STRANGERS)
def test_config_and_engine_do_not_know_each_other(a, b):
    for x, y in ((a, b), (b, a)):
        leaks = sorted(t for m in MODULES if m.startswith(x) for t in GRAPH[m] if t.startswith(y))
        assert leaks == [], f"{x} imports {leaks}"


def test_analysis_is_pure():
    """analysis reads DataFrames: it imports nothing of sim but itself, the metric registry
    and the unit convention (plain formatting)."""
    for name in MODULES:
        if name.startswith("sim.analysis"):
            outside = sorted(
                t
                for t in GRAPH[name]
                if not t.startswith("sim.analysis") and t not in ("sim.metrics", "sim.units")
            )
            assert outside == [], f"{name} imports {outside}"
