"""Charts written straight to SVG: every page's figures, without matplotlib.

A report figure is a few bars, lines and labels. matplotlib builds an artist tree, measures
every label's box and draws each figure twice for a tight bounding box: about 0.4 CPU-s a
figure, most of a run page's cost (issue 54). Here a figure is a list of marks per panel,
scaled and written as SVG elements in a millisecond or two.

`sim.report.canvas.Canvas` writes the elements in points; here `Panel` is one set of axes
(marks in data units, ticks, labels, a legend) and `Chart` lays panels out in a grid.
Charts show themselves in notebooks (`_repr_svg_`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from sim.report.canvas import FONT, Canvas, text_width

PT = 72.0  # drawing units per inch
GRID = "#d9d9d9"
Format = Callable[[float], str]


def plain(v: float) -> str:
    """A tick as the shortest clear number."""
    return f"{v:,.0f}" if float(v).is_integer() else f"{v:g}"


def percent(decimals: int | None = None) -> Format:
    """Ticks of a share drawn as a fraction: '25%' (or with `decimals` places)."""

    def fmt(v: float) -> str:
        x = v * 100
        if decimals is not None:
            return f"{x:.{decimals}f}%"
        return f"{x:.0f}%" if abs(x - round(x)) < 1e-9 else f"{x:.1f}%"

    return fmt


def nice_ticks(lo: float, hi: float, count: int = 5, integer: bool = False) -> list[float]:
    """About `count` round ticks (steps of 1, 2, 2.5 or 5 times a power of ten) within
    [lo, hi]; whole numbers only when `integer`."""
    span = hi - lo
    if not np.isfinite(span) or span <= 0:
        return [lo] if np.isfinite(lo) else []
    raw = span / max(count, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(s * power for s in (1, 2, 2.5, 5, 10) if s * power >= raw)
    if integer:
        step = max(1.0, round(step))
    first = math.ceil(lo / step - 1e-9) * step
    ticks = np.arange(first, hi + step * 1e-9, step)
    return [0.0 if abs(t) < step * 1e-9 else float(round(t, 10)) for t in ticks]


class Axis:
    """One axis of a panel: limits, ticks, their format and a label."""

    def __init__(self) -> None:
        self.label = ""
        self.fmt: Format = plain
        self.integer = False
        self.limits: tuple[float, float] | None = None
        self.ticks: tuple[list[float], list[str]] | None = None
        self.sticky: set[float] = set()
        self.values: list[np.ndarray] = []
        self.min_span = 0.0  # the data's range widened to at least this, around its middle
        self.symlog = False  # linear within [-1, 1], logarithmic beyond (matplotlib's symlog)

    def tf(self, v):
        """A value in drawing space: itself, or its symlog (linthresh 1, linscale 1.5)."""
        if not self.symlog:
            return v
        v = np.asarray(v, float)
        a = np.abs(v)
        return np.where(a <= 1, v * 1.5, np.sign(v) * (1.5 + np.log10(np.maximum(a, 1))))

    def span(self) -> tuple[float, float]:
        """The limits in drawing space: as set, or the data's with 5% margins (none past a
        bar's base), at least `min_span` wide."""
        if self.limits is not None:
            return float(self.tf(self.limits[0])), float(self.tf(self.limits[1]))
        data = np.concatenate([np.ravel(v).astype(float) for v in self.values] or [[0.0, 1.0]])
        data = self.tf(data[np.isfinite(data)])
        lo, hi = (float(data.min()), float(data.max())) if len(data) else (0.0, 1.0)
        if hi - lo < self.min_span:
            lo, hi = (lo + hi - self.min_span) / 2, (lo + hi + self.min_span) / 2
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        pad = 0.05 * (hi - lo)
        new_lo, new_hi = lo - pad, hi + pad
        for s in self.sticky:
            if lo >= s > new_lo:
                new_lo = s
            if hi <= s < new_hi:
                new_hi = s
        return new_lo, new_hi

    def tick_marks(self, length: float) -> tuple[list[float], list[str]]:
        """The ticks and their labels: as set, or about one per 30 points of `length`."""
        if self.ticks is not None:
            return self.ticks
        lo, hi = self.span()
        ticks = nice_ticks(lo, hi, max(3, min(6, int(length / 30))), self.integer)
        return ticks, [self.fmt(t) for t in ticks]


