"""Charts written straight to SVG: the run page's figures without matplotlib.

A report figure is a few bars, lines and labels. matplotlib builds an artist tree, measures
every label's box and draws each figure twice for a tight bounding box: about 0.4 CPU-s a
figure, most of a run page's cost (issue 54). Here a figure is a list of marks per panel,
scaled and written as SVG elements in a millisecond or two. Text widths are estimated from
the character count (there are no font metrics), so margins are a little generous.

`Canvas` writes elements in drawing units (points, 72 to the inch, as matplotlib's SVG);
`Panel` is one set of axes (marks in data units, ticks, labels, a legend); `Chart` lays
panels out in a grid. Charts show themselves in notebooks (`_repr_svg_`).
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence

import numpy as np

PT = 72.0  # drawing units per inch
FONT = 8.0  # points
FAMILY = "DejaVu Sans, Helvetica, Arial, sans-serif"
GRID = "#d9d9d9"
Format = Callable[[float], str]


def text_width(text: str, size: float = FONT) -> float:
    """Estimated width of `text` in points (a digit is 0.64 em wide in DejaVu Sans, most
    letters less)."""
    return 0.62 * size * len(text)


def _n(v: float) -> str:
    """A coordinate, short and stable."""
    return f"{v:.2f}".rstrip("0").rstrip(".")


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


class Canvas:
    """SVG elements in drawing units; `to_svg` wraps them in a sized `<svg>`."""

    def __init__(self, width: float, height: float):
        self.width, self.height = width, height
        self.parts: list[str] = []
        # the plot area of the panel being drawn (lines across a panel reach its edges)
        self.left, self.top, self.right, self.bottom = 0.0, 0.0, width, height

    def add(self, element: str) -> None:
        self.parts.append(element)

    def rect(self, x, y, w, h, fill="none", stroke=None, width=0.0, opacity=1.0, cls="") -> None:
        if w < 0:
            x, w = x + w, -w
        if h < 0:
            y, h = y + h, -h
        self.add(
            f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}" fill="{fill}"'
            + _stroke(stroke, width)
            + (f' opacity="{_n(opacity)}"' if opacity < 1 else "")
            + (f' class="{cls}"' if cls else "")
            + "/>"
        )

    def line(self, xs, ys, stroke="#000", width=1.0, dash="", cls="", cap="") -> None:
        points = " ".join(
            f"{_n(x)},{_n(y)}" for x, y in zip(xs, ys, strict=True) if np.isfinite(x + y)
        )
        self.add(
            f'<polyline points="{points}" fill="none"'
            + _stroke(stroke, width)
            + (f' stroke-dasharray="{dash}"' if dash else "")
            + (f' stroke-linecap="{cap}"' if cap else "")
            + (f' class="{cls}"' if cls else "")
            + "/>"
        )

    def polygon(self, xs, ys, fill, opacity=1.0, stroke=None, width=0.0) -> None:
        points = " ".join(f"{_n(x)},{_n(y)}" for x, y in zip(xs, ys, strict=True))
        self.add(
            f'<polygon points="{points}" fill="{fill}"'
            + _stroke(stroke, width)
            + (f' opacity="{_n(opacity)}"' if opacity < 1 else "")
            + "/>"
        )

    def ellipse(self, x, y, rx, ry, fill, stroke="#000", width=0.8, dash="", opacity=1.0, cls=""):
        self.add(
            f'<ellipse cx="{_n(x)}" cy="{_n(y)}" rx="{_n(rx)}" ry="{_n(ry)}" fill="{fill}"'
            + _stroke(stroke, width)
            + (f' stroke-dasharray="{dash}"' if dash else "")
            + (f' fill-opacity="{_n(opacity)}"' if opacity < 1 else "")
            + (f' class="{cls}"' if cls else "")
            + "/>"
        )

    def marker(self, x, y, shape="o", size=4.0, fill="#000", stroke=None, width=0.8, cls=""):
        """A marker `size` points across: o circle, s square, D diamond, ^ v triangles,
        > < triangles pointing right and left, X a filled cross, x a thin one, _ horizontal
        dash, | vertical dash."""
        r = size / 2
        extra = _stroke(stroke, width) + (f' class="{cls}"' if cls else "")
        if shape == "o":
            self.add(f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{_n(r)}" fill="{fill}"{extra}/>')
        elif shape == "x":
            d = r * 0.8
            self.add(
                f'<path d="M{_n(x - d)},{_n(y - d)}L{_n(x + d)},{_n(y + d)}'
                f'M{_n(x - d)},{_n(y + d)}L{_n(x + d)},{_n(y - d)}" stroke="{fill}"'
                f' stroke-width="{_n(width)}"' + (f' class="{cls}"' if cls else "") + "/>"
            )
        elif shape in "_|":
            dx, dy = (r, 0) if shape == "_" else (0, r)
            self.add(
                f'<line x1="{_n(x - dx)}" y1="{_n(y - dy)}" x2="{_n(x + dx)}" y2="{_n(y + dy)}"'
                f' stroke="{fill}" stroke-width="{_n(width)}"'
                + (f' class="{cls}"' if cls else "")
                + "/>"
            )
        else:
            shapes = {
                "s": [(-1, -1), (1, -1), (1, 1), (-1, 1)],
                "D": [(0, -1.2), (1.2, 0), (0, 1.2), (-1.2, 0)],
                "^": [(0, -1.2), (1.1, 0.9), (-1.1, 0.9)],
                "v": [(0, 1.2), (1.1, -0.9), (-1.1, -0.9)],
                ">": [(1.2, 0), (-0.9, 1.1), (-0.9, -1.1)],
                "<": [(-1.2, 0), (0.9, 1.1), (0.9, -1.1)],
                "X": [(-1, -0.6), (-0.6, -1), (0, -0.4), (0.6, -1), (1, -0.6), (0.4, 0),
                      (1, 0.6), (0.6, 1), (0, 0.4), (-0.6, 1), (-1, 0.6), (-0.4, 0)],
                "P": [(-0.35, -1), (0.35, -1), (0.35, -0.35), (1, -0.35), (1, 0.35),
                      (0.35, 0.35), (0.35, 1), (-0.35, 1), (-0.35, 0.35), (-1, 0.35),
                      (-1, -0.35), (-0.35, -0.35)],
            }  # fmt: skip
            corners = shapes.get(shape, shapes["s"])
            points = " ".join(f"{_n(x + a * r)},{_n(y + b * r)}" for a, b in corners)
            self.add(f'<polygon points="{points}" fill="{fill}"{extra}/>')

    def text(
        self, x, y, text, size=FONT, anchor="start", colour="#000", rotate=0.0, bold=False,
        middle=False,
    ) -> None:  # fmt: skip
        """Text whose baseline is at y (its middle when `middle`)."""
        if middle:
            y += 0.35 * size
        transform = f' transform="rotate({_n(rotate)} {_n(x)} {_n(y)})"' if rotate else ""
        self.add(
            f'<text x="{_n(x)}" y="{_n(y)}" font-size="{_n(size)}" text-anchor="{anchor}"'
            + (f' fill="{colour}"' if colour != "#000" else "")
            + (' font-weight="bold"' if bold else "")
            + transform
            + f">{html.escape(str(text), quote=False)}</text>"
        )

    def to_svg(self, key: str = "") -> str:
        """The drawing as an `<svg>` element (no ids, so `key` is only for the caller's
        figure; it is accepted for the same signature as the other figures)."""
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(self.width)}pt"'
            f' height="{_n(self.height)}pt" viewBox="0 0 {_n(self.width)} {_n(self.height)}"'
            f' font-family="{FAMILY}">'
            f'<rect width="100%" height="100%" fill="#fff"/>' + "".join(self.parts) + "</svg>"
        )

    def _repr_svg_(self) -> str:
        return self.to_svg()


def _stroke(colour: str | None, width: float) -> str:
    return f' stroke="{colour}" stroke-width="{_n(width)}"' if colour else ""


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

    def span(self) -> tuple[float, float]:
        """The axis limits: as set, or the data's with 5% margins (none past a bar's base)."""
        if self.limits is not None:
            return self.limits
        data = np.concatenate([np.ravel(v).astype(float) for v in self.values] or [[0.0, 1.0]])
        data = data[np.isfinite(data)]
        lo, hi = (float(data.min()), float(data.max())) if len(data) else (0.0, 1.0)
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
        self.legend: str | None = None  # "outside" (right of the panel), "upper left/right"
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

    def line(self, xs, ys, colour, width=1.2, marker="", size=3.0, label="", dash=""):
        """A line through the points (gaps at NaN), with markers `size` points across."""
        xs, ys = np.asarray(xs, float), np.asarray(ys, float)
        self.x.values.append(xs)
        self.y.values.append(ys)

        def draw(sx, sy, c: Canvas) -> None:
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

    def points(self, xs, ys, colour, sizes=5.0, hollow=False, label=""):
        """Circles `sizes` points across (one size or one each); hollow: white inside."""
        xs, ys = np.asarray(xs, float), np.asarray(ys, float)
        sizes = np.broadcast_to(np.asarray(sizes, float), xs.shape)
        self.x.values.append(xs)
        self.y.values.append(ys)

        def draw(sx, sy, c: Canvas) -> None:
            for x, y, s in zip(xs, ys, sizes, strict=True):
                fill, stroke = ("#fff", colour) if hollow else (colour, None)
                c.marker(sx(x), sy(y), "o", s, fill, stroke, 1.0)

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

    def vline(self, x, colour="#000", width=1.0):
        """A line down the panel at x."""
        self.x.values.append(np.array([x], float))
        self.marks.append(
            lambda sx, sy, c: c.line([sx(x), sx(x)], [c.top, c.bottom], colour, width)
        )

    def label(self, x, y, text, colour="#000", size=FONT, dy=0.0, anchor="middle", middle=False):
        """Text at a data point, `dy` points above it."""
        self.marks.append(
            lambda sx, sy, c: c.text(sx(x), sy(y) - dy, text, size, anchor, colour, middle=middle)
        )

    def cells(self, values: np.ndarray, centre: float, labels: Callable[[float], str]):
        """A grid of values coloured around `centre` (blue above, red below), each labelled;
        row 0 at the top; a colour bar beside it."""
        values = np.asarray(values, float)
        rows, cols = values.shape
        finite = values[np.isfinite(values)]
        spread = max(float(np.max(np.abs(finite - centre))) if len(finite) else 0.0, 0.05)
        colour = diverging(centre - spread, centre + spread)
        self.x.limits, self.y.limits = (-0.5, cols - 0.5), (rows - 0.5, -0.5)
        self.grid = False

        def draw(sx, sy, c: Canvas) -> None:
            for (i, j), v in np.ndenumerate(values):
                fill = colour(v) if np.isfinite(v) else "#eeeeee"
                c.rect(
                    sx(j - 0.5),
                    sy(i - 0.5),
                    sx(j + 0.5) - sx(j - 0.5),
                    sy(i + 0.5) - sy(i - 0.5),
                    fill,
                )
                dark = np.isfinite(v) and abs(v - centre) > 0.6 * spread
                c.text(
                    sx(j),
                    sy(i),
                    "–" if not np.isfinite(v) else labels(v),
                    FONT,
                    "middle",
                    "#fff" if dark else "#000",
                    middle=True,
                )

        self.marks.append(draw)
        self.colourbar = (colour, centre - spread, centre + spread, percent())

    # ---------------------------------------------------------------- drawing

    def margins(self, width: float, height: float) -> tuple[float, float, float, float]:
        """Space for titles, ticks, labels and an outside legend (left, top, right, bottom)."""
        _, ylabels = self.y.tick_marks(height - 40)
        left = (
            6 + max((text_width(t) for t in ylabels), default=0) + (FONT + 6 if self.y.label else 0)
        )
        top = 4 + (sum(self.title_size + 3 for _ in self.title.split("\n")) if self.title else 0)
        bottom = 6 + FONT + 4 + (FONT + 5 if self.x.label else 0)
        if self._rotated(width - left):
            _, xlabels = self.x.tick_marks(width - 40)
            bottom += 0.5 * max(text_width(t) for t in xlabels)
        right = 8.0
        if self.legend == "outside" and self.entries:
            right += 22 + max(text_width(t, self.legend_size) for t, _, _ in self.entries)
        if self.colourbar:
            right += 44
        return left, top, right, bottom

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
        sx = lambda v: left + (v - x0) / (x1 - x0) * (right - left)  # noqa: E731
        sy = lambda v: bottom - (v - y0) / (y1 - y0) * (bottom - top)  # noqa: E731
        c.left, c.right, c.top, c.bottom = left, right, top, bottom
        xt, xl = self.x.tick_marks(bw - 40)  # the lengths `margins` used, so the same ticks
        yt, yl = self.y.tick_marks(bh - 40)
        xt = [
            (t, s)
            for t, s in zip(xt, xl, strict=True)
            if min(x0, x1) - 1e-9 <= t <= max(x0, x1) + 1e-9
        ]
        yt = [
            (t, s)
            for t, s in zip(yt, yl, strict=True)
            if min(y0, y1) - 1e-9 <= t <= max(y0, y1) + 1e-9
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
        rotated = self._rotated(right - left)
        for t, s in xt:
            c.line([sx(t)] * 2, [bottom, bottom + 3.5], "#000", 0.8)
            if rotated:
                c.text(sx(t), bottom + 4 + FONT, s, anchor="end", rotate=-30)
            else:
                c.text(sx(t), bottom + 4 + FONT, s, anchor="middle")
        for t, s in yt:
            c.line([left - 3.5, left], [sy(t)] * 2, "#000", 0.8)
            c.text(left - 5, sy(t), s, anchor="end", middle=True)
        if self.x.label:
            c.text((left + right) / 2, by + bh - 4, self.x.label, anchor="middle")
        if self.y.label:
            c.text(bx + FONT + 2, (top + bottom) / 2, self.y.label, anchor="middle", rotate=-90)
        for i, line in enumerate(self.title.split("\n") if self.title else []):
            c.text(left, by + (i + 1) * (self.title_size + 3), line, self.title_size)
        self._draw_legend(c, left, top, right)
        if self.colourbar:
            self._draw_colourbar(c, right, top, bottom)

    def _draw_legend(self, c: Canvas, left: float, top: float, right: float) -> None:
        if not self.legend or not self.entries:
            return
        size = self.legend_size
        row = size + 4
        wide = 20 + max(text_width(t, size) for t, _, _ in self.entries)
        if self.legend == "outside":
            x, y = right + 10, top + 2
        elif self.legend == "upper left":
            x, y = left + 4, top + 2
        else:
            x, y = right - wide - 4, top + 2
        if self.legend != "outside":
            c.rect(x - 2, y - 1, wide + 4, row * len(self.entries) + 2, "#fff", opacity=0.8)
        for i, (label, colour, shape) in enumerate(self.entries):
            yy = y + i * row + row / 2
            if shape == "patch":
                c.rect(x, yy - 3.5, 12, 7, colour)
            elif shape in ("line", "dash"):
                c.line([x, x + 12], [yy, yy], colour, 1.5, "4 2" if shape == "dash" else "")
            else:
                c.marker(x + 6, yy, shape, 5, colour, width=2)
            c.text(x + 16, yy, label, size, middle=True)

    def _draw_colourbar(self, c: Canvas, right: float, top: float, bottom: float) -> None:
        colour, lo, hi, fmt = self.colourbar
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

    def __init__(self, width: float, height: float, rows: int = 1, cols: int = 1,
                 width_ratios: Sequence[float] | None = None, title: str = "") -> None:  # fmt: skip
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
        self.parts = []
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


def diverging(lo: float, hi: float) -> Callable[[float], str]:
    """Red below the middle of [lo, hi], white at it, blue above (ColorBrewer's RdBu)."""
    anchors = np.array(
        [(103, 0, 31), (178, 24, 43), (214, 96, 77), (244, 165, 130), (253, 219, 199),
         (247, 247, 247), (209, 229, 240), (146, 197, 222), (67, 147, 195), (33, 102, 172),
         (5, 48, 97)], float,
    )  # fmt: skip

    def colour(v: float) -> str:
        t = 0.5 if hi == lo else min(max((v - lo) / (hi - lo), 0.0), 1.0)
        pos = t * (len(anchors) - 1)
        i = min(int(pos), len(anchors) - 2)
        rgb = anchors[i] + (anchors[i + 1] - anchors[i]) * (pos - i)
        return "#" + "".join(f"{int(round(v)):02x}" for v in rgb)

    return colour
