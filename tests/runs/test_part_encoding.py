"""How a part is encoded (`sim.runs.encoding.part_bytes`): a column without a missing
value is written as required (no definition levels, a faster and smaller part), a column
with one stays optional, and either way pandas reads back what was written."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sim.config import load_study
from sim.runs.encoding import part_bytes
from sim.runs.play import play_arrays
from sim.runs.results import TABLES
from sim.runs.tables import arrow_tables

BASE = Path(__file__).resolve().parents[2] / "configs" / "base.yaml"


def _read(data: pa.Buffer) -> tuple[pq.ParquetSchema, pd.DataFrame]:
    raw = data.to_pybytes()
    return pq.read_metadata(io.BytesIO(raw)).schema, pd.read_parquet(io.BytesIO(raw))


@pytest.fixture(scope="module")
def parts():
    study = load_study(BASE)
    return arrow_tables(study, play_arrays(study, 0, 300))


@pytest.mark.parametrize("name", TABLES)
def test_a_part_without_missing_values_is_written_required_and_reads_the_same(parts, name):
    schema, frame = _read(part_bytes(parts[name], name))
    levels = {schema.column(i).name: schema.column(i).max_definition_level
              for i in range(len(schema))}  # fmt: skip
    assert levels and set(levels.values()) == {0}, levels
    pd.testing.assert_frame_equal(frame, parts[name].to_pandas(), check_exact=True)


def test_a_column_with_a_missing_value_stays_optional():
    table = pa.table({"game": [0, 1, 2], "score": pa.array([3, None, 5], pa.int16())})
    schema, frame = _read(part_bytes(table))
    assert schema.column(0).max_definition_level == 0  # game: required
    assert schema.column(1).max_definition_level == 1  # score: may be missing
    assert frame["score"].isna().tolist() == [False, True, False]
    assert frame["game"].tolist() == [0, 1, 2]


def test_only_the_named_tables_are_built_and_each_is_the_same(parts):
    """A candidate's run builds only the tables it keeps (`arrow_tables`' names), in TABLES
    order, each exactly as when all four are built."""
    study = load_study(BASE)
    some = arrow_tables(study, play_arrays(study, 0, 300), ("players", "games"))
    assert list(some) == ["games", "players"]
    for name, table in some.items():
        assert table.equals(parts[name])
