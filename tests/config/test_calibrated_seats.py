"""Calibrated seats in a line-up: `{calibrated: FILE}` is the seat `sim calibrate` wrote,
read from the folder of the file that names it, checked on load, and held by the resolved
study itself; a seat's `label:` names it in tables."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from sim import run
from sim.config import load_study, parse_study
from sim.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "configs" / "base.yaml"
SEAT = {
    "policy": "heuristic",
    "weights": {"own_points": 1.0, "rival_points": -0.5, "feeds_rival_box": -0.8},
    "temperature": 0.9,
    "label": "calibrated",
}


def write(path: Path, data) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False)
    path.write_text(text, encoding="utf-8")
    return path


def lineup(first: dict) -> list:
    return [first, {"policy": "greedy"}, {"policy": "greedy"}, {"policy": "random"}]


def one_error(path: Path, sets=()) -> str:
    with pytest.raises(ConfigError) as info:
        load_study(path, sets)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_a_calibrated_entry_is_the_seat_in_its_file(tmp_path):
    """The seat stands in the line-up as if pasted: same parameters, label and config hash;
    `ban:` and `label:` beside it restrict and rename it."""
    write(tmp_path / "fits" / "calibrated.yaml", "# written by sim calibrate\n" + yaml.dump(SEAT))
    study = load_study(
        write(
            tmp_path / "s.yaml",
            {"extends": str(BASE), "seats": lineup({"calibrated": "fits/calibrated.yaml"})},
        )
    )
    pasted = load_study(write(tmp_path / "p.yaml", {"extends": str(BASE), "seats": lineup(SEAT)}))
    assert study.seats == pasted.seats and study.config_hash() == pasted.config_hash()
    assert study.seats[0].label == "calibrated" and study.seats[1].label == "greedy"
    assert study.to_yaml_dict()["seats"][0] == SEAT  # the resolved study holds the seat
    renamed = load_study(
        write(tmp_path / "r.yaml", {"extends": str(BASE), "seats": lineup(
            {"calibrated": "fits/calibrated.yaml", "label": "olena", "ban": ["princess"]})})
    )  # fmt: skip
    assert renamed.seats[0].label == "olena[-princess]"
    assert renamed.seats[0].params == {
        k: v for k, v in SEAT.items() if k not in ("policy", "label")
    }


def test_paths_are_read_from_the_file_that_names_them(tmp_path):
    """A parent naming `calibrated.yaml` beside itself keeps it when extended from another
    folder; `--set` reads from the config's folder."""
    write(tmp_path / "a" / "calibrated.yaml", SEAT)
    seats = lineup({"calibrated": "calibrated.yaml"})
    parent = write(tmp_path / "a" / "parent.yaml", {"extends": str(BASE), "seats": seats})
    child = write(tmp_path / "b" / "child.yaml", {"extends": "../a/parent.yaml", "games": 10})
    assert load_study(child).seats[0].params["temperature"] == 0.9
    via_set = load_study(parent, ["seats=[{policy: random}, {calibrated: calibrated.yaml},"
                                  " {policy: random}, {policy: random}]"])  # fmt: skip
    assert [s.label for s in via_set.seats] == ["random", "calibrated", "random", "random"]


@pytest.mark.parametrize(
    ("entry", "file", "says"),
    [
        ({"calibrated": "nope.yaml"}, None, r"seats\[0\]\.calibrated: .*nope\.yaml: no such file"),
        ({"calibrated": "c.yaml"}, {"policy": "greedy"}, "not a calibrated seat"),
        ({"calibrated": "c.yaml"}, {**SEAT, "rollouts": 3}, "unknown key 'rollouts'"),
        ({"calibrated": "c.yaml"}, {**SEAT, "temperature": -1},
         r"seats\[0\]\.temperature: must be"),
        ({"calibrated": "c.yaml", "temperature": 2}, SEAT,
         r"seats\[0\]\.temperature: a calibrated seat takes only ban, label"),
        ({"calibrated": 3}, SEAT, r"seats\[0\]\.calibrated: must be the path"),
        ({"calibrated": "c.yaml", "label": ""}, SEAT, r"seats\[0\]\.label: must be a short text"),
        ({"calibrated": "c.yaml"}, "policy: [", r"c\.yaml"),
    ],
)  # fmt: skip
def test_a_bad_calibrated_seat_is_one_error_line(tmp_path, entry, file, says):
    if file is not None:
        write(tmp_path / "c.yaml", file)
    message = one_error(write(tmp_path / "s.yaml", {"extends": str(BASE), "seats": lineup(entry)}))
    assert message.startswith(str(tmp_path / "s.yaml"))
    assert __import__("re").search(says, message), message


def test_any_seat_may_carry_a_label():
    study = parse_study({"players": 2, "seats": [{"policy": "greedy", "label": "strong"},
                                                 {"policy": "random"}]}, "<t>")  # fmt: skip
    assert [s.label for s in study.seats] == ["strong", "random"]
    assert study.to_yaml_dict()["seats"][0] == {"policy": "greedy", "label": "strong"}
    with pytest.raises(ConfigError, match=r"seats\[0\]\.label: must be at most 60"):
        parse_study({"players": 2, "seats": [{"policy": "greedy", "label": "x" * 61},
                                             {"policy": "random"}]}, "<t>")  # fmt: skip


def test_a_run_plays_the_calibrated_seat_and_keeps_it(tmp_path):
    """`sim run` with a calibrated seat: its folder's study holds the seat itself (the file
    may go), and the tables name it by its label."""
    write(tmp_path / "calibrated.yaml", SEAT)
    seats = lineup({"calibrated": "calibrated.yaml"})
    path = write(tmp_path / "s.yaml", {"extends": str(BASE), "games": 40, "seats": seats})
    result = run(load_study(path), jobs=1, out=tmp_path / "run", quiet=True)
    (tmp_path / "calibrated.yaml").unlink()
    saved = yaml.safe_load((tmp_path / "run" / "config.yaml").read_text())
    assert saved["seats"][0] == SEAT
    assert "calibrated" in set(result.players["policy"].astype(str))