class Panel:
    """One set of axes: marks in data units, drawn when the chart is written."""

    def __init__(self) -> None:
        self.x, self.y = Axis(), Axis()
        self.title = ""
        self.title_size = FONT
        # "outside" (right of the panel), "below" (under its x label, two columns),
        # "upper left" or "upper right" (inside)
        self.legend: str | None = None
        self.legend_size = FONT - 1
        self.grid = True
        self.frame = True
        self.marks: list[Callable[[Callable, Callable, Canvas], None]] = []
        self.entries: list[tuple[str, str, str]] = []  # (label, colour, swatch shape)
        self.colourbar: tuple[Callable[[float], str], float, float, Format] | None = None

    # ---------------------------------------------------------------- marks

    def bars(
        self, at, heights, colours, width=0.8, err=None, label="", horizontal=False, cap=4, base=0.0
    ):
        """Bars from `base` to `heights` at positions `at`, one colour each (or one for all);
        `err` the lengths below and above (2 x n), drawn as capped error bars."""
        at, heights = np.asarray(at, float), np.asarray(heights, float)
        heights = np.where(np.isfinite(heights), heights, base)
        colours = [colours] * len(at) if isinstance(colours, str) else list(colours)
        err = None if err is None else np.asarray(err, float)
        span = [heights] + ([heights - err[0], heights + err[1]] if err is not None else [])
        value_axis, place_axis = (self.x, self.y) if horizontal else (self.y, self.x)
        value_axis.values += span + [np.array([base])]
        value_axis.sticky.add(float(base))
        place_axis.values += [at - width / 2, at + width / 2]

        def draw(sx, sy, c: Canvas) -> None:
            for i, (a, h) in enumerate(zip(at, heights, strict=True)):
                if horizontal:
                    c.rect(
                        sx(base),
                        sy(a + width / 2),
                        sx(h) - sx(base),
                        sy(a - width / 2) - sy(a + width / 2),
                        colours[i],
                    )
                else:
                    c.rect(
                        sx(a - width / 2),
                        sy(h),
                        sx(a + width / 2) - sx(a - width / 2),
                        sy(base) - sy(h),
                        colours[i],
                    )
            if err is not None:
                for a, h, lo, hi in zip(at, heights, err[0], err[1], strict=True):
                    if horizontal:
                        y = sy(a)
                        c.line([sx(h - lo), sx(h + hi)], [y, y], width=1)
                        for v in (h - lo, h + hi):
                            c.line([sx(v), sx(v)], [y - cap / 2, y + cap / 2], width=1)
                    else:
                        x = sx(a)
                        c.line([x, x], [sy(h - lo), sy(h + hi)], width=1)
                        for v in (h - lo, h + hi):
                            c.line([x - cap / 2, x + cap / 2], [sy(v), sy(v)], width=1)

        self.marks.append(draw)
        if label:
            self.entries.append((label, colours[0] if colours else "#000", "patch"))

    def line(
        self, xs, ys, colour, width=1.2, marker="", size=3.0, label="", dash="", err=None, cap=3
    ):
        """A line through the points (gaps at NaN), with markers `size` points across and
        `err` (lengths below and above, 2 x n) as capped vertical whiskers."""
        xs, ys = np.asarray(xs, float), np.asarray(ys, float)
        err = None if err is None else np.nan_to_num(np.asarray(err, float))
        self.x.values.append(xs)
        self.y.values += [ys] + ([ys - err[0], ys + err[1]] if err is not None else [])

        def draw(sx, sy, c: Canvas) -> None:
            if err is not None:
                for x, y, lo, hi in zip(xs, ys, err[0], err[1], strict=True):
                    if np.isfinite(x + y):
                        c.line([sx(x)] * 2, [sy(y - lo), sy(y + hi)], colour, 1)
                        for v in (y - lo, y + hi):
                            c.line([sx(x) - cap / 2, sx(x) + cap / 2], [sy(v)] * 2, colour, 1)
            px, py = [sx(v) for v in xs], [sy(v) for v in ys]
            if width:
                c.line(px, py, colour, width, dash)
            if marker:
                for x, y in zip(px, py, strict=True):
                    if np.isfinite(x + y):
                        c.marker(x, y, marker, size, colour, width=2 if marker in "_|" else 0.8)

        self.marks.append(draw)
        if label:
            self.entries.append((label, colour, "line" if width else marker))

    def segments(self, starts, ends, at, colours, width=2.0, label=""):
        """Horizontal segments from `starts` to `ends` at heights `at` (one colour each, or
        one for all), `width` points thick."""
        starts, ends, at = (np.asarray(v, float) for v in (starts, ends, at))
        colours = [colours] * len(at) if isinstance(colours, str) else list(colours)
        self.x.values += [starts, ends]
        self.y.values.append(at)

        def draw(sx, sy, c: Canvas) -> None:
            for a, b, y, colour in zip(starts, ends, at, colours, strict=True):
                c.line([sx(a), sx(b)], [sy(y), sy(y)], colour, width)

        self.marks.append(draw)
        if label:
            self.entries.append((label, colours[0] if colours else "#000", "line"))

    def symbols(self, xs, ys, shape, colour="#000", size=5.0, label=""):
        """One marker `shape` (see `Canvas.marker`) at each point."""
        xs, ys = np.asarray(xs, float), np.asarray(ys, float)
        self.x.values.append(xs)
        self.y.values.append(ys)

        def draw(sx, sy, c: Canvas) -> None:
            for x, y in zip(xs, ys, strict=True):
                c.marker(sx(x), sy(y), shape, size, colour, width=1.0)

        self.marks.append(draw)
        if label:
            self.entries.append((label, colour, shape))

    def points(self, xs, ys, colour, sizes=5.0, hollow=False, label="", opacity=1.0):
        """Circles `sizes` points across (one size or one each); hollow: no fill."""
        xs, ys = np.asarray(xs, float), np.asarray(ys, float)
        sizes = np.broadcast_to(np.asarray(sizes, float), xs.shape)
        self.x.values.append(xs)
        self.y.values.append(ys)

        def draw(sx, sy, c: Canvas) -> None:
            for x, y, s in zip(xs, ys, sizes, strict=True):
                fill, stroke = ("none", colour) if hollow else (colour, None)
                c.marker(sx(x), sy(y), "o", s, fill, stroke, 1.0, opacity=opacity)

        self.marks.append(draw)
        if label:
            self.entries.append((label, colour, "o"))

    def band(self, xs, lo, hi, colour, opacity=0.3, label=""):
        """The area between two lines."""
        xs, lo, hi = (np.asarray(v, float) for v in (xs, lo, hi))
        self.x.values.append(xs)
        self.y.values += [lo, hi]

        def draw(sx, sy, c: Canvas) -> None:
            px = [sx(v) for v in xs]
            c.polygon(
                px + px[::-1], [sy(v) for v in hi] + [sy(v) for v in lo[::-1]], colour, opacity
            )

        self.marks.append(draw)
        if label:
            self.entries.append((label, colour, "patch"))

    def hline(self, y, colour="#000", width=1.0, dash="", label=""):
        """A line across the panel at height y."""
        self.y.values.append(np.array([y], float))
        self.marks.append(
            lambda sx, sy, c: c.line([c.left, c.right], [sy(y), sy(y)], colour, width, dash)
        )
        if label:
            self.entries.append((label, colour, "dash" if dash else "line"))

    def vline(self, x, colour="#000", width=1.0, dash=""):
        """A line down the panel at x."""
        self.x.values.append(np.array([x], float))
        self.marks.append(
            lambda sx, sy, c: c.line([sx(x), sx(x)], [c.top, c.bottom], colour, width, dash)
        )

    def span(self, x0, x1, colour, opacity=0.1):
        """A band down the panel from x0 to x1."""
        self.marks.append(
            lambda sx, sy, c: c.rect(
                sx(x0), c.top, sx(x1) - sx(x0), c.bottom - c.top, colour, opacity=opacity
            )
        )

    def label(
        self, x, y, text, colour="#000", size=FONT, dy=0.0, anchor="middle", middle=False, dx=0.0
    ):
        """Text at a data point, `dx` points right of it and `dy` above. Anchor "beside":
        right of the point in the panel's left half, left of it in the right half, so a
        label never runs off the panel's edge."""

        def draw(sx, sy, c: Canvas) -> None:
            at, shift = anchor, dx
            if anchor == "beside":
                right_half = sx(x) > (c.left + c.right) / 2
                at, shift = ("end", -dx) if right_half else ("start", dx)
            c.text(sx(x) + shift, sy(y) - dy, text, size, at, colour, middle=middle)

        self.marks.append(draw)

    def cells(
        self,
        values: np.ndarray,
        colour: Callable[[float], str],
        texts,
        limits: tuple[float, float],
        bar: Format | None = None,
        size: float = FONT,
        light: Callable[[float], bool] = lambda v: False,
    ):
        """A grid of values (row 0 at the top), each cell filled by `colour` and written
        `texts[i][j]` (white where `light(v)`), with a colour bar over `limits` formatted by
        `bar` (none if None)."""
        values = np.asarray(values, float)
        rows, cols = values.shape
        self.x.limits, self.y.limits = (-0.5, cols - 0.5), (rows - 0.5, -0.5)
        self.grid = False

        def draw(sx, sy, c: Canvas) -> None:
            for (i, j), v in np.ndenumerate(values):
                x0, y0 = sx(j - 0.5), sy(i - 0.5)
                fill = colour(v) if np.isfinite(v) else "#eeeeee"
                c.rect(x0, y0, sx(j + 0.5) - x0, sy(i + 0.5) - y0, fill)
                lines = str(texts[i][j]).split("\n")
                for k, line in enumerate(lines):
                    dy = (k - (len(lines) - 1) / 2) * (size + 1)
                    white = "#fff" if np.isfinite(v) and light(v) else "#000"
                    c.text(sx(j), sy(i) + dy, line, size, "middle", white, middle=True)

        self.marks.append(draw)
        if bar is not None:
            self.colourbar = (colour, limits[0], limits[1], bar)

    def outline(self, x: float, y: float, colour: str, width: float = 2.0):
        """A frame around the cell at column x, row y of a grid of `cells`."""
        self.marks.append(
            lambda sx, sy, c: c.rect(
                sx(x - 0.5),
                sy(y - 0.5),
                sx(x + 0.5) - sx(x - 0.5),
                sy(y + 0.5) - sy(y - 0.5),
                stroke=colour,
                width=width,
            )
        )

    # ---------------------------------------------------------------- drawing

    def margins(self, width: float, height: float) -> tuple[float, float, float, float]:
        """Space for titles, ticks, labels and an outside legend (left, top, right, bottom)."""
        _, ylabels = self.y.tick_marks(height - 40)
        left = (
            6 + max((text_width(t) for t in ylabels), default=0) + (FONT + 6 if self.y.label else 0)
        )
        # a title's lines, and room for a tick label at the very top of the axis
        top = 7 + (sum(self.title_size + 3 for _ in self.title.split("\n")) if self.title else 0)
        bottom = self._tick_room(width - left) + (FONT + 5 if self.x.label else 0)
        right = 8.0
        if self.legend == "below" and self.entries:
            bottom += (self.legend_size + 4) * math.ceil(len(self.entries) / 2) + 2
        if self.legend == "outside" and self.entries:
            right += 22 + max(text_width(t, self.legend_size) for t, _, _ in self.entries)
        if self.colourbar:
            right += 44
        return left, top, right, bottom

    def _tick_room(self, length: float) -> float:
        """Height under the plot for the x ticks and their labels (slanted ones need more)."""
        room = 6 + FONT + 4
        if self._rotated(length):
            _, xlabels = self.x.tick_marks(length)
            room += 0.5 * max(text_width(t) for t in xlabels)
        return room

    def _rotated(self, length: float) -> bool:
        """Whether the x tick labels are too long to stand side by side."""
        if self.x.ticks is None:
            return False
        positions, labels = self.x.ticks
        return sum(text_width(t) + 6 for t in labels) > length and len(positions) > 1

    def draw(self, c: Canvas, box: tuple[float, float, float, float]) -> None:
        """Draw into `box` (x, y, width, height in points)."""
        bx, by, bw, bh = box
        ml, mt, mr, mb = self.margins(bw, bh)
        left, top, right, bottom = bx + ml, by + mt, bx + bw - mr, by + bh - mb
        (x0, x1), (y0, y1) = self.x.span(), self.y.span()
        tx, ty = self.x.tf, self.y.tf
        sx = lambda v: left + (tx(v) - x0) / (x1 - x0) * (right - left)  # noqa: E731
        sy = lambda v: bottom - (ty(v) - y0) / (y1 - y0) * (bottom - top)  # noqa: E731
        c.left, c.right, c.top, c.bottom = left, right, top, bottom
        xt, xl = self.x.tick_marks(bw - 40)  # the lengths `margins` used, so the same ticks
        yt, yl = self.y.tick_marks(bh - 40)
        xt = [
            (t, s)
            for t, s in zip(xt, xl, strict=True)
            if min(x0, x1) - 1e-9 <= tx(t) <= max(x0, x1) + 1e-9
        ]
        yt = [
            (t, s)
            for t, s in zip(yt, yl, strict=True)
            if min(y0, y1) - 1e-9 <= ty(t) <= max(y0, y1) + 1e-9
        ]
        if self.grid:
            for t, _ in xt:
                c.line([sx(t)] * 2, [top, bottom], GRID, 0.6)
            for t, _ in yt:
                c.line([left, right], [sy(t)] * 2, GRID, 0.6)
        for mark in self.marks:
            mark(sx, sy, c)
        if self.frame:
            c.line([left, left, right], [top, bottom, bottom], "#000", 0.8)
        rotated = self._rotated(bw - ml)  # the length `margins` judged
        for t, s in xt:
            c.line([sx(t)] * 2, [bottom, bottom + 3.5], "#000", 0.8)
            if rotated:
                c.text(sx(t), bottom + 4 + FONT, s, anchor="end", rotate=-30)
            else:
                c.text(sx(t), bottom + 4 + FONT, s, anchor="middle")
        for t, s in yt:
            c.line([left - 3.5, left], [sy(t)] * 2, "#000", 0.8)
            c.text(left - 5, sy(t), s, anchor="end", middle=True)
        under = bottom + self._tick_room(bw - ml)
        if self.x.label:
            c.text((left + right) / 2, under + FONT, self.x.label, anchor="middle")
            under += FONT + 5
        if self.y.label:
            c.text(bx + FONT + 2, (top + bottom) / 2, self.y.label, anchor="middle", rotate=-90)
        for i, line in enumerate(self.title.split("\n") if self.title else []):
            c.text(left, by + (i + 1) * (self.title_size + 3), line, self.title_size)
        self._draw_legend(c, left, top, right, under)
        if self.colourbar:
            self._draw_colourbar(c, right, top, bottom)

    def _draw_legend(self, c: Canvas, left: float, top: float, right: float, under: float):
        if not self.legend or not self.entries:
            return
        size = self.legend_size
        row = size + 4
        wide = 20 + max(text_width(t, size) for t, _, _ in self.entries)
        if self.legend == "below":
            half = (right - left) / 2
            for i, entry in enumerate(self.entries):
                r, col = divmod(i, 2)
                self._entry(c, left + col * half, under + 2 + r * row + row / 2, entry, size)
            return
        if self.legend == "outside":
            x, y = right + 10, top + 2
        elif self.legend == "upper left":
            x, y = left + 4, top + 2
        else:
            x, y = right - wide - 4, top + 2
        if self.legend != "outside":
            c.rect(x - 2, y - 1, wide + 4, row * len(self.entries) + 2, "#fff", opacity=0.8)
        for i, entry in enumerate(self.entries):
            self._entry(c, x, y + i * row + row / 2, entry, size)

    @staticmethod
    def _entry(c: Canvas, x: float, y: float, entry: tuple[str, str, str], size: float) -> None:
        """One legend line: its swatch at (x, y) and its label after it."""
        label, colour, shape = entry
        if shape == "patch":
            c.rect(x, y - 3.5, 12, 7, colour)
        elif shape in ("line", "dash"):
            c.line([x, x + 12], [y, y], colour, 1.5, "4 2" if shape == "dash" else "")
        else:
            c.marker(x + 6, y, shape, 5, colour, width=2)
        c.text(x + 16, y, label, size, middle=True)

    def _draw_colourbar(self, c: Canvas, right: float, top: float, bottom: float) -> None:
        """The colour scale beside a grid of `cells`, with a few ticks."""
        colour, lo, hi, fmt = self.colourbar
        if not hi > lo:  # every cell alike (a constant metric): one colour, its value marked
            lo, hi = lo - 0.5, hi + 0.5
        x, steps = right + 8, 24
        h = (bottom - top) / steps
        for k in range(steps):
            v = hi - (k + 0.5) / steps * (hi - lo)
            c.rect(x, top + k * h, 10, h + 0.3, colour(v))
        for v in nice_ticks(lo, hi, 4):
            y = top + (hi - v) / (hi - lo) * (bottom - top)
            c.text(x + 13, y, fmt(v), FONT - 1, middle=True)


