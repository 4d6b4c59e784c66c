"""The SVG charts written directly (sim.report.chart): ticks, scales, marks and text."""

from __future__ import annotations

import re

import numpy as np

from sim.report.chart import Chart, diverging, nice_ticks, percent, sequential


def rects(svg: str) -> list[dict[str, float]]:
    """The drawn rectangles' geometry (the white background left out)."""
    found = re.findall(r'<rect x="([\d.-]+)" y="([\d.-]+)" width="([\d.]+)" height="([\d.]+)"', svg)
    return [dict(zip("xywh", map(float, r), strict=True)) for r in found]


def test_ticks_are_round_and_inside():
    assert nice_ticks(0, 0.42, 5) == [0.0, 0.1, 0.2, 0.3, 0.4]
    assert nice_ticks(-3.2, 4.1, 4) == [-2.0, 0.0, 2.0, 4.0]
    assert nice_ticks(53.0, 61.0, 6, integer=True) == [54.0, 56.0, 58.0, 60.0]
    assert all(t == int(t) for t in nice_ticks(0, 3, 6, integer=True))  # never 0.5 steps
    assert nice_ticks(2.0, 2.0) == [2.0]  # no span: one tick, no division by zero


def test_bar_heights_are_proportional_to_values():
    chart = Chart(4, 3)
    chart.panel.bars([0, 1, 2], [0.25, 0.5, 1.0], "#123456")
    bars = rects(chart.to_svg("t"))  # (the background has no x)
    heights = [r["h"] for r in bars]
    assert np.allclose(np.array(heights) / heights[2], [0.25, 0.5, 1.0], atol=0.01)
    base = {round(r["y"] + r["h"], 1) for r in bars}
    assert len(base) == 1  # every bar stands on the same zero line


def test_error_bars_span_the_interval():
    chart = Chart(4, 3)
    p = chart.panel
    p.bars([0], [0.5], "#123456", err=[[0.1], [0.3]])
    p.y.limits = (0, 1)
    svg = chart.to_svg("t")
    (bar,) = rects(svg)
    unit = bar["h"] / 0.5  # points per unit of value
    zero = bar["y"] + bar["h"]
    verticals = [
        (float(a), float(b))
        for x1, a, x2, b in re.findall(r'points="([\d.]+),([\d.]+) ([\d.]+),([\d.]+)"', svg)
        if x1 == x2
    ]
    assert any(
        np.isclose(lo, zero - 0.4 * unit, atol=0.05)
        and np.isclose(hi, zero - 0.8 * unit, atol=0.05)
        for lo, hi in verticals
    )


def test_text_is_escaped_and_dollars_stay():
    chart = Chart(4, 3)
    p = chart.panel
    p.line([0, 1], [0, 1], "#000", label="a <b> & $x^$")
    p.legend, p.title = "upper left", "cost < 5 $"
    svg = chart.to_svg("t")
    assert "a &lt;b&gt; &amp; $x^$" in svg and "cost &lt; 5 $" in svg


def test_percent_ticks_and_diverging_colours():
    assert percent()(0.25) == "25%" and percent()(0.125) == "12.5%" and percent(0)(0.5) == "50%"
    colour = diverging(0.0, 1.0)
    assert colour(0.5) == "#f7f7f7"  # white at the centre
    red, blue = colour(0.0), colour(1.0)
    assert int(red[1:3], 16) > int(red[5:7], 16) and int(blue[5:7], 16) > int(blue[1:3], 16)


def test_same_chart_same_svg():
    def draw() -> str:
        chart = Chart(6, 3, cols=2, title="two panels")
        chart.panels[0].band([0, 1, 2], [0, 1, 0], [1, 2, 2], "#4c72b0", label="band")
        values = np.array([[0.4, np.nan], [0.6, 0.5]])
        texts = [["40%", "–"], ["60%", "50%\n±2"]]
        chart.panels[1].cells(values, diverging(0.3, 0.7), texts, (0.3, 0.7), percent())
        return chart.to_svg("k")

    assert draw() == draw()
    assert draw().startswith("<svg ") and 'viewBox="0 0 432 216"' in draw()


def test_symlog_axis_is_linear_below_one_and_logarithmic_above():
    chart = Chart(4, 3)
    p = chart.panel
    p.points([1, 1, 1, 1], [0.0, 1.0, 10.0, 100.0], "#000")
    p.y.symlog, p.y.limits = True, (0.0, 100.0)
    ys = [float(y) for y in re.findall(r'<circle cx="[\d.]+" cy="([\d.]+)"', chart.to_svg("t"))]
    step_lin, step_10, step_100 = ys[0] - ys[1], ys[1] - ys[2], ys[2] - ys[3]
    assert np.isclose(step_10, step_100, atol=0.05)  # a decade is a decade
    assert np.isclose(step_lin, 1.5 * step_10, atol=0.05)  # 0 to 1 drawn 1.5 decades long
    assert sequential(0, 1)(0.0) == "#440154" and sequential(0, 1)(1.0) == "#fde725"


def test_no_page_imports_matplotlib():
    """Every figure is written directly (issue 54: matplotlib cost about 0.4 CPU-s a figure
    and 0.35 s to import); the package imports it nowhere, not even lazily."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "sim"
    found = []
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            found += [
                f"{path.relative_to(root)}: {n}" for n in names if n.split(".")[0] == "matplotlib"
            ]
    assert not found


def test_missing_values_leave_gaps_not_nan_in_the_svg():
    chart = Chart(6, 3, cols=2)
    a, b = chart.panels
    a.line([0, 1, 2, 3, 4], [1.0, 2.0, np.nan, 3.0, 4.0], "#000", marker="o")
    a.bars([0, 1], [np.nan, 0.5], "#123456", err=[[np.nan, 0.1], [0.1, np.nan]])
    b.points([0, np.nan, 2], [1, 2, np.inf], "#000")
    b.label(np.nan, 1.0, "lost")
    svg = chart.to_svg("t")
    assert "nan" not in svg.lower() and "inf" not in svg.lower()
    assert svg.count('stroke="#000" stroke-width="1.2"') == 2  # the line, in two runs


def test_a_chart_is_named_by_its_titles():
    chart = Chart(6, 3, cols=2, title="Game flow")
    chart.panels[0].title, chart.panels[1].title = "turns", "boxes <per game>"
    svg = chart.to_svg("t")
    name = "Game flow; turns; boxes &lt;per game&gt;"
    assert f'role="img" aria-label="{name}"><title>{name}</title>' in svg


def test_a_constant_grid_and_a_constant_line_still_draw():
    """Edges: every cell of a sweep's grid alike (a metric that does not move), one point."""
    chart = Chart(6, 3, cols=2)
    a, b = chart.panels
    a.cells(
        np.full((2, 2), 1.0),
        sequential(1.0, 1.0),
        [["1", "1"], ["1", "1"]],
        (1.0, 1.0),
        lambda v: f"{v:g}",
    )
    b.line([3.0], [0.25], "#000", marker="o")
    svg = chart.to_svg("t")
    assert svg.count("<rect") > 4 and "nan" not in svg.lower()
