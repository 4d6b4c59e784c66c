"""`dump_yaml` writes with libyaml's emitter when PyYAML has it: the text must be the one
the pure-Python dumper (`_Dumper`, which writes the empty key of the no-wall box card as
`'': 6`) writes, and read back to the same mapping."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from sim.config import load_study
from sim.config.yamlio import _Dumper, dump_yaml, load_yaml

CONFIGS = sorted((Path(__file__).resolve().parents[2] / "configs").glob("*.yaml"))

AWKWARD = {
    "name": "Якщо влізе — a name with a dash",
    "boxes": {"": 6, "N": 8, "NES": 4},
    "long": "a" * 200,
    "words": "ünïcödé string with spaces " * 5,
    "like_keywords": ["yes", "null", "0x10", "1e3", "true", ""],
    "marks": [" leading", "#hash", "a: b", "line1\nline2", "'quoted'"],
    "numbers": [1e-30, 0.1, float("inf"), -3, 10**20],
    "nothing": None,
    "nested": [{"": 3, "x": [1, {"y": "z"}]}],
}


def _python_dump(data) -> str:
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True)


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_a_study_is_written_as_the_python_dumper_writes_it(path):
    data = load_study(path).to_yaml_dict()
    assert dump_yaml(data) == _python_dump(data)


def test_awkward_values_are_written_alike_and_read_back():
    text = dump_yaml(AWKWARD)
    assert text == _python_dump(AWKWARD)
    assert "'': 6" in text  # the empty key stays a simple key
    assert load_yaml(text, "test") == AWKWARD