class Chart(Canvas):
    """Panels in a grid (`rows` x `cols`, optional `width_ratios`) under an optional title;
    `width` and `height` in inches, as matplotlib's figsize."""

    def __init__(
        self,
        width: float,
        height: float,
        rows: int = 1,
        cols: int = 1,
        width_ratios: Sequence[float] | None = None,
        title: str = "",
    ) -> None:
        super().__init__(width * PT, height * PT)
        self.grid_shape = (rows, cols)
        self.ratios = list(width_ratios or [1.0] * cols)
        self.title = title
        self.panels = [Panel() for _ in range(rows * cols)]

    @property
    def panel(self) -> Panel:
        """The first (or only) panel."""
        return self.panels[0]

    def to_svg(self, key: str = "") -> str:
        """Lay the panels out and write them (again from scratch on every call)."""
        self.parts = []
        titles = [self.title] + [p.title for p in self.panels]
        self.name = self.name or "; ".join(t.replace("\n", " ") for t in titles if t)
        head = FONT + 8 if self.title else 0
        if self.title:
            self.text(6, FONT + 3, self.title, FONT + 1)
        rows, cols = self.grid_shape
        h = (self.height - head) / rows
        edges = np.concatenate([[0], np.cumsum(self.ratios)]) / sum(self.ratios) * self.width
        for k, panel in enumerate(self.panels):
            r, col = divmod(k, cols)
            panel.draw(self, (edges[col], head + r * h, edges[col + 1] - edges[col], h))
        return super().to_svg(key)


