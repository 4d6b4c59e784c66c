"""A saved map asked at a point: `sim map DIR --predict --set KEY=VALUE` and
`sim.load_map(DIR).predict({...})`, from map.json alone (no game is played)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from sim.config.keys import parse_override
from sim.errors import SimError
from sim.space_map.design import Axis, axes_of, inputs
from sim.space_map.emulator import Z95, Fit

MAP_FILE = "map.json"


@dataclass(frozen=True)
class SavedMap:
    """A map folder's emulators, and the space and game they speak of."""

    folder: Path
    data: dict

    @property
    def axes(self) -> tuple[Axis, ...]:
        return axes_of(self.data["space"])

    @property
    def start(self) -> dict:
        """The config's own settings."""
        return dict(self.data.get("start") or self.data["points"][0]["point"])

    def checked(self, point: dict) -> dict:
        """The point with the start's value for every count it leaves out; a count not in
        the space, or a value outside it, is one line."""
        axes = {a.name: a for a in self.axes}
        for key, value in point.items():
            if key not in axes:
                raise SimError(f"{key}: not a setting of this map's space ({', '.join(axes)})")
            if value not in axes[key].values or isinstance(value, bool):
                raise SimError(f"{key}={value!r}: outside the map's space {axes[key].text()}")
        full = {**self.start, **point}
        for a in self.axes:
            if not a.reads(full[a.name]):
                raise SimError(
                    f"give {a.name} (the config's {full[a.name]!r} is not in the map's"
                    f" space {a.text()})"
                )
        return full

    def predict(self, point: dict) -> pd.DataFrame:
        """The emulated metrics at the point: metric, estimate, lo, hi (95%)."""
        full = self.checked(point)
        x = inputs(self.data["game"], self.axes, [full])
        train = np.asarray(self.data["inputs"], float)
        rows = []
        for name, saved in self.data["emulators"].items():
            mean, sd = Fit.from_json(saved, train).predict(x)
            rows.append(
                {
                    "metric": name,
                    "estimate": float(mean[0]),
                    "lo": float(mean[0] - Z95 * sd[0]),
                    "hi": float(mean[0] + Z95 * sd[0]),
                }
            )
        return pd.DataFrame(rows)


def load_map(folder: str | Path) -> SavedMap:
    """Open a map folder (one line when it is not one)."""
    folder = Path(folder)
    path = folder / MAP_FILE
    if not path.is_file():
        raise SimError(f"{folder}: not a map folder (no {MAP_FILE}; make one with sim map CONFIG)")
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise SimError(f"{path}: cannot be read as a map ({exc})") from None
    if data.get("kind") != "map":
        raise SimError(f"{path}: not a map (kind {data.get('kind')!r})")
    return SavedMap(folder, data)


def parse_sets(sets: Sequence[str]) -> dict:
    """--set KEY=VALUE pairs, each read as `sim.config.keys.parse_override` reads a study's."""
    return dict(parse_override(item) for item in sets)


def predict_json(folder: Path, sets: Sequence[str]) -> str:
    """One JSON object: the point (every count) and each metric's estimate and interval."""
    saved = load_map(folder)
    point = saved.checked(parse_sets(sets))
    table = saved.predict(point)
    metrics = {
        r.metric: {"estimate": r.estimate, "lo": r.lo, "hi": r.hi} for r in table.itertuples()
    }
    return json.dumps({"point": point, "metrics": metrics})
