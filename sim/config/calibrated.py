"""Seats from a calibration: `{calibrated: path/to/calibrated.yaml}` in a line-up.

`sim calibrate` writes the fitted player as one seat, `{policy: heuristic, weights:
{...}, temperature: T, label: calibrated}`, in `calibrated.yaml`. A line-up entry
`{calibrated: FILE}` stands for that seat (with `ban:` or `label:` beside it to
restrict or rename it). The path is read from the folder of the study file that names
it (under `extends`, the file that wrote it), else from the working folder. The seat
is read and checked when the study is loaded, and the resolved study (a run folder's
`config.yaml`, the config hash) holds the seat itself, so a run never depends on the
file again.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sim.config.messages import fail, show
from sim.config.yamlio import read_file
from sim.errors import ConfigError

CALIBRATED = "calibrated"
BESIDE = ("ban", "label")  # what a calibrated entry may carry beside the file
SEAT_KEYS = ("policy", "weights", "temperature", "preset", "label")
MAX_LABEL = 60


def anchored(data: Any, folder: Path) -> Any:
    """A study mapping whose relative `calibrated:` paths (in `seats` and `advise`) are made
    relative to `folder` (the folder of the file the mapping was read from), so `extends`
    keeps them."""
    if not isinstance(data, Mapping):
        return data

    def moved(item: Any) -> Any:
        ref = item.get(CALIBRATED) if isinstance(item, Mapping) else None
        if isinstance(ref, str) and ref.strip() and not Path(ref).is_absolute():
            return {**item, CALIBRATED: str(folder / ref)}
        return item

    out = dict(data)
    if isinstance(data.get("seats"), list):
        out["seats"] = [moved(item) for item in data["seats"]]
    if isinstance(data.get("advise"), Mapping):  # advise: {calibrated: FILE}
        out["advise"] = moved(data["advise"])
    return out


def calibrated_seat(item: Mapping, base: str | None, where: str, at: tuple) -> dict:
    """The seat a `{calibrated: FILE}` entry stands for, as a seat mapping (checked later
    like any seat); every problem is one error line at `at`."""
    extra = sorted(set(item) - {CALIBRATED, *BESIDE})
    if extra:
        fail(
            where,
            (*at, extra[0]),
            f"a calibrated seat takes only {', '.join(BESIDE)} beside {CALIBRATED!r}",
        )
    ref = item[CALIBRATED]
    if not isinstance(ref, str) or not ref.strip() or not ref.isprintable() or len(ref) > 4096:
        fail(where, (*at, CALIBRATED), f"must be the path of a calibrated.yaml, got {show(ref)}")
    path = Path(ref)
    if not path.is_absolute() and base:
        path = Path(base) / path
    try:
        seat = read_file(path)
    except ConfigError as exc:
        fail(where, (*at, CALIBRATED), str(exc))
    if not isinstance(seat, Mapping) or seat.get("policy") != "heuristic":
        fail(
            where,
            (*at, CALIBRATED),
            f"{path}: not a calibrated seat ({{policy: heuristic, weights: ..., temperature:"
            " ...}, as sim calibrate writes it)",
        )
    unknown = sorted(str(k) for k in seat if k not in SEAT_KEYS)
    if unknown:
        fail(where, (*at, CALIBRATED), f"{path}: unknown key {unknown[0]!r} in a calibrated seat")
    out = dict(seat)
    out.update({k: item[k] for k in BESIDE if k in item})
    return out


def check_label(label: Any, where: str, at: tuple) -> str:
    """A seat's `label:`: a short printable text that names it in tables and plots."""
    if not isinstance(label, str) or not label.strip() or not label.isprintable():
        fail(where, at, f"must be a short text naming the seat, got {show(label)}")
    if len(label) > MAX_LABEL or label != label.strip():
        fail(where, at, f"must be at most {MAX_LABEL} characters, without spaces at the ends")
    return label