VIRIDIS = "440154 482878 3e4a89 31688e 26828e 1f9e89 35b779 6dcd59 b4de2c fde725".split()


def sequential(lo: float, hi: float) -> Callable[[float], str]:
    """Dark purple at lo to yellow at hi (viridis)."""
    return _ramp(VIRIDIS, lo, hi)


def diverging(lo: float, hi: float) -> Callable[[float], str]:
    """Red below the middle of [lo, hi], white at it, blue above (ColorBrewer's RdBu)."""
    return _ramp(RDBU, lo, hi)


RDBU = "67001f b2182b d6604d f4a582 fddbc7 f7f7f7 d1e5f0 92c5de 4393c3 2166ac 053061".split()


def _ramp(colours: list[str], lo: float, hi: float) -> Callable[[float], str]:
    """Colours interpolated between evenly spaced anchors ('rrggbb') from lo to hi (clipped)."""
    anchors = np.array([[int(c[k : k + 2], 16) for k in (0, 2, 4)] for c in colours], float)

    def colour(v: float) -> str:
        t = 0.5 if hi == lo else min(max((v - lo) / (hi - lo), 0.0), 1.0)
        pos = t * (len(anchors) - 1)
        i = min(int(pos), len(anchors) - 2)
        rgb = anchors[i] + (anchors[i + 1] - anchors[i]) * (pos - i)
        return "#" + "".join(f"{int(round(x)):02x}" for x in rgb)

    return colour
