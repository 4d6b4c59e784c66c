"""The package's layering: no import cycle, and no module imports a floor above its own.

Imports are read with `ast` from every module of `sim/`, including imports
inside functions, so a late import cannot hide a cycle. The floors are the
layout docs/dev/architecture.md draws; a new module must be given its floor here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SIM = Path(__file__).resolve().parents[1] / "sim"

# Floor of each module or package (a package's floor covers its modules). A module may
# import from its own floor and the floors below, never from a floor above.
FLOORS: dict[str, int] = {
    # the ground: leaves that anything may use (analysis is pure: DataFrames in and out)
    "sim.errors": 0,
    "sim.guard": 0,  # what guards against a user's code (plug-ins) and files (bounded reads)
    "sim.version": 0,
    "sim.walls": 0,
    "sim.variants": 0,
    "sim.specs": 0,
    "sim.metrics": 0,
    "sim.units": 0,
    "sim.pairwise": 0,  # numpy's order of a sum, compiled (a chunk's moments and feel)
    "sim.stack": 0,  # a roomy Python stack for a command (CPython's frame chunks)
    "sim.analysis": 0,
    "sim.feel": 0,  # each seat's chance round by round, and what the curves say (pure)
    # models and rules, which do not know each other
    "sim.config": 1,
    "sim.engine": 1,
    # the players, built on the engine
    "sim.policies": 2,
    # one study point: line-up, compiled chunks, run folders, the pool, `sim run`
    "sim.runs": 3,
    # the studies over many points, and every file they write
    "sim.studies": 4,
    "sim.space_map": 4,  # the design-space map: a study over a space, with its emulators
    # rendering only
    "sim.report": 5,
    # measuring; single games to watch, play and replay (they play and render)
    "sim.bench": 6,
    "sim.table": 6,
    # the command line
    "sim.cli": 7,
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
    graph["sim.config"].add("sim.runs.runner")  # runner -> ... -> config -> runner
    assert any({"sim.config", "sim.runs.runner"} <= set(c) for c in cycles(graph))


def test_imports_inside_functions_and_relative_ones_are_read():
    source = (
        "def f():\n"
        "    from sim.runs.runner import run\n"
        "    import sim.runs.storage\n"
        "    from . import specs\n"
        "    from .engine import scoring\n"
    )
    found = imports_in(source, "sim")
    assert found == {"sim.runs.runner", "sim.runs.storage", "sim.specs", "sim.engine.scoring"}


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


GROUND_OF_ANALYSIS = ("sim.metrics", "sim.units", "sim.pairwise")


def test_analysis_is_pure():
    """analysis reads DataFrames: it imports nothing of sim but itself, the metric registry,
    the unit convention (plain formatting) and numpy's order of a sum (`sim.pairwise`)."""
    for name in MODULES:
        if name.startswith("sim.analysis"):
            outside = sorted(
                t
                for t in GRAPH[name]
                if not t.startswith("sim.analysis")
                and t not in ("sim.metrics", "sim.units", "sim.pairwise")
            )
            assert outside == [], f"{name} imports {outside}"


def test_every_compiled_module_keys_the_compile_cache():
    """numba's cache is keyed by the COMPILED files (sim/__init__.py): a module that
    compiles code, or whose constants a compiled function reads, must be among them, or a
    stale cache could serve old machine code after an edit."""
    from sim import COMPILED

    covered = {p.resolve() for pattern in COMPILED for p in SIM.glob(pattern)}
    compiled = {p.resolve() for p in SIM.rglob("*.py") if "njit" in p.read_text()}
    assert compiled <= covered, sorted(str(p.relative_to(SIM)) for p in compiled - covered)


# Imported by a compiled module for its Python code only (a chunk's tension columns): no
# compiled function reads them, so they need not key the cache.
PYTHON_SIDE = {
    "sim.runs.results": {"sim.analysis.tension"},
    "sim.feel.kernel": {"sim.metrics"},  # the names of the feel columns it returns
}


def test_what_compiled_modules_import_keys_the_compile_cache_too():
    """numba bakes a global's value into the machine code, so a module whose constants a
    compiled function reads must key the cache as well: a compiled module imports only
    covered modules (or, named in PYTHON_SIDE, ones its Python code alone uses)."""
    from sim import COMPILED

    covered = {module_name(p) for pattern in COMPILED for p in SIM.glob(pattern)}
    compiled = {module_name(p) for p in SIM.rglob("*.py") if "njit" in p.read_text()}
    loose = {
        m: sorted(t for t in GRAPH[m] if t not in covered and t not in PYTHON_SIDE.get(m, ()))
        for m in compiled
    }
    assert {m: t for m, t in loose.items() if t} == {}
