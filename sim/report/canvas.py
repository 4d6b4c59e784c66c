"""SVG elements written directly, in points (72 to the inch, as matplotlib's SVG): the
drawing surface of `sim.report.chart` and of the drawn table (`table_picture`).

Text widths are estimated from the character count (there are no font metrics), so
layouts leave a little room.
"""

from __future__ import annotations

import html

import numpy as np

FONT = 8.0  # points
FAMILY = "DejaVu Sans, Helvetica, Arial, sans-serif"


def _plus(w: float, turn: float = 0.0) -> list[tuple[float, float]]:
    """The 12 corners of a plus sign whose arms, 2w wide, reach 1 from its middle, turned by
    `turn` radians (pi/4: a cross): one arm's three corners, turned a quarter four times."""
    arm = [(-w, -1.0), (w, -1.0), (w, -w)]
    corners = [(a, b) for q in range(4) for a, b in (_quarter(c, q) for c in arm)]
    cos, sin = np.cos(turn), np.sin(turn)
    return [(a * cos - b * sin, a * sin + b * cos) for a, b in corners]


def _quarter(corner: tuple[float, float], times: int) -> tuple[float, float]:
    a, b = corner
    for _ in range(times):
        a, b = -b, a
    return a, b


# polygon markers' corners, in half-sizes from the middle (Canvas.marker)
SHAPES = {
    "s": [(-1, -1), (1, -1), (1, 1), (-1, 1)],
    "D": [(0, -1.2), (1.2, 0), (0, 1.2), (-1.2, 0)],
    "^": [(0, -1.2), (1.1, 0.9), (-1.1, 0.9)],
    "v": [(0, 1.2), (1.1, -0.9), (-1.1, -0.9)],
    ">": [(1.2, 0), (-0.9, 1.1), (-0.9, -1.1)],
    "<": [(-1.2, 0), (0.9, 1.1), (0.9, -1.1)],
    "X": [(1.2 * a, 1.2 * b) for a, b in _plus(0.3, np.pi / 4)],
    "P": _plus(0.35),
}


WIDE = set("%MWmw@")  # about 0.95 em in DejaVu Sans


def text_width(text: str, size: float = FONT) -> float:
    """Estimated width of `text` in points: digits and most letters 0.62 em (a digit is
    0.64 em in DejaVu Sans), capitals 0.72, '%', 'm', 'w' and their like 0.95."""
    ems = sum(0.95 if ch in WIDE else 0.72 if ch.isupper() else 0.62 for ch in text)
    return size * ems


def _n(v: float) -> str:
    """A coordinate, short and stable."""
    return f"{v:.2f}".rstrip("0").rstrip(".")


class Canvas:
    """SVG elements in drawing units; `to_svg` wraps them in a sized `<svg>`."""

    def __init__(self, width: float, height: float):
        self.width, self.height = width, height
        self.parts: list[str] = []
        self.name = ""  # what the drawing shows, for screen readers and tooltips
        # the plot area of the panel being drawn (lines across a panel reach its edges)
        self.left, self.top, self.right, self.bottom = 0.0, 0.0, width, height

    def add(self, element: str) -> None:
        self.parts.append(element)

    def rect(self, x, y, w, h, fill="none", stroke=None, width=0.0, opacity=1.0, cls="") -> None:
        if not _finite(x, y, w, h):
            return  # nothing to draw where a value is missing
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
        """A polyline through the points, broken where a point is missing (NaN)."""
        runs: list[list[str]] = [[]]
        for x, y in zip(xs, ys, strict=True):
            if _finite(x, y):
                runs[-1].append(f"{_n(x)},{_n(y)}")
            elif runs[-1]:
                runs.append([])
        for run in runs:
            if not run:
                continue
            self.add(
                f'<polyline points="{" ".join(run)}" fill="none"'
                + _stroke(stroke, width)
                + (f' stroke-dasharray="{dash}"' if dash else "")
                + (f' stroke-linecap="{cap}"' if cap else "")
                + (f' class="{cls}"' if cls else "")
                + "/>"
            )

    def polygon(self, xs, ys, fill, opacity=1.0, stroke=None, width=0.0) -> None:
        points = " ".join(f"{_n(x)},{_n(y)}" for x, y in zip(xs, ys, strict=True) if _finite(x, y))
        self.add(
            f'<polygon points="{points}" fill="{fill}"'
            + _stroke(stroke, width)
            + (f' opacity="{_n(opacity)}"' if opacity < 1 else "")
            + "/>"
        )

    def ellipse(self, x, y, rx, ry, fill, stroke="#000", width=0.8, dash="", opacity=1.0, cls=""):
        if not _finite(x, y, rx, ry):
            return
        self.add(
            f'<ellipse cx="{_n(x)}" cy="{_n(y)}" rx="{_n(rx)}" ry="{_n(ry)}" fill="{fill}"'
            + _stroke(stroke, width)
            + (f' stroke-dasharray="{dash}"' if dash else "")
            + (f' fill-opacity="{_n(opacity)}"' if opacity < 1 else "")
            + (f' class="{cls}"' if cls else "")
            + "/>"
        )

    def marker(
        self, x, y, shape="o", size=4.0, fill="#000", stroke=None, width=0.8, cls="", opacity=1.0
    ):
        """A marker `size` points across: o circle, s square, D diamond, ^ v triangles,
        > < triangles pointing right and left, X a filled cross, x a thin one, _ horizontal
        dash, | vertical dash."""
        if not _finite(x, y):
            return
        r = size / 2
        extra = (
            _stroke(stroke, width)
            + (f' opacity="{_n(opacity)}"' if opacity < 1 else "")
            + (f' class="{cls}"' if cls else "")
        )
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
            corners = SHAPES.get(shape, SHAPES["s"])
            points = " ".join(f"{_n(x + a * r)},{_n(y + b * r)}" for a, b in corners)
            self.add(f'<polygon points="{points}" fill="{fill}"{extra}/>')

    def text(
        self,
        x,
        y,
        text,
        size=FONT,
        anchor="start",
        colour="#000",
        rotate=0.0,
        bold=False,
        middle=False,
    ) -> None:
        """Text whose baseline is at y (its middle when `middle`)."""
        if not _finite(x, y):
            return
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
        """The drawing as an `<svg>` element, named by its `<title>` (no ids, so `key` is only
        for the caller's figure; it is accepted for the same signature as the other figures)."""
        name = html.escape(self.name)
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(self.width)}pt"'
            f' height="{_n(self.height)}pt" viewBox="0 0 {_n(self.width)} {_n(self.height)}"'
            f' font-family="{FAMILY}" role="img"'
            + (f' aria-label="{name}">' if name else ">")
            + (f"<title>{name}</title>" if name else "")
            + '<rect width="100%" height="100%" fill="#fff"/>'
            + "".join(self.parts)
            + "</svg>"
        )

    def _repr_svg_(self) -> str:
        return self.to_svg()


def _finite(*values) -> bool:
    """Are all these coordinates numbers (not NaN, not infinite)?"""
    return bool(np.isfinite(np.asarray(values, float)).all())


def _stroke(colour: str | None, width: float) -> str:
    return f' stroke="{colour}" stroke-width="{_n(width)}"' if colour else ""
